'use strict';
/**
 * JSON as JavaScript writes it, and the plain-object helpers JSON values need.
 * Port of python/callsieve/jsontext.py (`jsonText` is what Python's `json_text` reproduces).
 *
 * A Python dict is a plain object here (prototype Object.prototype or null); other objects
 * (Map, Date, class instances) are "other types", as non-dict objects are in Python.
 */

const { InputTypeError, typeName } = require('./errors');

const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/** o[k] when it is an own property (Python's dict.get), else undefined. */
function get(o, k) {
  return hasOwn(o, k) ? o[k] : undefined;
}

/** Any non-null, non-array object (a looser dict test, for arguments and chunks). */
function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Is `v` what Python's schema code takes as a dict: a plain object? */
function isDict(v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const p = Object.getPrototypeOf(v);
  return p === null || p === Object.prototype || Object.getPrototypeOf(p) === null; // any realm
}

/** obj[k] = v as an own data property (also for `__proto__`). */
function setKey(obj, k, v) {
  if (k === '__proto__') {
    Object.defineProperty(obj, k, { value: v, writable: true, enumerable: true, configurable: true });
  } else {
    obj[k] = v;
  }
}

/**
 * `s` as inside a JSON string literal written by JSON.stringify (no quotes): a string value
 * streamed in pieces (R16) escapes to the same text as whole, piece by piece, as long as no piece
 * ends between the two halves of a surrogate pair (ArgumentsWriter holds those back).
 */
function jsonStringBody(s) {
  const q = JSON.stringify(s);
  return q.slice(1, q.length - 1);
}

/** A number as Number#toString (and JSON.stringify) writes it; NaN/±Infinity -> "null". */
function jsNumber(x) {
  if (typeof x === 'bigint') return String(x); // Python int: all its digits
  if (typeof x !== 'number') throw new InputTypeError(`not a number: ${typeName(x)}`);
  return Number.isFinite(x) ? String(x) : 'null'; // String(-0) is "0", as in Python
}

/** The [key, value] pairs of a plain object in JavaScript property order (its own order here). */
function jsKeys(obj) {
  if (!isDict(obj)) throw new InputTypeError(`not an object: ${typeName(obj)}`);
  return Object.keys(obj).map((k) => [k, obj[k]]);
}

// JSON.stringify leaves these out of objects and writes them as null in arrays.
function isSkipped(v) {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

class Lit {
  constructor(s, done = null) {
    this.s = s;
    this.done = done; // the container this piece closes
  }
}

/**
 * Compact JSON text, as JSON.stringify writes it for JSON-like values: plain objects, arrays,
 * strings, numbers, booleans, null. Iterative, so any depth works (JSON.stringify has a stack
 * limit). Throws InputTypeError for other types, a cyclic value, or a value JSON.stringify
 * would not write (undefined, a function, a symbol).
 */
function jsonText(value) {
  if (isSkipped(value)) throw new InputTypeError(`not a JSON value: ${typeName(value)}`);
  const out = [];
  const stack = [value];
  const open = new Set(); // containers being written: meeting one again is a cycle
  while (stack.length) {
    const v = stack.pop();
    if (v instanceof Lit) {
      out.push(v.s);
      if (v.done !== null) open.delete(v.done);
    } else if (typeof v === 'string') {
      out.push(JSON.stringify(v)); // the same escapes as Python's _quote
    } else if (v === null) {
      out.push('null');
    } else if (typeof v === 'boolean') {
      out.push(v ? 'true' : 'false');
    } else if (typeof v === 'number') {
      out.push(jsNumber(v));
    } else if (Array.isArray(v) || isDict(v)) {
      if (open.has(v)) throw new InputTypeError('not a JSON value: cyclic structure');
      open.add(v);
      const items = [];
      if (Array.isArray(v)) {
        items.push(new Lit('['));
        for (let i = 0; i < v.length; i++) {
          if (i) items.push(new Lit(','));
          items.push(isSkipped(v[i]) ? null : v[i]);
        }
        items.push(new Lit(']', v));
      } else {
        items.push(new Lit('{'));
        let first = true;
        for (const k of Object.keys(v)) {
          if (isSkipped(v[k])) continue;
          items.push(new Lit((first ? '' : ',') + JSON.stringify(k) + ':'));
          items.push(v[k]);
          first = false;
        }
        items.push(new Lit('}', v));
      }
      for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]);
    } else {
      throw new InputTypeError(`not a JSON value: ${typeName(v)}`);
    }
  }
  return out.join('');
}

module.exports = { hasOwn, get, isDict, isObject, setKey, jsNumber, jsKeys, jsonStringBody, jsonText };
