'use strict';
/** Errors thrown for misuse of the API. Malformed *content* never throws (R4): it becomes text. */

/** Base class of every error toolsieve throws. */
class ToolsieveError extends Error {
  constructor(message) {
    super(message);
    this.name = new.target.name;
  }
}

/** A chunk, text or option had the wrong type (e.g. a Buffer instead of a string). */
class InputTypeError extends ToolsieveError {}

/** `feed()` or `flush()` was called on a sieve that was already flushed. */
class SieveClosedError extends ToolsieveError {}

/** An option was unknown or had an invalid value. */
class OptionsError extends ToolsieveError {}

/** The type of a value, for error messages. */
function typeName(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return (v.constructor && v.constructor.name) || 'object';
  return typeof v;
}

/** An options object with only `known` keys (null or undefined: none); returns it or `{}`. */
function checkOptions(opts, known) {
  if (opts === undefined || opts === null) return {};
  if (typeof opts !== 'object' || Array.isArray(opts)) {
    throw new InputTypeError(`options must be an object, got ${typeName(opts)}`);
  }
  const unknown = Object.keys(opts).filter((k) => !known.includes(k)).sort();
  if (unknown.length) throw new OptionsError(`unknown option(s): ${unknown.join(', ')}`);
  return opts;
}

module.exports = { ToolsieveError, InputTypeError, SieveClosedError, OptionsError, typeName, checkOptions };
