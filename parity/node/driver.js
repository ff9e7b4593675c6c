#!/usr/bin/env node
'use strict';
/**
 * The JSONL driver of DRIVER.md: `node parity/node/driver.js` (run from the project root).
 *
 * One request per input line, one response per request, in order; a bad request gets an error
 * response and the driver goes on. Port of python/toolsieve/driver.py.
 */

const readline = require('readline');
const { Sieve, coalesce, parse, ToolsieveError } = require('./index.js');

const KNOWN_OPTIONS = ['toolNames', 'jsonToolCalls'];
// Python's str.strip() whitespace, for skipping blank lines exactly as the Python driver does.
const BLANK_LINE = /^[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

class BadRequest extends Error {}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

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
  const jsonCalls = opts.jsonToolCalls === undefined ? false : opts.jsonToolCalls;
  if (typeof jsonCalls !== 'boolean') throw new BadRequest('jsonToolCalls must be a boolean');
  return { toolNames: names === undefined ? null : names, jsonToolCalls: jsonCalls };
}

function eventDict(e) {
  if (e.type === 'tool_calls') return { type: 'tool_calls', calls: e.calls };
  return e.note ? { type: 'text', text: e.text, note: e.note } : { type: 'text', text: e.text };
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
  throw new BadRequest('op must be parse or stream');
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
    else if (exc instanceof ToolsieveError) error = { type: exc.name, message: exc.message };
    else error = { type: 'InternalError', message: String(exc && exc.stack ? exc.stack.split('\n')[0] : exc) };
    return JSON.stringify({ id: rid, error });
  }
}

function main() {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  rl.on('line', (line) => {
    if (BLANK_LINE.test(line)) return;
    process.stdout.write(respond(line) + '\n');
  });
  rl.on('close', () => {
    process.exitCode = 0;
  });
}

if (require.main === module) main();

module.exports = { handle, respond };
