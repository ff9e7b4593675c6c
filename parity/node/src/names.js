'use strict';
/**
 * Tool-name resolution and the unknown-tool policy (SEMANTICS.md R10).
 * Port of python/toolsieve/names.py: see its docstring for the funnel and the decisions
 * (first declared wins, ASCII-only case folding, only the parsed name loses its namespace).
 */

const { InputTypeError, OptionsError, typeName } = require('./errors');
const { isObject } = require('./jsontext');
const { asciiLower: lower } = require('./strings');
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

function loose(s) {
  return lower(s).replace(/[^a-z0-9]+/g, '');
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
  for (const d of names) if (lower(d.trim()) === tl) return d;
  const tail = namespaceTail(t);
  if (tail !== null) {
    for (const d of names) if (d.trim() === tail) return d;
    const tailLower = lower(tail);
    for (const d of names) if (lower(d.trim()) === tailLower) return d;
  }
  for (const key of [loose(t), tail !== null ? loose(tail) : '']) {
    if (key) {
      for (const d of names) if (loose(d) === key) return d;
    }
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
      kept.push({ name: resolved, input: c.input });
    }
  }
  return { calls: kept, rejectedToolNames: [...rejected], rejectedByPolicy: list.length > 0 && kept.length === 0 };
}

module.exports = { UNKNOWN_TOOLS_POLICIES, checkPolicy, checkToolNames, declaredNames, resolveName, resolveToolName, applyPolicy };
