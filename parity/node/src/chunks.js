'use strict';
/**
 * The streaming rewriter: a stream of OpenAI `chat.completion.chunk`s whose `delta.content` carries
 * tool-call markup, rewritten chunk by chunk into native `delta.tool_calls`
 * (`ChatCompletionStreamRewriter`, `rewriteChatCompletionStream`), and as WHATWG TransformStreams
 * for chunk objects and for SSE bytes (Node only). Port of python/callsieve/chunks.py; the rules
 * are in python/callsieve/openai.py's docstring.
 */

const { InputTypeError, OpenAIFormatError, CallsieveError, typeName } = require('./errors');
const { hasOwn, isObject } = require('./jsontext');
const { ChatChunkParser, encodeEvent } = require('./sse');
const { isInt, nextId, toOpenAIStreamDeltas } = require('./toolcalls');
const { Options, REWRITER_OPTIONS, REWRITE_OPTIONS, appendRejected, get, indexOf, optionsOf, rewriterOptions } = require('./policy');

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

  /** The deltas for a choice's events. */
  _pieces(st, events) {
    const out = [];
    for (const e of events) {
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
        this._opts.announced(e, st.dropped);
        st.dropped = 0;
        continue;
      } else {
        const calls = this._opts.policy(e, st.taken.size);
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
    const id = e.id || nextId(this._opts.idFactory); // D63: the call's own id when announced with it
    return { index, id, type: 'function', function: { name, arguments: '' } };
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
      if (finish !== null && st.sieve !== null) {
        events = events.concat(st.sieve.flush());
        st.sieve = null;
      }
      const pieces = this._pieces(st, events);
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
      for (const piece of this._pieces(st, events)) out.push(extra(envelope, idx, piece, null));
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
  ChatCompletionStreamRewriter,
  rewriteChatCompletionStream,
  createChatCompletionRewriteStream,
  createSSERewriteStream,
};
