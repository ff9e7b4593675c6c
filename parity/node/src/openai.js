'use strict';
/**
 * OpenAI output (docs/SPEC.md R13): tool calls as OpenAI `tool_calls`, and a gateway that rewrites
 * OpenAI chat completions whose text carries DSML tool-call markup into native tool calls.
 * Port of python/callsieve/openai.py (camelCase); its docstring lists every gateway decision
 * (one sieve per choice, chunks that carry nothing not written, extra chunks, usage moving, finish
 * reasons, tool_choice and parallel_tool_calls, which malformed input passes through and which
 * raises OpenAIFormatError).
 *
 * Node extras over the same core: async iterables, and WHATWG TransformStreams for chunk objects
 * and for SSE bytes (see ./sse.js).
 */

const { InputTypeError, OpenAIFormatError, OptionsError, CallsieveError, checkOptions, typeName } = require('./errors');
const { checkPolicy, declaredNames, applyPolicy, resolveName } = require('./names');
const { checkTools, normalizeInput } = require('./schema');
const { hasOwn, isObject, jsonText } = require('./jsontext');
const { Sieve, checkFormats, checkPreset } = require('./sieve');
const { INVOKE, KEYWORDS_ALL, OPEN_ANGLES, matchTag } = require('./shell');
const { SECTION_END, matchMarker } = require('./sections');
const { checkReasoning } = require('./reasoning');
const { ChatChunkParser, encodeEvent } = require('./sse');


/** Own property or null: Python's `dict.get` (inherited names like `constructor` are not keys). */
function get(o, k) {
  return hasOwn(o, k) && o[k] !== undefined ? o[k] : null;
}

function isInt(v) {
  return typeof v === 'number' && Number.isInteger(v);
}

function randomHex(n) {
  const bytes = new Uint8Array(n);
  const c = globalThis.crypto;
  if (c && typeof c.getRandomValues === 'function') c.getRandomValues(bytes);
  else bytes.set(require('crypto').randomBytes(n));
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/** A fresh tool-call id: `call_` and 24 random hex digits. */
function newCallId() {
  return 'call_' + randomHex(12);
}

function checkIdFactory(idFactory) {
  if (idFactory !== undefined && idFactory !== null && typeof idFactory !== 'function') {
    throw new InputTypeError('idFactory must be a function');
  }
  return idFactory === undefined ? null : idFactory;
}

function nextId(idFactory) {
  if (idFactory === undefined || idFactory === null) return newCallId();
  const v = idFactory();
  if (typeof v !== 'string') throw new InputTypeError(`idFactory must return a string, got ${typeName(v)}`);
  return v;
}

function checkCalls(calls) {
  if (calls === null || typeof calls !== 'object' || typeof calls[Symbol.iterator] !== 'function') {
    throw new InputTypeError(`calls must be a list of {name, input} calls, got ${typeName(calls)}`);
  }
  const out = Array.from(calls);
  for (const c of out) {
    if (!isObject(c) || typeof c.name !== 'string' || !isObject(c.input)) {
      throw new InputTypeError('calls must hold {name: string, input: object} objects');
    }
  }
  return out;
}

// D54: a malformed call (R18.2) that goes out as a tool call anyway carries its raw text as
// `arguments` (not a JSON object), so the client's own validation tells the model.
const RAW_ARGUMENTS = Symbol('rawArguments');

function args(call, tools) {
  if (call[RAW_ARGUMENTS] !== undefined) return call[RAW_ARGUMENTS];
  return jsonText(normalizeInput(call.name, call.input, tools));
}

function unparsedCall(name, raw) {
  const c = { name, input: {} };
  Object.defineProperty(c, RAW_ARGUMENTS, { value: raw, enumerable: false });
  return c;
}

function renamed(c, name) {
  if (c[RAW_ARGUMENTS] !== undefined) return unparsedCall(name, c[RAW_ARGUMENTS]);
  return c.id === undefined ? { name, input: c.input } : { name, input: c.input, id: c.id };
}

/** The id the model wrote for the call (Kimi-K2, Mistral, D50), else a fresh one. */
function callId(call, idFactory) {
  return typeof call.id === 'string' && call.id ? call.id : nextId(idFactory);
}

/** Calls as an OpenAI `message.tool_calls` list (R13). */
function toOpenAIToolCalls(calls, opts) {
  const { tools: t = null, idFactory: f = null } = optionsOf(opts, ['tools', 'idFactory']);
  const tools = checkTools(t);
  const idFactory = checkIdFactory(f);
  return checkCalls(calls).map((c) => ({
    id: callId(c, idFactory),
    type: 'function',
    function: { name: c.name, arguments: args(c, tools) },
  }));
}

/** Calls as streaming `delta.tool_calls` entries, each complete, with `index` counting from `startIndex` (R13). */
function toOpenAIStreamDeltas(calls, opts) {
  const { tools: t = null, idFactory: f = null, startIndex = 0 } = optionsOf(opts, ['tools', 'idFactory', 'startIndex']);
  const tools = checkTools(t);
  const idFactory = checkIdFactory(f);
  if (!isInt(startIndex)) throw new InputTypeError(`startIndex must be an integer, got ${typeName(startIndex)}`);
  return checkCalls(calls).map((c, i) => ({
    index: startIndex + i,
    id: callId(c, idFactory),
    type: 'function',
    function: { name: c.name, arguments: args(c, tools) },
  }));
}

const TOOL_CHOICES = ['none', 'auto', 'required'];

/** The name of a named `toolChoice` (`{type: 'function', function: {name}}`), else null. */
function chosenFunction(toolChoice) {
  if (isObject(toolChoice) && get(toolChoice, 'type') === 'function') {
    const fn = get(toolChoice, 'function');
    if (isObject(fn) && typeof get(fn, 'name') === 'string' && fn.name) return fn.name;
  }
  return null;
}

/** `toolChoice` when it is null, 'none', 'auto', 'required' or a named function, else an OptionsError. */
function checkToolChoice(toolChoice) {
  if (toolChoice === null || toolChoice === undefined) return null;
  if (TOOL_CHOICES.includes(toolChoice)) return toolChoice;
  if (chosenFunction(toolChoice) === null) {
    throw new OptionsError(
      `toolChoice must be 'none', 'auto', 'required' or {"type": "function", "function": {"name": ...}}, got ${JSON.stringify(toolChoice)}`,
    );
  }
  return toolChoice;
}

function checkParallelToolCalls(v) {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'boolean') throw new OptionsError(`parallelToolCalls must be a boolean or null, got ${JSON.stringify(v)}`);
  return v;
}

/** A value that carries nothing: null, '', [] or {}. */
function isEmpty(v) {
  if (v === null || v === undefined || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

/** Whether an output choice carries something; a choice without a delta object passes as it is. */
function carries(choice) {
  if (!isObject(choice) || !isObject(get(choice, 'delta'))) return true;
  for (const [k, v] of Object.entries(choice)) {
    if (k === 'delta') {
      if (Object.values(v).some((x) => !isEmpty(x))) return true;
    } else if (k !== 'index' && !isEmpty(v)) {
      return true;
    }
  }
  return false;
}

class Options {
  constructor({
    tools = null,
    toolNames = null,
    unknownTools = 'keep',
    idFactory = null,
    jsonToolCalls = false,
    formats = null,
    reasoning = null,
    streamArguments = false,
    toolChoice = null,
    parallelToolCalls = null,
    preset = null,
  } = {}) {
    this.preset = checkPreset(preset); // R19: formats and reasoning unless given
    if (formats === null && this.preset) formats = this.preset.formats;
    if (reasoning === null) reasoning = this.preset ? this.preset.reasoning : 'auto';
    this.tools = checkTools(tools);
    if (typeof streamArguments !== 'boolean') throw new InputTypeError('streamArguments must be a boolean');
    const choice = checkToolChoice(toolChoice);
    this.callsOff = choice === 'none'; // markup stays content
    this.only = chosenFunction(choice); // a named toolChoice: only calls to it
    this.single = checkParallelToolCalls(parallelToolCalls) === false; // one call per choice
    this.streamArguments = streamArguments && !this.callsOff;
    this.formats = checkFormats(formats);
    this.reasoning = checkReasoning(reasoning);
    if (typeof jsonToolCalls !== 'boolean') throw new InputTypeError('jsonToolCalls must be a boolean');
    this.jsonToolCalls = jsonToolCalls;
    this.toolNames = declaredNames(toolNames, this.tools);
    this.unknownTools = checkPolicy(unknownTools);
    this.idFactory = checkIdFactory(idFactory);
    this.rejected = new Set();
    this.stats = { blocks: 0, calls: 0, rejectedCalls: 0, captureLimitReleases: 0, repairedBlocks: 0, malformedCalls: 0 };
  }

  released(e) {
    if (e.note === 'capture_limit') this.stats.captureLimitReleases += 1;
  }

  sieve() {
    if (this.streamArguments) {
      // the sieve resolves, rejects and normalizes as it announces
      return new Sieve({
        toolNames: this.toolNames,
        tools: this.tools,
        unknownTools: this.unknownTools,
        jsonToolCalls: this.jsonToolCalls,
        formats: this.formats,
        reasoning: this.reasoning,
        streamArguments: true,
        preset: this.preset ? this.preset.name : null,
      });
    }
    return new Sieve({
      toolNames: this.toolNames,
      jsonToolCalls: this.jsonToolCalls,
      formats: this.formats,
      reasoning: this.reasoning,
      preset: this.preset ? this.preset.name : null,
    });
  }

  /**
   * R16.5: a block whose calls went out as they were announced: only counted here (`dropped`: its
   * calls that toolChoice or parallelToolCalls left out).
   */
  announced(e, atEnd, dropped = 0) {
    const rejected = e.rejectedToolNames || [];
    for (const n of rejected) this.rejected.add(n);
    this.stats.blocks += 1;
    if ((e.repaired && e.repaired.length) || this.repaired(e.raw, atEnd)) this.stats.repairedBlocks += 1;
    this.stats.calls += Math.max(0, e.calls.length - dropped);
    this.stats.rejectedCalls += rejected.length;
  }

  /**
   * The block's calls under the reject policy (R10.2) and the request's toolChoice and
   * parallelToolCalls (`already`: the calls the choice has so far); counts the block.
   */
  policy(e, atEnd, already = 0) {
    const calls = e.calls;
    const r = applyPolicy(calls, this.toolNames, this.unknownTools);
    for (const n of r.rejectedToolNames) this.rejected.add(n);
    let kept = [...r.calls, ...this.unparsed(e)];
    if (this.only !== null) kept = kept.filter((c) => this.chosen(c.name) !== null).map((c) => renamed(c, this.only));
    if (this.single) kept = kept.slice(0, Math.max(0, 1 - already));
    this.stats.blocks += 1;
    if ((e.repaired && e.repaired.length) || this.repaired(e.raw, atEnd)) this.stats.repairedBlocks += 1;
    this.stats.calls += kept.length;
    this.stats.rejectedCalls += calls.length - r.calls.length;
    return kept;
  }

  /**
   * D54: the block's malformed calls that have a name, as calls with their raw text for arguments
   * (under the reject policy like any call); the nameless ones are only counted.
   */
  unparsed(e) {
    const malformed = e.malformed || [];
    this.stats.malformedCalls += malformed.length;
    const named = malformed.filter((m) => m.name);
    if (!named.length) return [];
    const r = applyPolicy(named.map((m) => ({ name: m.name, input: {} })), this.toolNames, this.unknownTools);
    for (const n of r.rejectedToolNames) this.rejected.add(n);
    const kept = new Set(r.calls.map((c) => c.name));
    const out = [];
    for (const m of named) {
      const name = this.resolve(m.name);
      if (kept.has(name)) out.push(unparsedCall(name, m.raw));
    }
    return out;
  }

  /** The name a call to `name` goes out with under a named toolChoice (null: dropped). */
  chosen(name) {
    if (this.only === null) return name;
    if (name === this.only) return this.only;
    return resolveName(name, [this.only]) !== null ? this.only : null;
  }

  /**
   * Whether the sieve had to repair the block whose source is `raw` (`atEnd`: it came out when
   * the sieve was flushed): a token section without its section end (D26), a run of bare invokes
   * without its opening wrapper (R3, D6), or a block that is no call when its source is fed
   * alone (an unclosed CDATA completed at the end of the output, D8; a block that broke after a
   * call was announced, D37).
   */
  repaired(raw, atEnd) {
    if (!raw || !OPEN_ANGLES.includes(raw[0])) return false; // a JSON call (R9)
    if (Array.isArray(matchMarker(raw, 0, true))) {
      // a token section (R14.4, R14.5): it ends at its end marker
      const end = matchMarker(raw, raw.lastIndexOf('<'), true);
      return !(Array.isArray(end) && end[0] === SECTION_END && end[1] === raw.length);
    }
    const tag = matchTag(raw, 0, true, KEYWORDS_ALL);
    if (tag !== null && typeof tag === 'object' && tag.local === INVOKE) return true;
    if (!atEnd && !this.streamArguments) return false; // a block that closed as it arrived is complete as written (but D37)
    const alone = new Sieve({ jsonToolCalls: this.jsonToolCalls, formats: this.formats, reasoning: 'off' });
    return !alone.feed(raw).some((e) => e.type === 'tool_calls');
  }

  /** D22: a name as the gateway hands it out (the declared spelling when it resolves). */
  resolve(name) {
    return applyPolicy([{ name, input: {} }], this.toolNames, 'keep').calls[0].name;
  }
}

const REWRITER_OPTIONS = [
  'tools',
  'toolNames',
  'unknownTools',
  'idFactory',
  'jsonToolCalls',
  'formats',
  'reasoning',
  'streamArguments',
  'toolChoice',
  'parallelToolCalls',
  'preset',
];
const REWRITE_OPTIONS = [...REWRITER_OPTIONS, 'rejectedToolNames'];

function optionsOf(opts, known) {
  if (opts !== undefined && opts !== null && !isObject(opts)) {
    throw new InputTypeError(`options must be an object, got ${typeName(opts)}`);
  }
  checkOptions(opts, known);
  if (opts === undefined || opts === null) return {};
  const list = opts.rejectedToolNames;
  if (list !== undefined && list !== null && !Array.isArray(list)) {
    throw new InputTypeError(`rejectedToolNames must be an array, got ${typeName(list)}`);
  }
  return opts;
}

function rewriterOptions(o) {
  const { rejectedToolNames, ...rest } = o;
  return rest;
}

function appendRejected(list, names) {
  if (!Array.isArray(list)) return;
  for (const n of names) if (!list.includes(n)) list.push(n);
}

function indexOf(choice, pos, where) {
  if (!hasOwn(choice, 'index')) return pos;
  const idx = choice.index;
  if (!isInt(idx)) {
    throw new OpenAIFormatError(`${where}: choices[${pos}].index must be an integer, got ${JSON.stringify(idx)}`);
  }
  return idx;
}

/** Add tool_calls deltas; argument fragments of one call in a row become one fragment. */
function extend(deltas, more) {
  for (const d of more) {
    const last = deltas[deltas.length - 1];
    if (last !== undefined && !hasOwn(d, 'id') && !hasOwn(last, 'id') && last.index === d.index) {
      last.function.arguments += d.function.arguments;
    } else {
      deltas.push(d);
    }
  }
}

/** Every top-level field of a chunk but `choices`. */
function envelopeOf(chunk) {
  const envelope = { ...chunk };
  delete envelope.choices;
  return envelope;
}

function extra(envelope, index, delta, finish) {
  return { ...envelope, choices: [{ index, delta, finish_reason: finish }] };
}

/**
 * Upstream's own `tool_calls` deltas with indices that never collide: an index keeps its value
 * unless another call already took it (then it moves to the next free one, for all of its
 * deltas). Indices that are not integers in 0..2**53-1 pass as they are. The array itself when
 * nothing changed. Port of `_Choice.map_native`.
 */
function mapNative(st, calls) {
  let out = null;
  calls.forEach((tc, k) => {
    const i = isObject(tc) ? get(tc, 'index') : null;
    if (!Number.isSafeInteger(i) || i < 0) return;
    let j = st.native.get(i);
    if (j === undefined) {
      j = st.taken.has(i) ? st.nextIndex : i;
      st.native.set(i, j);
      st.taken.add(j);
      st.nextIndex = Math.max(st.nextIndex, j + 1);
    }
    if (j !== i) {
      if (out === null) out = calls.slice();
      out[k] = { ...tc, index: j };
    }
  });
  return out === null ? calls : out;
}

/**
 * The streaming gateway as an object: `feed(chunk)` returns the output chunks for one input
 * `chat.completion.chunk` object, `finish()` the chunks still held at the end of the stream.
 */
class ChatCompletionStreamRewriter {
  constructor(opts) {
    this._opts = new Options(optionsOf(opts, REWRITER_OPTIONS));
    this._choices = new Map(); // insertion order, like Python's dict (an object would sort integer keys)
    this._last = null; // the last chunk with choices: its envelope
    this._fast = true; // feed's fast path (a test turns it off to compare)
    this._count = 0;
    this._finished = false;
  }

  /** Names of calls dropped by `unknownTools: 'reject'` so far, once each, in order. */
  get rejectedToolNames() {
    return [...this._opts.rejected];
  }

  /**
   * Counts so far: blocks recognized, calls emitted, calls rejected, blocks released as text at the
   * capture limit, blocks the sieve had to repair (R3, D8, D26, D37).
   */
  get stats() {
    return { ...this._opts.stats };
  }

  /** The deltas for a choice's events; those from `endFrom` on came from a flush. */
  _pieces(st, events, endFrom) {
    const out = [];
    for (let k = 0; k < events.length; k++) {
      const e = events[k];
      const last = out[out.length - 1];
      if (e.type === 'text' || (e.type === 'tool_calls' && this._opts.callsOff)) {
        // (toolChoice 'none': a block is the model's text)
        const text = e.type === 'text' ? e.text : e.raw;
        if (e.note) this._opts.released(e);
        if (!text) continue;
        if (last !== undefined && hasOwn(last, 'content')) last.content += text;
        else out.push({ content: text });
        continue;
      }
      if (e.type === 'reasoning') {
        if (last !== undefined && hasOwn(last, 'reasoning_content')) last.reasoning_content += e.text;
        else out.push({ reasoning_content: e.text });
        continue;
      }
      let deltas;
      if (e.type !== 'tool_calls') {
        const d = this._streamed(st, e);
        if (d === null) continue;
        deltas = [d];
      } else if (this._opts.streamArguments) {
        this._opts.announced(e, k >= endFrom, st.dropped);
        st.dropped = 0;
        continue;
      } else {
        const calls = this._opts.policy(e, k >= endFrom, st.taken.size);
        if (!calls.length) continue;
        deltas = toOpenAIStreamDeltas(calls, {
          tools: this._opts.tools,
          idFactory: this._opts.idFactory,
          startIndex: st.nextIndex,
        });
        for (let k = st.nextIndex; k < st.nextIndex + deltas.length; k++) st.taken.add(k);
        st.nextIndex += deltas.length;
      }
      st.emitted = true;
      if (last !== undefined && hasOwn(last, 'tool_calls')) extend(last.tool_calls, deltas);
      else out.push({ tool_calls: deltas });
    }
    return out;
  }

  /**
   * R16.5: a call's first delta (index, id, type, name, empty arguments), then its argument
   * fragments, as OpenAI's API streams them; null for a call toolChoice or parallelToolCalls
   * leaves out (its index maps to -1).
   */
  _streamed(st, e) {
    if (e.type === 'tool_call_arguments') {
      const j = st.streamed.get(e.index);
      return j < 0 ? null : { index: j, function: { arguments: e.delta } };
    }
    const name = this._opts.chosen(this._opts.resolve(e.name));
    if (name === null || (this._opts.single && st.taken.size > 0)) {
      st.streamed.set(e.index, -1);
      st.dropped += 1;
      return null;
    }
    const index = st.nextIndex;
    st.streamed.set(e.index, index);
    st.taken.add(index);
    st.nextIndex = index + 1;
    return { index, id: nextId(this._opts.idFactory), type: 'function', function: { name, arguments: '' } };
  }

  /** The output chunks for one input chunk, in order. */
  feed(chunk) {
    if (this._finished) throw new OpenAIFormatError('feed() after finish()');
    this._count += 1;
    // The common chunk, decided here: one choice whose delta carries content for a sieve already
    // open, no upstream tool_calls, no finish, and what the sieve releases is at most one plain
    // piece of text. It gives what _feed gives (fast-paths.test.js).
    if (this._fast && isObject(chunk)) {
      const choices = get(chunk, 'choices');
      if (Array.isArray(choices) && choices.length === 1) {
        const choice = choices[0];
        if (isObject(choice) && get(choice, 'finish_reason') === null) {
          const idx = hasOwn(choice, 'index') ? choice.index : 0;
          const delta = get(choice, 'delta');
          if (isInt(idx) && isObject(delta)) {
            const content = get(delta, 'content');
            const st = this._choices.get(idx);
            if (typeof content === 'string' && content !== '' && st !== undefined && st.sieve !== null && get(delta, 'tool_calls') === null) {
              const events = st.sieve.feed(content);
              if (!events.length) {
                // held by the sieve: a chunk of nothing is not written
                if (Object.keys(delta).length === 1 && isEmpty(get(chunk, 'usage')) &&
                    Object.entries(choice).every(([k, v]) => k === 'index' || k === 'delta' || isEmpty(v))) {
                  this._last = chunk;
                  return [];
                }
                return this._feed(chunk, events);
              }
              const e = events[0];
              if (events.length !== 1 || e.type !== 'text' || e.note) return this._feed(chunk, events);
              const text = e.text;
              this._last = chunk;
              const newDelta = { ...delta };
              newDelta.content = text;
              const newChoice = { ...choice };
              newChoice.delta = newDelta;
              newChoice.finish_reason = null;
              return [{ ...chunk, choices: [newChoice] }];
            }
          }
        }
      }
    }
    return this._feed(chunk, null);
  }

  /**
   * feed() in general; `fed`: the events the sieve of the chunk's only choice already gave for
   * its content (from feed's fast path).
   */
  _feed(chunk, fed) {
    const where = `chunk ${this._count}`;
    if (!isObject(chunk)) throw new OpenAIFormatError(`${where} is a ${typeName(chunk)}, not a JSON object`);
    if (!hasOwn(chunk, 'choices')) return [chunk];
    const choices = chunk.choices;
    if (!Array.isArray(choices)) {
      throw new OpenAIFormatError(`${where}: choices must be a list, got ${typeName(choices)}`);
    }
    if (!choices.length) return [chunk];
    this._last = chunk;
    let envelope = null;
    const outChoices = [];
    const extras = [];
    choices.forEach((choice, pos) => {
      if (!isObject(choice)) {
        throw new OpenAIFormatError(`${where}: choices[${pos}] is a ${typeName(choice)}, not an object`);
      }
      const idx = indexOf(choice, pos, where);
      const delta = get(choice, 'delta');
      if (delta !== null && !isObject(delta)) throw new OpenAIFormatError(`${where}: choices[${pos}].delta must be an object`);
      const content = delta !== null ? get(delta, 'content') : null;
      if (content !== null && typeof content !== 'string') {
        throw new OpenAIFormatError(`${where}: choices[${pos}].delta.content must be a string, got ${typeName(content)}`);
      }
      let st = this._choices.get(idx);
      if (st === undefined) {
        // streamed (R16.5): the sieve's call index -> output index
        // (-1: a call toolChoice or parallelToolCalls dropped); dropped: such calls since the last block
        st = { sieve: null, streamed: new Map(), dropped: 0, nextIndex: 0, emitted: false, native: new Map(), taken: new Set() };
        this._choices.set(idx, st);
      }
      const upstreamCalls = delta !== null ? get(delta, 'tool_calls') : null;
      const native = Array.isArray(upstreamCalls) ? mapNative(st, upstreamCalls) : upstreamCalls;
      let events = [];
      if (fed !== null) {
        events = fed;
      } else if (content) {
        if (st.sieve === null) {
          st.sieve = this._opts.sieve();
          st.streamed = new Map();
        }
        events = events.concat(st.sieve.feed(content));
      }
      const reason = get(choice, 'finish_reason');
      let finish = reason;
      const endFrom = events.length;
      if (finish !== null && st.sieve !== null) {
        events = events.concat(st.sieve.flush());
        st.sieve = null;
      }
      const pieces = this._pieces(st, events, endFrom);
      if (native !== null && !Array.isArray(native) && pieces.some((p) => hasOwn(p, 'tool_calls'))) {
        throw new OpenAIFormatError(`${where}: choices[${pos}].delta.tool_calls must be a list to add calls to`);
      }
      if (finish === 'stop' && st.emitted) finish = 'tool_calls';
      const remapped = native !== upstreamCalls;
      if (!content && !pieces.length && !remapped && finish === reason) {
        outChoices.push(choice);
        return;
      }
      const newChoice = { ...choice };
      if (content || pieces.length || remapped) {
        const newDelta = delta !== null ? { ...delta } : {};
        if (remapped) newDelta.tool_calls = native;
        // held by the sieve, unless a piece says otherwise: "" only beside a role (the first chunk)
        if (content) newDelta.content = isEmpty(get(newDelta, 'role')) ? null : '';
        if (pieces.length) {
          const first = pieces[0];
          if (hasOwn(first, 'content')) {
            newDelta.content = first.content;
          } else if (hasOwn(first, 'reasoning_content')) {
            if (hasOwn(newDelta, 'content')) newDelta.content = null;
            const before = newDelta.reasoning_content;
            newDelta.reasoning_content = typeof before === 'string' ? before + first.reasoning_content : first.reasoning_content;
          } else {
            if (hasOwn(newDelta, 'content')) newDelta.content = null;
            const mine = first.tool_calls;
            newDelta.tool_calls = native !== null ? [...native, ...mine] : mine;
          }
        }
        newChoice.delta = newDelta;
      }
      const rest = pieces.slice(1);
      newChoice.finish_reason = rest.length ? null : finish;
      outChoices.push(newChoice);
      if (rest.length && envelope === null) envelope = envelopeOf(chunk);
      rest.forEach((piece, i) => extras.push(extra(envelope, idx, piece, i === rest.length - 1 ? finish : null)));
    });
    // a chunk of nothing is not written (empty deltas, held content)
    if (!extras.length && isEmpty(get(chunk, 'usage')) && !outChoices.some(carries)) return [];
    if (!extras.length && outChoices.every((c, i) => c === choices[i])) return [chunk];
    const main = { ...chunk, choices: outChoices };
    if (!extras.length) return [main];
    if (get(main, 'usage') !== null) {
      extras[extras.length - 1].usage = main.usage;
      main.usage = null;
      for (const e of extras.slice(0, -1)) e.usage = null;
    }
    return [main, ...extras];
  }

  /**
   * End of stream: flush the choices that never finished; their held text or calls come out in
   * chunks with the envelope of the last chunk that had choices.
   */
  finish() {
    if (this._finished) return [];
    this._finished = true;
    const out = [];
    const envelope = this._last !== null ? envelopeOf(this._last) : {};
    if (hasOwn(envelope, 'usage')) envelope.usage = null;
    for (const [idx, st] of this._choices) {
      if (st.sieve === null) continue;
      const events = st.sieve.flush();
      st.sieve = null;
      for (const piece of this._pieces(st, events, 0)) out.push(extra(envelope, idx, piece, null));
    }
    return out;
  }
}

/**
 * Rewrite a stream (sync or async iterable) of OpenAI `chat.completion.chunk` objects: DSML markup
 * in `delta.content` becomes `delta.tool_calls`. Names rejected by `unknownTools: 'reject'` are
 * appended to the `rejectedToolNames` array option when given.
 */
async function* rewriteChatCompletionStream(chunks, opts) {
  const o = optionsOf(opts, REWRITE_OPTIONS);
  const rw = new ChatCompletionStreamRewriter(rewriterOptions(o));
  try {
    if (chunks !== null && chunks !== undefined && typeof chunks[Symbol.asyncIterator] === 'function') {
      // (for … yield, not yield*: an async generator's yield* of an array goes through an
      // async-from-sync iterator, a promise more per chunk)
      for await (const chunk of chunks) for (const c of rw.feed(chunk)) yield c;
    } else {
      if (chunks === null || chunks === undefined || typeof chunks[Symbol.iterator] !== 'function') {
        throw new InputTypeError(`chunks must be an iterable of chunk objects, got ${typeName(chunks)}`);
      }
      for (const chunk of chunks) for (const c of rw.feed(chunk)) yield c;
    }
    for (const c of rw.finish()) yield c;
  } finally {
    appendRejected(o.rejectedToolNames, rw.rejectedToolNames);
  }
}

/**
 * Rewrite a non-streaming OpenAI `chat.completion` object: DSML markup in `message.content`
 * becomes `message.tool_calls` (`toolChoice` and `parallelToolCalls` as the request gave them).
 * The input is not modified; a response without `choices` is returned as it is.
 */
function rewriteChatCompletion(response, opts) {
  // streamArguments is for streams only: a whole response has nothing to stream
  const o = optionsOf(opts, [...REWRITE_OPTIONS.filter((k) => k !== 'streamArguments'), 'stats']);
  const { stats, ...rest } = o;
  const options = new Options(rest);
  try {
    return rewriteResponse(response, options);
  } finally {
    appendRejected(o.rejectedToolNames, options.rejected);
    if (isObject(stats)) Object.assign(stats, options.stats);
  }
}

function rewriteResponse(response, opts) {
  if (!isObject(response)) throw new OpenAIFormatError(`the response is a ${typeName(response)}, not a JSON object`);
  if (!hasOwn(response, 'choices')) return response;
  const choices = response.choices;
  if (!Array.isArray(choices)) throw new OpenAIFormatError(`choices must be a list, got ${typeName(choices)}`);
  const outChoices = [];
  choices.forEach((choice, pos) => {
    if (!isObject(choice)) throw new OpenAIFormatError(`choices[${pos}] is a ${typeName(choice)}, not an object`);
    indexOf(choice, pos, 'response');
    const message = get(choice, 'message');
    if (message === null) {
      outChoices.push(choice);
      return;
    }
    if (!isObject(message)) throw new OpenAIFormatError(`choices[${pos}].message must be an object`);
    const content = get(message, 'content');
    if (content === null) {
      outChoices.push(choice);
      return;
    }
    if (typeof content !== 'string') {
      throw new OpenAIFormatError(`choices[${pos}].message.content must be a string, got ${typeName(content)}`);
    }
    const sieve = opts.sieve();
    const fed = sieve.feed(content);
    const events = fed.concat(sieve.flush());
    let text = '';
    let thought = '';
    const calls = [];
    const upstream = get(message, 'tool_calls');
    const already = Array.isArray(upstream) ? upstream.length : 0;
    events.forEach((e, k) => {
      if (e.type === 'text') {
        text += e.text;
        if (e.note) opts.released(e);
      } else if (e.type === 'reasoning') thought += e.text;
      else if (opts.callsOff) text += e.raw; // toolChoice 'none': the markup is the model's text
      else calls.push(...opts.policy(e, k >= fed.length, already + calls.length));
    });
    if (!calls.length && text === content) {
      outChoices.push(choice);
      return;
    }
    const newMessage = { ...message };
    newMessage.content = text || !calls.length ? text : null;
    if (thought) {
      const before = get(message, 'reasoning_content');
      newMessage.reasoning_content = typeof before === 'string' ? before + thought : thought;
    }
    if (calls.length) {
      const newCalls = toOpenAIToolCalls(calls, { tools: opts.tools, idFactory: opts.idFactory });
      if (upstream !== null && !Array.isArray(upstream)) {
        throw new OpenAIFormatError(`choices[${pos}].message.tool_calls must be a list to add calls to`);
      }
      newMessage.tool_calls = upstream !== null ? [...upstream, ...newCalls] : newCalls;
    }
    const newChoice = { ...choice, message: newMessage };
    if (calls.length && get(choice, 'finish_reason') === 'stop') newChoice.finish_reason = 'tool_calls';
    outChoices.push(newChoice);
  });
  return { ...response, choices: outChoices };
}

function transformStream(spec) {
  const TS = globalThis.TransformStream;
  if (typeof TS !== 'function') throw new CallsieveError('TransformStream is not available in this runtime');
  return new TS(spec);
}

/**
 * TransformStream<chunk object, chunk object>: the streaming gateway for runtimes with WHATWG
 * streams. Names rejected by the policy are appended to the `rejectedToolNames` array option as
 * they appear.
 */
function createChatCompletionRewriteStream(opts) {
  const o = optionsOf(opts, REWRITE_OPTIONS);
  const rw = new ChatCompletionStreamRewriter(rewriterOptions(o));
  const emit = (controller, out) => {
    for (const c of out) controller.enqueue(c);
    appendRejected(o.rejectedToolNames, rw.rejectedToolNames);
  };
  return transformStream({
    transform(chunk, controller) {
      emit(controller, rw.feed(chunk));
    },
    flush(controller) {
      emit(controller, rw.finish());
    },
  });
}

/**
 * TransformStream<Uint8Array, Uint8Array>: an OpenAI SSE stream in, the rewritten SSE stream out
 * (`data: <JSON>\n\n` per chunk, ending with `data: [DONE]\n\n` when upstream's did: a cut-off
 * stream must not look finished). On a format error, the output
 * of the input before it is enqueued, then the stream errors (WHATWG streams discard what the
 * consumer has not read yet; the async generators yield it all, as Python does).
 */
function createSSERewriteStream(opts) {
  const o = optionsOf(opts, REWRITE_OPTIONS);
  const rw = new ChatCompletionStreamRewriter(rewriterOptions(o));
  const reader = new ChatChunkParser();
  const pump = (controller, read, last) => {
    const values = [];
    let err = null;
    try {
      read(values);
    } catch (e) {
      err = e;
    }
    try {
      for (const v of values) for (const c of rw.feed(v)) controller.enqueue(encodeEvent(c));
      if (err) throw err;
      if (last) {
        for (const c of rw.finish()) controller.enqueue(encodeEvent(c));
        // Mirror upstream: a cut-off stream must not look finished.
        if (reader.sawDone) controller.enqueue(new TextEncoder().encode('data: [DONE]\n\n'));
      }
    } finally {
      appendRejected(o.rejectedToolNames, rw.rejectedToolNames);
    }
  };
  return transformStream({
    transform(chunk, controller) {
      pump(controller, (out) => reader._feed(chunk, out), false);
    },
    flush(controller) {
      pump(controller, (out) => reader._finish(out), true);
    },
  });
}

module.exports = {
  OpenAIFormatError,
  newCallId,
  toOpenAIToolCalls,
  toOpenAIStreamDeltas,
  ChatCompletionStreamRewriter,
  rewriteChatCompletionStream,
  rewriteChatCompletion,
  createChatCompletionRewriteStream,
  createSSERewriteStream,
  checkToolChoice,
  checkParallelToolCalls,
};
