'use strict';
/**
 * The public API: `parse()` and the streaming `Sieve`, both on the one incremental Scanner.
 * Port of python/callsieve/sieve.py (camelCase); see it for how declared tools act on each
 * recognized block (R10 name resolution and the reject policy, R12 schemas).
 */

const { InputTypeError, OptionsError, SieveClosedError, checkOptions, typeName } = require('./errors');
const { Scanner } = require('./scanner');
const { DEFAULT_FORMATS, FORMATS, PRESETS } = require('./formats');
const { applyPolicy, checkPolicy, declaredNames, resolveToolName } = require('./names');
const { checkTools, findToolSchema, keepsText, normalizeInput, propertySchema, typedValue } = require('./schema');
const { NO_SCHEMA } = require('./blocks');
const { Phase, ReasoningGate, checkReasoning } = require('./reasoning');
const { ArgumentsWriter } = require('./arguments');

const KNOWN_OPTIONS = ['toolNames', 'tools', 'unknownTools', 'jsonToolCalls', 'maxCaptureChars', 'formats', 'reasoning', 'streamArguments', 'preset'];
const DEFAULT_MAX_CAPTURE = 8 * 1024 * 1024;

/**
 * Streaming sieve: `feed(chunk)` returns the events that chunk decided, `flush()` the rest.
 *
 * Text comes out as soon as it cannot become part of a tool call (R8.3); a recognized block
 * comes out once, as one `tool_calls` event whose `raw` is its exact source text (R8.1, R8.2).
 * With `streamArguments` (R16) each call is also announced (`tool_call_start`) as soon as its name
 * is final, and its arguments follow as JSON text fragments (`tool_call_arguments`).
 */
class Sieve {
  constructor(options) {
    const opts = checkOptions(options, KNOWN_OPTIONS);
    const tools = checkTools(opts.tools);
    this.tools = tools;
    this.preset = checkPreset(opts.preset);
    const formats = opts.formats === undefined || opts.formats === null ? (this.preset ? this.preset.formats : null) : opts.formats;
    this.formats = checkFormats(formats);
    const reasoning = opts.reasoning === undefined || opts.reasoning === null ? (this.preset ? this.preset.reasoning : 'auto') : opts.reasoning;
    this.reasoning = checkReasoning(reasoning);
    const streamArguments = opts.streamArguments === undefined ? false : opts.streamArguments;
    if (typeof streamArguments !== 'boolean') throw new InputTypeError('streamArguments must be a boolean');
    this.streamArguments = streamArguments;
    this.unknownTools = checkPolicy(opts.unknownTools === undefined ? 'keep' : opts.unknownTools);
    this.toolNames = Object.freeze(declaredNames(opts.toolNames, tools));
    this._rejected = new Set();
    const maxCapture = opts.maxCaptureChars === undefined ? DEFAULT_MAX_CAPTURE : opts.maxCaptureChars;
    if (typeof maxCapture !== 'number' || !Number.isInteger(maxCapture)) {
      throw new InputTypeError('maxCaptureChars must be an integer');
    }
    if (maxCapture < 1) throw new OptionsError('maxCaptureChars must be at least 1');
    const jsonCalls = opts.jsonToolCalls === undefined ? false : opts.jsonToolCalls;
    if (typeof jsonCalls !== 'boolean') throw new InputTypeError('jsonToolCalls must be a boolean');
    this._schemas = new Map(); // call name -> its tool's schema (R17.9)
    let typer = null;
    if (tools !== null) {
      typer = (n, k, raw) => this._typed(n, k, raw);
      typer.kind = (n, k) => this._kind(n, k);
    }
    this._scanner = new Scanner(maxCapture, jsonCalls, this.formats, streamArguments, typer);
    this._writer = streamArguments
      ? new ArgumentsWriter(
          (index, name, id) => (id === null ? { type: 'tool_call_start', index, name } : { type: 'tool_call_start', index, name, id }),
          (index, delta) => ({ type: 'tool_call_arguments', index, delta }),
        )
      : null;
    this._gate = this.preset ? new ReasoningGate(this.reasoning, this.preset.think) : new ReasoningGate(this.reasoning);
    this._closed = false;
  }

  feed(chunk) {
    if (this._closed) throw new SieveClosedError('feed() after flush(): create a new Sieve for a new stream');
    if (typeof chunk !== 'string') throw new InputTypeError(`feed() takes a string, got ${typeName(chunk)}`);
    if (!chunk) return [];
    const gate = this._gate;
    if (gate.phase !== Phase.DONE) {
      if (gate.phase === Phase.INSIDE && !gate.held && !chunk.includes(gate.lead)) {
        // in a reasoning region, no closing marker can start in this chunk (R15)
        gate.work += chunk.length;
        return [{ type: 'reasoning', text: chunk }];
      }
      return this._declared(this._pass(gate.feed(chunk)));
    }
    // No reasoning (left): straight to the scanner. The common case (nothing declared acts on
    // calls, no incremental arguments) skips _declared: this runs once per chunk.
    if (this._writer === null && !this._acts()) return this._scanner.feed(chunk);
    return this._declared(this._scanner.feed(chunk));
  }

  flush() {
    if (this._closed) throw new SieveClosedError('flush() called twice');
    this._closed = true;
    const events = this._pass(this._gate.finish());
    return this._declared(events.concat(this._scanner.finish()));
  }

  /** Reasoning pieces become events; content pieces go through the scanner. */
  _pass(pieces) {
    if (pieces.length === 1 && !pieces[0][0]) return this._scanner.feed(pieces[0][1]);
    let events = [];
    for (const [reasoning, text] of pieces) {
      if (reasoning) events.push({ type: 'reasoning', text });
      else events = events.concat(this._scanner.feed(text));
    }
    return events;
  }

  _declared(events) {
    if (this._writer !== null) {
      // the Sieve's treatment of calls, for this call (as Python passes its bound methods)
      return this._writer.events(
        events,
        (name) => this._resolve(name),
        (name, input) => this._normalizeInput(name, input),
        (e) => this._apply(e),
      );
    }
    if (!this._acts()) return events; // R1-R8 behavior: nothing declared that acts on calls
    return events.map((e) => (e.type === 'tool_calls' ? this._apply(e) : e));
  }

  /** Do declared tools act on calls (names, policy, schemas)? toolNames alone keep names as written. */
  _acts() {
    return this.tools !== null || (this.toolNames.length > 0 && this.unknownTools !== 'keep');
  }

  /** R16: a call's name as the block's event will have it, or null when it is rejected. */
  _resolve(name) {
    if (!this._acts()) return name;
    const r = applyPolicy([{ name, input: {} }], this.toolNames, this.unknownTools);
    return r.calls.length ? r.calls[0].name : null;
  }

  _schema(name) {
    const schemas = this._schemas;
    if (schemas.has(name)) return schemas.get(name);
    const resolved = this.toolNames.length ? resolveToolName(name, this.toolNames) : name;
    const schema = findToolSchema(this.tools, resolved !== null ? resolved : name);
    if (schemas.size >= 1024) schemas.clear();
    schemas.set(name, schema);
    return schema;
  }

  /** R17.9: a raw-text value typed by its tool's schema (Python's SchemaTyper). */
  _typed(name, key, raw) {
    const prop = propertySchema(this._schema(name), key);
    if (prop === null) return NO_SCHEMA;
    const [ok, v] = typedValue(prop, raw);
    return ok ? v : raw;
  }

  /** R16: 0 no schema entry for `key`; 1 its value stays the text as written; 2 it may be typed
   * otherwise (it streams only once whole). Python's SchemaTyper.kind. */
  _kind(name, key) {
    const prop = propertySchema(this._schema(name), key);
    if (prop === null) return 0;
    return keepsText(prop) ? 1 : 2;
  }

  _normalizeInput(name, input) {
    return this.tools === null ? input : normalizeInput(name, input, this.tools);
  }

  _apply(e) {
    if (!this._acts()) return e;
    const r = applyPolicy(e.calls, this.toolNames, this.unknownTools);
    const calls = this.tools === null ? r.calls : r.calls.map((c) => this._normalized(c));
    for (const n of r.rejectedToolNames) this._rejected.add(n);
    const out = { type: 'tool_calls', calls, raw: e.raw };
    if (r.rejectedToolNames.length) out.rejectedToolNames = r.rejectedToolNames;
    if (e.format !== undefined) out.format = e.format;
    if (e.malformed !== undefined) out.malformed = e.malformed;
    if (e.repaired !== undefined) out.repaired = e.repaired;
    return out;
  }

  _normalized(c) {
    const input = normalizeInput(c.name, c.input, this.tools);
    if (input === c.input) return c;
    return c.id === undefined ? { name: c.name, input } : { name: c.name, input, id: c.id };
  }

  /** Names rejected by `unknownTools: 'reject'` so far, once each, in order of appearance. */
  get rejectedToolNames() {
    return [...this._rejected];
  }

  /** True once a wrapper tag was recognized outside ignored regions (R7). */
  get sawToolCallSyntax() {
    return this._scanner.saw;
  }

  /**
   * Debug counter: characters (UTF-16 code units) the scanner has been exposed to so far (new
   * input, held lookahead seen again, rescans, value decoding). Linear time means
   * work / input stays below a small constant, whatever the chunking.
   */
  get work() {
    return this._scanner.work + this._gate.work;
  }
}

/** The `preset` option (R19): null/undefined, or a name from PRESETS. */
function checkPreset(preset) {
  if (preset === undefined || preset === null) return null;
  if (typeof preset !== 'string') throw new InputTypeError(`preset must be a string, got ${typeof preset}`);
  if (!Object.prototype.hasOwnProperty.call(PRESETS, preset)) {
    throw new OptionsError(`unknown preset ${JSON.stringify(preset)}; known: ${Object.keys(PRESETS).join(', ')}`);
  }
  return PRESETS[preset];
}

/** The `formats` option (R14.9): null/undefined means the default formats (R19.3); else names from FORMATS. */
function checkFormats(formats) {
  if (formats === undefined || formats === null) return new Set(DEFAULT_FORMATS);
  if (typeof formats === 'string' || typeof formats !== 'object' || typeof formats[Symbol.iterator] !== 'function') {
    throw new InputTypeError("formats must be a list of format names, e.g. ['dsml', 'tokens']");
  }
  const out = new Set(formats);
  for (const f of out) {
    if (typeof f !== 'string') throw new InputTypeError('formats must be a list of strings');
    if (!Object.prototype.hasOwnProperty.call(FORMATS, f)) {
      throw new OptionsError(`unknown format ${JSON.stringify(f)}; known: ${Object.keys(FORMATS).join(', ')}`);
    }
  }
  return out;
}

/** One-shot parse (R7): feed everything to a Sieve, flush, collect the calls and the text. */
function parse(text, options) {
  if (typeof text !== 'string') throw new InputTypeError(`parse() takes a string, got ${typeName(text)}`);
  const sieve = new Sieve(options);
  const events = sieve.feed(text).concat(sieve.flush());
  const calls = [];
  for (const e of events) if (e.type === 'tool_calls') for (const c of e.calls) calls.push(c);
  const rejected = sieve.rejectedToolNames;
  let reasoning = '';
  let prose = '';
  for (const e of events) {
    if (e.type === 'reasoning') reasoning += e.text;
    else if (e.type === 'text') prose += e.text;
  }
  const result = {
    calls,
    sawToolCallSyntax: sieve.sawToolCallSyntax,
    rejectedByPolicy: rejected.length > 0 && calls.length === 0,
    rejectedToolNames: rejected,
  };
  if (reasoning) result.reasoning = reasoning;
  result.text = prose; // the text outside calls and reasoning
  return result;
}

/**
 * Join adjacent text events, adjacent reasoning events, and adjacent argument fragments of one
 * call (the form fixtures and the driver protocol compare).
 */
function coalesce(events) {
  if (events === null || typeof events !== 'object' || typeof events[Symbol.iterator] !== 'function') {
    throw new InputTypeError(`coalesce() takes an iterable of events, got ${typeName(events)}`);
  }
  const out = [];
  for (const e of events) {
    if (e.type === 'text') {
      if (!e.text) continue;
      const last = out[out.length - 1];
      if (last !== undefined && last.type === 'text') {
        const note = last.note || e.note;
        out[out.length - 1] = note ? { type: 'text', text: last.text + e.text, note } : { type: 'text', text: last.text + e.text };
        continue;
      }
    } else if (e.type === 'reasoning') {
      if (!e.text) continue;
      const last = out[out.length - 1];
      if (last !== undefined && last.type === 'reasoning') {
        out[out.length - 1] = { type: 'reasoning', text: last.text + e.text };
        continue;
      }
    } else if (e.type === 'tool_call_arguments') {
      const last = out[out.length - 1];
      if (last !== undefined && last.type === 'tool_call_arguments' && last.index === e.index) {
        out[out.length - 1] = { type: 'tool_call_arguments', index: e.index, delta: last.delta + e.delta };
        continue;
      }
    }
    out.push(e);
  }
  return out;
}

module.exports = { FORMATS, Sieve, checkFormats, checkPreset, coalesce, parse };
