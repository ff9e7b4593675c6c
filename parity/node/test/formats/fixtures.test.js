'use strict';
/** Every fixture through parse() and through the Sieve under every chunking (R8.6). */

const assert = require('node:assert/strict');
const path = require('path');
const { test } = require('node:test');

const { FIXTURES, chunkings, describe, firstDifference, fixtureFiles, kept, load, runParse, runStream } = require('../support');

const FILES = fixtureFiles();

/** The fixture's `parse`, with the defaults, and `text`: the text of its coalesced events. */
function expectedParse(c) {
  const text = c.expected.events.filter((e) => e.type === 'text').map((e) => e.text).join('');
  return { rejectedByPolicy: false, rejectedToolNames: [], ...c.expected.parse, text };
}

test('there are enough fixtures', () => {
  assert.ok(FILES.length >= 150, `only ${FILES.length} fixtures found in ${FIXTURES}`);
});

for (const file of FILES) {
  const id = path.relative(FIXTURES, file);

  test(`parse ${id}`, () => {
    const c = load(file);
    const want = expectedParse(c);
    const got = runParse(c);
    const d = firstDifference(want, got);
    assert.ok(d === null, describe(d, want, got));
  });

  test(`stream ${id}`, () => {
    const c = load(file);
    const want = c.expected.events;
    for (const [name, chunks] of Object.entries(chunkings(c))) {
      const [got, raw] = runStream(c, chunks);
      assert.ok(kept(raw, c.input), `[${name}] text + raw does not reproduce the input (R8.2, D29)`);
      const d = firstDifference(want, got);
      assert.ok(
        d === null,
        `[${name}] chunks=${JSON.stringify(chunks).slice(0, 800)}\n` + describe(d, want, got),
      );
    }
  });
}
