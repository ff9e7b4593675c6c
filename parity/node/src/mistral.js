'use strict';
/**
 * Mistral tool calls (R17.7): the scanner's MISTRAL mode, from `[TOOL_CALLS]` to the end of its JSON.
 * Port of python/callsieve/mistral.py, function for function; read the module docstring there.
 * MAX_HEAD and the capture limit count code points, as Python does.
 */

const strings = require('./strings');
const values = require('./values');
const { Body, jsonItem, nameOk } = require('./blocks');
const { sameCalls } = require('./blocktap');
const { ObjectTap } = require('./jsontaps');

// The markers and the head's limit: generated from mistral.py (tables.js).
const { MARKER, ARGS, CALL_ID, MISTRAL_MAX_HEAD: MAX_HEAD } = require('./tables');
const OUT = /["{}\[\]]/g;
const IN = /["\\]/g;
const HEAD = 0;
const JSON_STAGE = 1;

class Mistral {
  constructor() {
    this.stage = HEAD;
    this.head = [];
    this.size = 0;
    this.json = [];
    this.depth = 0;
    this.inStr = false;
    this.esc = false;
    this.over = false;
    this.blank = true;
    this.tap = null; // R16: a v11 call's arguments as they arrive
  }
}

/** Whether `buf[i]` ends a surrogate pair: its high half is the code unit before it, which may be in the held head. */
function endsPair(sc, i) {
  const prev = i > sc.pos ? sc.buf.charCodeAt(i - 1) : strings.lastUnit(sc.mi.head);
  return strings.isLow(sc.buf.charCodeAt(i)) && strings.isHigh(prev);
}

/** `[TOOL_CALLS]` at `s[i]`: [marker, end], 'more', or null. */
function matchMarker(s, i, final) {
  if (s.startsWith(MARKER, i)) return [MARKER, i + MARKER.length];
  if (!final && s.length - i < MARKER.length && MARKER.startsWith(s.slice(i))) return 'more';
  return null;
}

function start(sc, end) {
  const m = sc.mi;
  m.stage = HEAD;
  m.head = [];
  m.size = 0;
  m.json = [];
  m.depth = 0;
  m.inStr = false;
  m.esc = false;
  m.over = false;
  m.blank = true;
  m.tap = null;
  sc.pos = end;
}

function step(sc, final) {
  return sc.mi.stage === HEAD ? head(sc, final) : json(sc, final);
}

function tagAt(buf, i, final) {
  for (const tag of [ARGS, CALL_ID]) if (buf.startsWith(tag, i)) return tag;
  const rest = buf.slice(i, i + CALL_ID.length);
  if (!final && [ARGS, CALL_ID].some((t) => rest.length < t.length && buf.length - i < t.length && t.startsWith(rest))) return 'more';
  return null;
}

function head(sc, final) {
  const m = sc.mi;
  const buf = sc.buf;
  const pos = sc.pos;
  const n = buf.length;
  let i = pos;
  while (i < n) {
    const c = buf[i];
    if (c === '\n' || (m.size >= MAX_HEAD && !endsPair(sc, i))) return fails(sc, i);
    if (c === '[') {
      const tag = tagAt(buf, i, final);
      if (tag === 'more') break;
      if (tag === ARGS) {
        let k = i + ARGS.length;
        const room = MAX_HEAD - m.size - ARGS.length;
        while (k < n && (buf[k] === ' ' || buf[k] === '\t') && k - i - ARGS.length < room) k++;
        if (k === n && !final) break;
        if (k < n && buf[k] === '{') {
          m.head.push(buf.slice(pos, k));
          sc.pos = k;
          m.stage = JSON_STAGE;
          m.size = 0;
          if (sc.stream) announce(sc);
          return true;
        }
        return fails(sc, k);
      }
      if (tag === null && m.blank) return jsonStarts(sc, i);
    } else if (c === '{' && m.blank) {
      return jsonStarts(sc, i);
    }
    if (c !== ' ' && c !== '\t') m.blank = false;
    if (!endsPair(sc, i)) m.size++;
    i++;
  }
  if (final) return fails(sc, n);
  m.head.push(buf.slice(pos, i));
  sc.pos = i;
  return false;
}

function fails(sc, at) {
  const m = sc.mi;
  const text = MARKER + m.head.join('') + sc.buf.slice(sc.pos, at);
  sc.pos = at;
  sc._emit(text);
  sc._textResumes(text);
  return true;
}

function jsonStarts(sc, i) {
  const m = sc.mi;
  m.head.push(sc.buf.slice(sc.pos, i));
  sc.pos = i;
  m.stage = JSON_STAGE;
  m.size = 0;
  return true;
}

function json(sc, final) {
  const m = sc.mi;
  const buf = sc.buf;
  const pos = sc.pos;
  const n = buf.length;
  let i = pos;
  while (i < n) {
    if (m.inStr) {
      if (m.esc) {
        m.esc = false;
        i++;
        continue;
      }
      IN.lastIndex = i;
      const hit = IN.exec(buf);
      if (hit === null) {
        i = n;
        break;
      }
      i = hit.index + 1;
      if (hit[0] === '\\') m.esc = true;
      else m.inStr = false;
      continue;
    }
    OUT.lastIndex = i;
    const hit = OUT.exec(buf);
    if (hit === null) {
      i = n;
      break;
    }
    const c = hit[0];
    i = hit.index + 1;
    if (c === '"') m.inStr = true;
    else if (c === '{' || c === '[') m.depth++;
    else {
      m.depth--;
      if (m.depth <= 0) {
        take(sc, buf.slice(pos, i));
        sc.pos = i;
        return end(sc, true);
      }
    }
  }
  take(sc, buf.slice(pos, i));
  sc.pos = i;
  if (final) return end(sc, false);
  return false;
}

/** A v11 head, `NAME[CALL_ID]ID[ARGS]`: its name (trimmed) and id. */
function nameAndId(head) {
  let name = head;
  let id = null;
  const k = head.indexOf(ARGS);
  if (k >= 0) name = head.slice(0, k);
  const c = name.indexOf(CALL_ID);
  if (c >= 0) {
    id = strings.trim(name.slice(c + CALL_ID.length)) || null;
    name = name.slice(0, c);
  }
  return [strings.trim(name), id];
}

/** R16: a v11 call whose name is valid is announced as its JSON starts. */
function announce(sc) {
  const m = sc.mi;
  const [name, id] = nameAndId(strings.trim(m.head.join('')));
  if (nameOk(name)) {
    m.tap = new ObjectTap(sc.typer, sc._name(name), id);
    pull(sc);
  }
}

function pull(sc) {
  const tap = sc.mi.tap;
  if (tap !== null && tap.out.length) {
    sc._flushText();
    for (const e of tap.out) sc.out.push(e);
    tap.out = [];
  }
}

/** R16.3: the announced call ends where its JSON stopped being an object: its event, and the
 * rest of the JSON value is text, as it comes. */
function keep(sc) {
  const m = sc.mi;
  const tap = m.tap;
  const text = m.json.join('');
  const cut = tap.broken;
  sc.saw = true;
  sc._flushText();
  const raw = MARKER + m.head.join('') + text.slice(0, cut);
  sc.out.push({ type: 'tool_calls', calls: tap.calls, raw, format: 'mistral', repaired: ['D37'] });
  m.tap = null;
  m.json = [];
  m.over = true;
  sc._emit(text.slice(cut));
}

function take(sc, s) {
  const m = sc.mi;
  if (m.over) {
    sc._emit(s);
    return;
  }
  m.size += strings.codePoints(s, strings.lastUnit(m.json));
  m.json.push(s);
  if (m.tap !== null) {
    m.tap.feed(s);
    pull(sc);
    if (m.tap.broken >= 0) {
      keep(sc);
      return;
    }
    if (m.tap.started) return; // (the capture limit stops applying to an announced call, D37)
  }
  if (m.size > sc.maxCapture) {
    sc._flushText();
    sc.out.push({ type: 'text', text: MARKER + m.head.join('') + m.json.join(''), note: 'capture_limit' });
    m.json = [];
    m.over = true;
  }
}

function end(sc, complete) {
  const m = sc.mi;
  const tap = m.tap;
  if (tap !== null && !m.over) {
    tap.finish();
    pull(sc);
    if (tap.broken < 0) {
      const got = complete ? calls(m.head.join(''), m.json.join('')) : null;
      if (got === null || got[1].length || !sameCalls(tap.calls, got[0])) {
        const text = m.json.join('');
        let j = tap.doneAt;
        while (j < text.length && strings.JS_SPACE.includes(text[j])) j++;
        tap.broken = j;
      }
    }
    if (tap.broken >= 0) {
      keep(sc);
      sc._resumeText();
      return true;
    }
    m.tap = null;
  }
  if (m.over) {
    sc._resumeText();
    return true;
  }
  const h = m.head.join('');
  const text = m.json.join('');
  const raw = MARKER + h + text;
  sc.work += text.length;
  const got = complete ? calls(h, text) : null;
  if (got === null || !(got[0].length || got[1].length)) {
    // (an empty list holds no call the model meant: D46)
    sc._emit(raw);
    sc._textResumes(raw);
    return true;
  }
  const [found, bad] = got;
  sc.saw = true;
  sc._flushText();
  const e = {
    type: 'tool_calls',
    calls: found.map((c) => (c.id === undefined ? { name: sc._name(c.name), input: c.input } : { name: sc._name(c.name), input: c.input, id: c.id })),
    raw,
    format: 'mistral',
  };
  if (bad.length) e.malformed = bad;
  sc.out.push(e);
  sc._resumeText();
  return true;
}

function isDict(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function bad(raw, reason, name = null) {
  return name === null ? { raw, reason } : { raw, reason, name };
}

function calls(head, text) {
  const found = [];
  const wrong = [];
  const [ok, v] = values.jsonValue(text);
  const h = strings.trim(head);
  if (!h) {
    if (!ok) {
      wrong.push(bad(strings.trim(text), 'not JSON'));
      return [found, wrong];
    }
    const out = new Body();
    for (const item of Array.isArray(v) ? v : [v]) jsonItem(item, out, null); // (as Hermes' items, R17.1)
    return [out.calls, out.malformed];
  }
  const [name, id] = nameAndId(h);
  if (!nameOk(name)) wrong.push(bad(strings.trim(head + text), 'invalid name', name || null));
  else if (!ok || !isDict(v)) wrong.push(bad(strings.trim(text), 'arguments are not a JSON object', name));
  else found.push(id === null ? { name, input: v } : { name, input: v, id });
  return [found, wrong];
}

module.exports = { MARKER, Mistral, matchMarker, start, step };
