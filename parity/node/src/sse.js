'use strict';
/**
 * Server-sent events: a reader for byte streams cut anywhere, and a writer for chat chunks.
 * Port of python/callsieve/sse.py; its docstring lists every decision (line endings, BOM, strict
 * UTF-8, dispatch at the end of input, `[DONE]` followed by data is an error).
 *
 * Everything is built on the synchronous, incremental `SSEParser` (bytes in, events out), so the
 * async generators and the WHATWG TransformStreams behave the same. An unfinished line is kept as
 * a list of parts and joined once, when its end arrives: a 10 MB `data:` line costs linear time.
 */

const { InputTypeError, SSEFormatError, CallsieveError, checkOptions, typeName } = require('./errors');
const { jsonText } = require('./jsontext');
const { jsonTrim } = require('./strings');

const DONE = '[DONE]';
const CR = 13;
const LF = 10;
const BOM = [0xef, 0xbb, 0xbf];

function concat(parts) {
  if (parts.length === 1) return parts[0];
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function startsWithBOM(b) {
  return b.length >= 3 && b[0] === BOM[0] && b[1] === BOM[1] && b[2] === BOM[2];
}

function isBOMPrefix(b) {
  for (let i = 0; i < b.length; i++) if (b[i] !== BOM[i]) return false;
  return true;
}

/** Offset of the first invalid UTF-8 sequence (as Python's UnicodeDecodeError.start); only for messages. */
function invalidUTF8At(b) {
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    let n;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined || d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n + 1;
  }
  return -1;
}

/**
 * Incremental event-stream reader: `feed(bytes)` returns the events its complete lines
 * dispatched, `finish()` the rest (an unfinished last line, an event without its blank line).
 * Events are `{data, event, id, retry}` as Python's SSEEvent. A line that is not UTF-8 is an
 * SSEFormatError, but the events dispatched before it in the same call come out first: that call
 * returns them and the next call throws (a call with nothing before the line throws at once);
 * from then on every call throws it again (python/callsieve/sse.py's SSEParser).
 */
const EMPTY = new Uint8Array(0);

class SSEParser {
  /** `{comments: true}`: comment lines come out too, as `{comment: Uint8Array}` (the whole line from its `:`), in order. */
  constructor(options) {
    this._comments = Boolean(options && options.comments);
    this._dataOnly = false; // ChatChunkParser's: dispatch the data alone
    // ignoreBOM: keep a U+FEFF inside a line, as Python's decode does (the stream's BOM is skipped as bytes).
    this._decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    this._parts = [];
    this._skipLF = false;
    this._atStart = true;
    this._data = [];
    this._event = '';
    this._lastId = null;
    this._retry = null;
    this._lineno = 0;
    this._closed = false;
    this._error = null; // a line that is not UTF-8: thrown by every later call
  }

  feed(bytes) {
    const out = [];
    try {
      this._feed(bytes, out);
    } catch (e) {
      if (e !== this._error || !out.length) throw e; // (else the next call throws it)
    }
    return out;
  }

  finish() {
    const out = [];
    this._finish(out);
    return out;
  }

  /** Like feed(), but events go to `out` as they are dispatched, so a caller keeps those that came before an error. */
  _feed(chunk, out) {
    if (this._error !== null) throw this._error;
    if (this._closed) throw new SSEFormatError('feed() after finish()');
    if (!(chunk instanceof Uint8Array)) {
      throw new InputTypeError(`SSE input must be Uint8Array chunks, got ${typeName(chunk)}`);
    }
    let data = chunk;
    if (!data.length) return;
    if (this._skipLF) {
      this._skipLF = false;
      if (data[0] === LF) {
        data = data.subarray(1);
        if (!data.length) return;
      }
    }
    if (this._atStart) {
      const head = concat([...this._parts, data]);
      this._parts = [];
      if (head.length < 3 && isBOMPrefix(head)) {
        this._parts.push(head === data ? data.slice() : head); // maybe a BOM cut in pieces
        return;
      }
      this._atStart = false;
      data = startsWithBOM(head) ? head.subarray(3) : head;
      if (!data.length) return;
    }
    const n = data.length;
    let start = 0;
    let cr = data.indexOf(CR);
    let lf = data.indexOf(LF);
    // Each byte is looked at once: the next CR and the next LF are searched only past `start`.
    while (cr >= 0 || lf >= 0) {
      let pos;
      let end;
      if (lf < 0 || (cr >= 0 && cr < lf)) {
        pos = cr;
        end = lf === cr + 1 ? cr + 2 : cr + 1;
      } else {
        pos = lf;
        end = lf + 1;
      }
      let line;
      if (this._parts.length) {
        this._parts.push(data.subarray(start, pos));
        line = concat(this._parts);
        this._parts = [];
      } else {
        line = pos === start ? EMPTY : data.subarray(start, pos); // (a blank line: no view of its own)
      }
      this._line(line, out);
      start = end;
      if (cr >= 0 && cr < start) cr = data.indexOf(CR, start);
      if (lf >= 0 && lf < start) lf = data.indexOf(LF, start);
    }
    if (start < n) this._parts.push(data.slice(start)); // a copy: the caller may reuse its buffer
    else if (data[n - 1] === CR) this._skipLF = true;
  }

  _finish(out) {
    if (this._error !== null) throw this._error;
    if (this._closed) return;
    this._closed = true;
    if (this._parts.length) {
      let line = concat(this._parts);
      this._parts = [];
      if (this._atStart && startsWithBOM(line)) line = line.subarray(3);
      if (line.length) this._line(line, out);
    }
    if (this._data.length) out.push(this._dispatch());
  }

  _dispatch() {
    const data = this._data.length === 1 ? this._data[0] : this._data.join('\n');
    if (this._dataOnly) return data; // (ChatChunkParser: event types, ids and retry play no part)
    return { data, event: this._event || 'message', id: this._lastId, retry: this._retry };
  }

  _line(raw, out) {
    this._lineno += 1;
    if (!raw.length) {
      // a blank line dispatches the event (as the decoded empty line below would)
      if (this._data.length) out.push(this._dispatch());
      this._data = [];
      this._event = '';
      return;
    }
    if (raw[0] === 0x3a) {
      if (this._comments) out.push({ comment: raw.slice() });
      return; // a comment: ignored, whatever bytes it holds
    }
    if (raw[4] === 0x3a && raw[0] === 0x64 && raw[1] === 0x61 && raw[2] === 0x74 && raw[3] === 0x61) {
      // `data:`, the common line: its value decoded alone (the same text: ASCII before it, a BOM kept)
      let value;
      try {
        value = this._decoder.decode(raw.subarray(raw[5] === 0x20 ? 6 : 5));
      } catch {
        throw this._invalid(raw);
      }
      this._data.push(value);
      return;
    }
    let line;
    try {
      line = this._decoder.decode(raw);
    } catch {
      throw this._invalid(raw);
    }
    if (!line) {
      if (this._data.length) out.push(this._dispatch());
      this._data = [];
      this._event = '';
      return;
    }
    if (line[0] === ':') return;
    const colon = line.indexOf(':');
    let field = line;
    let value = '';
    if (colon >= 0) {
      field = line.slice(0, colon);
      value = line.slice(colon + 1);
      if (value[0] === ' ') value = value.slice(1);
    }
    if (field === 'data') this._data.push(value);
    else if (field === 'event') this._event = value;
    else if (field === 'id' && !value.includes('\0')) this._lastId = value;
    else if (field === 'retry' && /^[0-9]+$/.test(value)) this._retry = Number(value);
  }

  _invalid(raw) {
    this._error = new SSEFormatError(`line ${this._lineno} is not valid UTF-8 (byte ${invalidUTF8At(raw)})`);
    return this._error;
  }
}

/**
 * Incremental chat-chunk reader: the JSON values of the `data:` events, up to `data: [DONE]`;
 * an event with data after `[DONE]` is an SSEFormatError. As SSEParser, the values read before
 * an error come out first (the next call throws it), and every call after an error throws it.
 */
class ChatChunkParser {
  constructor() {
    this._sse = new SSEParser();
    this._sse._dataOnly = true; // its events are their data
    this._done = false;
    this._n = 0;
    this._error = null; // data that is not JSON, or after [DONE]: thrown by every later call
  }

  feed(bytes) {
    const out = [];
    try {
      this._feed(bytes, out);
    } catch (e) {
      if ((e !== this._error && e !== this._sse._error) || !out.length) throw e; // (else the next call throws it)
    }
    return out;
  }

  finish() {
    const out = [];
    this._finish(out);
    return out;
  }

  /** Whether the stream said `data: [DONE]` (one that ends without it may have been cut off). */
  get sawDone() {
    return this._done;
  }

  _feed(bytes, out) {
    this._run((evs) => this._sse._feed(bytes, evs), out);
  }

  _finish(out) {
    this._run((evs) => this._sse._finish(evs), out);
  }

  // Events dispatched before a reader error are still turned into values (or their own error) first.
  _run(read, out) {
    if (this._error !== null) throw this._error;
    const evs = [];
    let err = null;
    try {
      read(evs);
    } catch (e) {
      err = e;
    }
    try {
      for (const ev of evs) this._take(ev, out);
    } catch (e) {
      this._error = e;
      throw e;
    }
    if (err) throw err;
  }

  _take(data, out) {
    this._n += 1;
    if (data.charCodeAt(0) !== 0x7b || this._done) {
      // not the common case: a JSON object, before [DONE]
      const trimmed = jsonTrim(data);
      if (!trimmed) return; // an empty data: event (a keep-alive) carries no chunk
      if (this._done) throw new SSEFormatError(`event ${this._n} comes after data: [DONE]`);
      if (trimmed === DONE) {
        this._done = true;
        return;
      }
    }
    let value;
    try {
      value = JSON.parse(data);
    } catch (e) {
      throw new SSEFormatError(`event ${this._n}: data is not JSON (${e.message})`);
    }
    out.push(value);
  }
}

/** Run `step(item, out)` over a sync or async iterable, yielding what it produced before any error. */
async function* drive(iterable, step, end) {
  const asyncIt = iterable != null && typeof iterable[Symbol.asyncIterator] === 'function';
  if (!asyncIt && (iterable == null || typeof iterable[Symbol.iterator] !== 'function')) {
    throw new InputTypeError(`expected an iterable of Uint8Array chunks, got ${typeName(iterable)}`);
  }
  const out = [];
  let err = null;
  if (asyncIt) {
    for await (const chunk of iterable) {
      try {
        step(chunk, out);
      } catch (e) {
        err = e;
      }
      for (let i = 0; i < out.length; i++) yield out[i];
      out.length = 0;
      if (err) throw err;
    }
  } else {
    for (const chunk of iterable) {
      try {
        step(chunk, out);
      } catch (e) {
        err = e;
      }
      for (let i = 0; i < out.length; i++) yield out[i];
      out.length = 0;
      if (err) throw err;
    }
  }
  try {
    end(out);
  } catch (e) {
    err = e;
  }
  for (let i = 0; i < out.length; i++) yield out[i];
  if (err) throw err;
}

/** The events of an event stream given as Uint8Array chunks (sync or async iterable), cut anywhere. */
async function* iterSSEEvents(byteChunks) {
  const p = new SSEParser();
  yield* drive(byteChunks, (c, out) => p._feed(c, out), (out) => p._finish(out));
}

/** The JSON values of the `data:` events of an OpenAI stream, up to `data: [DONE]`. */
function iterChatChunks(byteChunks) {
  const p = new ChatChunkParser();
  return drive(byteChunks, (c, out) => p._feed(c, out), (out) => p._finish(out)); // (no generator around it)
}

const encoder = new TextEncoder();

/**
 * Is `v` made only of what JSON.stringify writes exactly as jsonText does: plain objects and
 * arrays (not too deep), strings, finite numbers, booleans, null? Then the native one is used.
 */
function plainJSON(v, depth) {
  if (v === null) return true;
  const t = typeof v;
  if (t === 'string' || t === 'boolean') return true;
  if (t === 'number') return Number.isFinite(v);
  if (t !== 'object' || depth > 200) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!plainJSON(v[i], depth + 1)) return false;
    return true;
  }
  const p = Object.getPrototypeOf(v);
  if (p !== Object.prototype && p !== null) return false;
  for (const k in v) if (!plainJSON(v[k], depth + 1)) return false;
  return true;
}

/** The JSON text of a chunk, as jsonText writes it (JSON.stringify's own speed for plain values). */
function chunkJSON(chunk) {
  return plainJSON(chunk, 0) ? JSON.stringify(chunk) : jsonText(chunk);
}

/** One chunk as `data: <JSON>\n\n` bytes (lone surrogates are escaped, so the UTF-8 is exact). */
function encodeEvent(chunk) {
  return encoder.encode('data: ' + chunkJSON(chunk) + '\n\n');
}

function doneBytes() {
  return encoder.encode('data: [DONE]\n\n');
}

function doneOption(opts) {
  const { done = true } = checkOptions(opts, ['done']);
  if (typeof done !== 'boolean') throw new InputTypeError(`done must be a boolean, got ${typeName(done)}`);
  return done;
}

/** Each chunk as `data: <JSON>\n\n`, then `data: [DONE]\n\n` (unless `done: false`). */
async function* writeSSE(chunks, opts) {
  const done = doneOption(opts);
  if (chunks != null && typeof chunks[Symbol.asyncIterator] === 'function') {
    for await (const c of chunks) yield encodeEvent(c);
  } else {
    if (chunks == null || typeof chunks[Symbol.iterator] !== 'function') {
      throw new InputTypeError(`writeSSE() takes an iterable of chunks, got ${typeName(chunks)}`);
    }
    for (const c of chunks) yield encodeEvent(c);
  }
  if (done) yield doneBytes();
}

function transformStream(spec) {
  const TS = globalThis.TransformStream;
  if (typeof TS !== 'function') throw new CallsieveError('TransformStream is not available in this runtime');
  return new TS(spec);
}

/**
 * Enqueue what `fn(out)` produced, then rethrow its error, which errors the stream (WHATWG streams
 * then discard queued chunks the consumer has not read; the async generators keep them).
 */
function emit(controller, fn) {
  const out = [];
  let err = null;
  try {
    fn(out);
  } catch (e) {
    err = e;
  }
  for (const v of out) controller.enqueue(v);
  if (err) throw err;
}

/** TransformStream<Uint8Array, chat chunk>: SSE bytes in, the parsed `data:` JSON values out. */
function createSSEDecoderStream() {
  const p = new ChatChunkParser();
  return transformStream({
    transform(chunk, controller) {
      emit(controller, (out) => p._feed(chunk, out));
    },
    flush(controller) {
      emit(controller, (out) => p._finish(out));
    },
  });
}

/** TransformStream<object, Uint8Array>: `data: <JSON>\n\n` per chunk, then `data: [DONE]\n\n` unless `done: false`. */
function createSSEEncoderStream(opts) {
  const done = doneOption(opts);
  return transformStream({
    transform(chunk, controller) {
      controller.enqueue(encodeEvent(chunk));
    },
    flush(controller) {
      if (done) controller.enqueue(doneBytes());
    },
  });
}

module.exports = {
  DONE,
  SSEFormatError,
  SSEParser,
  ChatChunkParser,
  iterSSEEvents,
  iterChatChunks,
  writeSSE,
  createSSEDecoderStream,
  createSSEEncoderStream,
  encodeEvent,
  chunkJSON,
};
