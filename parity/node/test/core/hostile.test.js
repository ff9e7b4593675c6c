'use strict';
// Hostile inputs (mirror of python/tests/core/test_hostile.py): each is streamed in 16-character
// chunks and must finish without throwing, lose nothing, and keep the work counter (characters
// the scanner was exposed to) under a small constant times the input size.
const test = require('node:test');
const assert = require('node:assert');
const { Sieve, parse } = require('../..');

const block = (name, value) =>
  `<|DSML|tool_calls><|DSML|invoke name="x"><|DSML|parameter name="${name}">${value}` +
  '</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>';
const code = (size) => {
  const line = 'if (a < b && c > d) { x = y << 2; } // <br/> ]] > done\n';
  return line.repeat(Math.ceil(size / line.length)).slice(0, size);
};

const HOSTILE = {
  'one million <': () => '<'.repeat(1_000_000),
  '200,000 backticks': () => '`'.repeat(200_000),
  '100,000 separate backticks': () => '` '.repeat(100_000),
  '100,000 nested item elements': () => block('items', '<item>'.repeat(100_000) + 'x' + '</item>'.repeat(100_000)),
  'unclosed CDATA of 10 MB': () => block('content', '<![CDATA[' + code(10_000_000)).split('</|DSML|param')[0],
  '10,000 parameters in one invoke': () =>
    '<|DSML|tool_calls><|DSML|invoke name="x">' +
    Array.from({ length: 10_000 }, (_, i) => `<|DSML|parameter name="p${i}">${i}</|DSML|parameter>`).join('') +
    '</|DSML|invoke></|DSML|tool_calls>',
  'JSON nested 100,000 deep': () => block('q', '['.repeat(100_000) + ']'.repeat(100_000)),
  'one million unclosed openers': () => '<|DSML|tool_calls>'.repeat(1_000_000),
  '200,000 bare invokes': () => '<invoke name="a">'.repeat(200_000),
  'unclosed CDATA openers in nested captures': () =>
    '<tool_calls><invoke name="a"><parameter name="p"><![CDATA[xxxxxxxxxx'.repeat(20_000),
  'stray backticks before wrapper mentions': () => '` a <tool_calls> b '.repeat(50_000),
  'nested CDATA openers': () => block('q', '<![CDATA['.repeat(100_001)),
  '100,000 spaces inside a tag after an attribute name': () => '<tool_calls x="1" a' + ' '.repeat(100_000) + '=1>',
  '100,000 zero-width characters after a CDATA end': () =>
    block('q', '<![CDATA[x]]><' + '\u200b'.repeat(100_000) + '/parameter>'),
  'W1 1 MB CDATA of code lines': () => block('content', '<![CDATA[' + code(1_000_000) + ']]>'),
  'W4 one block with 200 invokes': () =>
    '<|DSML|tool_calls>\n' +
    Array.from({ length: 200 }, (_, i) => `<|DSML|invoke name="read"><|DSML|parameter name="path">f${i}</|DSML|parameter></|DSML|invoke>\n`).join('') +
    '</|DSML|tool_calls>',
  'W6 1 MB plain parameter': () => block('body', code(1_000_000).replace(/</g, '&lt;')),
  'W7 1,000 small blocks in prose': () =>
    Array.from({ length: 1000 }, (_, i) => `Step ${i}.\n` + block('path', `f${i}.txt`) + '\n').join(''),
  'one million call-begin markers': () => '<\uff5ctool\u2581call\u2581begin\uff5c>'.repeat(1_000_000),
  'one million native DSML prefixes': () => '<\uff5cDSML\uff5c'.repeat(1_000_000),
  // issue 14: each block needed the one repair of its own, and each repair rescanned the rest
  '2,000 blocks each holding a lone CDATA opener': () =>
    '<tool_calls><invoke name="a"><parameter name="p"><![CDATA[x <![CDATA[ y]]></parameter></invoke></tool_calls>\n'.repeat(2000),
};

function stream(text, size) {
  const s = new Sieve();
  const events = [];
  for (let i = 0; i < text.length; i += size) events.push(...s.feed(text.slice(i, i + size)));
  events.push(...s.flush());
  return [events, s.work];
}

for (const [name, make] of Object.entries(HOSTILE)) {
  test(`hostile: ${name}`, () => {
    const text = make();
    const [events, work] = stream(text, 16);
    const rebuilt = events.map((e) => (e.type === 'text' ? e.text : e.raw)).join('');
    assert.ok(rebuilt === text, 'text + raw must reproduce the input');
    const chunks = Math.ceil(text.length / 16);
    assert.ok(work <= 4 * text.length + 64 * chunks, `work ${work} for ${text.length} characters`);
  });
}

test('hostile: deep JSON stays a string', () => {
  const value = '['.repeat(100_000) + ']'.repeat(100_000);
  assert.deepStrictEqual(parse(block('q', value)).calls[0].input, { q: value });
});

test('hostile: every prefix of a valid block, then flush', () => {
  const text = 'Let me look.\n' + block('content', '<![CDATA[a <b> ]] c\n```\n]]></x>\n```\n]]>') + '\nDone.';
  assert.strictEqual(stream(text, 7)[0].filter((e) => e.type === 'tool_calls').length, 1);
  for (let i = 0; i <= text.length; i++) {
    const prefix = text.slice(0, i);
    const [events, work] = stream(prefix, 5);
    assert.strictEqual(events.map((e) => (e.type === 'text' ? e.text : e.raw)).join(''), prefix);
    assert.ok(work <= 4 * prefix.length + 64 * (Math.floor(prefix.length / 5) + 1));
  }
});

test('an unmatched code span holds at most maxCaptureChars (issue 14.1)', () => {

  for (const size of [1, 5, 4096]) {
    const s = new Sieve({ maxCaptureChars: 1000 });
    let emitted = 0;
    const count = (evs) => {
      for (const e of evs) if (e.type === 'text') emitted += e.text.length;
    };
    count(s.feed('`x`` '));
    let fed = 5;
    let biggest = 0;
    const words = 'word '.repeat(20000);
    for (let i = 0; i < words.length; i += size) {
      const piece = words.slice(i, i + size);
      count(s.feed(piece));
      fed += piece.length;
      biggest = Math.max(biggest, fed - emitted);
    }
    count(s.flush());
    assert.strictEqual(emitted, fed);
    assert.ok(biggest <= 1000 + size + 8, `held ${biggest} characters`);
  }
});

// R16 in the R17 formats (D62): the taps read each block as it arrives; with streamArguments they
// must stay as linear as the block engine that holds the block (python/tests/core/test_hostile.py).
const STREAMED = {
  'Qwen3-Coder value of one million <': () => '<tool_call>\n<function=f>\n<parameter=p>\n' + '<'.repeat(1_000_000),
  'Qwen3-Coder 10,000 parameters': () =>
    '<tool_call>\n<function=f>\n' +
    Array.from({ length: 10_000 }, (_, i) => `<parameter=p${i}>\n${i}\n</parameter>\n`).join('') +
    '</function>\n</tool_call>',
  'GLM value of 100,000 partial closers': () =>
    '<tool_call>f<arg_key>k</arg_key><arg_value>' + '</arg_valu'.repeat(100_000) + '</arg_value></tool_call>',
  'GLM number-like value of one million digits': () =>
    '<tool_call>f<arg_key>k</arg_key><arg_value>' + '1'.repeat(1_000_000) + '</arg_value></tool_call>',
  'MiniMax invoke head of 100,000 blanks': () =>
    '<minimax:tool_call><invoke name="a"></invoke><invoke' + ' '.repeat(100_000) + 'name="b"></invoke></minimax:tool_call>',
  'MiniMax 10,000 invokes': () =>
    '<minimax:tool_call>' +
    Array.from({ length: 10_000 }, (_, i) => `<invoke name="f"><parameter name="p">${i}</parameter></invoke>`).join('') +
    '</minimax:tool_call>',
  'Kimi-K2 string of 200,000 escapes': () =>
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>' +
    '{"s": "' + '\\n\\u00e9'.repeat(200_000) + '"}<|tool_call_end|><|tool_calls_section_end|>',
  'Kimi-K2 value nested 100,000 deep': () =>
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>' +
    '{"v": ' + '['.repeat(100_000) + ']'.repeat(100_000) + '}<|tool_call_end|><|tool_calls_section_end|>',
  'Hermes object of 100,000 keys': () =>
    '<tool_call>{"name": "f", "arguments": {' +
    Array.from({ length: 100_000 }, (_, i) => `"k${i}": "${i}"`).join(', ') +
    '}}</tool_call>',
  'Harmony body of one million <|': () => '<|channel|>commentary to=functions.f<|message|>{"s": "' + '<|'.repeat(500_000) + '"}<|call|>',
  // a tap that reads no more (text after an announced call, a head past the limit) keeps no text
  'Qwen3-Coder 1 MB of text after an announced call': () =>
    '<tool_call>\n<function=f>\n<parameter=p>\n1\n</parameter>\n</function>\nnote ' + 'x'.repeat(1_000_000) + '\n</tool_call>',
  'MiniMax head past the limit after an announced call': () =>
    '<minimax:tool_call><invoke name="a"></invoke><invoke' + ' '.repeat(2000) + 'y'.repeat(1_000_000) + '</minimax:tool_call>',
  'Mistral arguments of 100,000 nested objects': () =>
    '[TOOL_CALLS]f[ARGS]{"v": ' + '{"a": '.repeat(100_000) + '1' + '}'.repeat(100_000) + '}',
};

for (const [name, make] of Object.entries(STREAMED)) {
  test(`hostile, streamArguments: ${name}`, () => {
    const text = make();
    const s = new Sieve({ streamArguments: true });
    const events = [];
    for (let i = 0; i < text.length; i += 16) events.push(...s.feed(text.slice(i, i + 16)));
    events.push(...s.flush());
    assert.strictEqual(events.map((e) => (e.type === 'tool_calls' ? e.raw : e.text ?? '')).join(''), text);
    const chunks = Math.ceil(text.length / 16);
    assert.ok(s.work <= 4 * text.length + 64 * chunks, `work ${s.work} for ${text.length} characters`);
  });
}

// R17.8's bare pythonic lists (D64): the table of python/tests/core/test_hostile.py
const BARE_LISTS = {
  'one million [': () => '['.repeat(1_000_000),
  '200,000 heads that fail at their comma': () => '[alpha, '.repeat(200_000),
  '100,000 nested call heads, cut': () => '[f('.repeat(100_000),
  'a list of 20,000 calls': () => '[' + Array.from({ length: 20_000 }, (_, i) => `f${i}(a="x]", b=[1, (2,)])`).join(', ') + ']',
  'a string of one million ] and quotes': () => '[f(a="' + ']\'\\"'.repeat(250_000) + '")]',
  '100,000 lists of calls in prose': () => 'ok [f(a=1)] '.repeat(100_000),
};

for (const [name, make] of Object.entries(BARE_LISTS)) {
  test(`hostile, bare pythonic lists: ${name}`, () => {
    const text = make();
    const s = new Sieve({ preset: 'llama4' });
    const events = [];
    for (let i = 0; i < text.length; i += 16) events.push(...s.feed(text.slice(i, i + 16)));
    events.push(...s.flush());
    assert.strictEqual(events.map((e) => (e.type === 'tool_calls' ? e.raw : e.text ?? '')).join(''), text);
    const chunks = Math.ceil(text.length / 16);
    assert.ok(s.work <= 4 * text.length + 64 * chunks, `work ${s.work} for ${text.length} characters`);
  });
}
