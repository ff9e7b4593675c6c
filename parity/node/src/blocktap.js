'use strict';
/**
 * Incremental arguments (R16) for the block engine (R17): a block's body read as it arrives.
 * Port of python/callsieve/blocktap.py, class for class; read the module docstring there.
 * Names are bounded in code points, as the grammars' `u` regexes count: the taps announce only
 * names `nameOk` accepts.
 */

const strings = require('./strings');
const values = require('./values');
const { isIndexKey } = require('./arguments');
const { kimiName, nameOk, oneNewline, rawValue, setKey } = require('./blocks');
const { jsonText } = require('./jsontext');

const BLANK = strings.JS_SPACE;
const NOT_NAME = strings.JS_SPACE + '<>"\'`{}[],;';
const JSON_WS = ' \t\n\r';
const NUMBER_CHARS = '0123456789.eE+-';
const HEAD_LIMIT = 1024; // a head (a tag's attributes, an id) still undecided past this is no call
const NAME_UNITS = 512; // a name longer than this in code units is longer than 256 code points

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
    if (this.i) {
      this.s = this.s.slice(this.i);
      this.off += this.i;
      this.i = 0;
    }
    this.s = this.s ? this.s + piece : piece;
    this.work += piece.length;
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

// ---- R17.2 Qwen3-Coder / Seed-OSS ---------------------------------------------------------------

const FN = '<function=';
const FN_END = '</function>';
const P = '<parameter=';
const P_END = '</parameter>';
const CALL_ENDS = [FN, FN_END];
const PARAM_STOPS = [P_END, P, FN, FN_END];
const IN_CALL = [P, FN_END, FN];

const F = Object.freeze({ BETWEEN: 0, HEAD: 1, SKIP: 2, PARAMS: 3, KEY: 4, VALUE: 5, DONE: 6 });

/** `<function=NAME>` `<parameter=KEY>VALUE</parameter>` … `</function>` (blocks.functionTags). */
class FunctionTap extends BlockTap {
  constructor(typer) {
    super(typer);
    this.head = [];
    this.headState = 0;
    this.keybuf = [];
  }

  step(final) {
    switch (this.state) {
      case F.VALUE:
        return this._value(final);
      case F.PARAMS:
        return this._params(final);
      case F.BETWEEN:
        return this._between(final);
      case F.HEAD:
        return this._head(final);
      case F.KEY:
        return this._key(final);
      case F.SKIP:
        return this._skip(final);
      default:
        return false;
    }
  }

  _between(final) {
    const s = this.s;
    const j = (this.i = skip(s, this.i));
    if (j >= s.length) return false;
    if (s.startsWith(FN, j)) {
      this.at = this.off + j;
      this.i = j + FN.length;
      this.state = F.HEAD;
      this.head = [];
      this.headState = 0;
      return true;
    }
    if (!final && prefix(s, j, [FN])) return false;
    this.state = F.DONE; // text between calls: the grammar reports the rest
    return false;
  }

  /** The name: blanks, name characters, blanks, `>` (anything else is no name). */
  _head(final) {
    const s = this.s;
    const n = s.length;
    const head = this.head;
    let i = this.i;
    while (i < n) {
      const ch = s[i];
      if (ch === '>') {
        this.i = i + 1;
        const name = head.join('');
        if (nameOk(name)) {
          this.begin(name, this.at);
          this.state = F.PARAMS;
        } else {
          this.state = F.SKIP;
        }
        return true;
      }
      if (BLANK.includes(ch)) {
        if (this.headState === 1) this.headState = 2;
      } else if (this.headState === 2 || NOT_NAME.includes(ch) || head.length >= NAME_UNITS) {
        this.i = i;
        this.state = F.SKIP; // not announced: the grammar reads it
        return true;
      } else {
        this.headState = 1;
        head.push(ch);
      }
      i++;
    }
    this.i = i;
    return false;
  }

  /** A call that is not announced, to its end: `</function>` or the next `<function=`. */
  _skip(final) {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const k = s.indexOf('<', i);
      if (k < 0) {
        this.i = s.length;
        return false;
      }
      const m = starts(s, k, CALL_ENDS);
      if (m) {
        this.i = m === FN_END ? k + FN_END.length : k;
        this.state = F.BETWEEN;
        return true;
      }
      if (!final && prefix(s, k, CALL_ENDS)) {
        this.i = k;
        return false;
      }
      i = k + 1;
    }
  }

  _params(final) {
    const s = this.s;
    const j = (this.i = skip(s, this.i));
    if (j >= s.length) {
      if (final) {
        this.endCall(this.off + j);
        this.state = F.DONE;
      }
      return false;
    }
    const m = starts(s, j, IN_CALL);
    if (m === P) {
      this.at = this.off + j;
      this.i = j + P.length;
      this.keybuf = [];
      this.state = F.KEY;
      return true;
    }
    if (m) {
      const end = m === FN_END ? j + FN_END.length : j;
      this.endCall(this.off + end);
      this.i = end;
      this.state = F.BETWEEN;
      return true;
    }
    if (!final && prefix(s, j, IN_CALL)) return false;
    return this.fail(this.off + j); // text where a parameter belongs
  }

  _key(final) {
    const s = this.s;
    const i = this.i;
    const gt = s.indexOf('>', i);
    let lt = s.indexOf('<', i);
    while (lt >= 0 && (gt < 0 || lt < gt)) {
      if (starts(s, lt, CALL_ENDS)) return this.fail(this.at); // the tag never closes
      if (!final && prefix(s, lt, CALL_ENDS)) {
        this.keybuf.push(s.slice(i, lt));
        this.i = lt;
        return false;
      }
      lt = s.indexOf('<', lt + 1);
    }
    if (gt < 0) {
      this.keybuf.push(s.slice(i));
      this.i = s.length;
      return final ? this.fail(this.at) : false;
    }
    this.keybuf.push(s.slice(i, gt));
    const key = strings.trim(this.keybuf.join(''));
    this.keybuf = [];
    if (!key || this.reorders(key)) return this.fail(this.at);
    this.i = gt + 1;
    this.beginValue(key, this.how(key, QWEN, QWEN));
    this.state = F.VALUE;
    return true;
  }

  _value(final) {
    const s = this.s;
    const i = this.i;
    const n = s.length;
    let k = i;
    for (;;) {
      k = s.indexOf('<', k);
      if (k < 0) {
        this.chars(s.slice(i));
        this.i = n;
        if (final) {
          this.endValue();
          this.state = F.PARAMS;
          return true;
        }
        return false;
      }
      if (k + 1 < n && !'/pf'.includes(s[k + 1])) {
        k += 1; // (a `<` of the value: no marker starts so)
        continue;
      }
      const m = starts(s, k, PARAM_STOPS);
      if (m) {
        this.chars(s.slice(i, k));
        this.endValue();
        this.i = m === P_END ? k + P_END.length : k;
        this.state = F.PARAMS;
        return true;
      }
      if (!final && prefix(s, k, PARAM_STOPS)) {
        this.chars(s.slice(i, k));
        this.i = k;
        return false;
      }
      k += 1;
    }
  }

  value(raw) {
    return rawValue(this.typer, this.name, this.key, oneNewline(raw));
  }
}

// ---- R17.3 GLM ------------------------------------------------------------------------------------

const K = '<arg_key>';
const K_END = '</arg_key>';
const V = '<arg_value>';
const V_END = '</arg_value>';

const G = Object.freeze({ NAME: 0, PAIRS: 1, KEY: 2, BETWEEN: 3, VALUE: 4, DONE: 5 });

/** NAME `<arg_key>K</arg_key><arg_value>V</arg_value>` … (blocks.argPairs): the name is final at
 * the first `<arg_key>`. */
class PairTap extends BlockTap {
  constructor(typer) {
    super(typer);
    this.head = [];
    this.headState = 0;
    this.keybuf = [];
  }

  step(final) {
    switch (this.state) {
      case G.VALUE:
        return this._value(final);
      case G.PAIRS:
        return this._pairs(final);
      case G.KEY:
        return this._key(final);
      case G.BETWEEN:
        return this._between(final);
      case G.NAME:
        return this._name(final);
      default:
        return false;
    }
  }

  _name(final) {
    const s = this.s;
    const n = s.length;
    const head = this.head;
    let i = this.i;
    while (i < n) {
      const ch = s[i];
      if (ch === '<') {
        if (s.startsWith(K, i)) {
          const name = head.join('');
          if (nameOk(name)) {
            this.begin(name, 0);
            this.state = G.PAIRS;
            this.i = i;
            return true;
          }
        } else if (!final && prefix(s, i, [K])) {
          this.i = i;
          return false;
        }
        this.state = G.DONE; // no name before a pair: the grammar reads it
        return false;
      }
      if (BLANK.includes(ch)) {
        if (this.headState === 1) this.headState = 2;
      } else if (this.headState === 2 || NOT_NAME.includes(ch) || head.length >= NAME_UNITS) {
        this.state = G.DONE;
        return false;
      } else {
        this.headState = 1;
        head.push(ch);
      }
      i++;
    }
    this.i = i;
    return false; // (a name alone is a call with input {}, announced with the block)
  }

  _pairs(final) {
    const s = this.s;
    const j = (this.i = skip(s, this.i));
    if (j >= s.length) {
      if (final) {
        this.endCall(this.off + j);
        this.state = G.DONE;
      }
      return false;
    }
    if (s.startsWith(K, j)) {
      this.at = this.off + j;
      this.i = j + K.length;
      this.keybuf = [];
      this.state = G.KEY;
      return true;
    }
    if (!final && prefix(s, j, [K])) return false;
    return this.fail(this.off + j); // a broken argument pair
  }

  _key(final) {
    const s = this.s;
    const i = this.i;
    const k = s.indexOf(K_END, i);
    if (k < 0) {
      const cut = s.lastIndexOf('<');
      const keep = cut >= Math.max(i, s.length - K_END.length + 1) && prefix(s, cut, [K_END]) ? cut : s.length;
      this.keybuf.push(s.slice(i, keep));
      this.i = keep;
      return final ? this.fail(this.at) : false;
    }
    this.keybuf.push(s.slice(i, k));
    const key = strings.trim(this.keybuf.join(''));
    this.keybuf = [];
    if (this.reorders(key)) return this.fail(this.at);
    this.key = key;
    this.i = k + K_END.length;
    this.state = G.BETWEEN;
    return true;
  }

  _between(final) {
    const s = this.s;
    const j = (this.i = skip(s, this.i));
    if (j >= s.length) return final ? this.fail(this.at) : false;
    if (s.startsWith(V, j)) {
      this.i = j + V.length;
      this.beginValue(this.key, this.how(this.key, GLM, ASIS));
      this.state = G.VALUE;
      return true;
    }
    if (!final && prefix(s, j, [V])) return false;
    return this.fail(this.at);
  }

  _value(final) {
    const s = this.s;
    const i = this.i;
    const k = s.indexOf(V_END, i);
    if (k < 0) {
      const cut = s.lastIndexOf('<');
      const keep = cut >= Math.max(i, s.length - V_END.length + 1) && !final && prefix(s, cut, [V_END]) ? cut : s.length;
      this.chars(s.slice(i, keep));
      this.i = keep;
      if (final) return this.fail(this.off + s.length); // cut inside the value: it ends so (R16.3)
      return false;
    }
    this.chars(s.slice(i, k));
    this.endValue();
    this.i = k + V_END.length;
    this.state = G.PAIRS;
    return true;
  }

  value(raw) {
    return rawValue(this.typer, this.name, this.key, raw, true);
  }
}

// ---- R17.4 MiniMax ------------------------------------------------------------------------------

const INV = '<invoke';
const INV_END = '</invoke>';
const PARAM = '<parameter';
const INV_STOPS = [INV_END, INV];
const VALUE_STOPS = [P_END, INV_END, INV];

function isLow(c) {
  return c >= 0xdc00 && c <= 0xdfff;
}

function isHigh(c) {
  return c >= 0xd800 && c <= 0xdbff;
}

/**
 * `[ \t]+name=` then `"N"`, `'N'` or a bare N (at most 256 code points), `[ \t]*>` (blocks'
 * ATTR) after a tag's word, matched as it arrives. `feed` returns how many characters it took;
 * `state` says where it stands (1: matched, -1: no match, 0: not yet).
 */
class Attr {
  constructor() {
    this.phase = 0; // 0 blanks, then `name=`; 1 the value's first character; 2 in the value; 3 after it
    this.blanks = false;
    this.matched = 0;
    this.quote = '';
    this.name = [];
    this.cps = 0; // code points of the name
    this.state = 0;
  }

  _push(ch) {
    const last = this.name.length ? this.name[this.name.length - 1].charCodeAt(0) : 0;
    if (!(isLow(ch.charCodeAt(0)) && isHigh(last))) this.cps += 1;
    this.name.push(ch);
  }

  _full(ch) {
    // a 257th code point (a low half completing a pair adds none)
    const last = this.name.length ? this.name[this.name.length - 1].charCodeAt(0) : 0;
    return this.cps >= 256 && !(isLow(ch.charCodeAt(0)) && isHigh(last));
  }

  feed(s, i) {
    const n = s.length;
    for (let j = i; j < n; j++) {
      const ch = s[j];
      const ph = this.phase;
      if (ph === 0) {
        if (this.matched === 0 && (ch === ' ' || ch === '\t')) this.blanks = true;
        else if (this.blanks && ch === 'name='[this.matched]) {
          this.matched += 1;
          if (this.matched === 5) this.phase = 1;
        } else return this._no(j, i);
      } else if (ph === 1) {
        if (ch === '"' || ch === "'") this.quote = ch;
        else if (' \t\n\r<>'.includes(ch)) return this._no(j, i);
        else this._push(ch);
        this.phase = 2;
      } else if (ph === 2) {
        const q = this.quote;
        if (q) {
          if (ch === q) this.phase = 3;
          else if ('<>\n'.includes(ch) || this._full(ch)) return this._no(j, i);
          else this._push(ch);
        } else if (ch === ' ' || ch === '\t') this.phase = 3;
        else if (ch === '>') {
          this.state = 1;
          return j + 1 - i;
        } else if ('\n\r"\'<'.includes(ch) || this._full(ch)) return this._no(j, i);
        else this._push(ch);
      } else if (ch === '>') {
        this.state = 1;
        return j + 1 - i;
      } else if (ch !== ' ' && ch !== '\t') return this._no(j, i);
    }
    return n - i;
  }

  _no(j, i) {
    this.state = -1;
    return j - i;
  }
}

const M = Object.freeze({ BETWEEN: 0, HEAD: 1, NOT: 2, SKIP: 3, PARAMS: 4, PHEAD: 5, VALUE: 6, DONE: 7 });

/** `<invoke name="N">` `<parameter name="K">V</parameter>` … `</invoke>` (blocks.invokeTags). */
class InvokeTap extends BlockTap {
  constructor(typer) {
    super(typer);
    this.attr = new Attr();
    this.headLen = 0;
  }

  step(final) {
    switch (this.state) {
      case M.VALUE:
        return this._value(final);
      case M.PARAMS:
        return this._params(final);
      case M.BETWEEN:
        return this._between(final);
      case M.HEAD:
      case M.PHEAD:
        return this._head(final);
      case M.NOT:
      case M.SKIP:
        return this._skip(final);
      default:
        return false;
    }
  }

  _between(final) {
    const s = this.s;
    const j = (this.i = skip(s, this.i));
    if (j >= s.length) return false;
    if (s.startsWith(INV, j)) {
      this.at = this.off + j;
      this.i = j + INV.length;
      this.attr = new Attr();
      this.headLen = 0;
      this.state = M.HEAD;
      return true;
    }
    if (!final && prefix(s, j, [INV])) return false;
    this.i = j + 1;
    this.state = M.NOT; // not an invoke: to the next `<invoke`
    return true;
  }

  _head(final) {
    const s = this.s;
    const i = this.i;
    const a = this.attr;
    const took = a.feed(s, i);
    this.i = i + took;
    this.headLen += took;
    if (a.state === 0) {
      if (!final && this.headLen <= HEAD_LIMIT) return false;
      if (this.state === M.HEAD && !final) {
        this.state = M.DONE; // a head this long: no more announcements in this block
        return false;
      }
      a.state = -1;
    }
    const name = strings.trim(a.name.join(''));
    if (this.state === M.HEAD) {
      if (a.state > 0 && nameOk(name)) {
        this.begin(name, this.at);
        this.state = M.PARAMS;
      } else if (a.state > 0) {
        this.state = M.SKIP; // an invalid name: the grammar reports it
      } else {
        this.state = M.NOT; // (what the head took holds no `<`: the search goes on here)
      }
      return true;
    }
    if (a.state < 0 || !name || this.reorders(name)) return this.fail(this.at); // a broken parameter
    this.beginValue(name, this.how(name, TRIM, TRIM));
    this.state = M.VALUE;
    return true;
  }

  /** To the next `<invoke` (not an invoke), or to `</invoke>` or `<invoke` (not announced). */
  _skip(final) {
    const s = this.s;
    let i = this.i;
    const stops = this.state === M.NOT ? [INV] : INV_STOPS;
    for (;;) {
      const k = s.indexOf('<', i);
      if (k < 0) {
        this.i = s.length;
        return false;
      }
      const m = starts(s, k, stops);
      if (m) {
        this.i = m === INV_END ? k + INV_END.length : k;
        this.state = M.BETWEEN;
        return true;
      }
      if (!final && prefix(s, k, stops)) {
        this.i = k;
        return false;
      }
      i = k + 1;
    }
  }

  _params(final) {
    const s = this.s;
    const j = (this.i = skip(s, this.i));
    if (j >= s.length) {
      if (final) {
        this.endCall(this.off + j);
        this.state = M.DONE;
      }
      return false;
    }
    const stops = [INV_END, INV, PARAM];
    const m = starts(s, j, stops);
    if (m === PARAM) {
      this.at = this.off + j;
      this.i = j + PARAM.length;
      this.attr = new Attr();
      this.headLen = 0;
      this.state = M.PHEAD;
      return true;
    }
    if (m) {
      const end = m === INV_END ? j + INV_END.length : j;
      this.endCall(this.off + end);
      this.i = end;
      this.state = M.BETWEEN;
      return true;
    }
    if (!final && prefix(s, j, stops)) return false;
    return this.fail(this.off + j);
  }

  _value(final) {
    const s = this.s;
    const i = this.i;
    const n = s.length;
    let k = i;
    for (;;) {
      k = s.indexOf('<', k);
      if (k < 0) {
        this.chars(s.slice(i));
        this.i = n;
        return final ? this.fail(this.off + n) : false;
      }
      if (k + 1 < n && !'/i'.includes(s[k + 1])) {
        k += 1; // (a `<` of the value: no marker starts so)
        continue;
      }
      const m = starts(s, k, VALUE_STOPS);
      if (m === P_END) {
        this.chars(s.slice(i, k));
        this.endValue();
        this.i = k + P_END.length;
        this.state = M.PARAMS;
        return true;
      }
      if (m) {
        // the invoke ends inside the value: it ends there, with the value so far
        this.chars(s.slice(i, k));
        this.i = k;
        return this.fail(this.off + k);
      }
      if (!final && prefix(s, k, VALUE_STOPS)) {
        this.chars(s.slice(i, k));
        this.i = k;
        return false;
      }
      k += 1;
    }
  }

  value(raw) {
    return rawValue(this.typer, this.name, this.key, strings.trim(raw));
  }
}

// ---- JSON arguments (Kimi-K2, Hermes) -------------------------------------------------------------

const J = Object.freeze({
  OPEN: 0, // before the object
  FIRST: 1, // after `{`: a key or `}`
  NEXT: 2, // after `,`: a key
  KEY: 3, // in a key string
  COLON: 4,
  VALUE: 5, // before a value
  STRING: 6, // in a string value (streams)
  OTHER: 7, // in another value (whole at its end)
  AFTER: 8, // after a value: `,` or `}`
  END: 9, // the object closed
  BAD: 10, // not a JSON object (from `badAt` on)
});

const STRING_STOP = /["\\\x00-\x1f<]/g;
const OTHER_STOP = /["\\{}[\]<,\x00-\x1f \t\n\r]/g;
const ESC = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const ESC_CHARS = '"\\/bfnrt';
const HEX = /[0-9a-fA-F]{4}/y;
const HEX_DIGITS = '0123456789abcdefABCDEF';

function search(re, s, i) {
  re.lastIndex = i;
  const m = re.exec(s);
  return m === null ? -1 : m.index;
}

function hexAt(s, i) {
  HEX.lastIndex = i;
  return HEX.test(s);
}

function allHex(s) {
  for (const c of s) if (!HEX_DIGITS.includes(c)) return false;
  return true;
}

/** Can `t` still begin a `\uXXXX` escape? */
function maybeLow(t) {
  return '\\u'.startsWith(t.slice(0, 2)) && allHex(t.slice(2));
}

/**
 * A JSON object read as it arrives: its top-level string values decoded as they come, its other
 * values whole at their end (decoded by values.jsonValue, as the grammar decodes). It reads the
 * tap's text and stops at one of `stops`. With `outer`, it reads one key or one value of an
 * enclosing object for the tap instead (`got`), announcing nothing.
 */
class JsonArgs {
  constructor(stops, state = J.OPEN, outer = false) {
    this.state = state;
    this.stops = stops;
    this.outer = outer;
    this.buf = [];
    this.depth = 0;
    this.inStr = false;
    this.at = 0;
    this.badAt = -1;
    this.got = null;
  }

  /** Read on from tap.s[tap.i]; false: wait, or the object ended (END), or it is no object (BAD). */
  step(tap, final) {
    const st = this.state;
    if (st === J.STRING) return this._string(tap, final);
    if (st === J.OTHER) return this._other(tap, final);
    if (st === J.KEY) return this._key(tap, final);
    if (st === J.END || st === J.BAD) return false;
    const s = tap.s;
    const j = (tap.i = skip(s, tap.i, JSON_WS));
    if (j >= s.length) return final ? this._bad(tap, j) : false;
    const ch = s[j];
    if (st === J.OPEN) {
      if (ch !== '{') return this._bad(tap, j);
      tap.i = j + 1;
      this.state = J.FIRST;
      return true;
    }
    if (st === J.FIRST || st === J.NEXT) {
      if (ch === '"') {
        this.at = tap.off + j;
        tap.i = j + 1;
        this.buf = [];
        this.state = J.KEY;
        return true;
      }
      if (ch === '}' && st === J.FIRST) {
        tap.i = j + 1;
        this.state = J.END;
        return false;
      }
      return this._bad(tap, j);
    }
    if (st === J.COLON) {
      if (ch !== ':') return this._bad(tap, j);
      tap.i = j + 1;
      this.state = J.VALUE;
      return true;
    }
    if (st === J.VALUE) {
      this.at = tap.off + j;
      if (ch === '"') {
        tap.i = j + 1;
        tap.beginValue(tap.key, ASIS);
        this.state = J.STRING;
        return true;
      }
      this.buf = [];
      this.depth = 0;
      this.inStr = false;
      this.state = J.OTHER;
      return true;
    }
    // AFTER
    if (ch === ',') {
      tap.i = j + 1;
      this.state = J.NEXT;
      return true;
    }
    if (ch === '}') {
      tap.i = j + 1;
      this.state = J.END;
      return false;
    }
    return this._bad(tap, j);
  }

  /** Not a JSON object: from `at` (the open key or value), else from s[j]. */
  _bad(tap, j, at = -1) {
    this.state = J.BAD;
    this.badAt = at >= 0 ? at : tap.off + j;
    tap.i = j;
    return false;
  }

  /** At a `<`: 1 a stop marker, 0 not one, -1 maybe (wait). */
  _stopAt(s, k, final) {
    if (starts(s, k, this.stops)) return 1;
    if (!final && prefix(s, k, this.stops)) return -1;
    return 0;
  }

  /** The closing quote of the string going on at s[i]: its index; -1 not yet; -2 not a JSON
   * string; -(k + 3) a stop marker (or its prefix: wait) at k. */
  _stringEnd(s, i, final) {
    const n = s.length;
    for (;;) {
      const k = search(STRING_STOP, s, i);
      if (k < 0) return -1;
      const ch = s[k];
      if (ch === '"') return k;
      if (ch === '\\') {
        if (k + 1 >= n) return final ? -2 : -1;
        const e = s[k + 1];
        if (e === 'u') {
          if (k + 6 > n && allHex(s.slice(k + 2))) return final ? -2 : -1;
          if (!hexAt(s, k + 2)) return -2;
          i = k + 6;
        } else if (ESC_CHARS.includes(e)) {
          i = k + 2;
        } else {
          return -2;
        }
        continue;
      }
      if (ch === '<') {
        if (this._stopAt(s, k, final)) return -(k + 3);
        i = k + 1;
        continue;
      }
      return -2; // a control character
    }
  }

  _key(tap, final) {
    const s = tap.s;
    const i = tap.i;
    let k = this._stringEnd(s, i, final);
    if (k === -1) {
      this.buf.push(s.slice(i));
      tap.i = s.length;
      return final ? this._bad(tap, s.length, this.at) : false;
    }
    if (k === -2) return this._bad(tap, i, this.at);
    if (k < -2) {
      k = -k - 3;
      this.buf.push(s.slice(i, k));
      tap.i = k;
      return starts(s, k, this.stops) ? this._bad(tap, k, this.at) : false;
    }
    this.buf.push(s.slice(i, k));
    tap.i = k + 1;
    const [ok, key] = values.jsonValue('"' + this.buf.join('') + '"');
    this.buf = [];
    if (!ok) return this._bad(tap, k, this.at);
    if (this.outer) this.got = key;
    else if (tap.reorders(key)) return this._bad(tap, k, this.at);
    else tap.key = key;
    this.state = J.COLON;
    return true;
  }

  /** A top-level string value: its characters go out decoded, a partial escape held. */
  _string(tap, final) {
    const s = tap.s;
    const n = s.length;
    let i = tap.i;
    for (;;) {
      const k = search(STRING_STOP, s, i);
      if (k < 0) {
        tap.chars(s.slice(i));
        tap.i = n;
        return final ? this._bad(tap, n) : false;
      }
      tap.chars(s.slice(i, k));
      tap.i = k;
      const ch = s[k];
      if (ch === '"') {
        tap.i = k + 1;
        tap.endValue();
        this.state = J.AFTER;
        return true;
      }
      if (ch === '<') {
        const stop = this._stopAt(s, k, final);
        if (stop) return stop > 0 ? this._bad(tap, k) : false;
        tap.chars('<');
        i = k + 1;
        continue;
      }
      if (ch !== '\\') return this._bad(tap, k); // a control character: not JSON
      if (k + 1 >= n) return final ? this._bad(tap, k) : false;
      const e = s[k + 1];
      if (ESC_CHARS.includes(e)) {
        tap.chars(ESC[e]);
        i = k + 2;
        continue;
      }
      if (e !== 'u') return this._bad(tap, k);
      if (k + 6 > n && allHex(s.slice(k + 2))) return final ? this._bad(tap, k) : false;
      if (!hexAt(s, k + 2)) return this._bad(tap, k);
      let text = String.fromCharCode(parseInt(s.slice(k + 2, k + 6), 16));
      const cp = text.charCodeAt(0);
      i = k + 6;
      if (isHigh(cp)) {
        // a high surrogate: JSON pairs it with a low one next
        const nxt = s.slice(k + 6, k + 12);
        if (nxt.length < 6 && !final && maybeLow(nxt)) return false;
        if (nxt.length === 6 && nxt.startsWith('\\u') && hexAt(nxt, 2)) {
          const lo = parseInt(nxt.slice(2), 16);
          if (isLow(lo)) {
            text += String.fromCharCode(lo);
            i = k + 12;
          }
        }
      }
      tap.chars(text);
    }
  }

  /** Another value: its text to its end (its container's close, or a scalar's delimiter). */
  _other(tap, final) {
    const s = tap.s;
    const n = s.length;
    let i = tap.i;
    for (;;) {
      if (this.inStr) {
        let k = this._stringEnd(s, i, final);
        if (k === -1) {
          this.buf.push(s.slice(i));
          tap.i = n;
          return final ? this._bad(tap, n, this.at) : false;
        }
        if (k === -2) return this._bad(tap, i, this.at);
        if (k < -2) {
          k = -k - 3;
          this.buf.push(s.slice(i, k));
          tap.i = k;
          return starts(s, k, this.stops) ? this._bad(tap, k, this.at) : false;
        }
        this.buf.push(s.slice(i, k + 1));
        i = k + 1;
        this.inStr = false;
        continue;
      }
      const k = search(OTHER_STOP, s, i);
      if (k < 0) {
        this.buf.push(s.slice(i));
        tap.i = n;
        return final ? this._bad(tap, n, this.at) : false;
      }
      const ch = s[k];
      if (ch === '<') {
        const stop = this._stopAt(s, k, final);
        if (stop) {
          this.buf.push(s.slice(i, k));
          tap.i = k;
          return stop > 0 ? this._bad(tap, k, this.at) : false;
        }
      }
      if (ch === '"') {
        this.inStr = true;
      } else if (ch === '{' || ch === '[') {
        this.depth += 1;
      } else if ((ch === '}' || ch === ']') && this.depth > 0) {
        this.depth -= 1;
        if (this.depth === 0) {
          this.buf.push(s.slice(i, k + 1));
          tap.i = k + 1;
          return this._done(tap);
        }
      } else if (this.depth === 0 && ch !== '<') {
        this.buf.push(s.slice(i, k)); // a scalar ends here
        tap.i = k;
        return this._done(tap);
      }
      this.buf.push(s.slice(i, k + 1));
      i = k + 1;
    }
  }

  _done(tap) {
    const text = this.buf.join('');
    this.buf = [];
    tap.work += text.length;
    const [ok, v] = values.jsonValue(text);
    if (!ok) return this._bad(tap, tap.i, this.at);
    if (this.outer) {
      this.got = v;
    } else {
      setKey(tap.args, tap.key, v);
      tap.out.push({ kind: 'param', key: tap.key, value: v });
    }
    this.state = J.AFTER;
    return true;
  }
}

// ---- R17.5 Kimi-K2 --------------------------------------------------------------------------------

const KB = '<|tool_call_begin|>';
const KA = '<|tool_call_argument_begin|>';
const KE = '<|tool_call_end|>';
const K_STOPS = [KE, KB];

const KI = Object.freeze({ BETWEEN: 0, ID: 1, SKIP: 2, ARGS: 3, TAIL: 4 });

/** `<|tool_call_begin|>ID<|tool_call_argument_begin|>{…}<|tool_call_end|>` (blocks.kimiCalls):
 * the name is final at the argument marker. */
class KimiTap extends BlockTap {
  constructor(typer) {
    super(typer);
    this.idbuf = [];
    this.js = new JsonArgs(K_STOPS);
    this.blank = false; // a blank JSON does not allow (blank arguments are still {})
  }

  step(final) {
    switch (this.state) {
      case KI.ARGS:
        return this._args(final);
      case KI.BETWEEN:
        return this._between(final);
      case KI.ID:
        return this._id(final);
      case KI.SKIP:
        return this._skip(final);
      default:
        return this._tail(final);
    }
  }

  _between(final) {
    const s = this.s;
    const j = (this.i = skip(s, this.i));
    if (j >= s.length) return false;
    if (s.startsWith(KB, j)) {
      this.at = this.off + j;
      this.i = j + KB.length;
      this.idbuf = [];
      this.state = KI.ID;
      return true;
    }
    if (!final && prefix(s, j, [KB])) return false;
    this.state = KI.SKIP; // text between calls: to the next call
    return true;
  }

  _id(final) {
    const s = this.s;
    const i = this.i;
    const k = s.indexOf('<', i);
    if (k < 0) {
      this.idbuf.push(s.slice(i));
      this.i = s.length;
      return false;
    }
    this.idbuf.push(s.slice(i, k));
    this.i = k;
    if (s.startsWith(KA, k)) {
      const callId = strings.trim(this.idbuf.join(''));
      const name = kimiName(callId);
      if (nameOk(name)) {
        this.i = k + KA.length;
        this.begin(name, this.at, callId);
        this.js = new JsonArgs(K_STOPS);
        this.blank = false;
        this.state = KI.ARGS;
        return true;
      }
    } else if (!final && prefix(s, k, [KA])) {
      return false;
    }
    this.state = KI.SKIP; // not announced: the grammar reads it
    return true;
  }

  /** To the next `<|tool_call_begin|>`. */
  _skip(final) {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const k = s.indexOf('<', i);
      if (k < 0) {
        this.i = s.length;
        return false;
      }
      if (s.startsWith(KB, k)) {
        this.i = k;
        this.state = KI.BETWEEN;
        return true;
      }
      if (!final && prefix(s, k, [KB])) {
        this.i = k;
        return false;
      }
      i = k + 1;
    }
  }

  _args(final) {
    const js = this.js;
    const s = this.s;
    if (js.state === J.OPEN) {
      const j = skip(s, this.i);
      if (j > this.i && rstrip(lstrip(s.slice(this.i, j), JSON_WS), JSON_WS)) this.blank = true;
      this.i = j;
      if (j >= s.length) return final ? this.fail(this.off + j) : false;
      if (s.startsWith(KE, j)) {
        this.state = KI.TAIL; // blank arguments: {}
        return true;
      }
      if (!final && prefix(s, j, [KE])) return false;
      if (this.blank) return this.fail(this.off + j);
    }
    if (js.step(this, final)) return true;
    if (js.state === J.END) {
      this.state = KI.TAIL;
      return true;
    }
    if (js.state === J.BAD) return this.fail(js.badAt);
    return false;
  }

  _tail(final) {
    const s = this.s;
    const j = (this.i = skip(s, this.i, JSON_WS));
    if (j >= s.length) return final ? this.fail(this.off + j) : false;
    if (s.startsWith(KE, j)) {
      this.i = j + KE.length;
      this.endCall(this.off + this.i);
      this.state = KI.BETWEEN;
      return true;
    }
    if (!final && prefix(s, j, [KE])) return false;
    return this.fail(this.off + j); // text after the object: no JSON object, or no end
  }
}

// ---- R17.1 Hermes ---------------------------------------------------------------------------------

const H = Object.freeze({
  OPEN: 0,
  FIRST: 1,
  NEXT: 2,
  KEY: 3,
  COLON: 4,
  VALUE: 5,
  READ: 6, // another key's value (or the name, the id), read whole
  ARGS: 7, // the arguments object, streaming
  AFTER: 8,
  TAIL: 9, // after the object: blanks only
  QUIT: 10, // no early announcement in this block
});

/** `{"name": N, "arguments": {…}}` (blocks.jsonCall): announced when `arguments` (or
 * `parameters`) opens an object after a name; other orders, arguments written as a string and an
 * array of calls are announced with the block (D38). */
class HermesTap extends BlockTap {
  constructor(typer) {
    super(typer);
    this.js = new JsonArgs([]);
    this.rd = new JsonArgs([], J.KEY, true); // an outer key or value
    this.hkey = '';
    this.spelled = ''; // the name read (trimmed; '' none)
    this.argsKey = ''; // `arguments` or `parameters`: the key whose object streams
    this.hid = null; // the `id` read
    this.pending = null; // the call, its arguments complete, its object open
  }

  step(final) {
    const st = this.state;
    if (st === H.ARGS) return this._args(final);
    if (st === H.KEY || st === H.READ) return this._read(final);
    if (st === H.QUIT) return false;
    const s = this.s;
    const j = (this.i = skip(s, this.i, JSON_WS));
    if (j >= s.length) {
      if (final && st !== H.TAIL) return this._stop(j);
      return false;
    }
    const ch = s[j];
    if (st === H.OPEN) {
      if (ch !== '{') return this._quit(); // an array of calls (or no JSON): read with the block
      this.i = j + 1;
      this.state = H.FIRST;
      return true;
    }
    if (st === H.FIRST || st === H.NEXT) {
      if (ch === '"') {
        this.rd = new JsonArgs([], J.KEY, true);
        this.rd.at = this.off + j;
        this.i = j + 1;
        this.state = H.KEY;
        return true;
      }
      if (ch === '}' && st === H.FIRST) {
        this.i = j + 1;
        return this._closed();
      }
      return this._stop(j);
    }
    if (st === H.COLON) {
      if (ch !== ':') return this._stop(j);
      this.i = j + 1;
      this.state = H.VALUE;
      return true;
    }
    if (st === H.VALUE) return this._value(j, ch);
    if (st === H.AFTER) {
      if (ch === ',') {
        this.i = j + 1;
        this.state = H.NEXT;
        return true;
      }
      if (ch === '}') {
        this.i = j + 1;
        return this._closed();
      }
    }
    return this._stop(j); // (after the object: text, so no JSON)
  }

  _quit() {
    this.state = H.QUIT;
    return false;
  }

  /** Not JSON from s[j]: an announced call ends (R16.3); else the block reads it. */
  _stop(j) {
    return this.started ? this.fail(this.off + j) : this._quit();
  }

  fail(at) {
    this.callId = this.hid;
    if (this.pending !== null) {
      const p = this.pending;
      this.pending = null;
      this.calls.push(call(p.name, p.input, this.hid));
    }
    return super.fail(at);
  }

  _closed() {
    if (this.pending !== null) {
      const p = this.pending;
      this.pending = null;
      this.calls.push(call(p.name, p.input, this.hid));
      this.doneAt = this.off + this.i;
    }
    this.state = H.TAIL;
    return true;
  }

  _value(j, ch) {
    const key = this.hkey;
    if (key === 'arguments' || key === 'parameters') {
      if (this.started) {
        if (key === 'arguments' || this.argsKey === 'parameters') return this.fail(this.at); // it would replace the arguments sent
      } else if (this.spelled && ch === '{') {
        this.argsKey = key;
        this.i = j + 1;
        this.begin(this.spelled, 0, this.hid);
        this.js = new JsonArgs([], J.FIRST);
        this.state = H.ARGS;
        return true;
      } else {
        return this._quit(); // arguments before the name, or not an object
      }
    } else if (key === 'name' && this.started) {
      return this.fail(this.at); // a second name would rename the call
    } else if (key === 'id' && this.started && this.hid !== null) {
      return this.fail(this.at); // a second id would change the id announced (D63)
    }
    this.rd = new JsonArgs([], J.OTHER, true);
    this.rd.at = this.off + j;
    this.state = H.READ;
    return true;
  }

  _read(final) {
    const rd = this.rd;
    if (this.state === H.KEY) {
      rd._key(this, final);
      if (rd.state === J.COLON) {
        this.hkey = rd.got;
        this.at = rd.at;
        this.state = H.COLON;
        return true;
      }
    } else {
      rd._other(this, final);
      if (rd.state === J.AFTER) {
        const v = rd.got;
        if (this.hkey === 'name') this.spelled = typeof v === 'string' ? strings.trim(v) : '';
        else if (this.hkey === 'id' && !this.started) this.hid = typeof v === 'string' && v ? v : null; // D63: an id after the announcement is none
        this.state = H.AFTER;
        return true;
      }
    }
    if (rd.state === J.BAD) return this.started ? this.fail(rd.badAt) : this._quit();
    return false;
  }

  _args(final) {
    const js = this.js;
    if (js.step(this, final)) return true;
    if (js.state === J.END) {
      this.out.push({ kind: 'done', input: this.args });
      this.open = false;
      this.pending = call(this.name, this.args, null);
      this.doneAt = this.off + this.i;
      this.state = H.AFTER;
      return true;
    }
    if (js.state === J.BAD) return this.fail(js.badAt);
    return false;
  }
}

// ---- a JSON object named before it: Harmony (R17.6), Mistral's v11 calls (R17.7) ------------------

/** A call whose name came before its body, the body one JSON object (blank: {}): a Harmony
 * message addressed to `functions.NAME`, a Mistral `NAME[ARGS]{…}`. Announced when made. */
class ObjectTap extends BlockTap {
  constructor(typer, name, callId = null) {
    super(typer);
    this.js = new JsonArgs([]);
    this.blank = false; // a blank JSON does not allow (blank arguments are still {})
    this.begin(name, 0, callId);
  }

  step(final) {
    const s = this.s;
    if (this.state === 1) {
      // after the object: JSON's blanks only
      const j = (this.i = skip(s, this.i, JSON_WS));
      if (j < s.length) return this.fail(this.off + j);
      if (final) {
        this.endCall(this.off + j);
        this.state = 2;
      }
      return false;
    }
    if (this.state === 2) return false;
    const js = this.js;
    if (js.state === J.OPEN) {
      const j = skip(s, this.i);
      if (j > this.i && rstrip(lstrip(s.slice(this.i, j), JSON_WS), JSON_WS)) this.blank = true;
      this.i = j;
      if (j >= s.length) {
        if (final) {
          // a blank body: {}
          this.endCall(this.off + j);
          this.state = 2;
        }
        return false;
      }
      if (this.blank) return this.fail(this.off + j);
    }
    if (js.step(this, final)) return true;
    if (js.state === J.END) {
      this.state = 1;
      return true;
    }
    if (js.state === J.BAD) return this.fail(js.badAt);
    return false;
  }
}

const TAPS = {
  function_tags: FunctionTap,
  arg_pairs: PairTap,
  invoke_tags: InvokeTap,
  kimi_calls: KimiTap,
  json_call: HermesTap,
};

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

module.exports = { BlockTap, HEAD_LIMIT, ObjectTap, TAPS, Value, sameCalls };
