'use strict';
/**
 * The gateway's requests to its upstream, on `node:http` / `node:https` (kept-alive connections,
 * the connect and silence timeouts, one retry of a reused connection the upstream had closed), the
 * headers they send and the headers of the answer a client gets. Python's gateway does the same
 * on httpx and a transport of its own (python/callsieve/upstream.py).
 */

const http = require('node:http');
const https = require('node:https');

// not relayed from an upstream answer: hop-by-hop, or the gateway's own (server, date, request id)
const HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'content-encoding', 'server', 'date', 'x-request-id']);

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

module.exports = {
  upstreamRequest,
  upstreamHeaders,
  passHeaders,
};
