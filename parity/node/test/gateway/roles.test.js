'use strict';
/** Role normalization (R11): src/roles.js. */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { ROLES, DEFAULT_ROLE, normalizeRole } = require('../../src/roles.js');

test('ROLES and DEFAULT_ROLE', () => {
  assert.deepEqual(ROLES, ['system', 'user', 'assistant', 'tool']);
  assert.ok(Object.isFrozen(ROLES));
  assert.equal(DEFAULT_ROLE, 'user');
});

test('the four roles are kept; developer and function are aliases', () => {
  for (const r of ROLES) assert.equal(normalizeRole(r), r);
  assert.equal(normalizeRole('developer'), 'system');
  assert.equal(normalizeRole('function'), 'tool');
});

test('trimmed (JavaScript whitespace) and ASCII-lowercased', () => {
  assert.equal(normalizeRole(' SYSTEM '), 'system');
  assert.equal(normalizeRole('\u00a0Assistant\u3000'), 'assistant');
  assert.equal(normalizeRole('\ufeffDEVELOPER\n'), 'system');
  assert.equal(normalizeRole('\tFunction\u2028'), 'tool');
  // not D10 whitespace: the role is not trimmed, so it is unknown
  assert.equal(normalizeRole('user\u0085'), 'user');
  assert.equal(normalizeRole('tool\u0085'), 'user');
  assert.equal(normalizeRole('tool\u200b'), 'user');
  assert.equal(normalizeRole('system\u180e'), 'user');
});

test('non-ASCII letters never fold into a role', () => {
  assert.equal(normalizeRole('ſystem'), 'user'); // long s uppercases to S
  assert.equal(normalizeRole('too\u212a'), 'user'); // Kelvin sign lowercases to k
  assert.equal(normalizeRole('assİstant'), 'user');
  assert.equal(normalizeRole('ѕystem'), 'user'); // Cyrillic homoglyph
  assert.equal(normalizeRole('ＳＹＳＴＥＭ'), 'user'); // fullwidth
});

test('unknown strings and non-strings become user; never throws', () => {
  for (const r of ['', ' ', 'admin', 'model', 'systems', 'constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
    assert.equal(normalizeRole(r), 'user', r);
  }
  for (const r of [undefined, null, 0, 1, true, false, NaN, 1n, Symbol('system'), ['system'], { role: 'system' },
    Object.create(null), new String('system'), () => 'system']) {
    assert.equal(normalizeRole(r), 'user', typeof r);
  }
  assert.equal(normalizeRole(), 'user');
});
