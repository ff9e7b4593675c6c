'use strict';
/** The public API: shapes, misuse errors, ESM entry, driver protocol. */

const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { test } = require('node:test');

const callsieve = require('../../index.js');

const { parse, Sieve, coalesce, CallsieveError, InputTypeError, SieveClosedError, OptionsError } = callsieve;

const BLOCK = '<tool_calls><invoke name="ls"><parameter name="path">.</parameter></invoke></tool_calls>';

test('parse result shape', () => {
  assert.deepEqual(parse('a ' + BLOCK + ' b', { toolNames: ['ls'] }), {
    calls: [{ name: 'ls', input: { path: '.' } }],
    sawToolCallSyntax: true,
    rejectedByPolicy: false,
    rejectedToolNames: [],
    text: 'a  b', // the prose too (issue 40 item 6)
  });
  assert.deepEqual(parse(''), { calls: [], sawToolCallSyntax: false, rejectedByPolicy: false, rejectedToolNames: [], text: '' });
  const r = parse('<think>hm</think>Sure. ' + BLOCK + ' Done.');
  assert.equal(r.text, 'Sure.  Done.');
  assert.equal(r.reasoning, 'hm');
  assert.deepEqual(parse('x', undefined).calls, []);
  assert.deepEqual(parse('x', null).calls, []);
  assert.deepEqual(parse('x', {}).calls, []);
  assert.deepEqual(parse('x', { toolNames: new Set(['a']) }).calls, []);
});

test('Sieve events: text and tool_calls with raw; coalesce', () => {
  const s = new Sieve({ toolNames: ['ls'] });
  const events = [...s.feed('hi '), ...s.feed(BLOCK.slice(0, 20)), ...s.feed(BLOCK.slice(20) + ' bye'), ...s.flush()];
  assert.deepEqual(coalesce(events), [
    { type: 'text', text: 'hi ' },
    { type: 'tool_calls', calls: [{ name: 'ls', input: { path: '.' } }], raw: BLOCK, format: 'dsml' },
    { type: 'text', text: ' bye' },
  ]);
  assert.equal(s.sawToolCallSyntax, true);
  assert.deepEqual(s.toolNames, ['ls']);
  assert.deepEqual(coalesce([{ type: 'text', text: '' }, { type: 'text', text: 'a' }, { type: 'text', text: 'b' }]), [
    { type: 'text', text: 'ab' },
  ]);
  assert.deepEqual(new Sieve().feed(''), []);
});

test('errors: hierarchy', () => {
  for (const E of [InputTypeError, SieveClosedError, OptionsError]) {
    const e = new E('m');
    assert.ok(e instanceof CallsieveError);
    assert.ok(e instanceof Error);
    assert.equal(e.name, E.name);
    assert.equal(e.message, 'm');
  }
});

test('misuse: non-string text or chunk', () => {
  for (const bad of [undefined, null, 1, Buffer.from('x'), ['x'], { text: 'x' }]) {
    assert.throws(() => parse(bad), InputTypeError);
    assert.throws(() => new Sieve().feed(bad), InputTypeError);
  }
});

test('misuse: bad toolNames and options', () => {
  assert.throws(() => parse('x', { toolNames: 'ls' }), InputTypeError);
  assert.throws(() => parse('x', { toolNames: [1] }), InputTypeError);
  assert.throws(() => parse('x', { toolNames: 5 }), InputTypeError);
  assert.throws(() => new Sieve({ toolNames: [null] }), InputTypeError);
  assert.throws(() => new Sieve('ls'), InputTypeError);
  assert.throws(() => new Sieve({ tool_names: ['ls'] }), OptionsError);
  assert.throws(() => parse('x', { unknownTools: 'drop' }), OptionsError);
  assert.throws(() => new Sieve({ tools: { name: 'ls' } }), InputTypeError);
});

test('declared tools: rejected names accumulate on the sieve (D22)', () => {
  const block = (n) => `<|DSML|tool_calls><|DSML|invoke name="${n}"></|DSML|invoke></|DSML|tool_calls>`;
  const s = new Sieve({ toolNames: ['ls'], unknownTools: 'reject' });
  const events = [...s.feed(block('fly') + block('LS')), ...s.flush()].filter((e) => e.type === 'tool_calls');
  assert.deepEqual(
    events.map((e) => ({ calls: e.calls, rejected: e.rejectedToolNames })),
    [
      { calls: [], rejected: ['fly'] },
      { calls: [{ name: 'ls', input: {} }], rejected: undefined },
    ],
  );
  assert.deepEqual(s.rejectedToolNames, ['fly']);
  assert.deepEqual(s.toolNames, ['ls']);
});

test('options: jsonToolCalls (R9) and maxCaptureChars', () => {
  const json = 'Calling {"name": "ls", "input": {"path": "."}} now';
  assert.deepEqual(parse(json).calls, []);
  assert.deepEqual(parse(json, { jsonToolCalls: true }).calls, [{ name: 'ls', input: { path: '.' } }]);
  assert.throws(() => parse('x', { jsonToolCalls: 'yes' }), InputTypeError);
  assert.throws(() => parse('x', { maxCaptureChars: 1.5 }), InputTypeError);
  assert.throws(() => parse('x', { maxCaptureChars: '10' }), InputTypeError);
  assert.throws(() => parse('x', { maxCaptureChars: true }), InputTypeError);
  assert.throws(() => parse('x', { maxCaptureChars: 0 }), OptionsError);
  // a block longer than maxCaptureChars is released as text, with a note
  const s = new Sieve({ maxCaptureChars: 20 });
  const events = coalesce([...s.feed('a ' + BLOCK), ...s.flush()]);
  assert.equal(events.map((e) => (e.type === 'text' ? e.text : e.raw)).join(''), 'a ' + BLOCK);
  assert.ok(events.every((e) => e.type === 'text'));
  assert.ok(events.some((e) => e.note === 'capture_limit'));
  // the work counter grows with the input
  assert.ok(s.work >= BLOCK.length);
});

// Found by mutation testing (as python/tests/core/test_limits.py): a JSON candidate past the limit was
// still a call when one step read it whole, and text when fed one character at a time. The limit
// counts code points, as Python does (the last candidate has surrogate pairs).
test('a JSON candidate is a call exactly when it fits maxCaptureChars, in every chunking', () => {
  const texts = [
    '{"name": "f", "input": {}' + ' '.repeat(10) + '}',
    'x {"tool_calls": [{"name": "f", "input": {"a": "<tool_calls><invoke name=\\"g\\"></invoke></tool_calls>"}}]} y',
    'say {"name": "f", "arguments": "{\\"q\\": \\"a\\\\\\\\b\\"}"} ok',
    'x {"name": "f\u{1F600}\u{1F600}", "input": {"a": "\u{1F600}\u{1F600}\u{1F600}"}} \u{1F600} y',
  ];
  const run = (text, limit, size) => {
    const s = new Sieve({ maxCaptureChars: limit, jsonToolCalls: true });
    const events = [];
    for (let i = 0; i < text.length; i += size) events.push(...s.feed(text.slice(i, i + size)));
    events.push(...s.flush());
    return coalesce(events).map((e) => (e.type === 'text' ? ['text', e.text] : ['calls', e.raw]));
  };
  for (const text of texts) {
    const cand = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
    const length = [...cand].length;
    for (let limit = 1; limit <= [...text].length + 1; limit++) {
      const whole = run(text, limit, text.length);
      assert.equal(whole.some((e) => e[0] === 'calls'), limit >= length, `limit ${limit}`);
      for (const size of [1, 2, 3, 7]) assert.deepEqual(run(text, limit, size), whole, `limit ${limit}, size ${size}`);
    }
  }
});

// A family block's limit counts code points, as Python does (python/tests/core/test_limits.py has
// the same blocks): a surrogate pair counts once even when a chunk splits it, a lone surrogate once.
test("a family block's maxCaptureChars counts a surrogate as one character, wherever a chunk splits a pair", () => {
  const blocks = [
    ['qwen3', '<tool_call>{"name": "get", "arguments": {"a": "', '"}}</tool_call>'],
    ['gpt-oss', '<|start|>assistant<|channel|>commentary to=functions.get <|message|>{"a": "', '"}<|call|>'],
    ['mistral', '[TOOL_CALLS]get[ARGS]{"a": "', '"}'],
  ];
  const fills = ['\udc00'.repeat(6), '\u{1F600}'.repeat(6), '\u{1F600}\udc00\udc00\u{1F600}\ud83d\udc00x'];
  const outcome = (preset, chunks, limit) => {
    const s = new Sieve({ preset, maxCaptureChars: limit });
    const events = [];
    for (const c of chunks) events.push(...s.feed(c));
    events.push(...s.flush());
    return coalesce(events).map((e) => [e.type, e.note === undefined ? null : e.note]);
  };
  for (const [preset, before, after] of blocks) {
    for (const fill of fills) {
      const text = before + fill + after;
      const ascii = before + 'x'.repeat([...fill].length) + after;
      const seen = new Set();
      for (let limit = 1; limit <= [...text].length + 1; limit++) {
        const whole = outcome(preset, [text], limit);
        assert.deepEqual(outcome(preset, [ascii], limit), whole, `${preset} ${limit}`);
        for (let cut = before.length - 1; cut <= before.length + fill.length + 1; cut++) {
          const split = outcome(preset, [text.slice(0, cut), text.slice(cut)], limit);
          assert.deepEqual(split, whole, `${preset} ${JSON.stringify(fill)} limit ${limit}, cut ${cut}`);
        }
        seen.add(whole[0][0]);
      }
      assert.deepEqual([...seen].sort(), ['text', 'tool_calls']);
    }
  }
});

// With streamArguments the block is fed to its tap up to the limit first, so whether the call is
// announced before the limit is decided at the limit's exact code point (python/tests/core/test_limits.py).
test('with streamArguments, a block split at maxCaptureChars splits between characters, not inside a pair', () => {
  const docs = [
    ['<tool_call>{"name": "g', '", "arguments": {"a": 1}}</tool_call>'],
    ['<tool_call>{"arguments": {"a": "', '"}, "name": "get"}</tool_call>'],
  ];
  const fills = ['\udc00'.repeat(4), '\u{1F600}'.repeat(4), '\u{1F600}\udc00\udc00\u{1F600}\ud83d\udc00x', 'x\udc00\udc00\udc00'];
  const outcome = (chunks, limit) => {
    const s = new Sieve({ preset: 'qwen3', maxCaptureChars: limit, streamArguments: true });
    const events = [];
    for (const c of chunks) events.push(...s.feed(c));
    events.push(...s.flush());
    return coalesce(events).map((e) => [e.type, e.note === undefined ? null : e.note]);
  };
  for (const [before, after] of docs) {
    for (const fill of fills) {
      const text = before + fill + after;
      const ascii = before + 'x'.repeat([...fill].length) + after;
      for (let limit = 1; limit <= [...text].length + 1; limit++) {
        const whole = outcome([text], limit);
        assert.deepEqual(outcome([ascii], limit), whole, `${JSON.stringify(fill)} limit ${limit}`);
        for (let cut = before.length - 1; cut <= before.length + fill.length + 1; cut++) {
          assert.deepEqual(outcome([text.slice(0, cut), text.slice(cut)], limit), whole, `limit ${limit}, cut ${cut}`);
        }
        for (const size of [1, 2, 3]) {
          const chunks = [];
          for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
          assert.deepEqual(outcome(chunks, limit), whole, `${JSON.stringify(fill)} limit ${limit}, size ${size}`);
        }
      }
    }
  }
});

test('misuse: feed or flush after flush', () => {
  const s = new Sieve();
  s.feed('a');
  s.flush();
  assert.throws(() => s.feed('b'), SieveClosedError);
  assert.throws(() => s.flush(), SieveClosedError);
});

test('bad content never throws', () => {
  for (const text of ['<', '<tool_calls>', '<![CDATA[', '`', '```', '\ud800', '<tool_calls><invoke name="a">{"a":']) {
    assert.doesNotThrow(() => parse(text));
  }
});

test('ESM entry re-exports the API', async () => {
  const esm = await import('../../index.mjs');
  assert.equal(esm.parse, parse);
  assert.equal(esm.Sieve, Sieve);
  assert.equal(esm.coalesce, coalesce);
  assert.equal(esm.CallsieveError, CallsieveError);
  assert.equal(esm.version, '0.1.0');
});

test('driver: one response per request, errors as BadRequest, exit 0', () => {
  const lines = [
    { id: 'p', op: 'parse', text: BLOCK, options: { toolNames: ['ls'] } },
    { id: 's', op: 'stream', chunks: ['a<tool_', 'calls><invoke name="x"></invoke></tool_calls>b'] },
    { id: 'u', op: 'parse', text: 'x', options: { bogus: 1 } },
    { id: 'o', op: 'nope' },
    { id: 't', op: 'stream', chunks: 'abc' },
    { id: 'j', op: 'parse', text: '{"name": "ls", "input": {}}', options: { jsonToolCalls: true } },
    { id: 'k', op: 'parse', text: 'x', options: { jsonToolCalls: 1 } },
  ].map((r) => JSON.stringify(r));
  const input = lines.slice(0, 2).join('\n') + '\n\nnot json\n' + lines.slice(2).join('\n') + '\n[1]';
  const r = spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'driver.js')], { input, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(out.length, 9);
  assert.deepEqual(out[0], {
    id: 'p',
    result: { calls: [{ name: 'ls', input: { path: '.' } }], sawToolCallSyntax: true, rejectedByPolicy: false, rejectedToolNames: [], text: '' },
  });
  assert.deepEqual(out[1], {
    id: 's',
    result: {
      events: [
        { type: 'text', text: 'a' },
        { type: 'tool_calls', calls: [{ name: 'x', input: {} }], format: 'dsml' },
        { type: 'text', text: 'b' },
      ],
    },
  });
  assert.equal(out[2].id, null);
  assert.equal(out[2].error.type, 'BadRequest');
  assert.deepEqual(out[6].result.calls, [{ name: 'ls', input: {} }]);
  assert.equal(out[7].error.type, 'BadRequest');
  for (const [i, id] of [[3, 'u'], [4, 'o'], [5, 't'], [8, null]]) {
    assert.equal(out[i].id, id);
    assert.equal(out[i].error.type, 'BadRequest');
  }
  assert.match(out[3].error.message, /bogus/);
});

test('formats option: FORMATS, checkFormats errors, each format alone', () => {
  const defaults = ['dsml', 'function_calls', 'tokens', 'hermes', 'qwen3_coder', 'seed_oss', 'glm', 'minimax', 'kimi_k2', 'mistral', 'harmony'];
  const all = ['dsml', 'function_calls', 'tokens', 'hermes', 'qwen3_coder', 'seed_oss', 'glm', 'minimax', 'kimi_k2', 'mistral', 'llama_json', 'pythonic', 'harmony'];
  assert.deepEqual(Object.keys(callsieve.FORMATS), all);
  assert.deepEqual([...new Sieve().formats].sort(), [...defaults].sort()); // R19.3: not the bare JSON / Python list rows
  assert.deepEqual([...new Sieve({ formats: null }).formats].sort(), [...defaults].sort());
  assert.deepEqual([...new Sieve({ formats: new Set(['tokens']) }).formats], ['tokens']);
  assert.throws(() => new Sieve({ formats: 'dsml' }), InputTypeError);
  assert.throws(() => new Sieve({ formats: 3 }), InputTypeError);
  assert.throws(() => new Sieve({ formats: { dsml: true } }), InputTypeError);
  assert.throws(() => parse('x', { formats: ['dsml', 7] }), InputTypeError);
  assert.throws(() => parse('x', { formats: ['xml'] }), OptionsError);
  const native =
    '<\uff5cDSML\uff5cfunction_calls><\uff5cDSML\uff5cinvoke name="ls"><\uff5cDSML\uff5cparameter name="n" string="false">3' +
    '</\uff5cDSML\uff5cparameter></\uff5cDSML\uff5cinvoke></\uff5cDSML\uff5cfunction_calls>';
  assert.deepEqual(parse(native).calls, [{ name: 'ls', input: { n: 3 } }]);
  assert.deepEqual(parse(native, { formats: ['dsml'] }).calls, []);
  assert.deepEqual(parse(BLOCK, { formats: ['function_calls'] }).calls, []);
  assert.deepEqual(parse(BLOCK, { formats: [] }).calls, []);
  const eos = 'done<\uff5cend\u2581of\u2581sentence\uff5c>';
  assert.deepEqual(coalesce([...new Sieve().feed(eos)]).concat(), [{ type: 'text', text: 'done' }]);
  const s = new Sieve({ formats: ['dsml'] });
  assert.deepEqual(coalesce([...s.feed(eos), ...s.flush()]), [{ type: 'text', text: eos }]);
});

test('formats: tokens alone hold a cut prose tag head wherever it is (as Python)', () => {
  // issue 41: the _mText shortcut for a cut prose tag head (PLAIN_TAG_SO_FAR, whose head
  // characters include the tab) was listed as never taken; under formats: ['tokens'] _textTag alone
  // would release the head, and where the prose skip decides it waits.
  for (const before of ['', 'hi ', 'x\n', '`a` ', 'a\n\n', '<b>x</b>']) {
    for (const head of ['<ab', '<a\tb', '</a']) {
      const s = new Sieve({ formats: ['tokens'] });
      assert.equal(s.feed(before + head).map((e) => e.text).join(''), before, JSON.stringify(before + head));
      assert.deepEqual(s.flush().map((e) => e.text), [head], JSON.stringify(before + head));
    }
  }
});

// (output, options, [format, repaired]): the table of python/tests/core/test_api.py
const INV = '<|DSML|invoke name="f"><|DSML|parameter name="p">1</|DSML|parameter></|DSML|invoke>';
const CALL = '<\uff5ctool\u2581call\u2581begin\uff5c>f<\uff5ctool\u2581sep\uff5c>{}<\uff5ctool\u2581call\u2581end\uff5c>';
const FORMATS_AND_REPAIRS = [
  [`<|DSML|tool_calls>${INV}</|DSML|tool_calls>`, {}, ['dsml', []]],
  [`<\uff5cDSML\uff5cfunction_calls>${INV}</\uff5cDSML\uff5ctool_calls>`, {}, ['function_calls', []]], // the opener's row
  [`${INV}</|DSML|function_calls>`, {}, ['function_calls', ['D6']]], // R3: the closer's row
  ['<tool_calls><invoke name="f"><parameter name="p"><![CDATA[x</parameter></invoke></tool_calls>', {}, ['dsml', ['D8']]],
  [`<\uff5ctool\u2581calls\u2581begin\uff5c>${CALL}<\uff5ctool\u2581calls\u2581end\uff5c>`, {}, ['tokens', []]],
  [`<\uff5ctool\u2581calls\u2581begin\uff5c>${CALL}`, {}, ['tokens', ['D26']]],
  [`<tool_calls>${INV} oops`, { streamArguments: true }, ['dsml', ['D37']]],
  ['<tool_call>{"name": "f", "arguments": {}}', {}, ['hermes', ['D44']]],
  ['<tool_call>{"name": "f", "arguments": {"p": 1}} x</tool_call>', { streamArguments: true }, ['hermes', ['D37']]],
  ['[TOOL_CALLS]f[ARGS]{"p": 1', { preset: 'mistral', streamArguments: true }, ['mistral', ['D37']]],
  ['<|channel|>commentary to=functions.f<|message|>{}', { preset: 'gpt-oss' }, ['harmony', []]], // no repair
  ['Run {"name": "f", "arguments": {}}', { jsonToolCalls: true }, ['', []]], // R9: no row
  ['Run {"name": "f", "arguments": {"p": "C:\\dev"}}', { jsonToolCalls: true }, ['', ['R9.2']]],
  ['{"name": "f", "parameters": {"p": "a\\qb"}}', { preset: 'llama3' }, ['llama_json', ['R9.2']]],
  ['{"name": "f", "parameters": {"p": "a\\\\qb"}}', { preset: 'llama3' }, ['llama_json', []]], // valid
];

test('events name their format and repairs (D58)', () => {
  for (const [text, opts, want] of FORMATS_AND_REPAIRS) {
    for (const size of [text.length, 1]) {
      const s = new Sieve(opts);
      const events = [];
      for (let i = 0; i < text.length; i += size) events.push(...s.feed(text.slice(i, i + size)));
      events.push(...s.flush());
      const blocks = events.filter((e) => e.type === 'tool_calls');
      assert.deepEqual(
        blocks.map((e) => [e.format || '', e.repaired || []]),
        [want],
        `${text} ${size}`,
      );
    }
  }
});
