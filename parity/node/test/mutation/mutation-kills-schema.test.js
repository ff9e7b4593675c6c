'use strict';
/**
 * Tests that tell src/schema.js apart from its StrykerJS mutants (issue 17). Every expected value
 * is what the Python reference (python/callsieve/schema.py) gives for the same input; type names
 * in messages are each language's own (Python's `str`, `int`, `dict` are `string`, `number`,
 * `Object` here).
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { checkTools, findToolSchema, normalizeInput, normalizeValue } = require('../../src/schema.js');
const { InputTypeError } = require('../../src/errors.js');

test('checkTools: a misuse message names the option and the type given', () => {
  for (const [tools, given] of [['x', 'string'], [5, 'number'], [{ a: 1 }, 'Object'], [true, 'boolean']]) {
    assert.throws(
      () => checkTools(tools),
      (e) => e instanceof InputTypeError && e.message === `tools must be a list of tool definitions, got ${given}`,
    );
  }
  assert.equal(checkTools(null), null);
  assert.equal(checkTools(undefined), null);
  const tools = [];
  assert.equal(checkTools(tools), tools);
});

test('findToolSchema: a tool without a name is never found, not even by an empty name', () => {
  const a = { type: 'object', properties: { n: { type: 'string' } } };
  assert.equal(findToolSchema([{ schema: a }], ''), null);
  assert.equal(findToolSchema([{ schema: a }], '  '), null);
  assert.equal(findToolSchema([{ name: ' ', schema: a }], ' '), null);
  assert.equal(findToolSchema([{ schema: a }, { name: 't', schema: { type: 'object' } }], ''), null);
  const input = { n: 1 };
  assert.equal(normalizeInput('', input, [{ schema: a }]), input);
  assert.equal(normalizeInput(' ', input, [{ name: '  ', parameters: a }]), input);
});

test('normalizeValue: an error other than InputTypeError while writing JSON text propagates', () => {
  // Python's _to_text catches only InputTypeError (a dict whose items() raises ValueError raises).
  const odd = {
    get a() {
      throw new RangeError('boom');
    },
  };
  assert.throws(() => normalizeValue(odd, { type: 'string' }), (e) => e instanceof RangeError && e.message === 'boom');
  // an InputTypeError (not JSON) gives the value's String(), as Python's str()
  assert.equal(normalizeValue(new Set(), { type: 'string' }), '[object Set]');
});
