'use strict';
/** Tool definitions and schema normalization (R12): src/schema.js; JSON text: src/jsontext.js. */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const schema = require('../../src/schema.js');
const { jsNumber, jsonText, jsKeys } = require('../../src/jsontext.js');
const { InputTypeError } = require('../../src/errors.js');

const {
  SCHEMA_KEYS, toolName, toolSchema, toolNamesOf, toolSchemas, findToolSchema,
  isStringSchema, normalizeValue, normalizeInput,
} = schema;

const isInputTypeError = (e) => e instanceof InputTypeError && e.name === 'InputTypeError';

test('SCHEMA_KEYS: the lookup order', () => {
  assert.deepEqual(SCHEMA_KEYS, ['parameters', 'input_schema', 'inputSchema', 'schema']);
  assert.ok(Object.isFrozen(SCHEMA_KEYS));
});

test('jsNumber writes numbers as JavaScript does', () => {
  const cases = [
    [0, '0'], [-0, '0'], [1, '1'], [2.0, '2'], [-1.5, '-1.5'], [0.1, '0.1'], [1 / 3, '0.3333333333333333'],
    [1e21, '1e+21'], [1e20, '100000000000000000000'], [123456789012345680000, '123456789012345680000'],
    [1.5e-7, '1.5e-7'], [1e-6, '0.000001'], [1e-7, '1e-7'], [2 ** 53 + 1, '9007199254740992'],
    [5e-324, '5e-324'], [1.7976931348623157e308, '1.7976931348623157e+308'], [-2.5e-300, '-2.5e-300'],
    [NaN, 'null'], [Infinity, 'null'], [-Infinity, 'null'], [12n, '12'], [2n ** 64n, '18446744073709551616'],
  ];
  for (const [x, want] of cases) assert.equal(jsNumber(x), want, String(x));
  for (const bad of ['1', null, true, undefined, {}]) assert.throws(() => jsNumber(bad), isInputTypeError);
});

test('jsKeys: JavaScript property order (array-index keys first)', () => {
  const obj = JSON.parse('{"b":1,"2":2,"a":3,"1":4,"01":5,"4294967295":6,"4294967294":7,"-1":8}');
  assert.deepEqual(jsKeys(obj).map(([k]) => k), ['1', '2', '4294967294', 'b', 'a', '01', '4294967295', '-1']);
  assert.deepEqual(jsKeys({ a: [1] }), [['a', [1]]]);
  for (const bad of [null, [], 'x', 1, new Map()]) assert.throws(() => jsKeys(bad), isInputTypeError);
});

test('jsonText equals JSON.stringify on JSON values', () => {
  const values = [
    null, true, false, 0, -0, 1e21, 1.5e-7, '', 'a"b\\c', '\b\f\n\r\t\u0000\u001f\u007f', '\u2028\u2029',
    'é😀', '\ud800', 'a\udc00b', [], {}, [1, [2, [3]]], { a: { b: [null, 'x'] } },
    JSON.parse('{"b":1,"10":2,"a":3,"2":4,"01":5,"4294967295":6,"__proto__":7}'),
    [NaN, Infinity, -Infinity], Object.assign(Object.create(null), { z: 1, 0: 2 }),
  ];
  for (const v of values) assert.equal(jsonText(v), JSON.stringify(v));
  assert.equal(jsonText('\u001f\ud800'), '"\\u001f\\ud800"'); // lowercase hex, as Python's _quote
  assert.equal(jsonText({ m: { b: 1, 2: 2, a: 3, 1: 4, '01': 5 } }), '{"m":{"1":4,"2":2,"b":1,"a":3,"01":5}}');
});

test('jsonText: what JSON.stringify leaves out, and misuse', () => {
  assert.equal(jsonText({ a: undefined, b: () => 1, c: Symbol('s'), d: 1 }), '{"d":1}');
  assert.equal(jsonText([undefined, () => 1, Symbol('s')]), '[null,null,null]');
  assert.equal(jsonText([, 1]), '[null,1]'); // eslint-disable-line no-sparse-arrays
  class Point {
    constructor() {
      this.x = 1;
    }
  }
  for (const bad of [undefined, () => 1, Symbol('s'), 1n, [1n], { a: 1n }, new Map(), new Set(), new Date(0),
    new Point(), Buffer.from('x'), { a: new Map() }]) {
    assert.throws(() => jsonText(bad), isInputTypeError);
  }
  const cyclic = { a: [] };
  cyclic.a.push(cyclic);
  assert.throws(() => jsonText(cyclic), isInputTypeError);
  const shared = [1];
  assert.equal(jsonText([shared, shared, { s: shared }]), '[[1],[1],{"s":[1]}]'); // shared is not cyclic
});

test('jsonText is iterative: any depth works', () => {
  const depth = 100000;
  const deep = JSON.parse('['.repeat(depth) + '1' + ']'.repeat(depth));
  assert.throws(() => JSON.stringify(deep), RangeError);
  assert.equal(jsonText(deep), '['.repeat(depth) + '1' + ']'.repeat(depth));
});

test('toolName and toolSchema: wrapped and flat definitions', () => {
  const s = { type: 'object' };
  assert.equal(toolName({ type: 'function', function: { name: ' read_file\u3000', parameters: s } }), 'read_file');
  assert.equal(toolName({ name: 'ls' }), 'ls');
  assert.equal(toolName({ function: { name: ' ' }, name: 'fallback' }), 'fallback');
  assert.equal(toolName({ function: 'x', name: 'y' }), 'y');
  for (const bad of [null, 'ls', 5, [], { name: 5 }, { name: '\u00a0' }, { function: { name: 1 } }, new Map([['name', 'x']])]) {
    assert.equal(toolName(bad), '');
  }
  const a = { type: 'object', properties: {} };
  const b = { type: 'string' };
  assert.equal(toolSchema({ function: { name: 't', parameters: a }, parameters: b }), a);
  assert.equal(toolSchema({ function: { name: 't', schema: a }, parameters: b }), a); // function first
  assert.equal(toolSchema({ function: { name: 't' }, inputSchema: b }), b); // then the tool
  assert.equal(toolSchema({ name: 't', schema: b, input_schema: a }), a); // SCHEMA_KEYS order
  assert.equal(toolSchema({ name: 't', parameters: [a], schema: b }), b); // only an object is a schema
  assert.equal(toolSchema({ name: 't', parameters: 'x' }), null);
  assert.equal(toolSchema(null), null);
  assert.equal(toolSchema([a]), null);
  assert.equal(toolSchema(Object.create({ parameters: a })), null); // inherited keys do not count
});

test('toolNamesOf and toolSchemas', () => {
  const s1 = { type: 'object' };
  const s2 = { type: 'string' };
  const tools = [{ name: '1', schema: s1 }, { name: '0' }, { name: '0', schema: s2 }, { name: ' 1 ', schema: s2 }, null, { x: 1 }];
  assert.deepEqual(toolNamesOf(tools), ['1', '0']);
  const map = toolSchemas(tools);
  assert.ok(map instanceof Map);
  assert.deepEqual([...map.entries()], [['1', s1], ['0', s2]]); // declared order; first schema of a name wins
  for (const bad of [null, undefined, 'ls', { name: 'ls' }, 5]) {
    assert.deepEqual(toolNamesOf(bad), []);
    assert.equal(toolSchemas(bad).size, 0);
  }
});

test('findToolSchema: exact name with a schema first, then the first ASCII-case match', () => {
  const a = { type: 'object' };
  const b = { type: 'string' };
  const tools = [{ name: 'exact', schema: a }, { name: 'EXACT', schema: b }];
  assert.equal(findToolSchema(tools, 'EXACT'), b);
  assert.equal(findToolSchema(tools, ' Exact\n'), a);
  assert.equal(findToolSchema(tools, 'nope'), null);
  // an exact name without a schema falls back to a case match
  assert.equal(findToolSchema([{ name: 'T' }, { name: 't', schema: a }], 't'), a);
  assert.equal(findToolSchema([{ name: 't' }, { name: 'T', schema: a }], 't'), a);
  // the first case match decides, even when it has no schema
  assert.equal(findToolSchema([{ name: 'READ' }, { name: 'Read', schema: a }], 'read'), null);
  // ASCII only
  assert.equal(findToolSchema([{ name: 'i', schema: a }], 'İ'), null);
  assert.equal(findToolSchema([{ name: 'k', schema: a }], '\u212a'), null);
  assert.equal(findToolSchema([{ name: 'S', schema: a }], 'ſ'), null);
  assert.equal(findToolSchema([{ name: 'ÉA', schema: a }], 'Éa'), a);
  assert.equal(findToolSchema({ t: a }, 't'), null);
  assert.equal(findToolSchema(tools, 5), null);
});

test('isStringSchema', () => {
  const yes = [{ type: 'string' }, { type: ['string'] }, { type: ['null', 'string'] }, { enum: ['a'] }, { const: '' },
    { enum: ['a'], const: 1 }, { const: 'x', enum: [1] }];
  const no = [{}, { type: 'String' }, { type: ['null'] }, { type: [] }, { type: ['string', 'number'] }, { type: ['string', 1] },
    { type: null, enum: ['a'] }, { type: 'integer', enum: ['1'] }, { enum: [] }, { enum: ['a', 1] }, { enum: 'a' },
    { const: null }, { const: 1 }, { type: ['string', , 'null'] }, null, 'string', ['string'], true]; // eslint-disable-line no-sparse-arrays
  for (const s of yes) assert.equal(isStringSchema(s), true, JSON.stringify(s));
  for (const s of no) assert.equal(isStringSchema(s), false, JSON.stringify(s));
});

test('normalizeValue: string schemas', () => {
  const str = { type: 'string' };
  assert.equal(normalizeValue('x', str), 'x');
  assert.equal(normalizeValue(1, str), '1');
  assert.equal(normalizeValue(1e21, str), '1e+21');
  assert.equal(normalizeValue(-0, str), '0');
  assert.equal(normalizeValue(NaN, str), 'null');
  assert.equal(normalizeValue(true, str), 'true');
  assert.equal(normalizeValue(null, str), 'null');
  assert.equal(normalizeValue(null, { type: ['string', 'null'] }), null);
  assert.equal(normalizeValue({ b: 1, 1: [2] }, str), '{"1":[2],"b":1}');
  assert.equal(normalizeValue(undefined, str), undefined); // no Python counterpart: left alone
  assert.equal(normalizeValue(new Map(), str), '[object Map]'); // not JSON: its String(), as Python's str()
  assert.equal(normalizeValue(1n, str), '1');
});

test('normalizeValue: arrays, objects, odd schemas; never mutates', () => {
  const pair = { prefixItems: [{ type: 'string' }, { type: 'number' }], items: { type: 'string' } };
  assert.deepEqual(normalizeValue([1, 2, 3], pair), ['1', 2, '3']);
  assert.deepEqual(normalizeValue([1, 2, 3], { items: [{ type: 'string' }], additionalItems: { type: 'boolean' } }), ['1', 2, 3]);
  assert.deepEqual(normalizeValue([1, 2], { prefixItems: 'x', items: { type: 'string' } }), ['1', '2']);
  assert.deepEqual(normalizeValue([1, 2], { items: 'string' }), [1, 2]);
  const objSchema = { properties: { a: { type: 'string' }, t: true }, additionalProperties: { type: 'string' } };
  assert.deepEqual(normalizeValue({ a: 1, t: 2, z: 3 }, objSchema), { a: '1', t: 2, z: '3' });
  assert.deepEqual(normalizeValue({ a: 1 }, { properties: 'nope' }), { a: 1 });
  for (const s of [undefined, null, true, 'string', ['string'], { $ref: '#/x' }, { anyOf: [{ type: 'string' }] }, { type: 5 }]) {
    assert.deepEqual(normalizeValue({ a: 1 }, s), { a: 1 });
  }
  const input = { a: 1, keep: { x: 1 } };
  const out = normalizeValue(input, { properties: { a: { type: 'string' } } });
  assert.deepEqual(input, { a: 1, keep: { x: 1 } });
  assert.equal(out.keep, input.keep); // unchanged parts are shared
  assert.equal(normalizeValue(input, {}), input);
});

test('normalizeValue: keys are own properties; __proto__ and constructor are ordinary keys', () => {
  const s = { properties: { a: { type: 'string' } } };
  assert.deepEqual(normalizeValue({ constructor: 1, toString: 2, a: 3 }, s), { constructor: 1, toString: 2, a: '3' });
  const v = normalizeValue(JSON.parse('{"__proto__": 1}'), { additionalProperties: { type: 'string' } });
  assert.deepEqual(Object.keys(v), ['__proto__']);
  assert.equal(jsonText(v), '{"__proto__":"1"}');
  const p = normalizeValue(JSON.parse('{"__proto__": 1}'), JSON.parse('{"properties": {"__proto__": {"type": "string"}}}'));
  assert.equal(jsonText(p), '{"__proto__":"1"}');
  assert.deepEqual(normalizeValue([1], { items: {}, type: 'array', constructor: { type: 'string' } }), [1]);
});

test('normalizeInput(name, input, tools)', () => {
  const tools = [{ type: 'function', function: { name: 'Write', parameters: { properties: { n: { type: 'string' } } } } }];
  assert.deepEqual(normalizeInput('write', { n: 1, m: 2 }, tools), { n: '1', m: 2 });
  const input = { n: 1 };
  assert.equal(normalizeInput('other', input, tools), input); // unknown tool: the input itself
  assert.equal(normalizeInput('write', input, null), input);
  assert.equal(normalizeInput(5, input, tools), input);
  assert.equal(normalizeInput('w', input, [{ name: 'w' }]), input); // no schema
  // a schema that would turn the input into a non-object leaves it as it is
  assert.equal(normalizeInput('s', input, [{ name: 's', schema: { type: 'string' } }]), input);
  assert.equal(normalizeInput('s', input, [{ name: 's', schema: { type: ['string', 'null'] } }]), input);
  // ASCII-only case matching
  const dotted = [{ name: 'i', schema: { properties: { n: { type: 'string' } } } }];
  assert.equal(normalizeInput('İ', input, dotted), input);
  assert.deepEqual(normalizeInput('I', input, dotted), { n: '1' });
  // non-object inputs pass through
  assert.equal(normalizeInput('write', 'text', tools), 'text');
  assert.deepEqual(normalizeInput('write', [1], tools), [1]);
});
