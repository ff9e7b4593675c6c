#!/usr/bin/env node
'use strict';
/**
 * The JSONL driver of DRIVER.md: `node parity/node/driver.js` (run from the project root).
 *
 * One request per input line, one response per request, in order; a bad request gets an error
 * response and the driver goes on. The requests themselves are answered by src/protocol.js.
 */

const readline = require('readline');
const { handle, respond, callFunction, eventDict } = require('./src/protocol');

// Python's str.strip() whitespace, for skipping blank lines exactly as the Python driver does.
const BLANK_LINE = /^[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

function main() {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  rl.on('line', (line) => {
    if (BLANK_LINE.test(line)) return;
    process.stdout.write(respond(line) + '\n');
  });
  rl.on('close', () => {
    process.exitCode = 0;
  });
}

if (require.main === module) main();

module.exports = { handle, respond, callFunction, eventDict };
