'use strict';
/**
 * The Node gateway server (src/server.js) in-process, in front of a real local upstream
 * (node:http): rewriting, comments, cancellation on disconnect, metrics, flags. The same server
 * as a process, read by the official openai SDK, is tested in python/tests/test_server.py.
 */

const assert = require('node:assert/strict');
const http = require('node:http');
const { test } = require('node:test');
const { once } = require('node:events');

const { createGatewayServer, parseGatewayArgs, presetPattern, choosePreset, UsageError } = require('../../src/server');
const { SSEParser } = require('../../src/sse');

const REPLY = 'Reading.\n<|DSML|tool_calls><|DSML|invoke name="read_file"><|DSML|parameter name="path">a.txt</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>';
// the opening wrapper is missing: the sieve repairs the block (R3)
const REPAIR = 'Reading.\n<|DSML|invoke name="read_file"><|DSML|parameter name="path">a.txt</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>';

const BLANKS = 400000; // quadratic trimming of a blank run takes minutes at this length

function chunk(content, finish = null) {
  return `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }] })}\n\n`;
}

async function listen(server) {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${server.address().port}`;
}

async function withServers(fn, log = null, extra = {}) {
  const seen = { cancels: 0, bodies: [] };
  const upstream = http.createServer((req, res) => {
    const parts = [];
    req.on('data', (p) => parts.push(p));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString());
      seen.bodies.push(body);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.on('close', () => {
        if (!res.writableFinished) seen.cancels += 1;
      });
      if (body.model === 'slow') {
        const t = setInterval(() => res.write(chunk('tick ')), 20);
        res.on('close', () => clearInterval(t));
        return;
      }
      if (body.model === 'blanks') {
        // one event with a long run of JSON blanks inside and around it
        const c = chunk('spaced').slice('data: '.length, -2).replace('{"id"', `{${' '.repeat(BLANKS)}"id"`);
        res.end(`data:  \t${c}${' '.repeat(BLANKS)}\r\n\ndata: ${' '.repeat(BLANKS)}[DONE]${' '.repeat(BLANKS)}\n\n`);
        return;
      }
      let out = ': keep-alive\n\n';
      const reply = body.model === 'repair' ? REPAIR : REPLY;
      for (let i = 0; i < reply.length; i += 5) out += chunk(reply.slice(i, i + 5));
      out += chunk(null, 'stop') + 'data: [DONE]\n\n';
      // cut the bytes anywhere
      const buf = Buffer.from(out);
      let i = 0;
      const step = () => {
        if (i >= buf.length) return res.end();
        res.write(buf.subarray(i, i + 13));
        i += 13;
        setImmediate(step);
      };
      step();
    });
  });
  const upUrl = await listen(upstream);
  const gw = createGatewayServer({ upstream: upUrl + '/v1', log, ...extra });
  const gwUrl = await listen(gw);
  try {
    await fn(gwUrl, seen, gw);
  } finally {
    gw.closeAllConnections();
    upstream.closeAllConnections();
    gw.close();
    upstream.close();
  }
}

test('a stream is rewritten, comments pass, [DONE] is kept', async () => {
  await withServers(async (url) => {
    const res = await fetch(url + '/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [] }),
    });
    assert.equal(res.status, 200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const text = Buffer.from(bytes).toString();
    assert.ok(text.startsWith(': keep-alive\n\n'));
    assert.ok(text.endsWith('data: [DONE]\n\n'));
    const p = new SSEParser();
    const events = [...p.feed(bytes), ...p.finish()].filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
    const content = events.map((e) => e.choices[0].delta.content || '').join('');
    const calls = events.flatMap((e) => e.choices[0].delta.tool_calls || []);
    assert.equal(content, 'Reading.\n');
    assert.deepEqual(calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]), [['read_file', { path: 'a.txt' }]]);
    assert.equal(events.at(-1).choices[0].finish_reason, 'tool_calls');
    const metrics = await (await fetch(url + '/metrics')).text();
    assert.match(metrics, /callsieve_tool_calls_total 1/);
    assert.match(metrics, /callsieve_repaired_blocks_total 0/);
    assert.match(metrics, /callsieve_requests_total\{endpoint="chat",status="200"\} 1/);
  });
});

test('long runs of blanks in and around upstream events cost linear time', { timeout: 20000 }, async () => {
  await withServers(async (url) => {
    const res = await fetch(url + '/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'blanks', stream: true, messages: [] }),
    });
    const text = await res.text();
    assert.match(text, /"content":"spaced"/);
    assert.ok(text.endsWith('data: [DONE]\n\n'));
  });
});

test('a reply the sieve repairs logs repaired=1 and counts it in /metrics', async () => {
  const lines = [];
  await withServers(async (url) => {
    const res = await fetch(url + '/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'repair', stream: true, messages: [] }),
    });
    const text = await res.text();
    assert.match(text, /"tool_calls":\[\{"index":0/);
    for (let i = 0; i < 100 && !lines.some((l) => l.includes(' stream=yes ')); i++) await new Promise((r) => setTimeout(r, 10));
    const line = lines.find((l) => l.includes(' stream=yes '));
    assert.match(line, / blocks=1 calls=1 rejected=- repaired=1 capture_limit=0/);
    const metrics = await (await fetch(url + '/metrics')).text();
    assert.match(metrics, /callsieve_repaired_blocks_total 1\n/);
    assert.match(metrics, /callsieve_blocks_total 1\n/);
  }, (l) => lines.push(l));
});

test('a client that leaves cancels the upstream request at once', async () => {
  await withServers(async (url, seen) => {
    const ac = new AbortController();
    const res = await fetch(url + '/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'slow', stream: true, messages: [] }),
      signal: ac.signal,
    });
    const reader = res.body.getReader();
    await reader.read();
    ac.abort();
    const t0 = Date.now();
    while (seen.cancels === 0 && Date.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 10));
    assert.equal(seen.cancels, 1);
    assert.ok(Date.now() - t0 < 1000, `took ${Date.now() - t0} ms`);
  });
});

test('flags: defaults, environment, usage errors', () => {
  assert.deepEqual(parseGatewayArgs(['--upstream', 'http://u/v1'], {}), {
    upstream: 'http://u/v1',
    host: '127.0.0.1',
    port: 8080,
    mode: 'passthrough',
    unknownTools: 'keep',
    timeout: 600,
    keepalive: 15,
    streamArguments: false,
    forwardClientKey: false,
    maxBodyBytes: 16 * 1024 * 1024,
    logLevel: 'info',
    logFormat: 'text',
    workers: 1,
  });
  assert.equal(parseGatewayArgs(['--upstream', 'http://u', '--workers', '3'], {}).workers, 3);
  assert.equal(parseGatewayArgs(['--upstream', 'http://u'], { CALLSIEVE_WORKERS: '2' }).workers, 2);
  const more = parseGatewayArgs(['--upstream', 'http://u', '--formats', 'dsml, tokens', '--reasoning', 'open', '--stream-arguments'], {});
  assert.deepEqual([more.formats, more.reasoning, more.streamArguments], [['dsml', 'tokens'], 'open', true]);
  assert.equal(parseGatewayArgs(['--upstream', 'http://u'], { CALLSIEVE_STREAM_ARGUMENTS: 'YES' }).streamArguments, true);
  assert.equal(parseGatewayArgs(['--upstream', 'http://u'], { CALLSIEVE_STREAM_ARGUMENTS: 'off' }).streamArguments, false);
  const env = { CALLSIEVE_UPSTREAM: 'https://u', CALLSIEVE_MODE: 'prompt', CALLSIEVE_PORT: '0' };
  const c = parseGatewayArgs([], env);
  assert.equal(c.mode, 'prompt');
  assert.equal(c.port, 0);
  assert.equal(parseGatewayArgs(['--mode', 'passthrough'], env).mode, 'passthrough'); // a flag beats the environment
  for (const [argv, e] of [
    [[], {}],
    [['--upstream', 'http://u', '--nope'], {}],
    [['--upstream', 'http://u', '--mode', 'x'], {}],
    [['--upstream', 'http://u', '--port', '-1'], {}],
    [['--upstream', 'http://u', '--timeout', '0'], {}],
    [['--upstream', 'u'], {}],
    [['--upstream', 'http://u'], { CALLSIEVE_UNKNOWN_TOOLS: 'drop' }],
    [['--upstream', 'http://u', 'extra'], {}],
    [['--upstream', 'http://u', '--formats', 'dsml,xml'], {}],
    [['--upstream', 'http://u', '--reasoning', 'on'], {}],
    [['--upstream', 'http://u'], { CALLSIEVE_STREAM_ARGUMENTS: 'maybe' }],
    [['--upstream', 'http://u', '--stream-arguments=yes'], {}],
    [['--upstream', 'http://u', '--workers', '0'], {}],
    [['--upstream', 'http://u', '--workers', '1.5'], {}],
    [['--upstream', 'http://u', '--preset', 'nope'], {}],
    [['--upstream', 'http://u', '--preset-map', 'qwen*'], {}],
    [['--upstream', 'http://u', '--preset-map', '=qwen3'], {}],
    [['--upstream', 'http://u', '--preset-map', ','], {}],
    [['--upstream', 'http://u'], { CALLSIEVE_PRESET_MAP: 'qwen*=qwen3,x=nope' }],
  ]) {
    assert.throws(() => parseGatewayArgs(argv, e), UsageError, JSON.stringify(argv));
  }
});

test('flags: --preset and --preset-map (repeated, or the variable with commas)', () => {
  const a = parseGatewayArgs(['--upstream', 'http://u', '--preset', 'gpt-oss', '--preset-map', 'q*=qwen3', '--preset-map', ' *K2* = kimi-k2 '], {});
  assert.deepEqual([a.preset, a.presetMap], ['gpt-oss', [['q*', 'qwen3'], ['*K2*', 'kimi-k2']]]);
  const b = parseGatewayArgs(['--upstream', 'http://u'], { CALLSIEVE_PRESET: 'gpt-oss', CALLSIEVE_PRESET_MAP: 'q*=qwen3, *K2* = kimi-k2' });
  assert.deepEqual([b.preset, b.presetMap], [a.preset, a.presetMap]);
  assert.throws(() => parseGatewayArgs(['--upstream', 'http://u', '--preset', 'x'], {}), /unknown preset "x" \(known: deepseek-v3, .*gpt-oss\)/);
  assert.throws(() => createGatewayServer({ upstream: 'http://u', presetMap: [['q*', 'nope']] }), UsageError);
  assert.throws(() => createGatewayServer({ upstream: 'http://u', presetMap: ['q*=qwen3'] }), UsageError);
});

test('preset patterns: fnmatch without case, the first match, then the fallback', () => {
  const yes = (p, m) => presetPattern(p)(m);
  assert.ok(yes('qwen3-coder*', 'Qwen3-Coder-30B'));
  assert.ok(yes('*GPT-OSS*', 'openai/gpt-oss-120b'));
  assert.ok(yes('t[a-i]ink', 'think') && !yes('t[!a-i]ink', 'think') && yes('t[!a-g]ink', 'THINK'));
  assert.ok(yes('[]]', ']') && yes('[!]]', 'x') && !yes('[!]]', ']'));
  assert.ok(!yes('[z-a]', 'm') && yes('[!z-a]', 'm')); // a reversed range matches nothing
  assert.ok(yes('[', '[') && yes('a[b', 'a[b') && yes('[a-]', '-') && yes('[-a]', '-'));
  assert.ok(yes('?', '\n') && !yes('?', '') && yes('*', '') && !yes('a', 'ab') && !yes('ab', 'a'));
  assert.ok(yes('a*b*c', 'aXbYc') && !yes('a*b*c', 'aXbYcd') && yes('\\*', '\\anything'));
  assert.ok(yes('😀?', '😀x') && yes('[😀-😂]', '😁')); // characters, not UTF-16 halves
  const pats = [[presetPattern('qwen3*'), 'qwen3'], [presetPattern('qwen3-coder*'), 'qwen3-coder']];
  assert.equal(choosePreset('Qwen3-Coder', pats, null), 'qwen3');
  assert.equal(choosePreset('glm-4.6', pats, 'glm-4.5'), 'glm-4.5');
  assert.equal(choosePreset(['qwen3'], pats, null), null);
  // linear in the model id: many stars against a long id of the client's
  const t0 = performance.now();
  assert.ok(!yes('*a*a*a*a*a*a*a*a*b', 'a'.repeat(1000000)));
  assert.ok(performance.now() - t0 < 2000, `took ${performance.now() - t0} ms`);
});

test('tool_choice and parallel_tool_calls reach the rewriter; a value OpenAI refuses is a 400', async () => {
  await withServers(async (url, seen) => {
    const post = (extra) => fetch(url + '/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [], ...extra }),
    });
    const read = async (res) => {
      const p = new SSEParser();
      const events = [...p.feed(new Uint8Array(await res.arrayBuffer())), ...p.finish()].filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
      return [
        events.map((e) => e.choices[0].delta.content || '').join(''),
        events.flatMap((e) => e.choices[0].delta.tool_calls || []).map((c) => c.function.name),
        events.map((e) => e.choices[0].finish_reason).filter(Boolean),
      ];
    };
    assert.deepEqual(await read(await post({ tool_choice: { type: 'function', function: { name: 'write_file' } } })), ['Reading.\n', [], ['stop']]);
    assert.deepEqual(await read(await post({ tool_choice: 'none' })), [REPLY, [], ['stop']]);
    assert.deepEqual(await read(await post({ tool_choice: 'required', parallel_tool_calls: false })), ['Reading.\n', ['read_file'], ['tool_calls']]);
    const sent = seen.bodies.length;
    for (const extra of [{ tool_choice: 'sometimes' }, { parallel_tool_calls: 'yes' }]) {
      const res = await post(extra);
      assert.equal(res.status, 400);
      const { error } = await res.json();
      assert.deepEqual(Object.keys(error).sort(), ['code', 'message', 'param', 'type']);
      assert.equal(error.type, 'invalid_request_error');
      assert.ok(error.message.includes(Object.keys(extra)[0]), error.message);
    }
    assert.equal(seen.bodies.length, sent); // nothing went upstream
  });
});

test('presetMap chooses the preset by model id, else preset; logged and counted', async () => {
  const lines = [];
  await withServers(async (url) => {
    const post = (model) => fetch(url + '/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [] }),
    }).then((r) => r.text());
    assert.doesNotMatch(await post('Qwen3-Coder-30B'), /"tool_calls":/); // qwen3-coder: DSML is not its format (its markup stays content)
    assert.match(await post('m'), /"tool_calls":\[\{"index":0/); // deepseek-v4
    for (let i = 0; i < 100 && lines.filter((l) => l.includes(' stream=yes ')).length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(lines.filter((l) => l.includes(' stream=yes ')).map((l) => / preset=(\S+) /.exec(l)[1]), ['qwen3-coder', 'deepseek-v4']);
    const metrics = await (await fetch(url + '/metrics')).text();
    assert.match(metrics, /^callsieve_preset_requests_total\{preset="qwen3-coder"\} 1$/m);
    assert.match(metrics, /^callsieve_preset_requests_total\{preset="deepseek-v4"\} 1$/m);
  }, (l) => lines.push(l), { preset: 'deepseek-v4', presetMap: [['QWEN3-coder*', 'qwen3-coder']] });
});

test('chunkJSON writes what jsonText writes', () => {
  const { chunkJSON } = require('../../src/sse');
  const { jsonText } = require('../../src/jsontext');
  const values = [
    { a: 1, b: [true, null, 'x'] },
    { a: 1.0, b: 1e21, c: 1e-7, d: -0 },
    { 2: 'x', 1: 'y', a: { 10: 1, b: 2 } },
    { s: 'lone \ud800 surrogate', t: 'pair 😀' },
    { x: NaN, y: [undefined, 1], z: undefined },
    JSON.parse('{"__proto__": {"a": 1}, "b": 2}'),
    { d: new Date(0), m: new Map([[1, 2]]) },
  ];
  for (const v of values) {
    let want;
    try {
      want = jsonText(v);
    } catch (e) {
      assert.throws(() => chunkJSON(v), e.constructor);
      continue;
    }
    assert.equal(chunkJSON(v), want);
  }
});

test('the package exports the gateway: require and import of callsieve, the example uses them', async () => {
  const cjs = require('callsieve');
  const esm = await import('callsieve');
  const src = require('../../src/server');
  for (const name of ['createGatewayServer', 'gatewayHandler', 'parseGatewayArgs']) {
    assert.equal(typeof cjs[name], 'function', name);
    assert.equal(esm[name], cjs[name], name);
    assert.equal(esm.default[name], cjs[name], name);
  }
  assert.ok(cjs.createGatewayServer({ upstream: 'http://u/v1', log: null }) instanceof http.Server);
  const h = cjs.gatewayHandler({ upstream: 'http://u/v1', log: null });
  assert.equal(typeof h, 'function');
  assert.deepEqual(cjs.parseGatewayArgs(['--upstream', 'http://u'], {}), src.parseGatewayArgs(['--upstream', 'http://u'], {}));
  const example = require('node:fs').readFileSync(require.resolve('../../examples/gateway.js'), 'utf8');
  assert.match(example, /require\('callsieve'\)/);
  assert.doesNotMatch(example, /\.\.\/src/);
  // the example runs as printed, in front of a real upstream
  const upstream = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"object":"list","data":[]}');
  });
  const upUrl = await listen(upstream);
  const { spawn } = require('node:child_process');
  const child = spawn(process.execPath, [require.resolve('../../examples/gateway.js'), '--upstream', upUrl + '/v1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const [line] = await once(child.stdout, 'data');
    const url = /http:\/\/\S+/.exec(String(line))[0];
    const r = await fetch(url + '/v1/models');
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { object: 'list', data: [] });
  } finally {
    child.kill('SIGTERM');
    upstream.closeAllConnections();
    upstream.close();
  }
});

test('in process: client keys, the 413, JSON 404/405, X-Request-ID', async () => {
  const seen = [];
  const upstream = http.createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'Application/JSON', 'x-request-id': 'up-1' });
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: REPLY }, finish_reason: 'stop' }] }));
    });
  });
  const upUrl = await listen(upstream);
  const gw = createGatewayServer({ upstream: upUrl + '/v1', apiKeys: ['k1'], maxBodyBytes: 500, log: null });
  const url = await listen(gw);
  const post = (body, headers = {}) =>
    fetch(url + '/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  try {
    let r = await post('{"model":"m","messages":[]}');
    assert.equal(r.status, 401);
    assert.equal((await r.json()).error.code, 'invalid_api_key');
    r = await post('{"model":"m","messages":[]}', { authorization: 'Bearer k1', 'x-request-id': 'abc' });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-request-id'), 'abc');
    assert.equal(r.headers.get('x-upstream-request-id'), 'up-1');
    const out = await r.json();
    assert.equal(out.choices[0].message.tool_calls[0].function.name, 'read_file'); // Application/JSON was sieved
    assert.equal(seen.at(-1).authorization, undefined);
    assert.equal(seen.at(-1)['x-request-id'], 'abc');
    r = await post(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(600) }] }), { authorization: 'Bearer k1' });
    assert.equal(r.status, 413);
    assert.equal((await r.json()).error.code, 'request_too_large');
    r = await fetch(url + '/nope');
    assert.equal(r.status, 404);
    assert.equal((await r.json()).error.type, 'invalid_request_error');
    r = await fetch(url + '/health', { method: 'POST' });
    assert.equal(r.status, 405);
    assert.equal(r.headers.get('allow'), 'GET, HEAD');
    assert.ok((await r.json()).error.message);
  } finally {
    gw.closeAllConnections();
    upstream.closeAllConnections();
    gw.close();
    upstream.close();
  }
});
