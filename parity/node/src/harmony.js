'use strict';
/**
 * gpt-oss Harmony messages (R17.6): the scanner's HARMONY mode, one message at a time.
 * Port of python/callsieve/harmony.py, function for function; read the module docstring there.
 * Lengths (MAX_HEADER, the capture limit of a held call) count code points, as Python does.
 */

const strings = require('./strings');
const values = require('./values');
const { sameCalls } = require('./blocktap');
const { ObjectTap } = require('./jsontaps');

// The markers and the header's limit: generated from harmony.py (tables.js).
const { START, CHANNEL, MESSAGE, ENDS, OPENERS, BODY_MARKERS, HARMONY_MAX_MARKER: MAX_MARKER, MAX_HEADER } = require('./tables');
const JS_SPACE = strings.JS_SPACE;

const HEADER = 0;
const CALL = 1;
const REASONING = 2;
const CONTENT = 3;
const TEXT_MODE = 0; // the scanner's Mode.TEXT (scanbase.js and scanner.js require this module, not the reverse)

class Harmony {
  constructor() {
    this.opener = '';
    this.head = [];
    this.size = 0; // code points of head, or of a held call body
    this.kind = HEADER;
    this.recipient = '';
    this.body = [];
    this.tap = null; // R16: the call's arguments as they arrive
  }
}

/**
 * The index `room` code points after `pos` (or -1 past the buffer); `prev` is the code unit before
 * `pos`, whose pair's low half is counted with it.
 */
function advance(buf, pos, room, prev) {
  let i = pos;
  let p = prev;
  const n = buf.length;
  for (; i < n; i++) {
    const c = buf.charCodeAt(i);
    if (!(strings.isLow(c) && strings.isHigh(p))) {
      if (room <= 0) break;
      room--;
    }
    p = c;
  }
  return room > 0 ? -1 : i;
}

function start(sc, opener, end) {
  const hm = sc.hm;
  hm.opener = opener;
  hm.head = [];
  hm.size = 0;
  hm.kind = HEADER;
  hm.recipient = '';
  hm.body = [];
  hm.tap = null;
  sc.pos = end;
}

function step(sc, final) {
  return sc.hm.kind === HEADER ? header(sc, final) : body(sc, final);
}

function header(sc, final) {
  const hm = sc.hm;
  const buf = sc.buf;
  const pos = sc.pos;
  const n = buf.length;
  const room = MAX_HEADER - hm.size;
  const limit = advance(buf, pos, room, strings.lastUnit(hm.head)); // where the room ends (-1: past the buffer)
  const lim = limit < 0 ? n : limit;
  let i = buf.indexOf(MESSAGE, pos);
  if (i > lim) i = -1;
  let nl = buf.indexOf('\n', pos);
  if (nl >= lim) nl = -1;
  if (nl >= 0 && (i < 0 || nl < i)) return headerFails(sc, nl);
  if (i >= 0) {
    hm.head.push(buf.slice(pos, i));
    sc.pos = i + MESSAGE.length;
    readHeader(sc);
    return true;
  }
  if ((limit >= 0 && n - limit > MESSAGE.length - 1) || final) return headerFails(sc, lim);
  const keep = Math.min(partialAt(buf, pos, [MESSAGE]), lim); // never past the limit
  const piece = buf.slice(pos, keep);
  hm.size += strings.codePoints(piece, strings.lastUnit(hm.head));
  hm.head.push(piece);
  sc.pos = keep;
  return false;
}

function headerFails(sc, at) {
  const hm = sc.hm;
  const text = hm.opener + hm.head.join('') + sc.buf.slice(sc.pos, at);
  sc.pos = at;
  sc._emit(text);
  sc._textResumes(text);
  return true;
}

function readHeader(sc) {
  const hm = sc.hm;
  const head = hm.head.join('');
  let channel = '';
  const c = head.indexOf(CHANNEL);
  if (hm.opener === CHANNEL) channel = firstWord(head);
  else if (c >= 0) channel = firstWord(head.slice(c + CHANNEL.length));
  hm.recipient = recipient(head);
  hm.head = [hm.opener + head + MESSAGE];
  hm.size = 0;
  if (hm.recipient) {
    hm.kind = CALL;
    const name = strings.trim(hm.recipient.slice('functions.'.length));
    if (sc.stream && hm.recipient.startsWith('functions.') && name) {
      hm.tap = new ObjectTap(sc.typer, sc._name(name));
      pull(sc);
    }
  } else hm.kind = channel === 'analysis' ? REASONING : CONTENT;
}

function lstripBlank(s) {
  let i = 0;
  while (i < s.length && JS_SPACE.includes(s[i])) i++;
  return s.slice(i);
}

function firstWord(s) {
  let i = 0;
  const n = s.length;
  while (i < n && JS_SPACE.includes(s[i])) i++;
  let j = i;
  while (j < n && !JS_SPACE.includes(s[j]) && s[j] !== '<') j++;
  return s.slice(i, j);
}

function recipient(head) {
  let k = head.indexOf('to=');
  while (k > 0 && !JS_SPACE.includes(head[k - 1]) && head[k - 1] !== '>') k = head.indexOf('to=', k + 1);
  if (k < 0) return '';
  return firstWord(head.slice(k + 3));
}

/** Where a suffix of `buf` that may begin one of `markers` starts (buf.length: none). */
function partialAt(buf, pos, markers) {
  const n = buf.length;
  let j = buf.indexOf('<', Math.max(pos, n - MAX_MARKER + 1));
  while (j >= 0) {
    const tail = buf.slice(j);
    for (const m of markers) if (m.startsWith(tail)) return j;
    j = buf.indexOf('<', j + 1);
  }
  return n;
}

function markerAt(buf, j) {
  for (const m of BODY_MARKERS) if (buf.startsWith(m, j)) return m;
  return null;
}

function body(sc, final) {
  const buf = sc.buf;
  const pos = sc.pos;
  const n = buf.length;
  let j = buf.indexOf('<|', pos);
  while (j >= 0) {
    const m = markerAt(buf, j);
    if (m !== null) {
      take(sc, buf.slice(pos, j));
      const isEnd = ENDS.includes(m);
      sc.pos = isEnd ? j + m.length : j;
      return end(sc, isEnd ? m : '');
    }
    if (n - j < MAX_MARKER && !final) {
      const tail = buf.slice(j);
      if (BODY_MARKERS.some((x) => x.startsWith(tail))) break;
    }
    j = buf.indexOf('<|', j + 2);
  }
  if (final) {
    take(sc, buf.slice(pos));
    sc.pos = n;
    return end(sc, '');
  }
  const keep = partialAt(buf, pos, BODY_MARKERS);
  if (keep > pos) {
    take(sc, buf.slice(pos, keep));
    sc.pos = keep;
  }
  return false;
}

function take(sc, s) {
  if (!s) return;
  const hm = sc.hm;
  if (hm.kind === REASONING) {
    sc._flushText();
    sc.out.push({ type: 'reasoning', text: s });
  } else if (hm.kind === CONTENT) {
    sc._emit(s);
  } else {
    hm.size += strings.codePoints(s, strings.lastUnit(hm.body));
    hm.body.push(s);
    if (hm.tap !== null) {
      hm.tap.feed(s);
      pull(sc);
      if (hm.tap.broken >= 0) {
        keep(sc, '');
        return;
      }
    }
    if (hm.size > sc.maxCapture && !(hm.tap !== null && hm.tap.started)) {
      // D43 (D37: not once a call is announced)
      sc._flushText();
      sc.out.push({ type: 'text', text: hm.head.join('') + hm.body.join(''), note: 'capture_limit' });
      hm.head = [];
      hm.body = [];
      hm.kind = CONTENT;
    }
  }
}

/** What the tap learned goes out (R16). */
function pull(sc) {
  const tap = sc.hm.tap;
  if (tap !== null && tap.out.length) {
    sc._flushText();
    for (const e of tap.out) sc.out.push(e);
    tap.out = [];
  }
}

/** R16.3: the announced call ends where its body stopped being a JSON object: its event, and the
 * rest of the message is content (`endToken`: the message ended too). */
function keep(sc, endToken) {
  const hm = sc.hm;
  const tap = hm.tap;
  const text = hm.body.join('');
  const cut = tap.broken;
  const whole = cut >= text.length;
  const raw = hm.head.join('') + text.slice(0, cut) + (whole ? endToken : '');
  sc.saw = true;
  sc._flushText();
  sc.out.push({ type: 'tool_calls', calls: tap.calls, raw, format: 'harmony', repaired: ['D37'] });
  hm.tap = null;
  hm.head = [];
  hm.body = [];
  hm.kind = CONTENT;
  sc._emit(text.slice(cut));
}

function end(sc, endToken) {
  const hm = sc.hm;
  const tap = hm.tap;
  if (tap !== null) {
    tap.finish();
    pull(sc);
    if (tap.broken < 0) {
      const text = hm.body.join('');
      const [ok, args] = strings.trim(text) ? values.jsonValue(text) : [true, {}];
      const isObject = ok && args !== null && typeof args === 'object' && !Array.isArray(args);
      if (!(isObject && sameCalls(tap.calls, [{ name: tap.name, input: args }]))) {
        tap.broken = text.length - lstripBlank(text.slice(tap.doneAt)).length;
      }
    }
    if (tap.broken >= 0) {
      keep(sc, endToken);
      sc.mode = TEXT_MODE;
      sc.line.midLine();
      return true;
    }
    hm.tap = null;
  }
  if (hm.kind === CALL) {
    const text = hm.body.join('');
    const raw = hm.head.join('') + text + endToken;
    sc.work += text.length;
    const fn = hm.recipient.startsWith('functions.');
    const name = strings.trim(fn ? hm.recipient.slice('functions.'.length) : hm.recipient);
    let ok = true;
    let args = {};
    if (strings.trim(text)) [ok, args] = values.jsonValue(text);
    sc.saw = true;
    sc._flushText();
    const e = { type: 'tool_calls', calls: [], raw, format: 'harmony' };
    let bad = null;
    if (!fn) bad = { raw: strings.trim(text), reason: 'built-in tool recipient', name: hm.recipient };
    else if (!name) bad = { raw: strings.trim(text), reason: 'no name' };
    else if (!ok || args === null || typeof args !== 'object' || Array.isArray(args)) {
      bad = { raw: strings.trim(text), reason: 'arguments are not a JSON object', name };
    }
    if (bad === null) e.calls.push({ name: sc._name(name), input: args });
    else e.malformed = [bad];
    sc.out.push(e);
  }
  hm.head = [];
  hm.body = [];
  sc.mode = TEXT_MODE;
  sc.line.midLine();
  return true;
}

module.exports = { Harmony, MAX_HEADER, start, step };
