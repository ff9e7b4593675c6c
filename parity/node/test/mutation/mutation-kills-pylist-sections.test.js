'use strict';
/**
 * Bare pythonic call lists (R17.8, D64; src/pylist.js) and DeepSeek token sections (R14.4-R14.5;
 * src/sections.js): the twin of python/tests/mutation/test_mutation_kills_pylist_sections.py, with
 * the same documents and expectations (the head's limit and states, strings and brackets of the
 * list, the capture limit counted from the `[`, what each feed releases, the scanner's work, the
 * names and fences of a section's calls).
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { coalesce } = require('../../index.js');
const { eventDict } = require('../../driver.js');
const { sources, runSieve, released } = require('../support.js');

const LLAMA4 = { preset: 'llama4' };
const V3 = { preset: 'deepseek-v3' };

/** The coalesced events of a run, as dicts, a block's raw put in (no loss is part of the check). */
function events(chunks, opts) {
  return coalesce(runSieve(chunks, opts).events).map((e) => {
    const d = JSON.parse(JSON.stringify(eventDict(e)));
    if (e.type === 'tool_calls') d.raw = e.raw;
    return d;
  });
}

const text = (s) => ({ type: 'text', text: s });

function pythonic(raw, ...calls) {
  return { type: 'tool_calls', calls: calls.map(([name, input]) => ({ name, input })), format: 'pythonic', raw };
}

/** The document fed whole and one character at a time. */
const ways = (doc) => [[doc], [...doc]];

const splits = (doc) => Array.from({ length: doc.length - 1 }, (_, i) => [doc.slice(0, i + 1), doc.slice(i + 1)]);

// ---- pylist: the head ---------------------------------------------------------------------------

test("D64: a head's `(` may be its 256th character, not its 257th, wherever a chunk ends", () => {
  // (the head is counted from its `[`, prose before it in the same chunk, the rest anywhere)
  const prefix = 'see ';
  const fits = '[' + 'a'.repeat(254) + '(x=1)]';
  const over = '[' + 'a'.repeat(255) + '(x=1)]';
  const cases = [
    [prefix + fits, [text(prefix), pythonic(fits, ['a'.repeat(254), { x: 1 }])]],
    [prefix + over, [text(prefix + over)]],
  ];
  for (const [doc, want] of cases) {
    assert.deepEqual(events([doc], LLAMA4), want);
    for (const chunks of splits(doc)) assert.deepEqual(events(chunks, LLAMA4), want, chunks[0]);
  }
});

test('D64: tabs are blanks around the name, digits may follow its first letter, dots join names', () => {
  const cases = [
    ['[\tget\t(a=1)]', [pythonic('[\tget\t(a=1)]', ['get', { a: 1 }])]],
    ['[get2(a=1)] ok', [pythonic('[get2(a=1)]', ['get2', { a: 1 }]), text(' ok')]],
    ['[a.b2.c(x=1)]', [pythonic('[a.b2.c(x=1)]', ['a.b2.c', { x: 1 }])]],
  ];
  for (const [doc, want] of cases) {
    for (const chunks of ways(doc)) assert.deepEqual(events(chunks, LLAMA4), want, doc);
  }
});

test('D64: a head fails at a hyphen or a blank after a dot; prose resumes there, and a later list is read', () => {
  const inner = pythonic('[h(y=1)]', ['h', { y: 1 }]);
  const cases = [
    ['[f-g(x=[h(y=1)])]', [text('[f-g(x='), inner, text(')]')]],
    ['[a. b(x=[h(y=1)])]', [text('[a. b(x='), inner, text(')]')]],
    ['[a.-[h(y=1)]', [text('[a.-'), inner]],
  ];
  for (const [doc, want] of cases) {
    for (const chunks of ways(doc)) assert.deepEqual(events(chunks, LLAMA4), want, doc);
  }
});

test('R8.3: a head that fails is given back by the feed of the character that fails it', () => {
  let doc = '[a. b(x=1)]';
  assert.deepEqual(released([...doc], LLAMA4), ['', '', '', '[a. ', ...doc.slice(4), '']);
  doc = '[f-g(x=1)]';
  assert.deepEqual(released([...doc], LLAMA4), ['', '', '[f-', ...doc.slice(3), '']);
  doc = '[1f(x=1)]';
  assert.deepEqual(released([...doc], LLAMA4), ['', '[1', ...doc.slice(2), '']);
});

// ---- pylist: the list ---------------------------------------------------------------------------

test('R17.8: strings in either quote hide brackets, and a backslash escapes exactly one character', () => {
  // (an empty string, an escaped backslash before the closing quote, an escaped quote)
  const cases = [
    ['[f(a="")]', [pythonic('[f(a="")]', ['f', { a: '' }])]],
    ['[f(a="\\\\")] x', [pythonic('[f(a="\\\\")]', ['f', { a: '\\' }]), text(' x')]],
    [
      '[f(a=\'\\\\\'), g(b="\\"]")]',
      [pythonic('[f(a=\'\\\\\'), g(b="\\"]")]', ['f', { a: '\\' }], ['g', { b: '"]' }])],
    ],
    ["[f(a='x\\'y')]", [pythonic("[f(a='x\\'y')]", ['f', { a: "x'y" }])]],
  ];
  for (const [doc, want] of cases) {
    for (const chunks of [...ways(doc), ...splits(doc)]) assert.deepEqual(events(chunks, LLAMA4), want, chunks[0]);
  }
});

test('D43: a list of exactly maxCaptureChars is read wherever its `[` stands; one more is text', () => {
  const opts = { ...LLAMA4, maxCaptureChars: 8 };
  const fits = 'ab [f(x=1)] cd';
  const want = [text('ab '), pythonic('[f(x=1)]', ['f', { x: 1 }]), text(' cd')];
  for (const chunks of [[fits], [...fits], [fits.slice(0, 4), fits.slice(4)]]) {
    assert.deepEqual(events(chunks, opts), want, chunks[0]);
  }
  for (const over of ['[f(x=12)]', 'ab [f(x=12)] cd']) {
    for (const chunks of ways(over)) assert.deepEqual(events(chunks, opts), [text(over)], chunks[0]);
  }
});

test('D43: a list is text up to the limit, in a string or not, and a list opening past it is read', () => {
  const cases = [
    [12, '[f(a="xxxxxx [g(b=1)] ")]', '[f(a="xxxxxx ', '[g(b=1)]', ['g', { b: 1 }], ' ")]'],
    [8, '[f(x=1, y=[g(z=1)])]', '[f(x=1, y=', '[g(z=1)]', ['g', { z: 1 }], ')]'],
  ];
  for (const [maxCaptureChars, doc, before, raw, call, after] of cases) {
    const want = [text(before), pythonic(raw, call), text(after)];
    for (const chunks of ways(doc)) {
      assert.deepEqual(events(chunks, { ...LLAMA4, maxCaptureChars }), want, chunks[0]);
    }
  }
});

test('R8.3, D43: a list that reaches the limit unclosed is text at once, not held to the flush', () => {
  const opts = { ...LLAMA4, maxCaptureChars: 5 };
  const doc = '[f(a=12345)] tail';
  assert.deepEqual(released([doc], opts), [doc, '']);
  assert.deepEqual(released([...doc], opts), ['', '', '', '', '[f(a=', ...doc.slice(5), '']);
});

test("the scanner's work: each character fed once, and a closed list once more by its grammar", () => {
  // (pinned exactly, as for the other families; a list that reads as no calls is read too)
  const work = (doc) => runSieve([doc], LLAMA4).work;
  assert.equal(work('ab [f(x=1)] cd'), 14 + 8);
  assert.equal(work('ab [f(x)] cd'), 12 + 6);
  assert.equal(work('[f(x=1)][g()]'), 13 + 8 + 5);
});

// ---- sections -----------------------------------------------------------------------------------

const BEGIN = '<｜tool▁calls▁begin｜>';
const END = '<｜tool▁calls▁end｜>';
const CALL = '<｜tool▁call▁begin｜>';
const CALL_END = '<｜tool▁call▁end｜>';
const SEP = '<｜tool▁sep｜>';

const section = (head, body) => BEGIN + CALL + head + SEP + body + CALL_END + END;

/** A section's event, raw left out (each case checks no loss apart). */
function tokens(calls, ...malformed) {
  const d = { type: 'tool_calls', calls: calls.map(([name, input]) => ({ name, input })), format: 'tokens' };
  if (malformed.length) d.malformed = malformed;
  return d;
}

/** The coalesced events fed whole and one character at a time, raw dropped once no loss holds. */
function sectionEvents(doc) {
  return ways(doc).map((chunks) => {
    const got = runSieve(chunks, V3).events;
    assert.equal(sources(got), doc);
    return JSON.parse(JSON.stringify(coalesce(got).map(eventDict)));
  });
}

test('D55: a call name holding a carriage return is no name, in V3.1 heads and V3 / R1 bodies', () => {
  const cases = [
    [section('get\rx', '{}'), 'get\rx' + SEP + '{}'],
    [section('function', 'get\rx\n```json\n{}\n```'), 'function' + SEP + 'get\rx\n```json\n{}\n```'],
  ];
  for (const [doc, raw] of cases) {
    const want = [tokens([], { raw, reason: 'no name' })];
    assert.deepEqual(sectionEvents(doc), [want, want]);
  }
});

test('D55: a refused V3 call is named `function` if its body opens with `{`, else by its first line', () => {
  const cases = [
    ['{bad', 'function'],
    ['x', 'x'],
    ['x\n```json\n[1]\n```', 'x'],
  ];
  for (const [body, name] of cases) {
    const raw = 'function' + SEP + body;
    const want = [tokens([], { raw, reason: 'arguments are not a JSON object', name })];
    assert.deepEqual(sectionEvents(section('function', body)), [want, want], body);
  }
});

test('R14.5: V3 / R1 arguments are one fenced block (```JSON too) ending the body, or malformed', () => {
  // (the closer may follow the object on its line; text after the object or the fence is not a fence)
  for (const body of ['get\n```JSON\n{"a": 1}\n```', 'get\n```json\n{"a": 1}```', 'get\n```\n{"a": 1}\n```']) {
    const want = [tokens([['get', { a: 1 }]])];
    assert.deepEqual(sectionEvents(section('function', body)), [want, want], body);
  }
  for (const body of ['get\n```json\n{"a": 1}\nabc', 'get\n```json\n{"a": 1}\n``` x']) {
    const raw = 'function' + SEP + body;
    const want = [tokens([], { raw, reason: 'arguments are not a JSON object', name: 'get' })];
    assert.deepEqual(sectionEvents(section('function', body)), [want, want], body);
  }
});

// ---- added: the head's letters and digits, its states, escaped line breaks, prose after a list ----

test("D64: a head's name may hold A-Z, a-z, _ and (after its first character) 0-9, the ends included", () => {
  for (const name of ['Az', 'Za', 'z0', 'a9Z', '_', 'A_Z0z9']) {
    const doc = '[' + name + '(x=1)]';
    const want = [pythonic(doc, [name, { x: 1 }])];
    for (const chunks of ways(doc)) assert.deepEqual(events(chunks, LLAMA4), want, doc);
  }
});

test('D64: a character just outside the name ranges fails the head there, and a list after it is read', () => {
  const inner = pythonic('[g(y=1)]', ['g', { y: 1 }]);
  for (const c of ['^', ':', '@', '`', '{', '/']) {
    const doc = '[f' + c + '[g(y=1)]';
    for (const chunks of ways(doc)) assert.deepEqual(events(chunks, LLAMA4), [text('[f' + c), inner], doc);
  }
  for (const c of ['@', '^', '`', '~', '/', ':']) {
    const doc = '[f' + c + '(x=1)]';
    assert.deepEqual(released([...doc], LLAMA4), ['', '', '[f' + c, ...doc.slice(3), ''], doc);
  }
  for (const c of ['{', '[']) {
    const doc = '[f' + c + '(x=1)]';
    assert.deepEqual(released([...doc], LLAMA4), ['', '', '[f', c + '(', ...doc.slice(4), ''], doc);
  }
});

test('D64: a `(` before any name, after a dot, or a name after blanks fails the head; prose resumes there', () => {
  const inner = pythonic('[g(y=1)]', ['g', { y: 1 }]);
  const cases = [
    ['[get x(a=[g(y=1)])]', '[get x(a='],
    ['[(a=[g(y=1)])]', '[(a='],
    ['[.f(a=[g(y=1)])]', '[.f(a='],
    ['[a.(b=[g(y=1)])]', '[a.(b='],
  ];
  for (const [doc, before] of cases) {
    for (const chunks of ways(doc)) assert.deepEqual(events(chunks, LLAMA4), [text(before), inner, text(')]')], doc);
  }
});

test('R17.8: an escaped carriage return in a string of a bare list is text, and prose resumes at it', () => {
  let doc = "[note(text='one\\\rtwo')]";
  for (const chunks of ways(doc)) assert.deepEqual(events(chunks, LLAMA4), [text(doc)], doc);
  const inner = pythonic('[g(y=1)]', ['g', { y: 1 }]);
  for (const q of ["'", '"']) {
    doc = '[note(text=' + q + 'one\\\r[g(y=1)]' + q + ')]';
    const want = [text('[note(text=' + q + 'one\\\r'), inner, text(q + ')]')];
    for (const chunks of ways(doc)) assert.deepEqual(events(chunks, LLAMA4), want, doc);
  }
});

test('D64: after a closed list that reads as no calls, prose resumes and a later list is read', () => {
  const inner = pythonic('[g(y=1)]', ['g', { y: 1 }]);
  for (const [doc, before] of [
    ['[f(x)] and [g(y=1)]', '[f(x)] and '],
    ['[f(x)]\n[g(y=1)]', '[f(x)]\n'],
  ]) {
    for (const chunks of ways(doc)) assert.deepEqual(events(chunks, LLAMA4), [text(before), inner], doc);
  }
});

test('R14.5, D55: only the head `function` reads a V3 body; its fence needs an opener and json or no info', () => {
  const cases = [
    ['get', 'x\n```json\n{}\n```', 'get'],
    ['function', 'get\nxyz\n{"a": 1}\n```', 'get'],
    ['function', 'get\n```python\n{"a": 1}\n```', 'get'],
    ['function', 'get\n```js\n{"a": 1}\n```', 'get'],
  ];
  for (const [head, body, name] of cases) {
    const raw = head + SEP + body;
    const want = [tokens([], { raw, reason: 'arguments are not a JSON object', name })];
    assert.deepEqual(sectionEvents(section(head, body)), [want, want], body);
  }
});
