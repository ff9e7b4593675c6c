'use strict';
/**
 * callsieve/ai-sdk against the real `ai` package (a pinned devDependency): its own test models
 * (`MockLanguageModelV4`, `convertArrayToReadableStream`, `simulateReadableStream`), its
 * `wrapLanguageModel`, and `generateText` / `streamText` end to end.
 */

const assert = require('node:assert/strict');
const { before, test } = require('node:test');

const { callsieveMiddleware } = require('../../ai-sdk.js');
const { OptionsError, InputTypeError } = require('../../src/errors');
const sieveModule = require('../../src/sieve');
const { chunkings, fixtureFiles, load, randomChunks } = require('../support');

let ai;
let aiTest;
before(async () => {
  ai = await import('ai');
  aiTest = await import('ai/test');
});

const BLOCK = (name = 'read_file', path = 'a.txt') =>
  `<|DSML|tool_calls><|DSML|invoke name="${name}"><|DSML|parameter name="path"><![CDATA[${path}]]>` +
  '</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>';
const TOKENS = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path":"t.txt"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
const DOC = `Let me look. ${BLOCK()} Then the other one:\n${BLOCK('read_file', 'b.txt')}\nDone.`;
const DOC_ITEMS = [
  { text: 'Let me look. ' },
  { call: { name: 'read_file', input: { path: 'a.txt' } } },
  { text: ' Then the other one:\n' },
  { call: { name: 'read_file', input: { path: 'b.txt' } } },
  { text: '\nDone.' },
];
const USAGE = {
  inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};
const STOP = { unified: 'stop', raw: 'stop' };
const FUNCTION_TOOLS = [
  { type: 'function', name: 'read_file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
];

const ids = () => {
  let n = 0;
  return () => `call_${++n}`;
};

/** The stream parts a provider would send for `deltas` in one text block. */
function textParts(deltas, { id = 'txt', finishReason = STOP, before = [], after = [] } = {}) {
  return [
    { type: 'stream-start', warnings: [] },
    ...before,
    { type: 'text-start', id },
    ...deltas.map((delta) => ({ type: 'text-delta', id, delta })),
    { type: 'text-end', id },
    ...after,
    { type: 'finish', finishReason, usage: USAGE },
  ];
}

function mockModel({ parts, text, finishReason = STOP }) {
  return new aiTest.MockLanguageModelV4({
    doStream: async () => ({ stream: aiTest.convertArrayToReadableStream(parts) }),
    doGenerate: async () => ({ content: [{ type: 'text', text }], finishReason, usage: USAGE, warnings: [] }),
  });
}

function wrapped(base, options = {}) {
  return ai.wrapLanguageModel({ model: base, middleware: callsieveMiddleware({ idFactory: ids(), ...options }) });
}

/** The stream parts of one doStream call on the wrapped model. */
async function streamParts(deltas, options = {}, params = {}) {
  const model = wrapped(mockModel({ parts: textParts(deltas) }), options);
  const { stream } = await model.doStream({ prompt: [], ...params });
  return aiTest.convertReadableStreamToArray(stream);
}

/** Text, reasoning and calls in order, adjacent pieces joined: what a chunking must not change. */
function items(parts) {
  const out = [];
  for (const p of parts) {
    const kind = { 'text-delta': 'text', text: 'text', 'reasoning-delta': 'reasoning', reasoning: 'reasoning' }[p.type];
    if (kind && (p.delta ?? p.text)) {
      const t = p.delta ?? p.text;
      const last = out[out.length - 1];
      if (last && kind in last) last[kind] += t;
      else out.push({ [kind]: t });
    } else if (p.type === 'tool-call') {
      out.push({ call: { name: p.toolName, input: JSON.parse(p.input) } });
    }
  }
  return out;
}

/** The spec's shape rules: deltas inside an open text block; each call's input parts match it. */
function checkShape(parts, oneBlock = true) {
  const open = new Set();
  const inputs = new Map();
  for (const p of parts) {
    switch (p.type) {
      case 'text-start':
        assert.ok(!open.has(p.id), `text-start ${p.id} twice`);
        open.add(p.id);
        break;
      case 'text-delta':
        assert.ok(open.has(p.id), `text-delta outside its block ${p.id}`);
        assert.ok(p.delta.length > 0, 'empty text-delta');
        break;
      case 'text-end':
        assert.ok(open.delete(p.id), `text-end without text-start ${p.id}`);
        break;
      case 'reasoning-start':
        assert.ok(!open.has(`r:${p.id}`), `reasoning-start ${p.id} twice`);
        open.add(`r:${p.id}`);
        break;
      case 'reasoning-delta':
        assert.ok(open.has(`r:${p.id}`), `reasoning-delta outside its block ${p.id}`);
        assert.ok(p.delta.length > 0, 'empty reasoning-delta');
        break;
      case 'reasoning-end':
        assert.ok(open.delete(`r:${p.id}`), `reasoning-end without reasoning-start ${p.id}`);
        break;
      case 'tool-input-start':
        inputs.set(p.id, { name: p.toolName, text: '', ended: false });
        break;
      case 'tool-input-delta':
        inputs.get(p.id).text += p.delta;
        break;
      case 'tool-input-end':
        inputs.get(p.id).ended = true;
        break;
      case 'tool-call': {
        if (!p.toolCallId.startsWith('call_')) break; // the provider's own call, passed through
        const i = inputs.get(p.toolCallId);
        assert.ok(i && i.ended, `tool-call ${p.toolCallId} without its tool-input parts`);
        assert.equal(i.name, p.toolName);
        assert.equal(i.text, p.input);
        if (oneBlock) assert.equal(open.size, 0, 'a tool-call inside an open text block');
        break;
      }
      default:
    }
  }
  assert.equal(open.size, 0, 'a text block left open');
}

const CHUNKINGS = (text) => ({
  whole: [text],
  chars: Array.from(text),
  random1: randomChunks(text, 1),
  random2: randomChunks(text, 2, 1, 40),
  random3: randomChunks(text, 3, 5, 200),
});

test('stream: markup in text becomes tool-call parts, the same at every chunking, nothing leaks', async () => {
  for (const [how, deltas] of Object.entries(CHUNKINGS(DOC))) {
    const parts = await streamParts(deltas);
    checkShape(parts);
    assert.deepEqual(items(parts), DOC_ITEMS, how);
    for (const p of parts) if (p.type === 'text-delta') assert.doesNotMatch(p.delta, /DSML|CDATA|tool_calls/, how);
    const finish = parts[parts.length - 1];
    assert.deepEqual(finish.finishReason, { unified: 'tool-calls', raw: 'stop' }, how);
    assert.deepEqual(finish.usage, USAGE);
    // Text blocks split around the calls keep the order: txt, call, txt-1, call, txt-2.
    const order = parts.filter((p) => p.type === 'text-start' || p.type === 'tool-call').map((p) => p.id ?? p.toolName);
    assert.deepEqual(order, ['txt', 'read_file', 'txt-1', 'read_file', 'txt-2'], how);
    assert.deepEqual(parts.filter((p) => p.type === 'tool-call').map((p) => p.toolCallId), ['call_1', 'call_2']);
  }
});

test('stream: a text with no markup passes through, the finish reason unchanged', async () => {
  const parts = await streamParts(['Hello ', 'world, a < b and ', '<b>bold</b>.']);
  checkShape(parts);
  assert.deepEqual(items(parts), [{ text: 'Hello world, a < b and <b>bold</b>.' }]);
  assert.deepEqual(parts[parts.length - 1].finishReason, STOP);
  assert.equal(parts.filter((p) => p.type === 'tool-call').length, 0);
});

test('stream: a text block that is all markup leaves no empty text part; an empty block stays', async () => {
  const parts = await streamParts(Array.from(BLOCK()));
  checkShape(parts);
  assert.deepEqual(parts.map((p) => p.type), ['stream-start', 'tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call', 'finish']);
  const empty = await streamParts([]);
  assert.deepEqual(empty.map((p) => p.type), ['stream-start', 'text-start', 'text-end', 'finish']);
});

test('stream: every fixture through the middleware at every chunking gives its events (text, reasoning, calls)', async () => {
  let n = 0;
  for (const file of fixtureFiles()) {
    const c = load(file);
    if (c.options && c.options.streamArguments) continue; // R16: not an option of the middleware yet
    const want = [];
    for (const e of c.expected.events) {
      if (e.type === 'text' || e.type === 'reasoning') want.push(e);
      else for (const call of e.calls) want.push({ type: 'tool-call', toolName: call.name, input: JSON.stringify(call.input) });
    }
    const expected = items(want);
    const rejected = [...new Set(c.expected.events.flatMap((e) => e.rejectedToolNames || []))];
    // Whole, one random chunking, the fixture's own, and one character a part up to 400
    // characters: each part costs stream machinery, and fixtures.test.js already runs the Sieve
    // itself at every chunking of every fixture; here it is the mapping to parts that is tested.
    const ways = chunkings(c);
    delete ways.random1;
    delete ways.random2;
    if (c.input.length > 400) delete ways.chars;
    for (const [how, deltas] of Object.entries(ways)) {
      const parts = await streamParts(deltas, c.options || {});
      checkShape(parts);
      assert.deepEqual(items(parts), expected, `${file} (${how})`);
      const finish = parts[parts.length - 1];
      const got = finish.providerMetadata ? finish.providerMetadata.callsieve.rejectedToolNames : [];
      assert.deepEqual(got, rejected, `${file} (${how}): rejected names`);
      n += 1;
    }
  }
  assert.ok(n > 1000, `${n} runs`);
});

test('generate: text parts become text and tool-call parts in order; finish reason tool-calls', async () => {
  const model = wrapped(mockModel({ text: DOC }));
  const result = await model.doGenerate({ prompt: [] });
  assert.deepEqual(items(result.content), DOC_ITEMS);
  assert.deepEqual(result.content.map((p) => p.type), ['text', 'tool-call', 'text', 'tool-call', 'text']);
  assert.deepEqual(result.finishReason, { unified: 'tool-calls', raw: 'stop' });
  // No markup: the very same result object.
  const plain = new aiTest.MockLanguageModelV4({
    doGenerate: { content: [{ type: 'text', text: 'hi <b>' }], finishReason: STOP, usage: USAGE, warnings: [] },
  });
  const same = await plain.doGenerate({ prompt: [] });
  const through = await wrapped(plain).doGenerate({ prompt: [] });
  assert.deepEqual(through, same);
});

test('generate: other content parts pass unchanged; the first text piece keeps the part\'s metadata', async () => {
  const reasoning = { type: 'reasoning', text: `thinking about ${BLOCK()}` };
  const native = { type: 'tool-call', toolCallId: 'native', toolName: 'ls', input: '{}' };
  const meta = { mock: { item: 'x' } };
  const base = new aiTest.MockLanguageModelV4({
    doGenerate: {
      content: [reasoning, { type: 'text', text: `a ${BLOCK()} b`, providerMetadata: meta }, native],
      finishReason: { unified: 'length', raw: 'max_tokens' },
      usage: USAGE,
      warnings: [],
    },
  });
  const result = await wrapped(base).doGenerate({ prompt: [] });
  assert.deepEqual(result.content, [
    reasoning,
    { type: 'text', text: 'a ', providerMetadata: meta },
    { type: 'tool-call', toolCallId: 'call_1', toolName: 'read_file', input: '{"path":"a.txt"}' },
    { type: 'text', text: ' b' },
    native,
  ]);
  assert.deepEqual(result.finishReason, { unified: 'length', raw: 'max_tokens' }, 'only stop becomes tool-calls');
});

test('generate and stream agree: the same items at every chunking', async () => {
  const text = `intro ${TOKENS} mid ${BLOCK('Read_File', 'c')} \`${BLOCK('x')}\` end`;
  const generated = items((await wrapped(mockModel({ text })).doGenerate({ prompt: [], tools: FUNCTION_TOOLS })).content);
  assert.equal(generated.filter((i) => i.call).length, 2);
  assert.ok(generated.some((i) => i.text && i.text.includes('`<|DSML|tool_calls>')), 'markup in inline code stays text');
  for (const [how, deltas] of Object.entries(CHUNKINGS(text))) {
    assert.deepEqual(items(await streamParts(deltas, {}, { tools: FUNCTION_TOOLS })), generated, how);
  }
});

test('generateText and streamText end to end: toolCalls, text without markup, finishReason', async () => {
  const tools = {
    read_file: ai.tool({ inputSchema: ai.jsonSchema({ type: 'object', properties: { path: { type: 'string' } } }) }),
  };
  const want = [
    { type: 'tool-call', toolCallId: 'call_1', toolName: 'read_file', input: { path: 'a.txt' } },
    { type: 'tool-call', toolCallId: 'call_2', toolName: 'read_file', input: { path: 'b.txt' } },
  ];
  const g = await ai.generateText({ model: wrapped(mockModel({ text: DOC })), prompt: 'read', tools });
  assert.equal(g.text, 'Let me look.  Then the other one:\n\nDone.');
  assert.deepEqual(g.toolCalls.map(({ type, toolCallId, toolName, input }) => ({ type, toolCallId, toolName, input })), want);
  assert.equal(g.finishReason, 'tool-calls');

  for (const [how, deltas] of Object.entries(CHUNKINGS(DOC))) {
    const base = new aiTest.MockLanguageModelV4({
      doStream: async () => ({ stream: aiTest.simulateReadableStream({ chunks: textParts(deltas), chunkDelayInMs: null }) }),
    });
    const s = ai.streamText({ model: wrapped(base), prompt: 'read', tools });
    const seen = [];
    for await (const part of s.fullStream) seen.push(part);
    assert.equal(await s.text, 'Let me look.  Then the other one:\n\nDone.', how);
    assert.deepEqual((await s.toolCalls).map(({ type, toolCallId, toolName, input }) => ({ type, toolCallId, toolName, input })), want, how);
    assert.equal(await s.finishReason, 'tool-calls', how);
    for (const p of seen) if (p.type === 'text-delta') assert.doesNotMatch(p.text, /DSML/, how);
    assert.ok(seen.some((p) => p.type === 'tool-input-start'), 'tool-input parts reach fullStream');
    // The call's tools reached the model unchanged (the middleware reads them, it does not drop them).
    assert.equal(base.doStreamCalls[0].tools[0].name, 'read_file');
  }
});

test('options: the call\'s tools resolve names and shape inputs; the reject policy; explicit tools win', async () => {
  const doc = `${BLOCK('READ_FILE', 'a')} and ${BLOCK('rm', 'b')}`;
  const deltas = randomChunks(doc, 7);
  // Declared by the call (params.tools): names resolve to the declared spelling.
  assert.deepEqual(items(await streamParts(deltas, {}, { tools: FUNCTION_TOOLS })), [
    { call: { name: 'read_file', input: { path: 'a' } } },
    { text: ' and ' },
    { call: { name: 'rm', input: { path: 'b' } } },
  ]);
  // Reject: the undeclared call is left out, its name reported on the finish part.
  const parts = await streamParts(deltas, { unknownTools: 'reject' }, { tools: FUNCTION_TOOLS });
  assert.deepEqual(items(parts), [{ call: { name: 'read_file', input: { path: 'a' } } }, { text: ' and ' }]);
  const finish = parts[parts.length - 1];
  assert.deepEqual(finish.providerMetadata, { callsieve: { rejectedToolNames: ['rm'] } });
  assert.deepEqual(finish.finishReason, { unified: 'tool-calls', raw: 'stop' });
  // Everything rejected: no call, so the finish reason stays stop.
  const none = await streamParts([BLOCK('rm')], { unknownTools: 'reject' }, { tools: FUNCTION_TOOLS });
  assert.deepEqual(items(none), []);
  assert.deepEqual(none[none.length - 1].finishReason, STOP);
  // Explicit tools (with a schema saying integer) win over the call's.
  const tools = [{ name: 'rm', inputSchema: { type: 'object', properties: { path: { type: 'integer' } } } }];
  const explicit = await streamParts([`${BLOCK('rm', '12')}`], { tools, unknownTools: 'reject' }, { tools: FUNCTION_TOOLS });
  assert.deepEqual(items(explicit), [{ call: { name: 'rm', input: { path: 12 } } }]);
  // Without tools anywhere, names stay as written.
  assert.deepEqual(items(await streamParts([BLOCK('READ_FILE', 'x')])), [{ call: { name: 'READ_FILE', input: { path: 'x' } } }]);
  // Provider tools are no declared names for text calls.
  const provider = [{ type: 'provider', id: 'p.search', name: 'search', args: {} }];
  const p = await streamParts([BLOCK('search', 'q')], { unknownTools: 'reject' }, { tools: [...FUNCTION_TOOLS, ...provider] });
  assert.deepEqual(items(p), []);
});

test('options: formats pass through to the sieve', async () => {
  const doc = `a ${TOKENS} b ${BLOCK()}`;
  const dsmlOnly = items(await streamParts(Array.from(doc), { formats: ['dsml'] }));
  assert.deepEqual(dsmlOnly, [{ text: `a ${TOKENS} b ` }, { call: { name: 'read_file', input: { path: 'a.txt' } } }]);
  const all = items(await streamParts(Array.from(doc)));
  assert.deepEqual(all.filter((i) => i.call).length, 2);
});

test('reasoning regions become reasoning parts in place; reasoning: off keeps them as text', async () => {
  const doc = `<think>maybe ${BLOCK('draft')}?</think>Reading. ${BLOCK()} ok`;
  const want = [
    { reasoning: `maybe ${BLOCK('draft')}?` },
    { text: 'Reading. ' },
    { call: { name: 'read_file', input: { path: 'a.txt' } } },
    { text: ' ok' },
  ];
  for (const [how, deltas] of Object.entries(CHUNKINGS(doc))) {
    const parts = await streamParts(deltas);
    checkShape(parts);
    assert.deepEqual(items(parts), want, how);
    const order = parts.filter((p) => (p.type.endsWith('-start') && p.type !== 'stream-start') || p.type === 'tool-call').map((p) => `${p.type}:${p.id ?? p.toolName}`);
    assert.deepEqual(order, ['reasoning-start:txt-0', 'text-start:txt', 'tool-input-start:call_1', 'tool-call:read_file', 'text-start:txt-2'], how);
  }
  const gen = await wrapped(mockModel({ text: doc })).doGenerate({ prompt: [] });
  assert.deepEqual(gen.content.map((p) => p.type), ['reasoning', 'text', 'tool-call', 'text']);
  assert.deepEqual(items(gen.content), want);
  const off = await streamParts([doc], { reasoning: 'off' });
  assert.deepEqual(items(off)[0], { text: '<think>maybe ' });
  const r = await ai.generateText({ model: wrapped(mockModel({ text: doc })), prompt: 'x' });
  assert.equal(r.reasoningText, `maybe ${BLOCK('draft')}?`);
  assert.equal(r.text, 'Reading.  ok');
});

test('options are checked when the middleware is made', () => {
  assert.throws(() => callsieveMiddleware({ tool: [] }), OptionsError);
  assert.throws(() => callsieveMiddleware({ unknownTools: 'drop' }), OptionsError);
  assert.throws(() => callsieveMiddleware({ formats: ['json'] }), OptionsError);
  assert.throws(() => callsieveMiddleware({ reasoning: 'always' }), OptionsError);
  assert.throws(() => callsieveMiddleware({ idFactory: 'x' }), InputTypeError);
  assert.throws(() => callsieveMiddleware([]), InputTypeError);
  assert.equal(callsieveMiddleware(null).specificationVersion, 'v4');
  assert.equal(callsieveMiddleware().specificationVersion, 'v4');
});

test('stream: other parts pass through in place; interleaved text blocks each have their own sieve', async () => {
  const half = BLOCK().length / 2;
  const parts = [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', id: 'r1', modelId: 'm' },
    { type: 'reasoning-start', id: 'r' },
    { type: 'reasoning-delta', id: 'r', delta: 'hmm <|DSML|tool_calls>' },
    { type: 'reasoning-end', id: 'r' },
    { type: 'text-start', id: 'a', providerMetadata: { mock: { n: 1 } } },
    { type: 'text-start', id: 'b' },
    { type: 'text-delta', id: 'a', delta: `A1 ${BLOCK().slice(0, half)}` },
    { type: 'text-delta', id: 'b', delta: 'B1 <|DSML|tool' },
    { type: 'raw', rawValue: { anything: true } },
    { type: 'text-delta', id: 'a', delta: `${BLOCK().slice(half)} A2` },
    { type: 'text-delta', id: 'b', delta: '_calls> is not closed' },
    { type: 'text-end', id: 'a', citations: [] },
    { type: 'tool-call', toolCallId: 'native', toolName: 'ls', input: '{}' },
    { type: 'text-end', id: 'b' },
    { type: 'finish', finishReason: STOP, usage: USAGE },
  ];
  const model = wrapped(new aiTest.MockLanguageModelV4({ doStream: async () => ({ stream: aiTest.convertArrayToReadableStream(parts) }) }));
  const out = await aiTest.convertReadableStreamToArray((await model.doStream({ prompt: [] })).stream);
  checkShape(out, false);
  for (const p of parts.filter((q) => !q.type.startsWith('text-'))) {
    if (p.type !== 'finish') assert.ok(out.includes(p), `${p.type} passes as it is`);
  }
  const textOf = (id) => out.filter((p) => p.type === 'text-delta' && p.id.split('-')[0] === id).map((p) => p.delta).join('');
  assert.equal(textOf('a'), 'A1  A2');
  assert.equal(textOf('b'), 'B1 <|DSML|tool_calls> is not closed');
  const startA = out.filter((p) => p.type === 'text-start' && p.id.startsWith('a'));
  assert.deepEqual(startA.map((p) => [p.id, p.providerMetadata]), [['a', { mock: { n: 1 } }], ['a-1', { mock: { n: 1 } }]]);
  assert.deepEqual(out.find((p) => p.type === 'text-end' && p.id === 'a-1'), { type: 'text-end', id: 'a-1', citations: [] });
  assert.deepEqual(out[out.length - 1].finishReason, { unified: 'tool-calls', raw: 'stop' });
});

test('stream: held text comes out at finish, or at the end, when a block never ends', async () => {
  const half = BLOCK().slice(0, 30);
  const noEnd = [
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: `x ${half}` },
    { type: 'finish', finishReason: STOP, usage: USAGE },
  ];
  const model = wrapped(new aiTest.MockLanguageModelV4({ doStream: async () => ({ stream: aiTest.convertArrayToReadableStream(noEnd) }) }));
  const out = await aiTest.convertReadableStreamToArray((await model.doStream({ prompt: [] })).stream);
  checkShape(out);
  assert.deepEqual(items(out), [{ text: `x ${half}` }]);
  assert.equal(out[out.length - 1].type, 'finish');
  const noFinish = [{ type: 'text-delta', id: 't', delta: `y ${half}` }];
  const model2 = wrapped(new aiTest.MockLanguageModelV4({ doStream: async () => ({ stream: aiTest.convertArrayToReadableStream(noFinish) }) }));
  const out2 = await aiTest.convertReadableStreamToArray((await model2.doStream({ prompt: [] })).stream);
  checkShape(out2);
  assert.deepEqual(items(out2), [{ text: `y ${half}` }]);
});

test('event types a later Sieve may add are never emitted as text', async (t) => {
  const original = sieveModule.Sieve.prototype.feed;
  t.after(() => {
    sieveModule.Sieve.prototype.feed = original;
  });
  sieveModule.Sieve.prototype.feed = function feed(chunk) {
    return [{ type: 'tool_call_start', index: 0, name: 'x' }, { type: 'some_later_kind', text: 'secret' }, ...original.call(this, chunk)];
  };
  const parts = await streamParts(['a ', BLOCK(), ' b']);
  checkShape(parts);
  assert.deepEqual(items(parts), [{ text: 'a ' }, { call: { name: 'read_file', input: { path: 'a.txt' } } }, { text: ' b' }]);
  const gen = await wrapped(mockModel({ text: 'plain' })).doGenerate({ prompt: [] });
  assert.deepEqual(items(gen.content), [{ text: 'plain' }]);
});

test('the core entry does not load the middleware, and the middleware does not load ai', () => {
  const { execFileSync } = require('node:child_process');
  const path = require('node:path');
  const script = `
    require(${JSON.stringify(path.resolve(__dirname, '..', '..', 'index.js'))});
    const core = Object.keys(require.cache).filter((f) => /ai-sdk|node_modules/.test(f));
    require(${JSON.stringify(path.resolve(__dirname, '..', '..', 'ai-sdk.js'))});
    const mw = Object.keys(require.cache).filter((f) => /node_modules/.test(f));
    console.log(JSON.stringify([core, mw]));
  `;
  assert.deepEqual(JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })), [[], []]);
});

test("the model's own call ids are kept, generating and streaming (D63, as the OpenAI layer)", async () => {
  const kimi =
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>' +
    '{"path": "a.txt"}<|tool_call_end|><|tool_calls_section_end|>';
  const text = `Reading. ${kimi} And ${BLOCK('read_file', 'b.txt')}`;
  const want = ['functions.read_file:0', 'call_1'];
  const result = await wrapped(mockModel({ text })).doGenerate({ prompt: [] });
  assert.deepEqual(result.content.filter((p) => p.type === 'tool-call').map((p) => p.toolCallId), want);
  for (const deltas of [Array.from(text), [text]]) {
    const parts = await streamParts(deltas);
    assert.deepEqual(parts.filter((p) => p.type === 'tool-call').map((p) => p.toolCallId), want);
    assert.deepEqual(parts.filter((p) => p.type === 'tool-input-start').map((p) => p.id), want);
  }
});
