'use strict';
/**
 * Every error class of callsieve. Misuse of the API throws; malformed *content* never throws (R4):
 * it becomes text. Port of python/callsieve/errors.py.
 */

/** Base class of every error callsieve throws. */
class CallsieveError extends Error {
  constructor(message) {
    super(message);
    this.name = new.target.name;
  }
}

/** A chunk, text or option had the wrong type (e.g. a Buffer instead of a string). */
class InputTypeError extends CallsieveError {}

/** `feed()` or `flush()` was called on a sieve that was already flushed. */
class SieveClosedError extends CallsieveError {}

/** An option was unknown or had an invalid value. */
class OptionsError extends CallsieveError {}

/** The event stream cannot be read: invalid UTF-8, a `data:` that is not JSON, data after `[DONE]`. */
class SSEFormatError extends CallsieveError {}

/** An OpenAI chunk or response has a shape the rewriter cannot carry through unchanged. */
class OpenAIFormatError extends CallsieveError {}

/** A driver-protocol request that cannot be answered (docs/DRIVER.md); not a library error. */
class BadRequest extends Error {
  constructor(message) {
    super(message);
    this.name = 'BadRequest';
  }
}

/** A bad gateway setting (command line or environment): the server bin exits 2. */
class UsageError extends Error {}

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

module.exports = {
  CallsieveError,
  InputTypeError,
  SieveClosedError,
  OptionsError,
  SSEFormatError,
  OpenAIFormatError,
  BadRequest,
  UsageError,
  typeName,
  checkOptions,
};
