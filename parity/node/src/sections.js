'use strict';
/**
 * Token sections of DeepSeek-V3, R1 and V3.1 (R14.4-R14.6): the marker recognizer and the call
 * grammar. The scanner's TOKENS mode drives them; see the theory of operation in
 * python/callsieve/scanner.py. Port of python/callsieve/sections.py.
 *
 * A section is `<｜tool▁calls▁begin｜>` (or `<｜tool▁calls｜>`), one or more calls, then
 * `<｜tool▁calls▁end｜>`. A call is `<｜tool▁call▁begin｜>HEAD<｜tool▁sep｜>BODY<｜tool▁call▁end｜>`:
 * - V3.1: HEAD is the tool name and BODY a JSON object (it may span lines);
 * - V3 / R1: HEAD is the word `function` and BODY the tool name, a newline, and the arguments as a
 *   JSON object in a fenced block (```` ```json ```` … ```` ``` ````); the fence is syntax here.
 * Each marker is one tokenizer token, so the recognizer is exact: a bar `｜` (U+FF5C, also ASCII
 * `|`) on each side and `▁` (U+2581) between the words. Nothing else is folded.
 *
 * Every marker character is in the BMP, so code-unit lengths equal Python's code-point lengths.
 */

const values = require('./values');
const strings = require('./strings');
const { isObject } = require('./jsontext');
const { MORE, NO } = require('./shell');

// The markers and their kinds, the bars, the limits: generated from sections.py (tables.js).
const {
  SECTION_BEGIN,
  SECTION_END,
  CALL_BEGIN,
  CALL_END,
  SEP,
  EOS,
  MARKERS,
  SECTIONS_MAX_MARKER: MAX_MARKER,
  BARS,
  SECTIONS_MAX_HEAD: MAX_HEAD, // a call head (the name, or `function`) longer than this is not a call
} = require('./tables');

// One regex for all of them (either bar on either side); the word names the kind.
const KINDS = new Map(MARKERS.map(([m, kind]) => [m.slice(2, -2), kind]));
const MARKER_RE = new RegExp('<[\uff5c|](' + [...KINDS.keys()].join('|') + ')[\uff5c|]>', 'y');

/** Recognize a token marker at `s[i]` (`<`). Returns [kind, end], MORE or NO. */
function matchMarker(s, i, final) {
  const n = s.length;
  if (i + 1 >= n) return final ? NO : MORE;
  const bar = s.charCodeAt(i + 1);
  if (bar !== 0xff5c && bar !== 0x7c) return NO;
  if (i + 2 < n) {
    const c = s.charCodeAt(i + 2);
    if (c !== 0x74 && c !== 0x65) return NO; // every marker: `<｜t…` or `<｜e…`
  }
  MARKER_RE.lastIndex = i;
  const m = MARKER_RE.exec(s);
  if (m !== null) return [KINDS.get(m[1]), i + m[0].length];
  if (!final && i + MAX_MARKER > n && markerStart(s, i)) return MORE; // cut by the end of the input
  return NO;
}

/** Is `s[i:]` the start of a marker (either bar)? */
function markerStart(s, i) {
  const len = s.length - i;
  next: for (const [marker] of MARKERS) {
    if (len > marker.length) continue;
    for (let k = 0; k < len; k++) {
      const c = s.charCodeAt(i + k);
      if ((c === 0x7c ? 0xff5c : c) !== marker.charCodeAt(k)) continue next;
    }
    return true;
  }
  return false;
}

/**
 * One call from the text between its markers (R14.4, R14.5): [name, input], or null when it is
 * not a valid call (the section then follows D4: all or nothing).
 */
function decodeCall(head, body) {
  const h = strings.trim(head);
  const b = strings.trim(body);
  let name;
  let args;
  if (!b || b[0] === '{') {
    // V3.1: NAME<｜tool▁sep｜>{json}; no arguments at all is {}
    name = h;
    args = b;
  } else if (h === 'function') {
    // V3 / R1: function<｜tool▁sep｜>NAME\n```json\n{json}\n```
    const nl = b.indexOf('\n');
    if (nl < 0) return null;
    name = strings.trim(b.slice(0, nl));
    const fenced = _fenced(b.slice(nl + 1));
    if (fenced === null) return null;
    args = fenced;
  } else {
    return null;
  }
  if (!name || name.includes('\n') || name.includes('\r')) return null;
  if (!args) return [name, {}];
  const [ok, v] = values.jsonValue(args);
  if (!ok || !isObject(v)) return null;
  return [name, v];
}

/** The inside of one fenced block that is all of `s` (```` ```json ```` or bare ```` ``` ````). */
function _fenced(s) {
  s = strings.trim(s);
  if (!s.startsWith('```') || !s.endsWith('```') || s.length < 6) return null;
  const nl = s.indexOf('\n');
  if (nl < 0) return null;
  const info = strings.trim(s.slice(3, nl));
  if (info !== '' && info !== 'json' && info !== 'JSON') return null;
  const inner = s.slice(nl + 1, s.length - 3);
  return strings.trim(inner);
}

/**
 * R18.2: what a call that decodeCall refused is reported as (D55): the call's text as written
 * between its markers, why, and its name when one could be read.
 */
function malformedCall(head, body) {
  const h = strings.trim(head);
  const b = strings.trim(body);
  const raw = h + '<\uff5ctool\u2581sep\uff5c>' + b;
  let name = h;
  if (h === 'function' && b && b[0] !== '{') {
    const nl = b.indexOf('\n');
    name = nl >= 0 ? strings.trim(b.slice(0, nl)) : strings.trim(b);
  }
  if (!name || name.includes('\n') || name.includes('\r')) return { raw, reason: 'no name' };
  return { raw, reason: 'arguments are not a JSON object', name };
}

module.exports = {
  SECTION_BEGIN,
  SECTION_END,
  CALL_BEGIN,
  CALL_END,
  SEP,
  EOS,
  MAX_MARKER,
  BARS,
  MAX_HEAD,
  matchMarker,
  decodeCall,
  malformedCall,
  _fenced,
};
