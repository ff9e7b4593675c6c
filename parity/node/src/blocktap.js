'use strict';
/**
 * Incremental arguments (R16) for the block engine (R17): a block's body read as it arrives.
 * Port of python/callsieve/blocktap.py, class for class; read the module docstring there (it
 * says why the grammars of blocks.js are written again in the taps, and what the two share: the
 * markers come from tables.js, generated from blocks.py). This module holds what the taps share;
 * the taps are in tagtaps.js (the tag grammars) and jsontaps.js (JSON arguments, and TAPS).
 * Names are bounded in code points, as the grammars' `u` regexes count: the taps announce only
 * names `nameOk` accepts.
 */

const strings = require('./strings');
const { isIndexKey } = require('./arguments');
const { setKey } = require('./blocks');
const { jsonText } = require('./jsontext');
const { NAME_MAX } = require('./tables');

const BLANK = strings.JS_SPACE;
const JSON_WS = ' \t\n\r';
const NUMBER_CHARS = '0123456789.eE+-';
const HEAD_LIMIT = 1024; // a head (a tag's attributes, an id) still undecided past this is no call
const NAME_UNITS = 2 * NAME_MAX; // a name longer than this in code units is longer than NAME_MAX code points

// How a raw-text value streams (Value.how).
const HOLD = 0; // whole, when it ends (typed by a schema as a non-string)
const QWEN = 1; // as written less one line break at each end
const TRIM = 2; // trimmed
const GLM = 3; // as written once no JSON or Python literal reading is left
const ASIS = 4; // as written

/** Is s.slice(i) a proper prefix of one of the markers (it may still become that marker)? */
function prefix(s, i, markers) {
  const n = s.length - i;
  for (const m of markers) if (n < m.length && m.startsWith(s.slice(i))) return true;
  return false;
}

function starts(s, i, markers) {
  for (const m of markers) if (s.startsWith(m, i)) return m;
  return '';
}

function skip(s, i, blank = BLANK) {
  const n = s.length;
  while (i < n && blank.includes(s[i])) i++;
  return i;
}

function lstrip(s, chars) {
  let i = 0;
  while (i < s.length && chars.includes(s[i])) i++;
  return s.slice(i);
}

function rstrip(s, chars) {
  let j = s.length;
  while (j > 0 && chars.includes(s[j - 1])) j--;
  return s.slice(0, j);
}

function call(name, input, id) {
  return id === null || id === undefined ? { name, input } : { name, input, id };
}

function isLow(c) {
  return c >= 0xdc00 && c <= 0xdfff;
}

function isHigh(c) {
  return c >= 0xd800 && c <= 0xdbff;
}

/** A raw-text value as it arrives: `add` returns the characters that became certain. */
class Value {
  constructor(how) {
    this.how = how;
    this.pieces = [];
    this.state = 0; // QWEN: 0 before the first line break is decided; TRIM, GLM: 0 leading
    this.held = []; // characters not yet certain (a trailing run; a GLM opening)
    this.lit = ''; // GLM: the literal the opening may still be ('' a number)
    this.litAt = 0; // GLM: characters of `lit` matched
    this.ws = false; // GLM: a blank came after the opening
  }

  add(t) {
    if (!t) return '';
    this.pieces.push(t);
    const how = this.how;
    if (how === HOLD) return '';
    if (how === ASIS) return t;
    if (how === QWEN) return this._qwen(t);
    if (how === TRIM) return this._trim(t);
    return this._glm(t);
  }

  text() {
    return this.pieces.join('');
  }

  _qwen(t) {
    let s = this.held.length ? this.held.join('') + t : t;
    if (this.state === 0) {
      if (s === '\r') {
        this.held = [s];
        return '';
      }
      if (s.startsWith('\r\n')) s = s.slice(2);
      else if (s.startsWith('\n')) s = s.slice(1);
      this.state = 1;
    }
    let k = s.length;
    if (s.endsWith('\r\n')) k -= 2;
    else if (s.endsWith('\n') || s.endsWith('\r')) k -= 1;
    this.held = k < s.length ? [s.slice(k)] : [];
    return s.slice(0, k);
  }

  _trim(t) {
    if (this.state === 0) {
      t = lstrip(t, BLANK);
      if (!t) return '';
      this.state = 1;
    }
    const body = rstrip(t, BLANK);
    if (!body) {
      this.held.push(t);
      return '';
    }
    const out = this.held.length ? this.held.join('') + body : body;
    this.held = body.length < t.length ? [t.slice(body.length)] : [];
    return out;
  }

  /** GLM without a schema entry: a string only once the opening rules out JSON and the Python
   * literals True / False / None (blocks.glmValue). */
  _glm(t) {
    if (this.state === 2) return t;
    this.held.push(t);
    for (const ch of t) {
      if (this.state === 0) {
        if (BLANK.includes(ch)) continue;
        this.state = 1;
        const lead = lstrip(this.held.join(''), JSON_WS);
        const jsonLead = !(lead.length && BLANK.includes(lead[0]));
        if ('{["'.includes(ch)) {
          if (jsonLead) {
            this.how = HOLD; // JSON text can run on: the value comes out whole
            this.held = [];
            return '';
          }
          return this._release();
        }
        if ('TFN'.includes(ch)) this.lit = { T: 'True', F: 'False', N: 'None' }[ch];
        else if ('tfn'.includes(ch) && jsonLead) this.lit = { t: 'true', f: 'false', n: 'null' }[ch];
        else if ('-0123456789'.includes(ch) && jsonLead) this.lit = '';
        else return this._release();
        this.litAt = 1;
        continue;
      }
      const lit = this.lit;
      const blank = lit && 'TFN'.includes(lit[0]) ? BLANK : JSON_WS;
      if (blank.includes(ch)) this.ws = true;
      else if (this.ws) return this._release();
      else if (lit) {
        if (this.litAt < lit.length && ch === lit[this.litAt]) this.litAt += 1;
        else return this._release();
      } else if (!NUMBER_CHARS.includes(ch)) return this._release();
    }
    return '';
  }

  _release() {
    this.state = 2;
    const out = this.held.join('');
    this.held = [];
    return out;
  }
}

/** What every family's tap shares: the pending text, the calls announced, the open value. */
class BlockTap {
  constructor(typer) {
    this.out = []; // internal events for the Sieve (arguments.js)
    this.typer = typer;
    this.s = ''; // pending text
    this.i = 0; // cursor into s
    this.off = 0; // body offset of s[0]
    this.state = 0;
    this.end = -1; // the state in which the tap reads no more (it then keeps no text)
    this.calls = []; // the announced calls, once complete
    this.started = 0; // calls announced
    this.broken = -1; // where an announced call stopped being one: the block ends there
    this.doneAt = 0; // body offset where the last complete announced call ends
    this.callAt = 0; // body offset where the open (or last) announced call starts
    this.at = 0; // body offset where the open parameter (or head, or pair) starts
    this.open = false; // an announced call is open
    this.name = '';
    this.callId = null;
    this.args = {};
    this.keys = new Set();
    this.top = -1;
    this.other = false;
    this.key = '';
    this.val = null;
    this.vc = []; // characters of the open value gathered for one 'chars' event
    this.work = 0;
  }

  feed(piece) {
    if (this.state === this.end) return; // (it would only gather the rest of the body)
    if (this.i) {
      this.s = this.s.slice(this.i);
      this.off += this.i;
      this.i = 0;
    }
    this.s = this.s ? this.s + piece : piece;
    this.work += this.s.length; // (what the join copied: the pending text and the piece)
    while (this.broken < 0 && this.step(false));
    this.flushChars();
  }

  /** The body is complete (its closer, or the end of the output). */
  finish() {
    while (this.broken < 0 && this.step(true));
    this.flushChars();
  }

  // ---- calls and values ---------------------------------------------------------------

  begin(name, at, callId = null) {
    this.started += 1;
    this.open = true;
    this.name = name;
    this.callId = callId;
    this.callAt = at;
    this.args = {};
    this.keys = new Set();
    this.top = -1;
    this.other = false;
    this.out.push({ kind: 'begun', name, id: callId });
  }

  endCall(at) {
    this.out.push({ kind: 'done', input: this.args });
    this.calls.push(call(this.name, this.args, this.callId));
    this.open = false;
    this.doneAt = at;
  }

  /** R16.3: the announced call stops being one at `at`: it ends there with what it read. */
  fail(at) {
    if (this.val !== null) this.endValue();
    if (this.open) this.endCall(at);
    this.broken = at;
    return false;
  }

  /** A repeated key, or an array index after another key, would change text already sent (D37). */
  reorders(key) {
    if (this.keys.has(key)) return true;
    if (isIndexKey(key)) {
      if (this.other || Number(key) < this.top) return true;
      this.top = Number(key);
    } else {
      this.other = true;
    }
    this.keys.add(key);
    return false;
  }

  /** How the value of `key` streams: the family's way without a schema entry, `string` when the
   * schema keeps the text, else whole (R17.9). */
  how(key, family, string) {
    const t = this.typer;
    if (!t) return family;
    const k = t.kind(this.name, key);
    return k === 0 ? family : k === 1 ? string : HOLD;
  }

  beginValue(key, how) {
    this.key = key;
    this.val = new Value(how);
  }

  chars(t) {
    if (t && this.val !== null) {
      const got = this.val.add(t);
      if (got) this.vc.push(got);
    }
  }

  flushChars() {
    if (this.vc.length) {
      this.out.push({ kind: 'chars', key: this.key, text: this.vc.join('') });
      this.vc = [];
    }
  }

  endValue() {
    const val = this.val;
    if (val === null) return;
    this.flushChars();
    this.val = null;
    const text = val.text();
    const v = this.value(text);
    this.work += text.length;
    setKey(this.args, this.key, v);
    this.out.push({ kind: 'param', key: this.key, value: v });
  }

  value(raw) {
    return raw;
  }
}

/** Do the calls a grammar read begin with the announced ones, exactly (names, ids, arguments)? */
function sameCalls(announced, read) {
  if (read.length < announced.length) return false;
  for (let i = 0; i < announced.length; i++) {
    const a = announced[i];
    const b = read[i];
    if (a.name !== b.name || (a.id ?? null) !== (b.id ?? null) || jsonText(a.input) !== jsonText(b.input)) return false;
  }
  return true;
}

module.exports = {
  ASIS, BLANK, BlockTap, GLM, HEAD_LIMIT, JSON_WS, NAME_UNITS, QWEN, TRIM, Value,
  call, isHigh, isLow, lstrip, prefix, rstrip, sameCalls, skip, starts,
};
