'use strict';
/**
 * The `callsieve-gateway` command (bin/callsieve-gateway.js): its flags and environment variables
 * (`parseGatewayArgs`), listening, and `--workers N` (node:cluster). Python's `callsieve serve`
 * reads its flags in python/callsieve/cli.py; its processes are set up by python/callsieve/serve.py.
 */

const cluster = require('node:cluster');
const fs = require('node:fs');
const { parseArgs } = require('node:util');
const { PRESETS } = require('./formats');
const { UsageError } = require('./errors');
const { checkFormats } = require('./sieve');
const { REASONING_MODES } = require('./reasoning');
const { DEFAULT_MAX_BODY_BYTES, LOG_FORMATS, LOG_LEVELS, MODES, POLICIES, gatewayConfig, presetName } = require('./config');
const { createGatewayServer } = require('./app');
const { UTF8 } = require('./gateway');

const FLAGS = [
  // flag, environment variable, default, kind, help
  ['upstream', 'CALLSIEVE_UPSTREAM', undefined, 'url', 'base URL of the OpenAI-compatible upstream (…/v1)'],
  ['host', 'CALLSIEVE_HOST', '127.0.0.1', 'string', 'address to listen on'],
  ['port', 'CALLSIEVE_PORT', '8080', 'port', 'port to listen on (0: any free port)'],
  ['api-key', 'CALLSIEVE_API_KEY', undefined, 'keys', "a key clients must present as 'Authorization: Bearer KEY' (repeat the flag for several; the variable: keys separated by commas); without any, clients need no key"],
  ['api-key-file', 'CALLSIEVE_API_KEY_FILE', undefined, 'file', 'a file of client keys, one a line (blank lines and # comments ignored)'],
  ['upstream-api-key', 'CALLSIEVE_UPSTREAM_API_KEY', undefined, 'string', "the key sent upstream as 'Authorization: Bearer KEY' (default: none)"],
  ['forward-client-key', 'CALLSIEVE_FORWARD_CLIENT_KEY', 'no', 'bool', "without --upstream-api-key, send the client's Authorization header upstream"],
  ['mode', 'CALLSIEVE_MODE', 'passthrough', MODES, 'passthrough or prompt'],
  ['unknown-tools', 'CALLSIEVE_UNKNOWN_TOOLS', 'keep', POLICIES, 'calls to undeclared tools: keep or reject'],
  ['timeout', 'CALLSIEVE_TIMEOUT', '600', 'seconds', 'upstream silence that ends a request (s)'],
  ['keepalive', 'CALLSIEVE_KEEPALIVE', '15', 'seconds', "write ': keep-alive' after this silence (s)"],
  ['formats', 'CALLSIEVE_FORMATS', undefined, 'formats', 'recognize only these markup formats (A,B)'],
  ['reasoning', 'CALLSIEVE_REASONING', undefined, REASONING_MODES, "thinking in content becomes reasoning_content: auto (default, or the preset's), open, off"],
  ['preset', 'CALLSIEVE_PRESET', undefined, 'preset', `the model family of every request whose model no --preset-map pattern matches (its formats and reasoning together): ${Object.keys(PRESETS).join(', ')}; default: none`],
  ['preset-map', 'CALLSIEVE_PRESET_MAP', undefined, 'presetMap', 'PATTERN=PRESET: the preset of a request whose model id matches the shell-style PATTERN (any case; the first match wins; repeat the flag, or the variable: P1=A,P2=B)'],
  ['stream-arguments', 'CALLSIEVE_STREAM_ARGUMENTS', 'no', 'bool', "stream each call's arguments as they arrive, as OpenAI's API does"],
  ['max-body-bytes', 'CALLSIEVE_MAX_BODY_BYTES', String(DEFAULT_MAX_BODY_BYTES), 'bytes', 'longest request body accepted, a longer one is a 413 (16 MiB)'],
  ['cors-origins', 'CALLSIEVE_CORS_ORIGINS', undefined, 'origins', 'origins browsers may call the gateway from (A,B; *: any); default: no CORS'],
  ['log-level', 'CALLSIEVE_LOG_LEVEL', 'info', LOG_LEVELS, 'debug, info (a line per request), warning, error'],
  ['log-format', 'CALLSIEVE_LOG_FORMAT', 'text', LOG_FORMATS, 'text or json'],
  ['workers', 'CALLSIEVE_WORKERS', '1', 'count', 'processes serving the port, each its own /metrics'],
];

const USAGE =
  'usage: callsieve-gateway --upstream URL [--host H] [--port N] [--api-key KEY]... [--api-key-file F]\n' +
  '                         [--upstream-api-key KEY] [--forward-client-key] [--mode passthrough|prompt]\n' +
  '                         [--unknown-tools keep|reject] [--timeout S] [--keepalive S]\n' +
  '                         [--formats A,B] [--reasoning auto|open|off] [--preset NAME]\n' +
  '                         [--preset-map PATTERN=PRESET]... [--stream-arguments]\n' +
  '                         [--max-body-bytes N] [--cors-origins A,B] [--log-level L] [--log-format text|json]\n' +
  '                         [--workers N] [--version] [--help]\n' +
  FLAGS.map(([f, env, def, , help]) => `  --${f.padEnd(18)} ${help}${def !== undefined ? ` (default ${def})` : ''} [$${env}]`).join('\n') +
  '\n';

function readKeyFile(file, where) {
  let text;
  try {
    text = UTF8.decode(fs.readFileSync(file));
  } catch (e) {
    throw new UsageError(`${where}: cannot read ${JSON.stringify(file)}: ${e.code || e.message}`);
  }
  const keys = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  if (!keys.length) throw new UsageError(`${where}: ${JSON.stringify(file)} holds no key`);
  return keys;
}

/** The gateway config from command-line arguments and environment variables; throws UsageError.
 * `{help: true}` for --help, `{version: true}` for --version. */
function parseGatewayArgs(argv, env = process.env) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: Object.fromEntries([
        ...FLAGS.map(([f, , , kind]) => [f, { type: kind === 'bool' ? 'boolean' : 'string', multiple: kind === 'keys' || kind === 'presetMap' }]),
        ['help', { type: 'boolean', short: 'h' }],
        ['version', { type: 'boolean' }],
      ]),
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError(e.message);
  }
  if (values.help) return { help: true };
  if (values.version) return { version: true };
  const out = {};
  for (const [flag, envName, def, kind] of FLAGS) {
    let v = values[flag];
    let where = `--${flag}`;
    if (v === undefined && env[envName]) {
      v = env[envName];
      where = `$${envName}`;
    }
    if (v === undefined) v = def;
    if (v === undefined) continue;
    const key = flag.replace(/-(.)/g, (_, c) => c.toUpperCase());
    if (Array.isArray(kind)) {
      if (!kind.includes(v)) throw new UsageError(`${where}: ${JSON.stringify(v)} is not one of ${kind.join(', ')}`);
      out[key] = v;
    } else if (kind === 'port') {
      if (!/^[0-9]+$/.test(v) || Number(v) > 65535) throw new UsageError(`${where}: not a port number: ${JSON.stringify(v)}`);
      out[key] = Number(v);
    } else if (kind === 'count') {
      if (!/^[0-9]+$/.test(v) || !(Number(v) >= 1)) throw new UsageError(`${where}: must be a whole number, at least 1: ${JSON.stringify(v)}`);
      out[key] = Number(v);
    } else if (kind === 'bytes') {
      if (!/^[0-9]+$/.test(v) || !(Number(v) >= 1) || !Number.isSafeInteger(Number(v))) {
        throw new UsageError(`${where}: must be a whole number of bytes, at least 1: ${JSON.stringify(v)}`);
      }
      out[key] = Number(v);
    } else if (kind === 'seconds') {
      const n = Number(v);
      if (!/^[0-9.eE+-]+$/.test(v) || !(n > 0) || !Number.isFinite(n)) {
        throw new UsageError(`${where}: must be a positive number of seconds: ${JSON.stringify(v)}`);
      }
      out[key] = n;
    } else if (kind === 'bool') {
      if (typeof v === 'boolean') out[key] = v;
      else if (/^(1|true|yes|on)$/i.test(v.trim())) out[key] = true;
      else if (/^(0|false|no|off|)$/i.test(v.trim())) out[key] = false;
      else throw new UsageError(`${where}: not a yes/no value: ${JSON.stringify(v)}`);
    } else if (kind === 'formats') {
      const names = v.split(',').map((t) => t.trim()).filter(Boolean);
      try {
        checkFormats(names);
      } catch (e) {
        throw new UsageError(`${where}: ${e.message}`);
      }
      out[key] = names;
    } else if (kind === 'preset') {
      out[key] = presetName(v.trim(), where);
    } else if (kind === 'presetMap') {
      // each --preset-map PATTERN=PRESET (or several, separated by commas); the variable: P1=A,P2=B
      const pairs = [];
      for (const item of (Array.isArray(v) ? v : [v]).flatMap((x) => x.split(',')).filter((x) => x.trim())) {
        const at = item.lastIndexOf('=');
        const pattern = at < 0 ? '' : item.slice(0, at).trim();
        if (!pattern) throw new UsageError(`${where}: a preset map entry is PATTERN=PRESET, got ${JSON.stringify(item.trim())}`);
        pairs.push([pattern, presetName(item.slice(at + 1).trim(), where)]);
      }
      if (!pairs.length) throw new UsageError(`${where}: an empty preset map`);
      out[key] = pairs;
    } else if (kind === 'keys') {
      // each --api-key one key; the variable: keys separated by commas
      const keys = (Array.isArray(v) ? v : [v]).flatMap((k) => k.split(',')).map((k) => k.trim()).filter(Boolean);
      if (!keys.length) throw new UsageError(`${where}: an empty API key`);
      out.apiKeys = keys;
    } else if (kind === 'file') {
      out.apiKeyFile = readKeyFile(v, where);
    } else if (kind === 'origins') {
      const names = v.split(',').map((t) => t.trim()).filter(Boolean);
      for (const o of names) {
        if (o !== '*' && !/^https?:\/\//.test(o)) throw new UsageError(`${where}: an origin is * or http(s)://host[:port], got ${JSON.stringify(o)}`);
      }
      out[key] = names;
    } else if (kind === 'url') {
      if (!/^https?:\/\//.test(v)) throw new UsageError(`${where} must be an http:// or https:// URL, got ${JSON.stringify(v)}`);
      out[key] = v;
    } else out[key] = v;
  }
  if (!out.upstream) throw new UsageError('needs --upstream URL (or $CALLSIEVE_UPSTREAM)');
  if (out.apiKeyFile) out.apiKeys = [...new Set([...(out.apiKeys || []), ...out.apiKeyFile])];
  else if (out.apiKeys) out.apiKeys = [...new Set(out.apiKeys)];
  delete out.apiKeyFile;
  return out;
}

function listenError(e, host, port) {
  const why = e.code === 'EADDRINUSE' ? 'address already in use' : e.code === 'EACCES' ? 'permission denied' : e.code || e.message;
  return `callsieve-gateway: error: cannot listen on ${host}:${port}: ${why}\n`;
}

/** `--workers N`: node:cluster's primary starts N workers that share the port (port 0: the same
 * free port for all) and says where it listens once; a worker that dies after it listened is
 * started again, one that could not listen ends the command. */
function primary(n, listening) {
  let said = false;
  let stopping = false;
  const up = new WeakSet();
  const giveUp = (line) => {
    // a worker could not listen (a port in use, say): starting it again would fail the same way
    if (stopping) return;
    process.stderr.write(line);
    process.exitCode = 1;
    stopping = true;
    for (const w of Object.values(cluster.workers)) w.kill('SIGTERM');
  };
  cluster.on('message', (worker, msg) => {
    if (msg && typeof msg.listenError === 'string') giveUp(msg.listenError);
  });
  cluster.on('listening', (worker, address) => {
    up.add(worker);
    if (!said) listening(address);
    said = true;
  });
  cluster.on('exit', (worker) => {
    if (stopping) return;
    if (up.has(worker)) cluster.fork();
    else giveUp('callsieve-gateway: error: a worker ended before it could listen\n');
  });
  for (let i = 0; i < n; i++) cluster.fork();
  const stop = () => {
    stopping = true;
    for (const w of Object.values(cluster.workers)) w.kill('SIGTERM');
    cluster.disconnect(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return null;
}

/** The `callsieve-gateway` command: parse, listen, print `callsieve gateway listening on URL`. */
function main(argv = process.argv.slice(2), env = process.env, version = '0.1.0') {
  let args;
  try {
    args = parseGatewayArgs(argv, env);
    if (args.help) {
      process.stdout.write(USAGE);
      return null;
    }
    if (args.version) {
      process.stdout.write(`callsieve-gateway ${version}\n`);
      return null;
    }
    gatewayConfig(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(USAGE + `callsieve-gateway: error: ${e.message}\n`);
    process.exitCode = 2;
    return null;
  }
  const listening = (a) => {
    const host = a.family === 'IPv6' || a.addressType === 6 ? `[${a.address}]` : a.address;
    process.stdout.write(`callsieve gateway listening on http://${host}:${a.port}\n`);
  };
  if (args.workers > 1 && cluster.isPrimary) return primary(args.workers, listening);
  const server = createGatewayServer(args);
  server.keepAliveTimeout = 65000;
  server.once('error', (e) => {
    if (server.listening) throw e;
    // one line, no stack trace; a worker leaves the saying to the primary (once for all)
    const line = listenError(e, args.host, args.port);
    if (cluster.isWorker) process.send({ listenError: line }, () => process.exit(1));
    else {
      process.stderr.write(line);
      process.exit(1);
    }
  });
  server.listen(args.port, args.host, () => {
    if (!cluster.isWorker) listening(server.address());
  });
  const stop = () => {
    server.close(() => process.exit(0));
    if (server.closeAllConnections) server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return server;
}

module.exports = {
  FLAGS,
  parseGatewayArgs,
  main,
};
