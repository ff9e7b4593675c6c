'use strict';
/**
 * R16 for the block engine's families, step by step: what each chunk lets out. The cases of
 * python/tests/core/test_block_arguments.py, so that both ports announce calls and release value
 * characters at the same steps.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { Sieve, coalesce } = require('../../index.js');
const { HEAD_LIMIT, Value } = require('../../src/blocktap');

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'f',
      parameters: {
        type: 'object',
        properties: { n: { type: 'integer' }, s: { type: 'string' }, o: { type: ['string', 'integer'] } },
      },
    },
  },
];

/** Per chunk (and the flush), the R16 events: ['start', name], ['args', delta], ['calls', n]. */
function steps(chunks, options = {}) {
  const s = new Sieve({ streamArguments: true, ...options });
  const out = [];
  for (const c of [...chunks, null]) {
    const events = c !== null ? s.feed(c) : s.flush();
    const got = [];
    for (const e of events) {
      if (e.type === 'tool_call_start') got.push(['start', e.name]);
      else if (e.type === 'tool_call_arguments') {
        if (got.length && got[got.length - 1][0] === 'args') got[got.length - 1][1] += e.delta;
        else got.push(['args', e.delta]);
      } else if (e.type === 'tool_calls') got.push(['calls', e.calls.length]);
    }
    out.push(got);
  }
  return out;
}

const CASES = [
  [
    ['<tool_call>\n<function=f', 'x>\n<parameter=p>\n', 'ab\n', 'c\n', '</param', 'eter>\n</function>\n</tool_call>'],
    [[], [['start', 'fx']], [['args', '{"p":"ab']], [['args', '\\nc']], [], [['args', '"}'], ['calls', 1]], []],
  ],
  [
    ['<seed:tool_call><function=g>', '<parameter=p>x', 'y</parameter></function></seed:tool_call>'],
    [[['start', 'g']], [['args', '{"p":"x']], [['args', 'y"}'], ['calls', 1]], []],
  ],
  [
    ['<tool_call>f\n<arg_key>q</arg_key><arg_value>Tr', 'ee', ' house</arg_value></tool_call>'],
    [[['start', 'f']], [['args', '{"q":"Tree']], [['args', ' house"}'], ['calls', 1]], []],
  ],
  [
    ['<tool_call>f<arg_key>q</arg_key><arg_value>12', '3</arg_value>', '</tool_call>'],
    [[['start', 'f']], [['args', '{"q":123']], [['args', '}'], ['calls', 1]], []],
  ],
  [
    ['<minimax:tool_call><invoke name="a"><parameter name="p">  x ', 'y  ', '</parameter></invoke>', '</minimax:tool_call>'],
    [[['start', 'a'], ['args', '{"p":"x']], [['args', ' y']], [['args', '"}']], [['calls', 1]], []],
  ],
  [
    [
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.k:0<|tool_call_argument_begin|>',
      '{"s": "a\\',
      'u00e9b"',
      ', "n": 1',
      '}<|tool_call_end|>',
      '<|tool_calls_section_end|>',
    ],
    [[['start', 'k']], [['args', '{"s":"a']], [['args', 'éb"']], [], [['args', ',"n":1}']], [['calls', 1]], []],
  ],
  [
    ['<tool_call>{"name": "h", "arguments": {', '"s": "x', 'y"}}', '</tool_call>'],
    [[['start', 'h']], [['args', '{"s":"x']], [['args', 'y"}']], [['calls', 1]], []],
  ],
];

test('calls are announced and values stream chunk by chunk', () => {
  for (const [chunks, want] of CASES) assert.deepEqual(steps(chunks), want, JSON.stringify(chunks));
});

test('Harmony and Mistral calls are announced before their end', () => {
  let got = steps(['<|channel|>commentary to=functions.h<|message|>', '{"s": "x', 'y"}', '<|call|>'], { preset: 'gpt-oss' });
  assert.deepEqual(got, [[['start', 'h']], [['args', '{"s":"x']], [['args', 'y"']], [['args', '}'], ['calls', 1]], []]);
  got = steps(['[TOOL_CALLS]m[ARGS]{"s": "x', 'y"}', ' t'], { preset: 'mistral' });
  assert.deepEqual(got, [[['start', 'm'], ['args', '{"s":"x']], [['args', 'y"}'], ['calls', 1]], [], []]);
});

test('a schema holds a typed value and streams a string one', () => {
  const got = steps(
    ['<tool_call>\n<function=f>\n<parameter=n>\n4', '2\n</parameter>\n<parameter=s>\n4', '2\n</parameter>\n', '</function></tool_call>'],
    { tools: TOOLS },
  );
  assert.deepEqual(got, [[['start', 'f']], [['args', '{"n":42,"s":"4']], [['args', '2"']], [['args', '}'], ['calls', 1]], []]);
});

test('a string among the schema types keeps the text', () => {
  const got = steps(['<tool_call>f<arg_key>o</arg_key><arg_value>1', '2</arg_value></tool_call>'], { tools: TOOLS });
  assert.deepEqual(got, [[['start', 'f'], ['args', '{"o":"1']], [['args', '2"}'], ['calls', 1]], []]);
});

test('Hermes arguments before the name come with the block', () => {
  const got = steps(['<tool_call>{"arguments": {"s": "x"},', ' "name": "h"}', '</tool_call>']);
  assert.deepEqual(got, [[], [], [['start', 'h'], ['args', '{"s":"x"}'], ['calls', 1]], []]);
});

test('Llama JSON calls stream and R9 JSON calls come whole (D38)', () => {
  const chunks = ['Ok {"name": "f", "parameters": {', '"s": "ab', 'c", "n": 1', '}} done'];
  assert.deepEqual(steps(chunks, { preset: 'llama3' }), [
    [['start', 'f']],
    [['args', '{"s":"ab']],
    [['args', 'c"']],
    [['args', ',"n":1}'], ['calls', 1]],
    [],
  ]);
  assert.deepEqual(steps(chunks, { jsonToolCalls: true }), [[], [], [], [['start', 'f'], ['args', '{"s":"abc","n":1}'], ['calls', 1]], []]);
});

test('a broken Llama JSON call ends at once and the rest of its JSON is text as it comes (R16.3, D37)', () => {
  const s = new Sieve({ streamArguments: true, preset: 'llama3' });
  const first = s.feed('{"name": "f", "parameters": {"a": 1, "a": 2');
  const kinds = first.map((e) => e.type).filter((k, i, a) => k !== 'tool_call_arguments' || a[i - 1] !== k);
  assert.deepEqual(kinds, ['tool_call_start', 'tool_call_arguments', 'tool_calls', 'text']);
  assert.equal(first[first.length - 1].text, '"a": 2');
  assert.deepEqual(s.feed('}} {"x": 1}').map((e) => [e.type, e.text]), [['text', '}} {"x": 1}']]);
  assert.deepEqual(s.flush(), []);
});

test('a break ends the block at once and the rest is text as it comes', () => {
  const s = new Sieve({ streamArguments: true });
  const first = s.feed('<tool_call>\n<function=f>\n<parameter=p>\n1\n</parameter>\nstray');
  const kinds = first.map((e) => e.type).filter((k, i, a) => k !== 'tool_call_arguments' || a[i - 1] !== k);
  assert.deepEqual(kinds, ['tool_call_start', 'tool_call_arguments', 'tool_calls', 'text']);
  assert.equal(first[first.length - 1].text, 'stray');
  assert.deepEqual(s.feed(' words</tool_call>').map((e) => [e.type, e.text]), [['text', ' words</tool_call>']]);
});

test('a MiniMax head too long to decide stops announcing and the block still reads', () => {
  const text = '<minimax:tool_call><invoke name="a"></invoke><invoke' + ' '.repeat(HEAD_LIMIT + 8) + 'name="b"></invoke></minimax:tool_call>';
  const s = new Sieve({ streamArguments: true });
  const events = [];
  for (const c of text) events.push(...s.feed(c));
  events.push(...s.flush());
  assert.deepEqual(
    events.filter((e) => e.type !== 'tool_call_arguments').map((e) => [e.type, e.name ?? null]),
    [['tool_call_start', 'a'], ['tool_call_start', 'b'], ['tool_calls', null]],
  );
});

test('value pieces', () => {
  const cases = [
    [1, ['\r', '\nab\r', '\n', 'c\n'], ['', 'ab', '', '\r\nc']],
    [1, ['\rx'], ['\rx']],
    [2, ['  ', ' a ', ' ', 'b '], ['', 'a', '', '  b']],
    [3, [' Tr', 'ue'], ['', '']],
    [3, [' Tr', 'ue x'], ['', ' True x']],
    [3, ['\u00a0tr'], ['\u00a0tr']],
    [3, ['-1', 'e5', 'x'], ['', '', '-1e5x']],
    [3, ['{"a"', 'x'], ['', '']],
  ];
  for (const [how, pieces, want] of cases) {
    const v = new Value(how);
    assert.deepEqual(pieces.map((p) => v.add(p)), want, JSON.stringify(pieces));
  }
});

test('a name of 256 astral characters is announced, one of 257 is not', () => {
  for (const [n, announced] of [[256, true], [257, false]]) {
    const name = '\u{1F600}'.repeat(n);
    const got = steps([`<tool_call>\n<function=${name}>\n<parameter=p>\nx\n</parameter>\n</function>\n</tool_call>`]);
    assert.equal(got[0].some((e) => e[0] === 'start'), announced, String(n));
  }
});

test('the capture limit stops applying once a call is announced (D37, D62)', () => {
  const x = 'x'.repeat(200);
  const cases = [
    [`<tool_call>\n<function=f>\n<parameter=p>\n${x}\n</parameter>\n</function>\n</tool_call>`, {}],
    [`<|channel|>commentary to=functions.f<|message|>{"p": "${x}"}<|call|>`, { preset: 'gpt-oss' }],
    [`[TOOL_CALLS]f[ARGS]{"p": "${x}"} `, { preset: 'mistral' }],
    [`{"name": "f", "parameters": {"p": "${x}"}} `, { preset: 'llama3' }],
  ];
  for (const [text, options] of cases) {
    const s = new Sieve({ streamArguments: true, maxCaptureChars: 50, ...options });
    const events = [];
    for (let i = 0; i < text.length; i += 16) events.push(...s.feed(text.slice(i, i + 16)));
    events.push(...s.flush());
    const calls = events.filter((e) => e.type === 'tool_calls').flatMap((e) => e.calls);
    assert.deepEqual(calls.map((c) => c.input), [{ p: x }], text);
    assert.ok(!events.some((e) => e.note === 'capture_limit'), text);
  }
});

test('whether a call is announced before the limit does not depend on chunks (D43, D62)', () => {
  const text =
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0' +
    '<|tool_call_argument_begin|>{"a": "b"}<|tool_call_end|>\n<|tool_calls_section_end|>';
  for (const limit of [40, 69, 70, 120]) {
    const got = [];
    for (const chunks of [[text], [...text]]) {
      const s = new Sieve({ streamArguments: true, maxCaptureChars: limit });
      const events = [];
      for (const c of chunks) events.push(...s.feed(c));
      events.push(...s.flush());
      got.push(JSON.stringify(coalesce(events).map((e) => [e.type, e.text ?? e.name ?? e.delta ?? null])));
    }
    assert.equal(got[0], got[1], String(limit));
    assert.equal(got[0].includes('tool_call_start'), limit >= 70, String(limit)); // (the body to the argument marker is 70 characters)
  }
});
