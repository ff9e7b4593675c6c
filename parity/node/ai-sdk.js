'use strict';
/**
 * `callsieve/ai-sdk`: a Vercel AI SDK language-model middleware that turns tool-call markup in
 * text parts into tool-call parts (see src/ai-sdk.js). `ai` is an optional peer: this entry does
 * not load it, and the core `callsieve` entry does not load this one.
 *
 *   const { wrapLanguageModel } = require('ai');
 *   const { callsieveMiddleware } = require('callsieve/ai-sdk');
 *   const model = wrapLanguageModel({ model: base, middleware: callsieveMiddleware() });
 */

const { callsieveMiddleware } = require('./src/ai-sdk');

module.exports = { callsieveMiddleware };
