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
 *
 * The server's modules, each named after what it does (as in Python): ./config.js (gatewayConfig,
 * presets by model id), ./app.js (gatewayHandler, createGatewayServer: the edge and the routes),
 * ./gateway.js (the routes), ./relay.js (the streamed answer), ./upstream.js (the requests to the
 * upstream), ./metrics.js (the counters), ./serve.js (the callsieve-gateway command). This module
 * is their public face.
 */

const { UsageError } = require('./errors');
const { MODES, POLICIES, LOG_LEVELS, LOG_FORMATS, DEFAULT_MAX_BODY_BYTES, gatewayConfig, presetPattern, choosePreset } = require('./config');
const { createGatewayServer, gatewayHandler } = require('./app');
const { parseGatewayArgs, main } = require('./serve');

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
