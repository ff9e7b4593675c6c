'use strict';
/** The taps of the JSON-arguments grammars (R17.1, R17.5 to R17.7); TAPS, the tap of each grammar. */

const strings = require('./strings');
const values = require('./values');
const { kimiName, nameOk, setKey } = require('./blocks');
const { ASIS, BlockTap, JSON_WS, call, isHigh, isLow, lstrip, prefix, rstrip, skip, starts } = require('./blocktap');
const { FunctionTap, InvokeTap, PairTap } = require('./tagtaps');
// The markers are the grammar's own (one table for both readings)
const { KB, KA, KE } = require('./tables');

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
   * string; -(k + 3) a stop marker at k, or wait at k (a stop marker's prefix, or an escape cut
   * by the chunk's end: the next chunk must read it whole). */
  _stringEnd(s, i, final) {
    const n = s.length;
    for (;;) {
      const k = search(STRING_STOP, s, i);
      if (k < 0) return -1;
      const ch = s[k];
      if (ch === '"') return k;
      if (ch === '\\') {
        if (k + 1 >= n) return final ? -2 : -(k + 3);
        const e = s[k + 1];
        if (e === 'u') {
          if (k + 6 > n && allHex(s.slice(k + 2))) return final ? -2 : -(k + 3);
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

// Keys that make R9 read a JSON object otherwise than a Hermes body (values.jsonCalls): a message,
// a wrapper, `input` before `arguments` / `parameters`.
const R9_KEYS = new Set(['role', 'content', 'tool_calls', 'function', 'input']);

/** `{"name": N, "arguments": {…}}` (blocks.jsonCall): announced when `arguments` (or
 * `parameters`) opens an object after a name; other orders, arguments written as a string and an
 * array of calls are announced with the block (D38). */
class HermesTap extends BlockTap {
  constructor(typer, ids = true) {
    super(typer);
    this.end = H.QUIT;
    this.ids = ids; // false: R9's reading (Llama's JSON calls in prose) has no ids
    this.js = new JsonArgs([]);
    this.rd = new JsonArgs([], J.KEY, true); // an outer key or value
    this.hkey = '';
    this.spelled = ''; // the name read (trimmed; '' none)
    this.argsKey = ''; // `arguments` or `parameters`: the key whose object streams
    this.hid = null; // the `id` read
    this.pending = null; // the call, its arguments complete, its object open
    this.argsEnd = -1; // body offset past the arguments object announced
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
    } else if (!this.ids && !this.started && R9_KEYS.has(key)) {
      return this._quit(); // R9 reads these first, or not as a call: announced whole, if at all
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
        else if (this.hkey === 'id' && this.ids && !this.started) this.hid = typeof v === 'string' && v ? v : null; // D63: an id after the announcement is none
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
      this.doneAt = this.argsEnd = this.off + this.i;
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
    this.end = 2;
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

// Here, not in blocktap: it names every tap, and blocktap <- tagtaps <- jsontaps require no cycle.
const TAPS = {
  function_tags: FunctionTap,
  arg_pairs: PairTap,
  invoke_tags: InvokeTap,
  kimi_calls: KimiTap,
  json_call: HermesTap,
};


module.exports = { HermesTap, ObjectTap, TAPS };
