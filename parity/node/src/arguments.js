'use strict';
/**
 * Incremental tool-call arguments (R16): which characters of a parameter value are already
 * certain while its body is still arriving, and the JSON text written from them.
 * Port of python/callsieve/arguments.py; read its docstring (what streams is D36).
 *
 * The scanner feeds a `ValueTap` the body of the open parameter as it reads it and turns what it
 * learns into small internal events, plain objects with a `kind` (public events have a `type`):
 * `{kind: 'begun', name, id}`, `{kind: 'chars', key, text}`, `{kind: 'param', key, value}`,
 * `{kind: 'done', input}`. The Sieve writes them as `tool_call_start` / `tool_call_arguments`
 * (`ArgumentsWriter`), after name resolution and schema normalization (R10, R12).
 *
 * Two JavaScript points: lengths and slices are UTF-16 code units (consistent within this engine,
 * so the fragments still join to the final text), and a piece that ends in a high surrogate holds
 * it back, because JSON.stringify escapes a lone surrogate but writes a pair as is.
 */

const { jsonStringBody, jsonText, setKey } = require('./jsontext');
const { JS_SPACE, asciiLower, isBlank, trim } = require('./strings');
const { RAW_TEXT_NAMES, decodeEntities } = require('./values');

// Generated from arguments.py (tables.js); ENTITY_SPAN: the longest partial entity (D13).
const { ARGUMENTS_JSON_START: JSON_START, NUMBER_CHARS, LITERALS, ENTITY_SPAN } = require('./tables');

/** An array-index key, which JavaScript objects list first (so it cannot stream in order). */
function isIndexKey(key) {
  return /^(?:0|[1-9][0-9]{0,9})$/.test(key) && Number(key) <= 2 ** 32 - 2;
}

/** Where a ValueTap is. */
const Tap = Object.freeze({
  LEAD: 0, // blank text so far
  DECIDE: 1, // the value began; a string reading is not certain yet
  STREAM: 2, // certainly a string: certain characters go out
  AFTER_CDATA: 3, // the value began with a CDATA section, which closed; blank text since
  HOLD: 4, // not streamable: the value comes out when the parameter closes
});

/**
 * The open parameter's body, read incrementally. Each method returns the characters of the final
 * value that became certain.
 */
class ValueTap {
  constructor(name, string) {
    const typed = string !== null && string !== undefined ? asciiLower(trim(string)) : '';
    this.written = typed === 'true'; // R14.2 / D24: as written, no decoding, no trimming
    this.raw = RAW_TEXT_NAMES.has(trim(name).toLowerCase()); // as values.paramValue spells it
    this.state = typed === 'false' ? Tap.HOLD : Tap.LEAD;
    this.fromCdata = false; // the value began with a CDATA section
    this.lead = ''; // LEAD: the blank text so far
    this.decide = ''; // DECIDE: the opening characters so far
    this.first = ''; // DECIDE: the first of them
    // DECIDE, kept so that each piece is looked at once (Python rescans the opening each time):
    // how many opening characters were checked, and whether a blank came among them.
    this.checked = 0;
    this.gapped = false;
    this.held = ''; // STREAM: a trailing whitespace run (plain values are trimmed, R6.2)
    this.entity = ''; // STREAM: a partial entity at the end of the text (as written)
    this.gap = ''; // AFTER_CDATA: the blank text since the CDATA closed
  }

  /** A piece of body text, as written (entities not decoded). */
  text(s) {
    const st = this.state;
    if (st === Tap.HOLD || !s) return '';
    if (st === Tap.STREAM) return this.written ? s : this._stream(s, false);
    if (st === Tap.DECIDE) return this._decide(s, false);
    const blank = isBlank(s);
    if (st === Tap.LEAD) {
      if (blank) {
        this.lead += s;
        return '';
      }
      if (this.written) {
        // blank text before non-blank text stays (join all, D24)
        this.state = Tap.STREAM;
        const out = this.lead + s;
        this.lead = '';
        return out;
      }
      this.state = Tap.DECIDE; // R6.2 trims the blank text away
      return this._decide(s.trimStart(), false);
    }
    // AFTER_CDATA
    if (blank) {
      this.gap += s;
      return '';
    }
    if (this.written) {
      this.state = Tap.HOLD;
      return '';
    }
    this.state = Tap.STREAM; // no longer one CDATA between blanks: R6.2 joins and trims
    const gap = this.gap;
    this.gap = '';
    return this._stream(gap + s, false);
  }

  cdataOpen() {
    const st = this.state;
    if (st === Tap.LEAD) {
      // blank text before a CDATA: dropped or kept, seen at the close
      if (this.written && this.lead) this.state = Tap.HOLD;
      this.fromCdata = true;
    } else if (st === Tap.DECIDE) {
      this.state = Tap.HOLD;
    } else if (st === Tap.AFTER_CDATA) {
      this.state = this.written ? Tap.HOLD : Tap.STREAM;
    } else if (st === Tap.STREAM && this.entity && !this.written) {
      const lit = this.entity; // the text ended: not an entity after all
      this.entity = '';
      return this._stream(lit, true);
    }
    return '';
  }

  /** A piece of CDATA content (never decoded). */
  cdataPiece(s) {
    const st = this.state;
    if (st === Tap.HOLD || !s) return '';
    if (st === Tap.LEAD) {
      if (this.written) {
        // nothing before the CDATA: as written, both readings start here
        this.state = Tap.STREAM;
        return s;
      }
      // One CDATA between blanks is its raw content (R6.1); joined with more it is trimmed
      // (R6.2): both agree only when the content does not begin with a blank.
      if (JS_SPACE.includes(s[0])) {
        this.state = Tap.HOLD;
        return '';
      }
      this.state = Tap.DECIDE;
      return this._decide(s, true);
    }
    if (st === Tap.DECIDE) return this._decide(s, true);
    if (this.written) return s;
    if (this.gap) {
      s = this.gap + s;
      this.gap = '';
    }
    return this._stream(s, true);
  }

  cdataClose() {
    if (this.fromCdata && this.state !== Tap.HOLD && this.state !== Tap.AFTER_CDATA) {
      this.state = this.state === Tap.STREAM && !this.gap ? Tap.AFTER_CDATA : Tap.HOLD;
      this.fromCdata = false;
    }
  }

  // ---- internals ----------------------------------------------------------------------

  /** DECIDE: collect opening characters until only a string reading is left. */
  _decide(s, decoded) {
    if (!this.decide) this.first = s[0]; // kept: indexing a long concatenated string flattens it
    const first = this.first;
    if (this.decide && (first === '{' || first === '[' || first === '"')) {
      return ''; // never ruled out (JSON can run on): the rest of the opening need not be kept
    }
    this.decide += s;
    if (!this.decide) return '';
    if (first === '<' && !(this.raw && decoded)) {
      this.state = Tap.HOLD; // XML children or a structured fragment (R6.4, R6.5)
      return '';
    }
    if (first === '&' && !decoded) {
      this.state = Tap.HOLD; // an entity decodes to anything: wait for the close
      return '';
    }
    if (JSON_START.includes(first) && !this._ruledOutBy(s, first)) return '';
    this.state = Tap.STREAM;
    const opening = this.decide;
    this.decide = '';
    return this._stream(opening, decoded);
  }

  /**
   * `ruledOut(this.decide)` (for an opening that is a number or literal so far) looking only at
   * the new piece `s`: what came before was checked, so a long opening costs linear time.
   */
  _ruledOutBy(s, first) {
    if (first === '{' || first === '[' || first === '"') return false;
    const lit = first === 't' || first === 'f' || first === 'n' ? LITERALS.find((x) => x[0] === first) : null;
    for (let i = 0; i < s.length; i++, this.checked++) {
      const ch = s[i];
      if (JS_SPACE.includes(ch)) {
        this.gapped = true; // trailing blanks are trimmed; anything after them rules out
      } else if (this.gapped) {
        return true;
      } else if (lit !== null ? this.checked >= lit.length || lit[this.checked] !== ch : !NUMBER_CHARS.includes(ch)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Decoded characters out, holding back a trailing whitespace run and, at the end of text, a
   * partial entity.
   */
  _stream(s, decoded) {
    if (!decoded) {
      s = this.entity + s;
      this.entity = '';
      const amp = s.lastIndexOf('&');
      if (amp >= Math.max(0, s.length - ENTITY_SPAN) && !s.slice(amp).includes(';')) {
        this.entity = s.slice(amp);
        s = s.slice(0, amp);
      }
      s = decodeEntities(s);
    }
    // Only this piece is trimmed: a long blank run is not rescanned for each piece.
    const body = s.trimEnd();
    if (!body) {
      this.held += s;
      return '';
    }
    const out = this.held + body;
    this.held = s.slice(body.length);
    return out;
  }
}

/**
 * Do the opening characters `d` (no leading blank) rule out a JSON reading (R6.3)? The one-shot
 * form of the check ValueTap makes piece by piece (`_ruledOutBy`); the tests hold them together.
 */
function ruledOut(d) {
  const c = d[0];
  if ('{["'.includes(c)) return false; // JSON text can run on: the value comes out at the close
  const body = d.trimEnd();
  if ('tfn'.includes(c)) return !LITERALS.find((x) => x[0] === c).startsWith(body);
  for (const ch of body) if (!NUMBER_CHARS.includes(ch)) return true;
  return false;
}

// ---- the Sieve side: internal events to public ones -----------------------------------------

/** A call announced by `tool_call_start`: what of its arguments text went out. */
class Call {
  constructor(index, name) {
    this.index = index; // -1: rejected by the policy, so never announced
    this.name = name;
    this.sent = 0; // code units of the arguments text sent
    this.keys = 0; // keys written
    this.openKey = null; // a string value streaming now
    this.openSent = 0; // code units of that value's JSON text sent (with its quote)
    this.high = ''; // a high surrogate held until the next piece (see the module comment)
  }
}

/**
 * Writes `tool_call_start` / `tool_call_arguments` (R16.2, R16.3) from the scanner's internal
 * events. `events(events, resolve, normalize, apply)` takes the Sieve's treatment of calls:
 * `resolve(name)` gives the declared spelling or null when the policy rejects the call;
 * `normalize(name, input)` applies the tool's schema (R12); `apply(event)` is the Sieve's
 * treatment of a block. Every fragment extends the call's arguments text, which ends as
 * `jsonText(normalize(name, input))`: the same text the OpenAI layer writes. As in Python, they
 * are arguments of `events`, not kept (there, kept, they would make the Sieve a reference cycle).
 */
class ArgumentsWriter {
  /**
   * @param {(index: number, name: string, id: string | null) => object} start the `tool_call_start` event
   * @param {(index: number, delta: string) => object} delta the `tool_call_arguments` event
   */
  constructor(start, delta) {
    this._start = start; // (index, name, id) -> event
    this._delta = delta; // (index, text) -> event
    this.nextIndex = 0;
    this._call = null;
    this._begun = 0; // calls begun in the current block
  }

  /**
   * @param {object[]} events the scanner's events, internal and public
   * @param {(name: string) => string | null} resolve
   * @param {(name: string, input: object) => object} normalize
   * @param {(event: object) => object} apply
   * @returns {object[]} the public events
   */
  events(events, resolve, normalize, apply) {
    const out = [];
    for (const e of events) {
      switch (e.kind) {
        case 'chars':
          this._chars(e, out);
          break;
        case 'param':
          this._param(e, out, normalize);
          break;
        case 'begun':
          this._begin(e.name, e.id === undefined ? null : e.id, out, resolve);
          break;
        case 'done':
          this._done(e.input, out, normalize);
          break;
        default:
          if (e.type === 'tool_calls') this._block(e, out, resolve, normalize, apply);
          else out.push(e);
      }
    }
    return out;
  }

  _begin(name, callId, out, resolve) {
    this._begun += 1;
    const resolved = resolve(name);
    if (resolved === null) {
      this._call = new Call(-1, name);
      return;
    }
    this._call = new Call(this.nextIndex, resolved);
    this.nextIndex += 1;
    out.push(this._start(this._call.index, resolved, callId));
  }

  _send(c, text, out) {
    if (text) {
      c.sent += text.length;
      out.push(this._delta(c.index, text));
    }
  }

  _key(c, key) {
    c.keys += 1;
    return (c.keys === 1 ? '{' : ',') + jsonText(key) + ':';
  }

  _chars(e, out) {
    const c = this._call;
    if (c === null || c.index < 0) return;
    let text = c.high + e.text;
    c.high = '';
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      c.high = text.slice(-1);
      text = text.slice(0, -1);
    }
    const body = jsonStringBody(text);
    if (c.openKey !== e.key) {
      c.openKey = e.key;
      c.openSent = 1 + body.length;
      this._send(c, this._key(c, e.key) + '"' + body, out);
    } else {
      c.openSent += body.length;
      this._send(c, body, out);
    }
  }

  _param(e, out, normalize) {
    const c = this._call;
    if (c === null || c.index < 0) return;
    const one = {};
    setKey(one, e.key, e.value);
    const text = jsonText(normalize(c.name, one)[e.key]);
    if (c.openKey === e.key) this._send(c, text.slice(c.openSent), out);
    else this._send(c, this._key(c, e.key) + text, out);
    c.openKey = null;
    c.high = '';
  }

  _done(input, out, normalize) {
    const c = this._call;
    this._call = null;
    if (c === null || c.index < 0) return;
    const final = jsonText(normalize(c.name, input));
    this._send(c, final.slice(c.sent), out);
  }

  /**
   * A block's event: calls begun in it are complete; the others (token sections, JSON calls,
   * repaired blocks) are announced now, whole, before it (D38).
   */
  _block(e, out, resolve, normalize, apply) {
    const applied = apply(e);
    const begun = this._begun;
    this._begun = 0;
    for (const call of e.calls.slice(begun)) {
      const resolved = resolve(call.name);
      if (resolved === null) continue;
      const index = this.nextIndex;
      this.nextIndex += 1;
      out.push(this._start(index, resolved, call.id === undefined ? null : call.id));
      out.push(this._delta(index, jsonText(normalize(resolved, call.input))));
    }
    out.push(applied);
  }
}

module.exports = {
  ArgumentsWriter,
  Call,
  ENTITY_SPAN,
  JSON_START,
  LITERALS,
  NUMBER_CHARS,
  Tap,
  ValueTap,
  isIndexKey,
  ruledOut,
};
