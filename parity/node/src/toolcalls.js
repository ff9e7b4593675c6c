'use strict';
/**
 * Tool calls as OpenAI writes them (R13): `message.tool_calls` entries and streaming
 * `delta.tool_calls` deltas, with their ids. Port of python/callsieve/toolcalls.py; the rules are
 * in python/callsieve/openai.py's docstring. The rewriters of ./chunks.js and ./completion.js write
 * their calls with these.
 */

const { InputTypeError, checkOptions, typeName } = require('./errors');
const { normalizeInput, checkTools } = require('./schema');
const { isObject, jsonText } = require('./jsontext');

function isInt(v) {
  return typeof v === 'number' && Number.isInteger(v);
}

function randomHex(n) {
  const bytes = new Uint8Array(n);
  const c = globalThis.crypto;
  if (c && typeof c.getRandomValues === 'function') c.getRandomValues(bytes);
  else bytes.set(require('crypto').randomBytes(n));
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/** A fresh tool-call id: `call_` and 24 random hex digits. */
function newCallId() {
  return 'call_' + randomHex(12);
}

function checkIdFactory(idFactory) {
  if (idFactory !== undefined && idFactory !== null && typeof idFactory !== 'function') {
    throw new InputTypeError('idFactory must be a function');
  }
  return idFactory === undefined ? null : idFactory;
}

function nextId(idFactory) {
  if (idFactory === undefined || idFactory === null) return newCallId();
  const v = idFactory();
  if (typeof v !== 'string') throw new InputTypeError(`idFactory must return a string, got ${typeName(v)}`);
  return v;
}

function checkCalls(calls) {
  if (calls === null || typeof calls !== 'object' || typeof calls[Symbol.iterator] !== 'function') {
    throw new InputTypeError(`calls must be a list of {name, input} calls, got ${typeName(calls)}`);
  }
  const out = Array.from(calls);
  for (const c of out) {
    if (!isObject(c) || typeof c.name !== 'string' || !isObject(c.input)) {
      throw new InputTypeError('calls must hold {name: string, input: object} objects');
    }
  }
  return out;
}

// D54: a malformed call (R18.2) that goes out as a tool call anyway carries its raw text as
// `arguments` (not a JSON object), so the client's own validation tells the model.
const RAW_ARGUMENTS = Symbol('rawArguments');

function args(call, tools) {
  if (call[RAW_ARGUMENTS] !== undefined) return call[RAW_ARGUMENTS];
  return jsonText(normalizeInput(call.name, call.input, tools));
}

function unparsedCall(name, raw) {
  const c = { name, input: {} };
  Object.defineProperty(c, RAW_ARGUMENTS, { value: raw, enumerable: false });
  return c;
}

/** The id the model wrote for the call (Kimi-K2, Mistral, D50), else a fresh one. */
function callId(call, idFactory) {
  return typeof call.id === 'string' && call.id ? call.id : nextId(idFactory);
}

/** Calls as an OpenAI `message.tool_calls` list (R13). */
function toOpenAIToolCalls(calls, opts) {
  const { tools: t = null, idFactory: f = null } = checkOptions(opts, ['tools', 'idFactory']);
  const tools = checkTools(t);
  const idFactory = checkIdFactory(f);
  return checkCalls(calls).map((c) => ({
    id: callId(c, idFactory),
    type: 'function',
    function: { name: c.name, arguments: args(c, tools) },
  }));
}

/** Calls as streaming `delta.tool_calls` entries, each complete, with `index` counting from `startIndex` (R13). */
function toOpenAIStreamDeltas(calls, opts) {
  const { tools: t = null, idFactory: f = null, startIndex = 0 } = checkOptions(opts, ['tools', 'idFactory', 'startIndex']);
  const tools = checkTools(t);
  const idFactory = checkIdFactory(f);
  if (!isInt(startIndex)) throw new InputTypeError(`startIndex must be an integer, got ${typeName(startIndex)}`);
  return checkCalls(calls).map((c, i) => ({
    index: startIndex + i,
    id: callId(c, idFactory),
    type: 'function',
    function: { name: c.name, arguments: args(c, tools) },
  }));
}

module.exports = {
  newCallId,
  toOpenAIToolCalls,
  toOpenAIStreamDeltas,
  checkIdFactory,
  nextId,
  unparsedCall,
  isInt,
  RAW_ARGUMENTS,
};
