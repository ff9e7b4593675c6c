#!/usr/bin/env node
// Times the Node sieve on workloads written by scripts/bench.py.
// Usage: node scripts/bench_node.js WORKLOADS.json RUNS  ->  JSON {name: [seconds, ...]} on stdout
'use strict';
const fs = require('fs');
const path = require('path');
const { Sieve, parse } = require(path.join(__dirname, '..', 'parity', 'node'));

const [file, runsArg] = process.argv.slice(2);
const workloads = JSON.parse(fs.readFileSync(file, 'utf8'));
const runs = Number(runsArg || 5);

function stream(text, size) {
  const s = new Sieve();
  let calls = 0;
  for (let i = 0; i < text.length; i += size) {
    for (const e of s.feed(text.slice(i, i + size))) if (e.type === 'tool_calls') calls += e.calls.length;
  }
  for (const e of s.flush()) if (e.type === 'tool_calls') calls += e.calls.length;
  return calls;
}

const out = {};
for (const w of workloads) {
  const fn = w.chunk ? () => stream(w.text, w.chunk) : () => parse(w.text).calls.length;
  fn(); // warm up the JIT once
  const times = [];
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    const calls = fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
    if (calls !== w.calls) throw new Error(`${w.name}: expected ${w.calls} calls, got ${calls}`);
  }
  out[w.name] = times;
}
process.stdout.write(JSON.stringify(out) + '\n');
