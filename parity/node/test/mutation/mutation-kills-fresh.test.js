'use strict';
/**
 * Tests that tell the Node port apart from mutants that survived the full runs of 2026-12-06
 * (names, schema): the same cases as python/tests/mutation/test_mutation_kills_fresh.py, and the
 * same expectations (the rules, R10.1 and R17.9, as the Python reference gives them).
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { typedValue, propertySchema } = require('../../src/schema.js');
const { applyPolicy, resolveToolName } = require('../../src/names.js');
const { parse } = require('../../src/sieve.js');

test('names: a tie of three is still a tie (R10.1)', () => {
  assert.equal(resolveToolName('aB', ['ab', 'AB', 'Ab']), null);
  assert.equal(resolveToolName('x.aB', ['ab', 'AB', 'Ab']), null);
  assert.equal(resolveToolName('a-b', ['a_b', 'a__b', 'A_B']), null);
});

test('names: a resolved call keeps its id', () => {
  const calls = [
    { name: 'GET_WEATHER', input: { city: 'Paris' }, id: 'call_1' },
    { name: 'other', input: {}, id: 'call_2' },
  ];
  assert.deepEqual(applyPolicy(calls, ['get_weather']).calls, [
    { name: 'get_weather', input: { city: 'Paris' }, id: 'call_1' },
    { name: 'other', input: {}, id: 'call_2' },
  ]);
});

// [schema, raw text, expected [typed?, value]]: Python's None is null here.
const TYPED = [
  [null, '1', [false, null]],
  [true, '1', [false, null]],
  [{ description: 'd' }, '1', [false, null]],
  [{ enum: ['a', 'b'] }, ' a ', [true, ' a ']],
  [{ type: ['integer', 'string'] }, '42', [true, '42']],
  [{ type: 'boolean' }, 'True', [true, true]],
  [{ type: 'boolean' }, 'true', [true, true]],
  [{ type: 'boolean' }, ' False ', [true, false]],
  [{ type: 'boolean' }, 'false', [true, false]],
  [{ type: 'boolean' }, 'TRUE', [false, null]],
  [{ type: ['boolean', 'integer'] }, '5', [true, 5]],
  [{ type: ['integer', 'boolean'] }, 'True', [true, true]],
  [{ type: ['integer', 'boolean'] }, 'true', [true, true]],
  [{ type: 'number' }, '1.5', [true, 1.5]],
  [{ type: 'number' }, '2', [true, 2]],
  [{ type: 'integer' }, '2.0', [true, 2]],
  [{ type: 'integer' }, '200.0', [true, 200]],
  [{ type: 'integer' }, '2.5', [false, null]],
  [{ type: 'integer' }, '9007199254740992.0', [false, null]],
  [{ type: 'integer' }, '"5"', [false, null]],
  [{ type: 'integer' }, 'null', [false, null]],
  [{ type: 'object' }, '5.5', [false, null]],
  [{ type: 'array' }, '5.5', [false, null]],
  [{ type: 'object' }, '{"a": 1}', [true, { a: 1 }]],
  [{ type: 'array' }, '[1]', [true, [1]]],
  [{ type: ['integer', 'null'] }, 'null', [true, null]],
  [{ type: ['integer', 'null'] }, 'None', [true, null]],
  [{ type: ['integer', 'null'] }, 'x', [false, null]],
  [{ anyOf: [{ type: 'integer' }, { type: 'null' }] }, '7', [true, 7]],
  [{ oneOf: [{ type: 'integer' }, { type: 'null' }] }, 'None', [true, null]],
  [{ anyOf: [{ type: 'integer' }, { type: ['integer', 'string'] }] }, '7', [true, '7']],
  [{ anyOf: [1, { type: 'number' }], oneOf: [{ type: 'boolean' }] }, 'true', [true, true]],
  [{ anyOf: [null, { type: 'number' }] }, '1', [true, 1]],
  [{ type: 'integer' }, 'true', [false, null]],
  [{ type: 'boolean' }, '5', [false, null]],
  [{ type: 'integer' }, '{"a": 1}', [false, null]],
  [{ type: 'integer' }, '[1]', [false, null]],
  [{ type: 'number' }, '"5"', [false, null]],
  [{ type: 'number' }, 'true', [false, null]],
];

test('schema: raw-text values typed by the schema (R17.9)', () => {
  for (const [schema, raw, want] of TYPED) {
    assert.deepEqual(typedValue(schema, raw), want, `${JSON.stringify(schema)} ${JSON.stringify(raw)}`);
  }
});

test('schema: a property schema falls back to additionalProperties', () => {
  const integer = { type: 'integer' };
  assert.deepEqual(propertySchema({ properties: {}, additionalProperties: integer }, 'k'), integer);
  assert.deepEqual(propertySchema({ additionalProperties: integer }, 'k'), integer);
  assert.equal(propertySchema({ additionalProperties: true }, 'k'), null);
  assert.equal(propertySchema(null, 'k'), null);
  assert.equal(propertySchema(undefined, 'k'), null);
  assert.deepEqual(propertySchema({ properties: { k: { type: 'string' } }, additionalProperties: integer }, 'k'), {
    type: 'string',
  });
});

test('schema: typed values in a call', () => {
  const tools = [
    {
      type: 'function',
      function: {
        name: 'f',
        parameters: {
          type: 'object',
          properties: { n: { type: ['integer', 'null'] }, s: { type: ['integer', 'string'] } },
          additionalProperties: { type: 'boolean' },
        },
      },
    },
  ];
  const text =
    '<tool_call>\n<function=f>\n<parameter=n>\nNone\n</parameter>\n<parameter=s>\n42\n</parameter>\n' +
    '<parameter=b>\nTrue\n</parameter>\n</function>\n</tool_call>';
  const [call] = parse(text, { tools, formats: ['qwen3_coder'] }).calls;
  assert.deepEqual(call.input, { n: null, s: '42', b: true });
});

test('shell: a cut drifted CDATA opener waits for more (R5.5)', () => {
  const { matchCdataOpen, MORE, NO } = require('../../src/shell.js');
  assert.equal(matchCdataOpen('<！', 0, false), MORE);
  assert.equal(matchCdataOpen('x<！', 1, false), MORE);
  assert.equal(matchCdataOpen('<！', 0, true), NO);
  assert.equal(matchCdataOpen('<！ no bracket in this window at all', 0, false), NO);
  assert.equal(matchCdataOpen('<！[ＣＤＡＴＡ[x', 0, false), 9);
});

test('names: what folds and what separates in loose keys (R10.1), as Python', () => {
  const { nameTables, checkToolNames } = require('../../src/names.js');
  assert.equal(resolveToolName('Աx', ['աx']), null); // Armenian capitals are not folded
  assert.equal(resolveToolName('İx', ['i\u0307x']), null); // a letter that lower-cases to two stays
  assert.equal(resolveToolName('get·weather', ['get_weather']), 'get_weather');
  assert.equal(resolveToolName('get、weather', ['get_weather']), 'get_weather');
  assert.equal(resolveToolName('A.B', ['a.b', 'b']), 'a.b'); // found whole: the tail is not tried
  // Tables of an array not checked here are not kept for it: checking it still copies and freezes.
  const arr = ['a'];
  nameTables(arr);
  const checked = checkToolNames(arr);
  assert.ok(Object.isFrozen(checked) && checked !== arr);
});
