#!/usr/bin/env node
// The Node child of scripts/memory.py: read the input, reset the peak RSS, stream the input
// through a Sieve in 64 KiB chunks, print {base, peak, calls} as JSON.
// Usage: node --expose-gc scripts/memory_node.js INPUT LIMIT JSON_CALLS
'use strict';
const fs = require('fs');
const path = require('path');
const { Sieve } = require(path.join(__dirname, '..', 'parity', 'node'));

const [file, limit, jsonCalls] = process.argv.slice(2);
const text = fs.readFileSync(file, 'utf8');
const s = new Sieve({ maxCaptureChars: Number(limit) || text.length + 1, jsonToolCalls: jsonCalls === '1' });
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
const step = 65536;
for (let i = 0; i < text.length; i += step) count(s.feed(text.slice(i, i + step)));
count(s.flush());
console.log(JSON.stringify({ base, peak: kb(status(), 'VmHWM'), calls }));
