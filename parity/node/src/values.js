'use strict';
/**
 * Parameter values (R6): CDATA, entities, JSON literals, XML children, repeated names.
 * Port of python/callsieve/values.py.
 *
 * A parameter body arrives from the scanner as segments: ['text', raw markup] and
 * ['cdata', content]. Everything here is a pure function of those segments.
 */

const { CLOSE_ANGLES, MORE, NO, matchCdataOpen } = require('./shell');
const { hasOwn, isObject, setKey } = require('./jsontext');
const { JS_SPACE, asciiLower, isBlank, jsonTrim, trim } = require('./strings');

// R6.5's raw-text parameter names, the entities of D13 and the JSON limits: generated from
// values.py (tables.js).
const { RAW_TEXT_NAMES, ENTITY_RE, NAMED, VALUES_JSON_START: JSON_START, VALUES_MAX_DEPTH: MAX_DEPTH } = require('./tables');

function entity(m0, body) {
  if (body[0] !== '#') return NAMED[body];
  const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
  if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return m0;
  return String.fromCodePoint(code);
}

/** D13: the five XML entities and numeric references; anything else stays as written. */
function decodeEntities(s) {
  if (!s.includes('&')) return s;
  if (s.length <= DECODE_BLOCK) return s.replace(ENTITY_RE, entity);
  // A long text goes by blocks: replace() with a function keeps every match until it is done
  // (about 10 bytes per character for code full of entities). A block never ends inside an
  // entity (one is at most 10 characters, starting with `&`).
  const out = [];
  const n = s.length;
  for (let i = 0; i < n; ) {
    let j = Math.min(n, i + DECODE_BLOCK);
    if (j < n) {
      const k = s.lastIndexOf('&', j - 1);
      if (k > i && k >= j - 10) j = k;
    }
    out.push(s.slice(i, j).replace(ENTITY_RE, entity));
    i = j;
  }
  return out.join('');
}

const DECODE_BLOCK = 1 << 16;

/**
 * [true, value] when `s` is a JSON text as JSON.parse accepts it (no NaN/Infinity).
 * Python's first-character check and `number_int` exist so the two agree.
 */
function jsonValue(s) {
  const t = jsonTrim(s);
  if (!t || !JSON_START.includes(t[0])) return [false, null];
  let v;
  try {
    v = JSON.parse(t);
  } catch (e) {
    return [false, null]; // SyntaxError; RangeError (Python: RecursionError)
  }
  // (a value is at most as deep as its text has openers: only a text with many is walked)
  if ((t[0] === '[' || t[0] === '{') && manyOpeners(t) && deeperThan(v, MAX_DEPTH)) return [false, null];
  return [true, v];
}

/** Does `t` hold more than MAX_DEPTH `[` and `{` (in strings too)? */
function manyOpeners(t) {
  if (t.length <= MAX_DEPTH) return false;
  let count = 0;
  for (let k = t.indexOf('[', 0); k >= 0; k = t.indexOf('[', k + 1)) if (++count > MAX_DEPTH) return true;
  for (let k = t.indexOf('{', 0); k >= 0; k = t.indexOf('{', k + 1)) if (++count > MAX_DEPTH) return true;
  return false;
}

/** D21: is the JSON value nested more than `limit` levels deep? (iterative) */
function deeperThan(v, limit) {
  const stack = [[v, 1]];
  while (stack.length) {
    const [x, d] = stack.pop();
    if (x !== null && typeof x === 'object') {
      if (d > limit) return true;
      for (const y of Array.isArray(x) ? x : Object.values(x)) stack.push([y, d + 1]);
    }
  }
  return false;
}

/** D9: `{..}, {..}` (comma-separated objects) as an array. */
function objectList(s) {
  const t = trim(s);
  if (!(t.startsWith('{') && t.endsWith('}'))) return [false, null];
  const [ok, v] = jsonValue('[' + t + ']');
  if (ok && Array.isArray(v) && v.length > 1 && v.every(isObject)) return [true, v];
  return [false, null];
}

/** A scalar text value: JSON when it is JSON (R6.3), an object list (D9), else the string. */
function literal(name, s) {
  let [ok, v] = jsonValue(s);
  if (ok) return v;
  if (!RAW_TEXT_NAMES.has(name)) {
    [ok, v] = objectList(s);
    if (ok) return v;
  }
  return s;
}

// ---- XML children (R6.4, R6.5) --------------------------------------------------------------

const TAG_RE = /<(\/?)([A-Za-z_][A-Za-z0-9_:.\-]*)((?:[ \t\n\r][^<>]*?)?)(\/?)>/y;
const BR_RE = /<[bB][rR][ \t\n\r]*\/?>/g;

class NotStructured extends Error {}

function element(name) {
  return { name, children: [], texts: [] }; // texts: ['text', decoded] / ['cdata', raw]
}

/**
 * Split segments into ['open'|'close'|'empty', name] and ['text'|'cdata', s] tokens. Nesting deeper
 * than D21 allows stops it at once: no token list the size of the value is built.
 */
function tokens(segments) {
  const out = [];
  let depth = 0;
  for (const [kind, s] of segments) {
    if (kind === 'cdata') {
      out.push(['cdata', s]);
      continue;
    }
    let i = 0;
    const n = s.length;
    while (i < n) {
      const lt = s.indexOf('<', i);
      if (lt < 0) {
        out.push(['text', s.slice(i)]);
        break;
      }
      if (lt > i) out.push(['text', s.slice(i, lt)]);
      const cEnd = matchCdataOpen(s, lt, true);
      if (cEnd !== MORE && cEnd !== NO) {
        const close = findCdataClose(s, cEnd);
        if (close < 0) return null;
        out.push(['cdata', s.slice(cEnd, close)]);
        i = close + 3;
        continue;
      }
      TAG_RE.lastIndex = lt;
      const m = TAG_RE.exec(s);
      if (m === null) return null; // a '<' that is not markup: not structured
      if (m[1]) {
        out.push(['close', m[2]]);
        depth -= 1;
      } else if (m[4]) {
        out.push(['empty', m[2]]);
      } else {
        out.push(['open', m[2]]);
        depth += 1;
        if (depth > MAX_DEPTH) return null; // build would refuse it too
      }
      i = lt + m[0].length;
    }
  }
  return out;
}

function findCdataClose(s, i) {
  for (;;) {
    const k = s.indexOf(']]', i);
    if (k < 0 || k + 2 >= s.length) return -1;
    if (CLOSE_ANGLES.includes(s[k + 2])) return k;
    i = k + 1;
  }
}

function build(toks) {
  const root = element('');
  const stack = [root];
  for (const [kind, v] of toks) {
    const top = stack[stack.length - 1];
    if (kind === 'open') {
      const el = element(v);
      top.children.push(el);
      stack.push(el);
      if (stack.length > MAX_DEPTH + 1) return null;
    } else if (kind === 'empty') {
      top.children.push(element(v));
    } else if (kind === 'close') {
      if (stack.length === 1 || top.name !== v) return null;
      stack.pop();
    } else if (kind === 'text') {
      top.texts.push(['text', v]);
    } else {
      top.texts.push(['cdata', v]);
    }
  }
  if (stack.length !== 1) return null;
  return root;
}

function leaf(el) {
  const texts = el.texts;
  if (texts.length === 1 && texts[0][0] === 'cdata') return literal(el.name, texts[0][1]);
  const parts = texts.map(([k, s]) => (k === 'text' ? decodeEntities(s) : s));
  return literal(el.name, trim(parts.join('')));
}

function value(el) {
  if (!el.children.length) return leaf(el);
  if (el.texts.some(([k, s]) => k === 'cdata' || !isBlank(s))) throw new NotStructured('mixed content');
  if (el.children.every((c) => c.name === 'item')) return el.children.map(value);
  const obj = {};
  const multi = new Set();
  for (const c of el.children) {
    const v = value(c);
    if (hasOwn(obj, c.name)) {
      if (!multi.has(c.name)) {
        setKey(obj, c.name, [obj[c.name]]);
        multi.add(c.name);
      }
      obj[c.name].push(v);
    } else {
      setKey(obj, c.name, v);
    }
  }
  return obj;
}

/**
 * Parse segments as an XML fragment of elements (R6.4). With `clearly`, only a clearly
 * structured fragment counts (R6.5): several top-level elements, one `item`, or one element
 * with child elements.
 */
function structured(segments, clearly) {
  const toks = tokens(segments);
  if (toks === null) return [false, null];
  const root = build(toks);
  if (root === null || !root.children.length) return [false, null];
  if (clearly) {
    const kids = root.children;
    if (!(kids.length > 1 || kids[0].name === 'item' || kids[0].children.length)) return [false, null];
  }
  try {
    return [true, value(root)];
  } catch (e) {
    if (e instanceof NotStructured || e instanceof RangeError) return [false, null];
    throw e;
  }
}

/**
 * The value of one parameter from its body segments (R6.1-R6.5, R6.7, D9), or by its `string`
 * attribute (R14.2, D24) when it says "true" or "false".
 */
function paramValue(name, segments, string = null) {
  const typed = string !== null && string !== undefined ? asciiLower(trim(string)) : '';
  if (typed === 'true') return asWritten(segments);
  if (typed === 'false') {
    const raw = trim(asWritten(segments));
    const [ok, v] = jsonValue(raw);
    return ok ? v : raw;
  }
  const key = trim(name).toLowerCase();
  let cdatas = 0; // CDATA segments, the last one's content in `raw`
  let raw = '';
  let textsBlank = true;
  for (const [k, s] of segments) {
    if (k === 'cdata') {
      cdatas += 1;
      raw = s;
    } else if (textsBlank && k === 'text' && !isBlank(s)) {
      textsBlank = false;
    }
  }
  if (cdatas === 1 && textsBlank) {
    let [ok, v] = jsonValue(raw);
    if (ok) return v;
    if (RAW_TEXT_NAMES.has(key)) return raw;
    [ok, v] = objectList(raw);
    if (ok) return v;
    if (raw.includes('<')) {
      [ok, v] = structured([['text', raw.replace(BR_RE, '\n')]], true);
      if (ok) return v;
    }
    return raw;
  }
  if (segments.some(([k, s]) => k === 'text' && s.includes('<'))) {
    const [ok, v] = structured(segments, false);
    if (ok) return v;
  }
  const parts = segments.map(([k, s]) => (k === 'text' ? decodeEntities(s) : s));
  return literal(key, trim(parts.join('')));
}

/**
 * D24: the body as written: no entity decoding, no trimming; CDATA sections are unwrapped, and a
 * body that is one CDATA between blanks is its content.
 */
function asWritten(segments) {
  if (segments.some(([k]) => k === 'cdata') && segments.every(([k, s]) => k !== 'text' || isBlank(s))) {
    return segments.filter(([k]) => k === 'cdata').map(([, s]) => s).join('');
  }
  return segments.map(([, s]) => s).join('');
}

/** Collect parameters into the input object; a repeated name becomes an array (R6.6). */
function invokeInput(params) {
  const out = {};
  const multi = new Set();
  for (const [name, v] of params) addParam(out, multi, name, v);
  return out;
}

/** One parameter into the input object being built (`multi`: the names already arrays). */
function addParam(out, multi, name, v) {
  if (hasOwn(out, name)) {
    if (!multi.has(name)) {
      setKey(out, name, [out[name]]);
      multi.add(name);
    }
    out[name].push(v);
  } else {
    setKey(out, name, v);
  }
}

const BAD_ESCAPE = /\\(?!["\\/bfnrtu])/g;

/**
 * R9: the calls of a JSON object in prose and whether they were read only after R9.2's repair,
 * or null when it is not a tool call.
 *
 * Accepted: `{"tool_calls": [item, ...]}` and a single item, where an item is
 * `{"name", "input": {..}}`, `{"name", "arguments": {..} | "<JSON object text>"}`,
 * `{"name", "parameters": {..}}`, or OpenAI's `{"type": "function", "function": {...}}`.
 * A chat message envelope (with `role` or `content`) is not a call. Invalid backslashes are
 * the one narrow repair (R9.2).
 */
function jsonCalls(text) {
  let [ok, v] = jsonValue(text);
  const repaired = !ok;
  if (repaired) [ok, v] = jsonValue(text.replace(BAD_ESCAPE, '\\\\'));
  if (!ok || !isObject(v) || hasOwn(v, 'role') || hasOwn(v, 'content')) return null;
  let calls;
  if (hasOwn(v, 'tool_calls')) {
    const items = v.tool_calls;
    if (Object.keys(v).length !== 1 || !Array.isArray(items) || !items.length) return null;
    calls = items.map((x) => jsonItem(x, false));
  } else {
    calls = [jsonItem(v, true)];
  }
  if (calls.some((c) => c === null)) return null;
  return [calls, repaired];
}

function jsonItem(item, bare) {
  if (!isObject(item)) return null;
  if (hasOwn(item, 'type') && item.type === 'function' && hasOwn(item, 'function') && isObject(item.function)) {
    item = item.function;
  }
  const name = hasOwn(item, 'name') ? item.name : undefined;
  if (typeof name !== 'string' || isBlank(name)) return null;
  for (const key of ['input', 'arguments', 'parameters']) {
    if (hasOwn(item, key)) {
      let args = item[key];
      if (typeof args === 'string') {
        if (isBlank(args)) return { name: trim(name), input: {} };
        let ok;
        [ok, args] = jsonValue(args);
        if (!ok) return null;
      }
      return isObject(args) ? { name: trim(name), input: args } : null;
    }
  }
  return bare ? null : { name: trim(name), input: {} };
}

/** D5: an invoke whose body is a JSON object; `{"input": {...}}` unwraps. */
function jsonBodyInput(text) {
  const [ok, v] = jsonValue(text);
  if (!ok || !isObject(v)) return null;
  const keys = Object.keys(v);
  if (keys.length === 1 && keys[0] === 'input' && isObject(v.input)) return v.input;
  return v;
}

module.exports = {
  RAW_TEXT_NAMES,
  decodeEntities,
  jsonValue,
  literal,
  structured,
  paramValue,
  invokeInput,
  addParam,
  jsonBodyInput,
  jsonCalls,
};
