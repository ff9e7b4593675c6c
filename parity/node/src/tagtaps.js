'use strict';
/** The taps of the raw-text tag grammars (R17.2 to R17.4); port of python/callsieve/tagtaps.py. */

const strings = require('./strings');
const { nameOk, oneNewline, rawValue } = require('./blocks');
const { ASIS, BLANK, BlockTap, GLM, HEAD_LIMIT, NAME_UNITS, QWEN, TRIM, isHigh, isLow, prefix, skip, starts } =
  require('./blocktap');
// The markers and the name's characters are the grammars' own (one table for both readings)
const { NOT_NAME, NAME_MAX, FN, FN_END, P, P_END, K, K_END, V, V_END, INV_END } = require('./tables');

// ---- R17.2 Qwen3-Coder / Seed-OSS ---------------------------------------------------------------

const CALL_ENDS = [FN, FN_END];
const PARAM_STOPS = [P_END, P, FN, FN_END];
const IN_CALL = [P, FN_END, FN];

const F = Object.freeze({ BETWEEN: 0, HEAD: 1, SKIP: 2, PARAMS: 3, KEY: 4, VALUE: 5, DONE: 6 });

/** `<function=NAME>` `<parameter=KEY>VALUE</parameter>` … `</function>` (blocks.functionTags). */
class FunctionTap extends BlockTap {
  constructor(typer) {
    super(typer);
    this.end = F.DONE;
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


const G = Object.freeze({ NAME: 0, PAIRS: 1, KEY: 2, BETWEEN: 3, VALUE: 4, DONE: 5 });

/** NAME `<arg_key>K</arg_key><arg_value>V</arg_value>` … (blocks.argPairs): the name is final at
 * the first `<arg_key>`. */
class PairTap extends BlockTap {
  constructor(typer) {
    super(typer);
    this.end = G.DONE;
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
const PARAM = '<parameter';
const INV_STOPS = [INV_END, INV];
const VALUE_STOPS = [P_END, INV_END, INV];

/**
 * `[ \t]+name=` then `"N"`, `'N'` or a bare N (at most NAME_MAX code points), `[ \t]*>` (blocks'
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
    return this.cps >= NAME_MAX && !(isLow(ch.charCodeAt(0)) && isHigh(last));
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
    this.end = M.DONE;
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

module.exports = { FunctionTap, InvokeTap, PairTap };
