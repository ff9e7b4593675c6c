'use strict';
/**
 * Tool-name resolution and the unknown-tool policy (docs/SPEC.md R10).
 * Port of python/callsieve/names.py: see its docstring for the funnel and the decisions
 * (a tie is no match, the loose key and its folding, only the parsed name loses its namespace).
 */

const { InputTypeError, OptionsError, typeName } = require('./errors');
const { isObject } = require('./jsontext');
const { JS_SPACE, asciiLower: lower } = require('./strings');
const { toolNamesOf } = require('./schema');

const UNKNOWN_TOOLS_POLICIES = Object.freeze(['keep', 'reject']);

/** `unknownTools` when it is a policy of UNKNOWN_TOOLS_POLICIES, else an OptionsError. */
function checkPolicy(unknownTools) {
  if (!UNKNOWN_TOOLS_POLICIES.includes(unknownTools)) {
    const got = typeof unknownTools === 'string' ? JSON.stringify(unknownTools) : typeName(unknownTools);
    throw new OptionsError(`unknownTools must be 'keep' or 'reject', got ${got}`);
  }
  return unknownTools;
}

const FULLWIDTH_PUNCTUATION = '\\uff01-\\uff0f\\uff1a-\\uff20\\uff3b-\\uff40\\uff5b-\\uff65';
const SEPARATORS = new RegExp(
  '[\\x00-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f' + JS_SPACE +
    '\\u00b7\\u2010-\\u2015\\u3001\\u3002\\u30fb' + FULLWIDTH_PUNCTUATION + ']',
);

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

function looseEquals(key) {
  return (d) => loose(d) === key;
}

const TIE = Symbol('tie');

/** The one declared name `same` accepts, null when none does, TIE when different names do. */
function only(names, same) {
  let found = null;
  for (const d of names) {
    if (same(d)) {
      if (found === null) found = d;
      else if (d !== found) return TIE;
    }
  }
  return found;
}

/** The declared names (R10): `toolNames` when given, else the names of `tools`. */
function declaredNames(toolNames, tools) {
  return toolNames === undefined || toolNames === null ? toolNamesOf(tools) : checkToolNames(toolNames);
}

/** Declared tool names as an array; a single string or a non-string name is an InputTypeError. */
function checkToolNames(toolNames) {
  if (toolNames === undefined || toolNames === null) return [];
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
  return names;
}

function namespaceTail(name) {
  const dot = name.lastIndexOf('.');
  if (dot < 0 || dot === name.length - 1) return null;
  return name.slice(dot + 1);
}

/** The R10.1 funnel over already-checked declared names (see `resolveToolName`). */
function resolveName(name, names) {
  if (names.includes(name)) return name;
  const t = name.trim();
  const tl = lower(t);
  const levels = [(d) => lower(d.trim()) === tl];
  const tail = namespaceTail(t);
  if (tail !== null) {
    const tailLower = lower(tail);
    levels.push((d) => d.trim() === tail);
    levels.push((d) => lower(d.trim()) === tailLower);
  }
  for (const key of [loose(t), tail !== null ? loose(tail) : '']) {
    if (key) levels.push(looseEquals(key));
  }
  for (const same of levels) {
    const found = only(names, same);
    if (found === TIE) return null;
    if (found !== null) return found;
  }
  return null;
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
  const kept = [];
  const rejected = new Set();
  for (const c of list) {
    const resolved = resolveName(c.name, names);
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

module.exports = { UNKNOWN_TOOLS_POLICIES, checkPolicy, checkToolNames, declaredNames, resolveName, resolveToolName, applyPolicy };
