'use strict';
/**
 * What the two OpenAI rewriters (./chunks.js, ./completion.js) share: their options, checked, and
 * the policy each block's calls go through before they are written: the declared names and
 * `unknownTools` (R10), the request's `toolChoice` and `parallelToolCalls`, the malformed calls
 * that still go out (D54), and the counts (`stats`). Port of python/callsieve/policy.py; the rules
 * are in python/callsieve/openai.py's docstring.
 */

const { InputTypeError, OpenAIFormatError, OptionsError, checkOptions, typeName } = require('./errors');
const { checkPolicy, declaredNames, applyPolicy, resolveName } = require('./names');
const { checkTools } = require('./schema');
const { hasOwn, isObject } = require('./jsontext');
const { Sieve, checkFormats, checkPreset } = require('./sieve');
const { checkReasoning } = require('./reasoning');
const { RAW_ARGUMENTS, checkIdFactory, isInt, unparsedCall } = require('./toolcalls');

/** Own property or null: Python's `dict.get` (inherited names like `constructor` are not keys). */
function get(o, k) {
  return hasOwn(o, k) && o[k] !== undefined ? o[k] : null;
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

function renamed(c, name) {
  if (c[RAW_ARGUMENTS] !== undefined) return unparsedCall(name, c[RAW_ARGUMENTS]);
  return c.id === undefined ? { name, input: c.input } : { name, input: c.input, id: c.id };
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
  announced(e, dropped = 0) {
    const rejected = e.rejectedToolNames || [];
    for (const n of rejected) this.rejected.add(n);
    this.stats.blocks += 1;
    if (e.repaired && e.repaired.length) this.stats.repairedBlocks += 1; // the scanner's repairs (D58)
    this.stats.calls += Math.max(0, e.calls.length - dropped);
    this.stats.rejectedCalls += rejected.length;
  }

  /**
   * The block's calls under the reject policy (R10.2) and the request's toolChoice and
   * parallelToolCalls (`already`: the calls the choice has so far); counts the block.
   */
  policy(e, already = 0) {
    const calls = e.calls;
    const r = applyPolicy(calls, this.toolNames, this.unknownTools);
    for (const n of r.rejectedToolNames) this.rejected.add(n);
    let kept = [...r.calls, ...this.unparsed(e)];
    if (this.only !== null) kept = kept.filter((c) => this.chosen(c.name) !== null).map((c) => renamed(c, this.only));
    if (this.single) kept = kept.slice(0, Math.max(0, 1 - already));
    this.stats.blocks += 1;
    if (e.repaired && e.repaired.length) this.stats.repairedBlocks += 1; // the scanner's repairs (D58)
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

module.exports = {
  TOOL_CHOICES,
  chosenFunction,
  checkToolChoice,
  checkParallelToolCalls,
  Options,
  REWRITER_OPTIONS,
  REWRITE_OPTIONS,
  optionsOf,
  rewriterOptions,
  appendRejected,
  indexOf,
  get,
};
