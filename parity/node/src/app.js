'use strict';
/**
 * The gateway as a `node:http` request handler (`gatewayHandler`) and server
 * (`createGatewayServer`): the edge every request goes through first (its id, CORS, the client's
 * key), the routes, and OpenAI-shaped errors for what no route answers. Port of
 * python/callsieve/app.py (create_app, _Edge).
 */

const http = require('node:http');
const crypto = require('node:crypto');
const { gatewayConfig } = require('./config');
const { errorBody, gatewayRoutes, sendJSON } = require('./gateway');

// the OpenAI API's paths: only these need a client key (health, readiness and metrics do not)
const API_PATHS = new Set(['/v1/chat/completions', '/chat/completions', '/v1/models', '/models']);
const ALLOW_HEADERS =
  'authorization, content-type, x-request-id, openai-organization, openai-project, ' +
  'x-stainless-arch, x-stainless-lang, x-stainless-os, x-stainless-package-version, ' +
  'x-stainless-retry-count, x-stainless-runtime, x-stainless-runtime-version, x-stainless-timeout';

/** The client's `X-Request-ID` when it is a short run of visible ASCII, else a new one. */
function requestId(value) {
  if (typeof value === 'string' && /^[\x21-\x7e]{1,200}$/.test(value)) return value;
  return crypto.randomUUID().replace(/-/g, '');
}

function keyDigest(key) {
  return crypto.createHash('sha256').update(key, 'utf8').digest();
}

/** The request handler `(req, res)` of a gateway (see the module comment). */
function gatewayHandler(config) {
  const cfg = gatewayConfig(config);
  const gw = gatewayRoutes(cfg);
  const { metrics, emit } = gw;
  const keys = (cfg.apiKeys || []).map(keyDigest);
  const origins = new Set(cfg.corsOrigins || []);
  const anyOrigin = origins.has('*');

  const health = (req, res) => sendJSON(res, 200, '{"status":"ok"}');
  const metricsText = (req, res) => {
    const text = metrics.text();
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  // path -> [method, handler]; a GET route answers HEAD too (as Starlette's do)
  const ROUTES = new Map([
    ['/v1/chat/completions', ['POST', gw.chat]],
    ['/chat/completions', ['POST', gw.chat]],
    ['/v1/models', ['GET', gw.models]],
    ['/models', ['GET', gw.models]],
    ['/health', ['GET', health]],
    ['/healthz', ['GET', health]],
    ['/ready', ['GET', gw.ready]],
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

module.exports = {
  gatewayHandler,
  createGatewayServer,
};
