'use strict';
/**
 * Tests that tell the scanner (src/scanner.js) apart from the mutants of its slices that survived
 * StrykerJS (JSON calls in prose, token sections, the block engine). Each expectation comes from
 * the rules (docs/SPEC.md: R8.2 nothing lost, R8.3 release as soon as decided and the capture
 * limit, R8.6 chunking invariance, R16.3, D37, D44), or pins the work counter (`_scanner.work`, the
 * documented debug counter of R8.7) where the comment says what it counts.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { Sieve, coalesce } = require('../../index.js');

/** The input an event stands for: text, reasoning, a block's raw; '' for R16's events. */
const source = (e) => (e.type === 'tool_calls' ? e.raw : e.type === 'text' || e.type === 'reasoning' ? e.text : '');

function run(chunks, opts) {
  const s = new Sieve(opts);
  const events = [];
  for (const c of chunks) events.push(...s.feed(c));
  events.push(...s.flush());
  return { events, work: s._scanner.work, saw: s.sawToolCallSyntax };
}

function released(chunks, opts) {
  const s = new Sieve(opts);
  const out = chunks.map((c) => s.feed(c).map(source).join(''));
  return [...out, s.flush().map(source).join('')];
}

/** The first `n` code points of `s` (Python's `s[:n]`: the capture limit counts code points). */
const firstCodePoints = (s, n) => [...s].slice(0, n).join('');

// ---- the block engine: the limit falls inside a surrogate pair's code point ------------------

test('a block whose call is not announced at the limit: its tap reads the body to the limit once', () => {
  // D43, D37: with streamed arguments a block's tap reads the body up to the capture limit first
  // (whether a call is announced before the block reaches the limit is decided there). These
  // Hermes bodies are still in the call's name at the limit, so the block is text (capture_limit)
  // and its tap reads nothing more. The work counter counts each code unit fed (the document once)
  // and what the tap joins at each feed: here the body's first `limit` code points (astral
  // characters are two code units, one code point), once.
  for (const X of ['\u{1F600}', '\udbff\udfff', '\ud800\udc00']) {
    const body = '{"name": "' + X.repeat(8) + '", "arguments": {}}';
    const doc = '<tool_call>' + body + '</tool_call>';
    for (const maxCaptureChars of [12, 13]) {
      const got = run([doc], { preset: 'qwen3', streamArguments: true, maxCaptureChars });
      assert.deepEqual(
        got.events.map((e) => [e.type, e.note]),
        [
          ['text', 'capture_limit'],
          ['text', undefined],
        ],
      );
      assert.equal(got.events.map(source).join(''), doc);
      assert.equal(got.work, doc.length + firstCodePoints(body, maxCaptureChars).length, `${X} ${maxCaptureChars}`);
    }
  }
});

test('lone high surrogates in a block at the limit are characters like any other (R8.2)', () => {
  // A lone high surrogate is one character (one code point, as Python counts it): the block
  // passes the limit and is released as text, nothing lost, however it is cut.
  for (const body of ['{"name": "' + '\ud800'.repeat(13), '{"name": "' + 'a\udbff'.repeat(7)]) {
    const doc = '<tool_call>' + body + '", "arguments": {}}</tool_call>';
    for (const maxCaptureChars of [12, 13]) {
      const opts = { preset: 'qwen3', streamArguments: true, maxCaptureChars };
      const whole = run([doc], opts);
      assert.equal(whole.events.map(source).join(''), doc);
      assert.equal(whole.events[0].note, 'capture_limit');
      for (const chunks of [[...doc], [doc.slice(0, 20), doc.slice(20)]]) {
        assert.deepEqual(coalesce(run(chunks, opts).events), coalesce(whole.events));
      }
    }
  }
});

test('a block of exactly the limit is not past it, however it is cut (R8.3, R8.6)', () => {
  // Twelve blanks hold no call, so the block is text; it holds exactly maxCaptureChars
  // characters, so it is not past the limit: no capture_limit note, and the same when its closer
  // arrives in a later chunk than its last character (the step then takes an empty piece).
  const doc = '<tool_call>' + ' '.repeat(12) + '</tool_call>';
  for (const streamArguments of [false, true]) {
    const opts = { preset: 'qwen3', streamArguments, maxCaptureChars: 12 };
    for (const chunks of [[doc], [...doc], [doc.slice(0, 23), doc.slice(23)]]) {
      assert.deepEqual(coalesce(run(chunks, opts).events), [{ type: 'text', text: doc }], `${chunks.length}`);
    }
  }
});

// Closed blocks kept to their announced call at the end of the body (R16.3, D37): the tap reads
// the whole body only when the closer comes, and the break falls before the body's end.
const CUT_CLOSED = [
  ['qwen3', '<tool_call>', '{"name": "get", "arguments": {"a": 1}, "x', '</tool_call>'],
  ['qwen3', '<tool_call>', '{"name": "get", "arguments": {"a": [1, 2', '</tool_call>'],
  ['qwen3-coder', '<tool_call>', '<function=get><parameter=a>1</parameter><param', '</tool_call>'],
  ['glm-4.5', '<tool_call>', 'get<arg_key>a</arg_key><arg_value>1</arg_value><arg_key>b</arg_key>', '</tool_call>'],
];

test('a closed block kept to its announced call loses nothing, its closer included (R8.2, R16.3)', () => {
  for (const [preset, opener, body, closer] of CUT_CLOSED) {
    const doc = opener + body + closer;
    for (const chunks of [[doc], [...doc]]) {
      const { events } = run(chunks, { preset, streamArguments: true });
      assert.equal(events.map(source).join(''), doc, doc);
      const blocks = events.filter((e) => e.type === 'tool_calls');
      assert.equal(blocks.length, 1, doc);
      assert.deepEqual(blocks[0].repaired, ['D37'], doc);
      assert.ok(doc.startsWith(blocks[0].raw) && blocks[0].raw.length < opener.length + body.length, doc);
    }
  }
});

test('the characters of a closer that arrive one at a time feed the tap nothing', () => {
  // While a closer is incomplete it is held in the buffer and scanned again with each feed (R8.3's
  // bounded lookahead): fed one character at a time, the k-th character of the closer costs k
  // (the work counter counts the code units of the buffer each feed scans), 1 + 2 + ... + n for a
  // closer of n, against n when the closer comes whole. The tap (R16) is fed nothing then: a piece
  // would make it join its pending text (the open value or tag) once more, which it counts.
  const work = (preset, chunks) => run(chunks, { preset, streamArguments: true }).work;
  for (const [preset, opener, body, closer] of [
    ...CUT_CLOSED,
    ['qwen3', '<tool_call>', '{"name": "get", "arguments": {"a": "xyz', '</tool_call>'],
    ['glm-4.5', '<tool_call>', 'get<arg_key>a</arg_key><arg_value>1</arg_value><arg_k', '</tool_call>'],
    ['minimax-m2', '<minimax:tool_call>', '<invoke name="get"><parameter name="q">x</parameter></invoke><inv', '</minimax:tool_call>'],
  ]) {
    const n = closer.length;
    const chars = [...opener, ...body];
    assert.equal(work(preset, [...chars, ...closer]) - work(preset, [...chars, closer]), (n * (n + 1)) / 2 - n, body);
  }
});
