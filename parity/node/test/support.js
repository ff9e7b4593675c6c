'use strict';
/** Shared helpers for the tests: fixtures, chunkings, first differing JSON path. */

const fs = require('fs');
const path = require('path');

const { Sieve, coalesce, parse } = require('../index.js');
const { eventDict } = require('../driver.js');

const FIXTURES = path.resolve(__dirname, '../../../fixtures');

function allFixtureFiles(dir = FIXTURES) {
  const out = [];
  for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, ent.name);
    if (ent.isDirectory()) out.push(...allFixtureFiles(p));
    else if (ent.name.endsWith('.json') && ent.name !== 'schema.json') out.push(p);
  }
  return out.sort();
}

/** Sieve fixtures (an `input` run through parse and the stream); function fixtures have `call`. */
function fixtureFiles() {
  return allFixtureFiles().filter((p) => Object.prototype.hasOwnProperty.call(load(p), 'input'));
}

function load(p) {
  return JSON.parse(fs.readFileSync(p, 'utf8'));
}

/** mulberry32: a small seeded PRNG giving floats in [0, 1). */
function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Split `text` into chunks of lo..hi code points (never inside a surrogate pair). */
function randomChunks(text, seed, lo = 1, hi = 10) {
  const rng = mulberry32(seed);
  const cps = Array.from(text);
  const out = [];
  let i = 0;
  while (i < cps.length) {
    const n = lo + Math.floor(rng() * (hi - lo + 1));
    out.push(cps.slice(i, i + n).join(''));
    i += n;
  }
  return out;
}

function chunkings(c) {
  const text = c.input;
  const ways = { whole: text ? [text] : [], chars: Array.from(text) };
  for (let seed = 0; seed < 3; seed++) ways[`random${seed}`] = randomChunks(text, seed + 1);
  if (c.chunks) ways.fixture = c.chunks;
  return ways;
}

/** Fixture options are the library's own option names (toolNames, tools, unknownTools, ...). */
function options(c) {
  return { ...(c.options || {}) };
}

/** The value as the driver would write it (JSON round trip: -0 -> 0, non-finite -> null). */
function jsonable(v) {
  return JSON.parse(JSON.stringify(v));
}

function runParse(c) {
  return jsonable(parse(c.input, options(c)));
}

function runStream(c, chunks) {
  const sieve = new Sieve(options(c));
  const events = [];
  for (const ch of chunks) for (const e of sieve.feed(ch)) events.push(e);
  for (const e of sieve.flush()) events.push(e);
  return [jsonable(coalesce(events).map(eventDict)), sources(events)];
}

/**
 * The input the events stand for, joined (D29, R15): text, reasoning and a block's raw; R16's
 * `tool_call_start` / `tool_call_arguments` carry none (the block's event has it all).
 */
function sources(events) {
  let out = '';
  for (const e of events) out += source(e);
  return out;
}

/** The input one event stands for: text, reasoning, a block's raw; '' for R16's events. */
function source(e) {
  return e.type === 'tool_calls' ? e.raw : e.type === 'text' || e.type === 'reasoning' ? e.text : '';
}

/** A Sieve fed these chunks, then flushed: its events, the scanner's work and sawToolCallSyntax. */
function runSieve(chunks, opts) {
  const s = new Sieve(opts);
  const events = [];
  for (const c of chunks) events.push(...s.feed(c));
  events.push(...s.flush());
  return { events, work: s._scanner.work, saw: s.sawToolCallSyntax };
}

/** What each feed (then the flush) gives back, as source text. */
function released(chunks, opts) {
  const s = new Sieve(opts);
  const out = chunks.map((c) => sources(s.feed(c)));
  return [...out, sources(s.flush())];
}

const { droppedMarkers } = require('../src/formats');

// What is dropped where it stands alone: the end-of-sentence token (D29), every marker the format
// table says so (D47; the presets' reasoning markers, R15), Harmony's headers (D49). As docs.py's.
const EOS = new RegExp(
  '<[\\uff5c|]end\\u2581of\\u2581sentence[\\uff5c|]>' +
    droppedMarkers().map((m) => '|' + m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('') +
    '|<\\|(?:start|channel)\\|>[^\\n]{0,256}?<\\|message\\|>',
);
const EOS_SOURCE = EOS.source;

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * No loss (R8.2): text, reasoning + raw rebuild the input, except that end-of-sentence tokens
 * (D29: dropped outside ignored regions, in no event) and reasoning markers (R15) may be left out. As Python's fixture_support.kept.
 */
function kept(raw, text) {
  const pattern = text.split(EOS).map(escapeRegExp).join('(?:' + EOS_SOURCE + ')?');
  return new RegExp('^(?:' + pattern + ')$').test(raw);
}

function kind(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** The JSON path of the first difference between two JSON values, or null. */
function firstDifference(want, got, p = '$') {
  const kw = kind(want);
  const kg = kind(got);
  if (kw === 'object' && kg === 'object') {
    const keys = Object.keys(want).concat(Object.keys(got).filter((k) => !Object.prototype.hasOwnProperty.call(want, k)));
    for (const k of keys) {
      if (!Object.prototype.hasOwnProperty.call(got, k) || !Object.prototype.hasOwnProperty.call(want, k)) return `${p}.${k}`;
      const d = firstDifference(want[k], got[k], `${p}.${k}`);
      if (d) return d;
    }
    return null;
  }
  if (kw === 'array' && kg === 'array') {
    const n = Math.min(want.length, got.length);
    for (let i = 0; i < n; i++) {
      const d = firstDifference(want[i], got[i], `${p}[${i}]`);
      if (d) return d;
    }
    return want.length === got.length ? null : `${p}.length`;
  }
  if (kw !== kg || want !== got) return p;
  return null;
}

function describe(p, want, got) {
  const show = (v) => JSON.stringify(v).slice(0, 600);
  return `first difference at ${p}\n  want: ${show(want)}\n  got:  ${show(got)}`;
}

async function collect(it) {
  const out = [];
  for await (const v of it) out.push(v);
  return out;
}

async function* asyncOf(items) {
  for (const x of items) yield x;
}

/** A pull source: one item per pull (enqueuing everything in start() is slow in Node for many items). */
function readable(items) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < items.length) controller.enqueue(items[i++]);
      else controller.close();
    },
  });
}

/** A small seeded PRNG (mulberry32): the same cases on every run. */
function seededRng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    random: next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)), // inclusive
    below: (n) => Math.floor(next() * n),
    choice: (xs) => xs[Math.floor(next() * xs.length)],
  };
}

/** Insert, delete or replace 1..k characters of `s` (code units; `alphabet` is a list of strings). */
function mutateChars(r, s, alphabet, k = 3) {
  const t = Array.from(s);
  const times = r.int(1, k);
  for (let x = 0; x < times; x++) {
    const op = r.below(3);
    const at = r.below(t.length + 1);
    if (op === 0) t.splice(at, 0, r.choice(alphabet));
    else if (op === 1 && at < t.length) t.splice(at, 1);
    else if (at < t.length) t[at] = r.choice(alphabet);
  }
  return t.join('');
}

module.exports = {
  seededRng,
  mutateChars,
  asyncOf,
  collect,
  readable,
  FIXTURES,
  allFixtureFiles,
  fixtureFiles,
  load,
  mulberry32,
  randomChunks,
  chunkings,
  options,
  runParse,
  runStream,
  sources,
  source,
  runSieve,
  released,
  kept,
  firstDifference,
  describe,
};
