'use strict';
/**
 * The scanner's base layer (Python's scanbase.py): its state (buffer, cursor, offsets, one small
 * object per mode), output, and the helpers every layer uses. See scanner.js for the layers and
 * python/callsieve/scanner.py for the theory of operation.
 */

const values = require('./values');
const strings = require('./strings');
const { bodyKind } = require('./blocks');
const harmony = require('./harmony');
const mistral = require('./mistral');
const pylist = require('./pylist');
const { BLOCK_FORMATS, DEFAULT_FORMATS, FORMATS } = require('./formats');
const { BARS } = require('./sections');
const { KEYWORDS_ALL, KEYWORDS_NATIVE, KEYWORDS_SEED, MORE, NO, matchTag, skipNoTag } = require('./shell');
const { FenceLine } = require('./fences');

/** What the scanner is doing at `pos`. */
const Mode = Object.freeze({
  TEXT: 0,
  RUN: 1,
  FENCE: 2,
  PENDING: 3,
  CAPTURE: 4,
  JSON: 5,
  TOKENS: 6,
  REGION: 7,
  BLOCK: 8,
  HARMONY: 9,
  MISTRAL: 10,
  PYLIST: 11,
});

/** Where a CAPTURE is inside its block. */
const Level = Object.freeze({
  TOP: 0, // directly inside the wrapper
  INVOKE: 1,
  PARAM: 2, // a parameter body
  CDATA: 3, // a CDATA section inside a parameter body
  AFTER_CDATA: 4, // after a `]]>`: closes the CDATA only if a closing tag follows (D7)
});

function isTag(r) {
  return r !== null && typeof r === 'object';
}

function named(tag) {
  return tag.name !== null && !strings.isBlank(tag.name);
}

function textEvent(text, note) {
  return note ? { type: 'text', text, note } : { type: 'text', text };
}

/** A block's event; `format`, `malformed` and `repaired` are set only when not empty (D58). */
function toolCallsEvent(calls, raw, format = '', malformed = null, repaired = null) {
  const e = { type: 'tool_calls', calls, raw };
  if (format) e.format = format;
  if (malformed !== null && malformed.length) e.malformed = malformed;
  if (repaired !== null && repaired.length) e.repaired = repaired;
  return e;
}

/**
 * Text kept in pieces, so a long text costs about what the input does whatever the size of its
 * pieces (issue 14, item 5).
 *
 * A held block's source is copied as it arrives into byte blocks outside the JS heap, one byte per
 * character: a string kept for as long as the block stays open survives V8's young-generation
 * collections, and what survives them grows the young generation (by tens of MB) whatever the
 * string costs itself. A piece whose buffer is held anyway (`shared`: a parameter body keeps
 * slices of the same buffer) stays a string, so it is not kept twice; so do the first
 * TEXT_BLOCK characters (most blocks are short) and the text from the first character above
 * U+00FF on (a two-byte string costs what a copy would).
 */
class _Text {
  constructor() {
    this.parts = []; // strings, and [bytes, all ASCII] views of `block`
    this.small = []; // small strings not in `parts` yet (joined in batches)
    this.size = 0; // code units in `small`
    this.block = null; // a Uint8Array of TEXT_BLOCK bytes, or null
    this.start = 0; // `block[start:used]` is not in `parts` yet
    this.used = 0;
    this.ascii = true; // `block[start:used]` is all ASCII
    this.wide = false; // a character above U+00FF came: pieces are kept as strings from here on
    this.length = 0; // code units so far
  }

  add(s, shared = false) {
    // (the first TEXT_BLOCK code units stay strings: most blocks are short)
    const copy = !shared && !this.wide && this.length >= TEXT_BLOCK;
    this.length += s.length;
    if (!copy) {
      this._seal();
      this._string(s);
      return;
    }
    this._flush();
    const n = s.length;
    let i = 0;
    while (i < n) {
      let block = this.block;
      if (block === null || this.used === TEXT_BLOCK) {
        this._seal();
        block = this.block = new Uint8Array(TEXT_BLOCK);
        this.start = this.used = 0;
      }
      let u = this.used;
      let ascii = this.ascii;
      const end = Math.min(n, i + TEXT_BLOCK - u);
      for (; i < end; i++) {
        const c = s.charCodeAt(i);
        if (c > 127) {
          if (c > 255) break;
          ascii = false;
        }
        block[u++] = c;
      }
      this.used = u;
      this.ascii = ascii;
      if (i < end) {
        this.wide = true;
        this._seal();
        this.block = null;
        this._string(s.slice(i));
        return;
      }
    }
  }

  _string(s) {
    if (s.length >= 4096) {
      this._flush();
      this.parts.push(s); // (a slice of the input's buffer, kept without a copy)
      return;
    }
    this.small.push(s);
    this.size += s.length;
    if (this.size >= 4096 || this.small.length >= 64) this._flush();
  }

  _flush() {
    if (this.small.length) {
      this.parts.push(this.small.join(''));
      this.small = [];
      this.size = 0;
    }
  }

  _seal() {
    if (this.used > this.start) {
      this.parts.push([this.block.subarray(this.start, this.used), this.ascii]);
      this.start = this.used;
    }
    this.ascii = true;
  }

  /**
   * The text, then `tail`. The pieces are concatenated, not joined: the result becomes one flat
   * string only once it is read, so the pieces and a copy of them are not all held at once.
   */
  text(tail = '') {
    this._seal();
    this._flush();
    let out = '';
    for (const p of this.parts) out += typeof p === 'string' ? p : latin1(p[0], p[1]);
    return out + tail;
  }
}

const TEXT_BLOCK = 1 << 16;
let ASCII = null;

/** The string of one byte per character (`ascii`: all below 128). */
function latin1(bytes, ascii) {
  if (ascii) {
    if (ASCII === null) ASCII = new TextDecoder('utf-8', { ignoreBOM: true });
    return ASCII.decode(bytes);
  }
  let out = '';
  for (let k = 0; k < bytes.length; k += 8192) out += String.fromCharCode.apply(null, bytes.subarray(k, k + 8192));
  return out;
}

/** RUN: a backtick or tilde run being counted (its characters are text either way). */
class _Run {
  constructor() {
    this.start = 0; // absolute offset of the run
    this.line = false; // it started at a line start (a fence may open)
  }
}

/** FENCE: the open fence and the recognizer of its closing line. */
class _Fence {
  constructor() {
    this.char = '';
    this.length = 0;
    this.line = new FenceLine();
  }
}

/** PENDING: an open inline code span of `n` backticks (D1). */
class _Pending {
  constructor() {
    this.n = 0;
    this.hold = null; // held text, from the first span-dependent thing
    this.holdStart = 0; // absolute offset where the hold began
    this.runs = new Map(); // backtick runs seen while holding: length -> offsets
    this.blank = false; // at a line start that may still be blank
    this.indent = 0; // indent of that line (tab = 4)
    this.lineStart = 0; // absolute offset of that line
    this.runLen = 0; // a backtick run being counted
    this.runStart = 0;
  }
}

/**
 * The calls of a block so far, flat: a call is its name, then the number of its parameters and
 * their (name, value) pairs, or -1 and its input object when that was built already (a JSON body,
 * a streamed call). The objects are made in `take()`, once the block ends: a block of many calls
 * holds a few slots per call instead of two objects (issue 14; V8's young generation grows with
 * what survives it). Python builds the dicts as it goes (port-map: scanbase:_Calls).
 */
class _Calls {
  constructor() {
    this.flat = [];
    this.length = 0;
    this.firstEnd = 0; // where the first call's entries end
  }

  addPairs(name, pairs) {
    const flat = this.flat;
    flat.push(name, pairs.length >> 1);
    for (let i = 0; i < pairs.length; i++) flat.push(pairs[i]);
    this._added();
  }

  addInput(name, input) {
    this.flat.push(name, -1, input);
    this._added();
  }

  _added() {
    if (++this.length === 1) this.firstEnd = this.flat.length;
  }

  /** Keep only "there was one" (a block past the limit: its calls are never taken, D43). */
  keepOne() {
    if (this.length > 1) {
      this.flat.length = this.firstEnd;
      this.length = 1;
    }
  }

  take() {
    const flat = this.flat;
    const out = [];
    for (let i = 0; i < flat.length; ) {
      const name = flat[i];
      const k = flat[i + 1];
      if (k < 0) {
        out.push({ name, input: flat[i + 2] });
        i += 3;
      } else {
        out.push({ name, input: inputOf(flat, i + 2, k) });
        i += 2 + 2 * k;
      }
    }
    return out;
  }
}

const NO_NAMES = new Set();
const PAIRS_MAX = 16;

/** The input object of `k` (name, value) pairs of `flat` from `i` (R6.6: a repeat is an array). */
function inputOf(flat, i, k) {
  const out = {};
  let multi = NO_NAMES; // the names already arrays: a Set only once a name repeats
  for (const end = i + 2 * k; i < end; i += 2) {
    const name = flat[i];
    if (multi === NO_NAMES && Object.prototype.hasOwnProperty.call(out, name)) multi = new Set();
    values.addParam(out, multi, name, flat[i + 1]);
  }
  return out;
}

/** The invoke being captured. */
class _Invoke {
  constructor() {
    this.name = '';
    this.start = 0; // absolute offset of its opening tag
    this.bad = ''; // D59: why it cannot be executed ('': nothing so far)
    this.live = false; // R16: announced (its parameters stream)
    // The parameters so far as flat (name, value) pairs: the input object is built when the
    // block's calls are taken (see _Calls), so a held call costs a few array slots, not objects.
    // Past PAIRS_MAX parameters the object is built as they close (`params`; `multi`: the names
    // already arrays, R6.6), so a long invoke keeps its values once, not also as pairs.
    this.pairs = [];
    this.params = null;
    this.multi = NO_NAMES;
    this.count = 0; // parameters so far (Python: the dict's length)
    this.text = []; // body text that is not a parameter (a JSON body, D5)
    this.keys = new Set(); // R16: parameter names so far
    this.top = -1; // R16: the largest array-index name so far
    this.other = false; // R16: a name that is not an array index came
  }
}

/** The parameter body being captured: segments of text and CDATA. */
class _Param {
  constructor() {
    this.name = '';
    this.string = null; // the `string` attribute (R14.2), when honored
    this.segs = [];
    this.text = [];
    this.start = 0; // absolute offset of the body (JS only: see _keepRaw)
  }
}

/** A CDATA section inside a parameter body, with the fences inside it (R5.3, D7). */
class _Cdata {
  constructor() {
    this.parts = [];
    this.after = []; // `]]>` and blanks that may close it (AFTER_CDATA)
    // spaces since the last newline in those blanks; -1: no newline yet (or not only spaces)
    this.afterTail = -1;
    this.start = 0; // absolute offset of the content
    this.depth = 1; // nested CDATA openers
    this.fence = ''; // the open fence character inside the CDATA, or ''
    this.fenceLen = 0;
    this.line = new FenceLine();
  }
}

/**
 * A block held from its opener until it is decided: CAPTURE's DSML block, TOKENS' section, JSON's
 * candidate. One path decides each (ScanBase._succeed, _fail, _overflow); a kind says only what
 * differs (the hooks below).
 */
class _Held {
  constructor() {
    // The block's source so far is `raw`, then the buffer from `mark` (absolute) to `pos`: it is
    // always the input from `start`, so it is kept in chunk-sized pieces, not per token.
    this.raw = new _Text();
    this.mark = 0;
    this.tail = ''; // the last characters released past the limit (for the line state)
    this.calls = new _Calls();
    this.start = 0; // absolute offset of the block
    this.over = false; // grew past maxCapture: released as text as it goes
    this.started = 0; // R16: calls announced in this block (streamArguments; DSML only)
  }

  open(at) {
    this.raw = new _Text();
    this.tail = '';
    this.calls = new _Calls();
    this.start = this.mark = at;
    this.over = false;
    this.started = 0;
  }

  takeCalls() {
    return this.calls.take();
  }

  /** R18.2: its calls that cannot be executed, their text cut from its source `raw`. */
  reported(raw) {
    return null;
  }

  /** Past the limit (_overflow): what it need not keep any more. */
  letGo(sc) {}

  /** It was text (_fail): TEXT resumes after `text`. */
  resumes(sc, text) {
    sc._textResumes(text);
  }
}

/** CAPTURE: the block being parsed. */
class _Capture extends _Held {
  constructor() {
    super();
    this.level = Level.TOP;
    this.wrapped = false; // opened by its wrapper tag (not a repaired bare invoke)
    this.format = ''; // the row of its opening wrapper, or of its closing one when repaired (D58)
    this.fixed = []; // the decisions of the repairs applied to it (D58)
    this.bad = null; // D59: its malformed invokes so far [start, end, reason, name], null when D4 holds
  }

  reported(raw) {
    if (this.bad === null || !this.bad.length) return null;
    const at = this.start;
    return this.bad.map(([s, e, reason, name]) => {
      const m = { raw: strings.trim(raw.slice(s - at, e - at)), reason };
      if (name !== null) m.name = name;
      return m;
    });
  }

  letGo(sc) {
    sc.cd.parts = [];
    sc.cd.after = [];
    sc.inv.text = sc.inv.text.length ? ['x'] : []; // keep "a JSON body is in progress"
    sc.par.text = [];
    sc.par.segs = [];
    // Only "there was one" matters from here on: keep no more (memory stays flat, D43).
    this.calls.keepOne();
    if (sc.inv.count) {
      sc._newParams();
      sc.inv.count = 1; // (a placeholder: "there was one"; a repeated name would grow an array)
    }
  }
}

/** Where a TOKENS capture is inside its section. */
const Stage = Object.freeze({
  BETWEEN: 0, // between calls: whitespace, a call, or the section end
  HEAD: 1, // after a call begin: the name (or `function`) up to the separator
  BODY: 2, // after the separator: the arguments up to the call end
});

/** TOKENS: the token section being parsed (R14.4, R14.5). */
class _Section extends _Held {
  constructor() {
    super();
    this.stage = Stage.BETWEEN;
    this.lead = false; // right after a section opener: a call may begin without its opener (D61)
    this.loose = false; // the call's head began so (D61): it must end on its line
    this.bad = []; // R18.2: the section's calls that cannot be executed
    this.head = [];
    this.headLen = 0; // code units (Python: code points; see _mTokens)
    this.headStart = 0; // absolute offset of the head (JS only: for the code point count)
    this.body = [];
  }

  reported(raw) {
    return this.bad;
  }

  letGo(sc) {
    this.head = [];
    this.body = [];
  }
}

/** BLOCK: a block of the block engine (R17), held from its opener to its closer. */
class _Block {
  constructor() {
    this.rows = []; // the enabled rows sharing this opener
    this.opener = '';
    this.closer = '';
    this.parts = [];
    this.size = 0; // code points held (as Python counts)
    this.over = false;
    this.wait = false; // R16: the row that reads the body is not known yet
    this.head = ''; // R16: the body's start, from its first non-blank, while `wait`
    this.row = null; // R16: the row the tap reads for
    this.tap = null; // R16: the body read as it arrives (blocktap.js)
  }
}

/** marker -> the enabled rows it opens (a closer maps to none: a stray closer, dropped, R18.3). */
function blockMarkers(formats) {
  const out = new Map();
  for (const row of BLOCK_FORMATS) {
    if (!formats.has(row.name)) continue;
    if (row.opener) for (const opener of [row.opener, ...row.alsoOpens]) out.set(opener, [...(out.get(opener) || []), row]);
    for (const closer of [row.closer, ...row.strays]) if (closer && !out.has(closer)) out.set(closer, []);
  }
  return out;
}

// The second characters of every block-engine marker (`<t`, `<s`, `<m`, `<|`, `</`).
const MARKER_SECONDS = new Set(
  BLOCK_FORMATS.flatMap((r) => [r.opener, ...r.alsoOpens, r.closer, ...r.strays]).filter((m) => m.length > 1).map((m) => m[1]),
);

/** A block engine marker at `s[i]`: [marker, end], MORE or NO. */
function matchBlockMarker(markers, s, i, final) {
  if (i + 1 < s.length && !MARKER_SECONDS.has(s[i + 1])) return NO; // (most angles end here)
  let more = false;
  for (const m of markers.keys()) {
    if (s.startsWith(m, i)) return [m, i + m.length];
    if (!final && s.length - i < m.length && m.startsWith(s.slice(i))) more = true;
  }
  return more ? MORE : NO;
}

function rowFor(rows, body) {
  if (rows.length === 1 && !rows[0].body) return rows[0];
  const kind = bodyKind(body);
  for (const row of rows) if (row.body === kind) return row;
  return null;
}

/**
 * JSON: a JSON tool-call candidate in prose (R9). It never goes over the limit: it is text where it
 * reaches it (D43).
 */
class _Json extends _Held {
  constructor() {
    super();
    this.depth = 0;
    this.inStr = false;
    this.found = null; // its calls, once its text is read as calls
    // R16, D38: under llama_json a Hermes tap reads the candidate as it arrives (jsontaps.js);
    // `over` then means it broke after its announced calls: the rest of it is text as it goes
    this.tap = null;
    this.fed = 0; // absolute offset the tap has read to
    this.bad = []; // absolute offsets of backslashes that escape nothing, not yet fed
    this.ins = []; // the tap's offsets of the backslashes added for them (R9.2)
  }

  takeCalls() {
    const found = this.found;
    this.found = null;
    return found;
  }

  resumes(sc, text) {
    sc._resumeText(); // (mid-line, wherever its text ends)
  }
}

/** State and helpers shared by every layer of the scanner. */
class ScanBase {
  constructor(maxCapture = 8 * 1024 * 1024, jsonCalls = false, formats = DEFAULT_FORMATS, streamArguments = false, typer = null) {
    this.maxCapture = maxCapture;
    this.typer = typer; // R17.9: raw-text values typed by the declared schemas
    this.stream = streamArguments; // R16: announce calls, stream their string values
    this.tap = null; // the open parameter's ValueTap, when streaming
    this._tapText = 0; // par.text pieces the tap has seen
    this._tapCdata = 0; // cd.parts pieces the tap has seen
    // Llama 3's calls are JSON in prose (R17.8): R9's reader, its events marked as the row's
    this._jsonFormat = formats.has('llama_json') ? 'llama_json' : '';
    jsonCalls = jsonCalls || formats.has('llama_json');
    this.jsonCalls = jsonCalls;
    this.loose = false; // an unclosed CDATA was repaired (D8): the rest is read by its rule
    const dsml = formats.has('dsml');
    const native = formats.has('function_calls');
    this._keywords = dsml ? (native ? KEYWORDS_ALL : KEYWORDS_SEED) : native ? KEYWORDS_NATIVE : null;
    this.native = native; // the `string` attribute (R14.2)
    this.tokens = formats.has('tokens');
    this.eos = native || this.tokens; // R14.6: the end-of-sentence token is not content
    this._mistral = formats.has('mistral'); // `[TOOL_CALLS]` (R17.7)
    const rows = [...formats].map((f) => FORMATS[f]);
    this._bare = rows.some((r) => r.bare === '['); // a bare pythonic list (R17.8, D64)
    // The prose skip stops at `[` for a row whose opener or bare body starts with it.
    this._brackets = rows.some((r) => r.opener.startsWith('[') || r.bare === '[');
    // Prose's fields (prose.js sets them) have their places here, as in the one class of before:
    // every Scanner gets its fields in one order, so all Scanners share one shape (V8).
    this._special = null;
    this._prose = null;
    this._proseStop = -1; // absolute offset where this feed's prose skip stopped (-1: none)
    this._soFar = null;
    this.work = 0; // code units exposed to the scanner (see Sieve.work)
    this._memoAt = -1;
    this._memo = NO;
    this._memoBase = 0;
    // Absolute offsets of the surrogate pairs of the input that a capture may still span, so that
    // maxCapture counts code points as Python does (see _cpDist).
    this._pairs = [];
    this._pairsHead = 0;
    this._inputLen = 0;
    this._lastHigh = false;
    this.buf = '';
    this.pos = 0;
    this.base = 0; // absolute offset of buf[0]
    this.mode = Mode.TEXT;
    this.saw = false;
    this.out = []; // events, and R16's internal events for the Sieve
    this._text = [];
    this.line = new FenceLine(); // TEXT's line state
    // rescan index after a failed inline span: run length -> absolute offsets
    this.idx = new Map();
    this.idxEnd = -1;
    this.run = new _Run();
    this.fence = new _Fence();
    this.pend = new _Pending();
    this.cap = new _Capture();
    this.held = this.cap; // the block CAPTURE, TOKENS or JSON holds (see _hold)
    this.inv = new _Invoke();
    this.par = new _Param();
    this.cd = new _Cdata();
    this.json = new _Json();
    this.sec = new _Section();
    this.blk = new _Block();
    this.hm = new harmony.Harmony();
    this.mi = new mistral.Mistral();
    this.py = new pylist.PyList();
    this._blocks = blockMarkers(formats);
    this.region = null;
    this._bol = -1; // absolute offset of the last line start TEXT saw (after its indent)
    this._names = new Map(); // see _name
  }

  _take() {
    this._flushText();
    const out = this.out;
    this.out = [];
    return out;
  }

  // ---- held blocks (CAPTURE, TOKENS, JSON) -----------------------------------------------

  /** A block opens at `pos`: held from here until it is decided. */
  _hold(held, mode) {
    this.mode = mode;
    this.held = held;
    held.open(this.base + this.pos);
  }

  /**
   * The source of the held block, up to `pos`. Its pieces are let go: the caller ends the block or
   * starts its source afresh (a held block is not in memory twice).
   */
  _source() {
    const held = this.held;
    const text = held.raw.text(this.buf.slice(held.mark - this.base, this.pos));
    held.raw = new _Text();
    held.mark = this.base + this.pos;
    return text;
  }

  /** The held block ends at `end` as a block of calls (unless the limit made it text). */
  _succeed(end, fmt, fixed) {
    const held = this.held;
    this.pos = end;
    if (!held.over && !held.started && this._over(held.start)) this._overflow(); // its closer took it past the limit
    if (held.over) return this._fail();
    held.started = 0;
    this._flushText();
    const raw = this._source(); // (first: the pieces go before the calls are made)
    this.out.push(toolCallsEvent(held.takeCalls(), raw, fmt, held.reported(raw), fixed));
    this._resumeText();
    return true;
  }

  /** Not a block: what was held is text; TEXT resumes at the current position. */
  _fail() {
    const held = this.held;
    if (held.started) return this._break();
    // A block that ends past the limit was over it, wherever the chunks ended (D43).
    if (!held.over && this._over(held.start)) this._overflow();
    const text = this._source();
    this._emit(text);
    held.resumes(this, held.tail + text); // (the tail of what was released before)
    return true;
  }

  /**
   * The held block grew past maxCapture: what was held is released as text (with a note), and the
   * rest of the block is still parsed (so its content is not read as prose) but released as text
   * as it goes.
   */
  _overflow() {
    const held = this.held;
    const text = this._source();
    if (!held.over) {
      held.over = true;
      this._flushText();
      this.out.push(textEvent(text, 'capture_limit'));
    } else {
      this._emit(text);
    }
    held.tail = (held.tail + text).slice(-4);
    held.letGo(this);
  }

  /** TEXT resumes after `text`: the line state its last line leaves. */
  _textResumes(text) {
    this.mode = Mode.TEXT;
    const nl = text.lastIndexOf('\n');
    const tail = nl >= 0 ? text.slice(nl + 1) : 'x';
    this.line.midLine();
    if (tail.length <= 3 && /^ *$/.test(tail)) this.line.indent = tail.length;
  }

  // ---- output -------------------------------------------------------------------------

  _emit(s) {
    if (s) this._text.push(s);
  }

  _flushText() {
    if (this._text.length) {
      this.out.push(textEvent(this._text.join('')));
      this._text = [];
    }
  }

  _abs(i) {
    return this.base + i;
  }

  /**
   * matchTag, remembering the last decided answer: after a capture ends at a tag, TEXT looks at
   * the same tag again. A decided answer (Tag or NO) never changes for a position.
   */
  _tag(buf, pos, final) {
    const at = this.base + pos;
    if (at === this._memoAt) {
      const r = this._memo;
      if (isTag(r)) {
        // `end` was relative to the buffer of that time
        const end = r.end + this._memoBase - this.base;
        return { local: r.local, closing: r.closing, name: r.name, selfClosing: r.selfClosing, end, string: r.string, format: r.format };
      }
      return r;
    }
    if (this._keywords === null) return NO;
    const r = matchTag(buf, pos, final, this._keywords);
    if (r !== MORE) {
      this._memoAt = at;
      this._memo = r;
      this._memoBase = this.base;
    }
    return r;
  }

  /**
   * A tool or parameter name, trimmed. The same name in many calls is one string: a block of
   * many calls keeps one copy of each name (issue 14, memory per held character).
   */
  _name(name) {
    const n = strings.trim(name || '');
    const names = this._names;
    let got = names.get(n);
    if (got === undefined) {
      if (names.size >= 1024) names.clear();
      names.set(n, n);
      got = n;
    }
    return got;
  }

  /**
   * Where to resume after no tag started at `pos`: past the open angles, but not past the last
   * one when a token marker may start there (`<<｜end▁of▁sentence｜>`), nor, in text (`text`),
   * when a region opener may (`<<!-- … -->`).
   */
  _skip(buf, pos, text = false) {
    const end = skipNoTag(buf, pos);
    if (
      end - pos > 1 &&
      (text || (this.eos && end < buf.length && BARS.includes(buf[end]) && buf[end - 1] === '<'))
    ) {
      return end - 1;
    }
    return end;
  }

  /** A block or message ended where TEXT resumes, mid-line. */
  _resumeText() {
    this.mode = Mode.TEXT;
    this.line.midLine();
  }
}

module.exports = {
  Level,
  Mode,
  PAIRS_MAX,
  ScanBase,
  Stage,
  _Calls,
  _Text,
  inputOf,
  isTag,
  matchBlockMarker,
  named,
  rowFor,
  textEvent,
  toolCallsEvent,
};
