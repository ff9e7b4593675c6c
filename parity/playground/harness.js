// Chunkings, the JS engine's runs, and comparison: the same shapes the Python side (pyside.py)
// returns, so the page compares plain JSON values.

// No loss (R8.2): text, reasoning + raw rebuild the input, except end-of-sentence tokens (D29)
// and reasoning markers (R15), which are dropped. R16's start and argument events add nothing.
// As parity/docs.py's DROPPED: every marker the format table drops where it stands alone (D47; the
// presets' reasoning markers), Harmony's headers (D49), read from the JS build's own table.
const esc = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
function dropped(ts) {
  const rows = Object.values(ts.FORMATS).flatMap((f) => [f.closer, ...(f.strays || [])]);
  const marks = [...new Set([...rows, ...Object.values(ts.PRESETS).flatMap((p) => p.think || [])].filter((m) => m))];
  return '<[\\uff5c|]end\\u2581of\\u2581sentence[\\uff5c|]>' + marks.map((m) => '|' + esc(m)).join('') + '|<\\|(?:start|channel)\\|>[^\\n]{0,256}?<\\|message\\|>';
}
function kept(ts, raw, input) {
  const source = dropped(ts);
  const pattern = input.split(new RegExp(source)).map(esc).join('(?:' + source + ')?');
  return new RegExp('^' + pattern + '$', 'u').test(raw);
}

/** mulberry32: a small seeded PRNG giving floats in [0, 1) (as parity/node/test/support.js). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Split into chunks of lo..hi code points (never inside a surrogate pair). */
export function randomChunks(text, seed, lo = 1, hi = 10) {
  const rng = mulberry32(seed);
  const cps = Array.from(text);
  const out = [];
  for (let i = 0; i < cps.length; ) {
    const n = lo + Math.floor(rng() * (hi - lo + 1));
    out.push(cps.slice(i, i + n).join(''));
    i += n;
  }
  return out;
}

/** Split into chunks of `size` code points; size 0 means the whole input as one chunk. */
export function fixedChunks(text, size) {
  if (!text) return [];
  if (!size || size <= 0) return [text];
  const cps = Array.from(text);
  const out = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''));
  return out;
}

/** The chunkings every fixture runs under in the parity table. */
export function fixtureChunkings(c, seed) {
  const text = c.input;
  const ways = { whole: text ? [text] : [], chars: Array.from(text), [`random(seed ${seed})`]: randomChunks(text, seed) };
  if (c.chunks) ways.fixture = c.chunks;
  return ways;
}

/** A JSON round trip (-0 -> 0, undefined dropped): what the Python side's json.dumps gives. */
export function jsonable(v) {
  return JSON.parse(JSON.stringify(v));
}

function kind(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** The JSON path of the first difference between two JSON values, or null when equal. */
export function firstDifference(want, got, p = '$') {
  const kw = kind(want);
  const kg = kind(got);
  if (kw === 'object' && kg === 'object') {
    const keys = Object.keys(want).concat(Object.keys(got).filter((k) => !Object.hasOwn(want, k)));
    for (const k of keys) {
      if (!Object.hasOwn(got, k) || !Object.hasOwn(want, k)) return `${p}.${k}`;
      const d = firstDifference(want[k], got[k], `${p}.${k}`);
      if (d) return d;
    }
    return null;
  }
  if (kw === 'array' && kg === 'array') {
    const n = Math.min(want.length, got.length);
    for (let i = 0; i < n; i++) {
      const d = firstDifference(want[i], got[i], `${p}[${i}]`);
      if (d) return d;
    }
    return want.length === got.length ? null : `${p}.length`;
  }
  if (kw !== kg || want !== got) return p;
  return null;
}

function errorOf(e) {
  return { type: (e && e.name) || 'Error', message: (e && e.message) || String(e) };
}

function eventDict(e, withRaw) {
  if (e.type === 'text') return e.note ? { type: 'text', text: e.text, note: e.note } : { type: 'text', text: e.text };
  if (e.type === 'reasoning') return { type: 'reasoning', text: e.text };
  if (e.type === 'tool_call_start') {
    const d = { type: 'tool_call_start', index: e.index, name: e.name };
    if (e.id != null) d.id = e.id; // (as Python's to_dict: the call's own id when it was read, D63)
    return d;
  }
  if (e.type === 'tool_call_arguments') return { type: 'tool_call_arguments', index: e.index, delta: e.delta };
  // (as Python's to_dict: a call's id, the event's format and malformed calls when there are some)
  const d = { type: 'tool_calls', calls: e.calls.map((c) => (c.id === undefined ? { name: c.name, input: c.input } : { name: c.name, input: c.input, id: c.id })) };
  if (e.rejectedToolNames) d.rejectedToolNames = e.rejectedToolNames;
  if (e.format) d.format = e.format;
  if (e.malformed && e.malformed.length) d.malformed = e.malformed;
  if (withRaw) d.raw = e.raw;
  return d;
}

/** The input an event stands for: R16's start and argument events stand for none (their source
 * is in the block's raw). */
function sourceOf(e) {
  if (e.type === 'tool_calls') return e.raw;
  if (e.type === 'text' || e.type === 'reasoning') return e.text;
  return '';
}

/** Coalescing over event dicts, as the engines' coalesce(): adjacent text joined, adjacent
 * reasoning joined, adjacent argument fragments of one call joined; empty text dropped. The
 * replay uses it on a prefix of the stream's events. */
export function coalesceEvents(events) {
  return appendCoalesced([], events);
}

/** Append `events` to the coalesced list `out` (only its last entry can change); returns `out`. */
export function appendCoalesced(out, events) {
  for (const e of events) {
    const last = out[out.length - 1];
    if (e.type === 'text' || e.type === 'reasoning') {
      if (!e.text) continue;
      if (last && last.type === e.type) {
        const joined = { ...last, text: last.text + e.text };
        if (e.type === 'text' && !last.note && e.note) joined.note = e.note;
        out[out.length - 1] = joined;
        continue;
      }
    } else if (e.type === 'tool_call_arguments' && last && last.type === e.type && last.index === e.index) {
      out[out.length - 1] = { ...last, delta: last.delta + e.delta };
      continue;
    }
    out.push(e);
  }
  return out;
}

// Options newer than some builds of the JS package; one the build rejects as unknown is
// reported (and left out) rather than failing every run that sets it.
const NEWER_OPTIONS = { reasoning: 'auto', streamArguments: true, formats: ['dsml'] };
let lacking = null;

/** The options of NEWER_OPTIONS this build of the JS sieve does not know. */
export function jsLacks(ts) {
  if (lacking) return lacking;
  lacking = [];
  for (const [k, v] of Object.entries(NEWER_OPTIONS)) {
    try {
      new ts.Sieve({ [k]: v });
    } catch (e) {
      if (/unknown option/.test((e && e.message) || '')) lacking.push(k);
    }
  }
  return lacking;
}

/** The options of `options` the JS build lacks (see jsLacks). */
export function unsupportedOptions(ts, options) {
  const lacks = jsLacks(ts);
  return Object.keys(options || {}).filter((k) => lacks.includes(k));
}

function stream(ts, chunks, options) {
  const sieve = new ts.Sieve(options);
  const steps = chunks.map((ch) => Array.from(sieve.feed(ch)));
  steps.push(Array.from(sieve.flush()));
  const events = steps.flat();
  const raw = events.map(sourceOf).join('');
  return { coalesced: ts.coalesce(events), raw, count: events.length, steps };
}

/** The JS engine on one input: same shape as pyside.py's 'run'. `steps[i]` holds the events
 * feed(chunks[i]) returned, the last one those of flush(): the replay's material. */
export function jsRun(ts, input, chunks, options) {
  try {
    const s = stream(ts, chunks, options);
    return jsonable({
      parse: ts.parse(input, options),
      events: s.coalesced.map((e) => eventDict(e, true)),
      eventCount: s.count,
      steps: s.steps.map((step) => step.map((e) => eventDict(e, true))),
    });
  } catch (e) {
    return { error: errorOf(e) };
  }
}

/** A function fixture through the Node driver's own request handling (src/driver.js). */
function jsCall(protocol, c) {
  const req = { id: c.id, op: 'call', function: c.call.function, args: c.call.args };
  const ans = JSON.parse(protocol.respond(JSON.stringify(req)));
  if (ans.error) return { id: c.id, call: { error: ans.error.type }, detail: ans.error.message };
  return { id: c.id, call: { result: ans.result } };
}

/** What two engines must agree on: for a function fixture, not the wording of an error. */
export function comparable(result) {
  return result && result.call ? { id: result.id, call: result.call } : result;
}

/** Options a function fixture's call passes (an object among its arguments) that the JS build
 * lacks. */
function callLacks(ts, c) {
  const names = new Set();
  for (const a of c.call.args || []) {
    if (a && typeof a === 'object' && !Array.isArray(a)) for (const k of unsupportedOptions(ts, a)) names.add(k);
  }
  return [...names];
}

/** The JS engine on one fixture case: same shape as pyside.py's 'fixtures' results, or
 * {id, unsupported: [option]} when the case needs an option this JS build lacks. */
export function jsFixture(ts, c, protocol) {
  const lacks = c.call ? callLacks(ts, c) : unsupportedOptions(ts, c.options);
  if (lacks.length) return { id: c.id, unsupported: lacks };
  if (c.call) return jsCall(protocol, c);
  const out = { id: c.id };
  try {
    out.parse = jsonable(ts.parse(c.input, c.options));
  } catch (e) {
    out.parse = { error: errorOf(e) };
  }
  out.streams = {};
  for (const [name, chunks] of Object.entries(c.chunkings)) {
    try {
      const s = stream(ts, chunks, c.options);
      out.streams[name] = { events: jsonable(s.coalesced.map((e) => eventDict(e, false))), rawOk: kept(ts, s.raw, c.input) };
    } catch (e) {
      out.streams[name] = { error: errorOf(e) };
    }
  }
  return out;
}

/** Check one engine's fixture result against the fixture's expected values: null or a reason. */
export function checkFixture(fixture, result) {
  if (!result) return 'no result';
  if (result.error) return `${result.error.type}: ${result.error.message}`;
  if (fixture.call) {
    const want = fixture.expected.error !== undefined ? { error: fixture.expected.error } : { result: fixture.expected.result };
    const d = firstDifference(want, result.call);
    return d ? `call: first difference at ${d}${result.detail ? ` (${result.detail})` : ''}` : null;
  }
  // parse()'s prose is the text of the expected events, joined (as the other fixture runners check it)
  const text = fixture.expected.events.filter((e) => e.type === 'text').map((e) => e.text).join('');
  const wantParse = { rejectedByPolicy: false, rejectedToolNames: [], text, ...fixture.expected.parse };
  if (result.parse.error) return `parse: ${result.parse.error.type}: ${result.parse.error.message}`;
  const d = firstDifference(wantParse, result.parse);
  if (d) return `parse: first difference at ${d}`;
  for (const [name, s] of Object.entries(result.streams)) {
    if (s.error) return `stream[${name}]: ${s.error.type}: ${s.error.message}`;
    if (!s.rawOk) return `stream[${name}]: text + raw does not reproduce the input`;
    const ds = firstDifference(fixture.expected.events, s.events);
    if (ds) return `stream[${name}]: first difference at ${ds}`;
  }
  return null;
}
