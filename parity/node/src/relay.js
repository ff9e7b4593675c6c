'use strict';
/**
 * The streamed answer of a chat completion (`relayStream`) and what reading an upstream answer
 * checks. Port of python/callsieve/relay.py (see python/callsieve/server.py's docstring, Streams).
 */

const { finished } = require('node:stream');
const { SSEParser, chunkJSON } = require('./sse');
const { jsonTrim } = require('./strings');

const KEEPALIVE = ': keep-alive\n\n';
const END = Buffer.from('\n\n');
const DONE_TEXT = 'data: [DONE]\n\n';
const MAX_INDEX = Number.MAX_SAFE_INTEGER;
const SSE_TYPE = 'text/event-stream; charset=utf-8';

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

function errorEvent(message, type) {
  return Buffer.from(`data: ${JSON.stringify({ error: { message, type, param: null, code: null } })}\n\n`);
}

function chunkText(obj) {
  return `data: ${chunkJSON(obj)}\n\n`;
}

/**
 * The streamed answer: the upstream's SSE events rewritten by `rw` as they come and written at
 * once, with the gateway's own keep-alives, backpressure, the upstream request destroyed when the
 * client leaves, and a visible end for a stream that breaks. `gw`: what the routes share
 * (gatewayRoutes: the config, the metrics, emit, finish). Port of python/callsieve/relay.py's
 * _SSEResponse.
 */
async function relayStream(gw, req, res, up, upReq, state, rw, out, t0) {
  const { cfg, metrics, emit, finish } = gw;
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

module.exports = {
  relayStream,
  checkIndexes,
};
