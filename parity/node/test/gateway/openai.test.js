'use strict';
/** The OpenAI gateway (mirror of python/callsieve/openai.py): formatting, stream and response rewriting, streams. */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const {
  OpenAIFormatError,
  newCallId,
  toOpenAIToolCalls,
  toOpenAIStreamDeltas,
  ChatCompletionStreamRewriter,
  rewriteChatCompletionStream,
  rewriteChatCompletion,
  createChatCompletionRewriteStream,
  createSSERewriteStream,
} = require('../../src/openai');
const { SSEFormatError } = require('../../src/sse');
const { InputTypeError, OptionsError, CallsieveError } = require('../../src/errors');
const { asyncOf, collect, readable } = require('../support');

const BLOCK = (name = 'read_file', path = 'a.txt') =>
  `<|DSML|tool_calls><|DSML|invoke name="${name}"><|DSML|parameter name="path"><![CDATA[${path}]]>` +
  '</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>';
const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } } },
    },
  },
];
const ENV = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };

const ids = () => {
  let n = 0;
  return () => `call_${++n}`;
};
const chunk = (choices, extra = {}) => ({ ...ENV, choices, ...extra });
const delta = (content, finish = null, index = 0) => ({ index, delta: { content }, finish_reason: finish });
const call = (index, id, name, args) => ({ index, id, type: 'function', function: { name, arguments: args } });


/** The same chunks through the class, the async generator (sync and async input) and the TransformStream. */
async function rewriteAll(chunks, opts = {}) {
  const rw = new ChatCompletionStreamRewriter({ ...opts, idFactory: ids() });
  const viaClass = [];
  for (const c of chunks) viaClass.push(...rw.feed(c));
  viaClass.push(...rw.finish());
  const viaGen = await collect(rewriteChatCompletionStream(chunks, { ...opts, idFactory: ids() }));
  const viaAsync = await collect(rewriteChatCompletionStream(asyncOf(chunks), { ...opts, idFactory: ids() }));
  const viaStream = await collect(readable(chunks).pipeThrough(createChatCompletionRewriteStream({ ...opts, idFactory: ids() })));
  assert.deepEqual(viaGen, viaClass);
  assert.deepEqual(viaAsync, viaClass);
  assert.deepEqual(viaStream, viaClass);
  return viaClass;
}

test('OpenAIFormatError is a CallsieveError named after its class', () => {
  const e = new OpenAIFormatError('m');
  assert.ok(e instanceof CallsieveError);
  assert.equal(e.name, 'OpenAIFormatError');
});

test('newCallId: call_ and 24 hex digits, fresh each time', () => {
  const a = newCallId();
  assert.match(a, /^call_[0-9a-f]{24}$/);
  assert.notEqual(a, newCallId());
});

test('toOpenAIToolCalls and toOpenAIStreamDeltas: shapes, schema, ids', () => {
  const calls = [
    { name: 'read_file', input: { path: 7, limit: 3 } },
    { name: 'x', input: {} },
  ];
  assert.deepEqual(toOpenAIToolCalls(calls, { tools: TOOLS, idFactory: ids() }), [
    { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"7","limit":3}' } },
    { id: 'call_2', type: 'function', function: { name: 'x', arguments: '{}' } },
  ]);
  assert.deepEqual(toOpenAIStreamDeltas(calls, { idFactory: ids(), startIndex: 2 }), [
    call(2, 'call_1', 'read_file', '{"path":7,"limit":3}'),
    call(3, 'call_2', 'x', '{}'),
  ]);
  assert.match(toOpenAIToolCalls(calls)[0].id, /^call_[0-9a-f]{24}$/);
  assert.deepEqual(toOpenAIToolCalls([]), []);
});

test('formatting misuse: InputTypeError / OptionsError', () => {
  const calls = [{ name: 'a', input: {} }];
  assert.throws(() => toOpenAIToolCalls({ name: 'a', input: {} }), InputTypeError);
  assert.throws(() => toOpenAIToolCalls([{ name: 'a', input: 'x' }]), InputTypeError);
  assert.throws(() => toOpenAIToolCalls(calls, { tools: {} }), InputTypeError);
  assert.throws(() => toOpenAIToolCalls(calls, { idFactory: () => 1 }), InputTypeError);
  assert.throws(() => toOpenAIToolCalls(calls, { bogus: 1 }), OptionsError);
  assert.throws(() => toOpenAIStreamDeltas(calls, { startIndex: 1.5 }), InputTypeError);
  assert.throws(() => new ChatCompletionStreamRewriter({ unknownTools: 'drop' }), OptionsError);
  assert.throws(() => new ChatCompletionStreamRewriter({ toolNames: 'read_file' }), InputTypeError);
  assert.throws(() => new ChatCompletionStreamRewriter({ idFactory: 'x' }), InputTypeError);
  assert.throws(() => rewriteChatCompletion({}, { rejectedToolNames: 'x' }), InputTypeError);
});

test('stream: a block split across chunks becomes one tool_calls delta; finish becomes tool_calls', async () => {
  const b = BLOCK();
  const out = await rewriteAll([
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
    chunk([delta('Reading.\n' + b.slice(0, 30))]),
    chunk([delta(b.slice(30))]),
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
  ]);
  assert.deepEqual(out, [
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
    chunk([delta('Reading.\n')]),
    chunk([{ index: 0, delta: { content: null, tool_calls: [call(0, 'call_1', 'read_file', '{"path":"a.txt"}')] }, finish_reason: null }]),
    chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
  ]);
});

test('stream: text, call, text in one chunk become three chunks; usage moves to the last', async () => {
  const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
  const out = await rewriteAll([chunk([delta('a ' + BLOCK() + ' b', 'stop')], { usage })]);
  assert.deepEqual(out, [
    chunk([delta('a ', null)], { usage: null }),
    chunk([{ index: 0, delta: { tool_calls: [call(0, 'call_1', 'read_file', '{"path":"a.txt"}')] }, finish_reason: null }], { usage: null }),
    chunk([{ index: 0, delta: { content: ' b' }, finish_reason: 'tool_calls' }], { usage }),
  ]);
});

test('stream: chunks without choices pass through (errors, usage, keep-alives)', async () => {
  const err = { error: { message: 'upstream overloaded', type: 'server_error' } };
  const usageOnly = chunk([], { usage: { total_tokens: 3 } });
  const out = await rewriteAll([err, chunk([delta('hi', 'stop')]), usageOnly, {}]);
  assert.deepEqual(out, [err, chunk([delta('hi', 'stop')]), usageOnly, {}]);
  assert.equal(out[0], err); // the same object, untouched
});

test('stream: malformed chunks raise OpenAIFormatError after the chunks before them', async () => {
  const bad = [
    [1],
    'x',
    null,
    chunk({ 0: 1 }),
    chunk([5]),
    chunk([{ index: '0', delta: { content: 'a' } }]),
    chunk([{ index: true, delta: { content: 'a' } }]),
    chunk([{ index: 0.5, delta: { content: 'a' } }]),
    chunk([{ index: 0, delta: 'x' }]),
    chunk([{ index: 0, delta: { content: 5 } }]),
    chunk([{ index: 0, delta: { content: [{ type: 'text', text: 'a' }] } }]),
  ];
  for (const b of bad) {
    const got = [];
    await assert.rejects(async () => {
      for await (const c of rewriteChatCompletionStream([chunk([delta('ok')]), b])) got.push(c);
    }, OpenAIFormatError);
    assert.deepEqual(got, [chunk([delta('ok')])]);
    await assert.rejects(collect(readable([b]).pipeThrough(createChatCompletionRewriteStream())), OpenAIFormatError);
  }
  const rw = new ChatCompletionStreamRewriter();
  rw.finish();
  assert.throws(() => rw.feed(chunk([delta('a')])), OpenAIFormatError);
  assert.deepEqual(rw.finish(), []);
});

test('stream: choices without delta or with null content pass through; unknown fields are kept', async () => {
  const chunks = [
    chunk([{ index: 0, finish_reason: null, logprobs: { content: [] } }], { system_fingerprint: 'fp', x_extra: [1] }),
    chunk([{ index: 0, delta: { content: null, refusal: 'no' }, finish_reason: null, extra: true }]),
    chunk([{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop', logprobs: null }]),
  ];
  const out = await rewriteAll(chunks);
  assert.deepEqual(out, chunks);
  assert.equal(out[0], chunks[0]);
});

test('stream: each choice has its own sieve and call indices', async () => {
  const out = await rewriteAll([
    chunk([delta('A ' + BLOCK('ls', '.'), null, 0), delta('B ' + BLOCK('read_file'), null, 1)]),
    chunk([delta(BLOCK('cat', 'x'), 'stop', 1), { index: 0, delta: {}, finish_reason: 'stop' }]),
  ]);
  assert.deepEqual(out, [
    chunk([delta('A ', null, 0), delta('B ', null, 1)]),
    chunk([{ index: 0, delta: { tool_calls: [call(0, 'call_1', 'ls', '{"path":"."}')] }, finish_reason: null }]),
    chunk([{ index: 1, delta: { tool_calls: [call(0, 'call_2', 'read_file', '{"path":"a.txt"}')] }, finish_reason: null }]),
    chunk([
      { index: 1, delta: { content: null, tool_calls: [call(1, 'call_3', 'cat', '{"path":"x"}')] }, finish_reason: 'tool_calls' },
      { index: 0, delta: {}, finish_reason: 'tool_calls' },
    ]),
  ]);
});

test('stream: choices without index count by position', async () => {
  const out = await rewriteAll([chunk([{ delta: { content: 'x' } }, { delta: { content: BLOCK() }, finish_reason: 'stop' }])]);
  assert.deepEqual(out, [
    chunk([
      { delta: { content: 'x' }, finish_reason: null },
      { delta: { content: null, tool_calls: [call(0, 'call_1', 'read_file', '{"path":"a.txt"}')] }, finish_reason: 'tool_calls' },
    ]),
  ]);
});

test('stream: upstream native tool_calls pass through and shift the index', async () => {
  const native = { index: 0, id: 'up_1', type: 'function', function: { name: 'search', arguments: '{}' } };
  const out = await rewriteAll([
    chunk([{ index: 0, delta: { tool_calls: [native] }, finish_reason: null }]),
    chunk([{ index: 0, delta: { content: BLOCK(), tool_calls: [{ ...native, index: 1 }] }, finish_reason: 'stop' }]),
  ]);
  assert.deepEqual(out, [
    chunk([{ index: 0, delta: { tool_calls: [native] }, finish_reason: null }]),
    chunk([
      {
        index: 0,
        delta: { content: null, tool_calls: [{ ...native, index: 1 }, call(2, 'call_1', 'read_file', '{"path":"a.txt"}')] },
        finish_reason: 'tool_calls',
      },
    ]),
  ]);
});

test('stream: held text comes out with the finish; a choice that never finishes is flushed at the end', async () => {
  const out = await rewriteAll([
    chunk([delta('a <|DSML|tool_', null)], { usage: null }),
    chunk([{ index: 0, delta: {}, finish_reason: 'length' }]),
    chunk([delta('b <|DSML|tool_calls>', null, 1)], { usage: { total_tokens: 1 } }),
  ]);
  assert.deepEqual(out, [
    chunk([delta('a ', null)], { usage: null }),
    chunk([{ index: 0, delta: { content: '<|DSML|tool_' }, finish_reason: 'length' }]),
    chunk([delta('b ', null, 1)], { usage: { total_tokens: 1 } }),
    chunk([{ index: 1, delta: { content: '<|DSML|tool_calls>' }, finish_reason: null }], { usage: null }),
  ]);
});

test('stream: reject policy drops unknown calls and collects their names', async () => {
  const chunks = [chunk([delta('x ' + BLOCK('format_disk') + BLOCK('Read_File'), 'stop')])];
  const opts = { tools: TOOLS, unknownTools: 'reject' };
  const out = await rewriteAll(chunks, opts);
  assert.deepEqual(out, [
    chunk([delta('x ', null)]),
    chunk([{ index: 0, delta: { tool_calls: [call(0, 'call_1', 'read_file', '{"path":"a.txt"}')] }, finish_reason: 'tool_calls' }]),
  ]);
  const rw = new ChatCompletionStreamRewriter(opts);
  rw.feed(chunks[0]);
  assert.deepEqual(rw.rejectedToolNames, ['format_disk']);
  const names = ['earlier'];
  await collect(rewriteChatCompletionStream(chunks, { ...opts, rejectedToolNames: names }));
  assert.deepEqual(names, ['earlier', 'format_disk']);
  const names2 = [];
  await collect(readable(chunks).pipeThrough(createChatCompletionRewriteStream({ ...opts, rejectedToolNames: names2 })));
  assert.deepEqual(names2, ['format_disk']);
  // Only rejected calls: the block leaves the text, finish_reason stays stop.
  const only = await rewriteAll([chunk([delta('x ' + BLOCK('format_disk'), 'stop')])], opts);
  assert.deepEqual(only, [chunk([delta('x ', 'stop')])]);
});

test('stream: the input chunks are not modified', async () => {
  const chunks = [chunk([delta('a ' + BLOCK() + ' b', 'stop')], { usage: { total_tokens: 3 } })];
  const copy = JSON.parse(JSON.stringify(chunks));
  await rewriteAll(chunks);
  assert.deepEqual(chunks, copy);
});

test('response: content and tool_calls, finish_reason, upstream calls first, input untouched', () => {
  const native = { id: 'up', type: 'function', function: { name: 'search', arguments: '{}' } };
  const resp = {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [
      { index: 0, message: { role: 'assistant', content: 'Let me look.\n' + BLOCK('mcp.read_file', '7') }, finish_reason: 'stop' },
      { index: 1, message: { role: 'assistant', content: BLOCK(), tool_calls: [native] }, finish_reason: 'length' },
      { index: 2, message: { role: 'assistant', content: 'plain' }, finish_reason: 'stop' },
      { index: 3, message: { role: 'assistant', content: null }, finish_reason: 'stop' },
    ],
    usage: { total_tokens: 3 },
  };
  const copy = JSON.parse(JSON.stringify(resp));
  const got = rewriteChatCompletion(resp, { tools: TOOLS, idFactory: ids() });
  assert.deepEqual(resp, copy);
  assert.deepEqual(got, {
    ...resp,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Let me look.\n', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"7"}' } }] },
        finish_reason: 'tool_calls',
      },
      {
        index: 1,
        message: { role: 'assistant', content: null, tool_calls: [native, { id: 'call_2', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }] },
        finish_reason: 'length',
      },
      resp.choices[2],
      resp.choices[3],
    ],
  });
  assert.equal(got.choices[2], resp.choices[2]);
});

test('response: without choices passes through; malformed shapes raise OpenAIFormatError', () => {
  const err = { error: { message: 'x' } };
  assert.equal(rewriteChatCompletion(err), err);
  for (const bad of [
    [],
    'x',
    null,
    { choices: {} },
    { choices: [1] },
    { choices: [{ index: 'a', message: { content: 'x' } }] },
    { choices: [{ index: 0, message: 'x' }] },
    { choices: [{ index: 0, message: { content: [{ type: 'text', text: 'hi' }] } }] },
  ]) {
    assert.throws(() => rewriteChatCompletion(bad), OpenAIFormatError, JSON.stringify(bad));
  }
});

test('response: reject policy', () => {
  const names = [];
  const resp = { choices: [{ index: 0, message: { content: 'Sure.\n' + BLOCK('format_disk') }, finish_reason: 'stop' }] };
  const got = rewriteChatCompletion(resp, { tools: TOOLS, unknownTools: 'reject', rejectedToolNames: names });
  assert.deepEqual(got, { choices: [{ index: 0, message: { content: 'Sure.\n' }, finish_reason: 'stop' }] });
  assert.deepEqual(names, ['format_disk']);
});

test('SSE rewrite stream: SSE bytes in, rewritten SSE bytes out, ending with [DONE]', async () => {
  const enc = (s) => new TextEncoder().encode(s);
  const b = BLOCK();
  const input =
    `data: ${JSON.stringify(chunk([delta('hi ' + b.slice(0, 25))]))}\r\n\r\n: keep-alive\r\n\r\n` +
    `data: ${JSON.stringify(chunk([delta(b.slice(25), 'stop')]))}\r\n\r\ndata: [DONE]\r\n\r\n`;
  const bytes = enc(input);
  const want =
    `data: ${JSON.stringify(chunk([delta('hi ')]))}\n\n` +
    `data: ${JSON.stringify(chunk([{ index: 0, delta: { content: null, tool_calls: [call(0, 'call_1', 'read_file', '{"path":"a.txt"}')] }, finish_reason: 'tool_calls' }]))}\n\n` +
    'data: [DONE]\n\n';
  for (const size of [1, 7, bytes.length]) {
    const parts = [];
    for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
    const out = await collect(readable(parts).pipeThrough(createSSERewriteStream({ idFactory: ids() })));
    assert.equal(Buffer.concat(out.map((x) => Buffer.from(x))).toString('utf8'), want);
  }
  // Without [DONE] upstream (a cut-off stream), none is made up downstream.
  const noDone = await collect(readable([enc('data: {"error":{"message":"x"}}\n\n')]).pipeThrough(createSSERewriteStream()));
  assert.equal(Buffer.concat(noDone.map((x) => Buffer.from(x))).toString('utf8'), 'data: {"error":{"message":"x"}}\n\n');
  // Format errors are typed.
  const run = (s) => collect(readable([enc(s)]).pipeThrough(createSSERewriteStream()));
  await assert.rejects(run('data: {oops\n\n'), SSEFormatError);
  await assert.rejects(run('data: [DONE]\n\ndata: {}\n\n'), SSEFormatError);
  await assert.rejects(run('data: [1]\n\n'), OpenAIFormatError);
  await assert.rejects(collect(readable([Uint8Array.of(0x64, 0x3a, 0xc3, 0x0a)]).pipeThrough(createSSERewriteStream())), SSEFormatError);
});

test('SSE rewrite stream: a 10 MB data: line through the gateway in linear time', async () => {
  // 6 MB of prose and a block with a 4 MB parameter (under the sieve's 8 M-character capture limit).
  const prose = 'p'.repeat(6_000_000);
  const body = 'x'.repeat(4_000_000);
  const c = chunk([delta(prose + BLOCK('write_file', body), 'stop')]);
  const bytes = new TextEncoder().encode(`data: ${JSON.stringify(c)}\n\ndata: [DONE]\n\n`);
  assert.ok(bytes.length > 10_000_000);
  const parts = [];
  for (let i = 0; i < bytes.length; i += 65536) parts.push(bytes.subarray(i, i + 65536));
  const t0 = performance.now();
  const out = await collect(readable(parts).pipeThrough(createSSERewriteStream({ idFactory: ids() })));
  const ms = performance.now() - t0;
  assert.ok(ms < 5000, `${ms} ms`);
  const events = Buffer.concat(out.map((x) => Buffer.from(x))).toString('utf8').split('\n\n');
  assert.equal(events.length, 4); // two chunks, [DONE], and the empty rest
  assert.equal(events[2], 'data: [DONE]');
  const first = JSON.parse(events[0].slice('data: '.length));
  assert.ok(first.choices[0].delta.content === prose, 'the prose stays content');
  const second = JSON.parse(events[1].slice('data: '.length));
  assert.equal(second.choices[0].finish_reason, 'tool_calls');
  const args = JSON.parse(second.choices[0].delta.tool_calls[0].function.arguments);
  assert.ok(args.path === body, 'the parameter comes through whole');
});

test('formatting checks idFactory and startIndex', () => {
  const calls = [{ name: 'ls', input: {} }];
  assert.throws(() => toOpenAIToolCalls(calls, { idFactory: 'call_1' }), InputTypeError);
  assert.throws(() => toOpenAIStreamDeltas(calls, { idFactory: 5 }), InputTypeError);
  assert.throws(() => toOpenAIStreamDeltas(calls, { startIndex: '1' }), InputTypeError);
});

test('formats: token sections become tool calls only when the tokens format is in use', async () => {
  const section =
    '<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>read_file<\uff5ctool\u2581sep\uff5c>' +
    '{"path": "a.txt"}<\uff5ctool\u2581call\u2581end\uff5c><\uff5ctool\u2581calls\u2581end\uff5c>';
  const chunks = [chunk([delta('Reading.\n' + section.slice(0, 25))]), chunk([delta(section.slice(25), 'stop')])];
  for (const formats of [undefined, null, ['tokens']]) {
    const out = await rewriteAll(chunks, { formats });
    const calls = out.flatMap((c) => c.choices[0].delta.tool_calls || []);
    assert.deepEqual(calls, [call(0, 'call_1', 'read_file', '{"path":"a.txt"}')]);
  }
  const plain = await rewriteAll(chunks, { formats: ['dsml', 'function_calls'] });
  assert.equal(plain.map((c) => c.choices[0].delta.content || '').join(''), 'Reading.\n' + section);
  const response = { choices: [{ index: 0, message: { role: 'assistant', content: section }, finish_reason: 'stop' }] };
  assert.equal(rewriteChatCompletion(response, { formats: ['tokens'], idFactory: ids() }).choices[0].message.tool_calls.length, 1);
  assert.equal(rewriteChatCompletion(response, { formats: ['dsml'] }).choices[0].message.content, section);
  const sse = new TextEncoder().encode(`data: ${JSON.stringify(chunks[0])}\n\ndata: ${JSON.stringify(chunks[1])}\n\ndata: [DONE]\n\n`);
  const bytes = await collect(readable([sse]).pipeThrough(createSSERewriteStream({ formats: ['dsml'] })));
  const text = Buffer.concat(bytes.map((b) => Buffer.from(b))).toString('utf8');
  assert.ok(!text.includes('tool_calls'), text);
  assert.throws(() => new ChatCompletionStreamRewriter({ formats: ['xml'] }), OptionsError);
  assert.throws(() => rewriteChatCompletion(response, { formats: 'tokens' }), InputTypeError);
  assert.throws(() => createSSERewriteStream({ formats: [1] }), InputTypeError);
});

const INVOKE = '<|DSML|invoke name="read_file"><|DSML|parameter name="path">a</|DSML|parameter></|DSML|invoke>';
const TCALL = '<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path": "a"}<｜tool▁call▁end｜>';
// [text, blocks, repaired(, the two with streamArguments)]: the table of python/tests/gateway/test_gateway_openai.py
const REPAIRS = [
  [`a <|DSML|tool_calls>${INVOKE}</|DSML|tool_calls> b`, 1, 0],
  [`a ${INVOKE}\n</|DSML|tool_calls> b`, 1, 1], // R3: no opening wrapper
  [`a ${INVOKE}${INVOKE}</tool_calls>`, 1, 1],
  [
    '<|DSML|tool_calls><|DSML|invoke name="read_file"><|DSML|parameter name="path"><![CDATA[a' +
      '</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>',
    1,
    1,
  ], // D8: the CDATA never closes
  [
    '<|DSML|tool_calls><|DSML|invoke name="read_file"><|DSML|parameter name="path"><![CDATA[a]]> b' +
      '</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>',
    1,
    1,
  ], // D8: a `]]>` that no closing tag follows does not close it
  [`<｜tool▁calls▁begin｜>${TCALL}<｜tool▁calls▁end｜> b`, 1, 0],
  [`<｜tool▁calls▁begin｜>${TCALL}\n`, 1, 1], // D26: no section end
  [`<｜tool▁calls▁begin｜>${TCALL}<｜end▁of▁sentence｜>`, 1, 1],
  [`<｜tool▁calls｜>${TCALL}<｜tool▁calls▁end｜>`, 1, 0],
  [`a \`b <|DSML|tool_calls>${INVOKE}</|DSML|tool_calls>`, 1, 0], // held to the end, complete
  [`<｜DSML｜function_calls>${INVOKE}</｜DSML｜function_calls>`, 1, 0],
  [`${INVOKE}</tool_calls> and <tool_calls>${INVOKE}</tool_calls>`, 2, 1],
  [`<tool_calls>${INVOKE}`, 0, 0, 1, 1], // D27: text; D37: the announced call is kept
  [`<tool_calls>${INVOKE} b </tool_calls>`, 0, 0, 1, 1], // D37: the block breaks at "b"
  ['<tool_call>{"name": "f", "arguments": {"p": 1}} x</tool_call>', 1, 0, 1, 1], // malformed; D37 once announced
  ['<|channel|>commentary to=functions.f<|message|>{"p": 1}', 1, 0], // Harmony's end token may be the end (D58)
  [`<tool_calls>${INVOKE}</tool_calls|`, 1, 0], // R2.6: read as written, no repair (D58)
  ['no markup', 0, 0],
];

test('stats: repairedBlocks counts the blocks whose event lists a repair (D58: R3, D8, D26, D37, D44)', () => {
  for (const [text, blocks, repaired, ...announced] of REPAIRS) {
    const want = { blocks, repairedBlocks: repaired };
    const [b, r] = announced.length ? announced : [blocks, repaired];
    const counts = (st) => ({ blocks: st.blocks, repairedBlocks: st.repairedBlocks });
    const stats = {};
    rewriteChatCompletion(
      { choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] },
      { stats },
    );
    assert.deepEqual(counts(stats), want, text);
    for (const size of [1, 3, text.length]) {
      for (const finish of ['stop', null]) {
        for (const streamArguments of [false, true]) {
          const rw = new ChatCompletionStreamRewriter({ streamArguments });
          for (let i = 0; i < text.length; i += size) rw.feed(chunk([delta(text.slice(i, i + size))]));
          rw.feed(chunk([{ index: 0, delta: {}, finish_reason: finish }]));
          rw.finish();
          assert.deepEqual(counts(rw.stats), streamArguments ? { blocks: b, repairedBlocks: r } : want, `${text} ${size} ${finish}`);
        }
      }
    }
  }
});

// ---- feed's fast path (the common chunk) against the general feed: the side of
// python/tests/gateway/test_gateway_fast_paths.py ------------------------------------------------------
const FAST_TEXTS = [
  'Hello, no markup at all.',
  '好的。\n<|DSML|tool_calls>\n<|DSML|invoke name="read_file">\n<|DSML|parameter name="path"><![CDATA[a.py]]></|DSML|parameter>\n' +
    '</|DSML|invoke>\n</|DSML|tool_calls>\nDone.',
  '<think>maybe <|DSML|invoke name="x"></|DSML|invoke></think>Now: <|DSML|invoke name="read_file">' +
    '<|DSML|parameter name="path">b</|DSML|parameter></|DSML|invoke></|DSML|tool_calls> ok',
  '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path": "c"}<｜tool▁call▁end｜>',
  '<tool_calls><invoke name="nope"><parameter name="q">1</parameter></invoke></tool_calls> and `code <x>`',
  '<|DSML|tool_calls><|DSML|invoke name="read_file"><|DSML|parameter name="path"><![CDATA[open',
];

function lcg(seed) {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

function fastStream(rnd, text) {
  const base = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm' };
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const chunks = [{ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] }];
  for (let i = 0; i < text.length; ) {
    const k = pick([1, 2, 3, 7, 16, 40]);
    const piece = text.slice(i, i + k);
    i += k;
    const choice = { index: 0, delta: { content: piece }, finish_reason: null };
    let r = rnd();
    if (r < 0.1) delete choice.index;
    else if (r < 0.15) delete choice.finish_reason;
    else if (r < 0.2) choice.delta.tool_calls = null;
    else if (r < 0.23) choice.delta.tool_calls = [{ index: 0, id: 'u', function: { name: 'up', arguments: '' } }];
    else if (r < 0.26) choice.delta = { reasoning_content: 'r', content: piece };
    else if (r < 0.28) choice.index = 1;
    else if (r < 0.3) choice.index = true;
    let chunk = { ...base, choices: [choice] };
    r = rnd();
    if (r < 0.05) chunk.choices.push({ index: 2, delta: { content: piece }, finish_reason: null });
    else if (r < 0.08) chunk.usage = { total_tokens: 3 };
    else if (r < 0.1) chunk = { ...base, choices: [] };
    chunks.push(chunk);
  }
  if (rnd() < 0.7) chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  return chunks;
}

function runRewriter(chunks, fast, opts) {
  const rw = new ChatCompletionStreamRewriter({ ...opts, idFactory: ids() });
  rw._fast = fast;
  const out = [];
  for (const c of chunks) {
    try {
      out.push(rw.feed(JSON.parse(JSON.stringify(c))));
    } catch (e) {
      out.push([e.name, e.message]);
      break;
    }
  }
  out.push(rw.finish());
  return [out, rw.stats, rw.rejectedToolNames];
}

test('feed: the fast path for the common chunk gives what the general feed gives', () => {
  const tools = [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }];
  for (const opts of [{}, { tools, unknownTools: 'reject' }, { streamArguments: true }, { reasoning: 'off' }]) {
    const rnd = lcg(11);
    for (let n = 0; n < 150; n++) {
      const pick = (a) => a[Math.floor(rnd() * a.length)];
      const text = pick(FAST_TEXTS) + pick(['', ' tail', '\n' + pick(FAST_TEXTS)]);
      const chunks = fastStream(rnd, text);
      assert.deepStrictEqual(runRewriter(chunks, true, opts), runRewriter(chunks, false, opts), JSON.stringify([text, opts]));
    }
  }
  // and it is taken: most chunks of plain prose never reach the general feed
  const rw = new ChatCompletionStreamRewriter();
  let general = 0;
  const real = rw._feed.bind(rw);
  rw._feed = (c, fed) => {
    general += 1;
    return real(c, fed);
  };
  const chunks = fastStream(lcg(1), 'plain prose '.repeat(20));
  for (const c of chunks) rw.feed(c);
  assert.ok(general < chunks.length / 2, `${general} of ${chunks.length}`);
});

test('stats: a JSON call read after the backslash repair is a repaired block (D58, R9.2)', () => {
  for (const [text, repaired] of [
    ['Open {"name": "open", "arguments": {"path": "C:\\Users\\dev"}} now', 1],
    ['Open {"name": "open", "arguments": {"path": "C:\\\\Users"}} now', 0],
  ]) {
    const stats = {};
    rewriteChatCompletion(
      { choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] },
      { stats, jsonToolCalls: true },
    );
    assert.deepEqual([stats.blocks, stats.repairedBlocks], [1, repaired], text);
    for (const streamArguments of [false, true]) {
      const rw = new ChatCompletionStreamRewriter({ streamArguments, jsonToolCalls: true });
      for (let i = 0; i < text.length; i += 3) rw.feed(chunk([delta(text.slice(i, i + 3))]));
      rw.feed(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
      rw.finish();
      assert.deepEqual([rw.stats.blocks, rw.stats.repairedBlocks], [1, repaired], text);
    }
  }
});
