'use strict';
/**
 * The incremental scanner: one state machine for `parse()` and for the streaming `Sieve`.
 * Port of python/toolsieve/scanner.py, mode by mode and step by step; read the "theory of
 * operation" there. Indices are UTF-16 code units; the scanner only slices and compares.
 */

const values = require('./values');
const {
  INVOKE,
  MORE,
  NO,
  OPEN_ANGLES,
  PARAMETER,
  WRAPPER,
  cdataCloseAt,
  matchCdataOpen,
  matchCloseStart,
  matchTag,
  skipNoTag,
} = require('./shell');

const TEXT = 0;
const RUN = 1;
const FENCE = 2;
const PENDING = 3;
const CAPTURE = 4;
const JSON_MODE = 5;

const TOP = 0;
const INV = 1;
const PAR = 2;
const CDATA = 3;
const AFTER = 4;

// `search(s, pos)` -> global regexes with lastIndex; `match(s, pos)` -> sticky regexes.
const SPECIAL = /[\n`<\uff1c\u3008\u300a]/g;
const SPECIAL_JSON = /[\n`<\uff1c\u3008\u300a{]/g;
// R9: a JSON candidate is `{` + a first key that starts a tool call object (bounded lookahead).
const JSON_START = /\{[ \t\r\n]{0,16}"(tool_calls|name|function|type|id)"/y;
const JSON_START_PREFIX = /\{[ \t\r\n]{0,16}(?:"[a-z_]{0,10})?$/y;
const JSON_OUT = /["{}\[\]]/g;
const JSON_IN = /["\\]/g;
const ANGLE = /[<\uff1c\u3008\u300a]/g;
const WS = new RegExp('[' + values.JS_SPACE + ']+', 'y');
const RUNS = { '`': /`+/y, '~': /~+/y };
const SPECIAL_ANY = /[\n`<\uff1c\u3008\u300a]/;
const SPECIAL_JSON_ANY = /[\n`<\uff1c\u3008\u300a{]/;
const CD_SPECIAL = /\]\]|\n {0,3}[`~]|[<\uff1c\u3008\u300a][!\uff01\u3001]/g;
const CD_FENCE_LINE = /\n {0,3}[`~]/g;
const CD_TAIL = /(?:\n {0,3}|\]|[<\uff1c\u3008\u300a])$/g;
const LOOSE_CLOSE_TAIL = /\]\][>\uff1e\u3009][ \t\r\n]*$/;

// Surrogate pairs (astral characters): Python counts them as one character, JS strings as two.
const PAIR = /[\ud800-\udbff][\udc00-\udfff]/g;

function search(re, s, pos) {
  re.lastIndex = pos;
  return re.exec(s);
}

function matchAt(re, s, pos) {
  re.lastIndex = pos;
  return re.exec(s);
}

function isTag(r) {
  return r !== null && typeof r === 'object';
}

function named(tag) {
  return tag.name !== null && !values.isBlank(tag.name);
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

/** Incremental scanner. `feed()` returns the events the new text decided; `finish()` the rest. */
class Scanner {
  constructor(maxCapture = 8 * 1024 * 1024, jsonCalls = false) {
    this.maxCapture = maxCapture;
    this.jsonCalls = jsonCalls;
    this._special = jsonCalls ? SPECIAL_JSON : SPECIAL;
    this._specialAny = jsonCalls ? SPECIAL_JSON_ANY : SPECIAL_ANY;
    // JSON (R9)
    this.jParts = [];
    this.jDepth = 0;
    this.jInStr = false;
    this.jStart = 0;
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
    this.mode = TEXT;
    this.saw = false;
    this.out = [];
    this._text = [];
    // TEXT: line state: -1 mid-line, 0..3 spaces seen at a line start
    this.ls = 0;
    // rescan index after a failed inline span: run length -> absolute offsets
    this.idx = new Map();
    this.idxEnd = -1;
    // RUN
    this.runChar = '';
    this.runLen = 0;
    this.runStart = 0;
    this.runLine = false;
    // FENCE
    this.fChar = '';
    this.fLen = 0;
    this.fLs = -1;
    this.fRun = 0;
    this.fTail = false;
    // PENDING
    this.pN = 0;
    this.pHold = null;
    this.pHoldStart = 0;
    this.pRuns = new Map();
    this.pBlank = false;
    this.pIndent = 0;
    this.pLineStart = 0;
    this.pRunLen = 0;
    this.pRunStart = 0;
    // CAPTURE
    this.cKind = WRAPPER;
    this.cLevel = TOP;
    this.cRaw = [];
    this.cStart = 0;
    this.cOver = false;
    this.cCalls = [];
    this.invName = '';
    this.invParams = [];
    this.invText = [];
    this.parName = '';
    this.parSegs = [];
    this.parText = [];
    this.cdParts = [];
    this.cdStart = 0;
    this.cdDepth = 1;
    this.cdFence = '';
    this.cdFenceLen = 0;
    this.cdLs = 0;
    this.cdRunChar = '';
    this.cdRun = 0;
    this.cdTail = false;
    this.cdLooseOk = true;
    this.acParts = [];
    this._steps = [
      (f) => this._mText(f),
      (f) => this._mRun(f),
      (f) => this._mFence(f),
      (f) => this._mPending(f),
      (f) => this._mCapture(f),
      (f) => this._mJson(f),
    ];
  }

  // ---- driving ------------------------------------------------------------------------

  feed(chunk) {
    this._notePairs(chunk);
    const pos = this.pos;
    if (
      chunk &&
      this.mode === TEXT &&
      pos === this.buf.length &&
      (this.ls < 0 || (chunk[0] !== ' ' && chunk[0] !== '~')) &&
      !this._specialAny.test(chunk)
    ) {
      // Fast path: plain prose with nothing held decides itself.
      this.work += chunk.length;
      this.base += pos;
      this.buf = chunk;
      this.pos = chunk.length;
      this.ls = -1;
      this._prunePairs();
      return [textEvent(chunk)];
    }
    if (pos) {
      this.base += pos;
      this.buf = this.buf.slice(pos) + chunk;
      this.pos = 0;
    } else {
      this.buf += chunk;
    }
    this.work += this.buf.length;
    this._run(false);
    this._prunePairs();
    return this._take();
  }

  finish() {
    this._run(true);
    return this._take();
  }

  // ---- code point distances (Python's string indices are code points) -------------------

  _notePairs(chunk) {
    const start = this._inputLen;
    if (!chunk) return;
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
    if (this.mode === CAPTURE) keep = this.cStart;
    else if (this.mode === JSON_MODE) keep = this.jStart;
    else if (this.mode === PENDING && this.pHold !== null) keep = this.pHoldStart;
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

  /** Python's `at - start > max_capture`, in code points. */
  _over(start) {
    const at = this.base + this.pos;
    return at - start > this.maxCapture && this._cpDist(start, at) > this.maxCapture;
  }

  _take() {
    this._flushText();
    const out = this.out;
    this.out = [];
    return out;
  }

  _run(final) {
    const steps = this._steps;
    while (steps[this.mode](final)) {
      /* step */
    }
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
        return { local: r.local, closing: r.closing, name: r.name, selfClosing: r.selfClosing, end: r.end + this._memoBase - this.base };
      }
      return r;
    }
    const r = matchTag(buf, pos, final);
    if (r !== MORE) {
      this._memoAt = at;
      this._memo = r;
      this._memoBase = this.base;
    }
    return r;
  }

  // ---- TEXT ---------------------------------------------------------------------------

  _mText(final) {
    const buf = this.buf;
    const pos = this.pos;
    const n = buf.length;
    if (pos >= n) return false;
    const c = buf[pos];
    if (this.ls >= 0) {
      if (c === ' ' && this.ls < 3) {
        this._emit(c);
        this.ls += 1;
        this.pos = pos + 1;
        return true;
      }
      if (c === '`' || c === '~') {
        this._startRun(c, true);
        return true;
      }
      if (c !== '\n') this.ls = -1;
    }
    if (c === '\n') {
      this._emit(c);
      this.ls = 0;
      this.pos = pos + 1;
      return true;
    }
    if (c === '`') {
      this._startRun(c, false);
      return true;
    }
    if (OPEN_ANGLES.includes(c)) return this._textTag(final);
    if (c === '{' && this.jsonCalls) return this._textJson(final);
    const m = search(this._special, buf, pos + 1);
    const end = m ? m.index : n;
    this._emit(buf.slice(pos, end));
    this.ls = -1;
    this.pos = end;
    return true;
  }

  _textTag(final) {
    const buf = this.buf;
    const pos = this.pos;
    const r = this._tag(buf, pos, final);
    if (r === MORE) return false;
    this.ls = -1;
    if (isTag(r)) {
      if (r.local === WRAPPER) {
        this.saw = true;
        if (!r.closing) {
          this._startCapture(WRAPPER, TOP, r.end);
          return true;
        }
      } else if (r.local === INVOKE && !r.closing && !r.selfClosing && named(r)) {
        this._startCapture(INVOKE, INV, r.end);
        this.invName = values.trim(r.name || '');
        return true;
      }
      this._emit(buf.slice(pos, r.end));
      this.pos = r.end;
      return true;
    }
    const end = skipNoTag(buf, pos);
    this._emit(buf.slice(pos, end));
    this.pos = end;
    return true;
  }

  // ---- RUN (backticks / tildes) -------------------------------------------------------

  _startRun(c, line) {
    this.mode = RUN;
    this.runChar = c;
    this.runLen = 0;
    this.runStart = this._abs(this.pos);
    this.runLine = line;
  }

  _mRun(final) {
    const buf = this.buf;
    let pos = this.pos;
    const m = matchAt(RUNS[this.runChar], buf, pos);
    if (m) {
      this._emit(m[0]);
      this.runLen += m[0].length;
      this.pos = pos = pos + m[0].length;
    }
    if (pos >= buf.length && !final) return false;
    this.ls = -1;
    if (this.runLine && this.runLen >= 3) {
      this.mode = FENCE;
      this.fChar = this.runChar;
      this.fLen = this.runLen;
      this.fLs = -1;
      this.fRun = 0;
      this.fTail = false;
      return true;
    }
    this.mode = TEXT;
    if (this.runChar === '`') {
      const start = this.runStart;
      const n = this.runLen;
      if (start < this.idxEnd) {
        const offs = this.idx.get(n) || [];
        const k = bisectRight(offs, start);
        if (k < offs.length) {
          const end = offs[k] + n - this.base;
          this._emit(buf.slice(pos, end));
          this.pos = end;
        }
      } else {
        this._startPending(n);
      }
    }
    return true;
  }

  // ---- FENCE --------------------------------------------------------------------------

  _mFence(final) {
    const buf = this.buf;
    const pos = this.pos;
    const n = buf.length;
    if (pos >= n) return false;
    const c = buf[pos];
    if (this.fTail) {
      if (c === ' ' || c === '\t' || c === '\r') {
        this._emit(c);
        this.pos = pos + 1;
        return true;
      }
      this.fTail = false;
      if (c === '\n') {
        this._emit(c);
        this.pos = pos + 1;
        this.mode = TEXT;
        this.ls = 0;
        return true;
      }
      this.fLs = -1;
    }
    if (this.fRun) {
      const m = matchAt(RUNS[this.fChar], buf, pos);
      if (m) {
        this._emit(m[0]);
        this.fRun += m[0].length;
        this.pos = pos + m[0].length;
        return true;
      }
      if (this.fRun >= this.fLen) this.fTail = true;
      else this.fLs = -1;
      this.fRun = 0;
      return true;
    }
    if (this.fLs >= 0) {
      if (c === ' ' && this.fLs < 3) {
        this._emit(c);
        this.fLs += 1;
        this.pos = pos + 1;
        return true;
      }
      if (c === this.fChar) {
        this.fRun = 0;
        const m = matchAt(RUNS[c], buf, pos);
        this._emit(m[0]);
        this.fRun = m[0].length;
        this.pos = pos + m[0].length;
        return true;
      }
      this.fLs = -1;
    }
    const k = buf.indexOf('\n', pos);
    if (k < 0) {
      this._emit(buf.slice(pos));
      this.pos = n;
      return false;
    }
    this._emit(buf.slice(pos, k + 1));
    this.pos = k + 1;
    this.fLs = 0;
    return true;
  }

  // ---- PENDING (inline code span) -----------------------------------------------------

  _startPending(n) {
    this.mode = PENDING;
    this.pN = n;
    this.pHold = null;
    this.pRuns = new Map();
    this.pBlank = false;
    this.pIndent = 0;
    this.pRunLen = 0;
  }

  _pPut(s) {
    if (this.pHold === null) this._emit(s);
    else this.pHold.push(s);
  }

  _pHoldHere(at) {
    if (this.pHold === null) {
      this.pHold = [];
      this.pHoldStart = at;
    }
  }

  _mPending(final) {
    const buf = this.buf;
    let pos = this.pos;
    const n = buf.length;
    if (this.pRunLen) {
      const m = matchAt(RUNS['`'], buf, pos);
      if (m) {
        this.pRunLen += m[0].length;
        this.pos = pos = pos + m[0].length;
      }
      if (pos >= n && !final) return false;
      const length = this.pRunLen;
      const start = this.pRunStart;
      this.pRunLen = 0;
      if (length === this.pN) {
        // the closing run: the whole span is text
        this._pPut('`'.repeat(length));
        if (this.pHold !== null) this._emit(this.pHold.join(''));
        this.pHold = null;
        this.mode = TEXT;
        this.ls = -1;
        return true;
      }
      this._pHoldHere(start);
      this.pHold.push('`'.repeat(length));
      let offs = this.pRuns.get(length);
      if (offs === undefined) {
        offs = [];
        this.pRuns.set(length, offs);
      }
      offs.push(start);
      return true;
    }
    if (pos >= n) {
      if (final) {
        this._pendingLiteral(this._abs(pos));
        return true;
      }
      return false;
    }
    const c = buf[pos];
    if (this.pBlank) {
      if (c === ' ' || c === '\t') {
        this._pPut(c);
        this.pIndent += c === ' ' ? 1 : 4;
        this.pos = pos + 1;
        return true;
      }
      if (c === '\n') {
        // blank line: the paragraph ended
        this._pendingLiteral(this.pLineStart);
        return true;
      }
      if ((c === '`' || c === '~') && this.pIndent <= 3) {
        let k = pos;
        while (k < n && k < pos + 3 && buf[k] === c) k++;
        if (k - pos < 3 && k === n && !final) return false;
        if (k - pos >= 3) {
          // a fence line ends the paragraph
          this._pendingLiteral(this.pLineStart);
          return true;
        }
      } else if (OPEN_ANGLES.includes(c)) {
        const r = this._tag(buf, pos, final);
        if (r === MORE) return false;
        if (isTag(r) && r.local === WRAPPER && !r.closing) {
          this._pendingLiteral(this.pLineStart);
          return true;
        }
      }
      this.pBlank = false;
    }
    if (c === '\n') {
      this._pPut(c);
      this.pos = pos + 1;
      this.pBlank = true;
      this.pIndent = 0;
      this.pLineStart = this._abs(pos + 1);
      return true;
    }
    if (c === '`') {
      this.pRunStart = this._abs(pos);
      const m = matchAt(RUNS['`'], buf, pos);
      this.pRunLen = m[0].length;
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
      const end = skipNoTag(buf, pos);
      this._pPut(buf.slice(pos, end));
      this.pos = end;
      return true;
    }
    const m = search(this._special, buf, pos + 1);
    const end = m ? m.index : n;
    this._pPut(buf.slice(pos, end));
    this.pos = end;
    return true;
  }

  /** The open inline span has no closer in its paragraph: its opener is literal. */
  _pendingLiteral(regionEnd) {
    this.mode = TEXT;
    if (this.pHold === null) {
      this.ls = this.pBlank && this.pIndent <= 3 ? this.pIndent : -1;
      return;
    }
    const held = this.pHold.join('');
    this.work += held.length;
    this.pHold = null;
    this.idx = this.pRuns;
    this.idxEnd = regionEnd;
    this.buf = held + this.buf.slice(this.pos);
    this.base = this.pHoldStart;
    this.pos = 0;
    this.ls = -1;
  }

  // ---- JSON tool calls in prose (R9) -------------------------------------------------

  _textJson(final) {
    const buf = this.buf;
    const pos = this.pos;
    const m = matchAt(JSON_START, buf, pos);
    this.ls = -1;
    if (m === null) {
      if (!final && matchAt(JSON_START_PREFIX, buf, pos)) return false;
      this._emit('{');
      this.pos = pos + 1;
      return true;
    }
    this.mode = JSON_MODE;
    this.jParts = [m[0]];
    this.jDepth = 1;
    this.jInStr = false;
    this.jStart = this._abs(pos);
    this.pos = pos + m[0].length;
    return true;
  }

  _mJson(final) {
    const buf = this.buf;
    const pos = this.pos;
    const n = buf.length;
    if (this._over(this.jStart)) return this._jsonRelease();
    if (pos >= n) return final ? this._jsonRelease() : false;
    if (this.jInStr) {
      const m = search(JSON_IN, buf, pos);
      if (m === null) {
        this.jParts.push(buf.slice(pos));
        this.pos = n;
        return true;
      }
      const k = m.index;
      if (buf[k] === '\\') {
        if (k + 1 >= n) {
          if (!final) {
            this.jParts.push(buf.slice(pos, k));
            this.pos = k;
            return false;
          }
          this.jParts.push(buf.slice(pos));
          this.pos = n;
          return true;
        }
        this.jParts.push(buf.slice(pos, k + 2));
        this.pos = k + 2;
        return true;
      }
      this.jParts.push(buf.slice(pos, k + 1));
      this.pos = k + 1;
      this.jInStr = false;
      return true;
    }
    const m = search(JSON_OUT, buf, pos);
    if (m === null) {
      this.jParts.push(buf.slice(pos));
      this.pos = n;
      return true;
    }
    const k = m.index;
    this.jParts.push(buf.slice(pos, k + 1));
    this.pos = k + 1;
    const ch = buf[k];
    if (ch === '"') {
      this.jInStr = true;
    } else if (ch === '{' || ch === '[') {
      this.jDepth += 1;
    } else {
      this.jDepth -= 1;
      if (this.jDepth === 0) {
        const text = this.jParts.join('');
        this.work += text.length;
        const calls = values.jsonCalls(text);
        if (calls === null) return this._jsonRelease();
        this.saw = true;
        this._flushText();
        this.out.push(toolCallsEvent(calls, text));
        this.mode = TEXT;
      }
    }
    return true;
  }

  /** Not a JSON tool call: the candidate is text (R9.2). */
  _jsonRelease() {
    this._emit(this.jParts.join(''));
    this.jParts = [];
    this.mode = TEXT;
    this.ls = -1;
    return true;
  }

  // ---- CAPTURE ------------------------------------------------------------------------

  _startCapture(kind, level, end) {
    this.mode = CAPTURE;
    this.cKind = kind;
    this.cLevel = level;
    this.cRaw = [this.buf.slice(this.pos, end)];
    this.cStart = this._abs(this.pos);
    this.cOver = false;
    this.cCalls = [];
    this.invParams = [];
    this.invText = [];
    this.cdLooseOk = true;
    this.pos = end;
  }

  _consumed() {
    let parts = this.cRaw;
    if (this.cLevel === CDATA || this.cLevel === AFTER) parts = parts.concat(this.cdParts, this.acParts);
    return parts.join('');
  }

  /** Not a block: what was captured is text; TEXT resumes at the current position. */
  _fail() {
    const text = this._consumed();
    this._emit(text);
    this.mode = TEXT;
    const nl = text.lastIndexOf('\n');
    const tail = nl >= 0 ? text.slice(nl + 1) : 'x';
    this.ls = tail.length <= 3 && /^ *$/.test(tail) ? tail.length : -1;
    return true;
  }

  _succeed(end) {
    this.cRaw.push(this.buf.slice(this.pos, end));
    this.pos = end;
    if (this.cOver) return this._fail();
    this._flushText();
    this.out.push(toolCallsEvent(this.cCalls.slice(), this.cRaw.join('')));
    this.mode = TEXT;
    this.ls = -1;
    return true;
  }

  /**
   * The block grew past maxCapture: what was captured is released as text (with a note), and
   * the rest of the block is still parsed (so its content is not read as prose) but released as
   * text as it goes.
   */
  _overflow() {
    if (!this.cOver) {
      this.cOver = true;
      this._flushText();
      this.out.push(textEvent(this._consumed(), 'capture_limit'));
    } else {
      this._emit(this._consumed());
    }
    this.cRaw = [];
    this.cdParts = [];
    this.acParts = [];
    this.invText = this.invText.length ? ['x'] : []; // keep "a JSON body is in progress"
    this.parText = [];
    this.parSegs = [];
  }

  _mCapture(final) {
    if (this.cOver || this._over(this.cStart)) this._overflow();
    const level = this.cLevel;
    if (level === CDATA) return this._cCdata(final);
    if (level === AFTER) return this._cAfter(final);
    const buf = this.buf;
    const pos = this.pos;
    const n = buf.length;
    if (pos >= n) {
      if (!final) return false;
      return this._fail(); // end of input inside a block
    }
    const c = buf[pos];
    if (level === PAR) return this._cParam(final, c);
    const ws = matchAt(WS, buf, pos);
    if (ws) {
      this.cRaw.push(ws[0]);
      if (level === INV && this.invText.length) this.invText.push(ws[0]);
      this.pos = pos + ws[0].length;
      return true;
    }
    if (level === TOP) {
      if (!OPEN_ANGLES.includes(c)) return this._fail();
      const r = this._tag(buf, pos, final);
      if (r === MORE) return false;
      if (!isTag(r)) return this._fail();
      if (r.local === INVOKE && !r.closing && !r.selfClosing && named(r)) {
        this.cRaw.push(buf.slice(pos, r.end));
        this.pos = r.end;
        this.cLevel = INV;
        this.invName = values.trim(r.name || '');
        this.invParams = [];
        this.invText = [];
        return true;
      }
      if (r.local === WRAPPER && r.closing && this.cCalls.length) {
        this.saw = true;
        return this._succeed(r.end);
      }
      return this._fail();
    }
    // INV
    if (OPEN_ANGLES.includes(c)) {
      const r = this._tag(buf, pos, final);
      if (r === MORE) return false;
      if (isTag(r)) {
        if (r.local === PARAMETER && !r.closing) {
          if (r.selfClosing || !named(r) || !values.isBlank(this.invText.join(''))) return this._fail();
          this.cRaw.push(buf.slice(pos, r.end));
          this.pos = r.end;
          this.cLevel = PAR;
          this.parName = values.trim(r.name || '');
          this.parSegs = [];
          this.parText = [];
          return true;
        }
        if (r.local === INVOKE && r.closing) {
          const inp = this.cOver ? {} : this._invokeInput();
          if (inp === null) return this._fail();
          this.cCalls.push({ name: this.invName, input: inp });
          this.cRaw.push(buf.slice(pos, r.end));
          this.pos = r.end;
          this.cLevel = TOP;
          return true;
        }
        return this._fail();
      }
      if (!this.invText.length) return this._fail();
      const end = skipNoTag(buf, pos);
      this.cRaw.push(buf.slice(pos, end));
      this.invText.push(buf.slice(pos, end));
      this.pos = end;
      return true;
    }
    if (this.invParams.length) return this._fail();
    const m = search(ANGLE, buf, pos + 1);
    const end = m ? m.index : n;
    this.cRaw.push(buf.slice(pos, end));
    this.invText.push(buf.slice(pos, end));
    this.pos = end;
    return true;
  }

  _invokeInput() {
    const body = this.invText.join('');
    if (this.invParams.length) return values.isBlank(body) ? values.invokeInput(this.invParams) : null;
    if (values.isBlank(body)) return {};
    return values.jsonBodyInput(body);
  }

  _cParam(final, c) {
    const buf = this.buf;
    const pos = this.pos;
    let end;
    if (OPEN_ANGLES.includes(c)) {
      const cd = matchCdataOpen(buf, pos, final);
      if (cd === MORE) return false;
      if (typeof cd === 'number') {
        this._parFlushText();
        this.cRaw.push(buf.slice(pos, cd));
        this.pos = cd;
        this.cLevel = CDATA;
        this.cdParts = [];
        this.acParts = [];
        this.cdStart = this._abs(cd);
        this.cdDepth = 1;
        this.cdFence = '';
        this.cdLs = 0;
        this.cdRun = 0;
        this.cdTail = false;
        return true;
      }
      const r = this._tag(buf, pos, final);
      if (r === MORE) return false;
      if (isTag(r)) {
        if (r.local === PARAMETER && r.closing) {
          this._parFlushText();
          for (const seg of this.parSegs) this.work += seg[1].length;
          this.invParams.push([this.parName, values.paramValue(this.parName, this.parSegs)]);
          this.cRaw.push(buf.slice(pos, r.end));
          this.pos = r.end;
          this.cLevel = INV;
          return true;
        }
        return this._fail();
      }
      end = skipNoTag(buf, pos);
    } else {
      const m = search(ANGLE, buf, pos + 1);
      end = m ? m.index : buf.length;
    }
    this.cRaw.push(buf.slice(pos, end));
    this.parText.push(buf.slice(pos, end));
    this.pos = end;
    return true;
  }

  _parFlushText() {
    if (this.parText.length) {
      this.parSegs.push(['text', this.parText.join('')]);
      this.parText = [];
    }
  }

  // ---- CDATA inside a parameter ---------------------------------------------------------

  _cCdata(final) {
    const buf = this.buf;
    let pos = this.pos;
    const n = buf.length;
    if (pos >= n) {
      if (final) return this._eofInCdata();
      return false;
    }
    const c = buf[pos];
    const parts = this.cdParts;
    if (this.cdTail) {
      // after a possible closing fence run: only blanks may follow
      if (c === ' ' || c === '\t' || c === '\r') {
        parts.push(c);
        this.pos = pos + 1;
        return true;
      }
      this.cdTail = false;
      if (c === '\n' || c === ']') this.cdFence = '';
      this.cdLs = -1;
      if (c === '\n') {
        parts.push(c);
        this.pos = pos + 1;
        this.cdLs = 0;
        return true;
      }
      return true;
    }
    if (this.cdRun) {
      const m = matchAt(RUNS[this.cdRunChar], buf, pos);
      if (m) {
        parts.push(m[0]);
        this.cdRun += m[0].length;
        this.pos = pos + m[0].length;
        return true;
      }
      const run = this.cdRun;
      const ch = this.cdRunChar;
      this.cdRun = 0;
      this.cdLs = -1;
      if (!this.cdFence) {
        if (run >= 3) {
          this.cdFence = ch;
          this.cdFenceLen = run;
        }
      } else if (ch === this.cdFence && run >= this.cdFenceLen) {
        this.cdTail = true;
      }
      return true;
    }
    if (this.cdLs >= 0) {
      if (c === ' ' && this.cdLs < 3) {
        parts.push(c);
        this.cdLs += 1;
        this.pos = pos + 1;
        return true;
      }
      if ((c === '`' || c === '~') && (!this.cdFence || c === this.cdFence)) {
        this.cdRunChar = c;
        const m = matchAt(RUNS[c], buf, pos);
        parts.push(m[0]);
        this.cdRun = m[0].length;
        this.pos = pos + m[0].length;
        return true;
      }
      this.cdLs = -1;
    }
    // Only line starts that begin with a fence character matter (R5.3), so plain lines are
    // skipped in bulk; a possible partial match at the end of the buffer waits.
    const m = search(this.cdFence ? CD_FENCE_LINE : CD_SPECIAL, buf, pos);
    if (m === null) {
      let end = n;
      if (!final) {
        const t = search(CD_TAIL, buf, Math.max(pos, n - 4));
        if (t !== null) end = t.index;
      }
      parts.push(buf.slice(pos, end));
      this.pos = end;
      return final;
    }
    const k = m.index;
    if (k > pos) {
      parts.push(buf.slice(pos, k));
      this.pos = pos = k;
    }
    const ch = buf[k];
    if (ch === '\n') {
      parts.push(ch);
      this.pos = k + 1;
      this.cdLs = 0;
      return true;
    }
    if (ch === ']') {
      if (k + 2 >= n) {
        if (!final) return false;
        parts.push(buf.slice(k));
        this.pos = n;
        return true;
      }
      if (cdataCloseAt(buf, k)) {
        if (this.cdDepth > 1) {
          this.cdDepth -= 1;
          parts.push(buf.slice(k, k + 3));
        } else {
          this.acParts = [buf.slice(k, k + 3)];
          this.cLevel = AFTER;
        }
        this.pos = k + 3;
        return true;
      }
      parts.push(']');
      this.pos = k + 1;
      return true;
    }
    const cd = matchCdataOpen(buf, k, final);
    if (cd === MORE) return false;
    if (typeof cd === 'number') {
      this.cdDepth += 1;
      parts.push(buf.slice(k, cd));
      this.pos = cd;
      return true;
    }
    parts.push(ch);
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
    const c = buf[pos];
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      let k = pos;
      while (k < n && (buf[k] === ' ' || buf[k] === '\t' || buf[k] === '\r' || buf[k] === '\n')) k++;
      const ws = buf.slice(pos, k);
      this.acParts.push(ws);
      const nl = ws.lastIndexOf('\n');
      if (nl >= 0) {
        const tail = ws.length - nl - 1;
        this.cdLs = tail <= 3 && ' '.repeat(tail) === ws.slice(nl + 1) ? tail : -1;
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
      this.parSegs.push(['cdata', this.cdParts.join('')]);
      for (const p of this.cdParts) this.cRaw.push(p);
      for (const p of this.acParts) this.cRaw.push(p);
      this.cdParts = [];
      this.acParts = [];
      this.cLevel = PAR;
      return true;
    }
    if (!this.acParts.some((p) => p.includes('\n'))) this.cdLs = -1;
    for (const p of this.acParts) this.cdParts.push(p);
    this.acParts = [];
    this.cLevel = CDATA;
    return true;
  }

  /**
   * R5.6 / D8: the input ended inside a CDATA: its value runs to the first parameter closing
   * tag; the rest of the block is then parsed as usual (once).
   */
  _eofInCdata() {
    const content = this.cdParts.join('') + this.acParts.join('') + this.buf.slice(this.pos);
    if (!this.cdLooseOk || this.cOver) return this._fail();
    this.cdLooseOk = false;
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
    let value = content.slice(0, close);
    const t = LOOSE_CLOSE_TAIL.exec(value);
    if (t) value = value.slice(0, t.index);
    this.parSegs.push(['cdata', value]);
    this.cRaw.push(content.slice(0, close));
    this.cdParts = [];
    this.acParts = [];
    this.cLevel = PAR;
    this.buf = content.slice(close);
    this.base = this.cdStart + close;
    this.pos = 0;
    return true;
  }
}

module.exports = { Scanner };
