'use strict';
/** The SSE reader and writer (mirror of python/callsieve/sse.py): chunk cuts, BOM, strict UTF-8, [DONE], streams. */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const {
  DONE,
  SSEFormatError,
  SSEParser,
  ChatChunkParser,
  iterSSEEvents,
  iterChatChunks,
  writeSSE,
  createSSEDecoderStream,
  createSSEEncoderStream,
} = require('../../src/sse');
const { asyncOf, collect, readable } = require('../support');
const { InputTypeError, CallsieveError } = require('../../src/errors');

const enc = (s) => new TextEncoder().encode(s);
const dec = (parts) => Buffer.concat(parts.map((p) => Buffer.from(p))).toString('utf8');

/** Every byte of `s` cut at each position, and in single bytes. */
function cuts(bytes) {
  const ways = [[bytes], Array.from(bytes, (b) => Uint8Array.of(b))];
  for (let i = 0; i <= bytes.length; i++) ways.push([bytes.subarray(0, i), bytes.subarray(i)]);
  return ways;
}

/** Values read before the error, and the error (or null). */
async function collectUntilError(it) {
  const out = [];
  try {
    for await (const v of it) out.push(v);
  } catch (e) {
    return [out, e];
  }
  return [out, null];
}


const ev = (data, event = 'message', id = null, retry = null) => ({ data, event, id, retry });

test('SSEFormatError is a CallsieveError named after its class', () => {
  const e = new SSEFormatError('m');
  assert.ok(e instanceof CallsieveError);
  assert.equal(e.name, 'SSEFormatError');
  assert.equal(DONE, '[DONE]');
});

test('events: fields, comments, multi-line data, event type reset, id and retry', async () => {
  const text =
    ': comment\n' +
    'event: delta\nid: 7\nretry: 1500\ndata: a\ndata:b\ndata:  c\n\n' +
    'data\n\n' + // a line without a colon is a field with an empty value
    'id: x\0y\nretry: 1x\nfoo: bar\ndata: last\n\n' +
    '\n\n' + // blank lines without data dispatch nothing
    'event: lost\n\n' +
    'data: after\n\n';
  // id and retry persist across events; an id with NUL and a retry with a non-digit are ignored.
  const want = [ev('a\nb\n c', 'delta', '7', 1500), ev('', 'message', '7', 1500), ev('last', 'message', '7', 1500), ev('after', 'message', '7', 1500)];
  for (const chunks of cuts(enc(text))) assert.deepEqual(await collect(iterSSEEvents(chunks)), want);
});

test('CR, LF and CRLF end lines, also with CR and LF in different chunks', async () => {
  for (const eol of ['\n', '\r', '\r\n']) {
    const text = `data: 1${eol}${eol}data: 2${eol}data: 3${eol}${eol}`;
    for (const chunks of cuts(enc(text))) {
      assert.deepEqual(await collect(iterSSEEvents(chunks)), [ev('1'), ev('2\n3')], JSON.stringify(eol));
    }
  }
  // CR then LF across chunks is one line end, not an empty line in between.
  assert.deepEqual(await collect(iterSSEEvents([enc('data: a\r'), enc('\ndata: b\r'), enc('\n\r\n')])), [ev('a\nb')]);
});

test('a leading BOM is skipped, also when cut; a BOM later is kept as a character', async () => {
  const text = '\ufeffdata: 1\n\n\ufeffdata: 2\n\ndata: \ufeff3\n\n';
  for (const chunks of cuts(enc(text))) assert.deepEqual(await collect(iterSSEEvents(chunks)), [ev('1'), ev('\ufeff3')]);
});

test('the last event is dispatched at the end of input without its blank line', async () => {
  assert.deepEqual(await collect(iterSSEEvents([enc('data: a\n\ndata: b')])), [ev('a'), ev('b')]);
  assert.deepEqual(await collect(iterSSEEvents([enc('data: b\n')])), [ev('b')]);
  assert.deepEqual(await collect(iterSSEEvents([])), []);
});

test('SSEParser: synchronous feed/finish, empty chunks', () => {
  const p = new SSEParser();
  assert.deepEqual(p.feed(enc('data: {"a"')), []);
  assert.deepEqual(p.feed(new Uint8Array(0)), []);
  assert.deepEqual(p.feed(enc(':1}\n')), []);
  assert.deepEqual(p.feed(enc('\ndata: x')), [ev('{"a":1}')]);
  assert.deepEqual(p.finish(), [ev('x')]);
  assert.deepEqual(p.finish(), []);
  assert.throws(() => p.feed(enc('x')), SSEFormatError);
});

test('invalid UTF-8 is an SSEFormatError, after the events before it', async () => {
  for (const bad of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0x80], [0xe2, 0x82]]) {
    const bytes = Buffer.concat([enc('data: ok\n\ndata: '), Buffer.from(bad), enc('\n\n')]);
    for (const chunks of cuts(bytes)) {
      const [got, err] = await collectUntilError(iterSSEEvents(chunks));
      assert.deepEqual(got, [ev('ok')]);
      assert.ok(err instanceof SSEFormatError, String(err));
      assert.match(err.message, /line 3 is not valid UTF-8 \(byte 6\)/);
    }
  }
  // A cut BOM that never completes is not skipped: it is invalid UTF-8.
  await assert.rejects(collect(iterSSEEvents([Uint8Array.of(0xef, 0xbb)])), SSEFormatError);
});

test('feed returns the events before an invalid line, then every call throws (issue 41 F3, as Python)', async () => {
  const bytes = Buffer.concat([enc('data: {"a":1}\n\ndata: '), Buffer.from([0xff]), enc('\n\n')]);
  const p = new SSEParser();
  assert.deepEqual(p.feed(bytes), [ev('{"a":1}')]);
  const line3 = (e) => e instanceof SSEFormatError && e.message === 'line 3 is not valid UTF-8 (byte 6)';
  assert.throws(() => p.feed(enc('data: 2\n\n')), line3);
  assert.throws(() => p.finish(), line3);
  assert.throws(() => p.finish(), line3);
  assert.throws(() => new SSEParser().feed(Buffer.from([0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a])), /^SSEFormatError: line 1 /); // nothing before it: at once
  const withComments = new SSEParser({ comments: true });
  assert.deepEqual(withComments.feed(Uint8Array.of(0x3a, 0x68, 0x0a, 0xff, 0x0a)), [{ comment: enc(':h') }]);
  assert.throws(() => withComments.finish(), /line 2 /);
  const c = new ChatChunkParser();
  assert.deepEqual(c.feed(bytes), [{ a: 1 }]);
  assert.throws(() => c.finish(), line3);
  const json = new ChatChunkParser();
  assert.deepEqual(json.feed(enc('data: {"a":1}\n\ndata: nope\n\ndata: {"b":2}\n\n')), [{ a: 1 }]);
  assert.throws(() => json.feed(enc('data: {}\n\n')), /event 2: data is not JSON/);
  assert.throws(() => json.finish(), /event 2: data is not JSON/);
  // the readers, at every cut of one read into two: the event (or chunk), then the error
  for (let cut = 0; cut <= bytes.length; cut++) {
    const chunks = [bytes.subarray(0, cut), bytes.subarray(cut)];
    const [events, err] = await collectUntilError(iterSSEEvents(chunks));
    assert.deepEqual([events, line3(err)], [[ev('{"a":1}')], true], String(cut));
    const [values, err2] = await collectUntilError(iterChatChunks(chunks));
    assert.deepEqual([values, line3(err2)], [[{ a: 1 }], true], String(cut));
  }
});

test('input must be Uint8Array chunks (Buffer is one)', async () => {
  assert.deepEqual(await collect(iterSSEEvents([Buffer.from('data: 1\n\n')])), [ev('1')]);
  for (const bad of ['data: 1\n\n', 1, null, [1]]) {
    await assert.rejects(collect(iterSSEEvents([bad])), InputTypeError);
  }
  await assert.rejects(collect(iterSSEEvents(5)), InputTypeError);
  assert.throws(() => new SSEParser().feed('data: 1\n\n'), InputTypeError);
});

test('chat chunks: JSON values up to [DONE], from sync and async iterables', async () => {
  const text = 'data: {"a":1}\n\n: keep-alive\n\ndata: [1, "é"]\n\ndata:  [DONE] \n\n\n: bye\n';
  for (const chunks of cuts(enc(text))) {
    assert.deepEqual(await collect(iterChatChunks(chunks)), [{ a: 1 }, [1, 'é']]);
    assert.deepEqual(await collect(iterChatChunks(asyncOf(chunks))), [{ a: 1 }, [1, 'é']]);
  }
  // Stream without [DONE]: every chunk, nothing more.
  assert.deepEqual(await collect(iterChatChunks([enc('data: 1\n\ndata: 2')])), [1, 2]);
});

test('data after [DONE] is an SSEFormatError (not dropped)', async () => {
  const [got, err] = await collectUntilError(iterChatChunks([enc('data: 1\n\ndata: [DONE]\n\ndata: 2\n\n')]));
  assert.deepEqual(got, [1]);
  assert.ok(err instanceof SSEFormatError);
  assert.match(err.message, /event 3 comes after data: \[DONE\]/);
  await assert.rejects(collect(iterChatChunks([enc('data: [DONE]\n\ndata: [DONE]\n\n')])), SSEFormatError);
});

test('data that is not JSON is an SSEFormatError with the event number', async () => {
  for (const bad of ['{oops', 'NaN', 'Infinity', '-Infinity', "{'a': 1}", '[1,]', '\ufeff{}']) {
    const [got, err] = await collectUntilError(iterChatChunks([enc(`data: 1\n\ndata: ${bad}\n\ndata: 3\n\n`)]));
    assert.deepEqual(got, [1], bad);
    assert.ok(err instanceof SSEFormatError, bad);
    assert.match(err.message, /^event 2: data is not JSON/);
  }
});

test('keep-alives (empty data:) and comments (any bytes) carry no chunk', async () => {
  const bytes = Buffer.concat([enc('data: 1\n\ndata: \n\ndata:\ndata:  \n\n: '), Buffer.from([0xff, 0xfe]), enc('\n\ndata: [DONE]\n\ndata:\n\n')]);
  const parser = new ChatChunkParser();
  const got = [...parser.feed(bytes), ...parser.finish()];
  assert.deepEqual(got, [1]);
  assert.equal(parser.sawDone, true);
});

test('a 10 MB data: line is read in linear time, whatever the chunking', async () => {
  const body = 'x'.repeat(10_000_000);
  const bytes = enc(`data: {"content":"${body}"}\n\ndata: [DONE]\n\n`);
  for (const size of [bytes.length, 65536, 1024]) {
    const chunks = [];
    for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
    const t0 = performance.now();
    const got = await collect(iterChatChunks(chunks));
    const ms = performance.now() - t0;
    assert.equal(got.length, 1);
    assert.equal(got[0].content.length, body.length);
    assert.ok(ms < 3000, `${ms} ms for ${chunks.length} chunks`);
  }
});

test('the reader keeps its own copy of an unfinished line (callers may reuse their buffer)', () => {
  const p = new SSEParser();
  const buf = enc('data: ab');
  p.feed(buf);
  buf.fill(0x7a);
  assert.deepEqual(p.feed(enc('\n\n')), [ev('ab')]);
});

test('writer: data lines with JSON as JavaScript writes it, then [DONE]', async () => {
  const chunks = [{ a: 1, s: 'é\n😀', n: 2.5 }, [1, null]];
  const want = 'data: {"a":1,"s":"é\\n😀","n":2.5}\n\ndata: [1,null]\n\ndata: [DONE]\n\n';
  assert.equal(dec(await collect(writeSSE(chunks))), want);
  assert.equal(dec(await collect(writeSSE(asyncOf(chunks)))), want);
  assert.equal(dec(await collect(writeSSE(chunks, { done: false }))), want.replace('data: [DONE]\n\n', ''));
  // A lone surrogate is escaped, so the bytes are valid UTF-8 and read back the same.
  const back = await collect(iterChatChunks(await collect(writeSSE([{ s: '\ud800x' }]))));
  assert.deepEqual(back, [{ s: '\ud800x' }]);
  await assert.rejects(collect(writeSSE([undefined])), InputTypeError);
  await assert.rejects(collect(writeSSE([1n])), InputTypeError);
});

test('round trip: writer output read back, cut anywhere', async () => {
  const chunks = [{ id: 1, choices: [{ delta: { content: 'a\r\nb' } }] }, 'x', 0, { e: {} }];
  const bytes = Buffer.concat((await collect(writeSSE(chunks))).map((b) => Buffer.from(b)));
  for (const c of cuts(new Uint8Array(bytes)).slice(0, 40)) assert.deepEqual(await collect(iterChatChunks(c)), chunks);
});

test('decoder TransformStream: bytes in, chat chunks out', async () => {
  const bytes = enc('\ufeffdata: {"a":1}\r\n\r\n: c\r\ndata: 2\r\n\r\ndata: [DONE]\r\n\r\n');
  for (const chunks of cuts(bytes).slice(0, 30)) {
    assert.deepEqual(await collect(readable(chunks).pipeThrough(createSSEDecoderStream())), [{ a: 1 }, 2]);
  }
  await assert.rejects(collect(readable([enc('data: 1\n\ndata: [DONE]\n\ndata: 2\n\n')]).pipeThrough(createSSEDecoderStream())), SSEFormatError);
  await assert.rejects(collect(readable([enc('data: {x\n\n')]).pipeThrough(createSSEDecoderStream())), SSEFormatError);
  await assert.rejects(collect(readable([Uint8Array.of(0x64, 0xff, 0x0a)]).pipeThrough(createSSEDecoderStream())), SSEFormatError);
  await assert.rejects(collect(readable(['data: 1\n\n']).pipeThrough(createSSEDecoderStream())), InputTypeError);
  // The event without its blank line comes out at the end of the stream.
  assert.deepEqual(await collect(readable([enc('data: 5')]).pipeThrough(createSSEDecoderStream())), [5]);
});

test('encoder TransformStream: chunks in, SSE bytes out', async () => {
  const out = await collect(readable([{ a: 1 }, 'b']).pipeThrough(createSSEEncoderStream()));
  assert.ok(out.every((b) => b instanceof Uint8Array));
  assert.equal(dec(out), 'data: {"a":1}\n\ndata: "b"\n\ndata: [DONE]\n\n');
  assert.equal(dec(await collect(readable([{ a: 1 }]).pipeThrough(createSSEEncoderStream({ done: false })))), 'data: {"a":1}\n\n');
  // decoder . encoder is the identity on chunks
  const chunks = [{ x: [1, 2, { y: 'z' }] }, null, true];
  const back = await collect(readable(chunks).pipeThrough(createSSEEncoderStream()).pipeThrough(createSSEDecoderStream()));
  assert.deepEqual(back, chunks);
});

// ---- the data-line fast path and ChatChunkParser's data-only events, against a whole-input
// reading of the same bytes (the side of python/tests/gateway/test_gateway_fast_paths.py) ------------
const SSE_LINES = [
  'data: {"a": 1}', 'data:{}', 'data', 'data: x', 'data:  two spaces', ': comment \xff', ':', 'event: e', 'id: 7',
  'retry: 10', 'field', 'dat: no', 'data: \u4e2d', 'data: \ufeffbom', 'data: \xe4\xb8', '\xff', 'dat', '', '', '',
].map((l) => Uint8Array.from([...l].flatMap((c) => (c.charCodeAt(0) > 0xff ? [...new TextEncoder().encode(c)] : [c.charCodeAt(0)]))));

/** The data of each event of `bytes` read whole (lines decoded whole), and the line of the first bad UTF-8 line. */
function referenceData(bytes) {
  let b = bytes;
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
  const lines = [];
  let start = 0;
  for (let i = 0; i < b.length; i++) {
    if (b[i] === 0x0a || b[i] === 0x0d) {
      lines.push(b.subarray(start, i));
      if (b[i] === 0x0d && b[i + 1] === 0x0a) i++;
      start = i + 1;
    }
  }
  if (start < b.length) lines.push(b.subarray(start));
  const dec = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const out = [];
  let data = [];
  for (let n = 0; n < lines.length; n++) {
    const raw = lines[n];
    if (raw[0] === 0x3a) continue;
    let line;
    try {
      line = dec.decode(raw);
    } catch {
      return [out, `line ${n + 1}`];
    }
    if (!line) {
      if (data.length) out.push(data.join('\n'));
      data = [];
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon >= 0 ? line.slice(0, colon) : line;
    let value = colon >= 0 ? line.slice(colon + 1) : '';
    if (value[0] === ' ') value = value.slice(1);
    if (field === 'data') data.push(value);
  }
  if (data.length) out.push(data.join('\n'));
  return [out, null];
}

function parserData(pieces, dataOnly) {
  const p = new SSEParser();
  p._dataOnly = dataOnly;
  const out = [];
  try {
    for (const piece of pieces) p._feed(piece, out); // (events before an error are kept)
    p._finish(out);
  } catch (e) {
    return [out.map((e) => (dataOnly ? e : e.data)), e.message.match(/^line \d+/)[0]];
  }
  return [out.map((e) => (dataOnly ? e : e.data)), null];
}

test('SSE: the data-line fast path and the data-only events read what a whole-input reading reads', () => {
  let x = 3;
  const rnd = () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  for (let n = 0; n < 3000; n++) {
    const eol = pick([[0x0a], [0x0d, 0x0a], [0x0d]]);
    const parts = [pick([[], [0xef, 0xbb, 0xbf]])];
    const count = Math.floor(rnd() * 13);
    for (let k = 0; k < count; k++) parts.push(k ? eol : [], [...pick(SSE_LINES)]);
    parts.push(pick([[], eol, [...eol, ...eol]]));
    const bytes = Uint8Array.from(parts.flat());
    const cuts = [...new Set(Array.from({ length: Math.floor(rnd() * 5) }, () => Math.floor(rnd() * (bytes.length + 1))))].sort((a, b) => a - b);
    const pieces = [0, ...cuts].map((c, i) => bytes.slice(c, i < cuts.length ? cuts[i] : bytes.length));
    const want = referenceData(bytes);
    assert.deepStrictEqual(parserData(pieces, false), want, JSON.stringify([...bytes]));
    assert.deepStrictEqual(parserData(pieces, true), want, JSON.stringify([...bytes]));
  }
});

test('jsonTrim strips exactly JSON\'s four blanks, in linear time', { timeout: 5000 }, () => {
  const { jsonTrim } = require('../../src/strings');
  assert.equal(jsonTrim(''), '');
  assert.equal(jsonTrim(' \t\r\n'), '');
  assert.equal(jsonTrim('\n [DONE]\r\n'), '[DONE]');
  assert.equal(jsonTrim('\u00a0x\u2028'), '\u00a0x\u2028');
  assert.equal(jsonTrim('\fx\v'), '\fx\v');
  assert.equal(jsonTrim('a \t b'), 'a \t b');
  // A long blank run that is not at the end: a trimming regex rescans it from every start.
  const s = `x${' \t'.repeat(200000)}y`;
  assert.equal(jsonTrim(`  ${s}\n`), s);
});
