'use strict';
/**
 * Issue 40, items 2 and 5 at the API (mirror of python/tests/test_gateway_tool_choice.py): the
 * request's toolChoice and parallelToolCalls honored by the rewriters, and no empty content
 * deltas as the official `openai` SDK's `.stream()` sees them. The exact outputs are pinned by the
 * fixtures in fixtures/r13-openai/ (tool-choice, parallel-tool-calls, held-content).
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { ChatCompletionStreamRewriter, rewriteChatCompletion, rewriteChatCompletionStream } = require('../../src/openai');
const { responseOptions } = require('../../src/request');
const { encodeEvent } = require('../../src/sse');
const { OpenAIFormatError, OptionsError } = require('../../src/errors');

const TOOLS = ['read_file', 'list_dir'].map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: { path: { type: 'string' } } } },
}));
const invoke = (name, path) =>
  `<|DSML|invoke name="${name}">\n<|DSML|parameter name="path">${path}</|DSML|parameter>\n</|DSML|invoke>\n`;
const BLOCK = `<|DSML|tool_calls>\n${invoke('list_dir', '.')}${invoke('read_file', 'a.txt')}</|DSML|tool_calls>`;
const REPLY = `Let me look.\n${BLOCK}\nThen I answer.`;
const NAMED = { type: 'function', function: { name: 'read_file' } };
const BASE = { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: 'm' };

function upstreamChunks(text, size) {
  const out = [{ ...BASE, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }];
  for (let i = 0; i < text.length; i += size) {
    out.push({ ...BASE, choices: [{ index: 0, delta: { content: text.slice(i, i + size) }, logprobs: null, finish_reason: null }] });
  }
  out.push({ ...BASE, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  return out;
}

function upstreamResponse(text) {
  return {
    id: 'chatcmpl-up',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: 'stop' }],
  };
}

/** The official SDK's `.stream()` over the rewritten stream (a fetch that answers with its SSE). */
async function sdkStream(size, opts) {
  const OpenAI = require('openai').default || require('openai');
  const chunks = [];
  const fetch = async () => {
    const parts = [];
    for await (const c of rewriteChatCompletionStream(upstreamChunks(REPLY, size), { tools: TOOLS, ...opts })) {
      chunks.push(c);
      parts.push(encodeEvent(c));
    }
    parts.push(new TextEncoder().encode('data: [DONE]\n\n'));
    return new Response(new Blob(parts), { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  const client = new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1', fetch, maxRetries: 0 });
  const deltas = [];
  const stream = client.chat.completions.stream({ model: 'm', messages: [{ role: 'user', content: 'Look.' }], tools: TOOLS });
  stream.on('content.delta', (e) => deltas.push(e.delta));
  const final = await stream.finalChatCompletion();
  return { deltas, final, chunks };
}

test('the openai SDK stream sees no empty content deltas but the first chunk\'s', async () => {
  for (const size of [1, 3, 40]) {
    const { deltas, final, chunks } = await sdkStream(size, {});
    // on the wire: one chunk with content "" (the first, beside role, as OpenAI's API writes it),
    // and every chunk carries something
    const empty = chunks.filter((c) => c.choices[0].delta.content === '');
    assert.deepEqual(empty.map((c) => c.choices[0].delta), [{ role: 'assistant', content: '' }]);
    assert.ok(chunks.every((c) => c.choices[0].finish_reason || Object.values(c.choices[0].delta).some((v) => v !== null && v !== '')));
    // (the JS SDK, unlike the Python one, skips an empty first delta itself)
    assert.ok(deltas.every((d) => d !== ''), JSON.stringify(deltas));
    assert.equal(deltas.join(''), 'Let me look.\n\nThen I answer.');
    assert.deepEqual(final.choices[0].message.tool_calls.map((tc) => tc.function.name), ['list_dir', 'read_file']);
    assert.equal(final.choices[0].finish_reason, 'tool_calls');
  }
});

test('the openai SDK stream gets what toolChoice and parallelToolCalls ask for', async () => {
  let { final } = await sdkStream(5, { toolChoice: 'none' });
  assert.equal(final.choices[0].message.content, REPLY);
  assert.ok(!final.choices[0].message.tool_calls || !final.choices[0].message.tool_calls.length);
  assert.equal(final.choices[0].finish_reason, 'stop');
  for (const [opts, want] of [[{ toolChoice: NAMED }, ['read_file']], [{ parallelToolCalls: false }, ['list_dir']]]) {
    ({ final } = await sdkStream(5, opts));
    assert.deepEqual(final.choices[0].message.tool_calls.map((tc) => tc.function.name), want);
    assert.equal(final.choices[0].finish_reason, 'tool_calls');
    const r = rewriteChatCompletion(upstreamResponse(REPLY), { tools: TOOLS, ...opts });
    assert.deepEqual(r.choices[0].message.tool_calls.map((tc) => tc.function.name), want);
  }
});

test('responseOptions reads the request', () => {
  assert.deepEqual(responseOptions({}), { toolChoice: null, parallelToolCalls: null });
  assert.deepEqual(responseOptions({ tool_choice: NAMED, parallel_tool_calls: false, tools: TOOLS }), {
    toolChoice: NAMED,
    parallelToolCalls: false,
  });
  for (const c of ['none', 'auto', 'required']) assert.equal(responseOptions({ tool_choice: c }).toolChoice, c);
  for (const bad of [
    { tool_choice: 'always' },
    { tool_choice: { type: 'function' } },
    { tool_choice: { type: 'function', function: { name: '' } } },
    { parallel_tool_calls: 'no' },
    [],
  ]) {
    assert.throws(() => responseOptions(bad), OpenAIFormatError);
  }
});

test('bad toolChoice and parallelToolCalls are OptionsErrors', () => {
  for (const o of [{ toolChoice: 'sometimes' }, { toolChoice: { name: 'x' } }, { parallelToolCalls: 0 }]) {
    assert.throws(() => new ChatCompletionStreamRewriter(o), OptionsError);
    assert.throws(() => rewriteChatCompletion(upstreamResponse(REPLY), o), OptionsError);
  }
});

test('stats count the calls sent', () => {
  const stats = {};
  rewriteChatCompletion(upstreamResponse(REPLY), { tools: TOOLS, parallelToolCalls: false, stats });
  assert.equal(stats.calls, 1);
  assert.equal(stats.blocks, 1);
  assert.equal(stats.rejectedCalls, 0);
  let rw = new ChatCompletionStreamRewriter({ tools: TOOLS, toolChoice: NAMED, streamArguments: true });
  for (const c of upstreamChunks(REPLY, 2)) rw.feed(c);
  rw.finish();
  assert.equal(rw.stats.calls, 1);
  assert.equal(rw.stats.blocks, 1);
  rw = new ChatCompletionStreamRewriter({ tools: TOOLS, toolChoice: 'none' });
  const out = upstreamChunks(REPLY, 5).flatMap((c) => rw.feed(c));
  assert.equal(rw.stats.calls, 0);
  assert.equal(rw.stats.blocks, 0);
  assert.equal(out.map((c) => c.choices[0].delta.content || '').join(''), REPLY);
});

test('a named toolChoice resolves call names', () => {
  const text = `<|DSML|tool_calls>\n${invoke('Read_File', 'x')}${invoke('mcp.read_file', 'y')}</|DSML|tool_calls>`;
  const r = rewriteChatCompletion(upstreamResponse(text), { toolChoice: NAMED });
  assert.deepEqual(
    r.choices[0].message.tool_calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]),
    [['read_file', { path: 'x' }], ['read_file', { path: 'y' }]],
  );
});
