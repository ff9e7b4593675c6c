'use strict';
/**
 * String helpers shared by every module: JavaScript's whitespace (D10) and ASCII-only case folding.
 * Port of python/callsieve/strings.py.
 */

// D10: the whitespace String.prototype.trim removes (Python strips exactly these); generated
// from strings.py (tables.js).
const { JS_SPACE } = require('./tables');

function trim(s) {
  return s.trim();
}

// Lowercase A-Z only, as Python: String#toLowerCase would also fold 'İ', 'K' (Kelvin) and others.
function asciiLower(s) {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

function isBlank(s) {
  return !s.trim();
}

// JSON's whitespace (RFC 8259) off both ends, as Python's s.strip(' \t\r\n'). Index loops, not
// /^[ \t\r\n]+|[ \t\r\n]+$/: that regex retries the end anchor from every character of a
// blank run, quadratic in the run's length (40,000 blanks inside one SSE event: 0.7-1.6 s).
function jsonTrim(s) {
  let i = 0;
  let j = s.length;
  while (i < j && isJSONSpace(s.charCodeAt(i))) i++;
  while (j > i && isJSONSpace(s.charCodeAt(j - 1))) j--;
  return i === 0 && j === s.length ? s : s.slice(i, j);
}

function isJSONSpace(c) {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * Code points in `s`, as Python counts characters: a low surrogate right after a high one ends a
 * pair and counts 0 (the pair counts once, at its high half); a lone one counts 1. `prev` is the
 * code unit before `s` in the input (a pair may be split between two pieces).
 */
function codePoints(s, prev = 0) {
  let n = s.length;
  let p = prev;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isLow(c) && isHigh(p)) n--;
    p = c;
  }
  return n;
}

/** The last code unit of the pieces (0 when they hold none): the `prev` of the next piece. */
function lastUnit(pieces) {
  for (let i = pieces.length - 1; i >= 0; i--) {
    const s = pieces[i];
    if (s) return s.charCodeAt(s.length - 1);
  }
  return 0;
}

function isHigh(c) {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLow(c) {
  return c >= 0xdc00 && c <= 0xdfff;
}

module.exports = { JS_SPACE, trim, asciiLower, isBlank, jsonTrim, codePoints, lastUnit, isHigh, isLow };
