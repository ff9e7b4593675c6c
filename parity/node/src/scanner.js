'use strict';
/**
 * The incremental scanner: one state machine for `parse()` and for the streaming `Sieve`.
 * Port of python/callsieve/scanner.py, file for file, mode by mode and step by step; read the
 * "theory of operation" there. The same shape: named modes and levels (`Mode`, `Level`), one
 * method per mode (`_m<Mode>`), one small state object per mode (`_Run`, `_Fence`, `_Pending`,
 * `_Capture` with `_Invoke`, `_Param`, `_Cdata`, and `_Json`), and the fence-line recognizer
 * written once (`FenceLine`). Indices are UTF-16 code units; the scanner only slices and
 * compares, and counts code points (as Python does) only where maxCapture and the length of a
 * token call head are checked.
 *
 * The format layer (R14.9), as in Python: a format is the shape of one family of tool-call markup.
 * Each format adds a recognizer of its opener, tried at an open angle in TEXT (and in PENDING,
 * where an opener makes the span's meaning matter), and a capture that parses its block. The
 * formats are listed once, in `FORMATS`: `dsml` (matchTag with the seed keywords, CAPTURE),
 * `function_calls` (matchTag with the native keywords and the `string` attribute, CAPTURE) and
 * `tokens` (sections.matchMarker, then TOKENS with its `_Section` at a `Stage`). The
 * end-of-sentence token (R14.6) is dropped in TEXT and ends a block, when a native format is in use.
 */

const sections = require('./sections');
const values = require('./values');
const strings = require('./strings');
const { ValueTap, isIndexKey } = require('./arguments');
const { GRAMMARS, bodyKind } = require('./blocks');
const harmony = require('./harmony');
const mistral = require('./mistral');
const { ALL_FORMATS, BLOCK_FORMATS, DEFAULT_FORMATS, FORMATS } = require('./formats');
const { BARS, matchMarker } = sections;
const {
  INVOKE,
  KEYWORDS_ALL,
  KEYWORDS_NATIVE,
  KEYWORDS_SEED,
  MORE,
  NO,
  OPEN_ANGLES,
  PARAMETER,
  STOP,
  WRAPPER,
  cdataCloseAt,
  escapeClass,
  matchCdataOpen,
  matchCloseStart,
  matchTag,
  skipNoTag,
} = require('./shell');

// The format layer (R14.9, R17): the rows of formats.js (generated from formats.py). The shell and
// token engines live here; the block engine's grammars in blocks.js, its holding mode (BLOCK) below.

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
});

/** Where a CAPTURE is inside its block. */
const Level = Object.freeze({
  TOP: 0, // directly inside the wrapper
  INVOKE: 1,
  PARAM: 2, // a parameter body
  CDATA: 3, // a CDATA section inside a parameter body
  AFTER_CDATA: 4, // after a `]]>`: closes the CDATA only if a closing tag follows (D7)
});

// `search(s, pos)` -> global regexes with lastIndex; `match(s, pos)` -> sticky regexes.
const SPECIAL = /[\n`<\uff1c\u3008\u300a]/g;
const SPECIAL_JSON = /[\n`<\uff1c\u3008\u300a{]/g;
// With a format whose opener starts with `[` (Mistral's `[TOOL_CALLS]`), prose stops there too.
const SPECIAL_BR = /[\n`<\uff1c\u3008\u300a\[]/g;
const SPECIAL_JSON_BR = /[\n`<\uff1c\u3008\u300a{\[]/g;
// R9: a JSON candidate is `{` + a first key that starts a tool call object or a chat
// message (R9.2: text with what it holds), by a bounded lookahead.
const JSON_START = /\{[ \t\r\n]{0,16}"(tool_calls|name|function|type|id|role|content)"/y;
const JSON_START_PREFIX = /\{[ \t\r\n]{0,16}(?:"[a-z_]{0,10})?$/y;
const JSON_OUT = /["{}\[\]]/g;
const JSON_IN = /["\\]/g;
const ANGLE = /[<\uff1c\u3008\u300a]/g;
const WS = new RegExp('[' + strings.JS_SPACE + ']+', 'y');
const RUNS = { '`': /`+/y, '~': /~+/y };
const BLANKS = /[ \t\r]*/y;
const CD_SPECIAL = /\]\]|\n {0,3}[`~]|[<\uff1c\u3008\u300a][!\uff01\u3001]/g;
const CD_TAIL = /(?:\n {0,3}|\]|[<\uff1c\u3008\u300a])$/g;
const LOOSE_CLOSE_TAIL = /\]\][>\uff1e\u3009][ \t\r\n]*$/;
// Ignored regions in prose (R5, D40-D42): kind -> [closer, a partial closer at the end of input].
const REGIONS = {
  cdata: [/\]\][>\uff1e\u3009]/g, /\]\]?$/g],
  comment: [/-->/g, /--?$/g],
  pre: [/<\/pre>/gi, /<(?:\/(?:p(?:r(?:e)?)?)?)?$/gi],
};

/**
 * TEXT's skip over decided prose, from `pos` (Python's `_prose_skip`): plain characters; an ASCII
 * `<` of prose HTML (`<div class=`, `</span>`: an ASCII head starting with a letter or digit,
 * ended, with no keyword of any format, so every recognizer says NO); open angles before a blank
 * head that has ended (`a < b`); a newline followed by a character that cannot start anything at
 * a line start (no indent, fence or tag). It consumes only what is decided whatever follows, so
 * it does not depend on where a chunk ended; it stops at anything else, for the steps.
 *
 * Python's `*+` never backtracks; a JS `*` keeps a backtrack entry per repetition (a long input
 * overflows the stack), so one match takes at most PROSE_REPS and proseEnd goes on from there.
 */
function proseSkip(jsonCalls, brackets = false) {
  const plain = '[^\\n`<\\uff1c\\u3008\\u300a' + (jsonCalls ? '{' : '') + (brackets ? '\\[' : '') + ']';
  const head = '[' + escapeClass(PLAIN_HEAD_CHARS) + ']';
  const stop = '[' + escapeClass(STOP) + ']';
  const keyword = '(?:[Tt][Oo][Oo][Ll]|[Ff][Uu][Nn][Cc][Tt][Ii][Oo][Nn]|[Ii][Nn][Vv][Oo][Kk][Ee]|[Pp][Aa][Rr][Aa][Mm][Ee][Tt][Ee][Rr])';
  const tag = '<(?!\\/?[Pp][Rr][Ee])(?!' + head + '{0,64}?' + keyword + ')\\/?[A-Za-z0-9]' + head + '{0,62}(?=' + stop + ')';
  // `a < b and c > d`, `<< shifts >>`: a head that starts blank is no tag once it has ended
  const blank = '<{1,8}(?=[ \\t][^' + escapeClass(STOP) + ']{0,63}' + stop + ')';
  const newline = '\\n(?=[^ \\t\\r\\n`~<\\uff1c\\u3008\\u300a{])';
  return new RegExp('(?:' + plain + '+|' + tag + '|' + blank + '|' + newline + '){0,' + PROSE_REPS + '}', 'y');
}

// The characters of a prose tag head (see proseSkip): ASCII, no stop character (the head ends at
// one, as matchTag's), no `|` or `!` (markers, comments, CDATA drift forms), no control character.
const PLAIN_HEAD_CHARS = Array.from({ length: 0x5f }, (_, k) => String.fromCharCode(0x20 + k))
  .concat(['\t'])
  .filter((ch) => !STOP.includes(ch) && ch !== '|' && ch !== '!')
  .join('');
const PROSE_REPS = 4096;
// A prose tag head cut by the end of the input: every recognizer says MORE, except a `<pre ` at a
// line start, which opens a region (D41) and is decided at its blank (Python's `_PLAIN_TAG_SO_FAR`).
const PLAIN_TAG_SO_FAR = new RegExp(
  '<(?![Pp][Rr][Ee][ \\t])\\/?(?:[A-Za-z0-9][' + escapeClass(PLAIN_HEAD_CHARS) + ']{0,62})?$',
  'y',
);
const PROSE = proseSkip(false);
const PROSE_JSON = proseSkip(true);
const PROSE_BR = proseSkip(false, true);
const PROSE_JSON_BR = proseSkip(true, true);

/** Where decided prose from `buf[pos]` ends (see proseSkip). */
function proseEnd(re, buf, pos) {
  const n = buf.length;
  for (;;) {
    re.lastIndex = pos;
    re.test(buf);
    const end = re.lastIndex;
    if (end === pos || end === n) return end;
    pos = end; // (PROSE_REPS repetitions, or a stop: the next match says which)
  }
}
const PRE_OPEN = /<pre(?=[ \t\r\n>])/iy;
const PRE_PREFIX = /<(?:p(?:r(?:e)?)?)?$/iy;
const COMMENT_PREFIX = /<(?:!(?:-)?)?$/y;

// Surrogate pairs (astral characters): Python counts them as one character, JS strings as two.
const PAIR = /[\ud800-\udbff][\udc00-\udfff]/g;

// FenceLine.step results
const WAIT = 0; // consumed to the end of the buffer; still deciding
const PLAIN = 1; // not (or no longer) a fence line start: the rest of the line is the mode's
const RUN_END = 2; // a run ended: `char` and `run` say which and how long
const TAIL_END = 3; // the blanks after a closing run ended (at a newline: the line closes)

function search(re, s, pos) {
  re.lastIndex = pos;
  return re.exec(s);
}

function matchAt(re, s, pos) {
  re.lastIndex = pos;
  return re.exec(s);
}

/** The end of what sticky `re` matches at `s[pos]` (`pos` when nothing), with no match object. */
function skipAt(re, s, pos) {
  re.lastIndex = pos;
  return re.test(s) ? re.lastIndex : pos;
}

function isTag(r) {
  return r !== null && typeof r === 'object';
}

/**
 * An ignored region opening at `s[i]` (an open angle): [kind, end of the opener], MORE or NO. A
 * CDATA section (drift forms, R5.5) or an HTML comment anywhere; a `<pre>` block only at a line
 * start (`bol`), as CommonMark's HTML blocks. A comment's closer may overlap its opener (`<!-->`),
 * so its opener ends after `<!`.
 */
function matchRegion(s, i, final, bol) {
  if (s.startsWith('<!--', i)) return ['comment', i + 2];
  if (!final && matchAt(COMMENT_PREFIX, s, i)) return MORE;
  const cd = matchCdataOpen(s, i, final);
  if (typeof cd === 'number') return ['cdata', cd];
  if (cd === MORE) return MORE;
  if (bol) {
    if (matchAt(PRE_OPEN, s, i) || (final && s.slice(i, i + 4).toLowerCase() === '<pre' && i + 4 === s.length)) {
      return ['pre', i + 4];
    }
    if (!final && matchAt(PRE_PREFIX, s, i)) return MORE;
  }
  return NO;
}

function named(tag) {
  return tag.name !== null && !strings.isBlank(tag.name);
}

function bisectRight(a, x) {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (x < a[mid]) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function textEvent(text, note) {
  return note ? { type: 'text', text, note } : { type: 'text', text };
}

function toolCallsEvent(calls, raw) {
  return { type: 'tool_calls', calls, raw };
}

/**
 * The fence-line recognizer (D2), written once: at a line start up to 3 spaces of indent, then a
 * run of backticks or tildes; after a closing run only blanks to the end of the line. It consumes
 * incrementally (a run or a tail of any length, across chunks) and reports what it found; the
 * calling mode owns the consumed characters and decides what a run means.
 */
class FenceLine {
  constructor() {
    this.indent = 0; // spaces seen at this line start; -1: past the line start
    this.char = ''; // the character of the run being counted
    this.run = 0; // length of that run (0: none)
    this.tail = false; // after a closing run: only blanks may follow
    this.end = 0; // where the last `step` stopped (Python returns it with the result)
  }

  lineStart() {
    this.indent = 0;
    this.run = 0;
    this.tail = false;
  }

  midLine() {
    this.indent = -1;
    this.run = 0;
    this.tail = false;
  }

  /** Count a run that starts at `buf[pos]` (not at a line start); returns its end so far. */
  startRun(buf, pos) {
    this.char = buf[pos];
    const end = pos + matchAt(RUNS[this.char], buf, pos)[0].length;
    this.run = end - pos;
    return end;
  }

  /**
   * Consume line-start characters of `buf[pos:]`; `chars` are the run characters this mode
   * accepts. Returns the result; `buf[pos:this.end]` was consumed.
   */
  step(buf, pos, chars) {
    const n = buf.length;
    if (this.tail) {
      const k = pos + matchAt(BLANKS, buf, pos)[0].length;
      this.end = k;
      if (k >= n) return WAIT;
      this.tail = false;
      this.indent = -1;
      return TAIL_END;
    }
    if (!this.run) {
      if (this.indent < 0) {
        this.end = pos;
        return PLAIN;
      }
      while (pos < n && buf[pos] === ' ' && this.indent < 3) {
        this.indent += 1;
        pos += 1;
      }
      this.end = pos;
      if (pos >= n) return WAIT;
      const c = buf[pos];
      if (!chars.includes(c)) {
        this.indent = -1;
        return PLAIN;
      }
      this.char = c;
    } else if (pos >= n) {
      this.end = pos;
      return WAIT;
    }
    const m = matchAt(RUNS[this.char], buf, pos);
    if (m) {
      this.run += m[0].length;
      pos += m[0].length;
      if (pos >= n) {
        this.end = pos;
        return WAIT;
      }
    }
    this.end = pos;
    this.indent = -1;
    return RUN_END;
  }

  /** Does a fence run (3 of the same backtick or tilde) start at `buf[pos]`? null: wait. */
  static opensAt(buf, pos, final) {
    const c = buf[pos];
    let k = pos;
    const n = buf.length;
    while (k < n && k < pos + 3 && buf[k] === c) k++;
    if (k - pos < 3 && k === n && !final) return null;
    return k - pos >= 3;
  }
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
 * what survives it). Python builds the dicts as it goes (port-map: scanner:_Calls).
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

/** CAPTURE: the block being parsed. */
class _Capture {
  constructor() {
    this.level = Level.TOP;
    this.wrapped = false; // opened by its wrapper tag (not a repaired bare invoke)
    this.started = 0; // R16: calls announced in this block (streamArguments)
    // The block's source so far is `raw`, then the buffer from `mark` (absolute) to `pos`: it is
    // always the input from `start`, so it is kept in chunk-sized pieces, not per token.
    this.raw = new _Text();
    this.mark = 0;
    this.tail = ''; // the last characters released past the limit (for the line state)
    this.calls = [];
    this.start = 0; // absolute offset of the block
    this.over = false; // grew past maxCapture: released as text as it goes
  }
}

/** Where a TOKENS capture is inside its section. */
const Stage = Object.freeze({
  BETWEEN: 0, // between calls: whitespace, a call, or the section end
  HEAD: 1, // after a call begin: the name (or `function`) up to the separator
  BODY: 2, // after the separator: the arguments up to the call end
});

/** TOKENS: the token section being parsed (R14.4, R14.5). */
class _Section {
  constructor() {
    this.stage = Stage.BETWEEN;
    this.raw = new _Text(); // as _Capture: `raw`, then the buffer from `mark` to `pos`
    this.mark = 0;
    this.tail = '';
    this.calls = [];
    this.bad = []; // R18.2: the section's calls that cannot be executed
    this.head = [];
    this.headLen = 0; // code units (Python: code points; see _mTokens)
    this.headStart = 0; // absolute offset of the head (JS only: for the code point count)
    this.body = [];
    this.start = 0;
    this.over = false;
  }
}

/** JSON: a JSON tool-call candidate in prose (R9). */
/** BLOCK: a block of the block engine (R17), held from its opener to its closer. */
class _Block {
  constructor() {
    this.rows = []; // the enabled rows sharing this opener
    this.opener = '';
    this.closer = '';
    this.parts = [];
    this.size = 0; // code points held (as Python counts)
    this.start = 0;
    this.over = false;
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

class _Json {
  constructor() {
    this.parts = [];
    this.depth = 0;
    this.inStr = false;
    this.start = 0;
  }
}

/** Incremental scanner. `feed()` returns the events the new text decided; `finish()` the rest. */
class Scanner {
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
    this._brackets = formats.has('mistral'); // `[TOOL_CALLS]` (R17.7)
    if (this._brackets) {
      this._special = jsonCalls ? SPECIAL_JSON_BR : SPECIAL_BR;
      this._prose = jsonCalls ? PROSE_JSON_BR : PROSE_BR;
    } else {
      this._special = jsonCalls ? SPECIAL_JSON : SPECIAL;
      this._prose = jsonCalls ? PROSE_JSON : PROSE;
    }
    this._proseStop = -1; // absolute offset where this feed's prose skip stopped (-1: none)
    this._soFar = PLAIN_TAG_SO_FAR; // (test/fast-paths.test.js turns the fast paths off for a reference)
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
    this.inv = new _Invoke();
    this.par = new _Param();
    this.cd = new _Cdata();
    this.json = new _Json();
    this.sec = new _Section();
    this.blk = new _Block();
    this.hm = new harmony.Harmony();
    this.mi = new mistral.Mistral();
    this._blocks = blockMarkers(formats);
    this.region = REGIONS.cdata; // REGION: the closer of the open region, and its prefix
    this._bol = -1; // absolute offset of the last line start TEXT saw (after its indent)
    this._names = new Map(); // see _name
  }

  // ---- driving ------------------------------------------------------------------------

  feed(chunk) {
    this._notePairs(chunk);
    const pos = this.pos;
    const mode = this.mode;
    let buf;
    if (pos) {
      if (mode === Mode.CAPTURE || mode === Mode.TOKENS) this._keepRaw();
      this.base += pos;
      buf = pos === this.buf.length ? chunk : this.buf.slice(pos) + chunk;
    } else {
      buf = this.buf + chunk;
    }
    this.buf = buf;
    this.pos = 0;
    this.work += buf.length;
    this._proseStop = -1;
    if (mode === Mode.TEXT && buf && (this.line.indent < 0 || (buf[0] !== ' ' && buf[0] !== '~'))) {
      // Fast path: decided prose from the start of what is new or held (see proseSkip). A line
      // start's indent only matters before a space, a tilde or what prose stops at.
      const end = proseEnd(this._prose, buf, 0);
      if (end) {
        this.line.indent = -1;
        if (end === buf.length) {
          this.pos = end;
          this._prunePairs();
          return [textEvent(buf)];
        }
        this._text.push(buf.slice(0, end));
        this.pos = end;
      }
      this._proseStop = this.base + end; // _mText need not try there again in this feed
    } else if (mode === Mode.TOKENS && !buf.includes('<') && this._secTakes(buf)) {
      this.pos = buf.length;
      this._prunePairs();
      return [];
    }
    this._run(false);
    const held = this.mode;
    if (held === Mode.CAPTURE || held === Mode.TOKENS || held === Mode.JSON || held === Mode.BLOCK) this._releasePastLimit();
    if (this.tap !== null) this._tapPull();
    this._prunePairs();
    return this._take();
  }

  /**
   * At the end of a chunk, what a block holds past maxCapture is released now, not with the next
   * chunk (R8.3, D43): a step may consume a whole chunk before it waits.
   */
  _releasePastLimit() {
    const cap = this.cap;
    if (this.mode === Mode.CAPTURE && !cap.started && (cap.over || this._over(cap.start))) {
      this._overflow(); // (once a call is announced the limit stops applying, D37)
    } else if (this.mode === Mode.TOKENS && (this.sec.over || this._over(this.sec.start))) {
      this._secOverflow();
    } else if (this.mode === Mode.BLOCK && !this.blk.over && this.blk.size > this.maxCapture) {
      this._blkOverflow();
    } else if (this.mode === Mode.JSON && this.base + this.pos >= this._cpAdvance(this.json.start)) {
      this._jsonRelease();
      this._run(false);
    }
  }

  finish() {
    this._proseStop = -1;
    this._run(true);
    return this._take();
  }

  _take() {
    this._flushText();
    const out = this.out;
    this.out = [];
    return out;
  }

  /** The mode's steps until one waits (Python: `while _STEPS[self.mode](self, final)`). */
  _run(final) {
    for (;;) {
      let going;
      switch (this.mode) {
        case Mode.TEXT:
          going = this._mText(final);
          break;
        case Mode.RUN:
          going = this._mRun(final);
          break;
        case Mode.FENCE:
          going = this._mFence(final);
          break;
        case Mode.PENDING:
          going = this._mPending(final);
          break;
        case Mode.CAPTURE:
          going = this._mCapture(final);
          break;
        case Mode.JSON:
          going = this._mJson(final);
          break;
        case Mode.TOKENS:
          going = this._mTokens(final);
          break;
        case Mode.BLOCK:
          going = this._mBlock(final);
          break;
        case Mode.HARMONY:
          going = harmony.step(this, final);
          break;
        case Mode.MISTRAL:
          going = mistral.step(this, final);
          break;
        default:
          going = this._mRegion(final);
      }
      if (!going) return;
    }
  }

  /** The buffer is about to drop what is behind `pos`: an open block keeps its source. */
  _keepRaw() {
    const holder = this.mode === Mode.CAPTURE ? this.cap : this.mode === Mode.TOKENS ? this.sec : null;
    if (holder === null) return;
    const at = this.base + this.pos;
    if (at > holder.mark) {
      // (an open parameter body that spans most of this piece holds slices of the same buffer:
      // the source shares them)
      const shared =
        holder === this.cap && this.cap.level >= Level.PARAM && this.par.start - holder.mark < (at - holder.mark) / 2;
      holder.raw.add(this.buf.slice(holder.mark - this.base, this.pos), shared);
      holder.mark = at;
    }
  }

  /** The source of the open block or section, up to `pos`. */
  _source(holder) {
    return holder.raw.text(this.buf.slice(holder.mark - this.base, this.pos));
  }

  // ---- code point distances (Python's string indices are code points) -------------------

  _notePairs(chunk) {
    const start = this._inputLen;
    if (!chunk) return;
    if (chunk.length <= 64 && !this._lastHigh) {
      // a short chunk (the common case) is looked at without the regex
      let k = 0;
      while (k < chunk.length && (chunk.charCodeAt(k) & 0xf800) !== 0xd800) k++;
      if (k === chunk.length) {
        this._inputLen = start + chunk.length;
        return;
      }
    }
    const first = chunk.charCodeAt(0);
    if (this._lastHigh && first >= 0xdc00 && first <= 0xdfff) this._pairs.push(start - 1);
    PAIR.lastIndex = 0;
    for (let m = PAIR.exec(chunk); m !== null; m = PAIR.exec(chunk)) this._pairs.push(start + m.index);
    const last = chunk.charCodeAt(chunk.length - 1);
    this._lastHigh = last >= 0xd800 && last <= 0xdbff;
    this._inputLen = start + chunk.length;
  }

  /** Forget the pairs before the earliest position a capture may still start from. */
  _prunePairs() {
    let keep = this.base + this.pos;
    // A block with a call announced has no capture limit (D37): no distance is measured in it.
    if (this.mode === Mode.CAPTURE && !this.cap.started) keep = this.cap.start;
    else if (this.mode === Mode.JSON) keep = this.json.start;
    else if (this.mode === Mode.TOKENS) keep = this.sec.start;
    else if (this.mode === Mode.PENDING && this.pend.hold !== null) keep = this.pend.holdStart;
    const pairs = this._pairs;
    let h = this._pairsHead;
    while (h < pairs.length && pairs[h] < keep) h++;
    if (h > 4096 && h * 2 > pairs.length) {
      this._pairs = pairs.slice(h);
      h = 0;
    }
    this._pairsHead = h;
  }

  _pairsBefore(at) {
    const pairs = this._pairs;
    let lo = this._pairsHead;
    let hi = pairs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (pairs[mid] < at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The number of code points in the input between absolute offsets a and b. */
  _cpDist(a, b) {
    return b - a - (this._pairsBefore(b - 1) - this._pairsBefore(a));
  }

  /** Python's `base + pos - start > max_capture`, in code points. */
  _over(start) {
    const at = this.base + this.pos;
    return at - start > this.maxCapture && this._cpDist(start, at) > this.maxCapture;
  }

  /**
   * The absolute offset `limit` (default `maxCapture`) code points after `start` (never inside a
   * surrogate pair).
   * Exact whenever it falls within the input so far, whose pairs are all known.
   */
  _cpAdvance(start, limit = this.maxCapture) {
    const first = this._pairsBefore(start);
    let s = start + limit;
    for (;;) {
      const t = start + limit + (this._pairsBefore(s - 1) - first); // pairs wholly inside [start, s)
      if (t === s) break;
      s = t;
    }
    return this._pairsBefore(s) > this._pairsBefore(s - 1) ? s + 1 : s;
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
        return { local: r.local, closing: r.closing, name: r.name, selfClosing: r.selfClosing, end, string: r.string };
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

  // ---- TEXT ---------------------------------------------------------------------------

  _mText(final) {
    const buf = this.buf;
    let pos = this.pos;
    const n = buf.length;
    if (pos >= n) return false;
    const line = this.line;
    if (line.indent >= 0) {
      const r = line.step(buf, pos, '`~');
      const end = line.end;
      this._emit(buf.slice(pos, end));
      this.pos = end;
      if (r === WAIT && line.run === 0) return false; // only line-start spaces so far: wait (at the end nothing follows)
      if (r !== PLAIN) {
        // a run at a line start
        this._startRun(true, end - line.run);
        return true;
      }
      pos = end;
      this._bol = this._abs(pos); // at most 3 spaces in: an HTML block may start here
    }
    if (this.base + pos !== this._proseStop) {
      const end = proseEnd(this._prose, buf, pos);
      if (end > pos) {
        // decided prose, in one step (see proseSkip)
        this._text.push(buf.slice(pos, end));
        line.indent = -1;
        this.pos = end;
        return true;
      }
    }
    const c = buf[pos];
    if (c === '\n') {
      this._emit(c);
      line.lineStart();
      this.pos = pos + 1;
      return true;
    }
    if (c === '`') {
      line.midLine();
      const end = line.startRun(buf, pos);
      this._emit(buf.slice(pos, end));
      this.pos = end;
      this._startRun(false, pos);
      return true;
    }
    if (OPEN_ANGLES.includes(c)) {
      if (!final && c === '<' && matchAt(this._soFar, buf, pos)) {
        return false; // a prose tag head cut by the end of the input so far: all say MORE
      }
      return this._textTag(final);
    }
    if (c === '[') return this._textBracket(final); // (only with Mistral: else prose took it)
    return this._textJson(final); // `{`: the only other character prose stops at
  }

  /**
   * A token marker at `buf[pos]` that some format in use gives a meaning: MORE, NO, or
   * [kind, end] for a section opener (tokens) or the end-of-sentence token.
   */
  _marker(buf, pos, final) {
    if (!this.eos || buf[pos] !== '<') return NO;
    const r = matchMarker(buf, pos, final);
    if (Array.isArray(r)) {
      const kind = r[0];
      if ((kind === sections.SECTION_BEGIN && this.tokens) || kind === sections.EOS) return r;
      return NO;
    }
    return r;
  }

  _textBracket(final) {
    const buf = this.buf;
    const pos = this.pos;
    const r = mistral.matchMarker(buf, pos, final);
    if (r === 'more') return false;
    this.line.indent = -1;
    if (Array.isArray(r)) {
      this.mode = Mode.MISTRAL;
      mistral.start(this, r[1]);
      return true;
    }
    this._emit('[');
    this.pos = pos + 1;
    return true;
  }

  _textTag(final) {
    const buf = this.buf;
    const pos = this.pos;
    if (this._blocks.size && buf[pos] === '<') {
      const bm = matchBlockMarker(this._blocks, buf, pos, final);
      if (bm === MORE) return false;
      if (Array.isArray(bm)) {
        this.line.indent = -1;
        const rows = this._blocks.get(bm[0]);
        if (rows.length && rows[0].engine === 'harmony') {
          this.mode = Mode.HARMONY;
          harmony.start(this, bm[0], bm[1]);
        } else if (rows.length) this._startBlock(rows, bm[0], bm[1]);
        else this.pos = bm[1]; // R18.3: a stray closer is not content
        return true;
      }
    }
    const mk = this._marker(buf, pos, final);
    if (mk === MORE) return false;
    if (Array.isArray(mk)) {
      this.line.indent = -1;
      const [kind, end] = mk;
      if (kind === sections.EOS) {
        // R14.6: dropped
        this.pos = end;
        return true;
      }
      this.saw = true;
      this._startSection(end);
      return true;
    }
    const rg = matchRegion(buf, pos, final, this._abs(pos) === this._bol);
    if (rg === MORE) return false;
    if (Array.isArray(rg)) {
      this.line.indent = -1;
      const [kind, end] = rg;
      this._emit(buf.slice(pos, end));
      this.pos = end;
      this.mode = Mode.REGION;
      this.region = REGIONS[kind];
      return true;
    }
    const r = this._tag(buf, pos, final);
    if (r === MORE) return false;
    this.line.indent = -1;
    if (isTag(r)) {
      if (r.local === WRAPPER) {
        this.saw = true;
        if (!r.closing) {
          this._startCapture(Level.TOP, r.end);
          return true;
        }
      } else if (r.local === INVOKE && !r.closing && !r.selfClosing && named(r)) {
        this._startCapture(Level.INVOKE, r.end);
        this.inv.name = this._name(r.name);
        return true;
      }
      this._emit(buf.slice(pos, r.end));
      this.pos = r.end;
      return true;
    }
    const end = this._skip(buf, pos, true);
    this._emit(buf.slice(pos, end));
    this.pos = end;
    return true;
  }

  // ---- RUN (backticks / tildes) -------------------------------------------------------

  _startRun(line, at) {
    this.mode = Mode.RUN;
    this.run.start = this._abs(at);
    this.run.line = line;
  }

  _mRun(final) {
    const buf = this.buf;
    let pos = this.pos;
    const line = this.line;
    const r = line.step(buf, pos, '');
    const end = line.end;
    this._emit(buf.slice(pos, end));
    this.pos = pos = end;
    if (r === WAIT && !final) return false;
    line.indent = -1;
    const char = line.char;
    const length = line.run;
    line.run = 0;
    if (this.run.line && length >= 3) {
      this.mode = Mode.FENCE;
      const fence = this.fence;
      fence.char = char;
      fence.length = length;
      fence.line.midLine();
      return true;
    }
    this.mode = Mode.TEXT;
    if (char === '`') {
      const start = this.run.start;
      if (start < this.idxEnd) {
        const offs = this.idx.get(length) || [];
        const k = bisectRight(offs, start);
        if (k < offs.length) {
          const to = offs[k] + length - this.base;
          this._emit(buf.slice(pos, to));
          this.pos = to;
        }
      } else {
        this._startPending(length);
      }
    }
    return true;
  }

  // ---- FENCE --------------------------------------------------------------------------

  _mFence(final) {
    const buf = this.buf;
    let pos = this.pos;
    const n = buf.length;
    if (pos >= n) return false;
    const fence = this.fence;
    const line = fence.line;
    const r = line.step(buf, pos, fence.char);
    const end = line.end;
    this._emit(buf.slice(pos, end));
    this.pos = pos = end;
    if (r === WAIT) return false;
    if (r === RUN_END) {
      line.tail = line.run >= fence.length;
      line.run = 0;
      return true;
    }
    if (r === TAIL_END && buf[pos] === '\n') {
      // a closing fence line
      this._emit('\n');
      this.pos = pos + 1;
      this.mode = Mode.TEXT;
      this.line.lineStart();
      return true;
    }
    const k = buf.indexOf('\n', pos);
    if (k < 0) {
      this._emit(buf.slice(pos));
      this.pos = n;
      return false;
    }
    this._emit(buf.slice(pos, k + 1));
    this.pos = k + 1;
    line.lineStart();
    return true;
  }

  // ---- REGION (CDATA, HTML comment or <pre> block in prose) ---------------------------

  /**
   * An ignored region in prose (D40, D41): text up to its closer, or to the end of input; only a
   * partial closer at the end of the buffer waits.
   */
  _mRegion(final) {
    const buf = this.buf;
    const pos = this.pos;
    const n = buf.length;
    if (pos >= n) return false;
    const [closer, partial] = this.region;
    const m = search(closer, buf, pos);
    if (m === null) {
      let end = n;
      if (!final) {
        const t = search(partial, buf, Math.max(pos, n - 6));
        if (t !== null) end = t.index;
      }
      this._emit(buf.slice(pos, end));
      this.pos = end;
      return false;
    }
    const end = m.index + m[0].length;
    this._emit(buf.slice(pos, end));
    this.pos = end;
    this.mode = Mode.TEXT;
    this.line.midLine();
    return true;
  }

  // ---- PENDING (inline code span) -----------------------------------------------------

  _startPending(n) {
    this.mode = Mode.PENDING;
    const p = this.pend;
    p.n = n;
    p.hold = null;
    p.runs = new Map();
    p.blank = false;
    p.indent = 0;
    p.runLen = 0;
  }

  _pPut(s) {
    const hold = this.pend.hold;
    if (hold === null) this._emit(s);
    else hold.push(s);
  }

  _pHoldHere(at) {
    const p = this.pend;
    if (p.hold === null) {
      p.hold = [];
      p.holdStart = at;
    }
  }

  _mPending(final) {
    const buf = this.buf;
    const pos = this.pos;
    const n = buf.length;
    const p = this.pend;
    if (p.hold !== null && this._over(p.holdStart)) {
      // R8.3: a code span that would hold more than a block may is not a code span. The
      // length is content, so every chunking decides at the same place.
      if (p.runLen) {
        // a backtick run read to the end of the buffer is held text too
        p.hold.push('`'.repeat(p.runLen));
        p.runLen = 0;
      }
      this._pendingLiteral(this._abs(pos));
      return true;
    }
    if (p.runLen) return this._pRun(final);
    if (pos >= n) {
      if (final) {
        this._pendingLiteral(this._abs(pos));
        return true;
      }
      return false;
    }
    const c = buf[pos];
    if (p.blank) {
      if (c === ' ' || c === '\t') {
        this._pPut(c);
        p.indent += c === ' ' ? 1 : 4;
        this.pos = pos + 1;
        return true;
      }
      if (c === '\n') {
        // blank line: the paragraph ended
        this._pendingLiteral(p.lineStart);
        return true;
      }
      if ((c === '`' || c === '~') && p.indent <= 3) {
        const opens = FenceLine.opensAt(buf, pos, final);
        if (opens === null) return false;
        if (opens) {
          // a fence line ends the paragraph
          this._pendingLiteral(p.lineStart);
          return true;
        }
      } else if (OPEN_ANGLES.includes(c)) {
        if (p.indent <= 3) {
          // a `<pre>` block starts here and ends the paragraph (D41)
          const rg = matchRegion(buf, pos, final, true);
          if (rg === MORE) return false;
          if (Array.isArray(rg) && rg[0] === 'pre') {
            this._pendingLiteral(p.lineStart);
            return true;
          }
        }
        const mk = this._marker(buf, pos, final);
        if (mk === MORE) return false;
        if (Array.isArray(mk) && mk[0] === sections.SECTION_BEGIN) {
          this._pendingLiteral(p.lineStart);
          return true;
        }
        const bm = this._blocks.size ? matchBlockMarker(this._blocks, buf, pos, final) : NO;
        if (bm === MORE) return false;
        if (Array.isArray(bm) && this._blocks.get(bm[0]).length) {
          this._pendingLiteral(p.lineStart);
          return true;
        }
        const r = this._tag(buf, pos, final);
        if (r === MORE) return false;
        if (isTag(r) && r.local === WRAPPER && !r.closing) {
          this._pendingLiteral(p.lineStart);
          return true;
        }
      } else if (c === '[' && this._brackets) {
        const mr = mistral.matchMarker(buf, pos, final);
        if (mr === 'more') return false;
        if (Array.isArray(mr)) {
          // a block starts here and ends the paragraph
          this._pendingLiteral(p.lineStart);
          return true;
        }
      }
      p.blank = false;
    }
    if (c === '\n') {
      this._pPut(c);
      this.pos = pos + 1;
      p.blank = true;
      p.indent = 0;
      p.lineStart = this._abs(pos + 1);
      return true;
    }
    if (c === '`') {
      p.runStart = this._abs(pos);
      const m = matchAt(RUNS['`'], buf, pos);
      p.runLen = m[0].length;
      this.pos = pos + m[0].length;
      return true;
    }
    if (c === '{' && this.jsonCalls) {
      this._pHoldHere(this._abs(pos));
      this._pPut(c);
      this.pos = pos + 1;
      return true;
    }
    if (OPEN_ANGLES.includes(c)) {
      const bm = this._blocks.size ? matchBlockMarker(this._blocks, buf, pos, final) : NO;
      if (bm === MORE) return false;
      if (Array.isArray(bm)) {
        // a block or a stray closer: meaning depends on the span
        this._pHoldHere(this._abs(pos));
        this._pPut(buf.slice(pos, bm[1]));
        this.pos = bm[1];
        return true;
      }
      const mk = this._marker(buf, pos, final);
      if (mk === MORE) return false;
      if (Array.isArray(mk)) {
        // a section or an end-of-sentence token: meaning depends
        this._pHoldHere(this._abs(pos));
        this._pPut(buf.slice(pos, mk[1]));
        this.pos = mk[1];
        return true;
      }
      const rg = matchRegion(buf, pos, final, false);
      if (rg === MORE) return false;
      if (Array.isArray(rg)) {
        // a region hides what follows if the span is literal
        this._pHoldHere(this._abs(pos));
        this._pPut(buf.slice(pos, rg[1]));
        this.pos = rg[1];
        return true;
      }
      const r = this._tag(buf, pos, final);
      if (r === MORE) return false;
      if (isTag(r)) {
        if (r.local === WRAPPER || (r.local === INVOKE && !r.closing && !r.selfClosing && named(r))) {
          this._pHoldHere(this._abs(pos));
        }
        this._pPut(buf.slice(pos, r.end));
        this.pos = r.end;
        return true;
      }
      const end = this._skip(buf, pos, true);
      this._pPut(buf.slice(pos, end));
      this.pos = end;
      return true;
    }
    if (c === '[' && this._brackets) {
      const mr = mistral.matchMarker(buf, pos, final);
      if (mr === 'more') return false;
      if (Array.isArray(mr)) {
        // a block: its meaning depends on the span
        this._pHoldHere(this._abs(pos));
        this._pPut(buf.slice(pos, mr[1]));
        this.pos = mr[1];
        return true;
      }
    }
    const m = search(this._special, buf, pos + 1);
    const end = m ? m.index : n;
    this._pPut(buf.slice(pos, end));
    this.pos = end;
    return true;
  }

  /** A backtick run inside the span: the closing run, or one more run to remember. */
  _pRun(final) {
    const buf = this.buf;
    let pos = this.pos;
    const p = this.pend;
    const m = matchAt(RUNS['`'], buf, pos);
    if (m) {
      p.runLen += m[0].length;
      this.pos = pos = pos + m[0].length;
    }
    if (pos >= buf.length && !final) return false;
    const length = p.runLen;
    const start = p.runStart;
    p.runLen = 0;
    if (length === p.n) {
      // the closing run: the whole span is text
      this._pPut('`'.repeat(length));
      if (p.hold !== null) this._emit(p.hold.join(''));
      p.hold = null;
      this.mode = Mode.TEXT;
      this.line.indent = -1;
      return true;
    }
    this._pHoldHere(start);
    p.hold.push('`'.repeat(length));
    let offs = p.runs.get(length);
    if (offs === undefined) {
      offs = [];
      p.runs.set(length, offs);
    }
    offs.push(start);
    return true;
  }

  /** The open inline span has no closer in its paragraph: its opener is literal. */
  _pendingLiteral(regionEnd) {
    this.mode = Mode.TEXT;
    const p = this.pend;
    if (p.hold === null) {
      this.line.indent = p.blank && p.indent <= 3 ? p.indent : -1;
      return;
    }
    const held = p.hold.join('');
    this.work += held.length;
    p.hold = null;
    this.idx = p.runs;
    this.idxEnd = regionEnd;
    this.buf = held + this.buf.slice(this.pos);
    this.base = p.holdStart;
    this.pos = 0;
    this.line.indent = -1;
  }

  // ---- JSON tool calls in prose (R9) -------------------------------------------------

  _textJson(final) {
    const buf = this.buf;
    const pos = this.pos;
    const m = matchAt(JSON_START, buf, pos);
    this.line.indent = -1;
    if (m === null) {
      if (!final && matchAt(JSON_START_PREFIX, buf, pos)) return false;
      this._emit('{');
      this.pos = pos + 1;
      return true;
    }
    this.mode = Mode.JSON;
    const j = this.json;
    j.parts = [m[0]];
    j.depth = 1;
    j.inStr = false;
    j.start = this._abs(pos);
    this.pos = pos + m[0].length;
    return true;
  }

  /**
   * Read a JSON call candidate. One longer than the limit is text (D43), decided where it reaches
   * the limit: no step reads past that point, so every chunking decides there.
   */
  _mJson(final) {
    const buf = this.buf;
    const pos = this.pos;
    const j = this.json;
    const stop = this._cpAdvance(j.start) - this.base; // where the candidate reaches the limit
    if (pos >= stop) return this._jsonRelease();
    const n = Math.min(buf.length, stop);
    if (pos >= n) return final ? this._jsonRelease() : false;
    // Searched up to n only: a cut copy when the limit falls inside the buffer.
    const hay = n < buf.length ? buf.slice(0, n) : buf;
    if (j.inStr) {
      const m = search(JSON_IN, hay, pos);
      if (m === null) {
        j.parts.push(buf.slice(pos, n));
        this.pos = n;
        return true;
      }
      const k = m.index;
      if (buf[k] === '\\') {
        if (k + 1 >= n) {
          if (!final && n < stop) {
            j.parts.push(buf.slice(pos, k));
            this.pos = k;
            return false;
          }
          j.parts.push(buf.slice(pos, n));
          this.pos = n;
          return true;
        }
        j.parts.push(buf.slice(pos, k + 2));
        this.pos = k + 2;
        return true;
      }
      j.parts.push(buf.slice(pos, k + 1));
      this.pos = k + 1;
      j.inStr = false;
      return true;
    }
    const m = search(JSON_OUT, hay, pos);
    if (m === null) {
      j.parts.push(buf.slice(pos, n));
      this.pos = n;
      return true;
    }
    const k = m.index;
    j.parts.push(buf.slice(pos, k + 1));
    this.pos = k + 1;
    const ch = buf[k];
    if (ch === '"') {
      j.inStr = true;
    } else if (ch === '{' || ch === '[') {
      j.depth += 1;
    } else {
      j.depth -= 1;
      if (j.depth === 0) {
        const text = j.parts.join('');
        this.work += text.length;
        const calls = values.jsonCalls(text);
        if (calls === null) return this._jsonRelease();
        this.saw = true;
        this._flushText();
        const e = toolCallsEvent(calls, text);
        if (this._jsonFormat) e.format = this._jsonFormat;
        this.out.push(e);
        this.mode = Mode.TEXT;
      }
    }
    return true;
  }

  /** Not a JSON tool call: the candidate is text (R9.2). */
  _jsonRelease() {
    this._emit(this.json.parts.join(''));
    this.json.parts = [];
    this.mode = Mode.TEXT;
    this.line.indent = -1;
    return true;
  }

  // ---- CAPTURE ------------------------------------------------------------------------

  _startCapture(level, end) {
    this.mode = Mode.CAPTURE;
    const cap = this.cap;
    cap.level = level;
    cap.raw = new _Text();
    cap.tail = '';
    cap.start = cap.mark = this._abs(this.pos);
    cap.over = false;
    cap.calls = new _Calls();
    cap.wrapped = level === Level.TOP;
    cap.started = 0;
    this._newParams();
    this.inv.text = [];
    this.pos = end;
  }

  _consumed() {
    return this._source(this.mode === Mode.TOKENS ? this.sec : this.cap);
  }

  /** Not a block: what was captured is text; TEXT resumes at the current position. */
  _fail() {
    if (this.mode === Mode.CAPTURE && this.cap.started) return this._break();
    const tokens = this.mode === Mode.TOKENS;
    const holder = tokens ? this.sec : this.cap;
    if (!holder.over && this._over(holder.start)) {
      // A block that ends past the limit was over it, wherever the chunks ended (D43).
      if (tokens) this._secOverflow();
      else this._overflow();
    }
    const text = this._consumed();
    this._emit(text);
    this._textResumes(holder.tail + text); // (the tail of what was released before)
    return true;
  }

  /** TEXT resumes after `text`: the line state its last line leaves. */
  /** A block or message ended where TEXT resumes, mid-line. */
  _resumeText() {
    this.mode = Mode.TEXT;
    this.line.midLine();
  }

  _textResumes(text) {
    this.mode = Mode.TEXT;
    const nl = text.lastIndexOf('\n');
    const tail = nl >= 0 ? text.slice(nl + 1) : 'x';
    this.line.midLine();
    if (tail.length <= 3 && /^ *$/.test(tail)) this.line.indent = tail.length;
  }

  /**
   * R16.3: the block broke after a call was announced. The calls so far are kept, the one in
   * progress completed with what it has (its open parameter's value as R6 reads the body so far);
   * the block ends here and TEXT resumes at the current position.
   */
  _break() {
    const cap = this.cap;
    const inv = this.inv;
    const par = this.par;
    this._tapPull();
    this.tap = null;
    if (cap.level !== Level.TOP) {
      if (cap.level !== Level.INVOKE) {
        const segs = par.segs.slice();
        if (par.text.length) segs.push(['text', par.text.join('')]);
        if (cap.level === Level.CDATA || cap.level === Level.AFTER_CDATA) segs.push(['cdata', this.cd.parts.join('')]);
        for (const seg of segs) this.work += seg[1].length;
        this._addParam(par.name, values.paramValue(par.name, segs, par.string));
      }
      const input = this._paramsObject();
      cap.calls.addInput(inv.name, input);
      this._flushText();
      this.out.push({ kind: 'done', input });
    }
    const raw = this._consumed();
    this._flushText();
    this.out.push(toolCallsEvent(cap.calls.take(), raw));
    cap.started = 0;
    this._textResumes(raw);
    return true;
  }

  _succeed(end) {
    const cap = this.cap;
    this.pos = end;
    if (!cap.over && !cap.started && this._over(cap.start)) this._overflow(); // the closing tag took it past the limit
    if (cap.over) return this._fail();
    cap.started = 0;
    this._flushText();
    this.out.push(toolCallsEvent(cap.calls.take(), this._source(cap)));
    this.mode = Mode.TEXT;
    this.line.midLine();
    return true;
  }

  /**
   * The block grew past maxCapture: what was captured is released as text (with a note), and
   * the rest of the block is still parsed (so its content is not read as prose) but released as
   * text as it goes.
   */
  _overflow() {
    const cap = this.cap;
    const text = this._consumed();
    if (!cap.over) {
      cap.over = true;
      this._flushText();
      this.out.push(textEvent(text, 'capture_limit'));
    } else {
      this._emit(text);
    }
    cap.tail = (cap.tail + text).slice(-4);
    cap.raw = new _Text();
    cap.mark = this.base + this.pos;
    this.cd.parts = [];
    this.cd.after = [];
    this.inv.text = this.inv.text.length ? ['x'] : []; // keep "a JSON body is in progress"
    this.par.text = [];
    this.par.segs = [];
    // Only "there was one" matters from here on: keep no more (memory stays flat, D43).
    cap.calls.keepOne();
    if (this.inv.count) {
      this._newParams();
      this.inv.count = 1; // (a placeholder: "there was one"; a repeated name would grow an array)
    }
  }

  _mCapture(final) {
    const cap = this.cap;
    // R16 (D37): once a call is announced its arguments stream instead of being held, so the
    // capture limit stops applying to the block.
    if (!cap.started && (cap.over || this._over(cap.start))) this._overflow();
    const level = cap.level;
    if (level === Level.CDATA) return this._cCdata(final);
    if (level === Level.AFTER_CDATA) return this._cAfter(final);
    const buf = this.buf;
    const pos = this.pos;
    const n = buf.length;
    if (pos >= n) {
      if (!final) return false;
      return this._fail(); // end of input inside a block (R8.5, D27)
    }
    const c = buf[pos];
    if (level === Level.PARAM) return this._cParam(final, c);
    const ws = skipAt(WS, buf, pos);
    if (ws > pos) {
      if (level === Level.INVOKE && this.inv.text.length) this.inv.text.push(buf.slice(pos, ws));
      this.pos = ws;
      return true;
    }
    if (level === Level.TOP) return this._cTop(final, c);
    return this._cInvoke(final, c);
  }

  /** Is there an end-of-sentence token at `buf[pos]`? true, false or MORE. */
  _eosAt(buf, pos, final) {
    const mk = this._marker(buf, pos, final);
    if (mk === MORE) return MORE;
    return Array.isArray(mk) && mk[0] === sections.EOS;
  }

  /** Directly inside the wrapper: invokes, whitespace and the closing wrapper (D3). */
  _cTop(final, c) {
    const buf = this.buf;
    const pos = this.pos;
    if (!OPEN_ANGLES.includes(c)) return this._fail();
    const eos = this._eosAt(buf, pos, final);
    if (eos === MORE) return false;
    if (eos === true) return this._fail(); // the output ended inside the block: as at end of input (D27)
    const r = this._tag(buf, pos, final);
    if (r === MORE) return false;
    if (!isTag(r)) return this._fail();
    if (r.local === INVOKE && !r.closing && !r.selfClosing && named(r)) {
      this.pos = r.end;
      this.cap.level = Level.INVOKE;
      this.inv.name = this._name(r.name);
      this._newParams();
      this.inv.text = [];
      if (this.stream && this.cap.wrapped && !this.cap.over) {
        this.cap.started += 1;
        this.inv.keys = new Set();
        this.inv.top = -1;
        this.inv.other = false;
        this._flushText();
        this.out.push({ kind: 'begun', name: this.inv.name });
      }
      return true;
    }
    if (r.local === WRAPPER && r.closing && this.cap.calls.length) {
      this.saw = true;
      return this._succeed(r.end);
    }
    return this._fail();
  }

  /** Inside an invoke: parameters, or a JSON object body (D5), then the closing invoke. */
  _cInvoke(final, c) {
    const buf = this.buf;
    const pos = this.pos;
    const cap = this.cap;
    const inv = this.inv;
    if (OPEN_ANGLES.includes(c)) {
      const eos = this._eosAt(buf, pos, final);
      if (eos === MORE) return false;
      if (eos === true) return this._fail();
      const r = this._tag(buf, pos, final);
      if (r === MORE) return false;
      if (isTag(r)) {
        if (r.local === PARAMETER && !r.closing) {
          if (r.selfClosing || !named(r) || !strings.isBlank(inv.text.join(''))) return this._fail();
          const name = this._name(r.name);
          if (cap.started && this._reorders(name)) return this._break();
          this.pos = r.end;
          cap.level = Level.PARAM;
          this.par.name = name;
          this.par.string = this.native ? r.string : null;
          this.par.segs = [];
          this.par.text = [];
          this.par.start = this._abs(r.end);
          if (cap.started) {
            this.tap = new ValueTap(name, this.par.string);
            this._tapText = this._tapCdata = 0;
          }
          return true;
        }
        if (r.local === INVOKE && r.closing) {
          if (!this._invokeEnds()) return this._fail();
          this._newParams();
          this.pos = r.end;
          cap.level = Level.TOP;
          return true;
        }
        return this._fail();
      }
      if (!inv.text.length) return this._fail();
      const end = this._skip(buf, pos);
      inv.text.push(buf.slice(pos, end));
      this.pos = end;
      return true;
    }
    if (inv.count) return this._fail();
    const m = search(ANGLE, buf, pos + 1);
    const end = m ? m.index : buf.length;
    inv.text.push(buf.slice(pos, end));
    this.pos = end;
    return true;
  }

  _newParams() {
    const inv = this.inv;
    inv.pairs.length = 0;
    inv.params = null;
    inv.count = 0;
  }

  /** A parameter closed: its value joins the invoke's (R6.6). */
  _addParam(name, value) {
    const inv = this.inv;
    if (inv.params === null) {
      inv.pairs.push(name, value);
      if (inv.pairs.length < 2 * PAIRS_MAX) return;
      const pairs = inv.pairs;
      inv.params = {};
      inv.multi = new Set();
      for (let i = 0; i < pairs.length; i += 2) values.addParam(inv.params, inv.multi, pairs[i], pairs[i + 1]);
      pairs.length = 0;
      return;
    }
    values.addParam(inv.params, inv.multi, name, value);
  }

  /** The invoke's input object from its parameters. */
  _paramsObject() {
    const inv = this.inv;
    return inv.params !== null ? inv.params : inputOf(inv.pairs, 0, inv.pairs.length >> 1);
  }

  /**
   * The invoke closed: its call joins the block's (Python: `_invoke_input`, then the call).
   * False when its body is neither parameters nor a JSON object (D5): the block is text.
   */
  _invokeEnds() {
    const inv = this.inv;
    const cap = this.cap;
    if (cap.over) {
      cap.calls.addInput(inv.name, {}); // (only "there was one" is kept)
      return true;
    }
    const body = inv.text.join('');
    let input = null;
    if (inv.count) {
      if (!strings.isBlank(body)) return false;
      if (!cap.started && inv.params === null) {
        cap.calls.addPairs(inv.name, inv.pairs);
        return true;
      }
      input = this._paramsObject();
    } else {
      input = strings.isBlank(body) ? {} : values.jsonBodyInput(body);
      if (input === null) return false;
    }
    cap.calls.addInput(inv.name, input);
    if (cap.started) {
      this._flushText();
      this.out.push({ kind: 'done', input });
    }
    return true;
  }

  /**
   * A parameter body: text up to a CDATA opener or the closing parameter tag. Angles that start
   * nothing are part of the text and skipped in the same step (code is full of them).
   */
  _cParam(final, c) {
    const buf = this.buf;
    let pos = this.pos;
    const n = buf.length;
    const start = pos;
    for (;;) {
      if (OPEN_ANGLES.includes(c)) {
        const r = this._paramAngle(buf, pos, final, start);
        if (r !== null) return r;
        pos = this._skip(buf, pos, true); // the last angle may open a CDATA
      }
      const m = search(ANGLE, buf, pos);
      if (m === null) {
        pos = n;
        break;
      }
      pos = m.index;
      c = buf[pos];
    }
    if (pos > start) {
      this.par.text.push(buf.slice(start, pos));
    }
    this.pos = pos;
    return true;
  }

  /**
   * An open angle in a parameter body: null when it starts nothing (it is text), else the step's
   * answer after taking the text before it (`buf[start:pos]`).
   */
  _paramAngle(buf, pos, final, start) {
    const cd = matchCdataOpen(buf, pos, final);
    let eos = false;
    let r = NO;
    if (cd === NO) {
      eos = this._eosAt(buf, pos, final);
      if (eos === false) {
        r = this._tag(buf, pos, final);
        if (r === NO) return null;
      }
    }
    const cap = this.cap;
    const par = this.par;
    if (pos > start) {
      par.text.push(buf.slice(start, pos));
    }
    this.pos = pos;
    if (cd === MORE || eos === MORE || r === MORE) return false;
    if (typeof cd === 'number') {
      if (this.tap !== null) {
        this._tapPull();
        this._tapOut(this.tap.cdataOpen());
      }
      this._parFlushText();
      this._tapText = this._tapCdata = 0;
      this.pos = cd;
      cap.level = Level.CDATA;
      this._startCdata(cd);
      return true;
    }
    if (isTag(r) && r.local === PARAMETER && r.closing) {
      if (this.tap !== null) {
        this._tapPull();
        this.tap = null;
      }
      this._parFlushText();
      for (const seg of par.segs) this.work += seg[1].length;
      const value = values.paramValue(par.name, par.segs, par.string);
      par.segs = []; // the body is decoded: keep only its value
      this._addParam(par.name, value);
      this.inv.count += 1;
      if (cap.started) {
        this._flushText();
        this.out.push({ kind: 'param', key: par.name, value });
      }
      this.pos = r.end;
      cap.level = Level.INVOKE;
      return true;
    }
    return this._fail(); // the end-of-sentence token, or another tag inside a value
  }

  /**
   * R16 (D37): a parameter name that repeats (R6.6 makes an array of both) or an array index
   * after another name (JavaScript lists index keys first) would change arguments text already
   * sent: the block breaks before it.
   */
  _reorders(name) {
    const inv = this.inv;
    if (inv.keys.has(name)) return true;
    if (isIndexKey(name)) {
      const n = Number(name);
      if (inv.other || n < inv.top) return true;
      inv.top = n;
    } else {
      inv.other = true;
    }
    inv.keys.add(name);
    return false;
  }

  /** Hand the tap the body pieces it has not seen; what became certain goes out. */
  _tapPull() {
    const tap = this.tap;
    if (tap === null) return;
    let got = '';
    const text = this.par.text;
    const parts = this.cd.parts;
    for (; this._tapText < text.length; this._tapText++) got += tap.text(text[this._tapText]);
    const level = this.cap.level;
    if (level === Level.CDATA || level === Level.AFTER_CDATA) {
      for (; this._tapCdata < parts.length; this._tapCdata++) got += tap.cdataPiece(parts[this._tapCdata]);
    }
    this._tapOut(got);
  }

  _tapOut(s) {
    if (s) {
      this._flushText();
      this.out.push({ kind: 'chars', key: this.par.name, text: s });
    }
  }

  _parFlushText() {
    const par = this.par;
    if (par.text.length) {
      par.segs.push(['text', par.text.join('')]);
      par.text = [];
    }
  }

  // ---- CDATA inside a parameter ---------------------------------------------------------

  _startCdata(at) {
    const cd = this.cd;
    cd.parts = [];
    cd.after = [];
    cd.start = this._abs(at);
    cd.depth = 1;
    cd.fence = '';
    cd.line.lineStart();
  }

  _cCdata(final) {
    const buf = this.buf;
    let pos = this.pos;
    const n = buf.length;
    if (pos >= n) {
      if (final) return this._eofInCdata();
      return false;
    }
    if (this.loose) return this._cCdataLoose(final);
    const cd = this.cd;
    const line = cd.line;
    if (line.tail || line.run || line.indent >= 0) {
      const r = line.step(buf, pos, cd.fence || '`~');
      const end = line.end;
      if (end > pos) {
        cd.parts.push(buf.slice(pos, end));
        this.pos = pos = end;
      }
      if (r === WAIT) return true;
      if (r === RUN_END) {
        const run = line.run;
        const ch = line.char;
        line.run = 0;
        if (!cd.fence) {
          if (run >= 3) {
            cd.fence = ch;
            cd.fenceLen = run;
          }
        } else if (ch === cd.fence && run >= cd.fenceLen) {
          line.tail = true;
        }
        return true;
      }
      if (r === TAIL_END) {
        const c = buf[pos];
        if (c === '\n' || c === ']') cd.fence = ''; // the closing fence line ended
        if (c === '\n') {
          cd.parts.push(c);
          this.pos = pos + 1;
          line.lineStart();
        }
        return true;
      }
    }
    // Only line starts that begin with a fence character matter (R5.3), so plain lines are
    // skipped in bulk; a possible partial match at the end of the buffer waits.
    const m = search(CD_SPECIAL, buf, pos);
    if (m === null) {
      let end = n;
      if (!final) {
        const t = search(CD_TAIL, buf, Math.max(pos, n - 4));
        if (t !== null) end = t.index;
      }
      cd.parts.push(buf.slice(pos, end));
      this.pos = end;
      return final;
    }
    const k = m.index;
    if (k > pos) {
      cd.parts.push(buf.slice(pos, k));
      this.pos = pos = k;
    }
    const ch = buf[k];
    if (ch === '\n') {
      cd.parts.push(ch);
      this.pos = k + 1;
      line.lineStart();
      return true;
    }
    if (ch === ']') {
      if (k + 2 >= n) {
        if (!final) return false;
        cd.parts.push(buf.slice(k));
        this.pos = n;
        return true;
      }
      if (cdataCloseAt(buf, k)) {
        if (cd.depth > 1) {
          cd.depth -= 1;
          cd.parts.push(buf.slice(k, k + 3));
        } else if (cd.fence) {
          cd.parts.push(buf.slice(k, k + 3)); // a closer in a fenced example stays in the value (R5.3)
        } else {
          cd.after = [buf.slice(k, k + 3)];
          cd.afterTail = -1;
          this.cap.level = Level.AFTER_CDATA;
        }
        this.pos = k + 3;
        return true;
      }
      cd.parts.push(']');
      this.pos = k + 1;
      return true;
    }
    // Openers count inside a fence too: an example there has its own closers, and an opener seen
    // through a fence the value never closed is the next value's (D7).
    const opener = matchCdataOpen(buf, k, final);
    if (opener === MORE) return false;
    if (typeof opener === 'number') {
      cd.depth += 1;
      cd.parts.push(buf.slice(k, opener));
      this.pos = opener;
      return true;
    }
    cd.parts.push(ch);
    this.pos = k + 1;
    return true;
  }

  /** After `]]>` at depth 1: it closes the CDATA only if a closing tag follows (D7). */
  _cAfter(final) {
    const buf = this.buf;
    const pos = this.pos;
    const n = buf.length;
    if (pos >= n) {
      if (final) return this._eofInCdata();
      return false;
    }
    const cd = this.cd;
    const c = buf[pos];
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      let k = pos;
      while (k < n && (buf[k] === ' ' || buf[k] === '\t' || buf[k] === '\r' || buf[k] === '\n')) k++;
      const ws = buf.slice(pos, k);
      cd.after.push(ws);
      // The line state after the blanks, counted across chunks (the blanks may be split).
      const nl = ws.lastIndexOf('\n');
      if (nl >= 0) cd.afterTail = 0;
      if (cd.afterTail >= 0) {
        const rest = ws.slice(nl + 1);
        const spaces = /^ *$/.test(rest) ? cd.afterTail + rest.length : 4;
        cd.afterTail = Math.min(spaces, 4);
        cd.line.midLine();
        if (spaces <= 3) cd.line.indent = spaces;
      }
      this.pos = k;
      return true;
    }
    let closed = false;
    if (OPEN_ANGLES.includes(c)) {
      closed = matchCloseStart(buf, pos, final);
      if (closed === MORE) return false;
    }
    if (closed === true) {
      if (this.tap !== null) {
        this._tapPull();
        this.tap.cdataClose();
        this._tapText = this._tapCdata = 0;
      }
      this.par.segs.push(['cdata', cd.parts.join('')]);
      cd.parts = [];
      cd.after = [];
      this.cap.level = Level.PARAM;
      return true;
    }
    if (cd.afterTail < 0) cd.line.midLine(); // no newline after the `]]>`: the line goes on
    for (const p of cd.after) cd.parts.push(p);
    cd.after = [];
    this.cap.level = Level.CDATA;
    return true;
  }

  /**
   * After the repair (D8) every CDATA is read by its rule, in one pass: the value runs to the
   * first parameter closing tag, less a `]]>` and blanks right before it.
   */
  _cCdataLoose(final) {
    const buf = this.buf;
    const pos = this.pos;
    const cd = this.cd;
    const m = search(ANGLE, buf, pos);
    if (m === null) {
      cd.parts.push(buf.slice(pos));
      this.pos = buf.length;
      return true;
    }
    const k = m.index;
    const r = this._tag(buf, k, final);
    if (r === MORE) {
      cd.parts.push(buf.slice(pos, k));
      this.pos = k;
      return false;
    }
    if (isTag(r) && r.local === PARAMETER && r.closing) {
      this._looseValue(cd.parts.join('') + buf.slice(pos, k));
      cd.parts = [];
      this.pos = k;
      return true;
    }
    const end = this._skip(buf, k);
    cd.parts.push(buf.slice(pos, end));
    this.pos = end;
    return true;
  }

  /** The repaired CDATA value (D8): `content` up to its parameter closing tag. */
  _looseValue(content) {
    const t = LOOSE_CLOSE_TAIL.exec(content);
    this.par.segs.push(['cdata', t ? content.slice(0, t.index) : content]);
    this.cap.level = Level.PARAM;
  }

  /**
   * R5.6 / D8: the input ended inside a CDATA: its value runs to the first parameter closing
   * tag; the rest of the input is then read once more, every CDATA in it by the same rule
   * (`_cCdataLoose`), so no second repair and no second rescan.
   */
  _eofInCdata() {
    const cd = this.cd;
    const cap = this.cap;
    const content = cd.parts.join('') + cd.after.join('') + this.buf.slice(this.pos);
    // with a call announced, the block breaks here (R16.3, D37)
    if (this.loose || cap.over || cap.started) return this._fail();
    this.loose = true;
    this.work += content.length;
    let i = 0;
    let close = -1;
    for (;;) {
      const m = search(ANGLE, content, i);
      if (m === null) break;
      const r = matchTag(content, m.index, true);
      if (isTag(r) && r.local === PARAMETER && r.closing) {
        close = m.index;
        break;
      }
      i = m.index + 1;
    }
    if (close < 0) return this._fail();
    this._looseValue(content.slice(0, close));
    cd.parts = [];
    cd.after = [];
    // The block's source now ends where the value does; reading goes on from there.
    const end = cd.start + close;
    const source = this._source(cap) + this.buf.slice(this.pos);
    cap.raw = new _Text();
    cap.raw.add(source.slice(0, end - cap.start));
    cap.mark = end;
    this.buf = content.slice(close);
    this.base = end;
    this.pos = 0;
    return true;
  }

  // ---- TOKENS (token sections, R14.4-R14.5) -------------------------------------------

  _startSection(end) {
    this.mode = Mode.TOKENS;
    const sec = this.sec;
    sec.stage = Stage.BETWEEN;
    sec.raw = new _Text();
    sec.tail = '';
    sec.calls = [];
    sec.bad = [];
    sec.start = sec.mark = this._abs(this.pos);
    sec.over = false;
    this.pos = end;
  }

  /** `repaired`: the section ended without its section end (D26). */
  _secSucceed(end, repaired = false) {
    const sec = this.sec;
    this.pos = end;
    if (!sec.over && this._over(sec.start)) this._secOverflow(); // the section end took it past the limit
    if (sec.over) return this._fail();
    this._flushText();
    const raw = this._source(sec);
    const e = toolCallsEvent(sec.calls.slice(), raw);
    if (sec.bad.length) e.malformed = sec.bad;
    if (repaired) e.repaired = ['D26'];
    this.out.push(e);
    this.mode = Mode.TEXT;
    this.line.midLine();
    return true;
  }

  /** As `_overflow`: past maxCapture the section is released as text as it goes. */
  _secOverflow() {
    const sec = this.sec;
    const text = this._source(sec);
    if (!sec.over) {
      sec.over = true;
      this._flushText();
      this.out.push(textEvent(text, 'capture_limit'));
    } else {
      this._emit(text);
    }
    sec.tail = (sec.tail + text).slice(-4);
    sec.raw = new _Text();
    sec.mark = this.base + this.pos;
    sec.head = [];
    sec.body = [];
  }

  /**
   * Fast path of feed: a call's head or body with no marker in sight is only appended (what
   * _mTokens would do, with no limit reached); false: let the steps decide. (Code units bound
   * the code point counts of maxCapture and MAX_HEAD from above.)
   */
  _secTakes(buf) {
    const sec = this.sec;
    if (sec.over || sec.stage === Stage.BETWEEN || this.base + buf.length - sec.start > this.maxCapture) return false;
    if (sec.stage === Stage.BODY) {
      sec.body.push(buf);
      return true;
    }
    if (sec.headLen + buf.length > sections.MAX_HEAD) return false;
    sec.head.push(buf);
    sec.headLen += buf.length;
    return true;
  }

  _mTokens(final) {
    const sec = this.sec;
    if (sec.over || this._over(sec.start)) this._secOverflow();
    const buf = this.buf;
    const pos = this.pos;
    const n = buf.length;
    if (pos >= n) {
      if (!final) return false;
      // D26: a section whose calls are all complete survives a missing section end.
      if (sec.stage === Stage.BETWEEN && (sec.calls.length || sec.bad.length)) return this._secSucceed(pos, true);
      return this._fail();
    }
    if (sec.stage === Stage.BETWEEN) {
      const ws = skipAt(WS, buf, pos);
      if (ws > pos) {
        this.pos = ws;
        return true;
      }
      const mk = buf[pos] === '<' ? matchMarker(buf, pos, final) : NO;
      if (mk === MORE) return false;
      if (!Array.isArray(mk)) return this._fail(); // D3: nothing else stands between calls
      const [kind, end] = mk;
      if (kind === sections.CALL_BEGIN) {
        this.pos = end;
        sec.stage = Stage.HEAD;
        sec.head = [];
        sec.headLen = 0;
        sec.headStart = this._abs(end);
        sec.body = [];
        return true;
      }
      if (kind === sections.SECTION_BEGIN) {
        // R18.3: a repeated section opener is tolerated
        this.pos = end;
        return true;
      }
      const some = sec.calls.length || sec.bad.length;
      if (kind === sections.SECTION_END && some) return this._secSucceed(end);
      if (kind === sections.EOS && some) return this._secSucceed(pos, true); // the output ended: as at end of input
      return this._fail();
    }
    const k = buf.indexOf('<', pos);
    if (k !== pos) {
      const end = k < 0 ? n : k;
      const piece = buf.slice(pos, end);
      if (sec.stage === Stage.HEAD) {
        // MAX_HEAD counts code points (Python); the code unit count is an upper bound of it
        if (sec.headLen + (end - pos) > sections.MAX_HEAD) {
          const stop = this._cpAdvance(sec.headStart, sections.MAX_HEAD) - this.base;
          if (stop < end) {
            // D26: a head longer than MAX_HEAD is no call. Decided at its first character
            // past the limit, so TEXT resumes there whatever the chunks were.
            this.pos = stop;
            return this._fail();
          }
        }
        sec.headLen += end - pos;
        sec.head.push(piece);
      } else if (!sec.over) {
        sec.body.push(piece);
      }
      this.pos = end;
      return true;
    }
    const mk = matchMarker(buf, pos, final);
    if (mk === MORE) return false;
    if (!Array.isArray(mk)) {
      if (sec.stage === Stage.HEAD) {
        if (sec.headLen >= sections.MAX_HEAD && this._cpDist(sec.headStart, this._abs(pos)) >= sections.MAX_HEAD) {
          return this._fail(); // (as above: past the limit, at this `<`)
        }
        sec.head.push('<');
        sec.headLen += 1;
      } else if (!sec.over) {
        sec.body.push('<');
      }
      this.pos = pos + 1;
      return true;
    }
    const [kind, end] = mk;
    if (sec.stage === Stage.HEAD && kind === sections.SEP) {
      this.pos = end;
      sec.stage = Stage.BODY;
      return true;
    }
    if (sec.stage === Stage.BODY && kind === sections.CALL_END) {
      if (!sec.over) {
        const head = sec.head.join('');
        const body = sec.body.join('');
        this.work += body.length;
        const call = sections.decodeCall(head, body);
        if (call === null) sec.bad.push(sections.malformedCall(head, body)); // R18.2, D55: the others kept
        else sec.calls.push({ name: this._name(call[0]), input: call[1] });
      }
      this.pos = end;
      sec.stage = Stage.BETWEEN;
      return true;
    }
    return this._fail();
  }

  // ---- BLOCK (the block engine, R17) --------------------------------------------------

  _startBlock(rows, opener, end) {
    this.mode = Mode.BLOCK;
    const blk = this.blk;
    blk.rows = rows;
    blk.opener = opener;
    blk.closer = rows[0].closer;
    blk.parts = [];
    blk.size = 0;
    blk.over = false;
    blk.start = this._abs(this.pos);
    this.pos = end;
  }

  /** Hold the body to the closer; only a suffix that may begin the closer stays in `buf`. */
  _mBlock(final) {
    const blk = this.blk;
    const buf = this.buf;
    const pos = this.pos;
    const n = buf.length;
    const closer = blk.closer;
    const i = buf.indexOf(closer, pos);
    if (i >= 0) {
      this._blkTake(buf.slice(pos, i));
      this.pos = i + closer.length;
      return this._blkEnd(true);
    }
    if (final) {
      this._blkTake(buf.slice(pos));
      this.pos = n;
      return this._blkEnd(false);
    }
    let keep = n;
    for (let j = Math.max(pos, n - closer.length + 1); j < n; j++) {
      if (closer.startsWith(buf.slice(j))) {
        keep = j;
        break;
      }
    }
    if (keep > pos) {
      this._blkTake(buf.slice(pos, keep));
      this.pos = keep;
    }
    return false;
  }

  _blkTake(s) {
    const blk = this.blk;
    if (blk.over) {
      this._emit(s);
      return;
    }
    blk.parts.push(s);
    blk.size += strings.codePoints(s);
    if (blk.size > this.maxCapture) this._blkOverflow();
  }

  /** Past maxCapture the block is released as text (with a note), the rest as it comes (D43). */
  _blkOverflow() {
    const blk = this.blk;
    this._flushText();
    this.out.push(textEvent(blk.opener + blk.parts.join(''), 'capture_limit'));
    blk.parts = [];
    blk.over = true;
  }

  _blkEnd(closed) {
    const blk = this.blk;
    const closer = closed ? blk.closer : '';
    if (blk.over) {
      this._emit(closer);
      this._textResumes('x' + closer);
      return true;
    }
    const body = blk.parts.join('');
    blk.parts = [];
    this.work += body.length;
    const row = rowFor(blk.rows, body);
    const got = row !== null ? GRAMMARS[row.grammar](body, this.typer) : null;
    const raw = blk.opener + body + closer;
    if (
      row === null ||
      got === null ||
      (!got.calls.length && !got.malformed.length) ||
      (!closed && (!row.eofRepair || !got.calls.length || got.malformed.length))
    ) {
      this._emit(raw); // R4: not a block of an enabled format; nothing is lost
      this._textResumes(raw);
      return true;
    }
    this.saw = true;
    this._flushText();
    const calls = got.calls.map((c) => (c.id === undefined ? { name: this._name(c.name), input: c.input } : { name: this._name(c.name), input: c.input, id: c.id }));
    const e = toolCallsEvent(calls, raw);
    e.format = row.name;
    if (got.malformed.length) e.malformed = got.malformed;
    if (!closed) e.repaired = ['D44'];
    this.out.push(e);
    this.mode = Mode.TEXT;
    this.line.midLine();
    return true;
  }
}

module.exports = { ALL_FORMATS, FORMATS, FenceLine, Level, Mode, Scanner, Stage, matchRegion };
