'use strict';
// Every hold is bounded (R8.3, issue 14; mirror of python/tests/test_holds.py): after an opener of
// each kind, a long run of input holds at most maxCaptureChars (plus a tag's lookahead), and the
// heap stays flat while it goes on. The true 50 MB runs are `scripts/bench/memory.py --holds`.
const test = require('node:test');
const assert = require('node:assert');
const v8 = require('node:v8');
const vm = require('node:vm');
const { Sieve } = require('../..');

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const LIMIT = 1000;
const SLACK = 1100; // a pending tag's bounded lookahead (shell MAX_TAG and its attribute value)
const W = '<|DSML|tool_calls>';
const INV = W + '<|DSML|invoke name="a">';
const PAR = INV + '<|DSML|parameter name="p">';
const SEC = '<\uff5ctool\u2581calls\u2581begin\uff5c>';

// construct -> [opener, filler unit repeated after it]
const CONSTRUCTS = {
  'inline code span': ['`x`` ', 'word '],
  'inline code span holding a wrapper': ['`x <tool_calls> ', 'word '],
  'tag: spaces after an attribute name': ['<tool_calls x="1" a', ' '],
  'tag: attribute value': ['<|DSML|invoke name="', 'a'],
  'wrapper interior': [W, '\n'],
  'invoke interior': [INV, ' '],
  'parameter body': [PAR, 'word '],
  'parameter body full of angles': [PAR, 'a < b '],
  'nested item elements': [PAR, '<item>'],
  CDATA: [PAR + '<![CDATA[', 'code line\n'],
  'fenced closers inside a CDATA': [PAR + '<![CDATA[\n```\n', ']]></|DSML|parameter>\n'],
  'nested CDATA openers': [PAR + '<![CDATA[', '<![CDATA[ '],
  'blanks after a CDATA end': [PAR + '<![CDATA[x]]>', ' '],
  'bare invoke (missing wrapper)': ['<invoke name="a">', ' '],
  'parameters past the limit': [INV, '<|DSML|parameter name="p">1</|DSML|parameter>'],
  'invokes past the limit': [W, '<|DSML|invoke name="a"></|DSML|invoke>'],
  'malformed invokes past the limit': [
    '<\uff5cDSML\uff5cfunction_calls>',
    '<\uff5cDSML\uff5cinvoke name="a"></\uff5cDSML\uff5cparameter></\uff5cDSML\uff5cinvoke>', // (a stray closer)
  ],
  'JSON invoke body': [INV + '{', '"k": 1, '],
  'native string parameter': [
    '<\uff5cDSML\uff5cfunction_calls><\uff5cDSML\uff5cinvoke name="a"><\uff5cDSML\uff5cparameter name="p" string="true">',
    'a < b ',
  ],
  fence: ['```\n', 'word\n'],
  'token section between calls': [SEC, ' '],
  'token call body': [SEC + '<\uff5ctool\u2581call\u2581begin\uff5c>f<\uff5ctool\u2581sep\uff5c>{', '"k": 1, '],
  'token calls past the limit': [
    SEC,
    '<\uff5ctool\u2581call\u2581begin\uff5c>f<\uff5ctool\u2581sep\uff5c>{}<\uff5ctool\u2581call\u2581end\uff5c>',
  ],
  'JSON call in prose (R9)': ['{"tool_calls": [', '{"a": 1}, '],
  'JSON string in prose (R9)': ['{"name": "', 'word '],
  'CDATA in prose': ['<![CDATA[', '<tool_calls> '],
  'HTML comment': ['<!--', '<tool_calls> '],
  'pre block': ['<pre>\n', '<tool_calls>\n'],
};

const outLen = (events) => events.reduce((n, e) => n + (e.type === 'text' ? e.text.length : e.raw.length), 0);

/**
 * Feed the opener, then `unit` repeated to `total` characters in chunks of `size`; return the
 * most characters held after a feed and the heap growth (after a GC) from the first third of the
 * run to its end.
 */
function run(opener, unit, total, size, measure = false) {
  const s = new Sieve({ maxCaptureChars: LIMIT, jsonToolCalls: true });
  let fed = opener.length;
  let emitted = outLen(s.feed(opener));
  const filler = unit.repeat(Math.floor(total / unit.length) + 1);
  let held = 0;
  let early = 0;
  for (let i = 0; i < total; i += size) {
    if (measure && i >= total / 3 && !early) {
      gc();
      gc();
      early = process.memoryUsage().heapUsed;
    }
    const chunk = filler.slice(i, i + size);
    emitted += outLen(s.feed(chunk));
    fed += chunk.length;
    held = Math.max(held, fed - emitted);
  }
  let grown = 0;
  if (measure) {
    gc();
    gc();
    grown = process.memoryUsage().heapUsed - early;
  }
  emitted += outLen(s.flush());
  assert.strictEqual(emitted, fed); // nothing lost
  return [held, grown];
}

for (const [name, [opener, unit]] of Object.entries(CONSTRUCTS)) {
  test(`holds: ${name}: a long run after the opener holds at most the limit`, () => {
    for (const size of [1, 7, 4096]) {
      const [held] = run(opener, unit, size === 1 ? 5000 : 30000, size);
      assert.ok(held <= LIMIT + SLACK, `held ${held} characters in chunks of ${size}`);
    }
  });

  test(`holds: ${name}: the heap stays flat`, () => {
    // 600,000 characters: what was kept per parameter or call past the limit grew it by 0.7 to
    // 1.2 MB. A short run first, so that compiled code does not count; the smaller of two
    // measured runs, since a busy machine's GC timing only ever adds (a leak shows in both).
    run(opener, unit, 50000, 4096);
    const grown = Math.min(run(opener, unit, 600000, 4096, true)[1], run(opener, unit, 600000, 4096, true)[1]);
    assert.ok(grown < 384 * 1024, `heap grew by ${grown} bytes`);
  });
}

// Found by the fuzzer with a small limit (scripts/fuzz.py, LIMIT): whether the released text of a
// block that ends past the limit carried the note depended on where a chunk ended.
const PAST_LIMIT = [
  '<\uff5cDSML\uff5cfunction_calls>\n<\uff5cDSML\uff5cinvoke name="echo">\n<\uff5cDSML\uff5cparameter name="v" ' +
    'string="true">[1, 2, 3]</\uff5cDSML\uff5cparameter\u201c>\n</\uff5cDSML\uff5cinvoke>\n</\uff5cDSML\uff5cfunction_calls>',
  '<|DSML|tool_calls>\n<|DSML|invoke name="update_issue">\n  <|DSML|parameter name="issue">#412' +
    '</|Drameter>\n  <|DSML|parameter name="assignee">null</|DSML|parameter>\n</|DSML|i\n</|DSML|tool_calls>',
  'Using <|DSML|tool_calls>: <|DSML|tool_calls><|DSML|invoke name="read_file"><|DSML|parameter ' +
    'name="path">app.js=</|DSML|param`eter/|DSML|invoke></|DSML|tool_calls>',
];
const { coalesce, parse } = require('../..');

for (const [k, text] of PAST_LIMIT.entries()) {
  test(`past the limit every chunking gives the same events (${k})`, () => {
    const run = (size) => {
      const s = new Sieve({ maxCaptureChars: 97 });
      const events = [];
      for (let i = 0; i < text.length; i += size) events.push(...s.feed(text.slice(i, i + size)));
      events.push(...s.flush());
      return coalesce(events).map(({ raw, ...e }) => e);
    };
    const whole = run(text.length);
    assert.strictEqual(whole[0].note, 'capture_limit');
    for (const size of [1, 2, 3, 5, 8, 13]) assert.deepStrictEqual(run(size), whole);
  });
}

test('after a block past the limit, text resumes at its line start', () => {
  const text =
    '<tool_calls>\n<invoke name="a_tool_name_long_enough_to_take_its_block_past_sixty"></invoke>\n' +
    '```\n<tool_calls><invoke name="x"></invoke></tool_calls>\n```\n';
  assert.deepStrictEqual(parse(text, { maxCaptureChars: 60 }).calls, []);
  for (const size of [1, 7, text.length]) {
    const s = new Sieve({ maxCaptureChars: 60 });
    const events = [];
    for (let i = 0; i < text.length; i += size) events.push(...s.feed(text.slice(i, i + size)));
    events.push(...s.flush());
    assert.ok(!events.some((e) => e.type === 'tool_calls'));
  }
});

test('a backtick run at the limit of a held span is not lost (found by the fuzzer)', () => {
  const text =
    '``\u3008DSM|tool_calls!>\u3008DSM|invoke name="a b">\u3008DSM|Parameter name="1" string="true">' +
    '<![CDATA[echo `date`';
  for (let limit = 90; limit <= 100; limit++) {
    for (const size of [1, 3, text.length]) {
      const s = new Sieve({ maxCaptureChars: limit });
      const events = [];
      for (let i = 0; i < text.length; i += size) events.push(...s.feed(text.slice(i, i + size)));
      events.push(...s.flush());
      assert.strictEqual(events.map((e) => (e.type === 'tool_calls' ? e.raw : e.text)).join(''), text);
    }
  }
});

// Found by the fuzzer (seed 5): a held inline span's limit was looked at where a chunk ended inside
// its closing backtick run, so the span closed (the call after it a call) or was not a span (the
// call inside a block released past the limit) by where the chunk ended.
test("a held span's closing run cut by a chunk at the limit decides as whole", () => {
  const text =
    "~~~\n~~~\n``<dsml-tool_calls id=\"1\"><dsml-invoke name='read\nfile'></dsml-invoe>\n" +
    '<dsml-invoke name="noop">{"i``<tool_call>_';
  for (let limit = 90; limit <= 105; limit++) {
    const run = (chunks) => {
      const s = new Sieve({ maxCaptureChars: limit });
      const events = [];
      for (const c of chunks) events.push(...s.feed(c));
      events.push(...s.flush());
      return coalesce(events);
    };
    const whole = run([text]);
    for (let cut = 1; cut < text.length; cut++) {
      assert.deepStrictEqual(run([text.slice(0, cut), text.slice(cut)]), whole, `${limit} ${cut}`);
    }
  }
  assert.deepStrictEqual(parse(text, { maxCaptureChars: 97 }).calls, []);
});

test('a <pre opener at a line start is released at its blank (D41)', () => {
  for (const blank of [' ', '\t']) {
    const s = new Sieve();
    const got = ['<', 'p', 'r', 'e', blank, 'x'].map((c) => s.feed(c).map((e) => e.text));
    assert.deepStrictEqual(got, [[], [], [], [], ['<pre' + blank], ['x']]);
    assert.deepStrictEqual(s.flush(), []);
  }
});
