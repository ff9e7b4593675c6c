'use strict';
/**
 * toolsieve: sieve tool calls out of raw LLM text, streaming, in linear time.
 *
 *   const { parse } = require('toolsieve');
 *   parse('<|DSML|tool_calls><|DSML|invoke name="ls"></|DSML|invoke></|DSML|tool_calls>').calls
 *   // [ { name: 'ls', input: {} } ]
 */

const { Sieve, parse, coalesce } = require('./src/sieve');
const { ToolsieveError, InputTypeError, SieveClosedError, OptionsError } = require('./src/errors');

const version = '0.1.0';

module.exports = {
  parse,
  Sieve,
  coalesce,
  ToolsieveError,
  InputTypeError,
  SieveClosedError,
  OptionsError,
  version,
};
