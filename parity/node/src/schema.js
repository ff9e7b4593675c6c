'use strict';
/**
 * Schema-aware normalization of call inputs (SEMANTICS.md R12).
 *
 * Given OpenAI-style tool definitions, a call's input is normalized by its tool's JSON schema:
 * a property typed string (or a string enum / const, or a type list of string-like types only)
 * becomes a string: numbers, booleans and null as their JSON text (`1` -> "1"), objects and
 * arrays as compact JSON. Objects and arrays recurse (properties, additionalProperties, items,
 * tuple items); a property typed array keeps its array. Without a schema the input is unchanged.
 * Pure functions, no Node-only API.
 */

const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

function isObj(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function setKey(obj, k, v) {
  if (k === '__proto__') {
    Object.defineProperty(obj, k, { value: v, writable: true, enumerable: true, configurable: true });
  } else {
    obj[k] = v;
  }
}

/** The declared name of a tool entry `{function: {name}}` or `{name}`, trimmed, or ''. */
function toolName(tool) {
  if (!isObj(tool)) return '';
  const fn = isObj(tool.function) ? tool.function : null;
  if (fn && typeof fn.name === 'string' && fn.name.trim()) return fn.name.trim();
  if (typeof tool.name === 'string' && tool.name.trim()) return tool.name.trim();
  return '';
}

const SCHEMA_KEYS = ['parameters', 'input_schema', 'inputSchema', 'schema'];

/** The JSON schema of a tool entry: `function.parameters`, or `input_schema` / `inputSchema` / `schema`. */
function toolSchema(tool) {
  if (!isObj(tool)) return null;
  const fn = isObj(tool.function) ? tool.function : null;
  for (const holder of fn ? [fn, tool] : [tool]) {
    for (const k of SCHEMA_KEYS) {
      if (isObj(holder[k])) return holder[k];
    }
  }
  return null;
}

/** The schema of the tool called `name` (exact name first, then case-insensitive), or null. */
function findToolSchema(tools, name) {
  if (!Array.isArray(tools) || typeof name !== 'string') return null;
  const want = name.trim();
  let loose = null;
  for (const tool of tools) {
    const n = toolName(tool);
    if (!n) continue;
    if (n === want) {
      const s = toolSchema(tool);
      if (s) return s;
    } else if (loose === null && n.toLowerCase() === want.toLowerCase()) {
      loose = toolSchema(tool);
    }
  }
  return loose;
}

const STRING_LIKE = new Set(['string', 'null']);

/** Does the schema say "string"? (type string; a string enum / const; a type list of string and null only) */
function isStringSchema(s) {
  const t = s.type;
  if (t === 'string') return true;
  if (Array.isArray(t)) return t.length > 0 && t.includes('string') && t.every((x) => STRING_LIKE.has(x));
  if (t !== undefined) return false;
  if (Array.isArray(s.enum) && s.enum.length > 0 && s.enum.every((x) => typeof x === 'string')) return true;
  return typeof s.const === 'string';
}

function allowsNull(s) {
  return Array.isArray(s.type) && s.type.includes('null');
}

function toText(v) {
  const j = JSON.stringify(v);
  return j === undefined ? String(v) : j;
}

/** Normalize one value by its schema (R12). Values are never mutated: changed parts are copied. */
function normalizeValue(v, s) {
  if (!isObj(s) || v === undefined) return v;
  if (isStringSchema(s)) {
    if (typeof v === 'string') return v;
    if (v === null && allowsNull(s)) return v;
    return toText(v);
  }
  if (Array.isArray(v)) {
    let tuple = null;
    let rest = null;
    if (Array.isArray(s.prefixItems)) {
      tuple = s.prefixItems;
      rest = s.items;
    } else if (Array.isArray(s.items)) {
      tuple = s.items;
      rest = s.additionalItems;
    } else {
      rest = s.items;
    }
    return v.map((x, i) => {
      const sub = tuple !== null && i < tuple.length ? tuple[i] : rest;
      return isObj(sub) ? normalizeValue(x, sub) : x;
    });
  }
  if (isObj(v)) {
    const props = isObj(s.properties) ? s.properties : null;
    const extra = isObj(s.additionalProperties) ? s.additionalProperties : null;
    if (!props && !extra) return v;
    const out = {};
    for (const k of Object.keys(v)) {
      const sub = props && hasOwn(props, k) ? props[k] : extra;
      setKey(out, k, isObj(sub) ? normalizeValue(v[k], sub) : v[k]);
    }
    return out;
  }
  return v;
}

/** Normalize a call input by its tool's schema; unchanged when the tool has no schema. */
function normalizeInput(input, schema) {
  return isObj(schema) ? normalizeValue(input, schema) : input;
}

module.exports = { toolName, toolSchema, findToolSchema, isStringSchema, normalizeValue, normalizeInput };
