'use strict';
/**
 * The non-streaming rewriter: a whole OpenAI `chat.completion` whose `message.content` carries
 * tool-call markup, rewritten into native `message.tool_calls` (`rewriteChatCompletion`). Port of
 * python/callsieve/completion.py; the rules are in python/callsieve/openai.py's docstring.
 */

const { OpenAIFormatError, typeName } = require('./errors');
const { hasOwn, isObject } = require('./jsontext');
const { toOpenAIToolCalls } = require('./toolcalls');
const { Options, REWRITE_OPTIONS, appendRejected, get, indexOf, optionsOf } = require('./policy');

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
    const events = sieve.feed(content).concat(sieve.flush());
    let text = '';
    let thought = '';
    const calls = [];
    const upstream = get(message, 'tool_calls');
    const already = Array.isArray(upstream) ? upstream.length : 0;
    events.forEach((e) => {
      if (e.type === 'text') {
        text += e.text;
        if (e.note) opts.released(e);
      } else if (e.type === 'reasoning') thought += e.text;
      else if (opts.callsOff) text += e.raw; // toolChoice 'none': the markup is the model's text
      else calls.push(...opts.policy(e, already + calls.length));
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

module.exports = {
  rewriteChatCompletion,
};
