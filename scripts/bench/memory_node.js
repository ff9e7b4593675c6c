#!/usr/bin/env node
// The Node child of scripts/bench/memory.py: reset the peak RSS, stream the input file through a Sieve
// in 64 KiB pieces, print {base, peak, calls} as JSON.
// Usage: node --expose-gc scripts/bench/memory_node.js INPUT LIMIT JSON_CALLS
'use strict';
const fs = require('fs');
const path = require('path');
const { StringDecoder } = require('string_decoder');
const { Sieve } = require(path.join(__dirname, '..', '..', 'parity', 'node'));

const [file, limit, jsonCalls] = process.argv.slice(2);
// The input is read from the file as it is fed, 64 KiB at a time, as a stream arrives: held in
// memory whole it would be live data that lets V8 keep more garbage before it collects.
const size = fs.statSync(file).size;
const s = new Sieve({ maxCaptureChars: Number(limit) || size + 1, jsonToolCalls: jsonCalls === '1' });
s.feed('warm up ');
if (global.gc) global.gc();
const status = () => fs.readFileSync('/proc/self/status', 'utf8');
const kb = (st, key) => Number(new RegExp(key + ':\\s+(\\d+)').exec(st)[1]) * 1024;
fs.writeFileSync('/proc/self/clear_refs', '5');
const base = kb(status(), 'VmRSS');
let calls = 0;
const count = (events) => {
  for (const e of events) if (e.type === 'tool_calls') calls += e.calls.length;
};
const fd = fs.openSync(file, 'r');
const bytes = Buffer.alloc(65536);
const decoder = new StringDecoder('utf8');
for (;;) {
  const n = fs.readSync(fd, bytes, 0, bytes.length, null);
  if (n === 0) break;
  const chunk = decoder.write(bytes.subarray(0, n));
  if (chunk) count(s.feed(chunk));
}
fs.closeSync(fd);
count(s.flush());
console.log(JSON.stringify({ base, peak: kb(status(), 'VmHWM'), calls }));
