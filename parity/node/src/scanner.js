'use strict';
/**
 * The incremental scanner: one state machine for `parse()` and for the streaming `Sieve`.
 * Port of python/callsieve/scanner.py and its layers, module for module, mode by mode and step by
 * step; read the "theory of operation" there. The same shape: named modes and levels (`Mode`,
 * `Level`), one method per mode (`_m<Mode>`), one small state object per mode (`_Run`, `_Fence`,
 * `_Pending`, `_Capture` with `_Invoke`, `_Param`, `_Cdata`, and `_Json`; CAPTURE's block, TOKENS'
 * section and JSON's candidate are held blocks, `_Held`, decided by one `_succeed`, `_fail` and
 * `_overflow`), and the fence-line recognizer written once (`FenceLine`). Indices are UTF-16 code units; the scanner only slices
 * and compares, and counts code points (as Python does) only where maxCapture and the length of a
 * token call head are checked.
 *
 * The format layer (R14.9), as in Python: a format is the shape of one family of tool-call markup.
 * Each format adds a recognizer of its opener, tried at an open angle in TEXT (and in PENDING,
 * where an opener makes the span's meaning matter), and a capture that parses its block. The
 * formats are listed once, in `FORMATS`: `dsml` (matchTag with the seed keywords, CAPTURE),
 * `function_calls` (matchTag with the native keywords and the `string` attribute, CAPTURE) and
 * `tokens` (sections.matchMarker, then TOKENS with its `_Section` at a `Stage`). The
 * end-of-sentence token (R14.6) is dropped in TEXT and ends a block, when a native format is in use.
 *
 * Layers, as in Python: a chain of classes, one module each, every layer a subclass of the one
 * below it, so a mode's step is one method and the hot paths stay plain property reads:
 * - scanbase.js `ScanBase`: the state every layer reads (buffer, cursor, offsets, each mode's
 *   state object), output, the held blocks' paths, and the helpers all layers use (the tag memo,
 *   names, skips);
 * - fences.js `FenceLine`: the fence-line recognizer, shared by TEXT, FENCE and CDATA;
 * - prose.js `Prose`: TEXT, RUN, FENCE, PENDING and REGION, and the prose skip; it recognizes
 *   openers and hands them to the engine of their row;
 * - dsml.js `DsmlCapture`: the DSML / XML-wrapper capture (CAPTURE, its levels and CDATA);
 * - scanner.js `Scanner` (this module): `feed` / `finish` and the step loop (`_run`), the capture
 *   limit and the surrogate pairs it counts, and the other holding engines: R9's JSON calls
 *   (JSON), token sections (TOKENS), the block engine's modes (BLOCK, HARMONY, MISTRAL;
 *   grammars in blocks.js, harmony.js, mistral.js) and bare pythonic lists (PYLIST, pylist.js).
 * A lower layer calls a method of a layer above it only as its header says.
 */

// The format layer (R14.9, R17): the rows of formats.js (generated from formats.py). The token
// engine (TOKENS) and the block engine's holding mode (BLOCK) live here, the shell engine
// (CAPTURE) in dsml.js, the block engine's grammars in blocks.js.

const sections = require('./sections');
const values = require('./values');
const strings = require('./strings');
const { GRAMMARS } = require('./blocks');
const { sameCalls } = require('./blocktap');
const { HermesTap, TAPS } = require('./jsontaps');
const harmony = require('./harmony');
const mistral = require('./mistral');
const pylist = require('./pylist');
const { ALL_FORMATS, FORMATS } = require('./formats');
const { matchMarker } = sections;
const { MORE, NO } = require('./shell');
const { FenceLine, matchAt } = require('./fences');
const { Level, Mode, Stage, rowFor, textEvent, toolCallsEvent } = require('./scanbase');
const { WS, matchRegion, proseEnd, search } = require('./prose');
const { DsmlCapture, skipAt } = require('./dsml');

// Generated from scanner.py. JSON_START (R9): a JSON candidate is `{` + a first key that starts a
// tool call object or a chat message (R9.2: text with what it holds), by a bounded lookahead.
// FN_TAG (D45): how a `<tool_call>` body that is Qwen3-Coder's starts.
const {
  SCANNER_JSON_START: JSON_START,
  JSON_START_PREFIX,
  JSON_OUT,
  JSON_IN,
  FN_TAG,
} = require('./tables');

// Surrogate pairs (astral characters): Python counts them as one character, JS strings as two.
const PAIR = /[\ud800-\udbff][\udc00-\udfff]/g;
const JSON_ESC = '"\\/bfnrtu'; // what a backslash may escape in JSON (R9.2 doubles the others)

function lstripBlank(s) {
  let i = 0;
  while (i < s.length && strings.JS_SPACE.includes(s[i])) i++;
  return i ? s.slice(i) : s;
}

/** Incremental scanner. `feed()` returns the events the new text decided; `finish()` the rest. */
class Scanner extends DsmlCapture {
  // ---- driving ------------------------------------------------------------------------

  feed(chunk) {
    this._notePairs(chunk);
    const pos = this.pos;
    const mode = this.mode;
    let buf;
    if (pos) {
      if (mode === Mode.CAPTURE || mode === Mode.TOKENS || mode === Mode.JSON) this._keepRaw();
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
    if (held === Mode.CAPTURE || held === Mode.TOKENS) this._releasePastLimit();
    if (this.tap !== null) this._tapPull();
    this._prunePairs();
    return this._take();
  }

  /**
   * At the end of a chunk, what a tag block or token section holds past maxCapture is released
   * now, not with the next chunk (R8.3, D43): a step may consume a whole chunk before it waits.
   * Blocks and JSON candidates need no such release: _blkTake releases a block as it passes the
   * limit, and _mJson fails a candidate where it reaches it.
   */
  _releasePastLimit() {
    const held = this.held;
    if (!held.started && (held.over || this._over(held.start))) this._overflow(); // (once a call is announced the limit stops applying, D37)
  }

  finish() {
    this._proseStop = -1;
    this._run(true);
    return this._take();
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
        case Mode.PYLIST:
          going = pylist.step(this, final);
          break;
        default:
          going = this._mRegion(final);
      }
      if (!going) return;
    }
  }

  /** The buffer is about to drop what is behind `pos`: the held block keeps its source. */
  _keepRaw() {
    const held = this.held;
    const at = this.base + this.pos;
    if (at > held.mark) {
      // (an open parameter body that spans most of this piece holds slices of the same buffer:
      // the source shares them)
      const shared =
        held === this.cap && this.cap.level >= Level.PARAM && this.par.start - held.mark < (at - held.mark) / 2;
      held.raw.add(this.buf.slice(held.mark - this.base, this.pos), shared);
      held.mark = at;
    }
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
    else if (this.mode === Mode.PYLIST) keep = this.py.start;
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
    const j = this.json;
    this._hold(j, Mode.JSON);
    j.depth = 1;
    j.inStr = false;
    // R16, D38: Llama's calls stream as Hermes bodies do (not R9's jsonToolCalls option)
    j.tap = this.stream && this._jsonFormat ? new HermesTap(this.typer, false) : null;
    j.fed = this.base + pos;
    j.bad = [];
    j.ins = [];
    this.pos = pos + m[0].length;
    return true;
  }

  /** The tap reads the candidate to `pos`; true when an announced call broke (handled; `end`:
   * the candidate ends at `pos`). */
  _jsonFed(end = false) {
    const j = this.json;
    const tap = j.tap;
    if (tap === null || this.base + this.pos <= j.fed) return false;
    let piece = this.buf.slice(j.fed - this.base, this.pos);
    if (j.bad.length) {
      // R9.2: a backslash that escapes nothing is read doubled, as the repair reads it; the tap's
      // offsets past each added one (`ins`) are one more than the source's
      const parts = [];
      let at = j.fed;
      for (const b of j.bad) {
        parts.push(this.buf.slice(at - this.base, b - this.base) + '\\');
        j.ins.push(b - j.start + j.ins.length);
        at = b;
      }
      parts.push(this.buf.slice(at - this.base, this.pos));
      piece = parts.join('');
      j.bad = [];
    }
    tap.feed(piece);
    j.fed = this.base + this.pos;
    this._jsonPull(tap);
    if (tap.broken < 0) return false;
    return this._jsonKeep(tap, end);
  }

  _jsonPull(tap) {
    if (tap.out.length) {
      this._flushText();
      for (const e of tap.out) this.out.push(e);
      tap.out = [];
    }
    this.work += tap.work;
    tap.work = 0;
  }

  /**
   * R16.3, D37: the candidate ends where its announced call ends (`tap.broken`): its event, then
   * the rest is text: to `pos` now and, unless the candidate ended (`end`), on to the end of its
   * JSON value as it comes (`over`).
   */
  _jsonKeep(tap, end) {
    const j = this.json;
    j.tap = null;
    const text = this._source();
    let cut = tap.broken; // (the source's offset)
    for (const t of j.ins) if (t < tap.broken) cut -= 1;
    this.saw = true;
    this._flushText();
    const calls = tap.calls.map((c) => (c.id === undefined || c.id === null ? { name: this._name(c.name), input: c.input } : { name: this._name(c.name), input: c.input, id: c.id }));
    const e = toolCallsEvent(calls, text.slice(0, cut));
    e.format = this._jsonFormat;
    e.repaired = ['D37'];
    this.out.push(e);
    this._emit(text.slice(cut));
    if (end) this._resumeText();
    else j.over = true;
    return true;
  }

  /**
   * The candidate ended (`got`: its calls, null: not a call; `pos` past it): its tap finishes; an
   * announced call the reading does not confirm keeps the block to it (R16.3).
   */
  _jsonEnd(got) {
    const j = this.json;
    const tap = j.tap;
    if (tap === null) return false;
    tap.finish();
    this._jsonPull(tap);
    if (tap.broken < 0 && tap.started && (got === null || !sameCalls(tap.calls, got))) {
      tap.broken = tap.argsEnd; // (R9 reads the rest otherwise: it is text)
      if (tap.broken < 0) tap.broken = this.base + this.pos - j.start + j.ins.length;
    }
    if (tap.broken >= 0) return this._jsonKeep(tap, true);
    j.tap = null;
    j.started = tap.started; // (so _succeed does not apply the limit, D37)
    return false;
  }

  /**
   * Read a JSON call candidate. One longer than the limit is text (D43), decided where it reaches
   * the limit: no step reads past that point, so every chunking decides there.
   */
  _mJson(final) {
    const j = this.json;
    if (j.tap !== null && this._jsonFed()) return true;
    const buf = this.buf;
    const pos = this.pos;
    let stop;
    if (j.over) {
      this._emit(this._source()); // (broken after its announced call: text as it goes)
      stop = buf.length + 1;
    } else if (j.tap !== null && j.tap.started) {
      stop = buf.length + 1; // (once a call is announced the limit stops applying, D37)
    } else {
      stop = this._cpAdvance(j.start) - this.base; // where the candidate reaches the limit
    }
    if (pos >= stop) return this._fail();
    const n = Math.min(buf.length, stop);
    if (pos >= n) {
      if (!final) return false;
      if (j.tap !== null && this._jsonEnd(null)) return true;
      return this._fail();
    }
    // Searched up to n only: a cut copy when the limit falls inside the buffer.
    const hay = n < buf.length ? buf.slice(0, n) : buf;
    if (j.inStr) {
      const m = search(JSON_IN, hay, pos);
      if (m === null) {
        this.pos = n;
        return true;
      }
      const k = m.index;
      if (buf[k] === '\\') {
        if (k + 1 >= n) {
          if (!final && n < stop) {
            this.pos = k;
            if (j.tap !== null) this._jsonFed(); // (what the next chunk rebases must be read now)
            else if (j.over) this._emit(this._source());
            return false;
          }
          this.pos = n;
          return true;
        }
        if (j.tap !== null && !JSON_ESC.includes(buf[k + 1])) j.bad.push(this.base + k); // (R9.2, see _jsonFed)
        this.pos = k + 2;
        return true;
      }
      this.pos = k + 1;
      j.inStr = false;
      return true;
    }
    const m = search(JSON_OUT, hay, pos);
    if (m === null) {
      this.pos = n;
      return true;
    }
    const k = m.index;
    this.pos = k + 1;
    const ch = buf[k];
    if (ch === '"') {
      j.inStr = true;
    } else if (ch === '{' || ch === '[') {
      j.depth += 1;
    } else {
      j.depth -= 1;
      if (j.depth === 0) {
        if (j.over) return this._fail(); // (the rest of a broken candidate: text)
        if (j.tap !== null && this._jsonFed(true)) return true; // (`pos` is past the `}`: read it too)
        const text = j.raw.text(buf.slice(j.mark - this.base, k + 1));
        this.work += text.length;
        const got = values.jsonCalls(text);
        if (j.tap !== null && this._jsonEnd(got !== null ? got[0] : null)) return true;
        if (got === null) return this._fail();
        this.saw = true;
        j.found = got[0];
        // D58: read only after its backslashes were doubled
        return this._succeed(k + 1, this._jsonFormat, got[1] ? ['R9.2'] : null);
      }
    }
    return true;
  }

  // ---- TOKENS (token sections, R14.4-R14.5) -------------------------------------------

  _startSection(end) {
    const sec = this.sec;
    this._hold(sec, Mode.TOKENS);
    sec.stage = Stage.BETWEEN;
    sec.bad = [];
    sec.lead = true;
    sec.loose = false;
    this.pos = end;
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
    if (sec.headLen + buf.length > sections.MAX_HEAD || (sec.loose && buf.includes('\n'))) return false;
    sec.head.push(buf);
    sec.headLen += buf.length;
    return true;
  }

  /** A call head begins at `buf[at]` (`loose`: its section opener began it, D61). */
  _startHead(at, loose) {
    const sec = this.sec;
    sec.stage = Stage.HEAD;
    sec.loose = loose;
    sec.head = [];
    sec.headLen = 0;
    sec.headStart = this._abs(at);
    sec.body = [];
  }

  _mTokens(final) {
    const sec = this.sec;
    if (sec.over || this._over(sec.start)) this._overflow();
    const buf = this.buf;
    const pos = this.pos;
    const n = buf.length;
    if (pos >= n) {
      if (!final) return false;
      // D26: a section whose calls are all complete survives a missing section end.
      if (sec.stage === Stage.BETWEEN && (sec.calls.length || sec.bad.length)) return this._succeed(pos, 'tokens', ['D26']);
      return this._fail();
    }
    if (sec.stage === Stage.BETWEEN) {
      const lead = sec.lead;
      sec.lead = false;
      const ws = skipAt(WS, buf, pos);
      if (ws > pos) {
        this.pos = ws;
        return true;
      }
      const mk = buf[pos] === '<' ? matchMarker(buf, pos, final) : NO;
      if (mk === MORE) {
        sec.lead = lead;
        return false;
      }
      if (!Array.isArray(mk)) {
        if (lead && buf[pos] !== '<') {
          // R18.3, D61: the section opener stood where the call opener belongs
          this._startHead(pos, true);
          return true;
        }
        return this._fail(); // D3: nothing else stands between calls
      }
      const [kind, end] = mk;
      if (kind === sections.CALL_BEGIN) {
        this.pos = end;
        this._startHead(end, false);
        return true;
      }
      if (kind === sections.SECTION_BEGIN) {
        // R18.3: a repeated section opener is tolerated
        this.pos = end;
        sec.lead = true;
        return true;
      }
      const some = sec.calls.length || sec.bad.length;
      if (kind === sections.SECTION_END && some) return this._succeed(end, 'tokens', null);
      if (kind === sections.EOS && some) return this._succeed(pos, 'tokens', ['D26']); // the output ended: as at end of input
      if (kind === sections.SECTION_END) this.pos = end; // an empty section is text, its end with it (D46, D60)
      return this._fail();
    }
    const k = buf.indexOf('<', pos);
    if (k !== pos) {
      const end = k < 0 ? n : k;
      const piece = buf.slice(pos, end);
      if (sec.stage === Stage.HEAD) {
        let stop = end; // where the head stops being one (`end`: it goes on)
        // MAX_HEAD counts code points (Python); the code unit count is an upper bound of it
        if (sec.headLen + (end - pos) > sections.MAX_HEAD) {
          // D26: a head longer than MAX_HEAD is no call. Decided at its first character past
          // the limit, so TEXT resumes there whatever the chunks were.
          stop = Math.min(end, this._cpAdvance(sec.headStart, sections.MAX_HEAD) - this.base);
        }
        const nl = sec.loose ? piece.indexOf('\n') : -1;
        if (nl >= 0 && pos + nl < stop) stop = pos + nl; // D61: a head its section opener began ends on that line
        if (stop < end) {
          this.pos = stop;
          return this._fail();
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
        else sec.calls.addInput(this._name(call[0]), call[1]);
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
    blk.wait = this.stream;
    blk.head = '';
    blk.row = null;
    blk.tap = null;
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
    if (blk.wait || (blk.tap !== null && !blk.tap.started)) {
      const prev = strings.lastUnit(blk.parts);
      const cps = strings.codePoints(s, prev);
      const room = this.maxCapture - blk.size;
      if (blk.size + cps > this.maxCapture && room <= 0) {
        blk.parts.push(s); // (past the limit with no call announced: the block is text)
        blk.size += cps;
        this._blkOverflow();
        return;
      }
      if (blk.size + cps > this.maxCapture) {
        // The tap reads to the limit first: whether a call is announced before the block reaches
        // it is decided there, wherever the chunk ends (D43, D37).
        let k = strings.isLow(s.charCodeAt(0)) && strings.isHigh(prev) ? 1 : 0; // (a pair's low half: counted with its high)
        for (let left = room; left > 0; left--) {
          const c = s.charCodeAt(k);
          k += c >= 0xd800 && c <= 0xdbff && k + 1 < s.length && (s.charCodeAt(k + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
        }
        this._blkTake(s.slice(0, k));
        this._blkTake(s.slice(k));
        return;
      }
    }
    blk.size += strings.codePoints(s, strings.lastUnit(blk.parts));
    blk.parts.push(s);
    if (blk.wait) this._blkRow(s);
    else if (blk.tap !== null) {
      blk.tap.feed(s);
      this._blkPull(false);
    }
    if (blk.over) return; // (the tap broke: the rest of the block is text)
    if (blk.size > this.maxCapture && !(blk.tap !== null && blk.tap.started)) this._blkOverflow(); // (D37)
  }

  /** R16: the row whose tap reads the body, once the body's start tells (D45). */
  _blkRow(s) {
    const blk = this.blk;
    const rows = blk.rows;
    let row;
    if (rows.length === 1 && !rows[0].body) {
      row = rows[0];
    } else {
      const head = blk.head ? blk.head + s : lstripBlank(s);
      blk.head = head.slice(0, FN_TAG.length);
      if (!head || (head[0] === '<' && head.length < FN_TAG.length && FN_TAG.startsWith(head))) return;
      row = rowFor(rows, head);
    }
    blk.wait = false;
    const Tap = row !== null ? TAPS[row.grammar] : undefined;
    if (row === null || Tap === undefined) return;
    blk.row = row;
    blk.tap = new Tap(this.typer);
    blk.tap.feed(blk.parts.join(''));
    this._blkPull(false);
  }

  /** What the tap learned goes out; a break ends the block there (R16.3). */
  _blkPull(end) {
    const blk = this.blk;
    const tap = blk.tap;
    if (tap === null) return;
    if (tap.out.length) {
      this._flushText();
      for (const e of tap.out) this.out.push(e);
      tap.out = [];
    }
    this.work += tap.work;
    tap.work = 0;
    if (tap.broken >= 0 && !end) this._blkKeep(tap, blk.parts.join(''), false, false);
  }

  /**
   * R16.3, D37: the block ends where its announced calls end (`tap.broken`): their event (with
   * the malformed calls before the last of them), then the rest of the block is text, to its
   * closer (text too, unless the block is whole). `end`: the body is complete.
   */
  _blkKeep(tap, body, closed, end) {
    const blk = this.blk;
    const row = blk.row;
    const cut = tap.broken;
    const before = body.slice(0, tap.callAt);
    const got = strings.trim(before) ? GRAMMARS[row.grammar](before, this.typer) : null;
    this.work += before.length;
    const calls = tap.calls.map((c) => (c.id === undefined ? { name: this._name(c.name), input: c.input } : { name: this._name(c.name), input: c.input, id: c.id }));
    const whole = cut >= body.length;
    const raw = blk.opener + body.slice(0, cut) + (whole && closed ? blk.closer : '');
    this.saw = true;
    this._flushText();
    const e = toolCallsEvent(calls, raw);
    e.format = row.name;
    if (got !== null && got.malformed.length) e.malformed = got.malformed;
    e.repaired = whole && end && !closed ? ['D44'] : ['D37']; // (D58)
    this.out.push(e);
    blk.tap = null;
    blk.parts = [];
    const rest = body.slice(cut) + (closed && !whole ? blk.closer : '');
    this._emit(rest);
    if (end) this._textResumes(raw + rest);
    else blk.over = true; // to its closer, the block is text as it comes
    return true;
  }

  /** Past maxCapture the block is released as text (with a note), the rest as it comes (D43). */
  _blkOverflow() {
    const blk = this.blk;
    this._flushText();
    this.out.push(textEvent(blk.opener + blk.parts.join(''), 'capture_limit'));
    blk.parts = [];
    blk.over = true;
    blk.tap = null;
    blk.wait = false;
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
    const tap = blk.tap;
    if (tap !== null) {
      tap.finish();
      this._blkPull(true);
      if (tap.broken >= 0) return this._blkKeep(tap, body, closed, true);
    }
    blk.parts = [];
    this.work += body.length;
    const row = rowFor(blk.rows, body);
    const got = row !== null ? GRAMMARS[row.grammar](body, this.typer) : null;
    const raw = blk.opener + body + closer;
    const bad =
      row === null ||
      got === null ||
      (!got.calls.length && !got.malformed.length) ||
      (!closed && (!row.eofRepair || !got.calls.length || got.malformed.length));
    if (tap !== null && tap.started && (bad || !sameCalls(tap.calls, got.calls))) {
      // R16.3: the block is not what its announced calls said: it ends after them
      tap.broken = body.length - lstripBlank(body.slice(tap.doneAt)).length;
      return this._blkKeep(tap, body, closed, true);
    }
    blk.tap = null;
    if (bad) {
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
