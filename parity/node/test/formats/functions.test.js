'use strict';
/** Every function fixture (R10-R13: `call` instead of `input`) through the driver's `call` op. */

const assert = require('node:assert/strict');
const path = require('path');
const { test } = require('node:test');

const { handle } = require('../../driver.js');
const { FIXTURES, allFixtureFiles, describe, firstDifference, load } = require('../support');

const FILES = allFixtureFiles().filter((p) => Object.prototype.hasOwnProperty.call(load(p), 'call'));

test('there are function fixtures for R10-R13', () => {
  assert.ok(FILES.length >= 80, `only ${FILES.length} function fixtures found in ${FIXTURES}`);
});

for (const file of FILES) {
  test(`call ${path.relative(FIXTURES, file)}`, () => {
    const c = load(file);
    const req = { op: 'call', function: c.call.function, args: c.call.args };
    if (c.expected.error !== undefined) {
      assert.throws(() => handle(req), (exc) => exc.name === c.expected.error);
      return;
    }
    const got = JSON.parse(JSON.stringify(handle(req)));
    const d = firstDifference(c.expected.result, got);
    assert.ok(d === null, describe(d, c.expected.result, got));
  });
}
