'use strict';
/**
 * Bare pythonic call lists (R17.8, D64): the scanner's PYLIST mode, from `[` to the outer `]`.
 * Port of python/callsieve/pylist.py, function for function; read the module docstring there.
 * The head holds ASCII only, so its limit counts code points as Python does; the list's capture
 * limit is measured in code points (the scanner's _cpAdvance).
 */

const { pythonicCalls } = require('./blocks');

// The head's limit: generated from pylist.py (tables.js).
const { PYLIST_MAX_HEAD: MAX_HEAD } = require('./tables');
const OUT = /["'()[\]{}]/g; // what matters outside a string
const IN = { '"': /["\\\n\r]/g, "'": /['\\\n\r]/g }; // inside one, per quote

// Head states: after `[` or its blanks, in a name, blanks after a name, after a dot.
const LEAD = 0;
const NAME = 1;
const GAP = 2;
const DOT = 3;
// Stages: the head, then the list to its end.
const HEAD = 0;
const LIST = 1;

class PyList {
  constructor() {
    this.stage = HEAD;
    this.head = LEAD;
    this.parts = []; // the candidate's text so far
    this.size = 0; // its head's length (only the head has a limit of its own)
    this.start = 0; // absolute offset of its `[`
    this.depth = 0; // open brackets, parentheses and braces
    this.quote = ''; // the open string's quote ('' outside strings)
    this.esc = false; // a backslash ended the text so far, inside a string
  }
}

function isIdentStart(c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c === '_';
}

function isIdent(c) {
  return isIdentStart(c) || (c >= '0' && c <= '9');
}

/** A candidate opens at the `[` at `sc.pos`. */
function start(sc) {
  const p = sc.py;
  p.stage = HEAD;
  p.head = LEAD;
  p.parts = ['['];
  p.size = 1;
  p.start = sc.base + sc.pos;
  p.quote = ''; // (depth is set at the head's `(`)
  p.esc = false;
  sc.pos += 1;
}

function step(sc, final) {
  return sc.py.stage === HEAD ? head(sc, final) : list(sc, final);
}

function head(sc, final) {
  const p = sc.py;
  const buf = sc.buf;
  const pos = sc.pos;
  const n = buf.length;
  let i = pos;
  let st = p.head;
  const limit = Math.min(MAX_HEAD, sc.maxCapture); // (a head holds no more than a block may, D43)
  while (i < n) {
    const c = buf[i];
    if (p.size + i - pos >= limit) break;
    if (c === '(' && (st === NAME || st === GAP)) {
      p.parts.push(buf.slice(pos, i + 1));
      sc.pos = i + 1;
      p.stage = LIST;
      p.depth = 2;
      return true;
    }
    if (c === ' ' || c === '\t') {
      if (st === NAME) st = GAP;
      else if (st === DOT) break;
    } else if (isIdentStart(c) || (isIdent(c) && st === NAME)) {
      if (st === GAP) break;
      st = NAME;
    } else if (c === '.' && st === NAME) {
      st = DOT;
    } else {
      break;
    }
    i++;
  }
  if (i < n || final) return fails(sc, i);
  p.parts.push(buf.slice(pos, i));
  p.size += i - pos;
  p.head = st;
  sc.pos = i;
  return false;
}

/** Not a call list: what was read is text, and TEXT resumes at `at` (not yet consumed). */
function fails(sc, at) {
  const p = sc.py;
  const text = p.parts.join('') + sc.buf.slice(sc.pos, at);
  p.parts = [];
  sc.pos = at;
  sc._emit(text);
  sc._textResumes(text);
  return true;
}

function list(sc, final) {
  const p = sc.py;
  const buf = sc.buf;
  const pos = sc.pos;
  const stop = sc._cpAdvance(p.start) - sc.base; // where the candidate reaches the limit (D43)
  const n = Math.min(buf.length, stop);
  // Searched up to n only: a cut copy when the limit falls inside the buffer.
  const hay = n < buf.length ? buf.slice(0, n) : buf;
  let i = pos;
  while (i < n) {
    const q = p.quote;
    if (q) {
      if (p.esc) {
        if (buf[i] === '\n' || buf[i] === '\r') return failsAfter(sc, pos, i); // (escaped or not, a line break in a string is text)
        p.esc = false;
        i++;
        continue;
      }
      const re = IN[q];
      re.lastIndex = i;
      const hit = re.exec(hay);
      if (hit === null) {
        i = n;
        break;
      }
      const k = hit.index;
      const c = hay[k];
      if (c === '\n' || c === '\r') return failsAfter(sc, pos, k); // no call list has a line break in a string
      i = k + 1;
      if (c === '\\') p.esc = true;
      else p.quote = '';
      continue;
    }
    OUT.lastIndex = i;
    const hit = OUT.exec(hay);
    if (hit === null) {
      i = n;
      break;
    }
    const k = hit.index;
    const c = hay[k];
    i = k + 1;
    if (c === '"' || c === "'") p.quote = c;
    else if (c === '(' || c === '[' || c === '{') p.depth++;
    else {
      p.depth--;
      if (p.depth === 0) {
        p.parts.push(buf.slice(pos, i));
        sc.pos = i;
        return end(sc);
      }
    }
  }
  p.parts.push(buf.slice(pos, i));
  sc.pos = i;
  if (i >= stop || final) return fails(sc, i); // past the limit, or cut by the end of the output: text
  return false;
}

function failsAfter(sc, pos, at) {
  sc.py.parts.push(sc.buf.slice(pos, at));
  sc.pos = at;
  return fails(sc, at);
}

/** The list closed: calls, or text. */
function end(sc) {
  const p = sc.py;
  const text = p.parts.join('');
  p.parts = [];
  sc.work += text.length;
  const got = pythonicCalls(text);
  if (got === null || got.calls.length === 0 || got.malformed.length > 0) {
    sc._emit(text);
    sc._textResumes(text);
    return true;
  }
  sc.saw = true;
  sc._flushText();
  const calls = got.calls.map((c) => ({ name: sc._name(c.name), input: c.input }));
  sc.out.push({ type: 'tool_calls', calls, raw: text, format: 'pythonic' });
  sc._resumeText();
  return true;
}

module.exports = { MAX_HEAD, PyList, start, step };
