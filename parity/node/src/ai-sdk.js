'use strict';
/**
 * Vercel AI SDK language-model middleware (`callsieve/ai-sdk`): tool-call markup in a model's
 * text parts becomes tool-call parts.
 *
 *   const { wrapLanguageModel } = require('ai');
 *   const { callsieveMiddleware } = require('callsieve/ai-sdk');
 *   const model = wrapLanguageModel({ model: base, middleware: callsieveMiddleware() });
 *
 * Nothing here imports `ai`: a middleware is a plain object (LanguageModelV4Middleware), so the
 * package keeps no runtime dependency and `ai` stays an optional peer.
 *
 * - Each text block (`text-start` id) gets its own Sieve, so what is text and what is a call is
 *   the Sieve's decision: chunk-invariant, and no markup reaches a text part.
 * - A call ends the text block it interrupts; text after it goes on in a new block `<id>-<n>`, so
 *   parts keep the source order. Text blocks start lazily: a block that was all markup leaves
 *   no empty text part.
 * - A reasoning region in the text (`<think>`, the `reasoning` option, R15) becomes
 *   `reasoning-start` / `-delta` / `-end` parts (a `reasoning` content part in wrapGenerate), in
 *   place, as `extractReasoningMiddleware` would give.
 * - Each call comes out as `tool-input-start` / `-delta` / `-end` and then `tool-call`, as
 *   providers stream native calls; `input` is the JSON text of the call's input.
 * - A `stop` finish reason becomes `tool-calls` when calls came out (as the OpenAI gateway does).
 * - Every other part (reasoning, native tool calls, sources, raw chunks, ...) passes unchanged.
 */

const { InputTypeError, checkOptions, typeName } = require('./errors');
const { newCallId } = require('./openai');
const { Sieve, coalesce } = require('./sieve');

const SIEVE_OPTIONS = ['tools', 'toolNames', 'unknownTools', 'formats', 'jsonToolCalls', 'maxCaptureChars', 'reasoning', 'preset'];
const KNOWN_OPTIONS = [...SIEVE_OPTIONS, 'idFactory'];

/**
 * The middleware for `wrapLanguageModel`. Declared tools are `options.tools` (or
 * `options.toolNames`), else the function tools of each call (`params.tools`); they act as in a
 * Sieve: names resolve to the declared spelling, inputs follow the schemas, and
 * `unknownTools: 'reject'` leaves undeclared calls out (their names are in the finish part's
 * `providerMetadata.callsieve.rejectedToolNames`).
 */
function callsieveMiddleware(options) {
  const opts = checkOptions(options, KNOWN_OPTIONS);
  const idFactory = opts.idFactory === undefined || opts.idFactory === null ? newCallId : opts.idFactory;
  if (typeof idFactory !== 'function') throw new InputTypeError(`idFactory must be a function, got ${typeName(idFactory)}`);
  const fixed = {};
  for (const k of SIEVE_OPTIONS) if (opts[k] !== undefined && opts[k] !== null) fixed[k] = opts[k];
  new Sieve(fixed); // bad options throw here, when the middleware is made, not on the first call

  return {
    specificationVersion: 'v4',
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      const run = new Run(fixed, params, idFactory);
      const content = [];
      for (const part of result.content) {
        if (part && part.type === 'text' && typeof part.text === 'string') content.push(...run.sieveText(part));
        else content.push(part);
      }
      if (!run.changed) return result;
      return { ...result, content, ...run.finishFields(result) };
    },
    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      const run = new Run(fixed, params, idFactory);
      return { stream: stream.pipeThrough(run.transform()), ...rest };
    },
  };
}

/** The function tools of a call, as tool definitions a Sieve reads (`{name, inputSchema}`). */
function callTools(params) {
  const tools = params && Array.isArray(params.tools) ? params.tools : [];
  return tools.filter((t) => t && t.type === 'function' && typeof t.name === 'string');
}

/** One model call: its sieves, ids and whether calls came out (for the finish reason). */
class Run {
  constructor(fixed, params, idFactory) {
    this.options = { ...fixed };
    if (fixed.tools === undefined && fixed.toolNames === undefined) {
      const tools = callTools(params);
      if (tools.length) this.options.tools = tools;
    }
    this.idFactory = idFactory;
    this.calls = 0;
    this.changed = false;
    this.rejected = new Set();
  }

  sieve() {
    return new Sieve(this.options);
  }

  /** The call's own id where the model wrote one (D63, as the OpenAI layer), else a new one. */
  callId(call) {
    return typeof call.id === 'string' && call.id ? call.id : this.nextId();
  }

  nextId() {
    const id = this.idFactory();
    if (typeof id !== 'string') throw new InputTypeError(`idFactory must return a string, got ${typeName(id)}`);
    return id;
  }

  /** The content parts for one whole text part (wrapGenerate). */
  sieveText(part) {
    const sieve = this.sieve();
    const events = coalesce(sieve.feed(part.text).concat(sieve.flush()));
    if (events.length === 1 && events[0].type === 'text' && events[0].text === part.text) return [part];
    if (events.length === 0 && part.text === '') return [part];
    this.changed = true;
    const out = [];
    let first = true;
    for (const e of events) {
      if (e.type === 'text') {
        // The part's own fields (providerMetadata, citations) stay on its first piece only.
        out.push(first ? { ...part, text: e.text } : { type: 'text', text: e.text });
        first = false;
      } else if (e.type === 'reasoning') {
        if (e.text) out.push({ type: 'reasoning', text: e.text });
      } else if (e.type === 'tool_calls') {
        for (const c of this.keep(e)) out.push({ type: 'tool-call', toolCallId: this.callId(c), toolName: c.name, input: JSON.stringify(c.input) });
      }
      // Other event types (later Sieve versions) are not text: left out, never leaked.
    }
    return out;
  }

  /** The calls of a tool_calls event, counting them and the rejected names. */
  keep(e) {
    if (e.rejectedToolNames) for (const n of e.rejectedToolNames) this.rejected.add(n);
    this.calls += e.calls.length;
    return e.calls;
  }

  /** finishReason (and providerMetadata) once the calls are known. */
  finishFields(part) {
    const out = {};
    if (this.calls > 0) out.finishReason = toolCallsReason(part.finishReason);
    if (this.rejected.size) {
      out.providerMetadata = { ...part.providerMetadata, callsieve: { rejectedToolNames: [...this.rejected] } };
    }
    return out;
  }

  /** The TransformStream of stream parts (wrapStream). */
  transform() {
    const blocks = new Map();
    const endAll = (controller) => {
      for (const b of blocks.values()) b.end(controller, null);
      blocks.clear();
    };
    return new TransformStream({
      transform: (part, controller) => {
        const type = part && part.type;
        if (type === 'text-start' || type === 'text-delta' || type === 'text-end') {
          let b = blocks.get(part.id);
          if (b === undefined) {
            // A text-delta or -end without its text-start: sieved all the same.
            b = new TextBlock(type === 'text-start' ? part : { type: 'text-start', id: part.id }, this);
            blocks.set(part.id, b);
            if (type === 'text-start') return;
          } else if (type === 'text-start') {
            b.end(controller, null); // the same id started again: a new block
            blocks.set(part.id, new TextBlock(part, this));
            return;
          }
          if (type === 'text-delta') {
            if (typeof part.delta === 'string') b.emit(controller, b.sieve.feed(part.delta));
          } else {
            blocks.delete(part.id);
            b.end(controller, part);
          }
          return;
        }
        if (type === 'finish') {
          endAll(controller);
          controller.enqueue({ ...part, ...this.finishFields(part) });
          return;
        }
        controller.enqueue(part);
      },
      flush: endAll,
    });
  }
}

/**
 * One text block of a stream: its sieve and the part now open in its place, a text or a
 * reasoning part. Parts open lazily; the first text part keeps the block's id, later ones are
 * `<id>-<n>`.
 */
class TextBlock {
  constructor(start, run) {
    this.start = start;
    this.run = run;
    this.sieve = run.sieve();
    this.parts = 0; // parts opened so far
    this.textOpened = false;
    this.open = null; // {kind: 'text' | 'reasoning', id}
    this.touched = false;
  }

  /** Close the open part unless it is of `kind`; open one of `kind` if none is. */
  as(controller, kind) {
    if (this.open && this.open.kind === kind) return this.open.id;
    this.close(controller, null);
    const id = kind === 'text' && !this.textOpened ? this.start.id : `${this.start.id}-${this.parts}`;
    this.parts += 1;
    if (kind === 'text') {
      this.textOpened = true;
      controller.enqueue({ ...this.start, id });
    } else {
      controller.enqueue({ type: 'reasoning-start', id });
    }
    this.open = { kind, id };
    return id;
  }

  close(controller, endPart) {
    if (!this.open) return;
    const { kind, id } = this.open;
    if (kind === 'text') controller.enqueue(endPart ? { ...endPart, id } : { type: 'text-end', id });
    else controller.enqueue({ type: 'reasoning-end', id });
    this.open = null;
  }

  emit(controller, events) {
    for (const e of events) {
      if (e.type === 'text' || e.type === 'reasoning') {
        if (!e.text) continue;
        this.touched = true;
        const kind = e.type === 'text' ? 'text' : 'reasoning';
        const id = this.as(controller, kind);
        controller.enqueue({ type: `${kind}-delta`, id, delta: e.text });
      } else if (e.type === 'tool_calls') {
        this.touched = true;
        const calls = this.run.keep(e);
        if (calls.length) this.close(controller, null);
        for (const c of calls) {
          const id = this.run.callId(c);
          const input = JSON.stringify(c.input);
          controller.enqueue({ type: 'tool-input-start', id, toolName: c.name });
          controller.enqueue({ type: 'tool-input-delta', id, delta: input });
          controller.enqueue({ type: 'tool-input-end', id });
          controller.enqueue({ type: 'tool-call', toolCallId: id, toolName: c.name, input });
        }
      }
      // Other event types (later Sieve versions) are not text: left out, never leaked.
    }
  }

  /** Flush the sieve and close the open part; a text part ends with `endPart` (its citations, metadata). */
  end(controller, endPart) {
    this.emit(controller, this.sieve.flush());
    const end = endPart || { type: 'text-end' };
    if (this.open && this.open.kind === 'text') {
      this.close(controller, end);
    } else {
      this.close(controller, null);
      if (!this.touched) {
        // An empty block stays as the model sent it.
        controller.enqueue(this.start);
        controller.enqueue({ ...end, id: this.start.id });
      }
    }
  }
}

/** `stop` becomes `tool-calls` (V4's `{unified, raw}`, or a bare string); other reasons stay. */
function toolCallsReason(reason) {
  if (reason === 'stop') return 'tool-calls';
  if (reason && typeof reason === 'object' && reason.unified === 'stop') return { ...reason, unified: 'tool-calls' };
  return reason;
}

module.exports = { callsieveMiddleware };
