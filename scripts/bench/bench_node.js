#!/usr/bin/env node
// Times the Node sieve on workloads written by scripts/bench/bench.py.
// Usage: node scripts/bench/bench_node.js WORKLOADS.json RUNS  ->  JSON {name: [seconds, ...], 'cpu name': [CPU seconds, ...]} on stdout
// (and 'work name': [Sieve.work per UTF-16 code unit] for the workloads marked "work" or "expect"; those
// with "expect" must find exactly those calls)
'use strict';
const fs = require('fs');
const path = require('path');
const { isDeepStrictEqual } = require('util');
const { Sieve, parse, iterChatChunks, rewriteChatCompletionStream, writeSSE } = require(path.join(__dirname, '..', '..', 'parity', 'node'));

const [file, runsArg] = process.argv.slice(2);
const workloads = JSON.parse(fs.readFileSync(file, 'utf8'));
const runs = Number(runsArg || 5);
const WARM_S = 0.25;

function stream(text, size, options) {
  const s = new Sieve(options || undefined);
  let calls = 0;
  for (let i = 0; i < text.length; i += size) {
    for (const e of s.feed(text.slice(i, i + size))) if (e.type === 'tool_calls') calls += e.calls.length;
  }
  for (const e of s.flush()) if (e.type === 'tool_calls') calls += e.calls.length;
  return calls;
}

/** One untimed run: asserts the calls found are w.expect (when given); returns Sieve.work per code unit. */
function checked(w) {
  const s = new Sieve(w.node_options || undefined);
  const calls = [];
  const take = (events) => {
    for (const e of events) if (e.type === 'tool_calls') calls.push(...e.calls);
  };
  for (let i = 0; i < w.text.length; i += w.chunk) take(s.feed(w.text.slice(i, i + w.chunk)));
  take(s.flush());
  if (w.expect && !isDeepStrictEqual(calls, w.expect)) {
    throw new Error(`${w.name}: the calls found differ from the workload's calls`);
  }
  return s.work / w.text.length;
}

const W8_TOOLS = [
  {
    type: 'function',
    function: {
      name: 'write_file',
      parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } },
    },
  },
];

/** W8: SSE bytes in 64 KB pieces -> chat chunks -> rewrite -> SSE bytes (the async generators). */
async function gateway(data) {
  function* pieces() {
    for (let i = 0; i < data.length; i += 65536) yield data.subarray(i, i + 65536);
  }
  let calls = 0;
  async function* counted(chunks) {
    for await (const c of chunks) {
      for (const ch of c.choices || []) calls += ((ch.delta && ch.delta.tool_calls) || []).length;
      yield c;
    }
  }
  let out = 0;
  for await (const b of writeSSE(counted(rewriteChatCompletionStream(iterChatChunks(pieces()), { tools: W8_TOOLS })))) {
    out += b.length;
  }
  if (!out) throw new Error('W8 wrote nothing');
  return calls;
}

async function main() {
  const out = {};
  for (const w of workloads) {
    let fn;
    if (w.kind === 'gateway') {
      const data = Buffer.from(w.text, 'utf8');
      fn = () => gateway(data);
    } else {
      fn = w.chunk ? () => stream(w.text, w.chunk, w.node_options) : () => parse(w.text).calls.length;
    }
    // Warm up until V8 has tiered up: at least one run and WARM_S seconds (a gateway is a
    // long-running process; the first runs measure the JIT, not the sieve).
    const w0 = process.hrtime.bigint();
    do await fn();
    while (Number(process.hrtime.bigint() - w0) / 1e9 < WARM_S);
    const times = [];
    const cpu = [];
    for (let r = 0; r < runs; r++) {
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const calls = await fn();
      times.push(Number(process.hrtime.bigint() - t0) / 1e9);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1e6);
      if (calls !== w.calls) throw new Error(`${w.name}: expected ${w.calls} calls, got ${calls}`);
    }
    out[w.name] = times;
    if (w.expect || w.work) out[`work ${w.name}`] = [checked(w)];
    out[`cpu ${w.name}`] = cpu; // user + system CPU seconds (bench.py --w8)
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
