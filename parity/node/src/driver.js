'use strict';
/**
 * The requests and responses of the driver protocol (docs/DRIVER.md), without any I/O: `respond(line)`
 * answers one JSON request line. Ops: `parse`, `stream`, and `call` (one library function by its
 * camelCase name with JSON `args`: the function fixtures of R10-R13; tool-call ids are call_1,
 * call_2, ... counting from 1 in each request). Port of python/callsieve/driver.py; used by
 * driver.js and, in the browser, by the playground.
 */

const { Sieve, coalesce, parse } = require('./sieve');
const { BadRequest, CallsieveError } = require('./errors');
const { isObject } = require('./jsontext');
const { applyPolicy, resolveToolName } = require('./names');
const { normalizeRole } = require('./roles');
const { normalizeInput } = require('./schema');
const { buildToolInstructions } = require('./prompt');
const { preparePromptRequest } = require('./request');
const {
  ChatCompletionStreamRewriter,
  rewriteChatCompletion,
  toOpenAIStreamDeltas,
  toOpenAIToolCalls,
} = require('./openai');

const KNOWN_OPTIONS = ['toolNames', 'tools', 'unknownTools', 'jsonToolCalls', 'formats', 'reasoning', 'streamArguments', 'preset'];

function options(req) {
  const opts = req.options;
  if (opts === undefined || opts === null) return {};
  if (!isObject(opts)) throw new BadRequest('options must be an object');
  const unknown = Object.keys(opts).filter((k) => !KNOWN_OPTIONS.includes(k)).sort();
  if (unknown.length) throw new BadRequest(`unknown option(s): ${unknown.join(', ')}`);
  const names = opts.toolNames;
  if (names !== undefined && names !== null && (!Array.isArray(names) || !names.every((n) => typeof n === 'string'))) {
    throw new BadRequest('toolNames must be a list of strings');
  }
  const tools = opts.tools === undefined ? null : opts.tools;
  if (tools !== null && !Array.isArray(tools)) throw new BadRequest('tools must be a list of tool definitions');
  const policy = opts.unknownTools === undefined ? 'keep' : opts.unknownTools;
  if (typeof policy !== 'string') throw new BadRequest('unknownTools must be a string');
  const jsonCalls = opts.jsonToolCalls === undefined ? false : opts.jsonToolCalls;
  if (typeof jsonCalls !== 'boolean') throw new BadRequest('jsonToolCalls must be a boolean');
  const formats = opts.formats === undefined ? null : opts.formats;
  if (formats !== null && (!Array.isArray(formats) || !formats.every((f) => typeof f === 'string'))) {
    throw new BadRequest('formats must be a list of strings');
  }
  const out = {
    toolNames: names === undefined ? null : names,
    tools,
    unknownTools: policy,
    jsonToolCalls: jsonCalls,
    formats,
  };
  if (opts.streamArguments !== undefined) {
    if (typeof opts.streamArguments !== 'boolean') throw new BadRequest('streamArguments must be a boolean');
    out.streamArguments = opts.streamArguments;
  }
  if (opts.reasoning !== undefined) {
    if (typeof opts.reasoning !== 'string') throw new BadRequest('reasoning must be a string');
    out.reasoning = opts.reasoning;
  }
  if (opts.preset !== undefined) {
    if (typeof opts.preset !== 'string') throw new BadRequest('preset must be a string');
    out.preset = opts.preset;
  }
  return out;
}

function eventDict(e) {
  if (e.type === 'tool_calls') {
    const d = { type: 'tool_calls', calls: e.calls };
    if (e.rejectedToolNames) d.rejectedToolNames = e.rejectedToolNames;
    if (e.format) d.format = e.format;
    if (e.malformed && e.malformed.length) d.malformed = e.malformed;
    return d;
  }
  if (e.type === 'reasoning') return { type: 'reasoning', text: e.text };
  if (e.type === 'tool_call_start') {
    const d = { type: 'tool_call_start', index: e.index, name: e.name };
    if (e.id !== undefined) d.id = e.id;
    return d;
  }
  if (e.type === 'tool_call_arguments') return { type: 'tool_call_arguments', index: e.index, delta: e.delta };
  return e.note ? { type: 'text', text: e.text, note: e.note } : { type: 'text', text: e.text };
}

function args(list, lo, hi) {
  if (list.length < lo || list.length > hi) {
    const want = lo === hi ? String(lo) : `${lo} to ${hi}`;
    throw new BadRequest(`expected ${want} argument(s), got ${list.length}`);
  }
  return list.concat(new Array(hi - list.length).fill(null));
}

function callsArg(v) {
  if (!Array.isArray(v)) throw new BadRequest('calls must be a list');
  return v.map((c) => {
    if (!(isObject(c) && typeof c.name === 'string' && isObject(c.input))) {
      throw new BadRequest('each call must be {name: string, input: object}');
    }
    return { name: c.name, input: c.input };
  });
}

function optionsArg(v, known) {
  if (v === null || v === undefined) return {};
  if (!isObject(v)) throw new BadRequest('options must be an object');
  const unknown = Object.keys(v).filter((k) => !known.includes(k)).sort();
  if (unknown.length) throw new BadRequest(`unknown option(s): ${unknown.join(', ')}`);
  return v;
}

/** Deterministic tool-call ids for the protocol: call_1, call_2, ... in each request. */
function ids() {
  let n = 0;
  return () => `call_${++n}`;
}

const orNull = (v) => (v === undefined ? null : v);
const REWRITE_OPTIONS = [
  'tools', 'toolNames', 'unknownTools', 'jsonToolCalls', 'formats', 'reasoning', 'streamArguments', 'toolChoice', 'parallelToolCalls', 'preset',
];

/** The `call` op: one library function by its camelCase name, with JSON arguments. */
function callFunction(fn, list) {
  if (!Array.isArray(list)) throw new BadRequest("call needs 'args', a list");
  switch (fn) {
    case 'resolveToolName': {
      const [name, names] = args(list, 2, 2);
      return resolveToolName(name, names);
    }
    case 'applyPolicy': {
      const [calls, names, policy] = args(list, 2, 3);
      return applyPolicy(callsArg(calls), names, policy === null ? 'keep' : policy);
    }
    case 'normalizeRole':
      return normalizeRole(args(list, 1, 1)[0]);
    case 'normalizeInput': {
      const [name, input, tools] = args(list, 3, 3);
      if (!isObject(input)) throw new BadRequest('input must be an object');
      return normalizeInput(name, input, tools);
    }
    case 'toOpenAIToolCalls': {
      const [calls, opts] = args(list, 1, 2);
      const o = optionsArg(opts, ['tools']);
      return toOpenAIToolCalls(callsArg(calls), { tools: orNull(o.tools), idFactory: ids() });
    }
    case 'toOpenAIStreamDeltas': {
      const [calls, opts] = args(list, 1, 2);
      const o = optionsArg(opts, ['tools', 'startIndex']);
      const start = o.startIndex === undefined ? 0 : o.startIndex;
      if (!Number.isInteger(start)) throw new BadRequest('startIndex must be an integer');
      return toOpenAIStreamDeltas(callsArg(calls), { tools: orNull(o.tools), idFactory: ids(), startIndex: start });
    }
    case 'buildToolInstructions':
      return buildToolInstructions(args(list, 1, 1)[0]);
    case 'preparePromptRequest':
      return preparePromptRequest(args(list, 1, 1)[0]);
    case 'rewriteChatCompletion':
    case 'rewriteChatCompletionStream': {
      const [data, opts] = args(list, 1, 2);
      const o = optionsArg(opts, REWRITE_OPTIONS);
      const kw = {
        tools: orNull(o.tools),
        toolNames: orNull(o.toolNames),
        unknownTools: o.unknownTools === undefined ? 'keep' : o.unknownTools,
        jsonToolCalls: o.jsonToolCalls === undefined ? false : o.jsonToolCalls,
        formats: orNull(o.formats),
        reasoning: orNull(o.reasoning),
        idFactory: ids(),
        toolChoice: orNull(o.toolChoice),
        parallelToolCalls: orNull(o.parallelToolCalls),
        preset: orNull(o.preset),
      };
      if (fn === 'rewriteChatCompletion') {
        if (o.streamArguments !== undefined) {
          throw new BadRequest('streamArguments is an option of rewriteChatCompletionStream');
        }
        return rewriteChatCompletion(data, kw);
      }
      kw.streamArguments = o.streamArguments === undefined ? false : o.streamArguments;
      if (!Array.isArray(data)) throw new BadRequest('rewriteChatCompletionStream needs a list of chunks');
      const rw = new ChatCompletionStreamRewriter(kw);
      const out = [];
      for (const chunk of data) out.push(...rw.feed(chunk));
      out.push(...rw.finish());
      return out;
    }
    default:
      throw new BadRequest(`unknown function ${JSON.stringify(fn === undefined ? null : fn)}`);
  }
}

function handle(req) {
  if (!isObject(req)) throw new BadRequest('request must be a JSON object');
  const op = req.op;
  const kw = options(req);
  if (op === 'parse') {
    const text = req.text;
    if (typeof text !== 'string') throw new BadRequest("parse needs a string 'text'");
    return parse(text, kw);
  }
  if (op === 'stream') {
    const chunks = req.chunks;
    if (!Array.isArray(chunks) || !chunks.every((c) => typeof c === 'string')) {
      throw new BadRequest("stream needs 'chunks', a list of strings");
    }
    const sieve = new Sieve(kw);
    const events = [];
    for (const c of chunks) for (const e of sieve.feed(c)) events.push(e);
    for (const e of sieve.flush()) events.push(e);
    return { events: coalesce(events).map(eventDict) };
  }
  if (op === 'call') return callFunction(req.function, req.args);
  throw new BadRequest('op must be parse, stream or call');
}

function respond(line) {
  let rid = null;
  let resp;
  try {
    let req;
    try {
      req = JSON.parse(line);
    } catch (exc) {
      throw new BadRequest(`invalid JSON: ${exc.message}`);
    }
    if (isObject(req) && req.id !== undefined) rid = req.id;
    resp = { id: rid, result: handle(req) };
    return JSON.stringify(resp);
  } catch (exc) {
    let error;
    if (exc instanceof BadRequest) error = { type: 'BadRequest', message: exc.message };
    else if (exc instanceof CallsieveError) error = { type: exc.name, message: exc.message };
    else error = { type: 'InternalError', message: String(exc && exc.stack ? exc.stack.split('\n')[0] : exc) };
    return JSON.stringify({ id: rid, error });
  }
}

module.exports = { BadRequest, handle, respond, callFunction, eventDict };
