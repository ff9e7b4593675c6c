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
 *
 * The layer's modules, each named after what it does (as in Python): ./toolcalls.js (calls as
 * OpenAI `tool_calls`, ids), ./policy.js (the rewriters' options and the policy calls go through),
 * ./chunks.js (the streaming rewriter and the TransformStreams), ./completion.js (the
 * non-streaming one). This module is their public face.
 */

const { OpenAIFormatError } = require('./errors');
const { newCallId, toOpenAIToolCalls, toOpenAIStreamDeltas } = require('./toolcalls');
const { checkToolChoice, checkParallelToolCalls } = require('./policy');
const {
  ChatCompletionStreamRewriter,
  rewriteChatCompletionStream,
  createChatCompletionRewriteStream,
  createSSERewriteStream,
} = require('./chunks');
const { rewriteChatCompletion } = require('./completion');

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
