'use strict';
/**
 * Tool-name resolution and the unknown-tool policy (docs/SPEC.md R10).
 * Port of python/callsieve/names.py: see its docstring for the funnel and the decisions
 * (a tie is no match, the loose key and its folding, only the parsed name loses its namespace).
 */

const { InputTypeError, OptionsError, typeName } = require('./errors');
const { isObject } = require('./jsontext');
const { asciiLower: lower } = require('./strings');
const { toolNamesOf } = require('./schema');
// The loose level's separators, as a character class: generated from names.py (tables.js).
const { SEPARATORS } = require('./tables');

const UNKNOWN_TOOLS_POLICIES = Object.freeze(['keep', 'reject']);

/** `unknownTools` when it is a policy of UNKNOWN_TOOLS_POLICIES, else an OptionsError. */
function checkPolicy(unknownTools) {
  if (!UNKNOWN_TOOLS_POLICIES.includes(unknownTools)) {
    const got = typeof unknownTools === 'string' ? JSON.stringify(unknownTools) : typeName(unknownTools);
    throw new OptionsError(`unknownTools must be 'keep' or 'reject', got ${got}`);
  }
  return unknownTools;
}

// Code points, as Python iterates a str (a lone surrogate is one).
function fold(c) {
  const o = c.codePointAt(0);
  if (o < 0x80) return c.toLowerCase();
  if ((o >= 0xc0 && o <= 0x52f) || (o >= 0x1e00 && o <= 0x1fff) || (o >= 0xff21 && o <= 0xff3a)) {
    const low = c.toLowerCase();
    return low.length === 1 ? low : c; // 'İ' -> 'i̇' would add a character
  }
  return c;
}

function loose(s) {
  let out = '';
  for (const c of s) if (!SEPARATORS.test(c)) out += fold(c);
  return out;
}

const TIE = Symbol('tie');

/** Each key to the one declared name that has it, or TIE when different names have it. */
function table(names, key) {
  const t = new Map();
  for (const d of names) {
    const k = key(d);
    const found = t.get(k);
    if (found === undefined) t.set(k, d);
    else if (found !== d) t.set(k, TIE);
  }
  return t;
}

/**
 * The lookup tables of one set of declared names (python/callsieve/names.py's DeclaredNames):
 * built once, so a name costs the characters of its own pieces, whatever the number and length
 * of the declared names (issue 41 F1). `work` is a debug counter, as Sieve#work: characters
 * (UTF-16 code units) normalized so far, each declared name three times (one key per table),
 * then the pieces of each resolved name that a level normalizes.
 */
class NameTables {
  constructor(names) {
    this.exact = new Set(names);
    this.trimmed = table(names, (d) => d.trim()); // the namespace level, exactly
    this.folded = table(names, (d) => lower(d.trim())); // the case-insensitive levels
    this.loose = table(names, loose); // the loose levels
    this.work = 3 * names.reduce((sum, d) => sum + d.length, 0);
  }

  /** The declared name that `name` resolves to, or null (see `resolveToolName`). */
  resolve(name) {
    if (this.exact.has(name)) return name;
    const t = name.trim();
    this.work += name.length + t.length;
    let found = this.folded.get(lower(t));
    const tail = namespaceTail(t);
    if (found === undefined && tail !== null) {
      this.work += tail.length;
      found = this.trimmed.get(tail);
      if (found === undefined) found = this.folded.get(lower(tail));
    }
    for (const part of [t, tail]) {
      // the loose levels: the whole name, then its last namespace part
      if (found !== undefined || part === null) break;
      this.work += part.length;
      const key = loose(part);
      if (key) found = this.loose.get(key);
    }
    return found === undefined || found === TIE ? null : found; // a tie is no match, and looser levels are not tried
  }
}

// Declared-name arrays checked here (frozen) -> their NameTables, built when a first name is
// resolved (undefined until then): a Sieve or a rewriter, and the sieves it makes, share them.
const TABLES = new WeakMap();

function checked(names) {
  Object.freeze(names);
  TABLES.set(names, undefined);
  return names;
}

/** The NameTables of declared names (of an array checked here: built once and kept). */
function nameTables(names) {
  let t = TABLES.get(names);
  if (t === undefined) {
    t = new NameTables(names);
    if (TABLES.has(names)) TABLES.set(names, t);
  }
  return t;
}

/** The declared names (R10): `toolNames` when given, else the names of `tools`. */
function declaredNames(toolNames, tools) {
  return toolNames === undefined || toolNames === null ? checked(toolNamesOf(tools)) : checkToolNames(toolNames);
}

/**
 * Declared tool names as a frozen array (itself when it was checked here already); a single
 * string or a non-string name is an InputTypeError.
 */
function checkToolNames(toolNames) {
  if (TABLES.has(toolNames)) return toolNames;
  if (toolNames === undefined || toolNames === null) return checked([]);
  if (typeof toolNames === 'string' || toolNames instanceof String) {
    throw new InputTypeError('toolNames must be a list of strings, not a single string');
  }
  if (typeof toolNames !== 'object' || typeof toolNames[Symbol.iterator] !== 'function') {
    throw new InputTypeError(`toolNames must be a list of strings, got ${typeName(toolNames)}`);
  }
  const names = Array.from(toolNames);
  for (const n of names) {
    if (typeof n !== 'string') throw new InputTypeError(`toolNames must hold strings, got ${typeName(n)}`);
  }
  return checked(names);
}

function namespaceTail(name) {
  const dot = name.lastIndexOf('.');
  if (dot < 0 || dot === name.length - 1) return null;
  return name.slice(dot + 1);
}

/** The R10.1 funnel over already-checked declared names (see `resolveToolName` and nameTables). */
function resolveName(name, names) {
  return nameTables(names).resolve(name);
}

/**
 * The declared name that `name` resolves to through the R10 funnel, or null (also when `name`
 * is not a string). Throws InputTypeError when `toolNames` is a single string or holds a non-string.
 */
function resolveToolName(name, toolNames) {
  const names = checkToolNames(toolNames);
  if (typeof name !== 'string') return null;
  return resolveName(name, names);
}

/**
 * Resolve call names against the declared names and apply the unknown-tool policy (R10.2).
 * Calls are `{name, input}`; returns `{calls, rejectedToolNames, rejectedByPolicy}`. Throws
 * OptionsError for another policy, InputTypeError for bad `toolNames` or calls.
 */
function applyPolicy(calls, toolNames, unknownTools = 'keep') {
  checkPolicy(unknownTools);
  const names = checkToolNames(toolNames);
  if (calls === null || typeof calls !== 'object' || typeof calls[Symbol.iterator] !== 'function') {
    throw new InputTypeError(`calls must be a list of calls, got ${typeName(calls)}`);
  }
  const list = Array.from(calls);
  for (const c of list) {
    if (!isObject(c) || typeof c.name !== 'string' || !isObject(c.input)) {
      throw new InputTypeError('calls must be {name: string, input: object} objects');
    }
  }
  if (!names.length) return { calls: list, rejectedToolNames: [], rejectedByPolicy: false };
  const tables = nameTables(names);
  const kept = [];
  const rejected = new Set();
  for (const c of list) {
    const resolved = tables.resolve(c.name);
    if (resolved === null) {
      if (unknownTools === 'reject') {
        rejected.add(c.name);
        continue;
      }
      kept.push(c);
    } else if (resolved === c.name) {
      kept.push(c);
    } else {
      kept.push(c.id === undefined ? { name: resolved, input: c.input } : { name: resolved, input: c.input, id: c.id });
    }
  }
  return { calls: kept, rejectedToolNames: [...rejected], rejectedByPolicy: list.length > 0 && kept.length === 0 };
}

module.exports = {
  UNKNOWN_TOOLS_POLICIES,
  checkPolicy,
  checkToolNames,
  declaredNames,
  NameTables,
  nameTables,
  resolveName,
  resolveToolName,
  applyPolicy,
};
