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
const { source, sources, runSieve: run, released } = require('../support.js');

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
      assert.equal(sources(got.events), doc);
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
      assert.equal(sources(whole.events), doc);
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
      assert.equal(sources(events), doc, doc);
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

// ---- JSON calls in prose (R9) with streamed arguments (R16, D37) ---------------------------

const LLAMA = { preset: 'llama3', streamArguments: true };
const calls = (events) => events.filter((e) => e.type === 'tool_calls').map((e) => e.calls);

test('a call kept to where it broke has no id key when the model wrote none (D50, D51)', () => {
  // A call has `id` when the model wrote one: R9's JSON calls have none (R9 reads no id), nor
  // have these Hermes / GLM blocks, so the kept call's object has the keys name and input only.
  const one = [[{ name: 'get', input: { a: 1 } }]];
  assert.deepEqual(calls(run(['{"name": "get", "parameters": {"a": 1}, "name": 2} after'], LLAMA).events), one);
  assert.deepEqual(
    calls(run(['<tool_call>{"name": "get", "arguments": {"a": 1}, "x</tool_call>'], { preset: 'qwen3', streamArguments: true }).events),
    one,
  );
  assert.deepEqual(
    calls(run(['<tool_call>get<arg_key>a</arg_key><arg_value>1</arg_value><arg_key>b</arg_key></tool_call>'], { preset: 'glm-4.5', streamArguments: true }).events),
    one,
  );
});

test('a JSON call cut by the end of the output is kept to where its value broke (D37)', () => {
  // The announced call's arguments were cut inside a value: the call stays, with the arguments
  // read before that value, its source up to the value is its raw, and the value is text.
  const doc = '{"name": "get", "parameters": {"a": 1';
  const cut = doc.length - 1;
  for (const chunks of [[doc], [...doc]]) {
    const got = coalesce(run(chunks, LLAMA).events);
    assert.deepEqual(
      got.filter((e) => e.type === 'tool_calls' || e.type === 'text').map((e) => [e.type, source(e)]),
      [
        ['tool_calls', doc.slice(0, cut)],
        ['text', doc.slice(cut)],
      ],
    );
    assert.deepEqual(calls(got), [[{ name: 'get', input: {} }]]);
  }
});

test('a broken JSON call cuts its raw in the source, past the backslashes R9.2 doubles', () => {
  // R9.2 reads a backslash that escapes nothing doubled; where the tap breaks (D37) is counted in
  // the source: the raw ends where the broken value's bad character stands (a raw line break or
  // control character in a string), whatever doubled backslashes stand before or after it.
  for (const [doc, at] of [
    ['{"name": "get", "parameters": {"a": "x\n\\qy"}} tail', '\n'],
    ['{"name": "get", "parameters": {"a": "x\u0001\\qy"}} tail', '\u0001'],
    ['{"name": "get", "parameters": {"a": "\\q", "b": "x\n\\w"}} tail', '\n'],
    ['{"name": "get", "parameters": {"a": "\\q", "b": "\\w\\e", "c": "x\n\\w"}} tail', '\n'],
  ]) {
    const cut = doc.indexOf(at);
    for (const chunks of [[doc], [...doc]]) {
      const got = coalesce(run(chunks, LLAMA).events);
      assert.deepEqual(
        got.filter((e) => e.type === 'tool_calls' || e.type === 'text').map((e) => [e.type, source(e), e.repaired]),
        [
          ['tool_calls', doc.slice(0, cut), ['D37']],
          ['text', doc.slice(cut), undefined],
        ],
        JSON.stringify(doc),
      );
    }
  }
});

test('after a JSON call breaks, a backslash ending a chunk holds only itself (R8.3, D43)', () => {
  // The rest of a broken candidate is text as it comes, to the end of its JSON value: a backslash
  // at the end of a chunk waits for the character it escapes (it decides where a string ends);
  // what stands before it in that chunk is released with it.
  const chunks = ['{"name": "get", "parameters": {"a": 1}, "name": "ab', 'c\\', '"d\\', '\\e"} tail'];
  assert.deepEqual(released(chunks, LLAMA), [
    '{"name": "get", "parameters": {"a": 1}, "name": "ab',
    'c',
    '\\"d',
    '\\\\e"} tail',
    '',
  ]);
});

test('a JSON call that breaks at its last brace: the text after it is read as prose (R9, R8.3)', () => {
  // The repeated name is read with the candidate's last `}`: the call is kept to it (D37), the
  // candidate is over, and what follows is prose again, in the same feed: a second call in it is
  // a call.
  const doc = '{"name": "get", "parameters": {"a": 1}, "name": 2} then {"name": "two", "parameters": {}}';
  assert.deepEqual(released([doc], LLAMA), [doc, '']);
  assert.deepEqual(calls(run([doc], LLAMA).events), [[{ name: 'get', input: { a: 1 } }], [{ name: 'two', input: {} }]]);
});

test('the rest of a broken JSON candidate is not read again as a call', () => {
  // Once the call broke (D37) the rest of the candidate is text: its last `}` costs one unit of
  // work (scanned once), and the candidate is not handed to R9's reading as a whole.
  const doc = '{"name": "get", "parameters": {"a": 1}, "name": "get", "parameters": {"a": 1}}';
  for (const split of [false, true]) {
    const w = (d) => run(split ? [...d] : [d], LLAMA).work;
    assert.equal(w(doc) - w(doc.slice(0, -1)), 1);
  }
});

test('text a feed decides around a JSON candidate that is no call is one event', () => {
  // Under a limit of 12 neither candidate is a call (D43): the feed's text is released as one
  // text event, as Python's sieve gives it (a candidate whose tap announced nothing adds no event
  // and does not split the text around it).
  const doc = '{"name": "get", "parameters": {"a": 1}, "content": "x"} then {"name": "two", "parameters": {}}';
  const s = new Sieve({ ...LLAMA, maxCaptureChars: 12 });
  assert.deepEqual(s.feed(doc), [{ type: 'text', text: doc }]);
  assert.deepEqual(s.flush(), []);
});

// ---- token sections (R14.4, R14.5) -----------------------------------------------------------

const BEGIN = '<｜tool▁calls▁begin｜>';
const EOS = '<｜end▁of▁sentence｜>';

test('an empty token section at the end of the output is text (D26, D46)', () => {
  // D26 repairs a section without its end only when it holds calls: one that holds nothing is
  // text, however the output was cut.
  for (const doc of ['x ' + BEGIN, 'x ' + BEGIN + '  ']) {
    for (const chunks of [[doc], [...doc]]) {
      assert.deepEqual(coalesce(run(chunks, { preset: 'deepseek-v3.1' }).events), [{ type: 'text', text: doc }]);
    }
  }
});

test('the end-of-sentence token after an empty section opener is dropped (R14.6, D29)', () => {
  // The section holds nothing, so it is text; the end-of-sentence token ends it and is dropped,
  // as it is everywhere in text when a native format is in use.
  const doc = BEGIN + EOS + ' x';
  for (const chunks of [[doc], [...doc]]) {
    assert.deepEqual(coalesce(run(chunks, { preset: 'deepseek-v3.1' }).events), [{ type: 'text', text: BEGIN + ' x' }]);
  }
});

test('a loose call head past MAX_HEAD fails at its first character past the limit (D26, D61)', () => {
  // The section opener began the head (D61): it must end on its line, and a head longer than 512
  // characters is no call, decided at its first character past the limit; TEXT resumes there, so
  // a JSON call (R9) that starts there, before the line ends, is a call.
  const call = '{"name": "get", "parameters": {}}';
  const opts = { formats: ['tokens', 'llama_json'] };
  for (const head of ['a'.repeat(512) + call + '\nmore', 'a'.repeat(511) + ' ' + call + '\nmore']) {
    const doc = BEGIN + head;
    for (const chunks of [[doc], [doc.slice(0, 300), doc.slice(300)]]) {
      const got = coalesce(run(chunks, opts).events);
      assert.deepEqual(
        got.map((e) => [e.type, source(e)]),
        [
          ['text', doc.slice(0, doc.indexOf('{'))],
          ['tool_calls', call],
          ['text', '\nmore'],
        ],
      );
    }
  }
});

test('a loose call head ends on its line: TEXT resumes at the line break (D61)', () => {
  // The head the section opener began stops being one at its line break: the section is text to
  // there, and a JSON call (R9) on the next line is a call.
  const call = '{"name": "get", "parameters": {}}';
  for (const head of ['get time', 'a'.repeat(500)]) {
    const doc = BEGIN + head + '\n' + call + '\nmore';
    for (const chunks of [[doc], [...doc]]) {
      const got = coalesce(run(chunks, { formats: ['tokens', 'llama_json'] }).events);
      assert.deepEqual(
        got.map((e) => [e.type, source(e)]),
        [
          ['text', BEGIN + head + '\n'],
          ['tool_calls', call],
          ['text', '\nmore'],
        ],
      );
    }
  }
});

// ---- bare pythonic lists (R17, Llama 4) ----------------------------------------------------------

test('a pythonic list with astral characters is within the limit by its code points, however it is cut', () => {
  // The capture limit counts characters (code points, R8.3): this list is 16 characters (22 code
  // units), so under a limit of 18 or 20 it is a call (a limit counted in code units would make it
  // text), fed whole or one character at a time (R8.6); under 12 it is text.
  const list = '[get(a="' + '\u{1F600}'.repeat(6) + '")]';
  const doc = list + ' after';
  for (const [maxCaptureChars, want] of [
    [18, [['tool_calls', list], ['text', ' after']]],
    [20, [['tool_calls', list], ['text', ' after']]],
    [12, [['text', doc]]],
  ]) {
    for (const chunks of [[doc], [...doc], [list.slice(0, 9), list.slice(9), ' after']]) {
      const got = coalesce(run(chunks, { preset: 'llama4', maxCaptureChars }).events);
      assert.deepEqual(got.map((e) => [e.type, source(e)]), want, `${maxCaptureChars} ${chunks.length}`);
    }
  }
});

test('text a feed decides around a block that is no call is one event', () => {
  // A MiniMax block of blanks holds no call (R4): it is text, with the prose around it, as one
  // text event of the feed that decides it, as Python's sieve gives it (the block's tap, which
  // announced nothing, does not split the text before it from the rest).
  const doc = 'hi <minimax:tool_call>   </minimax:tool_call> after';
  const s = new Sieve({ preset: 'minimax-m2', streamArguments: true });
  assert.deepEqual(s.feed(doc), [{ type: 'text', text: doc }]);
  assert.deepEqual(s.flush(), []);
});

test('the one row of an opener with no body kind reads the body from its first character', () => {
  // MiniMax's and Kimi-K2's openers have one row each, whose body needs no start to be told (no
  // body kind, D45): its tap (R16) is made at the opener and reads the body as it comes, blanks
  // included. The work counter counts the document once, the body once as the tap joins it and
  // once more as the block's grammar reads it at the closer (a block of blanks: text, R4).
  for (const [preset, opener, closer] of [
    ['minimax-m2', '<minimax:tool_call>', '</minimax:tool_call>'],
    ['kimi-k2', '<|tool_calls_section_begin|>', '<|tool_calls_section_end|>'],
  ]) {
    for (const body of ['   ', '\n\n']) {
      const doc = opener + body + closer;
      const got = run([doc], { preset, streamArguments: true });
      assert.deepEqual(coalesce(got.events), [{ type: 'text', text: doc }]);
      assert.equal(got.work, doc.length + 2 * body.length, `${preset} ${JSON.stringify(body)}`);
    }
  }
});
