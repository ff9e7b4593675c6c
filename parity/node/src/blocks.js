'use strict';
/**
 * The block engine's grammars (R17): the body of one held block, read once it is whole.
 * Port of python/callsieve/blocks.py, function for function; read the module docstring there.
 * Names and attribute values are bounded in code points (the `u` flag), as Python counts.
 */

const strings = require('./strings');
const values = require('./values');
const { jsonText } = require('./jsontext');

const JS_SPACE = strings.JS_SPACE;
// The grammars' markers and limits: generated from blocks.py (tables.js).
const {
  NOT_NAME,
  NAME_MAX,
  FN,
  FN_END,
  P,
  P_END,
  K,
  K_END,
  V,
  V_END,
  ATTR, // the regex source of a name attribute and the tag's end
  INV_END,
  PARAM_END,
  KB,
  KA,
  KE,
  ESCAPES: PY_ESCAPES,
  BLOCKS_MAX_DEPTH: MAX_DEPTH,
} = require('./tables');
const NAME = new RegExp('^[^' + escapeClass(NOT_NAME) + `]{1,${NAME_MAX}}$`, 'u');

function escapeClass(s) {
  return s.replace(/[\\\]\[^-]/g, '\\$&');
}

/** What a grammar read: the calls and the malformed ones, in block order. */
class Body {
  constructor() {
    this.calls = [];
    this.malformed = [];
  }

  bad(raw, reason, name = null) {
    this.malformed.push(name === null ? { raw, reason } : { raw, reason, name });
  }
}

function call(name, input, id = null) {
  return id === null ? { name, input } : { name, input, id };
}

// R17.9: (tool name, parameter, raw text) -> the value typed by the declared schema, or NO_SCHEMA.
const NO_SCHEMA = Symbol('NO_SCHEMA');

function rawValue(typer, name, key, raw, glm = false) {
  if (typer) {
    const v = typer(name, key, raw);
    if (v !== NO_SCHEMA) return v;
  }
  return glm ? glmValue(raw) : raw;
}

/** Forward-only marker search over one body: each marker's text is scanned at most once. */
class Finder {
  constructor(s) {
    this.s = s;
    this.at = new Map();
  }

  find(marker, i) {
    let k = this.at.has(marker) ? this.at.get(marker) : -2;
    if (k === -1 || k >= i) return k;
    k = this.s.indexOf(marker, i);
    this.at.set(marker, k);
    return k;
  }
}

function nameOk(name) {
  return NAME.test(name);
}

function isDict(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function jsonObject(text) {
  const [ok, v] = values.jsonValue(text);
  return ok && isDict(v) ? v : null;
}

function skipBlank(s, i, stop = -1) {
  const n = stop < 0 ? s.length : stop;
  while (i < n && JS_SPACE.includes(s[i])) i++;
  return i;
}

function minOf(xs) {
  let m = Infinity;
  for (const x of xs) if (x >= 0 && x < m) m = x;
  return m;
}

// ---- R17.1 Hermes: one JSON object per block ---------------------------------------------------

function jsonCall(body, typer = null) {
  const out = new Body();
  const [ok, v] = values.jsonValue(body);
  if (!ok) {
    out.bad(strings.trim(body), 'not JSON');
    return out;
  }
  const items = Array.isArray(v) && v.length ? v : [v];
  for (const item of items) jsonItem(item, out, items.length === 1 ? body : null, item === v);
  return out;
}

function jsonItem(item, out, raw, lone = false) {
  const text = raw !== null ? strings.trim(raw) : jsonText(item);
  if (!isDict(item)) {
    out.bad(text, 'not a JSON object');
    return;
  }
  let name = Object.prototype.hasOwnProperty.call(item, 'name') ? item.name : undefined;
  if (typeof name !== 'string' || !strings.trim(name)) {
    out.bad(text, 'no name');
    return;
  }
  name = strings.trim(name);
  const has = (k) => Object.prototype.hasOwnProperty.call(item, k);
  let args = has('arguments') ? item.arguments : has('parameters') ? item.parameters : {};
  if (typeof args === 'string') {
    const obj = strings.trim(args) ? jsonObject(args) : {};
    if (obj === null) {
      out.bad(text, 'arguments are not a JSON object', name);
      return;
    }
    args = obj;
  }
  if (args === null) args = {};
  if (!isDict(args)) {
    out.bad(text, 'arguments are not a JSON object', name);
    return;
  }
  const id = has('id') && !(lone && lateId(item)) ? item.id : undefined;
  out.calls.push(call(name, args, typeof id === 'string' && id ? id : null));
}

/**
 * D63: is `id` written after the arguments object that announces a lone Hermes call with
 * streamArguments (D62)? Such an id is not the call's, so that the call is the same however it
 * streams: an OpenAI stream's first delta of a call carries its id (R16.5).
 */
function lateId(item) {
  const keys = Object.keys(item);
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    if (key === 'arguments' || key === 'parameters') {
      return isDict(item[key]) && keys.slice(0, k).includes('name') && keys.indexOf('id') > k;
    }
  }
  return false;
}

// ---- R17.2 Qwen3-Coder / Seed-OSS -------------------------------------------------------------

function oneNewline(v) {
  if (v.startsWith('\r\n')) v = v.slice(2);
  else if (v.startsWith('\n')) v = v.slice(1);
  if (v.endsWith('\r\n')) v = v.slice(0, -2);
  else if (v.endsWith('\n')) v = v.slice(0, -1);
  return v;
}

/** The first `what` in [from, stop) or -1, through the body's forward-only Finder (linear). */
function findBefore(f, what, from, stop) {
  const k = f.find(what, from);
  return k >= 0 && k < stop ? k : -1;
}

function functionTags(body, typer = null) {
  const out = new Body();
  const f = new Finder(body);
  let i = skipBlank(body, 0);
  if (!body.startsWith(FN, i)) return null;
  const n = body.length;
  while (i < n) {
    if (!body.startsWith(FN, i)) {
      const rest = strings.trim(body.slice(i));
      if (rest) out.bad(rest, 'text between calls');
      break;
    }
    const nxt = f.find(FN, i + FN.length);
    const end = f.find(FN_END, i);
    const stop = minOf([nxt, end, n]);
    const callEnd = end >= 0 && end === stop ? end + FN_END.length : stop;
    const raw = body.slice(i, callEnd);
    const gt = findBefore(f, '>', i + FN.length, stop);
    if (gt < 0) {
      out.bad(strings.trim(raw), 'unterminated function tag');
      i = skipBlank(body, callEnd);
      continue;
    }
    const name = strings.trim(body.slice(i + FN.length, gt));
    if (!nameOk(name)) {
      out.bad(strings.trim(raw), 'invalid name', name || null);
      i = skipBlank(body, callEnd);
      continue;
    }
    const args = parameters(body, gt + 1, stop, f, name, typer);
    if (args === null) out.bad(strings.trim(raw), 'broken parameter', name);
    else out.calls.push(call(name, args));
    i = skipBlank(body, callEnd);
  }
  return out;
}

function parameters(body, i, stop, f, name, typer) {
  const args = {};
  for (;;) {
    i = skipBlank(body, i, stop);
    if (i >= stop) return args;
    if (!body.startsWith(P, i)) return null; // text where a parameter belongs
    const gt = findBefore(f, '>', i + P.length, stop);
    if (gt < 0) return null;
    const key = strings.trim(body.slice(i + P.length, gt));
    if (!key) return null;
    const close = f.find(P_END, gt + 1);
    const nxt = f.find(P, gt + 1);
    const vEnd = minOf([close, nxt, stop].filter((x) => x <= stop));
    setKey(args, key, rawValue(typer, name, key, oneNewline(body.slice(gt + 1, vEnd))));
    i = vEnd === close ? vEnd + P_END.length : vEnd;
  }
}

function setKey(obj, key, value) {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

// ---- R17.3 GLM --------------------------------------------------------------------------------

function argPairs(body, typer = null) {
  const out = new Body();
  const k = body.indexOf(K);
  const name = strings.trim(k < 0 ? body : body.slice(0, k));
  if (!nameOk(name)) return null; // no name where GLM writes one: not this format
  const args = {};
  let i = k < 0 ? body.length : k;
  const n = body.length;
  for (;;) {
    i = skipBlank(body, i);
    if (i >= n) break;
    const ke = body.startsWith(K, i) ? body.indexOf(K_END, i) : -1;
    const vs = ke >= 0 ? skipBlank(body, ke + K_END.length) : -1;
    const ve = vs >= 0 && body.startsWith(V, vs) ? body.indexOf(V_END, vs) : -1;
    if (ve < 0) {
      out.bad(strings.trim(body), 'broken argument pair', name);
      return out;
    }
    const key = strings.trim(body.slice(i + K.length, ke));
    setKey(args, key, rawValue(typer, name, key, body.slice(vs + V.length, ve), true));
    i = ve + V_END.length;
  }
  out.calls.push(call(name, args));
  return out;
}

function glmValue(v) {
  const [ok, got] = values.jsonValue(v);
  if (ok) return got;
  const t = strings.trim(v);
  if (t === 'True') return true;
  if (t === 'False') return false;
  if (t === 'None') return null;
  return v;
}

// ---- R17.4 MiniMax-M2 -------------------------------------------------------------------------

const INV = new RegExp('<invoke[ \\t]+' + ATTR, 'uy');
const PARAM = new RegExp('<parameter[ \\t]+' + ATTR, 'uy');

function matchAt(re, s, i) {
  re.lastIndex = i;
  return re.exec(s);
}

function invokeTags(body, typer = null) {
  const out = new Body();
  const f = new Finder(body);
  const n = body.length;
  let i = skipBlank(body, 0);
  if (i >= n) return null;
  while (i < n) {
    const m = matchAt(INV, body, i);
    if (m === null) {
      const nxt = f.find('<invoke', i + 1);
      const stop = nxt < 0 ? n : nxt;
      out.bad(strings.trim(body.slice(i, stop)), 'not an invoke');
      i = skipBlank(body, stop);
      continue;
    }
    const mEnd = m.index + m[0].length;
    const name = strings.trim(m[1] || m[2] || m[3] || '');
    const end = f.find(INV_END, mEnd);
    const nxt = f.find('<invoke', mEnd);
    const stop = minOf([end, nxt, n]);
    const callEnd = end >= 0 && end === stop ? end + INV_END.length : stop;
    const raw = strings.trim(body.slice(i, callEnd));
    const args = namedParams(body, mEnd, stop, f, name, typer);
    if (!nameOk(name)) out.bad(raw, 'invalid name', name || null);
    else if (args === null) out.bad(raw, 'broken parameter', name);
    else out.calls.push(call(name, args));
    i = skipBlank(body, callEnd);
  }
  return out;
}

function namedParams(body, i, stop, f, name, typer) {
  const args = {};
  for (;;) {
    i = skipBlank(body, i, stop);
    if (i >= stop) return args;
    const m = matchAt(PARAM, body, i);
    if (m === null || m.index + m[0].length > stop) return null;
    const mEnd = m.index + m[0].length;
    const key = strings.trim(m[1] || m[2] || m[3] || '');
    const close = f.find(PARAM_END, mEnd);
    if (!key || close < 0 || close > stop) return null;
    setKey(args, key, rawValue(typer, name, key, strings.trim(body.slice(mEnd, close))));
    i = close + PARAM_END.length;
  }
}

// ---- R17.5 Kimi-K2 ----------------------------------------------------------------------------

function kimiCalls(body, typer = null) {
  const out = new Body();
  const f = new Finder(body);
  const n = body.length;
  let i = skipBlank(body, 0);
  while (i < n) {
    if (!body.startsWith(KB, i)) {
      const nxt = f.find(KB, i);
      const stop = nxt < 0 ? n : nxt;
      out.bad(strings.trim(body.slice(i, stop)), 'text between calls');
      i = stop;
      continue;
    }
    const end = f.find(KE, i);
    const nxt = f.find(KB, i + KB.length);
    if (end < 0 || (nxt >= 0 && nxt < end)) {
      const stop = nxt < 0 ? n : nxt;
      out.bad(strings.trim(body.slice(i, stop)), 'call without its end');
      i = stop;
      continue;
    }
    const raw = body.slice(i, end + KE.length);
    const sep = f.find(KA, i);
    if (sep < 0 || sep > end) {
      out.bad(raw, 'no argument marker');
    } else {
      const id = strings.trim(body.slice(i + KB.length, sep));
      const name = kimiName(id);
      const argText = body.slice(sep + KA.length, end);
      const args = strings.trim(argText) ? jsonObject(argText) : {};
      if (!nameOk(name)) out.bad(raw, 'invalid name', name || null);
      else if (args === null) out.bad(raw, 'arguments are not a JSON object', name);
      else out.calls.push(call(name, args, id));
    }
    i = skipBlank(body, end + KE.length);
  }
  return out;
}

function kimiName(id) {
  let s = id;
  if (s.startsWith('functions.')) s = s.slice('functions.'.length);
  const c = s.lastIndexOf(':');
  if (c > 0 && /^[0-9]+$/.test(s.slice(c + 1))) s = s.slice(0, c);
  return strings.trim(s);
}

// ---- R17.8 Llama 4 pythonic: [f(a=1, b="x"), g()] ---------------------------------------------

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
// Python's numeric escapes: \xHH, \uHHHH, \UHHHHHHHH, and up to three octal digits.
const NUM_ESCAPE = /x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}/y;
const FAIL = [false, null];

/** A cursor over a pythonic call list (Python's `_Py`). */
class Py {
  constructor(s) {
    this.s = s;
    this.i = 0;
  }

  ws() {
    this.i = skipBlank(this.s, this.i);
  }

  eat(c) {
    this.ws();
    if (this.s.startsWith(c, this.i)) {
      this.i += c.length;
      return true;
    }
    return false;
  }

  ident() {
    this.ws();
    IDENT.lastIndex = this.i;
    const m = IDENT.exec(this.s);
    if (m === null) return null;
    this.i = IDENT.lastIndex;
    return m[0];
  }

  value(depth) {
    this.ws();
    const s = this.s;
    const i = this.i;
    if (depth >= MAX_DEPTH || i >= s.length) return FAIL; // (depth counts the containers around this value)
    const c = s[i];
    if (c === "'" || c === '"') return this.string(c);
    if (c === '[' || c === '(') return this.items(c === '[' ? ']' : ')', depth);
    if (c === '{') return this.mapping(depth);
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(s);
    if (m !== null) {
      this.i = NUMBER.lastIndex;
      return values.jsonValue(m[0]);
    }
    const word = this.ident();
    if (word === 'True') return [true, true];
    if (word === 'False') return [true, false];
    if (word === 'None') return [true, null];
    return FAIL;
  }

  string(q) {
    const s = this.s;
    let i = this.i + 1;
    const out = [];
    let start = i;
    const n = s.length;
    while (i < n) {
      const c = s[i];
      if (c === q) {
        out.push(s.slice(start, i));
        this.i = i + 1;
        return [true, out.join('')];
      }
      if (c === '\n' || c === '\r') return FAIL; // (no string holds a line break: Python's newlines are LF, CR LF, CR)
      if (c === '\\' && i + 1 < n) {
        out.push(s.slice(start, i));
        const e = s[i + 1];
        if (e === '\n' || e === '\r') {
          // a line continuation: nothing
          i += s.startsWith('\r\n', i + 1) ? 3 : 2;
          start = i;
          continue;
        }
        NUM_ESCAPE.lastIndex = i + 1;
        const m = NUM_ESCAPE.exec(s);
        if (m !== null) {
          const t = m[0];
          const cp = '01234567'.includes(t[0]) ? parseInt(t, 8) : parseInt(t.slice(1), 16);
          if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return FAIL; // a surrogate half: no string of every runtime
          out.push(String.fromCodePoint(cp));
          i = NUM_ESCAPE.lastIndex;
        } else {
          out.push(Object.prototype.hasOwnProperty.call(PY_ESCAPES, e) ? PY_ESCAPES[e] : '\\' + e);
          i += 2;
        }
        start = i;
        continue;
      }
      i++;
    }
    return FAIL;
  }

  items(close, depth) {
    this.i += 1;
    const out = [];
    for (;;) {
      if (this.eat(close)) return [true, out];
      const [ok, v] = this.value(depth + 1);
      if (!ok) return FAIL;
      out.push(v);
      if (!this.eat(',')) return this.eat(close) ? [true, out] : FAIL;
    }
  }

  mapping(depth) {
    this.i += 1;
    const out = {};
    for (;;) {
      if (this.eat('}')) return [true, out];
      const [ok, k] = this.value(depth + 1);
      if (!ok || typeof k !== 'string' || !this.eat(':')) return FAIL;
      const [ok2, v] = this.value(depth + 1);
      if (!ok2) return FAIL;
      setKey(out, k, v);
      if (!this.eat(',')) return this.eat('}') ? [true, out] : FAIL;
    }
  }

  call() {
    let name = this.ident();
    if (name === null) return null;
    while (this.s.startsWith('.', this.i)) {
      this.i += 1;
      const part = this.ident();
      if (part === null) return null;
      name += '.' + part;
    }
    if (!this.eat('(')) return null;
    const args = {};
    for (;;) {
      if (this.eat(')')) return call(name, args);
      const key = this.ident();
      if (key === null || !this.eat('=')) return null;
      const [ok, v] = this.value(0);
      if (!ok) return null;
      setKey(args, key, v);
      if (!this.eat(',')) return this.eat(')') ? call(name, args) : null;
    }
  }
}

function pythonicCalls(body) {
  const out = new Body();
  const p = new Py(body);
  p.ws();
  if (p.i >= body.length) return null;
  const calls = [];
  let ok = true;
  if (p.eat('[')) {
    for (;;) {
      if (p.eat(']')) break;
      const c = p.call();
      if (c === null) {
        ok = false;
        break;
      }
      calls.push(c);
      if (!p.eat(',')) {
        ok = p.eat(']');
        break;
      }
    }
  } else {
    const c = p.call();
    ok = c !== null;
    if (c !== null) calls.push(c);
  }
  p.ws();
  if (!ok || p.i !== body.length) {
    out.bad(strings.trim(body), 'not a Python call list');
    return out;
  }
  out.calls = calls;
  return out;
}

const GRAMMARS = Object.freeze({
  json_call: jsonCall,
  function_tags: functionTags,
  arg_pairs: argPairs,
  invoke_tags: invokeTags,
  kimi_calls: kimiCalls,
  pythonic_calls: pythonicCalls,
});

/** How a body starts, to tell apart the rows sharing an opener: `json`, `function` or `name`. */
function bodyKind(body) {
  const i = skipBlank(body, 0);
  if (i < body.length && (body[i] === '{' || body[i] === '[')) return 'json';
  if (body.startsWith(FN, i)) return 'function';
  return 'name';
}

module.exports = { Body, GRAMMARS, NO_SCHEMA, bodyKind, glmValue, jsonItem, kimiName, nameOk, oneNewline, pythonicCalls, rawValue, setKey };
