'use strict';
/**
 * An OpenAI-compatible gateway server in front of an upstream that writes DSML tool-call markup
 * into `content`: the Node twin of python/callsieve/server.py (see its docstring for every
 * behavior), on `node:http` alone. `npx callsieve-gateway --upstream URL` (bin/callsieve-gateway.js)
 * or `createGatewayServer(config)` / `gatewayHandler(config)` for an existing server.
 *
 * POST /v1/chat/completions (streaming and not; `passthrough` or `prompt` mode), GET /v1/models
 * (proxied), GET /health (and /healthz), GET /ready, GET /metrics (Prometheus text). Client keys
 * (`apiKeys`, 401), `upstreamApiKey` / `forwardClientKey`, `maxBodyBytes` (413 while the body
 * streams in), `corsOrigins`, X-Request-ID, JSON errors for every status, `logLevel` and
 * `logFormat`, the request's `tool_choice` / `parallel_tool_calls` (a bad value is a 400; `"none"`
 * goes through the rewriter in prompt mode too), `preset` / `presetMap` (R19.2: the preset of a
 * request by its `model` id, logged and counted): as the Python gateway (docs/GATEWAY.md). A client that disconnects destroys the
 * upstream request at once; upstream SSE comments and empty keep-alives reach the client as
 * comments; the gateway writes `: keep-alive` after `keepalive` seconds without a write; an
 * upstream silent for `timeout` seconds is a 504 before the answer starts, and an error event (no
 * `[DONE]`) after; a cut stream gets no `[DONE]`; a connection failure is a 502. Backpressure: the
 * upstream response is read only while the client's socket takes what is written.
 */

const http = require('node:http');
const https = require('node:https');
const cluster = require('node:cluster');
const crypto = require('node:crypto');
const fs = require('node:fs');
const { finished } = require('node:stream');
const { parseArgs } = require('node:util');
const { SSEParser, chunkJSON } = require('./sse');
const { ChatCompletionStreamRewriter, rewriteChatCompletion } = require('./openai');
const { preparePromptRequest, responseOptions } = require('./request');
const { PRESETS } = require('./formats');
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
// not relayed from an upstream answer: hop-by-hop, or the gateway's own (server, date, request id)
const HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'content-encoding', 'server', 'date', 'x-request-id']);
const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
const LOG_LEVELS = ['debug', 'info', 'warning', 'error'];
const LOG_FORMATS = ['text', 'json'];
const MAX_INDEX = Number.MAX_SAFE_INTEGER;
const SSE_TYPE = 'text/event-stream; charset=utf-8';
// the OpenAI API's paths: only these need a client key (health, readiness and metrics do not)
const API_PATHS = new Set(['/v1/chat/completions', '/chat/completions', '/v1/models', '/models']);
const ALLOW_HEADERS =
  'authorization, content-type, x-request-id, openai-organization, openai-project, ' +
  'x-stainless-arch, x-stainless-lang, x-stainless-os, x-stainless-package-version, ' +
  'x-stainless-retry-count, x-stainless-runtime, x-stainless-runtime-version, x-stainless-timeout';

/** Checked settings with defaults; throws UsageError for a bad value. */
function gatewayConfig(c) {
  const cfg = {
    upstream: c.upstream,
    apiKeys: c.apiKeys === undefined || c.apiKeys === null ? null : c.apiKeys,
    upstreamApiKey: c.upstreamApiKey || null,
    forwardClientKey: c.forwardClientKey === undefined ? false : c.forwardClientKey,
    maxBodyBytes: c.maxBodyBytes === undefined ? DEFAULT_MAX_BODY_BYTES : c.maxBodyBytes,
    corsOrigins: c.corsOrigins === undefined || c.corsOrigins === null ? null : c.corsOrigins,
    logLevel: c.logLevel === undefined ? 'info' : c.logLevel,
    logFormat: c.logFormat === undefined ? 'text' : c.logFormat,
    mode: c.mode === undefined ? 'passthrough' : c.mode,
    unknownTools: c.unknownTools === undefined ? 'keep' : c.unknownTools,
    timeout: c.timeout === undefined ? 600 : c.timeout,
    connectTimeout: c.connectTimeout === undefined ? 10 : c.connectTimeout,
    keepalive: c.keepalive === undefined ? 15 : c.keepalive,
    formats: c.formats === undefined ? null : c.formats,
    reasoning: c.reasoning === undefined ? null : c.reasoning, // null: the preset's, else 'auto'
    preset: c.preset === undefined ? null : c.preset, // R19: when presetMap chooses none
    presetMap: c.presetMap === undefined || c.presetMap === null ? null : c.presetMap, // [pattern, preset]
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
    if (cfg.reasoning !== null) checkReasoning(cfg.reasoning);
  } catch (e) {
    throw new UsageError(e.message);
  }
  if (cfg.preset !== null) presetName(cfg.preset, 'preset');
  if (cfg.presetMap !== null) {
    if (!Array.isArray(cfg.presetMap)) throw new UsageError(`presetMap must be an array of [pattern, preset] pairs, got ${JSON.stringify(cfg.presetMap)}`);
    cfg.presetMap = cfg.presetMap.map(presetEntry);
  }
  if (cfg.apiKeys !== null) {
    if (!Array.isArray(cfg.apiKeys) || !cfg.apiKeys.every((k) => typeof k === 'string' && k !== '' && k.trim() === k)) {
      throw new UsageError('apiKeys must be an array of non-empty keys without surrounding blanks');
    }
    cfg.apiKeys = [...cfg.apiKeys];
  }
  if (cfg.upstreamApiKey !== null && typeof cfg.upstreamApiKey !== 'string') {
    throw new UsageError(`upstreamApiKey must be a string, got ${JSON.stringify(cfg.upstreamApiKey)}`);
  }
  if (typeof cfg.forwardClientKey !== 'boolean') {
    throw new UsageError(`forwardClientKey must be a boolean, got ${JSON.stringify(cfg.forwardClientKey)}`);
  }
  if (!Number.isSafeInteger(cfg.maxBodyBytes) || cfg.maxBodyBytes < 1) {
    throw new UsageError(`maxBodyBytes must be a positive whole number, got ${JSON.stringify(cfg.maxBodyBytes)}`);
  }
  if (cfg.corsOrigins !== null) {
    if (!Array.isArray(cfg.corsOrigins) || !cfg.corsOrigins.every((o) => typeof o === 'string' && o !== '')) {
      throw new UsageError(`corsOrigins must be an array of origins, got ${JSON.stringify(cfg.corsOrigins)}`);
    }
    cfg.corsOrigins = cfg.corsOrigins.map((o) => o.replace(/\/+$/, ''));
  }
  if (!LOG_LEVELS.includes(cfg.logLevel)) throw new UsageError(`logLevel must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(cfg.logLevel)}`);
  if (!LOG_FORMATS.includes(cfg.logFormat)) throw new UsageError(`logFormat must be one of ${LOG_FORMATS.join(', ')}, got ${JSON.stringify(cfg.logFormat)}`);
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

/** A preset's name, checked (UsageError listing the known ones). */
function presetName(name, where) {
  if (typeof name !== 'string' || !Object.prototype.hasOwnProperty.call(PRESETS, name)) {
    throw new UsageError(`${where}: unknown preset ${JSON.stringify(name)} (known: ${Object.keys(PRESETS).join(', ')})`);
  }
  return name;
}

/** One entry of `presetMap`: a [pattern, preset] pair, checked. */
function presetEntry(entry) {
  if (!Array.isArray(entry) || entry.length !== 2) {
    throw new UsageError(`presetMap entries are [pattern, preset] pairs, got ${JSON.stringify(entry)}`);
  }
  const [pattern, name] = entry;
  if (typeof pattern !== 'string' || !pattern) {
    throw new UsageError(`a presetMap pattern must be a non-empty string, got ${JSON.stringify(pattern)}`);
  }
  return [pattern, presetName(name, 'presetMap')];
}

/**
 * A `presetMap` pattern as Python's fnmatch reads it, without regard to case: `*` any run, `?` one
 * character, `[seq]` / `[!seq]` one character in / not in the set (ranges `a-z`; a `]` first in
 * the set and a `-` first or last are literal; a reversed range matches nothing; a `[` that is
 * not closed is literal); anything else itself. Returns a function `(model) => boolean`.
 * The pattern comes from the operator (a flag), the model id from the client: the pattern is
 * compiled here into tokens, and matching them is a loop over the model id (globMatch), never a
 * backtracking regex, so any model id takes at most len(pattern) * len(model) steps.
 */
function presetPattern(pattern) {
  const p = Array.from(pattern.toLowerCase());
  const tokens = [];
  let i = 0;
  while (i < p.length) {
    const c = p[i++];
    if (c === '*') {
      if (!(tokens.length && tokens[tokens.length - 1].star)) tokens.push({ star: true });
    } else if (c === '?') tokens.push({ any: true });
    else if (c === '[') {
      let j = i;
      if (j < p.length && p[j] === '!') j++;
      if (j < p.length && p[j] === ']') j++;
      while (j < p.length && p[j] !== ']') j++;
      if (j >= p.length) {
        tokens.push({ ch: '[' });
        continue;
      }
      let k = i;
      const negate = p[k] === '!';
      if (negate) k++;
      const ranges = [];
      while (k < j) {
        if (k + 2 < j && p[k + 1] === '-') {
          const lo = p[k].codePointAt(0);
          const hi = p[k + 2].codePointAt(0);
          if (lo <= hi) ranges.push([lo, hi]); // a reversed range matches nothing (as fnmatch)
          k += 3;
        } else {
          const cp = p[k].codePointAt(0);
          ranges.push([cp, cp]);
          k += 1;
        }
      }
      tokens.push({ ranges, negate });
      i = j + 1;
    } else tokens.push({ ch: c });
  }
  return (model) => globMatch(tokens, Array.from(model.toLowerCase()));
}

/** Whether the tokens of presetPattern match all of `s` (an array of characters): one pass that,
 * on a mismatch, moves the last `*` one character on (O(tokens * characters), no recursion). */
function globMatch(tokens, s) {
  const one = (t, c) => {
    if (t.any) return true;
    if (t.ch !== undefined) return t.ch === c;
    const cp = c.codePointAt(0);
    return t.ranges.some(([lo, hi]) => lo <= cp && cp <= hi) !== t.negate;
  };
  let t = 0;
  let i = 0;
  let starT = -1;
  let starI = 0;
  while (i < s.length) {
    if (t < tokens.length && tokens[t].star) {
      starT = t++;
      starI = i;
    } else if (t < tokens.length && one(tokens[t], s[i])) {
      t++;
      i++;
    } else if (starT >= 0) {
      t = starT + 1;
      i = ++starI;
    } else return false;
  }
  while (t < tokens.length && tokens[t].star) t++;
  return t === tokens.length;
}

/** The preset of a request (R19.2): that of the first pattern its `model` id matches, else
 * `fallback` (a `model` that is not a string matches no pattern). */
function choosePreset(model, patterns, fallback) {
  if (typeof model === 'string') {
    for (const [match, name] of patterns) if (match(model)) return name;
  }
  return fallback;
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
    this.presets = new Map(); // preset ('-': none) -> chat requests
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
    counter('callsieve_preset_requests', 'Chat requests by the preset chosen (-: none)', [...this.presets].map(([preset, v]) => [label({ preset }), v]));
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

function sendJSON(res, status, body, headers = {}) {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** `Text/Event-Stream; charset=UTF-8` -> `text/event-stream` (media types ignore case, RFC 9110). */
function mediaType(value) {
  return String(value || '').split(';', 1)[0].trim().toLowerCase();
}

/** The client's `X-Request-ID` when it is a short run of visible ASCII, else a new one. */
function requestId(value) {
  if (typeof value === 'string' && /^[\x21-\x7e]{1,200}$/.test(value)) return value;
  return crypto.randomUUID().replace(/-/g, '');
}

function keyDigest(key) {
  return crypto.createHash('sha256').update(key, 'utf8').digest();
}

/** Throws a format error when an upstream answer's `choices[i].index` is not a whole number from
 * 0 to 2**53 - 1 (the same rule as the Python gateway's). */
function checkIndexes(value) {
  if (value === null || typeof value !== 'object' || !Array.isArray(value.choices)) return;
  value.choices.forEach((c, i) => {
    if (c === null || typeof c !== 'object' || !('index' in c)) return;
    const x = c.index;
    if (!(typeof x === 'number' && Number.isSafeInteger(x) && x >= 0)) {
      throw Object.assign(new Error(`choices[${i}].index must be a whole number from 0 to ${MAX_INDEX}, got ${JSON.stringify(x)}`), { kind: 'format' });
    }
  });
}

function tooLarge(limit) {
  return errorBody(`the request body is longer than ${limit} bytes`, 'invalid_request_error', 'request_too_large');
}

function errorEvent(message, type) {
  return Buffer.from(`data: ${errorBody(message, type)}\n\n`);
}

function chunkText(obj) {
  return `data: ${chunkJSON(obj)}\n\n`;
}

/** The request body, or null as soon as it is longer than `limit` (from its Content-Length, or
 * while it streams in: what came is not kept past the limit; the rest is read and dropped). */
function readBody(req, limit) {
  const declared = req.headers['content-length'];
  if (declared !== undefined && /^[0-9]+$/.test(declared) && Number(declared) > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const parts = [];
    let n = 0;
    let settled = false;
    req.on('data', (p) => {
      if (settled) return;
      n += p.length;
      if (n > limit) {
        settled = true;
        parts.length = 0;
        resolve(null);
      } else parts.push(p);
    });
    req.on('end', () => {
      if (!settled) resolve(Buffer.concat(parts));
      settled = true;
    });
    req.on('error', (e) => {
      if (!settled) reject(e);
      settled = true;
    });
  });
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
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function upstreamHeaders(cfg, req) {
  const h = { accept: req.headers.accept || 'application/json' };
  if (cfg.upstreamApiKey) h.authorization = `Bearer ${cfg.upstreamApiKey}`;
  else if (cfg.forwardClientKey && req.headers.authorization) h.authorization = req.headers.authorization;
  for (const k of ['openai-organization', 'openai-project']) if (req.headers[k]) h[k] = req.headers[k];
  if (req.requestId) h['x-request-id'] = req.requestId;
  return h;
}

/** The upstream answer's headers a client gets: not the hop-by-hop ones, nor `server` and `date`
 * (the gateway writes its own); the upstream's `x-request-id` as `x-upstream-request-id`. */
function passHeaders(up) {
  const out = {};
  for (const [k, v] of Object.entries(up.headers)) if (!HOP.has(k)) out[k] = v;
  if (up.headers['x-request-id'] !== undefined) out['x-upstream-request-id'] = up.headers['x-request-id'];
  return out;
}

/** The request handler `(req, res)` of a gateway (see the module comment). */
function gatewayHandler(config) {
  const cfg = gatewayConfig(config);
  const metrics = new Metrics();
  const keys = (cfg.apiKeys || []).map(keyDigest);
  const origins = new Set(cfg.corsOrigins || []);
  const anyOrigin = origins.has('*');
  const threshold = LOG_LEVELS.indexOf(cfg.logLevel);
  const patterns = (cfg.presetMap || []).map(([p, name]) => [presetPattern(p), name]);
  const optionsByPreset = new Map();
  /** The rewriters' `formats`, `reasoning` and `preset`: the preset's, unless the config gives
   * them (D52); without a preset, the config's or the library's defaults. */
  const sieveOptions = (preset) => {
    let got = optionsByPreset.get(preset);
    if (got === undefined) {
      const p = preset === null ? null : PRESETS[preset];
      got = {
        formats: cfg.formats !== null || p === null ? cfg.formats : [...p.formats],
        reasoning: cfg.reasoning || (p === null ? 'auto' : p.reasoning),
        preset, // (the rewriters take the preset's reasoning markers from it: <seed:think>, [THINK])
      };
      optionsByPreset.set(preset, got);
    }
    return got;
  };

  /** One log line at `level` (debug, info, warning, error): text, or JSON with `fields`. */
  function emit(level, message, fields = {}) {
    if (!cfg.log || LOG_LEVELS.indexOf(level) < threshold) return;
    const time = new Date().toISOString();
    if (cfg.logFormat === 'json') {
      cfg.log(JSON.stringify({ time, level, logger: 'callsieve.server', message, ...fields }));
    } else cfg.log(`${time} callsieve.server ${level.toUpperCase()} ${message}`);
  }

  function finish(endpoint, req, status, t0, out) {
    req.logged = true;
    const dt = (performance.now() - t0) / 1000;
    const key = `${endpoint} ${status}`;
    metrics.requests.set(key, (metrics.requests.get(key) || 0) + 1);
    const d = metrics.durationSum.get(endpoint) || [0, 0];
    metrics.durationSum.set(endpoint, [d[0] + 1, d[1] + dt]);
    if (endpoint === 'chat') metrics.presets.set(out.preset || '-', (metrics.presets.get(out.preset || '-') || 0) + 1);
    const st = out.stats || {};
    metrics.blocks += st.blocks || 0;
    metrics.calls += st.calls || 0;
    metrics.rejected += st.rejectedCalls || 0;
    metrics.capture += st.captureLimitReleases || 0;
    metrics.repaired += st.repairedBlocks || 0;
    const path = req.url.split('?')[0];
    emit(
      'info',
      `${req.method} ${path} ${status} ${dt.toFixed(3)}s ` +
        `stream=${out.stream ? 'yes' : 'no'} blocks=${st.blocks || 0} calls=${st.calls || 0} ` +
        `rejected=${(out.rejected || []).join(',') || '-'} repaired=${st.repairedBlocks || 0} ` +
        `capture_limit=${st.captureLimitReleases || 0}` +
        (out.end ? ` end=${out.end}` : '') +
        ` preset=${out.preset || '-'} request_id=${req.requestId}`,
      {
        method: req.method,
        path,
        status,
        duration: Math.round(dt * 1e6) / 1e6,
        stream: Boolean(out.stream),
        blocks: st.blocks || 0,
        calls: st.calls || 0,
        rejected: [...(out.rejected || [])],
        repaired: st.repairedBlocks || 0,
        capture_limit: st.captureLimitReleases || 0,
        end: out.end || null,
        preset: out.preset || null,
        request_id: req.requestId,
      },
    );
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
    let body;
    try {
      body = await plain(up);
    } catch (e) {
      return failed(upReq.state.timedOut ? Object.assign(e, { kind: 'timeout' }) : e, res, 'models', req, t0, {});
    }
    res.writeHead(up.statusCode, passHeaders(up));
    res.end(body);
    finish('models', req, up.statusCode, t0, {});
  }

  /** 200 once the upstream answers `GET /models` (any status below 500), else 503. */
  async function ready(req, res) {
    const headers = { accept: 'application/json' };
    if (cfg.upstreamApiKey) headers.authorization = `Bearer ${cfg.upstreamApiKey}`;
    const probe = { ...cfg, timeout: Math.min(cfg.timeout, 5), connectTimeout: Math.min(cfg.connectTimeout, 5) };
    const upReq = upstreamRequest(probe, 'GET', '/models', headers, null);
    let status;
    try {
      const up = await upReq.promise;
      await plain(up);
      status = up.statusCode;
    } catch {
      upReq.destroy();
      return sendJSON(res, 503, errorBody('the upstream does not answer', 'upstream_error', 'upstream_not_ready'));
    }
    if (status >= 500) {
      return sendJSON(res, 503, errorBody(`the upstream answers /models with ${status}`, 'upstream_error', 'upstream_not_ready'));
    }
    return sendJSON(res, 200, '{"status":"ready"}');
  }

  async function chat(req, res) {
    const t0 = performance.now();
    const out = { stream: false, stats: null, rejected: [], end: '', preset: null };
    let raw = await readBody(req, cfg.maxBodyBytes);
    if (raw === null) {
      sendJSON(res, 413, tooLarge(cfg.maxBodyBytes), { connection: 'close' });
      return finish('chat', req, 413, t0, out);
    }
    let text;
    try {
      text = UTF8.decode(raw);
    } catch {
      sendJSON(res, 400, errorBody('the request body is not valid UTF-8', 'invalid_request_error'));
      return finish('chat', req, 400, t0, out);
    }
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      sendJSON(res, 400, errorBody('the request body is not JSON', 'invalid_request_error'));
      return finish('chat', req, 400, t0, out);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      sendJSON(res, 400, errorBody('the request body must be a JSON object', 'invalid_request_error'));
      return finish('chat', req, 400, t0, out);
    }
    const tools = Array.isArray(body.tools) ? body.tools : null;
    out.preset = choosePreset(body.model, patterns, cfg.preset);
    let options;
    try {
      // tool_choice and parallel_tool_calls, for the rewriters; tool_choice "none" goes through
      // them too, in prompt mode as well: its markup stays the model's text (released verbatim),
      // its reasoning comes out as in any other answer
      options = { ...responseOptions(body), ...sieveOptions(out.preset) };
      if (cfg.mode === 'prompt') raw = Buffer.from(jsonText(preparePromptRequest(body)));
    } catch (e) {
      sendJSON(res, 400, errorBody(String(e.message), 'invalid_request_error'));
      return finish('chat', req, 400, t0, out);
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
    const ctype = mediaType(up.headers['content-type']);
    if (up.statusCode < 400 && ctype === 'text/event-stream') {
      out.stream = true;
      return stream(req, res, up, upReq, state, new ChatCompletionStreamRewriter({
        tools,
        unknownTools: cfg.unknownTools,
        streamArguments: cfg.streamArguments,
        ...options,
      }), out, t0);
    }
    let data;
    try {
      data = await plain(up);
    } catch (e) {
      if (clientGone) return finish('chat', req, 499, t0, { ...out, end: 'client-left' });
      return failed(state.timedOut ? Object.assign(e, { kind: 'timeout' }) : e, res, 'chat', req, t0, out);
    }
    if (up.statusCode >= 400 || ctype !== 'application/json') {
      res.writeHead(up.statusCode, passHeaders(up));
      res.end(data);
      return finish('chat', req, up.statusCode, t0, out);
    }
    try {
      const stats = {};
      const value = JSON.parse(data.toString('utf8'));
      checkIndexes(value);
      text = jsonText(rewriteChatCompletion(value, {
        tools,
        unknownTools: cfg.unknownTools,
        rejectedToolNames: out.rejected,
        stats,
        ...options,
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
    res.writeHead(up.statusCode, { 'content-type': SSE_TYPE, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
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
      for (const c of rw.finish()) batch.push(chunkText(c));
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
        let value;
        try {
          value = JSON.parse(item.data);
        } catch {
          throw Object.assign(new Error('an upstream event is not JSON'), { kind: 'format' });
        }
        checkIndexes(value);
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
        emit('warning', `upstream stream broke: ${e.code || e.message}`, { request_id: req.requestId });
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
      out.stats = rw.stats;
      out.rejected = rw.rejectedToolNames;
      finish('chat', req, left ? 499 : up.statusCode, t0, out);
    }
  }

  const health = (req, res) => sendJSON(res, 200, '{"status":"ok"}');
  const metricsText = (req, res) => {
    const text = metrics.text();
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  // path -> [method, handler]; a GET route answers HEAD too (as Starlette's do)
  const ROUTES = new Map([
    ['/v1/chat/completions', ['POST', chat]],
    ['/chat/completions', ['POST', chat]],
    ['/v1/models', ['GET', models]],
    ['/models', ['GET', models]],
    ['/health', ['GET', health]],
    ['/healthz', ['GET', health]],
    ['/ready', ['GET', ready]],
    ['/metrics', ['GET', metricsText]],
  ]);

  const allowed = (origin) => anyOrigin || origins.has(origin.replace(/\/+$/, ''));
  const authorized = (auth) => {
    const m = /^\s*bearer\s+(.+?)\s*$/i.exec(auth || '');
    if (!m) return false;
    const digest = keyDigest(m[1]);
    let ok = false;
    for (const k of keys) ok = crypto.timingSafeEqual(digest, k) || ok; // every key compared
    return ok;
  };

  /** Routes one request (the edge first: request id, CORS, client key), and logs what no route
   * logged (401, 404, 405, 413 before a route, preflights and probes at debug). */
  const handler = (req, res) => {
    const t0 = performance.now();
    const path = req.url.split('?')[0];
    req.requestId = requestId(req.headers['x-request-id']);
    res.setHeader('x-request-id', req.requestId);
    const origin = req.headers.origin;
    const cors = origins.size > 0;
    if (cors && origin !== undefined && allowed(origin)) {
      res.setHeader('access-control-allow-origin', anyOrigin ? '*' : origin);
      res.setHeader('access-control-expose-headers', 'x-request-id');
      if (!anyOrigin) res.setHeader('vary', 'origin');
    }
    res.on('finish', () => {
      if (req.logged) return;
      const dt = (performance.now() - t0) / 1000;
      emit(res.statusCode >= 400 ? 'info' : 'debug', `${req.method} ${path} ${res.statusCode} ${dt.toFixed(3)}s request_id=${req.requestId}`, {
        method: req.method,
        path,
        status: res.statusCode,
        duration: Math.round(dt * 1e6) / 1e6,
        request_id: req.requestId,
      });
    });
    if (req.method === 'OPTIONS' && cors && req.headers['access-control-request-method'] !== undefined) {
      if (origin === undefined || !allowed(origin)) {
        return sendJSON(res, 403, errorBody(`origin ${JSON.stringify(origin === undefined ? null : origin)} is not allowed`, 'invalid_request_error'));
      }
      res.writeHead(204, {
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': req.headers['access-control-request-headers'] || ALLOW_HEADERS,
        'access-control-max-age': '600',
      });
      return void res.end();
    }
    if (keys.length && API_PATHS.has(path) && !authorized(req.headers.authorization)) {
      const given = req.headers.authorization !== undefined;
      return sendJSON(
        res,
        401,
        errorBody(given ? 'Incorrect API key provided.' : "You didn't provide an API key.", 'invalid_request_error', 'invalid_api_key'),
        { 'www-authenticate': 'Bearer' },
      );
    }
    const route = ROUTES.get(path);
    if (route === undefined) return sendJSON(res, 404, errorBody(`no route for ${req.method} ${path}`, 'invalid_request_error'));
    const [method, fn] = route;
    if (req.method !== method && !(method === 'GET' && req.method === 'HEAD')) {
      return sendJSON(res, 405, errorBody(`${req.method} is not allowed on ${path}`, 'invalid_request_error'), {
        allow: method === 'GET' ? 'GET, HEAD' : method,
      });
    }
    const p = fn(req, res);
    if (p && typeof p.catch === 'function') {
      p.catch((e) => {
        emit('error', `${req.method} ${path} failed: ${(e && e.stack) || e}`, { request_id: req.requestId });
        if (!res.headersSent) sendJSON(res, 500, errorBody(`internal error: ${(e && e.name) || 'Error'}`, 'server_error'));
        else res.destroy(e);
      });
    }
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
  ['api-key', 'CALLSIEVE_API_KEY', undefined, 'keys', "a key clients must present as 'Authorization: Bearer KEY' (repeat the flag for several; the variable: keys separated by commas); without any, clients need no key"],
  ['api-key-file', 'CALLSIEVE_API_KEY_FILE', undefined, 'file', 'a file of client keys, one a line (blank lines and # comments ignored)'],
  ['upstream-api-key', 'CALLSIEVE_UPSTREAM_API_KEY', undefined, 'string', "the key sent upstream as 'Authorization: Bearer KEY' (default: none)"],
  ['forward-client-key', 'CALLSIEVE_FORWARD_CLIENT_KEY', 'no', 'bool', "without --upstream-api-key, send the client's Authorization header upstream"],
  ['mode', 'CALLSIEVE_MODE', 'passthrough', MODES, 'passthrough or prompt'],
  ['unknown-tools', 'CALLSIEVE_UNKNOWN_TOOLS', 'keep', POLICIES, 'calls to undeclared tools: keep or reject'],
  ['timeout', 'CALLSIEVE_TIMEOUT', '600', 'seconds', 'upstream silence that ends a request (s)'],
  ['keepalive', 'CALLSIEVE_KEEPALIVE', '15', 'seconds', "write ': keep-alive' after this silence (s)"],
  ['formats', 'CALLSIEVE_FORMATS', undefined, 'formats', 'recognize only these markup formats (A,B)'],
  ['reasoning', 'CALLSIEVE_REASONING', undefined, REASONING_MODES, "thinking in content becomes reasoning_content: auto (default, or the preset's), open, off"],
  ['preset', 'CALLSIEVE_PRESET', undefined, 'preset', `the model family of every request whose model no --preset-map pattern matches (its formats and reasoning together): ${Object.keys(PRESETS).join(', ')}; default: none`],
  ['preset-map', 'CALLSIEVE_PRESET_MAP', undefined, 'presetMap', 'PATTERN=PRESET: the preset of a request whose model id matches the shell-style PATTERN (any case; the first match wins; repeat the flag, or the variable: P1=A,P2=B)'],
  ['stream-arguments', 'CALLSIEVE_STREAM_ARGUMENTS', 'no', 'bool', "stream each call's arguments as they arrive, as OpenAI's API does"],
  ['max-body-bytes', 'CALLSIEVE_MAX_BODY_BYTES', String(DEFAULT_MAX_BODY_BYTES), 'bytes', 'longest request body accepted, a longer one is a 413 (16 MiB)'],
  ['cors-origins', 'CALLSIEVE_CORS_ORIGINS', undefined, 'origins', 'origins browsers may call the gateway from (A,B; *: any); default: no CORS'],
  ['log-level', 'CALLSIEVE_LOG_LEVEL', 'info', LOG_LEVELS, 'debug, info (a line per request), warning, error'],
  ['log-format', 'CALLSIEVE_LOG_FORMAT', 'text', LOG_FORMATS, 'text or json'],
  ['workers', 'CALLSIEVE_WORKERS', '1', 'count', 'processes serving the port, each its own /metrics'],
];

const USAGE =
  'usage: callsieve-gateway --upstream URL [--host H] [--port N] [--api-key KEY]... [--api-key-file F]\n' +
  '                         [--upstream-api-key KEY] [--forward-client-key] [--mode passthrough|prompt]\n' +
  '                         [--unknown-tools keep|reject] [--timeout S] [--keepalive S]\n' +
  '                         [--formats A,B] [--reasoning auto|open|off] [--preset NAME]\n' +
  '                         [--preset-map PATTERN=PRESET]... [--stream-arguments]\n' +
  '                         [--max-body-bytes N] [--cors-origins A,B] [--log-level L] [--log-format text|json]\n' +
  '                         [--workers N] [--version] [--help]\n' +
  FLAGS.map(([f, env, def, , help]) => `  --${f.padEnd(18)} ${help}${def !== undefined ? ` (default ${def})` : ''} [$${env}]`).join('\n') +
  '\n';

function readKeyFile(file, where) {
  let text;
  try {
    text = UTF8.decode(fs.readFileSync(file));
  } catch (e) {
    throw new UsageError(`${where}: cannot read ${JSON.stringify(file)}: ${e.code || e.message}`);
  }
  const keys = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  if (!keys.length) throw new UsageError(`${where}: ${JSON.stringify(file)} holds no key`);
  return keys;
}

/** The gateway config from command-line arguments and environment variables; throws UsageError.
 * `{help: true}` for --help, `{version: true}` for --version. */
function parseGatewayArgs(argv, env = process.env) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: Object.fromEntries([
        ...FLAGS.map(([f, , , kind]) => [f, { type: kind === 'bool' ? 'boolean' : 'string', multiple: kind === 'keys' || kind === 'presetMap' }]),
        ['help', { type: 'boolean', short: 'h' }],
        ['version', { type: 'boolean' }],
      ]),
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError(e.message);
  }
  if (values.help) return { help: true };
  if (values.version) return { version: true };
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
    } else if (kind === 'bytes') {
      if (!/^[0-9]+$/.test(v) || !(Number(v) >= 1) || !Number.isSafeInteger(Number(v))) {
        throw new UsageError(`${where}: must be a whole number of bytes, at least 1: ${JSON.stringify(v)}`);
      }
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
    } else if (kind === 'preset') {
      out[key] = presetName(v.trim(), where);
    } else if (kind === 'presetMap') {
      // each --preset-map PATTERN=PRESET (or several, separated by commas); the variable: P1=A,P2=B
      const pairs = [];
      for (const item of (Array.isArray(v) ? v : [v]).flatMap((x) => x.split(',')).filter((x) => x.trim())) {
        const at = item.lastIndexOf('=');
        const pattern = at < 0 ? '' : item.slice(0, at).trim();
        if (!pattern) throw new UsageError(`${where}: a preset map entry is PATTERN=PRESET, got ${JSON.stringify(item.trim())}`);
        pairs.push([pattern, presetName(item.slice(at + 1).trim(), where)]);
      }
      if (!pairs.length) throw new UsageError(`${where}: an empty preset map`);
      out[key] = pairs;
    } else if (kind === 'keys') {
      // each --api-key one key; the variable: keys separated by commas
      const keys = (Array.isArray(v) ? v : [v]).flatMap((k) => k.split(',')).map((k) => k.trim()).filter(Boolean);
      if (!keys.length) throw new UsageError(`${where}: an empty API key`);
      out.apiKeys = keys;
    } else if (kind === 'file') {
      out.apiKeyFile = readKeyFile(v, where);
    } else if (kind === 'origins') {
      const names = v.split(',').map((t) => t.trim()).filter(Boolean);
      for (const o of names) {
        if (o !== '*' && !/^https?:\/\//.test(o)) throw new UsageError(`${where}: an origin is * or http(s)://host[:port], got ${JSON.stringify(o)}`);
      }
      out[key] = names;
    } else if (kind === 'url') {
      if (!/^https?:\/\//.test(v)) throw new UsageError(`${where} must be an http:// or https:// URL, got ${JSON.stringify(v)}`);
      out[key] = v;
    } else out[key] = v;
  }
  if (!out.upstream) throw new UsageError('needs --upstream URL (or $CALLSIEVE_UPSTREAM)');
  if (out.apiKeyFile) out.apiKeys = [...new Set([...(out.apiKeys || []), ...out.apiKeyFile])];
  else if (out.apiKeys) out.apiKeys = [...new Set(out.apiKeys)];
  delete out.apiKeyFile;
  return out;
}

function listenError(e, host, port) {
  const why = e.code === 'EADDRINUSE' ? 'address already in use' : e.code === 'EACCES' ? 'permission denied' : e.code || e.message;
  return `callsieve-gateway: error: cannot listen on ${host}:${port}: ${why}\n`;
}

/** `--workers N`: node:cluster's primary starts N workers that share the port (port 0: the same
 * free port for all) and says where it listens once; a worker that dies after it listened is
 * started again, one that could not listen ends the command. */
function primary(n, listening) {
  let said = false;
  let stopping = false;
  const up = new WeakSet();
  const giveUp = (line) => {
    // a worker could not listen (a port in use, say): starting it again would fail the same way
    if (stopping) return;
    process.stderr.write(line);
    process.exitCode = 1;
    stopping = true;
    for (const w of Object.values(cluster.workers)) w.kill('SIGTERM');
  };
  cluster.on('message', (worker, msg) => {
    if (msg && typeof msg.listenError === 'string') giveUp(msg.listenError);
  });
  cluster.on('listening', (worker, address) => {
    up.add(worker);
    if (!said) listening(address);
    said = true;
  });
  cluster.on('exit', (worker) => {
    if (stopping) return;
    if (up.has(worker)) cluster.fork();
    else giveUp('callsieve-gateway: error: a worker ended before it could listen\n');
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
function main(argv = process.argv.slice(2), env = process.env, version = '0.1.0') {
  let args;
  try {
    args = parseGatewayArgs(argv, env);
    if (args.help) {
      process.stdout.write(USAGE);
      return null;
    }
    if (args.version) {
      process.stdout.write(`callsieve-gateway ${version}\n`);
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
  server.once('error', (e) => {
    if (server.listening) throw e;
    // one line, no stack trace; a worker leaves the saying to the primary (once for all)
    const line = listenError(e, args.host, args.port);
    if (cluster.isWorker) process.send({ listenError: line }, () => process.exit(1));
    else {
      process.stderr.write(line);
      process.exit(1);
    }
  });
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

module.exports = {
  createGatewayServer,
  gatewayHandler,
  gatewayConfig,
  parseGatewayArgs,
  presetPattern,
  choosePreset,
  main,
  UsageError,
  MODES,
  POLICIES,
  LOG_LEVELS,
  LOG_FORMATS,
  DEFAULT_MAX_BODY_BYTES,
};
