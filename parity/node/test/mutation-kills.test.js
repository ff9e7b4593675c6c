'use strict';
/**
 * Tests that tell the code apart from its mutants (issue 17): options, library functions and edge
 * cases the fixtures cannot hold. Twin of python/tests/test_mutation_kills.py; expectations come
 * from the rules and the documented API.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { parse, Sieve, coalesce, InputTypeError, OptionsError } = require('../index.js');
const { normalizeValue, normalizeInput } = require('../src/schema.js');
const { iterSSEEvents } = require('../src/sse.js');
const { collect } = require('./support');

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

test(
  'a block one past the capture limit is text',
  {
    todo:
      'bug: the closing wrapper tag is not counted against maxCaptureChars (the limit is checked ' +
      'before each step), so a block up to 19 characters past the limit is still a call',
  },
  () => {
    const out = stream('x ' + BLOCK + ' y', 1, { maxCaptureChars: BLOCK.length - 1 });
    assert.ok(!out.some((e) => e.type === 'tool_calls'));
  },
);

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
