#!/usr/bin/env node
'use strict';
/**
 * An OpenAI-compatible gateway in front of an upstream that writes DSML tool-call markup into
 * `content` (DeepSeek and others): clients get native `tool_calls`. The same server as the
 * package's `callsieve-gateway` bin, embedded in a program of one's own:
 *
 *   node examples/gateway.js --upstream https://api.example.com/v1 [--port 8080] [--api-key KEY]
 */

const { createGatewayServer, parseGatewayArgs } = require('callsieve');

const args = parseGatewayArgs(process.argv.slice(2), { ...process.env, CALLSIEVE_PORT: process.env.CALLSIEVE_PORT || '0' });
if ('help' in args || 'version' in args) {
  process.stdout.write('see: npx callsieve-gateway --help\n');
  process.exit(0);
}
const server = createGatewayServer(args);
server.listen(args.port, args.host, () => {
  process.stdout.write(`gateway listening on http://${args.host}:${server.address().port}\n`);
});
