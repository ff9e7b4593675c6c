'use strict';
// The held source of an open block (issue 14, item 5): past its first 64K characters it is kept
// outside the JS heap, one byte per character while it can be, and must come back exactly as
// written, whatever the characters and wherever the chunks were cut. The memory figures themselves
// are `scripts/bench/memory.py --lang node`.
const test = require('node:test');
const assert = require('node:assert');
const { Sieve } = require('../..');

const INV = '<|DSML|invoke name="a"><|DSML|parameter name="p">1</|DSML|parameter></|DSML|invoke>';
const LONG = 5000; // invokes: well past the 64K characters kept as strings

function invoke(value) {
  return `<|DSML|invoke name="a"><|DSML|parameter name="p">${value}</|DSML|parameter></|DSML|invoke>`;
}

function feedAll(text, size) {
  const s = new Sieve();
  const events = [];
  for (let i = 0; i < text.length; i += size) events.push(...s.feed(text.slice(i, i + size)));
  events.push(...s.flush());
  return events;
}

function blocks(events) {
  return events.filter((e) => e.type === 'tool_calls');
}

test('the source of a long block comes back exactly', () => {
  const text = '<|DSML|tool_calls>' + (INV + ' \n\t ').repeat(LONG) + '</|DSML|tool_calls>';
  for (const size of [1, 7, 4096, 70000, 200000, text.length]) {
    const got = blocks(feedAll(text, size));
    assert.strictEqual(got.length, 1, `chunks of ${size}`);
    assert.strictEqual(got[0].raw, text, `chunks of ${size}`);
    assert.strictEqual(got[0].calls.length, LONG);
  }
});

test('characters above U+007F, above U+00FF, a BOM, NUL and lone surrogates in a long block are kept', () => {
  const values = ['caf\u00e9 \u00ff\u0080', '\u0100 a', '\ufeffbom', 'a\ud83d\ude00b', 'lone \ud800 high', 'lone \udc00 low', '\u0000nul'];
  for (const v of values) {
    for (const where of ['everywhere', 'late']) {
      const text =
        where === 'everywhere'
          ? '<|DSML|tool_calls>' + (INV + invoke(v)).repeat(LONG / 2) + '</|DSML|tool_calls>'
          : '<|DSML|tool_calls>' + INV.repeat(LONG) + invoke(v) + INV.repeat(LONG / 2) + '</|DSML|tool_calls>';
      for (const size of v[0] === 'c' ? [3, 5000, 65536] : [5000, 65536]) {
        const got = blocks(feedAll(text, size));
        const what = `${JSON.stringify(v)} ${where} in chunks of ${size}`;
        assert.strictEqual(got.length, 1, what);
        assert.strictEqual(got[0].raw, text, what);
        if (v[0] === 'c') assert.strictEqual(got[0].calls[where === 'late' ? LONG : 1].input.p, v, what);
      }
    }
  }
});

test('an unfinished long block comes back as text exactly', () => {
  const text = '<|DSML|tool_calls>' + (INV + invoke('\u00e9\u00ff')).repeat(LONG / 2) + '<|DSML|invoke name="b">';
  for (const size of [1, 9, 100000]) {
    const events = feedAll(text, size);
    assert.strictEqual(blocks(events).length, 0);
    assert.strictEqual(events.map((e) => e.text).join(''), text, `chunks of ${size}`);
  }
});
