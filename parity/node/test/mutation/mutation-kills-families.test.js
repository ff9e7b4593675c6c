'use strict';
/**
 * Tests that tell the scanner apart from the mutants of its R17 families (the block engine, JSON
 * calls in prose): the twin of python/tests/mutation/test_mutation_kills_families.py, with the same
 * documents and expectations (R8.2 nothing lost, R8.3 release as soon as decided and the limit,
 * R8.6 chunking invariance, D37/D44).
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { coalesce } = require('../../index.js');
const { sources, runSieve, released } = require('../support.js');

const FAMILY_DOCS = [
  ['qwen3', '<tool_call>\n{"name": "get", "arguments": {"a": 1, "b": "x"}}\n</tool_call>'],
  ['qwen3', '<tool_call>{"name": "get", "arguments": {"a": 1}, "name": "again"}</tool_call>'],
  ['qwen3', '<tool_call>{"name": "a", "arguments": {}}\n{"name": "b", "arguments": {"k": [1]}}</tool_call>'],
  ['qwen3', '<tool_call>{"name": "get"</tool_call> after'],
  ['qwen3-coder', '<tool_call>\n<function=get>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>'],
  [
    'qwen3-coder',
    '<tool_call><function=><parameter=a>1</parameter></function>' +
      '<function=ok><parameter=b>2</parameter></function></tool_call>',
  ],
  ['qwen3-coder', '<tool_call><function=get><parameter=a>1</parameter><parameter=a>2</parameter></function></tool_call>'],
  ['glm-4.5', '<tool_call>get\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>'],
  [
    'glm-4.5',
    '<tool_call>get<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>' +
      '<tool_call>two<arg_key>b</arg_key><arg_value>[1]</arg_value></tool_call>',
  ],
  ['glm-4.5', '<tool_call>get<arg_key>a</arg_key>oops<arg_value>1</arg_value></tool_call>'],
  [
    'minimax-m2',
    '<minimax:tool_call>\n<invoke name="get">\n<parameter name="a">1</parameter>\n</invoke>\n</minimax:tool_call>',
  ],
  [
    'kimi-k2',
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.get:0<|tool_call_argument_begin|>' +
      '{"a": 1}<|tool_call_end|><|tool_calls_section_end|>',
  ],
  ['llama3', '{"name": "get", "parameters": {"a": 1, "b": "x"}}'],
  ['llama3', '{"name": "get", "parameters": {"a": 1}, "name": "get", "parameters": {"a": 1}}'],
  ['llama3', '{"name": "get", "parameters": {"a": 1}, "content": "x"} then {"name": "two", "parameters": {}}'],
  [
    'qwen3',
    '<tool_call>{"name": "get", "arguments": {"a": 1}</tool_call>\n' +
      '<tool_call>{"name": "two", "arguments": {}}</tool_call>',
  ],
  ['llama3', '{"name": "get", "parameters": {"a": 1},} then {"name": "two", "parameters": {}}'],
  ['llama4', "<|python_start|>[get(a=1, b='x'), two()]<|python_end|>"],
  ['llama4', '[get(a=1), two(b=[1, 2])] after'],
  ['mistral', '[TOOL_CALLS]get[ARGS]{"a": 1}'],
  ['gpt-oss', '<|channel|>commentary to=functions.get <|constrain|>json<|message|>{"a": 1}<|call|>'],
];

const run = (chunks, opts) => runSieve(chunks, opts).events;

test('a whole reply is released by its feed (R8.3)', () => {
  for (const [preset, doc] of FAMILY_DOCS) {
    for (const streamArguments of [false, true]) {
      assert.deepEqual(released([doc], { preset, streamArguments }), [doc, ''], `${preset} ${streamArguments}`);
    }
  }
});

test('every prefix loses nothing, has no empty text and keeps its types', () => {
  for (const [preset, doc] of FAMILY_DOCS) {
    for (const opts of [
      { preset },
      { preset, streamArguments: true },
      { preset, streamArguments: true, maxCaptureChars: 40 },
      { preset, maxCaptureChars: 12 },
    ]) {
      for (let k = 1; k <= doc.length; k++) {
        const events = run([doc.slice(0, k)], opts);
        const where = `${preset} ${JSON.stringify(opts)} ${k}`;
        assert.equal(sources(events), doc.slice(0, k), where);
        events.forEach((e, i) => {
          if (e.type === 'text') assert.ok(e.text.length > 0, where);
          if (e.type !== 'tool_calls') return;
          assert.ok(Array.isArray(e.calls) && typeof e.raw === 'string', where);
          for (const f of ['rejectedToolNames', 'malformed', 'repaired']) {
            assert.ok(e[f] === undefined || Array.isArray(e[f]), `${where} ${f}`);
          }
          if ((e.repaired || []).includes('D44')) {
            assert.equal(sources(events.slice(i + 1)), '', where); // (cut by the end)
          }
        });
      }
    }
  }
});

test('every two-chunk split under a small limit is the whole (R8.3, R8.6)', () => {
  for (const [preset, doc] of FAMILY_DOCS) {
    for (const maxCaptureChars of [12, 13, 40]) {
      for (const streamArguments of [false, true]) {
        const opts = { preset, maxCaptureChars, streamArguments };
        const whole = coalesce(run([doc], opts));
        for (let k = 1; k < doc.length; k++) {
          const got = coalesce(run([doc.slice(0, k), doc.slice(k)], opts));
          assert.deepEqual(got, whole, `${preset} ${maxCaptureChars} ${streamArguments} ${k}`);
        }
      }
    }
  }
});

test('after a JSON call breaks, its rest is released as it comes (R9, D37, D43)', () => {
  const doc = '{"name": "get", "parameters": {"a": 1}, "name": "get", "parameters": {"a": 1}}';
  const brk = doc.indexOf('"', doc.indexOf('"name"', 10) + 7) + 1;
  const got = released([...doc], { preset: 'llama3', streamArguments: true });
  assert.deepEqual(got, [...Array(brk - 1).fill(''), doc.slice(0, brk), ...doc.slice(brk), '']);
});

test('after a block breaks, its rest is released as it comes (R16.3, D43)', () => {
  const doc = '<tool_call>{"name": "get", "arguments": {"a": 1}, "name": "again"}</tool_call>';
  const brk = doc.indexOf('"', doc.indexOf('"name": "again"') + 7) + 1;
  const end = doc.length - '</tool_call>'.length;
  const got = released([...doc], { preset: 'qwen3', streamArguments: true });
  assert.deepEqual(got.slice(0, brk), [...Array(brk - 1).fill(''), doc.slice(0, brk)]);
  assert.deepEqual(got.slice(brk, end), [...doc.slice(brk, end)]);
  assert.deepEqual(got.slice(end), [...Array(11).fill(''), '</tool_call>', '']);
});

test('D44 names a block cut with its calls complete, D37 one cut inside a call', () => {
  const coder = '<tool_call><function=><parameter=a>1</parameter></function><function=ok>';
  const hermes = '<tool_call>\n{"name": "get", "arguments": {"';
  for (const [doc, preset, want] of [
    [coder, 'qwen3-coder', ['D44']],
    [hermes, 'qwen3', ['D37']],
  ]) {
    for (const chunks of [[doc], [...doc]]) {
      const blocks = run(chunks, { preset, streamArguments: true }).filter((e) => e.type === 'tool_calls');
      assert.deepEqual(blocks.map((e) => e.repaired), [want], doc);
    }
  }
  const blocks = run([coder], { preset: 'qwen3-coder', streamArguments: true }).filter((e) => e.type === 'tool_calls');
  assert.deepEqual(blocks.flatMap((e) => e.malformed.map((m) => m.reason)), ['invalid name']);
});

test('a block is released when its body passes the limit (R8.3)', () => {
  const opener = '<tool_call>';
  const doc = opener + '\n{"name": "get", "arguments": {"a": 1, "b": "x"}}\n</tool_call>';
  for (const maxCaptureChars of [12, 20]) {
    const [first] = run([...doc], { preset: 'qwen3', maxCaptureChars });
    assert.equal(first.type, 'text');
    assert.equal(first.note, 'capture_limit');
    assert.equal(first.text, doc.slice(0, opener.length + maxCaptureChars + 1));
  }
});

// [preset, opener, body, closer, the values its tap decodes (null: no row of the opener reads a body
// that starts so (D45), so no tap is made), the malformed calls read again when the block is kept to
// its announced call (null: the grammar reads the whole body instead)]
const WORK_BLOCKS = [
  ['glm-4.5', '<tool_call>', 'get<arg_key>a</arg_key><arg_value>1</arg_value>', '</tool_call>', '1', null],
  ['glm-4.5', '<tool_call>', '{bad json', '</tool_call>', null, null],
  ['qwen3-coder', '<tool_call>', '<function=get><parameter=a>1</parameter></function>', '</tool_call>', '1', null],
  ['qwen3-coder', '<tool_call>', '\n<function=', '', '', null],
  ['minimax-m2', '<minimax:tool_call>', '   ', '</minimax:tool_call>', '', null], // (one bodiless row)
  ['qwen3-coder', '<tool_call>', '\n<function=get>\n<', '', '', '\n'],
  [
    'minimax-m2',
    '<minimax:tool_call>',
    '<invoke name="get"><parameter name="q">x</parameter></invoke>',
    '</minimax:tool_call>',
    'x',
    null,
  ],
];

test('the work of a block fed whole', () => {
  // The scanner's share of the work counter, pinned exactly: each character fed is scanned once
  // and the body read once more by its grammar; with streamed arguments the tap reads the body
  // once and each value it decodes, and a block kept to its announced call (D37) has its grammar
  // read only what stands before that call.
  const work = (doc, opts) => runSieve([doc], opts).work;
  for (const [preset, opener, body, closer, values, before] of WORK_BLOCKS) {
    const doc = opener + body + closer;
    assert.equal(work(doc, { preset }), doc.length + body.length, doc);
    const tap = values === null ? 0 : body.length + values.length;
    const grammar = before === null ? body.length : before.length;
    assert.equal(work(doc, { preset, streamArguments: true }), doc.length + tap + grammar, doc);
  }
});

test('a JSON call feeds its tap only new characters', () => {
  // The work counter pinned exactly for a Llama call fed one character at a time: a \u escape
  // cut by a chunk's end waits in the tap until it is whole; a step that fed the tap an empty
  // piece would join what it holds once more at each character.
  const work = (doc) => runSieve([...doc], { preset: 'llama3', streamArguments: true }).work;
  const plain = '{"name": "get", "parameters": {"a": "ABCDEF"}}';
  const one = '{"name": "get", "parameters": {"a": "\\u0041"}}';
  const two = '{"name": "get", "parameters": {"a": "\\u0041\\u0041"}}';
  assert.deepEqual([plain, one, two].map(work), [170, 180, 214]);
});
