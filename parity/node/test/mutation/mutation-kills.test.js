'use strict';
/**
 * Tests that tell the code apart from its mutants (issue 17): options, library functions and edge
 * cases the fixtures cannot hold. Twin of python/tests/mutation/test_mutation_kills.py; expectations come
 * from the rules and the documented API.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { parse, Sieve, coalesce, InputTypeError, OptionsError } = require('../../index.js');
const { normalizeValue, normalizeInput } = require('../../src/schema.js');
const { iterSSEEvents } = require('../../src/sse.js');
const { collect } = require('../support');

const BLOCK =
  '<|DSML|tool_calls><|DSML|invoke name="f"><|DSML|parameter name="a">1</|DSML|parameter>' +
  '</|DSML|invoke></|DSML|tool_calls>';

function stream(text, size, options) {
  const s = new Sieve(options);
  const events = [];
  for (let i = 0; i < text.length; i += size) events.push(...s.feed(text.slice(i, i + size)));
  events.push(...s.flush());
  return coalesce(events);
}

// ---- maxCaptureChars: a block of exactly the limit is not past it ----------------------------

test('a block exactly at the capture limit is a call', () => {
  const text = 'x ' + BLOCK + ' y';
  for (const size of [1, 3, BLOCK.length + 4]) {
    const out = stream(text, size, { maxCaptureChars: BLOCK.length });
    assert.deepEqual(out.map((e) => e.type), ['text', 'tool_calls', 'text']);
    assert.deepEqual(out[1].calls.map((c) => c.name), ['f']);
  }
  assert.deepEqual(parse(text, { maxCaptureChars: BLOCK.length }).calls[0].input, { a: 1 });
});

test('a block one past the capture limit is text', () => {
  const out = stream('x ' + BLOCK + ' y', 1, { maxCaptureChars: BLOCK.length - 1 });
  assert.ok(!out.some((e) => e.type === 'tool_calls'));
});

test('a block far past the capture limit is text with a note', () => {
  const out = stream('x ' + BLOCK + ' y', 1, { maxCaptureChars: Math.floor(BLOCK.length / 2) });
  assert.ok(!out.some((e) => e.type === 'tool_calls'));
  assert.ok(out.some((e) => e.type === 'text' && e.note === 'capture_limit'));
});

test('the capture limit must be a positive integer', () => {
  assert.throws(() => new Sieve({ maxCaptureChars: 0 }), OptionsError);
  assert.throws(() => new Sieve({ maxCaptureChars: 2.5 }), InputTypeError);
});

// ---- values: numbers are doubles (R6.3) --------------------------------------------------------

test('a sixteen-digit integer is the nearest double', () => {
  assert.equal(parse(BLOCK.replace('>1<', '>9999999999999999<')).calls[0].input.a, 1e16);
  assert.equal(parse(BLOCK.replace('>1<', '>1234567890123456<')).calls[0].input.a, 1234567890123456);
});

// ---- schema: the text of a value that is not JSON (R12 never throws) ---------------------------

test('a string schema writes a non-JSON value as its text', () => {
  assert.equal(normalizeValue(12n, { type: 'string' }), '12');
  const cyclic = [1];
  cyclic.push(cyclic);
  assert.equal(normalizeValue(cyclic, { type: 'string' }), String(cyclic));
  const tools = [{ name: 't', input_schema: { type: 'object', properties: { p: { type: 'string' } } } }];
  assert.deepEqual(normalizeInput('t', { p: 7n }, tools), { p: '7' });
});

test('schema lookup prefers the exact name over an earlier case variant', () => {
  const tools = [
    { name: 'Ab', input_schema: { type: 'object', properties: { x: { type: 'string' } } } },
    { name: 'aB', input_schema: { type: 'object', properties: { x: { type: 'integer' } } } },
  ];
  assert.deepEqual(normalizeInput('aB', { x: 1 }, tools), { x: 1 });
  assert.deepEqual(normalizeInput('Ab', { x: 1 }, tools), { x: '1' });
  assert.deepEqual(normalizeInput(' ab ', { x: 1 }, tools), { x: '1' });
});

// ---- sse: retry takes ASCII digits only --------------------------------------------------------

test('an SSE retry with non-ASCII digits is ignored', async () => {
  const text = 'retry: 1500\n\nretry: \u0661\u0662\ndata: a\n\nretry: 2\u0663\ndata: b\n\n';
  const events = await collect(iterSSEEvents([new TextEncoder().encode(text)]));
  assert.deepEqual(events.map((e) => [e.data, e.retry]), [['a', 1500], ['b', 1500]]);
});

// ---- shell: the fold table (R2.3, R2.4) --------------------------------------------------------

const CONFUSABLES = {
  a: 'аαА', b: 'ВΒв', c: 'сСϲ', d: 'ԁ', e: 'еЕεΕ', h: 'һНΗ', i: 'іІιΙ', j: 'јЈ', k: 'кКκΚ', l: 'ӏ',
  m: 'мМΜ', n: 'ΝпП', o: 'оОοΟ', p: 'рРρΡ', s: 'ѕЅ', t: 'тТτΤ', u: 'υ', v: 'ν', x: 'хХχΧ', y: 'уУγΥ',
  z: 'Ζ',
};

test('the fold table folds what R2 says and nothing else', () => {
  const t = require('../../src/shell.js').FOLD;
  const cp = (ch) => ch.codePointAt(0);
  for (let c = 65; c <= 90; c++) assert.equal(t.get(c), String.fromCharCode(c).toLowerCase());
  for (let c = 0xff01; c < 0xff5f; c++) assert.equal(t.get(c), String.fromCharCode(c - 0xfee0).toLowerCase());
  assert.ok(!t.has(0xff00) && !t.has(0xff5f));
  const dropped = [0, 1, 2, 3, 4, 5, 6, 7, 8, 0x0b, 0x0c, 0x7f, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x2060, 0xfeff, 0xad];
  for (let c = 0x0e; c < 0x20; c++) dropped.push(c);
  for (const c of dropped) assert.ok(t.has(c) && t.get(c) === null, c.toString(16));
  for (const c of [0x09, 0x0a, 0x0d, 0x20]) assert.ok(!t.has(c));
  const spaces = [0x85, 0xa0, 0x1680, 0x202f, 0x205f, 0x3000, 0x2581, 0x2402];
  for (let c = 0x2000; c < 0x200b; c++) spaces.push(c);
  for (const c of spaces) assert.equal(t.get(c), ' ', c.toString(16));
  for (const [chars, to] of [['‐‑‒–—―−﹣', '-'], ['﹍﹎﹏', '_'], ['“”„‟″', '"'], ['‘’‚‛′', "'"]]) {
    for (const ch of chars) assert.equal(t.get(cp(ch)), to, ch);
  }
  assert.deepEqual(['〈', '〉', '《', '》'].map((ch) => t.get(cp(ch))), ['<', '>', '<', '>']);
  for (const [letter, variants] of Object.entries(CONFUSABLES)) {
    for (const v of variants) assert.equal(t.get(cp(v)), letter, v);
  }
  for (const v of t.values()) assert.ok(v === null || (v.length === 1 && v.charCodeAt(0) < 0x80));
  for (let c = 0x20; c < 0x7f; c++) if (c < 65 || c > 90) assert.ok(!t.has(c), String.fromCharCode(c));
  assert.equal(t.size, 261);
});

// ---- names: the namespace level of the funnel (R10.1, D16) -------------------------------------

test('the namespace level beats the loose level', () => {
  const { resolveToolName } = require('../../src/names.js');
  assert.equal(resolveToolName('.Search', ['se-arch', 'search']), 'search');
  assert.equal(resolveToolName('mcp.', ['  ', 'mcp']), 'mcp');
  assert.equal(resolveToolName('mcp.search', ['SEARCH', ' search ']), ' search ');
  assert.equal(resolveToolName('mcp.search', ['se-arch', ' Search ']), ' Search ');
});

test('misuse messages name the option and what was given', () => {
  const { applyPolicy, resolveToolName } = require('../../src/names.js');
  assert.throws(() => applyPolicy([], ['a'], 'maybe'), { name: 'OptionsError', message: `unknownTools must be 'keep' or 'reject', got "maybe"` });
  assert.throws(() => applyPolicy([], ['a'], 5), { name: 'OptionsError', message: `unknownTools must be 'keep' or 'reject', got number` });
  assert.throws(() => applyPolicy(5, ['a']), { name: 'InputTypeError', message: 'calls must be a list of calls, got number' });
  assert.throws(() => applyPolicy([5], ['a']), { name: 'InputTypeError', message: 'calls must be {name: string, input: object} objects' });
  assert.throws(() => resolveToolName('x', 'abc'), { name: 'InputTypeError', message: 'toolNames must be a list of strings, not a single string' });
  assert.throws(() => resolveToolName('x', 5), { name: 'InputTypeError', message: 'toolNames must be a list of strings, got number' });
  assert.throws(() => resolveToolName('x', [5]), { name: 'InputTypeError', message: 'toolNames must hold strings, got number' });
});

// ---- R9.2: a chat message envelope is not a call, whatever its key order -----------------------

test(
  'an envelope starting with role is text',
  {
    todo:
      'bug: a JSON candidate starts only at an object whose first key is tool_calls, name, function, ' +
      'type or id, so the call item nested in an envelope that starts with role is extracted',
  },
  () => {
    const text = 'Msg {"role": "assistant", "tool_calls": [{"name": "ls", "input": {}}]} end.';
    assert.deepEqual(parse(text, { jsonToolCalls: true }).calls, []);
  },
);

// ---- values and schema edges -------------------------------------------------------------------

test('numeric references at the edges of the character range', () => {
  const value = '&#x10FFFF;|&#1114111;|&#x110000;|&#xD7FF;|&#xD800;|&#xDFFF;|&#xE000;';
  const got = parse(BLOCK.replace('>1<', `>${value}<`)).calls[0].input.a;
  assert.equal(got, '\u{10FFFF}|\u{10FFFF}|&#x110000;|\uD7FF|&#xD800;|&#xDFFF;|\uE000');
});

test('toolSchemas maps each name to its first schema', () => {
  const { toolSchemas } = require('../../src/schema.js');
  const tools = [{ name: 'a', input_schema: { type: 'object' } }, { name: 'b' }, { name: 'a', input_schema: { x: 1 } }];
  assert.deepEqual(toolSchemas(tools), new Map([['a', { type: 'object' }]]));
});

// ---- values: collecting parameters into the input object (R6.6) --------------------------------

test('invokeInput turns a repeated name into an array, in order', () => {
  const { invokeInput } = require('../../src/values.js');
  const params = [['a', 1], ['b', 'x'], ['a', [2]], ['a', null], ['c', { k: 1 }]];
  assert.deepEqual(invokeInput(params), { a: [1, [2], null], b: 'x', c: { k: 1 } });
  assert.deepEqual(invokeInput([]), {});
  // a value that is itself a list is one value, not the start of the array
  assert.deepEqual(invokeInput([['a', [1, 2]]]), { a: [1, 2] });
  // a parameter named __proto__ is an own key, repeated like any other
  const p = invokeInput([['__proto__', 1], ['__proto__', 2]]);
  assert.deepEqual(Object.keys(p), ['__proto__']);
  assert.deepEqual(Object.getOwnPropertyDescriptor(p, "__proto__").value, [1, 2]);
  assert.equal(Object.getPrototypeOf(p), Object.prototype);
});

// ---- values: entities of a long text are decoded block by block, none cut (D13) ----------------

test('entities of a long text are decoded across block boundaries', () => {
  const { decodeEntities } = require('../../src/values.js');
  const B = 1 << 16;
  for (let d = 0; d <= 11; d++) {
    // a ten-character reference starting d characters before the end of the first block
    const s = 'x'.repeat(B - d) + '&#1114111;' + '&amp;'.repeat(3) + 'z'.repeat(B + 5);
    assert.equal(decodeEntities(s), 'x'.repeat(B - d) + '\u{10FFFF}' + '&&&' + 'z'.repeat(B + 5), `d=${d}`);
  }
  const many = '&lt;b&gt;'.repeat(20000); // 180,000 characters, three blocks
  assert.equal(decodeEntities(many), '<b>'.repeat(20000));
  const tail = 'y'.repeat(B + 3) + '&amp';
  assert.equal(decodeEntities(tail), tail); // an `&` without its `;` stays as written
  assert.equal(decodeEntities('a'.repeat(B)), 'a'.repeat(B));
  assert.equal(decodeEntities('&amp;' + 'a'.repeat(B)), '&' + 'a'.repeat(B));
});
