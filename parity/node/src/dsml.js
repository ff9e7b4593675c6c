'use strict';
/**
 * The scanner's DSML / XML-wrapper capture (Python's dsml.py): CAPTURE, a block parsed at a `Level`
 * (wrapper, invoke, parameter body, CDATA), released as text when it turns out not to be a block
 * (D3, D5), with the narrow end-of-input CDATA repair (R5.6, D8) and R16's value tap. A held block
 * is decided by scanbase.js (`_succeed`, `_fail`, `_overflow`). See scanner.js.
 */

const sections = require('./sections');
const values = require('./values');
const strings = require('./strings');
const { ValueTap, isIndexKey } = require('./arguments');
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
} = require('./shell');
const { RUN_END, TAIL_END, WAIT } = require('./fences');
const { Level, Mode, PAIRS_MAX, inputOf, isTag, named, toolCallsEvent } = require('./scanbase');
const { ANGLE, Prose, WS, search } = require('./prose');

// Generated from dsml.py. NATIVE_SHELL: DeepSeek's own shell (R14.1), a `tool_calls` block written
// in it is the model's, not the seed's dialect, so its malformed calls are reported (D59).
const { CD_SPECIAL, CD_TAIL, LOOSE_CLOSE_TAIL, NATIVE_SHELL } = require('./tables');

/** The end of what sticky `re` matches at `s[pos]` (`pos` when nothing), with no match object. */
function skipAt(re, s, pos) {
  re.lastIndex = pos;
  return re.test(s) ? re.lastIndex : pos;
}


/** The DSML / XML-wrapper block capture of the scanner (CAPTURE). */
class DsmlCapture extends Prose {
  // ---- CAPTURE ------------------------------------------------------------------------

  /** `fmt`: the format row of the opening wrapper ('' for a bare invoke, R3). */
  _startCapture(level, end, fmt) {
    const cap = this.cap;
    this._hold(cap, Mode.CAPTURE);
    cap.level = level;
    cap.format = fmt;
    cap.fixed = [];
    // D59: R18.2 in function_calls blocks and in tool_calls blocks of the native shell; the seed's
    // dialect keeps D4 (its recorded corpus pins broken blocks as text)
    const native = fmt === 'function_calls' || (this.native && this.buf.startsWith(NATIVE_SHELL, this.pos));
    cap.bad = level === Level.TOP && native ? [] : null;
    cap.wrapped = level === Level.TOP;
    this._newParams();
    const inv = this.inv;
    inv.text = [];
    inv.start = cap.start;
    inv.bad = '';
    inv.live = false;
    this.pos = end;
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
    if (cap.level !== Level.TOP && !inv.live) {
      this._malformed(this.pos); // a nameless invoke, never announced (D59)
    } else if (cap.level !== Level.TOP) {
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
    const raw = this._source();
    this._flushText();
    const bad = cap.reported(raw);
    this.out.push(toolCallsEvent(cap.calls.take(), raw, cap.format, bad, [...cap.fixed, 'D37']));
    cap.started = 0;
    this._textResumes(raw);
    return true;
  }

  /** D59: the invoke read so far (to `buf[end]`) is a malformed call of the block. */
  _malformed(end) {
    const cap = this.cap;
    const inv = this.inv;
    // (past the limit: "there was one")
    if (cap.bad !== null && !(cap.over && cap.bad.length)) cap.bad.push([inv.start, this.base + end, inv.bad, inv.name || null]);
  }

  /**
   * D59: the block reports a malformed invoke instead of being text (R18.2); an announced call
   * breaks the block instead (R16.3, D37).
   */
  _tolerates() {
    return this.cap.bad !== null && !this.inv.live;
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
    const cap = this.cap;
    const inv = this.inv;
    if (r.local === INVOKE && !r.closing && !r.selfClosing) {
      const isNamed = named(r);
      if (!isNamed && cap.bad === null) return this._fail(); // D14
      this.pos = r.end;
      cap.level = Level.INVOKE;
      inv.start = this.base + pos;
      inv.name = isNamed ? this._name(r.name) : '';
      inv.bad = isNamed ? '' : 'no name'; // D59
      inv.live = false;
      this._newParams();
      inv.text = [];
      if (isNamed && this.stream && cap.wrapped && !cap.over) {
        cap.started += 1;
        inv.live = true;
        inv.keys = new Set();
        inv.top = -1;
        inv.other = false;
        this._flushText();
        this.out.push({ kind: 'begun', name: inv.name });
      }
      return true;
    }
    if (r.local === WRAPPER && r.closing) {
      this.saw = true;
      if (cap.calls.length || (cap.bad !== null && cap.bad.length)) {
        if (cap.wrapped) return this._succeed(r.end, cap.format, cap.fixed);
        return this._succeed(r.end, r.format, ['D6', ...cap.fixed]); // R3: its closer's row
      }
      this.pos = r.end; // an empty wrapper is text, its closer with it (D46, D60)
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
          if (r.selfClosing || !named(r) || !strings.isBlank(inv.text.join(''))) {
            if (!this._tolerates()) return this._fail(); // D14, D5
            inv.bad = inv.bad || 'broken parameter'; // D59
            if (r.selfClosing) {
              this.pos = r.end;
              return true;
            }
          }
          const name = this._name(r.name);
          if (inv.live && this._reorders(name)) return this._break();
          this.pos = r.end;
          cap.level = Level.PARAM;
          this.par.name = name;
          this.par.string = this.native ? r.string : null;
          this.par.segs = [];
          this.par.text = [];
          this.par.start = this._abs(r.end);
          if (inv.live) {
            this.tap = new ValueTap(name, this.par.string);
            this._tapText = this._tapCdata = 0;
          }
          return true;
        }
        if (r.local === INVOKE && r.closing) {
          if (inv.bad || !this._invokeEnds()) {
            if (!this._tolerates()) return this._fail();
            if (!inv.bad) inv.bad = inv.count ? 'broken parameter' : 'arguments are not a JSON object'; // D59
            this._malformed(r.end);
          }
          this._newParams();
          inv.text = [];
          this.pos = r.end;
          cap.level = Level.TOP;
          return true;
        }
        if (r.local === PARAMETER && this._tolerates()) {
          inv.bad = inv.bad || 'broken parameter'; // a stray closer (D59)
          this.pos = r.end;
          return true;
        }
        return this._fail();
      }
      if (!inv.text.length) {
        if (!this._tolerates()) return this._fail();
        if (inv.count) inv.bad = inv.bad || 'broken parameter'; // D59: an angle that starts nothing, beside parameters
      }
      const end = this._skip(buf, pos);
      inv.text.push(buf.slice(pos, end));
      this.pos = end;
      return true;
    }
    if (inv.count) {
      if (!this._tolerates()) return this._fail();
      inv.bad = inv.bad || 'broken parameter'; // D59: text beside parameters
    }
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
      if (!inv.live && inv.params === null) {
        cap.calls.addPairs(inv.name, inv.pairs);
        return true;
      }
      input = this._paramsObject();
    } else {
      input = strings.isBlank(body) ? {} : values.jsonBodyInput(body);
      if (input === null) return false;
    }
    cap.calls.addInput(inv.name, input);
    if (inv.live) {
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
      if (!this.inv.bad) {
        // (a malformed call's values are never read, D59)
        for (const seg of par.segs) this.work += seg[1].length;
        const value = values.paramValue(par.name, par.segs, par.string);
        this._addParam(par.name, value);
        this.inv.count += 1;
        if (this.inv.live) {
          this._flushText();
          this.out.push({ kind: 'param', key: par.name, value });
        }
      }
      par.segs = []; // the body is decoded: keep only its value
      this.pos = r.end;
      cap.level = Level.INVOKE;
      return true;
    }
    if (isTag(r) && (r.local === PARAMETER || (r.local === INVOKE && r.closing)) && this._tolerates()) {
      // D59: a parameter left open ends at the next parameter or at its invoke's end
      this.inv.bad = this.inv.bad || 'broken parameter';
      par.segs = [];
      par.text = [];
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
      this._looseValue(cd.parts.join('') + buf.slice(pos, k), false);
      cd.parts = [];
      this.pos = k;
      return true;
    }
    const end = this._skip(buf, k);
    cd.parts.push(buf.slice(pos, end));
    this.pos = end;
    return true;
  }

  /**
   * The repaired CDATA value (D8): `content` up to its parameter closing tag. `repaired`: the
   * input ended in it; a later value is repaired when its `]]>` is missing (D58).
   */
  _looseValue(content, repaired) {
    const t = LOOSE_CLOSE_TAIL.exec(content);
    this.par.segs.push(['cdata', t ? content.slice(0, t.index) : content]);
    const cap = this.cap;
    cap.level = Level.PARAM;
    if ((repaired || !t) && !cap.fixed.includes('D8')) cap.fixed.push('D8');
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
    this._looseValue(content.slice(0, close), true);
    cd.parts = [];
    cd.after = [];
    // The block's source now ends where the value does; reading goes on from there.
    const end = cd.start + close;
    const source = this._source() + this.buf.slice(this.pos);
    cap.raw.add(source.slice(0, end - cap.start));
    cap.mark = end;
    this.buf = content.slice(close);
    this.base = end;
    this.pos = 0;
    return true;
  }
}

module.exports = { DsmlCapture, skipAt };
