'use strict';
/**
 * The public API: `parse()` and the streaming `Sieve`, both on the one incremental Scanner.
 * Port of python/toolsieve/sieve.py (camelCase).
 */

const { InputTypeError, OptionsError, SieveClosedError } = require('./errors');
const { Scanner } = require('./scanner');

const KNOWN_OPTIONS = ['toolNames'];

function typeName(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return (v.constructor && v.constructor.name) || 'object';
  return typeof v;
}

function readOptions(options) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new InputTypeError(`options must be an object, got ${typeName(options)}`);
  }
  const unknown = Object.keys(options).filter((k) => !KNOWN_OPTIONS.includes(k)).sort();
  if (unknown.length) throw new OptionsError(`unknown option(s): ${unknown.join(', ')}`);
  return options;
}

function toolNamesOf(toolNames) {
  if (toolNames === undefined || toolNames === null) return [];
  if (typeof toolNames === 'string') {
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

/**
 * Streaming sieve: `feed(chunk)` returns the events that chunk decided, `flush()` the rest.
 *
 * Text comes out as soon as it cannot become part of a tool call (R8.3); a recognized block
 * comes out once, as one `tool_calls` event whose `raw` is its exact source text (R8.1, R8.2).
 */
class Sieve {
  constructor(options) {
    const opts = readOptions(options);
    this.toolNames = Object.freeze(toolNamesOf(opts.toolNames));
    this._scanner = new Scanner();
    this._closed = false;
  }

  feed(chunk) {
    if (this._closed) throw new SieveClosedError('feed() after flush(): create a new Sieve for a new stream');
    if (typeof chunk !== 'string') throw new InputTypeError(`feed() takes a string, got ${typeName(chunk)}`);
    if (!chunk) return [];
    return this._scanner.feed(chunk);
  }

  flush() {
    if (this._closed) throw new SieveClosedError('flush() called twice');
    this._closed = true;
    return this._scanner.finish();
  }

  /** True once a wrapper tag was recognized outside ignored regions (R7). */
  get sawToolCallSyntax() {
    return this._scanner.saw;
  }
}

/** One-shot parse (R7): feed everything to a Sieve, flush, collect the calls. */
function parse(text, options) {
  if (typeof text !== 'string') throw new InputTypeError(`parse() takes a string, got ${typeName(text)}`);
  const sieve = new Sieve(options);
  const events = sieve.feed(text).concat(sieve.flush());
  const calls = [];
  for (const e of events) if (e.type === 'tool_calls') for (const c of e.calls) calls.push(c);
  return { calls, sawToolCallSyntax: sieve.sawToolCallSyntax, rejectedByPolicy: false, rejectedToolNames: [] };
}

/** Join adjacent text events (the form fixtures and the driver protocol compare). */
function coalesce(events) {
  const out = [];
  for (const e of events) {
    if (e.type === 'text') {
      if (!e.text) continue;
      const last = out[out.length - 1];
      if (last !== undefined && last.type === 'text') {
        out[out.length - 1] = { type: 'text', text: last.text + e.text };
        continue;
      }
    }
    out.push(e);
  }
  return out;
}

module.exports = { Sieve, parse, coalesce };
