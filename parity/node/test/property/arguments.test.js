'use strict';
/**
 * Incremental tool-call arguments (R16) as properties over generated documents: fragments join to
 * the final arguments (R16.3), started calls are kept, chunk invariance, no loss, a bounded hold
 * (R16.4), the OpenAI deltas (R16.5), and the JavaScript-only surrogate-pair case.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { Sieve, coalesce, parse, toOpenAIToolCalls, rewriteChatCompletionStream } = require('../..');
const { eventDict } = require('../../driver.js');
const { Tap, ValueTap, ruledOut } = require('../../src/arguments');
const { collect, kept, mulberry32, randomChunks, sources } = require('../support');
const { documents } = require('../docs');

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'READ_FILE',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          n: { type: 'integer' },
          items: { type: 'array', items: { type: 'string' } },
          q: { type: 'string' },
        },
      },
    },
  },
  { name: 'bash', input_schema: { type: 'object', properties: { command: { type: 'string' } } } },
  { type: 'function', function: { name: 'search' } },
];
const OPTION_SETS = {
  plain: { streamArguments: true },
  declared: { streamArguments: true, tools: TOOLS, unknownTools: 'reject', jsonToolCalls: true },
  open: { streamArguments: true, reasoning: 'open', toolNames: ['read_file', 'bash'] },
};
const DOCS = documents(400, 16);

function run(chunks, opts) {
  const sieve = new Sieve(opts);
  const events = [];
  for (const c of chunks) for (const e of sieve.feed(c)) events.push(e);
  for (const e of sieve.flush()) events.push(e);
  return events;
}

/** Split at random UTF-16 offsets: surrogate pairs get cut too (JavaScript strings allow it). */
function unitChunks(text, seed) {
  const rng = mulberry32(seed);
  const out = [];
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(rng() * 12);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

function chunkings(text, seed) {
  return {
    whole: text ? [text] : [],
    chars: Array.from(text),
    random: randomChunks(text, seed, 1, 10),
    units: unitChunks(text, seed),
  };
}

/**
 * R16.2/R16.3 on one event list: starts count 0, 1, ...; every fragment belongs to a started call
 * whose block has not come out yet; each block's event holds every call started before it, in
 * order; a call's fragments join to exactly JSON.stringify of its final input. Returns the
 * number of started calls.
 */
function checkStarted(events, where) {
  const names = [];
  const args = [];
  const finals = [];
  for (const e of events) {
    if (e.type === 'tool_call_start') {
      assert.equal(e.index, names.length, `${where}: start index`);
      names.push(e.name);
      args.push('');
    } else if (e.type === 'tool_call_arguments') {
      assert.ok(e.index >= finals.length && e.index < names.length, `${where}: fragment of call ${e.index} out of place`);
      assert.ok(e.delta.length > 0, `${where}: empty fragment`);
      args[e.index] += e.delta;
    } else if (e.type === 'tool_calls') {
      finals.push(...e.calls);
      assert.equal(finals.length, names.length, `${where}: a block's event must hold exactly the calls started so far`);
    }
  }
  assert.equal(finals.length, names.length, `${where}: every started call is in a final tool_calls event`);
  finals.forEach((c, i) => {
    assert.equal(names[i], c.name, `${where}: call ${i} name`);
    assert.equal(args[i], JSON.stringify(c.input), `${where}: call ${i} fragments`);
  });
  return names.length;
}

const shape = (events) => JSON.stringify(coalesce(events).map(eventDict));

for (const [label, opts] of Object.entries(OPTION_SETS)) {
  test(`R16 properties over generated documents (${label})`, () => {
    let started = 0;
    let streamed = 0; // calls whose arguments came in more than one fragment
    DOCS.forEach((text, k) => {
      const ways = chunkings(text, k + 1);
      const whole = run(ways.whole, opts);
      const want = shape(whole);
      for (const [name, chunks] of Object.entries(ways)) {
        const where = `doc ${k} [${name}] ${JSON.stringify(text).slice(0, 300)}`;
        const events = name === 'whole' ? whole : run(chunks, opts);
        const n = checkStarted(events, where);
        if (name === 'whole') started += n;
        if (name === 'chars') {
          const pieces = new Map();
          for (const e of events) if (e.type === 'tool_call_arguments') pieces.set(e.index, (pieces.get(e.index) || 0) + 1);
          for (const v of pieces.values()) if (v > 1) streamed += 1;
        }
        assert.ok(kept(sources(events), text), `${where}: no loss (R8.2, D29)`);
        assert.equal(shape(events), want, `${where}: chunk invariance (R16.4)`);
      }
      const calls = [];
      for (const e of whole) if (e.type === 'tool_calls') calls.push(...e.calls);
      assert.deepEqual(parse(text, opts).calls, calls, `doc ${k}: parse() calls`);
    });
    // The documents must exercise the feature, not only pass vacuously.
    const [minStarted, minStreamed] = label === 'open' ? [20, 10] : [100, 40];
    assert.ok(started >= minStarted, `only ${started} started calls`);
    assert.ok(streamed >= minStreamed, `only ${streamed} calls streamed in pieces`);
  });
}

test('without streamArguments no start or argument events come out (R16.1)', () => {
  for (const text of DOCS.slice(0, 100)) {
    for (const e of run([text], { tools: TOOLS })) {
      assert.ok(e.type !== 'tool_call_start' && e.type !== 'tool_call_arguments');
    }
  }
});

const OPEN = '<|DSML|tool_calls><|DSML|invoke name="write_file"><|DSML|parameter name="content">';
const CLOSE = '</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>';

/**
 * Feeds head + value + tail `step` units at a time; returns the events and the largest lag of the
 * value's streamed characters behind the value's characters fed.
 */
function lagOf(head, value, tail, step) {
  const text = head + value + tail;
  const sieve = new Sieve({ streamArguments: true });
  const prefix = '{"content":"';
  let body = ''; // JSON text before the value's first character
  let out = 0; // value characters streamed
  let maxLag = 0;
  const events = [];
  for (let i = 0; i < text.length; i += step) {
    const done = i + step >= head.length + value.length; // the value is all in: lag is over
    for (const e of sieve.feed(text.slice(i, i + step))) {
      events.push(e);
      if (e.type !== 'tool_call_arguments' || done) continue;
      let piece = e.delta;
      if (body.length < prefix.length) {
        body += piece;
        if (body.length < prefix.length) continue;
        piece = body.slice(prefix.length);
      }
      // a fragment never cuts an escape: each one decodes alone
      out += JSON.parse('"' + piece + '"').length;
    }
    const fed = Math.min(Math.max(i + step - head.length, 0), value.length);
    if (fed > 0 && fed < value.length) maxLag = Math.max(maxLag, fed - out);
  }
  events.push(...sieve.flush());
  return [events, maxLag];
}

test('bounded hold: a 1 MB CDATA value fed 16 characters at a time never lags by more than 32 (R16.4)', () => {
  const line = 'if (a[i] < b) { x = "y"; } // 💥 ] > <x> &amp;\n';
  const value = line.repeat(Math.ceil((1 << 20) / line.length)).slice(0, 1 << 20);
  const [events, lag] = lagOf(OPEN + '<![CDATA[', value, ']]>' + CLOSE, 16);
  assert.ok(lag <= 32, `max lag ${lag}`);
  checkStarted(events, 'cdata');
  const calls = events.filter((e) => e.type === 'tool_calls');
  assert.equal(calls.length, 1);
  assert.equal(calls[0].calls[0].input.content, value);
});

test('bounded hold: a long plain-text value with entities streams decoded (R16.4)', () => {
  const line = 'some text &amp; more &#x1F4A5; done, ';
  const value = line.repeat(20000);
  const [events, lag] = lagOf(OPEN, value, CLOSE, 16);
  // fed counts raw characters, out decoded ones: an entity is up to 9 raw characters for 1 or 2
  const expected = value.replace(/&amp;/g, '&').replace(/&#x1F4A5;/g, '💥').trim();
  const calls = events.filter((e) => e.type === 'tool_calls');
  assert.equal(calls[0].calls[0].input.content, expected);
  assert.ok(lag <= 32 + (value.length - expected.length), `max lag ${lag}`);
  checkStarted(events, 'text');
});

test('a long number-like opening is decided in linear time', () => {
  // Looks like a number for 1,000,000 characters, then is ruled out, then holds a long blank run:
  // each piece is looked at once (a rescan per piece takes minutes here, and so does indexing
  // the growing opening, which makes V8 flatten it each time).
  const value = '1'.repeat(1000000) + 'x' + ' '.repeat(200000) + 'y';
  const t0 = process.cpuUsage();
  const [events, lag] = lagOf(OPEN, value, CLOSE, 16);
  const used = process.cpuUsage(t0);
  assert.ok(used.user + used.system < 8e6, `quadratic? ${used.user + used.system} µs of CPU`);
  assert.ok(lag > 999000, 'a number reading is held until it is ruled out');
  assert.equal(events.filter((e) => e.type === 'tool_calls')[0].calls[0].input.content, value);
  checkStarted(events, 'number');
});

test('a surrogate pair split across chunks streams as the pair, never as two escapes', () => {
  const text = OPEN + 'ab💥cd' + CLOSE;
  const cut = text.indexOf('💥') + 1; // between the two UTF-16 units of the emoji
  const chunks = [text.slice(0, cut), text.slice(cut)];
  assert.ok(/[\ud800-\udbff]$/.test(chunks[0]));
  for (const parts of [chunks, unitChunks(text, 3), text.split('')]) {
    const events = run(parts, { streamArguments: true });
    checkStarted(events, 'pair');
    const fragments = events.filter((e) => e.type === 'tool_call_arguments').map((e) => e.delta);
    assert.equal(fragments.join(''), '{"content":"ab💥cd"}');
    for (const f of fragments) assert.ok(!/\\ud[89ab]/i.test(f), `escaped half of a pair in ${JSON.stringify(f)}`);
  }
  // A high surrogate that no low one follows is lone: escaped, as JSON.stringify writes it.
  const lone = OPEN + 'ab\ud83d' + 'cd' + CLOSE;
  const events = run(lone.split(''), { streamArguments: true });
  checkStarted(events, 'lone');
  const joined = events.filter((e) => e.type === 'tool_call_arguments').map((e) => e.delta).join('');
  assert.equal(joined, JSON.stringify({ content: 'ab\ud83dcd' }));
  assert.ok(joined.includes('\\ud83d'));
});

test('ValueTap decides an opening piece by piece exactly as ruledOut decides it whole', () => {
  const rng = mulberry32(7);
  const alphabet = '0123456789.eE+-truefalsn \t\nx';
  const starts = '-0123456789tfn';
  for (let k = 0; k < 3000; k++) {
    let d = starts[Math.floor(rng() * starts.length)];
    const n = Math.floor(rng() * 12);
    for (let i = 0; i < n; i++) d += alphabet[Math.floor(rng() * alphabet.length)];
    if (rng() < 0.3) d = ['true', 'false', 'null'][k % 3] + d.slice(1);
    const tap = new ValueTap('v', null);
    let seen = '';
    for (let i = 0; i < d.length; ) {
      const m = 1 + Math.floor(rng() * 4);
      tap.text(d.slice(i, i + m));
      seen += d.slice(i, i + m);
      i += m;
      const streaming = tap.state === Tap.STREAM;
      assert.equal(streaming, ruledOut(seen), `opening ${JSON.stringify(seen)}`);
      if (streaming) break;
    }
  }
});

test('OpenAI stream with streamArguments: an SDK-style accumulation gives the calls of the sieve (R16.5)', async () => {
  const env = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm' };
  let announced = 0;
  for (const [k, text] of DOCS.slice(0, 150).entries()) {
    const pieces = randomChunks(text, k + 5, 1, 10);
    const upstream = [
      { ...env, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
      ...pieces.map((p) => ({ ...env, choices: [{ index: 0, delta: { content: p }, finish_reason: null }] })),
      { ...env, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    ];
    let n = 0;
    const opts = { tools: TOOLS, unknownTools: 'reject', streamArguments: true, idFactory: () => `call_${++n}` };
    const out = await collect(rewriteChatCompletionStream(upstream, opts));
    const acc = [];
    let content = '';
    for (const chunk of out) {
      for (const choice of chunk.choices) {
        const d = choice.delta || {};
        if (typeof d.content === 'string') content += d.content;
        for (const tc of d.tool_calls || []) {
          if (tc.id !== undefined) {
            assert.equal(tc.index, acc.length, 'a new call takes the next index');
            assert.equal(tc.function.arguments, '', 'the first delta has empty arguments');
            assert.equal(tc.type, 'function');
            acc.push({ id: tc.id, type: 'function', function: { name: tc.function.name, arguments: '' } });
          } else {
            assert.ok(acc[tc.index] !== undefined, 'fragments follow their first delta');
            acc[tc.index].function.arguments += tc.function.arguments;
          }
        }
      }
    }
    announced += acc.length;
    const events = run(pieces, { tools: TOOLS, unknownTools: 'reject', streamArguments: true });
    const calls = [];
    let text2 = '';
    for (const e of events) {
      if (e.type === 'tool_calls') calls.push(...e.calls);
      else if (e.type === 'text') text2 += e.text;
    }
    let m = 0;
    assert.deepEqual(acc, toOpenAIToolCalls(calls, { tools: TOOLS, idFactory: () => `call_${++m}` }), `doc ${k}`);
    assert.equal(content, text2, `doc ${k}: content`);
  }
  assert.ok(announced > 30, `only ${announced} calls`);
});

test('the streamArguments option: a boolean, for Sieve, parse, the stream rewriters and the driver', () => {
  const { InputTypeError, OptionsError, ChatCompletionStreamRewriter, rewriteChatCompletion } = require('../..');
  const { respond } = require('../../src/driver');
  assert.equal(new Sieve().streamArguments, false);
  assert.equal(new Sieve({ streamArguments: true }).streamArguments, true);
  for (const bad of ['yes', 1, null]) {
    assert.throws(() => new Sieve({ streamArguments: bad }), InputTypeError);
    assert.throws(() => parse('x', { streamArguments: bad }), InputTypeError);
    assert.throws(() => new ChatCompletionStreamRewriter({ streamArguments: bad }), InputTypeError);
  }
  assert.throws(() => rewriteChatCompletion({ choices: [] }, { streamArguments: true }), OptionsError);
  const ask = (req) => JSON.parse(respond(JSON.stringify({ id: 'x', ...req })));
  const block = OPEN + 'hi' + CLOSE;
  assert.deepEqual(ask({ op: 'stream', chunks: [block], options: { streamArguments: true } }).result.events.slice(0, 2), [
    { type: 'tool_call_start', index: 0, name: 'write_file' },
    { type: 'tool_call_arguments', index: 0, delta: '{"content":"hi"}' },
  ]);
  assert.equal(ask({ op: 'parse', text: block, options: { streamArguments: 'yes' } }).error.type, 'BadRequest');
  const call = (fn, opts) => ask({ op: 'call', function: fn, args: [fn === 'rewriteChatCompletion' ? { choices: [] } : [], opts] });
  assert.equal(call('rewriteChatCompletion', { streamArguments: false }).error.type, 'BadRequest');
  assert.deepEqual(call('rewriteChatCompletionStream', { streamArguments: true }).result, []);
  assert.equal(call('rewriteChatCompletionStream', { streamArguments: 1 }).error.type, 'InputTypeError');
});

// JSON arguments with escapes in every family that writes its arguments as JSON: a chunk cut right
// after a backslash (in a key, a value, or a string inside a nested value) must not end the string.
const JSON_CALLS = [
  [undefined, (a) => `<tool_call>{"name": "f", "arguments": ${a}}</tool_call>`],
  [undefined, (a) => `<tool_call>{"name": "f", "id": "c1", "arguments": ${a}}</tool_call>`],
  [
    undefined,
    (a) =>
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>' +
      `${a}<|tool_call_end|><|tool_calls_section_end|>`,
  ],
  ['mistral', (a) => `[TOOL_CALLS]f[ARGS]${a}`],
  ['gpt-oss', (a) => `<|channel|>commentary to=functions.f <|constrain|>json<|message|>${a}<|call|>`],
  ['llama3', (a) => `<|python_tag|>{"name": "f", "parameters": ${a}}<|eom_id|>`],
];
const ESCAPED = ['a', 'b', '"', '\\', '/', '\n', '\t', '\u00e9', '\u{1f600}', '<', '>', ']', '}'];

function escapedText(rng) {
  let s = '';
  for (let n = Math.floor(rng() * 7); n > 0; n--) s += ESCAPED[Math.floor(rng() * ESCAPED.length)];
  return s;
}

function jsonValue(rng, depth) {
  const r = rng();
  if (depth > 1 || r < 0.5) return [escapedText(rng), 3, -1, true, null][Math.floor(rng() * 5)];
  const n = Math.floor(rng() * 4);
  if (r < 0.75) return Array.from({ length: n }, () => jsonValue(rng, depth + 1));
  const o = {};
  for (let i = 0; i < n; i++) o[escapedText(rng)] = jsonValue(rng, depth + 1);
  return o;
}

function asciiOnly(json) {
  return json.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

test('JSON arguments with escapes: cut anywhere, the same events and the same arguments', () => {
  const shape = (events) => coalesce(events).map(eventDict);
  for (let seed = 0; seed < 300; seed++) {
    const rng = mulberry32(seed);
    const [preset, template] = JSON_CALLS[seed % JSON_CALLS.length];
    const args = {};
    for (let n = Math.floor(rng() * 4); n > 0; n--) args[escapedText(rng)] = jsonValue(rng, 0);
    const json = rng() < 0.5 ? JSON.stringify(args) : asciiOnly(JSON.stringify(args));
    const text = template(json);
    for (const streamArguments of [false, true]) {
      const opts = { preset, streamArguments };
      const whole = shape(run([text], opts));
      const why = `seed ${seed}: ${JSON.stringify(text)}`;
      assert.deepEqual(shape(run(Array.from(text), opts)), whole, why);
      assert.deepEqual(shape(run(randomChunks(text, seed), opts)), whole, why);
    }
    assert.deepEqual(
      parse(text, { preset }).calls.map((c) => c.input),
      [args],
      `seed ${seed}: ${JSON.stringify(text)}`,
    );
  }
});
