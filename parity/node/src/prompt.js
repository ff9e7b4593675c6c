'use strict';
/**
 * The system-prompt text that teaches a model to call tools in DSML (R1.1 form only).
 * Port of python/callsieve/prompt.py: see its docstring for the decisions (which tools, the
 * parameter lines, how example values are chosen, how text from tool definitions is neutralized).
 * The output is byte-identical to Python's;
 * Python walks properties in JavaScript order (js_keys), which is an object's own order here.
 */

const { InputTypeError } = require('./errors');
const { get, hasOwn, isDict, jsKeys, jsonText } = require('./jsontext');
const { toolName, toolSchema } = require('./schema');
const { CLOSE_ANGLES, OPEN_ANGLES, matchCdataOpen } = require('./shell');
const { isBlank } = require('./strings');

// The prompt's fixed text, the markup it neutralizes and a limit: generated from prompt.py (tables.js).
const { HEADER, MARKUP, MAX_EXAMPLE_NAME } = require('./tables'); // MAX_EXAMPLE_NAME: code points
const MARKUP_RE = new RegExp('[' + [...MARKUP.keys()].join('') + ']', 'g');
const FENCE_RUN = /`{3,}|~{3,}/g;
const JSON_OPEN = /\{(?=[ \t\n\r]*")/g;
const CDATA_END = new RegExp(']][' + CLOSE_ANGLES + ']');
const UNWRITABLE = new RegExp('[\\x00-\\x1f\\x7f&' + CLOSE_ANGLES + ']'); // one line, no tag end

/** Text from a tool definition, unable to form tool syntax in the prompt (see prompt.py). */
function neutral(s) {
  return s
    .replace(MARKUP_RE, (c) => MARKUP.get(c))
    .replace(FENCE_RUN, (m) => (m[0] === '`' ? 'ˋ' : '˜').repeat(m.length))
    .replace(JSON_OPEN, '｛');
}

// A loop, not Array#every: every() skips the holes of a sparse array.
function allStrings(a) {
  for (let i = 0; i < a.length; i++) if (typeof a[i] !== 'string') return false;
  return true;
}

// D10 whitespace runs; JavaScript's \s is exactly the set String#trim removes.
function oneLine(s) {
  return typeof s === 'string' ? s.trim().replace(/\s+/g, ' ') : '';
}

function description(tool) {
  const fn = get(tool, 'function');
  if (isDict(fn) && typeof get(fn, 'description') === 'string') return fn.description.trim();
  const d = get(tool, 'description');
  return typeof d === 'string' ? d.trim() : '';
}

/** [name, schema] of the top-level properties, in property order; a non-object schema as {}. */
function properties(schema) {
  const props = schema === null ? undefined : get(schema, 'properties');
  if (!isDict(props)) return [];
  return jsKeys(props).map(([k, v]) => [k, isDict(v) ? v : {}]);
}

function required(schema) {
  const req = schema === null ? undefined : get(schema, 'required');
  return Array.isArray(req) ? req.filter((r) => typeof r === 'string') : [];
}

function typeText(p) {
  const t = get(p, 'type');
  if (typeof t === 'string') {
    const items = get(p, 'items');
    if (t === 'array' && isDict(items) && typeof get(items, 'type') === 'string') return `array of ${items.type}`;
    return t;
  }
  if (Array.isArray(t) && t.length > 0 && allStrings(t)) return t.join(' | ');
  const e = get(p, 'enum');
  if (!hasOwn(p, 'type') && ((Array.isArray(e) && e.length > 0 && allStrings(e)) || typeof get(p, 'const') === 'string')) {
    return 'string';
  }
  return 'any';
}

function paramLine(name, p, isRequired) {
  const parts = [typeText(p), isRequired ? 'required' : 'optional'];
  const e = get(p, 'enum');
  if (Array.isArray(e) && e.length > 0) {
    const texts = [];
    for (let i = 0; i < e.length; i++) texts.push(jsonText(e[i]));
    parts.push('one of ' + texts.join(', '));
  }
  const line = `- ${name} (${parts.join(', ')})`;
  const desc = oneLine(get(p, 'description'));
  return desc ? `${line}: ${desc}` : line;
}

const BY_TYPE = new Map([
  ['string', '...'],
  ['integer', 1],
  ['number', 1],
  ['boolean', true],
  ['array', []],
  ['object', {}],
  ['null', null],
]);

function exampleValue(p) {
  const e = get(p, 'enum');
  if (Array.isArray(e) && e.length > 0) return e[0];
  for (const k of ['const', 'default']) if (hasOwn(p, k)) return p[k];
  const ex = get(p, 'examples');
  if (Array.isArray(ex) && ex.length > 0) return ex[0];
  let t = get(p, 'type');
  if (Array.isArray(t)) {
    const first = t.find((x) => typeof x === 'string' && x !== 'null');
    t = first !== undefined ? first : t.length > 0 ? t[0] : null;
  }
  return typeof t === 'string' && BY_TYPE.has(t) ? BY_TYPE.get(t) : '...';
}

/**
 * Can `v` be an example CDATA? Not when "]]" and a close angle would end it early (R5.5), nor
 * with a fence run or a CDATA opener, which the scanner reads as a fence or an unclosed CDATA in
 * the block (the calls after it are lost).
 */
function cdataSafe(v) {
  if (CDATA_END.test(v) || /`{3,}|~{3,}/.test(v)) return false;
  for (let k = 0; k < v.length; k++) {
    if (OPEN_ANGLES.includes(v[k]) && typeof matchCdataOpen(v, k, true) === 'number') return false;
  }
  return true;
}

function valueText(v) {
  if (typeof v === 'string') return `<![CDATA[${cdataSafe(v) ? v : '...'}]]>`;
  let text;
  try {
    text = jsonText(v);
  } catch (err) {
    if (!(err instanceof InputTypeError)) throw err;
    return '<![CDATA[...]]>';
  }
  if (!/[<＜\ufe64\u2329\u3008《｜]/.test(text) && !text.includes('&')) return text;
  // JSON holding a tag would end the parameter early, an entity would be decoded (R6.2): in
  // CDATA the text stays the value (R6.3).
  return `<![CDATA[${cdataSafe(text) ? text : '...'}]]>`;
}

/** An attribute value in quotes that do not occur in it (the scanner takes both kinds). */
function attr(v) {
  return v.includes('"') ? `'${v}'` : `"${v}"`;
}

/**
 * A name an example can write: not blank, not holding both kinds of quote, on one line, without
 * markup, a close angle or `&`, not too long.
 */
function writable(name) {
  return (
    !isBlank(name) &&
    !(name.includes('"') && name.includes("'")) &&
    [...name].length <= MAX_EXAMPLE_NAME &&
    neutral(name) === name &&
    !UNWRITABLE.test(name)
  );
}

function invoke(name, schema) {
  const props = properties(schema).filter(([k]) => writable(k));
  const req = new Set(required(schema));
  let chosen = props.filter(([k]) => req.has(k));
  if (!chosen.length) chosen = props.slice(0, 1);
  const lines = [`<|DSML|invoke name=${attr(name)}>`];
  for (const [k, p] of chosen) {
    lines.push(`<|DSML|parameter name=${attr(k)}>${valueText(exampleValue(p))}</|DSML|parameter>`);
  }
  lines.push('</|DSML|invoke>');
  return lines;
}

function block(invokes) {
  const lines = ['<|DSML|tool_calls>'];
  for (const inv of invokes) lines.push(...inv);
  lines.push('</|DSML|tool_calls>');
  return lines.join('\n');
}

/** [name, tool] of the tools to describe: named ones, the first definition of each name. */
function entries(tools) {
  const out = [];
  const seen = new Set();
  for (const tool of Array.isArray(tools) ? tools : []) {
    const n = toolName(tool);
    if (n && !seen.has(n)) {
      seen.add(n);
      out.push([n, tool]);
    }
  }
  return out;
}

/** The one-call and the two-call example blocks (none when no name can be written). */
function exampleBlocks(list) {
  const examples = list.filter(([n]) => writable(n));
  if (!examples.length) return [];
  const first = examples[0];
  const second = examples.length > 1 ? examples[1] : examples[0];
  return [
    block([invoke(first[0], toolSchema(first[1]))]),
    block([first, second].map(([n, t]) => invoke(n, toolSchema(t)))),
  ];
}

/**
 * The system-prompt text teaching the DSML tool-call format for `tools` (OpenAI-style
 * definitions); the empty string when no tool has a name. Deterministic, no trailing newline.
 */
function buildToolInstructions(tools) {
  const list = entries(tools);
  if (!list.length) return '';
  const out = [HEADER, '', '## Available tools'];
  for (const [name, tool] of list) {
    const schema = toolSchema(tool);
    out.push('', `### ${neutral(name)}`);
    const desc = description(tool);
    if (desc) out.push(neutral(desc));
    const props = properties(schema);
    if (!props.length) {
      out.push('Parameters: none.');
      continue;
    }
    const req = new Set(required(schema));
    out.push('Parameters:');
    for (const [k, p] of props) out.push(neutral(paramLine(k, p, req.has(k))));
  }
  const blocks = exampleBlocks(list);
  if (blocks.length) {
    out.push('', '## Example: one call', '', blocks[0]);
    out.push('', '## Example: two calls in one block', '', blocks[1]);
  }
  return out.join('\n');
}

module.exports = { buildToolInstructions };
