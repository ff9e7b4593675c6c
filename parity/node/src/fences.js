'use strict';
/**
 * The scanner's fence-line recognizer (Python's fences.py): `FenceLine` and its step results, shared
 * by TEXT, FENCE and CDATA. See scanner.js for the layers of the scanner.
 */

const { RUNS, BLANKS } = require('./tables'); // generated from fences.py

// FenceLine.step results
const WAIT = 0; // consumed to the end of the buffer; still deciding
const PLAIN = 1; // not (or no longer) a fence line start: the rest of the line is the mode's
const RUN_END = 2; // a run ended: `char` and `run` say which and how long
const TAIL_END = 3; // the blanks after a closing run ended (at a newline: the line closes)

function matchAt(re, s, pos) {
  re.lastIndex = pos;
  return re.exec(s);
}

/**
 * The fence-line recognizer (D2), written once: at a line start up to 3 spaces of indent, then a
 * run of backticks or tildes; after a closing run only blanks to the end of the line. It consumes
 * incrementally (a run or a tail of any length, across chunks) and reports what it found; the
 * calling mode owns the consumed characters and decides what a run means.
 */
class FenceLine {
  constructor() {
    this.indent = 0; // spaces seen at this line start; -1: past the line start
    this.char = ''; // the character of the run being counted
    this.run = 0; // length of that run (0: none)
    this.tail = false; // after a closing run: only blanks may follow
    this.end = 0; // where the last `step` stopped (Python returns it with the result)
  }

  lineStart() {
    this.indent = 0;
    this.run = 0;
    this.tail = false;
  }

  midLine() {
    this.indent = -1;
    this.run = 0;
    this.tail = false;
  }

  /** Count a run that starts at `buf[pos]` (not at a line start); returns its end so far. */
  startRun(buf, pos) {
    this.char = buf[pos];
    const end = pos + matchAt(RUNS[this.char], buf, pos)[0].length;
    this.run = end - pos;
    return end;
  }

  /**
   * Consume line-start characters of `buf[pos:]`; `chars` are the run characters this mode
   * accepts. Returns the result; `buf[pos:this.end]` was consumed.
   */
  step(buf, pos, chars) {
    const n = buf.length;
    if (this.tail) {
      const k = pos + matchAt(BLANKS, buf, pos)[0].length;
      this.end = k;
      if (k >= n) return WAIT;
      this.tail = false;
      this.indent = -1;
      return TAIL_END;
    }
    if (!this.run) {
      if (this.indent < 0) {
        this.end = pos;
        return PLAIN;
      }
      while (pos < n && buf[pos] === ' ' && this.indent < 3) {
        this.indent += 1;
        pos += 1;
      }
      this.end = pos;
      if (pos >= n) return WAIT;
      const c = buf[pos];
      if (!chars.includes(c)) {
        this.indent = -1;
        return PLAIN;
      }
      this.char = c;
    } else if (pos >= n) {
      this.end = pos;
      return WAIT;
    }
    const m = matchAt(RUNS[this.char], buf, pos);
    if (m) {
      this.run += m[0].length;
      pos += m[0].length;
      if (pos >= n) {
        this.end = pos;
        return WAIT;
      }
    }
    this.end = pos;
    this.indent = -1;
    return RUN_END;
  }

  /** Does a fence run (3 of the same backtick or tilde) start at `buf[pos]`? null: wait. */
  static opensAt(buf, pos, final) {
    const c = buf[pos];
    let k = pos;
    const n = buf.length;
    while (k < n && k < pos + 3 && buf[k] === c) k++;
    if (k - pos < 3 && k === n && !final) return null;
    return k - pos >= 3;
  }
}

module.exports = { FenceLine, PLAIN, RUNS, RUN_END, TAIL_END, WAIT, matchAt };
