'use strict';
/**
 * Mistral's `[TOOL_CALLS]` (R17.7, D56; src/mistral.js): the twin of
 * python/tests/mutation/test_mutation_kills_mistral.py, with the same documents and expectations
 * (the head's blanks, brackets, 256 characters and tags, the JSON's strings, the capture limit
 * counted from the JSON's first character, streamed calls that break or that the final reading does
 * not confirm, what each feed releases, the scanner's work).
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { coalesce } = require('../../index.js');
const { eventDict } = require('../../driver.js');
const { sources, runSieve, released } = require('../support.js');

const M = { preset: 'mistral' };
const S = { preset: 'mistral', streamArguments: true };

/** The coalesced events of a run, as dicts, a block's raw and repairs put in (no loss checked). */
function events(chunks, opts) {
  const got = runSieve(chunks, opts).events;
  assert.equal(sources(got), chunks.join(''));
  return coalesce(got).map((e) => {
    const d = JSON.parse(JSON.stringify(eventDict(e)));
    if (e.type === 'tool_calls') {
      d.raw = e.raw;
      d.repaired = [...(e.repaired || [])];
    }
    return d;
  });
}

const text = (s, note) => (note === undefined ? { type: 'text', text: s } : { type: 'text', text: s, note });

function block(raw, calls, bad = [], d37 = false) {
  const d = { type: 'tool_calls', calls, format: 'mistral' };
  if (bad.length) d.malformed = bad;
  d.raw = raw;
  d.repaired = d37 ? ['D37'] : [];
  return d;
}

function call(name, input, id) {
  return id === undefined ? { name, input } : { name, input, id };
}

/** The document fed whole, one character at a time, and in every two-chunk split. */
function ways(doc) {
  const out = [[doc], [...doc]];
  for (let k = 1; k < doc.length; k++) out.push([doc.slice(0, k), doc.slice(k)]);
  return out;
}

const saw = (chunks, opts) => runSieve(chunks, opts).saw;
const work = (doc, opts) => runSieve([doc], opts).work;
const notStreamed = (e) => e.type !== 'tool_call_start' && e.type !== 'tool_call_arguments';

// ---- the v11 form and its head ------------------------------------------------------------------

const V11 = 'see [TOOL_CALLS]get_weather[CALL_ID]c1[ARGS] \t{"city": "Oslo"} done';
const V11_RAW = '[TOOL_CALLS]get_weather[CALL_ID]c1[ARGS] \t{"city": "Oslo"}';
const V11_CALL = call('get_weather', { city: 'Oslo' }, 'c1');

test('R17.7, D56: NAME[CALL_ID]ID[ARGS] blanks {json} is one call wherever the chunks end', () => {
  const want = [text('see '), block(V11_RAW, [V11_CALL]), text(' done')];
  for (const chunks of ways(V11)) {
    assert.deepEqual(events(chunks, M), want, chunks[0]);
    assert.equal(saw(chunks, M), true);
  }
});

test('R16: a v11 call announced at its `{` and confirmed at its end is a plain event (no D37)', () => {
  const start = { type: 'tool_call_start', index: 0, name: 'get_weather', id: 'c1' };
  for (const chunks of ways(V11)) {
    const got = events(chunks, S);
    const deltas = got.filter((e) => e.type === 'tool_call_arguments').map((e) => e.delta);
    assert.equal(deltas.join(''), '{"city":"Oslo"}', chunks[0]);
    assert.deepEqual(
      got.filter((e) => e.type !== 'tool_call_arguments'),
      [text('see '), start, block(V11_RAW, [V11_CALL]), text(' done')],
      chunks[0],
    );
  }
});

test("the scanner's work: each character fed once, and a block's JSON once more when it ends", () => {
  assert.equal(work(V11, M), V11.length + '{"city": "Oslo"}'.length);
  const doc = '[TOOL_CALLS] [{"name": "f", "arguments": {}}] x';
  assert.equal(work(doc, M), doc.length + '[{"name": "f", "arguments": {}}]'.length);
  // a cut `[AR` after the marker: the JSON form's value (cut, so text), read once more
  assert.equal(work('[TOOL_CALLS][AR', M), '[TOOL_CALLS][AR'.length + 3);
  assert.equal(work('[TOOL_CALLS] [AR', S), '[TOOL_CALLS] [AR'.length + 3);
});

test("R17.7: past a name's first character a `[` that is no tag is part of the head, not an array", () => {
  const doc = '[TOOL_CALLS]get[x] [ARGS]{"a": 1}';
  const bad = { raw: 'get[x] [ARGS]{"a": 1}', reason: 'invalid name', name: 'get[x]' };
  for (const chunks of ways(doc)) assert.deepEqual(events(chunks, M), [block(doc, [], [bad])], chunks[0]);
});

test("R17.7: blanks (a tab too) between the marker and the JSON form's array are its head", () => {
  for (const lead of ['\t', ' \t ']) {
    const raw = '[TOOL_CALLS]' + lead + '[{"name": "f", "arguments": {"x": 1}}]';
    const want = [block(raw, [call('f', { x: 1 })]), text(' ok')];
    for (const chunks of ways(raw + ' ok')) assert.deepEqual(events(chunks, M), want, chunks[0]);
  }
});

test('R17.7: `NAME{...}` without `[ARGS]` is no call; the head waits for its end, then is text', () => {
  const doc = '[TOOL_CALLS]get{"a": 1} ok';
  for (const chunks of ways(doc)) {
    assert.deepEqual(events(chunks, M), [text(doc)], chunks[0]);
    assert.equal(saw(chunks, M), false);
  }
  assert.deepEqual(released([doc], M), ['', doc]);
});

test('D56: after `[ARGS]` only blanks may come before the object; anything else fails the head', () => {
  for (const doc of ['[TOOL_CALLS]get[ARGS]X{} ok', '[TOOL_CALLS]get[ARGS] x{} ok']) {
    for (const chunks of ways(doc)) assert.deepEqual(events(chunks, M), [text(doc)], chunks[0]);
    assert.deepEqual(released([doc], M), [doc, '']);
  }
});

test('R17.7: a head that starts with a tag has no name; the id runs from the first `[CALL_ID]`', () => {
  const cases = [
    ['[TOOL_CALLS][ARGS]{}', [], [{ raw: '[ARGS]{}', reason: 'invalid name' }]],
    ['[TOOL_CALLS][CALL_ID]x[ARGS]{}', [], [{ raw: '[CALL_ID]x[ARGS]{}', reason: 'invalid name' }]],
    ['[TOOL_CALLS]get[CALL_ID]a[CALL_ID]b[ARGS]{}', [call('get', {}, 'a[CALL_ID]b')], []],
  ];
  for (const [raw, calls, bad] of cases) {
    const want = [block(raw, calls, bad), text(' ok')];
    for (const chunks of ways(raw + ' ok')) assert.deepEqual(events(chunks, M), want, chunks[0]);
  }
});

test('D56: name, `[ARGS]` and the blanks after it are at most 256 characters; one more is text', () => {
  for (const nameLen of [3, 200, 240, 245]) {
    const room = 256 - nameLen - '[ARGS]'.length;
    for (const [blanks, fits] of [
      [room, true],
      [room + 1, false],
    ]) {
      const doc = '[TOOL_CALLS]' + 'g'.repeat(nameLen) + '[ARGS]' + ' '.repeat(blanks) + '{} ok';
      const want = fits ? [block(doc.slice(0, -3), [call('g'.repeat(nameLen), {})]), text(' ok')] : [text(doc)];
      const cut = 12 + nameLen + 3;
      for (const chunks of [[doc], [...doc], [doc.slice(0, cut), doc.slice(cut)]]) {
        assert.deepEqual(events(chunks, M), want, `${nameLen} ${blanks} ${chunks.length}`);
      }
    }
  }
});

test('D56: where the marker stands in the chunk does not change how many blanks fit after `[ARGS]`', () => {
  for (const before of ['', 'x'.repeat(120), 'x'.repeat(250)]) {
    const doc = before + '[TOOL_CALLS]get[ARGS]   {} ok';
    const want = [...(before ? [text(before)] : []), block('[TOOL_CALLS]get[ARGS]   {}', [call('get', {})]), text(' ok')];
    for (const chunks of before ? [[doc], [before, doc.slice(before.length)]] : [[doc]]) {
      assert.deepEqual(events(chunks, M), want);
    }
  }
});

test('R8.3: a `[` that can start no `[ARGS]` / `[CALL_ID]` does not hold the head back', () => {
  assert.deepEqual(released(['[TOOL_CALLS]get[x]\n', 'more'], M), ['[TOOL_CALLS]get[x]\n', 'more', '']);
  assert.deepEqual(released(['[TOOL_CALLS]get[x', '\nmore'], M), ['', '[TOOL_CALLS]get[x\nmore', '']);
  assert.deepEqual(released(['[TOOL_CALLS]get[ARGx', '\n'], M), ['', '[TOOL_CALLS]get[ARGx\n', '']);
  // a `[` that may still start a tag waits
  assert.deepEqual(released(['[TOOL_CALLS]get[ARG', 'S]{}'], M), ['', '[TOOL_CALLS]get[ARGS]{}', '']);
});

// ---- the JSON ------------------------------------------------------------------------------------

test("R17.7: a backslash as a JSON string's first character escapes the quote after it", () => {
  const raw = '[TOOL_CALLS]get[ARGS]{"\\"}": 1}';
  const want = [block(raw, [call('get', { '"}': 1 })]), text(' ok')];
  for (const chunks of ways(raw + ' ok')) assert.deepEqual(events(chunks, M), want, chunks[0]);
});

test('D46: `[TOOL_CALLS][]` is text, and the text after it goes out in the same feed', () => {
  const doc = '[TOOL_CALLS][] ok';
  assert.deepEqual(released([doc], M), [doc, '']);
  assert.deepEqual(released(['[TOOL_CALLS][', '] ok'], M), ['', '[TOOL_CALLS][] ok', '']);
  assert.deepEqual(events([doc], M), [text(doc)]);
});

// ---- the capture limit ---------------------------------------------------------------------------

test('D43: the limit counts the JSON value from its first character; one character more is text', () => {
  const v11 = '[TOOL_CALLS]get[ARGS]{"a": 1}';
  const arr = '[TOOL_CALLS][{"name": "f", "arguments": {}}]';
  for (const [raw, size, calls] of [
    [v11, 8, [call('get', { a: 1 })]],
    [arr, 32, [call('f', {})]],
  ]) {
    for (const chunks of ways(raw + ' ok')) {
      assert.deepEqual(events(chunks, { ...M, maxCaptureChars: size }), [block(raw, calls), text(' ok')]);
      const got = events(chunks, { ...M, maxCaptureChars: size - 1 });
      assert.equal(got.map((e) => e.text).join(''), raw + ' ok', chunks[0]);
      assert.ok(got.some((e) => e.note === 'capture_limit'), chunks[0]);
    }
  }
});

test('D43: past the limit the block so far is text noted capture_limit, the rest plain text', () => {
  const doc = '[TOOL_CALLS]get[ARGS]{"city": "Oslo"} ok';
  const opts = { ...M, maxCaptureChars: 5 };
  // (fed whole, the block is read to its end before the limit applies; by characters, to `{"city`)
  for (const [chunks, soFar] of [
    [[doc], '{"city": "Oslo"}'],
    [[...doc], '{"city'],
  ]) {
    const got = runSieve(chunks, opts).events.map((e) => JSON.parse(JSON.stringify(eventDict(e))));
    assert.deepEqual(
      got.filter((e) => 'note' in e),
      [text('[TOOL_CALLS]get[ARGS]' + soFar, 'capture_limit')],
    );
    assert.equal(got.map((e) => e.text).join(''), doc);
    assert.equal(saw(chunks, opts), false);
  }
  assert.deepEqual(released([doc], opts), [doc, '']);
  assert.deepEqual(released([doc.slice(0, 30), doc.slice(30)], opts), [doc.slice(0, 30), doc.slice(30), '']);
  assert.deepEqual(released([doc.slice(0, 34), doc.slice(34)], opts), [doc.slice(0, 34), doc.slice(34), '']);
});

// ---- streamed calls ------------------------------------------------------------------------------

test('R16.3, D37: a repeated key keeps the announced call as read; the rest of the JSON is text', () => {
  const doc = '[TOOL_CALLS]get[ARGS]{"a": 1, "a": 2} ok';
  const kept = block('[TOOL_CALLS]get[ARGS]{"a": 1, ', [call('get', { a: 1 })], [], true);
  for (const chunks of ways(doc)) {
    assert.deepEqual(events(chunks, S).filter(notStreamed), [kept, text('"a": 2} ok')], chunks[0]);
  }
  assert.deepEqual(released([doc], S), [doc, '']);
});

test('R16.3, D21: arguments one level too deep for the final reading keep the announced call whole', () => {
  const deep = '{"a": ' + '['.repeat(200) + ']'.repeat(200) + '}';
  const raw = '[TOOL_CALLS]get[ARGS]' + deep;
  const doc = raw + ' ok';
  let nested = [];
  for (let i = 0; i < 199; i++) nested = [nested];
  const want = [block(raw, [call('get', { a: nested })], [], true), text(' ok')];
  for (const chunks of [[doc], [...doc], [doc.slice(0, 30), doc.slice(30)], [raw, ' ok']]) {
    assert.deepEqual(events(chunks, S).filter(notStreamed), want, String(chunks.length));
  }
  assert.equal(released([doc], S).at(-1), '');
  // without streaming the same block is reported: its arguments are too deep to be JSON (D21)
  assert.equal(events([doc], M)[0].malformed[0].reason, 'arguments are not a JSON object');
});

// ---- Node's own survivors (StrykerJS run on src/mistral.js) ------------------------------------

test('a surrogate pair cut between two feeds in the head counts as one character (endsPair at the feed start)', () => {
  // 254 letters and a pair make 255 characters: the head fits, even when the pair is cut across feeds
  // (Python: the same document with the pair whole, as its strings hold code points).
  const a = 'a'.repeat(254);
  const want = [
    block('[TOOL_CALLS]' + a + '\u{1F600}[ARGS]{"a":1}', [call(a + '\u{1F600}', { a: 1 })]),
    text(' t'),
  ];
  assert.deepEqual(events(['[TOOL_CALLS]' + a + '\ud83d', '\ude00[ARGS]{"a":1} t'], M), want);
  assert.deepEqual(events(['[TOOL_CALLS]' + a, '\u{1F600}[ARGS]{"a":1} t'], M), want);
});

test('a streamed v11 call with an invalid name is not announced', () => {
  const chunks = ['hi [TOOL_CALLS]bad name![ARGS]{"a":', '1} end'];
  assert.deepEqual(events(chunks, S), [
    text('hi '),
    block('[TOOL_CALLS]bad name![ARGS]{"a":1}', [], [{ raw: 'bad name![ARGS]{"a":1}', reason: 'invalid name', name: 'bad name!' }]),
    text(' end'),
  ]);
  assert.deepEqual(released(chunks, S), ['hi ', '[TOOL_CALLS]bad name![ARGS]{"a":1} end', '']);
});

test('a streamed call that breaks inside its JSON ends there, the rest released as text as it comes', () => {
  const chunks = ['hi [TOOL_CALLS]f[ARGS]{"a" 1', ', "b": 2', '} tail'];
  assert.deepEqual(events(chunks, S), [
    text('hi '),
    { type: 'tool_call_start', index: 0, name: 'f' },
    { type: 'tool_call_arguments', index: 0, delta: '{}' },
    block('[TOOL_CALLS]f[ARGS]{"a" ', [call('f', {})], [], true),
    text('1, "b": 2} tail'),
  ]);
  assert.deepEqual(released(chunks, S), ['hi [TOOL_CALLS]f[ARGS]{"a" 1', ', "b": 2', '} tail', '']);
});

test('the text before an array that passes the capture limit comes first', () => {
  const doc = 'hello [TOOL_CALLS][{"name":"f","arguments":{"a":"xxxxxxxxxxxxxxxxxxxx"}}] end';
  const got = runSieve([doc], { preset: 'mistral', maxCaptureChars: 10 }).events;
  assert.deepEqual(
    got.map((e) => [e.type, e.text, e.note === undefined ? null : e.note]),
    [
      ['text', 'hello ', null],
      ['text', '[TOOL_CALLS][{"name":"f","arguments":{"a":"xxxxxxxxxxxxxxxxxxxx"}}]', 'capture_limit'],
      ['text', ' end', null],
    ],
  );
  assert.deepEqual(events([doc], { preset: 'mistral', maxCaptureChars: 10 }), [text(doc, 'capture_limit')]);
});

test('R16.3: after an announced call kept at its end (too deep to read) the scanner is back in text', () => {
  const deep = '{"a": ' + '['.repeat(200) + ']'.repeat(200) + '}';
  const raw = '[TOOL_CALLS]get[ARGS]' + deep;
  const rest = ' ok [TOOL_CALLS]g[ARGS]{"b": 2} end';
  let nested = [];
  for (let i = 0; i < 199; i++) nested = [nested];
  const want = [
    block(raw, [call('get', { a: nested })], [], true),
    text(' ok '),
    block('[TOOL_CALLS]g[ARGS]{"b": 2}', [call('g', { b: 2 })]),
    text(' end'),
  ];
  for (const chunks of [[raw + rest], [raw, rest]]) {
    assert.deepEqual(events(chunks, S).filter(notStreamed), want, String(chunks.length));
  }
});
