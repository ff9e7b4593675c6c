'use strict';
/**
 * Drop-in replacement for the seed system's Node `stream-tool-sieve` API, on callsieve.
 *
 *   const { createCallSieveState, processCallSieveChunk, flushCallSieve } = require('callsieve/compat');
 *
 * Events here are `{type: 'text', text}` and `{type: 'tool_calls', calls: [{name, input}]}`
 * (no `raw`). Inputs are taken leniently, as the seed API did: `toolNames` may be undefined,
 * null or an array; a null/undefined chunk or text counts as empty.
 */

const { Sieve, parse } = require('./index.js');
const { normalizeInput, toolName } = require('./src/schema');

function namesOf(toolNames) {
  if (toolNames === undefined || toolNames === null) return [];
  if (typeof toolNames === 'string') return [toolNames];
  if (typeof toolNames === 'object' && typeof toolNames[Symbol.iterator] === 'function') {
    return Array.from(toolNames).filter((n) => typeof n === 'string');
  }
  return [];
}

function textOf(x) {
  if (typeof x === 'string') return x;
  if (x === undefined || x === null) return '';
  return String(x);
}

function plainCalls(calls) {
  return calls.map((c) => ({ name: c.name, input: c.input }));
}

function plainEvents(events) {
  return events.map((e) => (e.type === 'text' ? { type: 'text', text: e.text } : { type: 'tool_calls', calls: plainCalls(e.calls) }));
}

/** A fresh streaming state; pass it to processCallSieveChunk / flushCallSieve. */
function createCallSieveState() {
  return { sieve: null };
}

function checkState(state) {
  if (state === null || typeof state !== 'object') {
    throw new TypeError('state must be an object from createCallSieveState()');
  }
}

/** Feed one chunk; returns the events it decided. */
function processCallSieveChunk(state, chunk, toolNames) {
  checkState(state);
  if (!state.sieve) state.sieve = new Sieve({ toolNames: namesOf(toolNames) });
  const text = textOf(chunk);
  if (!text) return [];
  return plainEvents(state.sieve.feed(text));
}

/** End of stream: returns the remaining events; the state can then start a new stream. */
function flushCallSieve(state, toolNames) {
  checkState(state);
  const sieve = state.sieve || new Sieve({ toolNames: namesOf(toolNames) });
  state.sieve = null;
  return plainEvents(sieve.flush());
}

function parseToolCallsDetailed(text, toolNames) {
  const r = parse(textOf(text), { toolNames: namesOf(toolNames) });
  return {
    calls: plainCalls(r.calls),
    sawToolCallSyntax: r.sawToolCallSyntax,
    rejectedByPolicy: r.rejectedByPolicy,
    rejectedToolNames: r.rejectedToolNames.slice(),
  };
}

function parseToolCalls(text, toolNames) {
  return parseToolCallsDetailed(text, toolNames).calls;
}

function parseStandaloneToolCallsDetailed(text, toolNames) {
  return parseToolCallsDetailed(text, toolNames);
}

function parseStandaloneToolCalls(text, toolNames) {
  return parseToolCalls(text, toolNames);
}

/** Unique trimmed tool names, in order, from `{function: {name}}` or `{name}` entries. */
function extractToolNames(tools) {
  if (!Array.isArray(tools)) return [];
  const out = [];
  const seen = new Set();
  for (const tool of tools) {
    const n = toolName(tool);
    if (!n || seen.has(n)) continue;
    seen.add(n);
    out.push(n);
  }
  return out;
}

let nodeCrypto = null;
try {
  nodeCrypto = require('crypto');
} catch (e) {
  nodeCrypto = null;
}

function randomHex(bytes) {
  let buf = null;
  if (nodeCrypto && typeof nodeCrypto.randomBytes === 'function') {
    buf = nodeCrypto.randomBytes(bytes);
  } else if (globalThis.crypto && typeof globalThis.crypto.getRandomValues === 'function') {
    buf = globalThis.crypto.getRandomValues(new Uint8Array(bytes));
  }
  let out = '';
  for (let i = 0; i < bytes; i++) {
    const b = buf ? buf[i] : Math.floor(Math.random() * 256);
    out += (b < 16 ? '0' : '') + b.toString(16);
  }
  return out;
}

function newCallId() {
  return 'call_' + randomHex(12);
}

function callIdFor(idStore, index) {
  if (idStore && typeof idStore.get === 'function' && typeof idStore.set === 'function') {
    const id = idStore.get(index);
    if (typeof id === 'string' && id) return id;
    const fresh = newCallId();
    idStore.set(index, fresh);
    return fresh;
  }
  return newCallId();
}

/**
 * OpenAI streaming `tool_calls` deltas for `calls`: `[{index, id, type: 'function',
 * function: {name, arguments}}]`. `arguments` is the JSON of the input normalized by the tool's
 * schema (R12). A Map passed as `idStore` keeps each index's id stable across calls.
 */
function formatOpenAIStreamToolCalls(calls, idStore, tools) {
  if (!Array.isArray(calls)) return [];
  return calls.map((call, index) => {
    const name = call && typeof call.name === 'string' ? call.name : '';
    const input = call && call.input !== undefined && call.input !== null ? call.input : {};
    let args;
    if (typeof input === 'string') {
      args = input;
    } else {
      args = JSON.stringify(normalizeInput(name, input, tools));
    }
    return { index, id: callIdFor(idStore, index), type: 'function', function: { name, arguments: args } };
  });
}

module.exports = {
  createCallSieveState,
  processCallSieveChunk,
  flushCallSieve,
  parseToolCalls,
  parseToolCallsDetailed,
  parseStandaloneToolCalls,
  parseStandaloneToolCallsDetailed,
  extractToolNames,
  formatOpenAIStreamToolCalls,
};
