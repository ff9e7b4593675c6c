'use strict';
/**
 * Reasoning regions (R15): the `<think>` … `</think>` part of a reasoning model's output.
 * Port of python/callsieve/reasoning.py; see it for the theory. The gate sits in front of the
 * scanner and splits the input into reasoning and content: "off" (all content), "auto" (a
 * `<think>` after leading whitespace only opens a region, D31), "open" (the output starts inside;
 * a repeated leading `<think>` is dropped). The first `</think>` ends the region (D32); an
 * unclosed region stays reasoning (D33); later markers are content (D34). Holds at most a
 * partial marker.
 */

const { InputTypeError, OptionsError, typeName } = require('./errors');

// The modes and the default markers: generated from reasoning.py (tables.js).
const { REASONING_MODES, OPEN, CLOSE } = require('./tables');

/** Where the gate is. */
const Phase = Object.freeze({ START: 0, START_INSIDE: 1, INSIDE: 2, DONE: 3 });

/** The `reasoning` option: one of REASONING_MODES. */
function checkReasoning(mode) {
  if (typeof mode !== 'string') throw new InputTypeError(`reasoning must be a string, got ${typeName(mode)}`);
  if (mode === 'off' || mode === 'auto' || mode === 'open') return mode;
  throw new OptionsError(`unknown reasoning mode ${JSON.stringify(mode)}; known: ${REASONING_MODES.join(', ')}`);
}

function isBlank(c) {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n';
}

/**
 * Length of the longest proper prefix of the closing marker that `s` ends with. Only the
 * marker's first character among the last few of `s` can start one (this runs once per chunk).
 */
function partialClose(s, close) {
  const n = s.length;
  let j = s.indexOf(close[0], Math.max(0, n - close.length + 1));
  while (j >= 0) {
    if (close.startsWith(s.slice(j))) return n - j;
    j = s.indexOf(close[0], j + 1);
  }
  return 0;
}

/** Splits chunks into [isReasoning, text] pieces, in order; `work` counts characters seen. */
class ReasoningGate {
  constructor(mode, markers = [OPEN, CLOSE]) {
    this.phase = mode === 'off' ? Phase.DONE : mode === 'auto' ? Phase.START : Phase.START_INSIDE;
    [this.open, this.close] = markers; // R17.10: `<seed:think>`, `[THINK]` by preset
    this.lead = this.close[0]; // a chunk without it, with nothing held, is reasoning as it is
    this.held = '';
    this.work = 0;
  }

  feed(chunk) {
    if (this.phase === Phase.DONE) return [[false, chunk]];
    let s = this.held + chunk;
    this.held = '';
    this.work += s.length;
    const out = [];
    if (this.phase !== Phase.INSIDE) s = this._start(s, out);
    if (this.phase === Phase.INSIDE && s) this._inside(s, out);
    else if (this.phase === Phase.DONE && s) out.push([false, s]);
    return out;
  }

  /** End of output: a held partial marker is what it was read in (content or reasoning). */
  finish() {
    const held = this.held;
    this.held = '';
    if (!held) return [];
    const inside = this.phase === Phase.INSIDE || this.phase === Phase.START_INSIDE;
    this.phase = Phase.DONE;
    return [[inside, held]];
  }

  _start(s, out) {
    const inside = this.phase === Phase.START_INSIDE;
    let i = 0;
    while (i < s.length && isBlank(s[i])) i++;
    if (i) out.push([inside, s.slice(0, i)]);
    const rest = s.slice(i);
    if (!rest) return '';
    const opener = this.open;
    if (rest.startsWith(opener)) {
      this.phase = Phase.INSIDE;
      return rest.slice(opener.length);
    }
    if (rest.length < opener.length && opener.startsWith(rest)) {
      this.held = rest;
      return '';
    }
    this.phase = inside ? Phase.INSIDE : Phase.DONE;
    return rest;
  }

  _inside(s, out) {
    const close = this.close;
    const j = s.indexOf(close);
    if (j >= 0) {
      if (j) out.push([true, s.slice(0, j)]);
      this.phase = Phase.DONE;
      if (j + close.length < s.length) out.push([false, s.slice(j + close.length)]);
      return;
    }
    const k = partialClose(s, close);
    if (s.length > k) out.push([true, s.slice(0, s.length - k)]);
    this.held = s.slice(s.length - k);
  }
}

module.exports = { CLOSE, OPEN, Phase, REASONING_MODES, ReasoningGate, checkReasoning, partialClose };
