#!/usr/bin/env node
'use strict';
/**
 * The JSONL driver of docs/DRIVER.md: `node parity/node/driver.js` (run from the project root).
 *
 * One request per input line, one response per request, in order; a bad request gets an error
 * response and the driver goes on. The requests themselves are answered by src/driver.js.
 */

const { handle, respond, callFunction, eventDict } = require('./src/driver');

// Python's str.strip() whitespace, for skipping blank lines exactly as the Python driver does.
const BLANK_LINE = /^[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

function main() {
  // Lines end at "\n" only, as in the Python driver: readline would also split at U+2028/U+2029,
  // which JSON strings may hold unescaped.
  const { StringDecoder } = require('string_decoder');
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const answer = (line) => {
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (!BLANK_LINE.test(line)) process.stdout.write(respond(line) + '\n');
  };
  process.stdin.on('data', (buf) => {
    const parts = (pending + decoder.write(buf)).split('\n');
    pending = parts.pop();
    for (const line of parts) answer(line);
  });
  process.stdin.on('end', () => {
    const rest = pending + decoder.end();
    if (rest) answer(rest);
    process.exitCode = 0;
  });
}

if (require.main === module) main();

module.exports = { handle, respond, callFunction, eventDict };
