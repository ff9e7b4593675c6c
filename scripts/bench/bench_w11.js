'use strict';
/**
 * W11 helper for scripts/bench/bench.py (run with `--w11`): a paced upstream and a load generator, on
 * node: built-ins only, so that the measuring side costs little next to the gateways measured.
 *
 *   node bench_w11.js upstream                      prints {"port": N}, then serves until killed
 *   node bench_w11.js load URL CLIENTS SECONDS PACE [spread]
 *                                                   prints the measurements as one JSON line
 *   node bench_w11.js relay URL                     a bare relay in front of URL: prints {"port": N}
 *
 * The upstream streams a reply with a DSML block in 3-character deltas, one event every PACE ms
 * (0: as fast as it can), and writes its send time (µs, the shared wall clock) into each chunk's
 * `id`, which the gateways copy to the chunks they write. The load generator keeps CLIENTS
 * streaming requests going for SECONDS and records, per event, receive time - send time, and per
 * request the time to the first byte. The clients start together, so their events come in bursts
 * (as from a server that decodes its requests in one batch); with `spread` each client starts
 * its first measured request at a random point of one PACE interval instead (requests that arrive
 * independently).
 */

const http = require('node:http');

const REPLY =
  'Let me look at the files first, then I will write the fix.\n\n' +
  '<|DSML|tool_calls>\n<|DSML|invoke name="read_file">\n' +
  '<|DSML|parameter name="path"><![CDATA[src/app.py]]></|DSML|parameter>\n' +
  '</|DSML|invoke>\n</|DSML|tool_calls>\n\n' +
  'After reading it I will explain what changes and why, step by step, in plain words.';
const now = () => Math.round((performance.timeOrigin + performance.now()) * 1000); // µs

function upstream() {
  const pieces = [];
  for (let i = 0; i < REPLY.length; i += 3) pieces.push(REPLY.slice(i, i + 3));
  const server = http.createServer((req, res) => {
    const parts = [];
    req.on('data', (p) => parts.push(p));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString());
      const pace = Number(String(body.model).split('-')[1] || 0);
      res.socket.setNoDelay(true);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const ev = (delta, finish) =>
        `data: {"id":"${now()}","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":${JSON.stringify(delta)},"finish_reason":${finish}}]}\n\n`;
      let i = 0;
      let closed = false;
      res.on('close', () => (closed = true));
      const step = () => {
        if (closed) return;
        if (pace === 0) {
          let buf = ev({ role: 'assistant', content: '' }, 'null');
          for (const p of pieces) buf += ev({ content: p }, 'null');
          res.end(buf + ev({}, '"stop"') + 'data: [DONE]\n\n');
          return;
        }
        if (i < pieces.length) {
          res.write(ev({ content: pieces[i++] }, 'null'));
          setTimeout(step, pace);
        } else res.end(ev({}, '"stop"') + 'data: [DONE]\n\n');
      };
      step();
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n'));
}

// The floor of one HTTP hop in Node on this machine: the request goes to URL as it came and the
// answer's bytes come back as they arrive, nothing parsed (what a gateway costs before it does
// anything of its own).
function relay(url) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const server = http.createServer((req, res) => {
    const parts = [];
    req.on('data', (p) => parts.push(p));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      const path = target.pathname.replace(/\/$/, '') + req.url.replace(/^\/v1/, '');
      const up = http.request(
        { host: target.hostname, port: target.port, path, method: req.method, agent, headers: { 'content-type': 'application/json', 'content-length': body.length } },
        (ur) => {
          res.writeHead(ur.statusCode, { 'content-type': ur.headers['content-type'] || 'text/plain' });
          ur.on('data', (piece) => {
            if (!res.write(piece)) {
              ur.pause();
              res.once('drain', () => ur.resume());
            }
          });
          ur.on('end', () => res.end());
        },
      );
      up.setNoDelay(true);
      res.on('close', () => up.destroy());
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n'));
}

function percentile(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function load(url, clients, seconds, pace, spread) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const lat = [];
  const callLat = []; // the events that carry a tool call (one per reply): the block's end
  const firstLat = []; // the first event of each reply (every client's request starts at once)
  const restLat = []; // the events after it: the reply streaming
  const ttfb = [];
  let events = 0;
  let errors = 0;
  let requests = 0;
  let served = 0; // every finished request, the warm-up ones too: the upstream events the server read
  const body = JSON.stringify({ model: `w11-${pace}`, stream: true, messages: [{ role: 'user', content: 'go' }] });
  // The first request of each client warms up (connection, JIT) and is not recorded.
  const one = (record) =>
    new Promise((resolve) => {
      const t0 = now();
      const req = http.request(url + '/chat/completions', { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let first = true;
        let firstEvent = true;
        let tail = '';
        let done = false;
        if (res.statusCode !== 200) errors++;
        res.setEncoding('utf8');
        res.on('data', (s) => {
          const t = now();
          if (first) {
            if (record) ttfb.push(t - t0);
            first = false;
          }
          const text = tail + s;
          const cut = text.lastIndexOf('\n\n');
          tail = cut < 0 ? text : text.slice(cut + 2);
          const whole = cut < 0 ? '' : text.slice(0, cut);
          for (const event of whole ? whole.split('\n\n') : []) {
            const m = /"id":"(\d+)"/.exec(event);
            if (m === null || !record) continue;
            events++;
            if (pace > 0) {
              lat.push(t - Number(m[1]));
              if (event.includes('"tool_calls"')) callLat.push(t - Number(m[1]));
              (firstEvent ? firstLat : restLat).push(t - Number(m[1]));
            }
            firstEvent = false;
          }
          if (whole.includes('data: [DONE]')) done = true;
        });
        res.on('end', () => {
          if (!done) errors++;
          if (record) requests++;
          served++;
          resolve();
        });
        res.on('error', () => {
          errors++;
          resolve();
        });
      });
      req.setNoDelay(true);
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  let t0 = 0;
  await Promise.all(Array.from({ length: clients }, () => one(false)));
  t0 = Date.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      if (spread && pace > 0) await new Promise((r) => setTimeout(r, Math.random() * pace));
      while (Date.now() < end) await one(true);
    }),
  );
  const elapsed = (Date.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  callLat.sort((a, b) => a - b);
  firstLat.sort((a, b) => a - b);
  restLat.sort((a, b) => a - b);
  ttfb.sort((a, b) => a - b);
  const ms = (v) => (v === null ? null : v / 1000);
  process.stdout.write(
    JSON.stringify({
      clients,
      seconds: elapsed,
      pace,
      spread: Boolean(spread),
      requests,
      served,
      // what the upstream sends per reply: the pieces and the finish (and the role, unpaced)
      upstreamEventsPerReply: Math.ceil(REPLY.length / 3) + (pace === 0 ? 2 : 1),
      events,
      errors,
      eventsPerSecond: events / elapsed,
      latencyP50: ms(percentile(lat, 50)),
      latencyP99: ms(percentile(lat, 99)),
      callLatencyP50: ms(percentile(callLat, 50)),
      callLatencyP99: ms(percentile(callLat, 99)),
      firstLatencyP50: ms(percentile(firstLat, 50)),
      firstLatencyP99: ms(percentile(firstLat, 99)),
      restLatencyP50: ms(percentile(restLat, 50)),
      restLatencyP99: ms(percentile(restLat, 99)),
      ttfbP50: ms(percentile(ttfb, 50)),
      ttfbP99: ms(percentile(ttfb, 99)),
    }) + '\n',
  );
  agent.destroy();
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'upstream') upstream();
else if (mode === 'relay') relay(rest[0]);
else if (mode === 'load') load(rest[0], Number(rest[1]), Number(rest[2]), Number(rest[3]), rest[4] === 'spread');
else {
  process.stderr.write('usage: bench_w11.js upstream | relay URL | load URL CLIENTS SECONDS PACE [spread]\n');
  process.exit(2);
}
