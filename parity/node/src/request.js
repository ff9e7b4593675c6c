'use strict';
/**
 * The request side of the gateway's `prompt` mode: an OpenAI chat-completion request for an
 * upstream without native tools. Port of python/callsieve/request.py: see its docstring for every
 * decision (where the instructions go, `tool_choice`, history `tool_calls` as DSML, `tool`
 * messages as user text, `responseOptions`). The input is not modified.
 */

const { buildToolInstructions } = require('./prompt');
const { normalizeRole } = require('./roles');
const { isDict, jsKeys, jsonText } = require('./jsontext');
const { toolName } = require('./schema');
const { jsonValue } = require('./values');
const { jsonTrim } = require('./strings');
const { OpenAIFormatError, OptionsError } = require('./errors');
const { typeName } = require('./errors');
const { checkToolChoice, checkParallelToolCalls } = require('./openai');

const DROPPED = new Set(['tools', 'tool_choice', 'parallel_tool_calls']);
const REQUIRED_LINE = 'You must call at least one tool in your reply.';
const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const get = (o, k) => (isDict(o) && hasOwn(o, k) ? o[k] : undefined);

function namedChoice(choice) {
  if (isDict(choice) && get(choice, 'type') === 'function') {
    const name = get(get(choice, 'function'), 'name');
    if (typeof name === 'string' && name) return name;
  }
  return null;
}

function choiceLine(choice) {
  if (choice === 'required') return REQUIRED_LINE;
  const name = namedChoice(choice);
  return name !== null ? `You must call the tool ${name} in your reply.` : '';
}

/** Whether the response to `body` goes through the rewriters: not for `tool_choice: "none"`. */
function rewritesResponse(body) {
  return !(isDict(body) && get(body, 'tool_choice') === 'none');
}

/**
 * The options of the response rewriters that the request decides: `{toolChoice,
 * parallelToolCalls}` (null when the request leaves them out), so that the answer honors them as
 * OpenAI defines them. Throws OpenAIFormatError for a body that is not an object or for values
 * OpenAI does not accept (a gateway answers 400).
 */
function responseOptions(body) {
  if (!isDict(body)) throw new OpenAIFormatError(`the request is a ${typeName(body)}, not a JSON object`);
  const toolChoice = get(body, 'tool_choice') ?? null;
  const parallelToolCalls = get(body, 'parallel_tool_calls') ?? null;
  try {
    checkToolChoice(toolChoice);
    checkParallelToolCalls(parallelToolCalls);
  } catch (e) {
    if (e instanceof OptionsError) throw new OpenAIFormatError(e.message.replace('toolChoice', 'tool_choice').replace('parallelToolCalls', 'parallel_tool_calls'));
    throw e;
  }
  return { toolChoice, parallelToolCalls };
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    let s = '';
    for (const p of content) if (isDict(p) && typeof get(p, 'text') === 'string') s += p.text;
    return s;
  }
  return '';
}

const attr = (v) => (v.includes('"') ? `'${v}'` : `"${v}"`);
const cdata = (s) => '<![CDATA[' + s.split(']]>').join(']]]]><![CDATA[>') + ']]>';

function valueText(v) {
  if (typeof v === 'string') return cdata(v);
  const text = jsonText(v);
  return text.includes('<') || text.includes('&') ? cdata(text) : text;
}

function invoke(call) {
  let fn = get(call, 'function');
  if (!isDict(fn)) fn = {};
  const name = typeof get(fn, 'name') === 'string' ? fn.name : '';
  const args = get(fn, 'arguments');
  const lines = [`<|DSML|invoke name=${attr(name)}>`];
  let ok;
  let obj;
  if (typeof args === 'string') [ok, obj] = jsonValue(args);
  else [ok, obj] = [true, isDict(args) ? args : {}];
  if (ok && isDict(obj)) {
    for (const [k, v] of jsKeys(obj)) lines.push(`<|DSML|parameter name=${attr(k)}>${valueText(v)}</|DSML|parameter>`);
  } else if (typeof args === 'string' && jsonTrim(args)) {
    lines.push(cdata(args));
  }
  lines.push('</|DSML|invoke>');
  return lines;
}

function block(calls) {
  const lines = ['<|DSML|tool_calls>'];
  for (const c of calls) lines.push(...invoke(c));
  lines.push('</|DSML|tool_calls>');
  return lines.join('\n');
}

const join = (a, b) => (a ? `${a}\n\n${b}` : b);

function assistant(msg) {
  const tc = get(msg, 'tool_calls');
  const calls = Array.isArray(tc) ? [...tc] : [];
  const legacy = get(msg, 'function_call');
  if (isDict(legacy)) calls.push({ type: 'function', function: legacy });
  const out = {};
  for (const k of Object.keys(msg)) if (k !== 'tool_calls' && k !== 'function_call') out[k] = msg[k];
  out.role = 'assistant';
  if (calls.length) out.content = join(textOf(get(msg, 'content')), block(calls));
  return out;
}

function callNames(messages) {
  const names = new Map();
  for (const m of messages) {
    const tc = get(m, 'tool_calls');
    if (!Array.isArray(tc)) continue;
    for (const c of tc) {
      const id = get(c, 'id');
      const name = get(get(c, 'function'), 'name');
      if (typeof id === 'string' && typeof name === 'string' && !names.has(id)) names.set(id, name);
    }
  }
  return names;
}

function toolText(msg, names) {
  let cid = get(msg, 'tool_call_id');
  cid = typeof cid === 'string' && cid ? cid : null;
  let name = cid !== null && names.has(cid) ? names.get(cid) : null;
  if (name === null) {
    const n = get(msg, 'name');
    name = typeof n === 'string' && n ? n : 'a tool';
  }
  return `Result of ${name}${cid !== null ? ` (id ${cid})` : ''}:\n${textOf(get(msg, 'content'))}`;
}

function withInstructions(messages, text) {
  const first = messages.length ? messages[0] : null;
  if (isDict(first) && first.role === 'system') {
    const content = get(first, 'content');
    const next = Array.isArray(content)
      ? { ...first, content: [...content, { type: 'text', text }] }
      : { ...first, content: join(textOf(content), text) };
    return [next, ...messages.slice(1)];
  }
  return [{ role: 'system', content: text }, ...messages];
}

/** The request to send to an upstream without native tools (see python/callsieve/request.py). */
function preparePromptRequest(body) {
  if (!isDict(body)) throw new OpenAIFormatError(`the request is a ${typeName(body)}, not a JSON object`);
  const messages = hasOwn(body, 'messages') ? body.messages : [];
  if (!Array.isArray(messages)) throw new OpenAIFormatError(`messages must be a list, got ${typeName(messages)}`);
  const tools = get(body, 'tools');
  if (tools !== undefined && tools !== null && !Array.isArray(tools)) {
    throw new OpenAIFormatError(`tools must be a list, got ${typeName(tools)}`);
  }
  const names = callNames(messages);
  let out = [];
  let results = null;
  messages.forEach((msg, pos) => {
    if (!isDict(msg)) throw new OpenAIFormatError(`messages[${pos}] is a ${typeName(msg)}, not an object`);
    const role = normalizeRole(get(msg, 'role'));
    if (role === 'tool') {
      const text = toolText(msg, names);
      if (results === null) {
        results = [text];
        out.push({ role: 'user', content: '' });
      } else results.push(text);
      out[out.length - 1].content = results.join('\n\n');
      return;
    }
    results = null;
    out.push(role === 'assistant' ? assistant(msg) : { ...msg, role });
  });
  const choice = get(body, 'tool_choice');
  if (choice !== 'none' && Array.isArray(tools) && tools.some((t) => toolName(t))) {
    let text = buildToolInstructions(tools);
    const line = choiceLine(choice);
    if (line) text = `${text}\n\n${line}`;
    out = withInstructions(out, text);
  }
  const result = {};
  for (const k of Object.keys(body)) if (!DROPPED.has(k)) result[k] = body[k];
  if (hasOwn(body, 'messages') || out.length) result.messages = out;
  return result;
}

module.exports = { preparePromptRequest, responseOptions, rewritesResponse, REQUIRED_LINE };
