'use strict';
/**
 * callsieve: sieve tool calls out of raw LLM text, streaming, in linear time.
 *
 *   const { parse } = require('callsieve');
 *   parse('<|DSML|tool_calls><|DSML|invoke name="ls"></|DSML|invoke></|DSML|tool_calls>').calls
 *   // [ { name: 'ls', input: {} } ]
 *
 * The gateway layer (R10-R13) mirrors the Python modules of the same names: names, roles,
 * schema, openai, sse, prompt; errors, jsontext and strings hold what they share.
 */

const { FORMATS, Sieve, parse, coalesce } = require('./src/sieve');
const { PRESETS } = require('./src/formats');
const {
  CallsieveError,
  InputTypeError,
  SieveClosedError,
  OptionsError,
  SSEFormatError,
  OpenAIFormatError,
} = require('./src/errors');
const { applyPolicy, resolveToolName } = require('./src/names');
const { normalizeRole } = require('./src/roles');
const { jsonText } = require('./src/jsontext');
const { normalizeInput, toolNamesOf } = require('./src/schema');
const { buildToolInstructions } = require('./src/prompt');
const { preparePromptRequest, rewritesResponse } = require('./src/request');
const {
  SSEParser,
  ChatChunkParser,
  iterSSEEvents,
  iterChatChunks,
  writeSSE,
  createSSEDecoderStream,
  createSSEEncoderStream,
} = require('./src/sse');
const {
  newCallId,
  toOpenAIToolCalls,
  toOpenAIStreamDeltas,
  ChatCompletionStreamRewriter,
  rewriteChatCompletionStream,
  rewriteChatCompletion,
  createChatCompletionRewriteStream,
  createSSERewriteStream,
} = require('./src/openai');

const version = '0.1.0';

// The gateway server (src/server.js, on node:http) loads on first use: the rest of the package
// runs anywhere (browsers, workers), and `require('callsieve')` costs no HTTP stack.
function server() {
  return require('./src/server');
}

/** An `http.Server` running the gateway (not yet listening); see src/server.js. */
function createGatewayServer(config) {
  return server().createGatewayServer(config);
}

/** The gateway's request handler `(req, res)`, for a `node:http` server of one's own. */
function gatewayHandler(config) {
  return server().gatewayHandler(config);
}

/** The gateway's settings from command-line arguments and environment variables (as the bin). */
function parseGatewayArgs(argv, env = process.env) {
  return server().parseGatewayArgs(argv, env);
}

module.exports = {
  parse,
  Sieve,
  coalesce,
  FORMATS,
  PRESETS,
  CallsieveError,
  InputTypeError,
  SieveClosedError,
  OptionsError,
  applyPolicy,
  resolveToolName,
  normalizeRole,
  jsonText,
  normalizeInput,
  toolNamesOf,
  buildToolInstructions,
  preparePromptRequest,
  rewritesResponse,
  SSEFormatError,
  SSEParser,
  ChatChunkParser,
  iterSSEEvents,
  iterChatChunks,
  writeSSE,
  createSSEDecoderStream,
  createSSEEncoderStream,
  OpenAIFormatError,
  newCallId,
  toOpenAIToolCalls,
  toOpenAIStreamDeltas,
  ChatCompletionStreamRewriter,
  rewriteChatCompletionStream,
  rewriteChatCompletion,
  createChatCompletionRewriteStream,
  createSSERewriteStream,
  createGatewayServer,
  gatewayHandler,
  parseGatewayArgs,
  version,
};
