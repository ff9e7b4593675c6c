'use strict';
/**
 * The gateway's routes (`gatewayRoutes`): chat completions (the request to upstream, in `prompt`
 * mode prepared first, and the answer through the rewriters), models (proxied) and readiness, with
 * the log line and counters of each request. Port of python/callsieve/gateway.py (its _Gateway).
 */

const { ChatCompletionStreamRewriter } = require('./chunks');
const { rewriteChatCompletion } = require('./completion');
const { preparePromptRequest, responseOptions } = require('./request');
const { PRESETS } = require('./formats');
const { jsonText } = require('./jsontext');
const { LOG_LEVELS, choosePreset, presetPattern } = require('./config');
const { Metrics } = require('./metrics');
const { checkIndexes, relayStream } = require('./relay');
const { passHeaders, upstreamHeaders, upstreamRequest } = require('./upstream');

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

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

function tooLarge(limit) {
  return errorBody(`the request body is longer than ${limit} bytes`, 'invalid_request_error', 'request_too_large');
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

/** The routes of a gateway with the checked config `cfg`, and what they share: the metrics, the
 * log (`emit`) and the end of a request (`finish`: its log line and counters). */
function gatewayRoutes(cfg) {
  const metrics = new Metrics();
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
      return relayStream(gw, req, res, up, upReq, state, new ChatCompletionStreamRewriter({
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

  const gw = { cfg, metrics, emit, finish, chat, models, ready };
  return gw;
}

module.exports = {
  gatewayRoutes,
  errorBody,
  sendJSON,
  UTF8,
};
