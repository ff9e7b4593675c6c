'use strict';
/**
 * The scanner's prose layer (Python's prose.py): TEXT, RUN, FENCE, PENDING and REGION, the prose
 * skip and the ignored regions, and the code point distances of the capture limit (JS only).
 * Openers are recognized here and handed to the engine of their format's row, in the layers above
 * (subclasses): `_startCapture` (dsml.js), `_startSection`, `_startBlock` and `_textJson`
 * (scanner.js). See scanner.js.
 */

const sections = require('./sections');
const strings = require('./strings');
const harmony = require('./harmony');
const mistral = require('./mistral');
const pylist = require('./pylist');
const { matchMarker } = sections;
const {
  INVOKE,
  MORE,
  NO,
  NO_TAG_ANGLES,
  NO_TAG_SO_FAR,
  OPEN_ANGLES,
  STOP,
  WRAPPER,
  escapeClass,
  matchCdataOpen,
} = require('./shell');
const { FenceLine, PLAIN, RUNS, RUN_END, TAIL_END, WAIT, matchAt } = require('./fences');
const { Level, Mode, ScanBase, isTag, matchBlockMarker, named } = require('./scanbase');
const { FORMATS } = require('./formats');

// Generated from prose.py. `search(s, pos)` -> global regexes with lastIndex; `match(s, pos)` ->
// sticky regexes. REGIONS: kind -> [closer, a partial closer at the end of input] (R5, D40-D42).
const {
  SPECIAL,
  SPECIAL_JSON,
  SPECIAL_BR,
  SPECIAL_JSON_BR,
  ANGLE,
  REGIONS,
  PRE_OPEN,
  PRE_PREFIX,
  COMMENT_PREFIX,
} = require('./tables');
// DeepSeek's closing wrappers as its models write them (R14.1): alone, they are not content (D60).
const NATIVE_CLOSERS = new Set(FORMATS.function_calls.strays);
const WS = new RegExp('[' + strings.JS_SPACE + ']+', 'y');

/**
 * TEXT's skip over decided prose, from `pos` (Python's `_prose_skip`): plain characters; an ASCII
 * `<` of prose HTML (`<div class=`, `</span>`: an ASCII head starting with a letter or digit,
 * ended, with no keyword of any format, so every recognizer says NO); open angles before a blank
 * head that has ended (`a < b`); open angles that start no tag (shell.js NO_TAG_ANGLES: runs of
 * prefixes like `<｜DSML｜<｜DSML｜`); a newline followed by a character that cannot start anything at
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
  return new RegExp(
    '(?:' + plain + '+|' + tag + '|' + blank + '|' + NO_TAG_ANGLES + '|' + newline + '){0,' + PROSE_REPS + '}',
    'y',
  );
}

// The characters of a prose tag head (see proseSkip): ASCII, no stop character (the head ends at
// one, as matchTag's), no `|` or `!` (markers, comments, CDATA drift forms), no control character.
const PLAIN_HEAD_CHARS = Array.from({ length: 0x5f }, (_, k) => String.fromCharCode(0x20 + k))
  .concat(['\t'])
  .filter((ch) => !STOP.includes(ch) && ch !== '|' && ch !== '!')
  .join('');
const PROSE_REPS = 4096;
// A tag head cut by the end of the input (shell.js NO_TAG_SO_FAR): prose waits there, as its steps
// would (a `<pre ` at a line start opens a region, D41, and is decided at its blank).
const PLAIN_TAG_SO_FAR = new RegExp(NO_TAG_SO_FAR, 'y');
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

function search(re, s, pos) {
  re.lastIndex = pos;
  return re.exec(s);
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

/** The prose layer of the scanner (TEXT, RUN, FENCE, PENDING, REGION). */
class Prose extends ScanBase {
  constructor(maxCapture, jsonCalls, formats, streamArguments, typer) {
    super(maxCapture, jsonCalls, formats, streamArguments, typer);
    jsonCalls = this.jsonCalls;
    if (this._brackets) {
      this._special = jsonCalls ? SPECIAL_JSON_BR : SPECIAL_BR;
      this._prose = jsonCalls ? PROSE_JSON_BR : PROSE_BR;
    } else {
      this._special = jsonCalls ? SPECIAL_JSON : SPECIAL;
      this._prose = jsonCalls ? PROSE_JSON : PROSE;
    }
    this._soFar = PLAIN_TAG_SO_FAR; // (test/core/fast-paths.test.js turns the fast paths off to compare)
    this.region = REGIONS.cdata; // REGION: the closer of the open region, and its prefix
  }

  // ---- code point distances (Python's string indices are code points) -------------------

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
    if (c === '[') return this._textBracket(final); // (only with Mistral or a bare pythonic list: else prose took it)
    return this._textJson(final); // `{`: the only other character prose stops at
  }

  /**
   * A token marker at `buf[pos]` that some format in use gives a meaning: MORE, NO, or
   * [kind, end] for a section opener or end (tokens) or the end-of-sentence token.
   */
  _marker(buf, pos, final) {
    if (!this.eos || buf[pos] !== '<') return NO;
    const r = matchMarker(buf, pos, final);
    if (Array.isArray(r)) {
      const kind = r[0];
      if (kind === sections.EOS || (this.tokens && (kind === sections.SECTION_BEGIN || kind === sections.SECTION_END))) return r;
      return NO;
    }
    return r;
  }

  _textBracket(final) {
    const buf = this.buf;
    const pos = this.pos;
    if (this._mistral) {
      const r = mistral.matchMarker(buf, pos, final);
      if (r === 'more') return false;
      if (Array.isArray(r)) {
        this.line.indent = -1;
        this.mode = Mode.MISTRAL;
        mistral.start(this, r[1]);
        return true;
      }
    }
    this.line.indent = -1;
    if (this._bare) {
      // R17.8, D64: a bare pythonic list may open here
      this.mode = Mode.PYLIST;
      pylist.start(this);
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
      if (kind !== sections.SECTION_BEGIN) {
        // R14.6; a stray section end (R18.3, D60): dropped
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
          this._startCapture(Level.TOP, r.end, r.format);
          return true;
        }
        if (this.native && NATIVE_CLOSERS.has(buf.slice(pos, r.end))) {
          this.pos = r.end; // R18.3, D60: dropped
          return true;
        }
      } else if (r.local === INVOKE && !r.closing && !r.selfClosing && named(r)) {
        this._startCapture(Level.INVOKE, r.end, '');
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
      // length is content, so every chunking decides at the same place (a backtick run
      // is read no further than that place: _pRunEnd).
      if (p.runLen) {
        // a backtick run read to the limit is held text too
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
      } else if (c === '[' && this._mistral) {
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
      const end = this._pRunEnd(buf, pos);
      p.runLen = end - pos;
      this.pos = end;
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
        // a section marker or an end-of-sentence token: meaning depends
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
    if (c === '[' && this._mistral) {
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
    if (c === '[' && this._bare) {
      // a bare pythonic list: its meaning depends on the span (D64)
      this._pHoldHere(this._abs(pos));
      this._pPut(c);
      this.pos = pos + 1;
      return true;
    }
    const m = search(this._special, buf, pos + 1);
    const end = m ? m.index : n;
    this._pPut(buf.slice(pos, end));
    this.pos = end;
    return true;
  }

  /**
   * Where the backtick run at `pos` ends, or the first place past the limit of a held span:
   * whether the span is over its limit is decided there, wherever a chunk ended. (A run is
   * backticks: its code units are code points, so the budget left counts in either.)
   */
  _pRunEnd(buf, pos) {
    const m = matchAt(RUNS['`'], buf, pos);
    let end = m ? pos + m[0].length : pos;
    const p = this.pend;
    if (p.hold !== null) end = Math.min(end, pos + (this.maxCapture + 1 - this._cpDist(p.holdStart, this._abs(pos))));
    return end;
  }

  /** A backtick run inside the span: the closing run, or one more run to remember. */
  _pRun(final) {
    const buf = this.buf;
    let pos = this.pos;
    const p = this.pend;
    const end = this._pRunEnd(buf, pos);
    if (end > pos) {
      p.runLen += end - pos;
      this.pos = pos = end;
    }
    if (p.hold !== null && this._over(p.holdStart)) return true; // (the run reached the limit: _mPending releases the span)
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
}

module.exports = { ANGLE, Prose, WS, matchRegion, proseEnd, search };
