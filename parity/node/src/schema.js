'use strict';
/**
 * Tool definitions and schema-aware normalization of call inputs (docs/SPEC.md R12).
 * Port of python/callsieve/schema.py: see its docstring for where a schema is found, when a
 * schema "says string", how arrays and objects recurse, and how numbers and keys are written.
 *
 * Objects are plain objects (see jsontext.js). Keys are read as own properties only, so `constructor` or `__proto__` are ordinary keys.
 */

const { InputTypeError, typeName } = require('./errors');
const { hasOwn, get, isDict, setKey, jsonText } = require('./jsontext');
const { asciiLower } = require('./strings');
const { jsonValue } = require('./values');

const SCHEMA_KEYS = Object.freeze(['parameters', 'input_schema', 'inputSchema', 'schema']);

// ---- Tool definitions ------------------------------------------------------------------------

/** The declared name of a tool entry (`{function: {name}}` or `{name}`), trimmed, or ''. */
/** `tools` when it is null/undefined (-> null) or an array of tool definitions, else an InputTypeError. */
function checkTools(tools) {
  if (tools === undefined || tools === null) return null;
  if (!Array.isArray(tools)) throw new InputTypeError(`tools must be a list of tool definitions, got ${typeName(tools)}`);
  return tools;
}

function toolName(tool) {
  if (!isDict(tool)) return '';
  const fn = get(tool, 'function');
  if (isDict(fn)) {
    const n = get(fn, 'name');
    if (typeof n === 'string' && n.trim()) return n.trim();
  }
  const n = get(tool, 'name');
  if (typeof n === 'string' && n.trim()) return n.trim();
  return '';
}

/** The JSON schema of a tool entry, or null: `function` first, then the tool, by SCHEMA_KEYS. */
function toolSchema(tool) {
  if (!isDict(tool)) return null;
  const fn = get(tool, 'function');
  for (const holder of isDict(fn) ? [fn, tool] : [tool]) {
    for (const k of SCHEMA_KEYS) {
      const s = get(holder, k);
      if (isDict(s)) return s;
    }
  }
  return null;
}

/** The distinct declared names of `tools`, in order (entries without a name are skipped). */
function toolNamesOf(tools) {
  if (!Array.isArray(tools)) return [];
  const out = [];
  const seen = new Set();
  for (const tool of tools) {
    const n = toolName(tool);
    if (n && !seen.has(n)) {
      seen.add(n);
      out.push(n);
    }
  }
  return out;
}

/**
 * Declared name -> schema, for the tools that have one (the first definition of a name wins).
 * A Map, so that names keep their order as Python's dict does (an object would put '0' first).
 */
function toolSchemas(tools) {
  const out = new Map();
  if (!Array.isArray(tools)) return out;
  for (const tool of tools) {
    const n = toolName(tool);
    const s = toolSchema(tool);
    if (n && s !== null && !out.has(n)) out.set(n, s);
  }
  return out;
}

/**
 * The schema of the tool called `name` (trimmed): the first tool of exactly that name that has
 * a schema; else the schema (or null) of the first tool whose name matches ignoring ASCII case.
 */
function findToolSchema(tools, name) {
  if (!Array.isArray(tools) || typeof name !== 'string') return null;
  const want = name.trim();
  const wantLower = asciiLower(want);
  let loose = null;
  let looseSeen = false;
  for (const tool of tools) {
    const n = toolName(tool);
    if (!n) continue;
    if (n === want) {
      const s = toolSchema(tool);
      if (s !== null) return s;
    } else if (!looseSeen && asciiLower(n) === wantLower) {
      looseSeen = true;
      loose = toolSchema(tool);
    }
  }
  return loose;
}

// ---- Normalization ---------------------------------------------------------------------------

// A loop, not Array#every: every() skips the holes of a sparse array.
function all(a, pred) {
  for (let i = 0; i < a.length; i++) if (!pred(a[i])) return false;
  return true;
}

const isString = (x) => typeof x === 'string';
const isStringLike = (x) => x === 'string' || x === 'null';

/** Does the schema say "string"? (R12; see the Python module docstring.) */
function isStringSchema(s) {
  if (!isDict(s)) return false;
  const t = get(s, 'type');
  if (t === 'string') return true;
  if (Array.isArray(t)) {
    return t.length > 0 && t.includes('string') && all(t, isStringLike);
  }
  if (hasOwn(s, 'type')) return false;
  const e = get(s, 'enum');
  if (Array.isArray(e) && e.length > 0 && all(e, isString)) return true;
  return typeof get(s, 'const') === 'string';
}

function allowsNull(s) {
  const t = get(s, 'type');
  return Array.isArray(t) && t.includes('null');
}

function toText(v) {
  try {
    return jsonText(v);
  } catch (e) {
    if (!(e instanceof InputTypeError)) throw e;
    return String(v);
  }
}

/**
 * Normalize one value by its JSON schema (R12). Never throws on odd schemas; never mutates:
 * changed containers are copied. `undefined` (no Python counterpart) stays as it is.
 */
function normalizeValue(value, schema) {
  if (!isDict(schema) || value === undefined) return value;
  if (isStringSchema(schema)) {
    if (typeof value === 'string') return value;
    if (value === null && allowsNull(schema)) return value;
    return toText(value);
  }
  if (Array.isArray(value)) {
    let tuple = null;
    let rest;
    const prefix = get(schema, 'prefixItems');
    const items = get(schema, 'items');
    if (Array.isArray(prefix)) {
      tuple = prefix;
      rest = items;
    } else if (Array.isArray(items)) {
      tuple = items;
      rest = get(schema, 'additionalItems');
    } else {
      rest = items;
    }
    const out = [];
    for (let i = 0; i < value.length; i++) {
      const sub = tuple !== null && i < tuple.length ? tuple[i] : rest;
      out.push(isDict(sub) ? normalizeValue(value[i], sub) : value[i]);
    }
    return out;
  }
  if (isDict(value)) {
    let props = get(schema, 'properties');
    props = isDict(props) ? props : null;
    let extra = get(schema, 'additionalProperties');
    extra = isDict(extra) ? extra : null;
    if (props === null && extra === null) return value;
    const result = {};
    for (const k of Object.keys(value)) {
      const sub = props !== null && hasOwn(props, k) ? props[k] : extra;
      setKey(result, k, isDict(sub) ? normalizeValue(value[k], sub) : value[k]);
    }
    return result;
  }
  return value;
}

/**
 * The input of a call to `name`, normalized by that tool's schema (R12); the input itself when
 * the tool is unknown, has no schema, or the schema would turn the input into a non-object.
 */
// ---- R17.9: raw-text values typed by the schema (Python: typed_value) ------------------------

function schemaTypes(s) {
  const t = get(s, 'type');
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x) => typeof x === 'string');
  const out = [];
  for (const key of ['anyOf', 'oneOf']) {
    const branches = get(s, key);
    if (!Array.isArray(branches)) continue;
    for (const b of branches) {
      if (!isDict(b)) continue;
      for (const x of schemaTypes(b)) if (!out.includes(x)) out.push(x);
    }
  }
  return out;
}

/** [true, value] when `raw` reads as a type the property's schema allows, else [false, null]. */
/** Does `typedValue` give every text back as written (the schema allows a string, or says nothing
 * usable)? Only then can a raw-text value stream before it ends (R16, R17.9). */
function keepsText(schema) {
  if (!isDict(schema)) return true;
  const types = schemaTypes(schema);
  return !types.length || types.includes('string');
}

function typedValue(schema, raw) {
  if (!isDict(schema)) return [false, null];
  const types = schemaTypes(schema);
  if (!types.length) return isStringSchema(schema) ? [true, raw] : [false, null];
  if (types.includes('string')) return [true, raw];
  const t = raw.trim();
  for (const ty of types) {
    if (ty === 'boolean' && (t === 'true' || t === 'True' || t === 'false' || t === 'False')) {
      return [true, t === 'true' || t === 'True'];
    }
    if (ty === 'object' || ty === 'array') {
      // only a container converts: a bare `5` for an object stays the string
      const [ok, v] = jsonValue(t);
      if (ok && (ty === 'object' ? isDict(v) : Array.isArray(v))) return [true, v];
    } else if (ty === 'integer' || ty === 'number') {
      const [ok, v] = jsonValue(t);
      if (!ok || typeof v !== 'number') continue;
      if (ty === 'number') return [true, v];
      // D65: an integer a double cannot hold exactly (beyond 2**53 - 1) stays the string
      if (Number.isSafeInteger(v)) return [true, v];
    }
  }
  if (types.includes('null') && (t === 'null' || t === 'None')) return [true, null];
  return [false, null];
}

/** The schema of property `key` of an object schema, or null. */
function propertySchema(schema, key) {
  if (schema === null || schema === undefined) return null;
  const props = get(schema, 'properties');
  if (isDict(props) && hasOwn(props, key)) return props[key];
  const extra = get(schema, 'additionalProperties');
  return isDict(extra) ? extra : null;
}

function normalizeInput(name, input, tools) {
  const schema = findToolSchema(tools, name);
  if (schema === null) return input;
  const out = normalizeValue(input, schema);
  return isDict(out) ? out : input;
}

module.exports = {
  checkTools,
  keepsText,
  SCHEMA_KEYS,
  toolName,
  toolSchema,
  toolNamesOf,
  toolSchemas,
  findToolSchema,
  isStringSchema,
  normalizeValue,
  normalizeInput,
  propertySchema,
  typedValue,
};
