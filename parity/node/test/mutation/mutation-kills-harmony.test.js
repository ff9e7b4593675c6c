'use strict';
/**
 * gpt-oss Harmony messages (R17.6; src/harmony.js): the twin of
 * python/tests/mutation/test_mutation_kills_harmony.py, with the same documents and expectations
 * (the channel word of a header, the recipient, the header's bound, the tail of a body held back
 * for an end token, a call body at the capture limit, streamed calls cut at or before their body's
 * end, a streamed body that is no object or blank, the scanner's work). Each run is fed whole, one
 * character at a time and in every split in two.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { coalesce } = require('../../index.js');
const { eventDict } = require('../../driver.js');
const { runSieve, released } = require('../support.js');

const GPT_OSS = { preset: 'gpt-oss' };
const STREAM = { preset: 'gpt-oss', streamArguments: true };

/** The coalesced events of a run, as dicts, a call's raw (and its repairs) put in. */
function events(chunks, opts) {
  return coalesce(runSieve(chunks, opts).events).map((e) => {
    const d = JSON.parse(JSON.stringify(eventDict(e)));
    if (e.type === 'tool_calls') {
      d.raw = e.raw;
      if (e.repaired && e.repaired.length) d.repaired = [...e.repaired];
    }
    return d;
  });
}

const saw = (doc, opts) => runSieve([doc], opts).saw;

/** The document whole, one character at a time, and split in two at every place. */
const ways = (doc) => [
  [doc],
  [...doc],
  ...Array.from({ length: doc.length - 1 }, (_, i) => [doc.slice(0, i + 1), doc.slice(i + 1)]),
];

const text = (s) => ({ type: 'text', text: s });
const reasoning = (s) => ({ type: 'reasoning', text: s });
const harmony = (raw, name, input) => ({ type: 'tool_calls', calls: [{ name, input }], format: 'harmony', raw });

function check(cases, opts) {
  for (const [doc, want] of cases) {
    for (const chunks of ways(doc)) assert.deepEqual(events(chunks, opts), want, JSON.stringify(chunks.slice(0, 2)));
  }
}

// ---- the channel --------------------------------------------------------------------------------

test('R17.6: after `<|start|>`, the first `<|channel|>` names the channel, even right after it', () => {
  check(
    [
      ['<|start|>assistant<|channel|>analysis<|channel|>final<|message|>hmm<|end|>', [reasoning('hmm')]],
      ['<|start|>assistant<|channel|>final<|channel|>analysis<|message|>ok<|end|>', [text('ok')]],
      ['<|start|><|channel|>analysis<|message|>think<|end|>ok', [reasoning('think'), text('ok')]],
    ],
    GPT_OSS,
  );
});

test("R17.6, D10: JavaScript's blanks (tab, ideographic space) before the channel word are skipped", () => {
  check(
    [
      ['<|channel|> analysis<|message|>a<|end|>', [reasoning('a')]],
      ['<|channel|>\t\u3000analysis<|message|>b<|end|>', [reasoning('b')]],
      ['<|start|>assistant<|channel|>   analysis<|message|>c', [reasoning('c')]],
    ],
    GPT_OSS,
  );
});

test('R17.6: an empty or blank channel, or a `to=` with nothing after it, is content, no call', () => {
  const cases = [
    ['<|channel|><|message|>x<|end|>', [text('x')]],
    ['<|channel|>   <|message|>y<|end|>', [text('y')]],
    ['<|channel|>commentary to=<|message|>{}<|call|>', [text('{}')]],
    ['<|channel|>commentary to= \t<|message|>{}<|call|>', [text('{}')]],
  ];
  check(cases, GPT_OSS);
  for (const [doc] of cases) assert.equal(saw(doc, GPT_OSS), false);
});

// ---- the recipient ------------------------------------------------------------------------------

test('R17.6: `to=` inside a word is skipped; of several recipients the first one is called', () => {
  const d1 = '<|channel|>commentary xto=functions.z to=functions.get to=functions.other<|message|>{"a": 1}<|call|>';
  const d2 = '<|channel|>commentary to=functions.a to=functions.b<|message|>{}<|call|>';
  const d3 = '<|channel|>commentary auto=functions.z <|constrain|>json<|message|>{"b": 2}<|call|>';
  check(
    [
      [d1, [harmony(d1, 'get', { a: 1 })]],
      [d2, [harmony(d2, 'a', {})]],
      [d3 + ' ok', [text('{"b": 2} ok')]],
    ],
    GPT_OSS,
  );
  assert.equal(saw(d1, GPT_OSS), true);
  assert.equal(saw(d3, GPT_OSS), false);
});

test('R17.6: `to=` right after `<|channel|>` or `<|start|>` is the recipient, in either place', () => {
  const d1 = '<|channel|>to=functions.f<|message|>{"x": 1}<|call|>';
  const d2 = '<|start|>to=functions.f<|channel|>commentary<|message|>{}<|call|>';
  const d3 = '<|start|>assistant<|channel|>to=functions.get<|message|>{}<|call|>';
  check(
    [
      [d1, [harmony(d1, 'f', { x: 1 })]],
      [d2, [harmony(d2, 'f', {})]],
      [d3, [harmony(d3, 'get', {})]],
    ],
    GPT_OSS,
  );
});

test('R17.6: `ato=functions.f` is a channel word, not a recipient: the body is content', () => {
  const doc = '<|channel|>ato=functions.f<|message|>{}<|end|>';
  check([[doc, [text('{}')]]], GPT_OSS);
  assert.equal(saw(doc, GPT_OSS), false);
});

// ---- the capture limit --------------------------------------------------------------------------

test('D43: a held call body may be maxCaptureChars long; one more and the message is text', () => {
  const doc = '<|channel|>commentary to=functions.get<|message|>{"a":1}<|call|>'; // a body of 7
  check([[doc, [harmony(doc, 'get', { a: 1 })]]], { preset: 'gpt-oss', maxCaptureChars: 7 });
  const over = [{ ...text(doc.slice(0, -'<|call|>'.length)), note: 'capture_limit' }];
  check([[doc, over]], { preset: 'gpt-oss', maxCaptureChars: 6 });
  const head = '<|channel|>commentary to=functions.get<|message|>{"a":';
  assert.deepEqual(released([head, '1', '}<|call|>'], { preset: 'gpt-oss', maxCaptureChars: 6 }), [
    '',
    '',
    head + '1}',
    '',
  ]);
  assert.deepEqual(released([head, '1', '}<|call|>'], { preset: 'gpt-oss', maxCaptureChars: 7 }), ['', '', doc, '']);
});

// ---- a streamed call that stops being JSON (R16.3) ----------------------------------------------

const started = [{ type: 'tool_call_start', index: 0, name: 'get' }];

test('R16.3, D37: arguments cut where the body ends: the raw takes the end token, repaired D37', () => {
  const doc = '<|channel|>commentary to=functions.get<|message|>{"a": <|call|>after';
  const raw = doc.slice(0, -'after'.length);
  const want = [
    ...started,
    { type: 'tool_call_arguments', index: 0, delta: '{}' },
    { ...harmony(raw, 'get', {}), repaired: ['D37'] },
    text('after'),
  ];
  check([[doc, want]], STREAM);
  assert.deepEqual(released([doc.slice(0, 50), doc.slice(50)], STREAM), ['', raw + 'after', '']);
});

test('R16.3, D37: text after the arguments ends the call there: the rest, not the token, is text', () => {
  const doc = '<|channel|>commentary to=functions.get<|message|>{"a": 1} x<|call|>after';
  const raw = '<|channel|>commentary to=functions.get<|message|>{"a": 1} ';
  const want = [
    ...started,
    { type: 'tool_call_arguments', index: 0, delta: '{"a":1}' },
    { ...harmony(raw, 'get', { a: 1 }), repaired: ['D37'] },
    text('xafter'),
  ];
  check([[doc, want]], STREAM);
});

test('R16.3, D37: a number the end token cuts is not read: the call ends before it, the token dropped', () => {
  const doc = '<|channel|>commentary to=functions.get<|message|>{"a": 1<|call|>after';
  const raw = '<|channel|>commentary to=functions.get<|message|>{"a": ';
  const want = [
    ...started,
    { type: 'tool_call_arguments', index: 0, delta: '{}' },
    { ...harmony(raw, 'get', {}), repaired: ['D37'] },
    text('1after'),
  ];
  check([[doc, want]], STREAM);
  assert.deepEqual(released([doc.slice(0, 55), doc.slice(55)], STREAM), ['', raw + '1after', '']);
});

test('R16: arguments whole when the message ends: the raw takes the end token, nothing repaired', () => {
  const doc = '<|channel|>commentary to=functions.get<|message|>{"a": 1}  <|call|>after';
  const raw = doc.slice(0, -'after'.length);
  const want = [
    ...started,
    { type: 'tool_call_arguments', index: 0, delta: '{"a":1}' },
    harmony(raw, 'get', { a: 1 }),
    text('after'),
  ];
  check([[doc, want]], STREAM);
});

test('linear work: a document fed whole costs its length, plus a held call body read as JSON', () => {
  const call = '<|channel|>commentary xto=functions.z to=functions.get<|message|>{"a":1}<|call|>';
  assert.equal(runSieve([call], GPT_OSS).work, call.length + '{"a":1}'.length);
  const prose = 'hi <|channel|>analysis<|message|>think<|end|>ok';
  assert.equal(runSieve([prose], GPT_OSS).work, prose.length);
});

// ---- the header's bound: a newline, 256 characters ----------------------------------------------

test('R17.6: a header fails at its first newline, or at 256 characters (a later newline is text)', () => {
  const far = '<|channel|>' + 'a'.repeat(260) + '<|channel|>analysis<|message|>t<|end|>\nok';
  const near = '<|channel|>x\n<|channel|>analysis<|message|>t<|end|>\nok';
  check(
    [
      [far, [text('<|channel|>' + 'a'.repeat(260)), reasoning('t'), text('\nok')]],
      [near, [text('<|channel|>x\n'), reasoning('t'), text('\nok')]],
    ],
    GPT_OSS,
  );
});

test('R8.3: once a chunk holds 256 header characters and no `<|message|>` can follow, it is text', () => {
  const doc = '<|channel|>' + 'a'.repeat(267); // 256 past the opener, then as many as `<|message|>` has
  assert.deepEqual(released([doc, 'b'], GPT_OSS), [doc, 'b', '']);
  assert.deepEqual(released([doc.slice(0, -1), 'ab'], GPT_OSS), ['', doc + 'b', '']);
});

// ---- a body's end token cut by a chunk, or after a stray `<|` -----------------------------------

test('R8.3: `<` that start no marker are released; the tail that may begin one is held', () => {
  const cases = [
    ['<|channel|>analysis<|message|>a<b<|call|>after', 'a<b'],
    ['<|channel|>analysis<|message|>x<<|call|>after', 'x<'],
  ];
  check(
    cases.map(([doc, r]) => [doc, [reasoning(r), text('after')]]),
    GPT_OSS,
  );
  for (const [doc, r] of cases) {
    const cut = doc.indexOf('ll|>');
    assert.deepEqual(released([doc.slice(0, cut), doc.slice(cut)], GPT_OSS), [r, 'after', '']);
  }
});

test('R17.6: `<|` that begins no marker is content; an end token right after it still ends the body', () => {
  check([['<|channel|>analysis<|message|>hm<|<|end|>o', [reasoning('hm<|'), text('o')]]], GPT_OSS);
});

// ---- streamed calls: a body that is no JSON object, a blank body --------------------------------

test('R16.3: a body whose first character is no `{` ends the announced call in that very feed', () => {
  const head = '<|channel|>commentary to=functions.get<|message|>';
  const chunks = [head + 'hello', ' world<|end|>ok'];
  const want = [
    ...started,
    { type: 'tool_call_arguments', index: 0, delta: '{}' },
    { ...harmony(head, 'get', {}), repaired: ['D37'] },
    text('hello worldok'),
  ];
  assert.deepEqual(events(chunks, STREAM), want);
  check([[chunks.join(''), want]], STREAM);
  assert.deepEqual(released(chunks, STREAM), [head + 'hello', ' worldok', '']);
});

test('R16, R17.6: a blank or empty body streams `{}` and is a whole call, nothing repaired', () => {
  const head = '<|channel|>commentary to=functions.get<|message|>';
  for (const body of ['  ', '', '\n']) {
    const doc = head + body + '<|call|>';
    const want = [...started, { type: 'tool_call_arguments', index: 0, delta: '{}' }, harmony(doc, 'get', {})];
    check([[doc, want]], STREAM);
  }
});
