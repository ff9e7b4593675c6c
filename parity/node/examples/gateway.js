#!/usr/bin/env node
'use strict';
/**
 * An OpenAI-compatible gateway in front of an upstream that writes DSML tool-call markup into
 * `content` (DeepSeek and others): clients get native `tool_calls`.
 *
 *   node parity/node/examples/gateway.js --upstream https://api.example.com/v1 [--port 8080]
 *
 * POST /v1/chat/completions is forwarded as is (Authorization included). A streamed answer goes
 * through `createSSERewriteStream` chunk by chunk (a WHATWG TransformStream, as in an edge
 * runtime); a plain answer through `rewriteChatCompletion`. The request's `tools` declare the
 * names (R10) and schemas (R12). Upstream errors pass through with their status. Prints
 * `gateway listening on http://127.0.0.1:PORT` once it accepts connections.
 */

const http = require('http');
const { Readable } = require('stream');
const { createSSERewriteStream, rewriteChatCompletion } = require('../index.js');

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const UPSTREAM = arg('--upstream', process.env.UPSTREAM_BASE_URL);
const PORT = Number(arg('--port', '0'));
if (!UPSTREAM) {
  process.stderr.write('usage: gateway.js --upstream BASE_URL [--port N]\n');
  process.exit(2);
}

async function readBody(req) {
  const parts = [];
  for await (const p of req) parts.push(p);
  return Buffer.concat(parts).toString('utf8');
}

function send(res, status, type, body) {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function handle(req, res) {
  if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
    return send(res, 404, 'application/json', JSON.stringify({ error: { message: 'not found' } }));
  }
  const raw = await readBody(req);
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    return send(res, 400, 'application/json', JSON.stringify({ error: { message: 'invalid JSON body' } }));
  }
  const headers = { 'content-type': 'application/json' };
  if (req.headers.authorization) headers.authorization = req.headers.authorization;
  const up = await fetch(UPSTREAM.replace(/\/$/, '') + '/chat/completions', { method: 'POST', headers, body: raw });
  const type = up.headers.get('content-type') || 'application/json';
  const tools = Array.isArray(body.tools) ? body.tools : null;
  if (!up.ok) return send(res, up.status, type, await up.text());
  if (type.startsWith('text/event-stream')) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const out = Readable.fromWeb(up.body.pipeThrough(createSSERewriteStream({ tools })));
    out.on('error', (e) => res.destroy(e)); // a broken upstream stream ends the response visibly
    out.pipe(res);
    return undefined;
  }
  const rewritten = rewriteChatCompletion(await up.json(), { tools });
  return send(res, 200, 'application/json', JSON.stringify(rewritten));
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((e) => {
    if (!res.headersSent) send(res, 502, 'application/json', JSON.stringify({ error: { message: String(e.message || e) } }));
    else res.destroy(e);
  });
});
server.listen(PORT, '127.0.0.1', () => {
  process.stdout.write(`gateway listening on http://127.0.0.1:${server.address().port}\n`);
});
