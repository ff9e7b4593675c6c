'use strict';
/**
 * An OpenAI-compatible gateway server in front of an upstream that writes DSML tool-call markup
 * into `content`: the Node twin of python/callsieve/server.py (see its docstring for every
 * behavior), on `node:http` alone. `npx callsieve-gateway --upstream URL` (bin/callsieve-gateway.js)
 * or `createGatewayServer(config)` / `gatewayHandler(config)` for an existing server.
 *
 * POST /v1/chat/completions (streaming and not; `passthrough` or `prompt` mode), GET /v1/models
 * (proxied), GET /healthz, GET /metrics (Prometheus text). A client that disconnects destroys the
 * upstream request at once; upstream SSE comments and empty keep-alives reach the client as
 * comments; the gateway writes `: keep-alive` after `keepalive` seconds without a write; an
 * upstream silent for `timeout` seconds is a 504 before the answer starts, and an error event (no
 * `[DONE]`) after; a cut stream gets no `[DONE]`; a connection failure is a 502. Backpressure: the
 * upstream response is read only while the client's socket takes what is written.
 */

const http = require('node:http');
const https = require('node:https');
const cluster = require('node:cluster');
const { finished } = require('node:stream');
const { parseArgs } = require('node:util');
const { SSEParser, chunkJSON } = require('./sse');
const { ChatCompletionStreamRewriter, rewriteChatCompletion } = require('./openai');
const { preparePromptRequest, rewritesResponse } = require('./request');
const { UsageError } = require('./errors');
const { jsonText } = require('./jsontext');
const { jsonTrim } = require('./strings');
const { checkFormats } = require('./sieve');
const { REASONING_MODES, checkReasoning } = require('./reasoning');

const MODES = ['passthrough', 'prompt'];
const POLICIES = ['keep', 'reject'];
const KEEPALIVE = ': keep-alive\n\n';
const END = Buffer.from('\n\n');
const DONE_TEXT = 'data: [DONE]\n\n';
const HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'content-encoding']);

/** Checked settings with defaults; throws UsageError for a bad value. */
function gatewayConfig(c) {
  const cfg = {
    upstream: c.upstream,
    apiKey: c.apiKey || null,
    mode: c.mode === undefined ? 'passthrough' : c.mode,
    unknownTools: c.unknownTools === undefined ? 'keep' : c.unknownTools,
    timeout: c.timeout === undefined ? 600 : c.timeout,
    connectTimeout: c.connectTimeout === undefined ? 10 : c.connectTimeout,
    keepalive: c.keepalive === undefined ? 15 : c.keepalive,
    formats: c.formats === undefined ? null : c.formats,
    reasoning: c.reasoning === undefined ? 'auto' : c.reasoning,
    streamArguments: c.streamArguments === undefined ? false : c.streamArguments,
    log: c.log === undefined ? (line) => process.stderr.write(line + '\n') : c.log,
  };
  if (typeof cfg.upstream !== 'string' || !/^https?:\/\//.test(cfg.upstream)) {
    throw new UsageError(`upstream must be an http(s) URL, got ${JSON.stringify(cfg.upstream)}`);
  }
  cfg.upstream = cfg.upstream.replace(/\/+$/, '');
  if (!MODES.includes(cfg.mode)) throw new UsageError(`mode must be one of ${MODES.join(', ')}, got ${JSON.stringify(cfg.mode)}`);
  if (!POLICIES.includes(cfg.unknownTools)) {
    throw new UsageError(`unknown-tools must be one of ${POLICIES.join(', ')}, got ${JSON.stringify(cfg.unknownTools)}`);
  }
  try {
    if (cfg.formats !== null) checkFormats(cfg.formats);
    checkReasoning(cfg.reasoning);
  } catch (e) {
    throw new UsageError(e.message);
  }
  if (typeof cfg.streamArguments !== 'boolean') {
    throw new UsageError(`streamArguments must be a boolean, got ${JSON.stringify(cfg.streamArguments)}`);
  }
  for (const k of ['timeout', 'connectTimeout', 'keepalive']) {
    if (typeof cfg[k] !== 'number' || !(cfg[k] > 0) || !Number.isFinite(cfg[k])) {
      throw new UsageError(`${k} must be a positive number of seconds, got ${JSON.stringify(cfg[k])}`);
    }
  }
  return cfg;
}

/** The counters of /metrics, in the Prometheus text format. */
class Metrics {
  constructor() {
    this.requests = new Map(); // "endpoint status" -> count
    this.durationSum = new Map();
    this.blocks = 0;
    this.calls = 0;
    this.rejected = 0;
    this.capture = 0;
    this.repaired = 0;
    this.upstreamErrors = new Map();
    this.disconnects = 0;
    this.active = 0;
  }

  text() {
    const lines = [];
    const counter = (name, help, rows) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
      for (const [labels, v] of rows) lines.push(`${name}_total${labels} ${v}`);
    };
    const label = (obj) =>
      '{' + Object.entries(obj).map(([k, v]) => `${k}="${String(v).replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : '\\' + c))}"`).join(',') + '}';
    counter('callsieve_requests', 'Requests answered', [...this.requests].map(([k, v]) => {
      const [endpoint, status] = k.split(' ');
      return [label({ endpoint, status }), v];
    }));
    lines.push('# HELP callsieve_request_duration_seconds Time from request to the end of the answer');
    lines.push('# TYPE callsieve_request_duration_seconds summary');
    for (const [endpoint, [n, sum]] of this.durationSum) {
      lines.push(`callsieve_request_duration_seconds_count${label({ endpoint })} ${n}`);
      lines.push(`callsieve_request_duration_seconds_sum${label({ endpoint })} ${sum}`);
    }
    counter('callsieve_blocks', 'Tool-call blocks recognized', [['', this.blocks]]);
    counter('callsieve_tool_calls', 'Tool calls emitted', [['', this.calls]]);
    counter('callsieve_rejected_calls', 'Calls dropped by unknown_tools=reject', [['', this.rejected]]);
    counter('callsieve_capture_limit_releases', 'Blocks released as text at max_capture_chars', [['', this.capture]]);
    counter('callsieve_repaired_blocks', 'Blocks the sieve had to repair (R3, D8, D26, D37)', [['', this.repaired]]);
    counter('callsieve_upstream_errors', 'Upstream failures', [...this.upstreamErrors].map(([kind, v]) => [label({ kind }), v]));
    counter('callsieve_client_disconnects', 'Clients that left mid-stream', [['', this.disconnects]]);
    lines.push('# HELP callsieve_active_streams Streams in progress', '# TYPE callsieve_active_streams gauge');
    lines.push(`callsieve_active_streams ${this.active}`);
    return lines.join('\n') + '\n';
  }

  upstreamError(kind) {
    this.upstreamErrors.set(kind, (this.upstreamErrors.get(kind) || 0) + 1);
  }
}

function errorBody(message, type, code = null) {
  return JSON.stringify({ error: { message, type, param: null, code } });
}

function sendJSON(res, status, body) {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function errorEvent(message, type) {
  return Buffer.from(`data: ${errorBody(message, type)}\n\n`);
}

function chunkText(obj) {
  return `data: ${chunkJSON(obj)}\n\n`;
}

async function readBody(req) {
  const parts = [];
  for await (const p of req) parts.push(p);
  return Buffer.concat(parts);
}

/**
 * One upstream request; resolves with the response (headers received) or rejects with `{kind}`.
 * `handle.destroy()` cancels it. A kept-alive connection that the upstream closed just before it
 * was reused (ECONNRESET before any answer) is retried once on a new connection.
 */
function upstreamRequest(cfg, method, path, headers, body) {
  const url = new URL(cfg.upstream + path);
  const mod = url.protocol === 'https:' ? https : http;
  const h = { ...headers };
  if (body) h['content-length'] = body.length;
  const handle = {
    req: null,
    state: { timedOut: false },
    destroyed: false,
    destroy() {
      this.destroyed = true;
      if (this.req) this.req.destroy();
    },
  };
  const attempt = (retry) =>
    new Promise((resolve, reject) => {
      const req = mod.request(url, { method, headers: h, agent: url.protocol === 'https:' ? undefined : AGENT });
      handle.req = req;
      req.setNoDelay(true); // small SSE requests and events: no Nagle delay
      let connected = false;
      const connectTimer = setTimeout(() => {
        if (!connected) req.destroy(Object.assign(new Error('connect timeout'), { kind: 'timeout' }));
      }, cfg.connectTimeout * 1000);
      req.on('socket', (sock) => {
        if (!sock.connecting) connected = true;
        else sock.once('connect', () => (connected = true));
      });
      req.setTimeout(cfg.timeout * 1000, () => {
        handle.state.timedOut = true;
        req.destroy(Object.assign(new Error('upstream silent'), { kind: 'timeout' }));
      });
      req.on('response', (res) => {
        clearTimeout(connectTimer);
        resolve(res);
      });
      req.on('error', (e) => {
        clearTimeout(connectTimer);
        if (retry && req.reusedSocket && !handle.destroyed && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) {
          resolve(attempt(false));
          return;
        }
        reject(e.kind ? e : Object.assign(e, { kind: 'connect' }));
      });
      req.end(body || undefined);
    });
  handle.promise = attempt(true);
  return handle;
}

const AGENT = new http.Agent({ keepAlive: true, maxSockets: Infinity });

function upstreamHeaders(cfg, req) {
  const h = { accept: req.headers.accept || 'application/json' };
  if (cfg.apiKey) h.authorization = `Bearer ${cfg.apiKey}`;
  else if (req.headers.authorization) h.authorization = req.headers.authorization;
  for (const k of ['openai-organization', 'openai-project']) if (req.headers[k]) h[k] = req.headers[k];
  return h;
}

function passHeaders(up) {
  const out = {};
  for (const [k, v] of Object.entries(up.headers)) if (!HOP.has(k)) out[k] = v;
  return out;
}

/** The request handler `(req, res)` of a gateway (see the module comment). */
function gatewayHandler(config) {
  const cfg = gatewayConfig(config);
  const metrics = new Metrics();

  function finish(endpoint, req, status, t0, out) {
    const dt = (performance.now() - t0) / 1000;
    const key = `${endpoint} ${status}`;
    metrics.requests.set(key, (metrics.requests.get(key) || 0) + 1);
    const d = metrics.durationSum.get(endpoint) || [0, 0];
    metrics.durationSum.set(endpoint, [d[0] + 1, d[1] + dt]);
    const st = out.stats || {};
    metrics.blocks += st.blocks || 0;
    metrics.calls += st.calls || 0;
    metrics.rejected += st.rejectedCalls || 0;
    metrics.capture += st.captureLimitReleases || 0;
    metrics.repaired += st.repairedBlocks || 0;
    if (cfg.log) {
      cfg.log(
        `${new Date().toISOString()} callsieve.server ${req.method} ${req.url.split('?')[0]} ${status} ${dt.toFixed(3)}s ` +
          `stream=${out.stream ? 'yes' : 'no'} blocks=${st.blocks || 0} calls=${st.calls || 0} ` +
          `rejected=${(out.rejected || []).join(',') || '-'} repaired=${st.repairedBlocks || 0} ` +
          `capture_limit=${st.captureLimitReleases || 0}` +
          (out.end ? ` end=${out.end}` : ''),
      );
    }
  }

  function failed(e, res, endpoint, req, t0, out) {
    const timeout = e.kind === 'timeout';
    metrics.upstreamError(timeout ? 'timeout' : 'connect');
    const status = timeout ? 504 : 502;
    sendJSON(
      res,
      status,
      timeout
        ? errorBody(`upstream timed out: ${e.message}`, 'upstream_timeout')
        : errorBody(`upstream unreachable: ${e.code || e.message}`, 'upstream_error'),
    );
    finish(endpoint, req, status, t0, out);
  }

  async function plain(upRes) {
    const parts = [];
    for await (const p of upRes) parts.push(p);
    return Buffer.concat(parts);
  }

  async function models(req, res) {
    const t0 = performance.now();
    const upReq = upstreamRequest(cfg, 'GET', '/models', upstreamHeaders(cfg, req), null);
    const promise = upReq.promise;
    res.on('close', () => {
      if (!res.writableFinished) upReq.destroy();
    });
    let up;
    try {
      up = await promise;
    } catch (e) {
      return failed(e, res, 'models', req, t0, {});
    }
    const body = await plain(up);
    res.writeHead(up.statusCode, passHeaders(up));
    res.end(body);
    finish('models', req, up.statusCode, t0, {});
  }

  async function chat(req, res) {
    const t0 = performance.now();
    const out = { stream: false, stats: null, rejected: [], end: '' };
    let raw = await readBody(req);
    let body;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      sendJSON(res, 400, errorBody('the request body is not JSON', 'invalid_request_error'));
      return finish('chat', req, 400, t0, out);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      sendJSON(res, 400, errorBody('the request body must be a JSON object', 'invalid_request_error'));
      return finish('chat', req, 400, t0, out);
    }
    const tools = Array.isArray(body.tools) ? body.tools : null;
    let rewrite = true;
    if (cfg.mode === 'prompt') {
      try {
        raw = Buffer.from(jsonText(preparePromptRequest(body)));
      } catch (e) {
        sendJSON(res, 400, errorBody(String(e.message), 'invalid_request_error'));
        return finish('chat', req, 400, t0, out);
      }
      rewrite = rewritesResponse(body);
    }
    const headers = { ...upstreamHeaders(cfg, req), 'content-type': 'application/json' };
    const upReq = upstreamRequest(cfg, 'POST', '/chat/completions', headers, raw);
    const { promise, state } = upReq;
    let clientGone = false;
    res.on('close', () => {
      if (!res.writableFinished) {
        clientGone = true;
        upReq.destroy(); // the client left: cancel the upstream request now
      }
    });
    let up;
    try {
      up = await promise;
    } catch (e) {
      if (clientGone) return finish('chat', req, 499, t0, { ...out, end: 'client-left' });
      return failed(e, res, 'chat', req, t0, out);
    }
    const ctype = up.headers['content-type'] || '';
    if (up.statusCode < 400 && ctype.startsWith('text/event-stream')) {
      out.stream = true;
      return stream(req, res, up, upReq, state, rewrite ? new ChatCompletionStreamRewriter({
        tools,
        unknownTools: cfg.unknownTools,
        formats: cfg.formats,
        reasoning: cfg.reasoning,
        streamArguments: cfg.streamArguments,
      }) : null, out, t0);
    }
    let data;
    try {
      data = await plain(up);
    } catch (e) {
      if (clientGone) return finish('chat', req, 499, t0, { ...out, end: 'client-left' });
      return failed(state.timedOut ? Object.assign(e, { kind: 'timeout' }) : e, res, 'chat', req, t0, out);
    }
    if (up.statusCode >= 400 || !rewrite || !ctype.startsWith('application/json')) {
      res.writeHead(up.statusCode, passHeaders(up));
      res.end(data);
      return finish('chat', req, up.statusCode, t0, out);
    }
    let text;
    try {
      const stats = {};
      text = jsonText(rewriteChatCompletion(JSON.parse(data.toString('utf8')), {
        tools,
        unknownTools: cfg.unknownTools,
        rejectedToolNames: out.rejected,
        stats,
        formats: cfg.formats,
        reasoning: cfg.reasoning,
      }));
      out.stats = stats;
    } catch (e) {
      metrics.upstreamError('format');
      sendJSON(res, 502, errorBody(`upstream answer cannot be read: ${e.message}`, 'upstream_error'));
      return finish('chat', req, 502, t0, out);
    }
    const h = passHeaders(up);
    h['content-length'] = Buffer.byteLength(text);
    res.writeHead(up.statusCode, h);
    res.end(text);
    return finish('chat', req, up.statusCode, t0, out);
  }

  async function stream(req, res, up, upReq, state, rw, out, t0) {
    metrics.active += 1;
    res.writeHead(up.statusCode, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    if (res.flushHeaders) res.flushHeaders();
    let lastWrite = Date.now();
    let left = false;
    // Not async: a write the socket takes at once costs no promise (one per event adds up).
    const write = (buf) => {
      if (left) return null;
      lastWrite = Date.now();
      if (res.write(buf)) return null;
      return new Promise((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    };
    const ka = cfg.keepalive * 1000;
    const timer = setInterval(() => {
      if (!left && Date.now() - lastWrite >= ka) {
        lastWrite = Date.now();
        res.write(KEEPALIVE);
      }
    }, Math.max(10, Math.min(ka / 4, 1000)));
    res.on('close', () => {
      if (!res.writableFinished) left = true;
    });
    const parser = new SSEParser({ comments: true });
    let sawDone = false;
    const held = (batch) => {
      if (rw) for (const c of rw.finish()) batch.push(chunkText(c));
      return batch;
    };
    // What one piece read from upstream completes goes out as one write: a fast upstream costs one
    // write per read, not one per event. Backpressure: the next read waits for the client.
    const send = (batch) => {
      if (batch.length <= 1) return batch.length ? write(batch[0]) : null;
      if (batch.every((b) => typeof b === 'string')) return write(batch.join(''));
      return write(Buffer.concat(batch.map((b) => (typeof b === 'string' ? Buffer.from(b) : b))));
    };
    const convert = (items, batch) => {
      for (const item of items) {
        if (item.comment) {
          batch.push(Buffer.concat([item.comment, END])); // its bytes as they came
          continue;
        }
        const d = jsonTrim(item.data);
        if (!d) {
          batch.push(KEEPALIVE);
          continue;
        }
        if (sawDone) throw Object.assign(new Error('an event comes after data: [DONE]'), { kind: 'format' });
        if (d === '[DONE]') {
          sawDone = true;
          held(batch);
          batch.push(DONE_TEXT);
          continue;
        }
        if (!rw) {
          // as it came (an event of several data: lines keeps them)
          batch.push(item.data.split('\n').map((ln) => `data: ${ln}\n`).join('') + '\n');
          continue;
        }
        let value;
        try {
          value = JSON.parse(item.data);
        } catch {
          throw Object.assign(new Error('an upstream event is not JSON'), { kind: 'format' });
        }
        for (const c of rw.feed(value)) batch.push(chunkText(c));
      }
    };
    const sendAll = async (batch) => {
      const w = send(batch);
      if (w) await w;
    };
    const flushHeld = () => sendAll(held([]));
    // Reads the upstream body with 'data' events rather than `for await` (a promise per piece
    // costs more than the rest of a small piece's work); pauses it while the client's socket is full.
    const pump = () =>
      new Promise((resolve, reject) => {
        let settled = false;
        const done = (err) => {
          if (settled) return;
          settled = true;
          up.off('data', onData);
          if (err) reject(err);
          else resolve();
        };
        const onData = (piece) => {
          if (left) {
            up.pause();
            done();
            return;
          }
          const batch = [];
          try {
            convert(parser.feed(piece), batch);
          } catch (e) {
            send(batch); // what was converted goes out even when the conversion failed part way
            up.pause();
            done(e);
            return;
          }
          const w = send(batch);
          if (w) {
            up.pause();
            w.then(() => {
              if (!settled) up.resume();
            });
          }
        };
        up.on('data', onData);
        finished(up, (err) => done(err));
      });
    try {
      await pump();
      if (state.timedOut) throw Object.assign(new Error('upstream silent'), { kind: 'timeout' });
      if (!left) {
        const batch = [];
        try {
          convert(parser.finish(), batch);
          if (!sawDone) {
            out.end = 'cut';
            held(batch);
          } else out.end = 'done';
        } finally {
          await sendAll(batch);
        }
      }
    } catch (e) {
      if (left) {
        // the client left; the upstream request was destroyed
      } else if (e.kind === 'timeout' || state.timedOut) {
        out.end = 'timeout';
        metrics.upstreamError('timeout');
        await write(errorEvent(`upstream silent for more than ${cfg.timeout} s`, 'upstream_timeout'));
      } else if (e.kind === 'format' || (e.name && /FormatError$/.test(e.name))) {
        out.end = 'bad-upstream';
        metrics.upstreamError('format');
        await write(errorEvent(`upstream stream cannot be read: ${e.message}`, 'upstream_error'));
      } else {
        out.end = 'cut';
        metrics.upstreamError('read');
        try {
          await flushHeld();
        } catch {
          // nothing more to say
        }
      }
    } finally {
      clearInterval(timer);
      if (!up.complete) upReq.destroy(); // a finished answer keeps its connection for the next request
      metrics.active -= 1;
      if (left) {
        metrics.disconnects += 1;
        out.end = 'client-left';
      } else res.end();
      if (rw) {
        out.stats = rw.stats;
        out.rejected = rw.rejectedToolNames;
      }
      finish('chat', req, left ? 499 : up.statusCode, t0, out);
    }
  }

  const handler = (req, res) => {
    const path = req.url.split('?')[0];
    let p;
    if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/chat/completions')) p = chat(req, res);
    else if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) p = models(req, res);
    else if (req.method === 'GET' && path === '/healthz') return sendJSON(res, 200, '{"status":"ok"}');
    else if (req.method === 'GET' && path === '/metrics') {
      const text = metrics.text();
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      return res.end(text);
    } else return sendJSON(res, 404, errorBody(`no route for ${req.method} ${path}`, 'invalid_request_error'));
    p.catch((e) => {
      if (!res.headersSent) sendJSON(res, 500, errorBody(String((e && e.message) || e), 'server_error'));
      else res.destroy(e);
    });
    return undefined;
  };
  handler.metrics = metrics;
  handler.config = cfg;
  return handler;
}

/** An `http.Server` running the gateway (not yet listening). */
function createGatewayServer(config) {
  return http.createServer(gatewayHandler(config));
}

const FLAGS = [
  // flag, environment variable, default, kind, help
  ['upstream', 'CALLSIEVE_UPSTREAM', undefined, 'url', 'base URL of the OpenAI-compatible upstream (…/v1)'],
  ['host', 'CALLSIEVE_HOST', '127.0.0.1', 'string', 'address to listen on'],
  ['port', 'CALLSIEVE_PORT', '8080', 'port', 'port to listen on (0: any free port)'],
  ['api-key', 'CALLSIEVE_API_KEY', undefined, 'string', "key sent upstream (default: the client's Authorization)"],
  ['mode', 'CALLSIEVE_MODE', 'passthrough', MODES, 'passthrough or prompt'],
  ['unknown-tools', 'CALLSIEVE_UNKNOWN_TOOLS', 'keep', POLICIES, 'calls to undeclared tools: keep or reject'],
  ['timeout', 'CALLSIEVE_TIMEOUT', '600', 'seconds', 'upstream silence that ends a request (s)'],
  ['keepalive', 'CALLSIEVE_KEEPALIVE', '15', 'seconds', "write ': keep-alive' after this silence (s)"],
  ['formats', 'CALLSIEVE_FORMATS', undefined, 'formats', 'recognize only these markup formats (A,B)'],
  ['reasoning', 'CALLSIEVE_REASONING', 'auto', REASONING_MODES, 'thinking in content becomes reasoning_content: auto, open, off'],
  ['stream-arguments', 'CALLSIEVE_STREAM_ARGUMENTS', 'no', 'bool', "stream each call's arguments as they arrive, as OpenAI's API does"],
  ['workers', 'CALLSIEVE_WORKERS', '1', 'count', 'processes serving the port, each its own /metrics'],
];

const USAGE =
  'usage: callsieve-gateway --upstream URL [--host H] [--port N] [--api-key KEY] [--mode passthrough|prompt]\n' +
  '                         [--unknown-tools keep|reject] [--timeout S] [--keepalive S]\n' +
  '                         [--formats A,B] [--reasoning auto|open|off] [--stream-arguments] [--workers N]\n' +
  FLAGS.map(([f, env, def, , help]) => `  --${f.padEnd(14)} ${help}${def !== undefined ? ` (default ${def})` : ''} [$${env}]`).join('\n') +
  '\n';

/** The gateway config from command-line arguments and environment variables; throws UsageError. */
function parseGatewayArgs(argv, env = process.env) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: Object.fromEntries([
        ...FLAGS.map(([f, , , kind]) => [f, { type: kind === 'bool' ? 'boolean' : 'string' }]),
        ['help', { type: 'boolean', short: 'h' }],
      ]),
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError(e.message);
  }
  if (values.help) return { help: true };
  const out = {};
  for (const [flag, envName, def, kind] of FLAGS) {
    let v = values[flag];
    let where = `--${flag}`;
    if (v === undefined && env[envName]) {
      v = env[envName];
      where = `$${envName}`;
    }
    if (v === undefined) v = def;
    if (v === undefined) continue;
    const key = flag.replace(/-(.)/g, (_, c) => c.toUpperCase());
    if (Array.isArray(kind)) {
      if (!kind.includes(v)) throw new UsageError(`${where}: ${JSON.stringify(v)} is not one of ${kind.join(', ')}`);
      out[key] = v;
    } else if (kind === 'port') {
      if (!/^[0-9]+$/.test(v) || Number(v) > 65535) throw new UsageError(`${where}: not a port number: ${JSON.stringify(v)}`);
      out[key] = Number(v);
    } else if (kind === 'count') {
      if (!/^[0-9]+$/.test(v) || !(Number(v) >= 1)) throw new UsageError(`${where}: must be a whole number, at least 1: ${JSON.stringify(v)}`);
      out[key] = Number(v);
    } else if (kind === 'seconds') {
      const n = Number(v);
      if (!/^[0-9.eE+-]+$/.test(v) || !(n > 0) || !Number.isFinite(n)) {
        throw new UsageError(`${where}: must be a positive number of seconds: ${JSON.stringify(v)}`);
      }
      out[key] = n;
    } else if (kind === 'bool') {
      if (typeof v === 'boolean') out[key] = v;
      else if (/^(1|true|yes|on)$/i.test(v.trim())) out[key] = true;
      else if (/^(0|false|no|off|)$/i.test(v.trim())) out[key] = false;
      else throw new UsageError(`${where}: not a yes/no value: ${JSON.stringify(v)}`);
    } else if (kind === 'formats') {
      const names = v.split(',').map((t) => t.trim()).filter(Boolean);
      try {
        checkFormats(names);
      } catch (e) {
        throw new UsageError(`${where}: ${e.message}`);
      }
      out[key] = names;
    } else if (kind === 'url') {
      if (!/^https?:\/\//.test(v)) throw new UsageError(`${where} must be an http:// or https:// URL, got ${JSON.stringify(v)}`);
      out[key] = v;
    } else out[key] = v;
  }
  if (!out.upstream) throw new UsageError('needs --upstream URL (or $CALLSIEVE_UPSTREAM)');
  return out;
}

/** `--workers N`: node:cluster's primary starts N workers that share the port (port 0: the same
 * free port for all) and says where it listens once; a worker that dies after it listened is
 * started again, one that could not listen ends the command. */
function primary(n, listening) {
  let said = false;
  let stopping = false;
  const up = new WeakSet();
  cluster.on('listening', (worker, address) => {
    up.add(worker);
    if (!said) listening(address);
    said = true;
  });
  cluster.on('exit', (worker) => {
    if (stopping) return;
    if (up.has(worker)) cluster.fork();
    else {
      // it never listened (a port in use, say): starting it again would fail the same way
      process.stderr.write('callsieve-gateway: error: a worker ended before it could listen\n');
      process.exitCode = 1;
      stopping = true;
      for (const w of Object.values(cluster.workers)) w.kill('SIGTERM');
    }
  });
  for (let i = 0; i < n; i++) cluster.fork();
  const stop = () => {
    stopping = true;
    for (const w of Object.values(cluster.workers)) w.kill('SIGTERM');
    cluster.disconnect(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return null;
}

/** The `callsieve-gateway` command: parse, listen, print `callsieve gateway listening on URL`. */
function main(argv = process.argv.slice(2), env = process.env) {
  let args;
  try {
    args = parseGatewayArgs(argv, env);
    if (args.help) {
      process.stdout.write(USAGE);
      return null;
    }
    gatewayConfig(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(USAGE + `callsieve-gateway: error: ${e.message}\n`);
    process.exitCode = 2;
    return null;
  }
  const listening = (a) => {
    const host = a.family === 'IPv6' || a.addressType === 6 ? `[${a.address}]` : a.address;
    process.stdout.write(`callsieve gateway listening on http://${host}:${a.port}\n`);
  };
  if (args.workers > 1 && cluster.isPrimary) return primary(args.workers, listening);
  const server = createGatewayServer(args);
  server.keepAliveTimeout = 65000;
  server.listen(args.port, args.host, () => {
    if (!cluster.isWorker) listening(server.address());
  });
  const stop = () => {
    server.close(() => process.exit(0));
    if (server.closeAllConnections) server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return server;
}

module.exports = { createGatewayServer, gatewayHandler, gatewayConfig, parseGatewayArgs, main, UsageError, MODES, POLICIES };
