'use strict';
/** Tool-name resolution and the unknown-tool policy (R10): src/names.js. */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const {
  UNKNOWN_TOOLS_POLICIES,
  checkToolNames,
  declaredNames,
  nameTables,
  resolveName,
  resolveToolName,
  applyPolicy,
} = require('../../src/names.js');
const { Sieve } = require('../../src/sieve.js');
const { ChatCompletionStreamRewriter } = require('../../src/openai.js');
const { InputTypeError, OptionsError, CallsieveError } = require('../../src/errors.js');

test('UNKNOWN_TOOLS_POLICIES', () => {
  assert.deepEqual(UNKNOWN_TOOLS_POLICIES, ['keep', 'reject']);
  assert.ok(Object.isFrozen(UNKNOWN_TOOLS_POLICIES));
});

test('checkToolNames: lists and iterables of strings; null and undefined give []', () => {
  assert.deepEqual(checkToolNames(null), []);
  assert.deepEqual(checkToolNames(undefined), []);
  assert.deepEqual(checkToolNames([]), []);
  const names = ['a', 'b'];
  const out = checkToolNames(names);
  assert.deepEqual(out, ['a', 'b']);
  assert.notEqual(out, names); // a copy
  assert.equal(checkToolNames(out), out); // checked already: itself, with its tables
  assert.ok(Object.isFrozen(out));
  assert.deepEqual(checkToolNames(new Set(['x', 'y'])), ['x', 'y']);
  assert.deepEqual(checkToolNames((function* gen() { yield 'g'; })()), ['g']);
});

test('checkToolNames misuse: a single string, a non-iterable, a non-string name', () => {
  for (const bad of ['ls', '', new String('ls'), 5, true, {}, { a: 1 }, () => ['a'], [1], ['a', null], ['a', undefined], [['a']],
    Buffer.from('ab'), new Map([['a', 1]])]) {
    assert.throws(() => checkToolNames(bad), (e) => e instanceof InputTypeError && e.name === 'InputTypeError', String(bad));
  }
  assert.ok(new InputTypeError('x') instanceof CallsieveError);
});

test('resolveToolName: the funnel, strictest level first', () => {
  const names = ['read_file', 'search_web', 'Bash'];
  assert.equal(resolveToolName('read_file', names), 'read_file'); // exact
  assert.equal(resolveToolName('READ_FILE', names), 'read_file'); // case
  assert.equal(resolveToolName('  bash\n', names), 'Bash'); // trimmed, declared spelling
  assert.equal(resolveToolName('mcp.search_web', names), 'search_web'); // namespace
  assert.equal(resolveToolName('a.b.Search_Web', names), 'search_web'); // last part, ignoring case
  assert.equal(resolveToolName('search-web', names), 'search_web'); // loose
  assert.equal(resolveToolName('mcp.Search-Web', names), 'search_web'); // loose tail
  assert.equal(resolveToolName('ReadFile', names), 'read_file');
  assert.equal(resolveToolName('write_file', names), null);
});

test('resolveToolName: ties, exact beats case, declared names are not trimmed', () => {
  assert.equal(resolveToolName('READ', ['read', 'Read']), null); // a tie is no match
  assert.equal(resolveToolName('READ', ['read', 'read']), 'read'); // the same name twice is no tie
  assert.equal(resolveToolName('search-web', ['search_web', 'Search.Web']), null); // loose tie
  assert.equal(resolveToolName('Read', ['read', 'Read']), 'Read'); // exact first
  assert.equal(resolveToolName('x', [' x ']), ' x '); // compared trimmed, returned as declared
  assert.equal(resolveToolName('mcp.x', [' x ']), ' x ');
  assert.equal(resolveToolName('a.b', ['a']), null); // only the parsed name loses its namespace
  assert.equal(resolveToolName('ls.', ['ls']), 'ls'); // nothing after the dot: loose on the whole name
  assert.equal(resolveToolName('x.ls', ['mcp.ls']), null); // a declared namespace is part of the name
});

test('resolveToolName: the loose level keeps letters and digits of every script', () => {
  assert.equal(resolveToolName('file-読込', ['file_削除', 'file_読込']), 'file_読込');
  assert.equal(resolveToolName('file_消去', ['file_削除', 'file_読込']), null);
  assert.equal(resolveToolName('ЖУРНАЛ-чтение', ['журнал_чтение']), 'журнал_чтение');
  assert.equal(resolveToolName('search\uff0dweb', ['search_web']), 'search_web'); // fullwidth hyphen
  assert.equal(resolveToolName('search★web', ['search_web']), null); // a symbol is not a separator
});

test('resolveToolName: the case-insensitive levels fold ASCII only; the loose level folds a fixed set', () => {
  assert.equal(resolveToolName('İ', ['i']), null); // U+0130 would lowercase to 'i̇' in Unicode
  assert.equal(resolveToolName('\u212a', ['k']), null); // Kelvin sign
  assert.equal(resolveToolName('ſ', ['s']), null); // long s
  assert.equal(resolveToolName('É', ['é']), 'é'); // the loose level folds Latin letters
  assert.equal(resolveToolName('RÉAD', ['rÉad']), 'rÉad');
  assert.equal(resolveToolName('ü_x', ['x']), null); // non-ASCII letters are never dropped
});

test('resolveToolName: punctuation-only and empty names never match loosely', () => {
  assert.equal(resolveToolName('--', ['__']), null);
  assert.equal(resolveToolName('', ['']), ''); // exact
  assert.equal(resolveToolName(' ', ['']), ''); // trimmed
  assert.equal(resolveToolName('.', ['x']), null);
  assert.equal(resolveToolName('😀', ['😀 ']), '😀 ');
});

test('resolveToolName: a non-string name gives null; bad toolNames still throw', () => {
  for (const name of [null, undefined, 1, true, ['ls'], { name: 'ls' }]) assert.equal(resolveToolName(name, ['ls']), null);
  assert.equal(resolveToolName('ls', null), null);
  assert.equal(resolveToolName('ls', []), null);
  assert.throws(() => resolveToolName('ls', 'ls'), InputTypeError);
  assert.throws(() => resolveToolName(null, [1]), InputTypeError);
  assert.throws(() => resolveToolName('ls', 7), InputTypeError);
});

test('resolveName works on checked names', () => {
  assert.equal(resolveName('MCP.LS', ['ls']), 'ls');
  assert.equal(resolveName('nope', ['ls']), null);
});

const call = (name, input = {}) => ({ name, input });

test('applyPolicy keep: names resolve, unknown calls stay as written', () => {
  const known = call('ls');
  const renamed = call('LS', { path: '.' });
  const unknown = call('fly');
  const r = applyPolicy([known, renamed, unknown], ['ls']);
  assert.deepEqual(r, {
    calls: [call('ls'), call('ls', { path: '.' }), call('fly')],
    rejectedToolNames: [],
    rejectedByPolicy: false,
  });
  assert.equal(r.calls[0], known); // unchanged call: the same object
  assert.equal(r.calls[2], unknown);
  assert.notEqual(r.calls[1], renamed); // renamed: a new call sharing the input object
  assert.equal(r.calls[1].input, renamed.input);
  assert.equal(renamed.name, 'LS'); // the given call is not mutated
  assert.deepEqual(applyPolicy([unknown], ['ls'], 'keep'), applyPolicy([unknown], ['ls']));
});

test('applyPolicy reject: unknown calls dropped, each name listed once in order', () => {
  const r = applyPolicy([call('fly'), call('ls'), call('swim'), call('fly')], ['ls'], 'reject');
  assert.deepEqual(r, { calls: [call('ls')], rejectedToolNames: ['fly', 'swim'], rejectedByPolicy: false });
  assert.deepEqual(applyPolicy([call('fly'), call('FLY')], ['ls'], 'reject'), {
    calls: [],
    rejectedToolNames: ['fly', 'FLY'], // names as written
    rejectedByPolicy: true,
  });
  assert.deepEqual(applyPolicy([], ['ls'], 'reject'), { calls: [], rejectedToolNames: [], rejectedByPolicy: false });
});

test('applyPolicy without declared names changes nothing, whatever the policy', () => {
  const calls = [call('fly'), call('LS')];
  for (const names of [null, undefined, []]) {
    const r = applyPolicy(calls, names, 'reject');
    assert.deepEqual(r, { calls, rejectedToolNames: [], rejectedByPolicy: false });
    assert.equal(r.calls[0], calls[0]);
    assert.notEqual(r.calls, calls); // a new array
  }
  assert.deepEqual(applyPolicy(new Set([call('a')]), null).calls, [call('a')]); // any iterable of calls
});

test('applyPolicy misuse: a bad policy is an OptionsError, checked first', () => {
  for (const policy of ['drop', 'Keep', 'REJECT', '', null, 1, true, ['keep'], {}]) {
    assert.throws(() => applyPolicy([], ['ls'], policy), (e) => e instanceof OptionsError && e.name === 'OptionsError');
    assert.throws(() => applyPolicy(5, 'ls', policy), OptionsError);
  }
});

test('applyPolicy misuse: bad toolNames or calls are InputTypeErrors', () => {
  assert.throws(() => applyPolicy([], 'ls'), InputTypeError);
  assert.throws(() => applyPolicy([], [null]), InputTypeError);
  for (const calls of [null, undefined, 5, 'ls', { name: 'ls', input: {} }]) {
    assert.throws(() => applyPolicy(calls, ['ls']), InputTypeError, String(calls));
  }
  for (const c of [null, 'ls', ['ls', {}], { name: 1, input: {} }, { name: 'ls' }, { input: {} }, { name: 'ls', input: null },
    { name: 'ls', input: [] }, { name: 'ls', input: 'x' }]) {
    assert.throws(() => applyPolicy([c], ['ls']), InputTypeError, JSON.stringify(c));
    assert.throws(() => applyPolicy([c], null), InputTypeError); // checked even without names
  }
});

// ---- issue 41 F1: resolution costs calls + declared characters, not calls x declared characters --

const MANY = Array.from({ length: 200 }, (_, i) => `tool_number_${i}_does_things`);
const MISSES = Array.from({ length: 2000 }, (_, i) => `other call ${i}`); // no namespace: trimmed, folded, loose: 3 x length
const sum = (names) => names.reduce((n, s) => n + s.length, 0);

test('declared names are normalized once per tool set (work counted)', () => {
  const names = checkToolNames(MANY);
  assert.equal(declaredNames(names, null), names);
  const r = applyPolicy(MISSES.map((name) => ({ name, input: {} })), names, 'reject');
  assert.equal(r.rejectedByPolicy, true);
  assert.equal(r.rejectedToolNames.length, MISSES.length);
  const tables = nameTables(names);
  const declared = 3 * sum(MANY); // the tables, built once
  assert.equal(tables.work, declared + 3 * sum(MISSES));
  // every level but exact: trim and fold the name (29 + 29), its tail (25), loose name, loose tail
  assert.equal(resolveName('mcp.Tool-Number-7_does_things', names), 'tool_number_7_does_things');
  assert.equal(tables.work, declared + 3 * sum(MISSES) + 29 + 29 + 25 + 29 + 25);
  assert.equal(resolveName('tool_number_7_does_things', names), 'tool_number_7_does_things'); // exact: no work
  assert.equal(nameTables(names), tables);
  assert.equal(tables.work, declared + 3 * sum(MISSES) + 137);
});

test('sieves and rewriters resolve against one table per tool set', () => {
  const tools = MANY.map((name) => ({ type: 'function', function: { name, parameters: {} } }));
  const text = '<tool_calls>' + MISSES.map((n) => `<invoke name="${n}"></invoke>`).join('') + '</tool_calls>';
  for (const streamArguments of [false, true]) {
    const s = new Sieve({ tools, unknownTools: 'reject', streamArguments });
    for (let i = 0; i < text.length; i += 97) s.feed(text.slice(i, i + 97));
    s.flush();
    assert.equal(s.rejectedToolNames.length, MISSES.length);
    const resolved = streamArguments ? 2 : 1; // (announced, then the block: R16)
    assert.equal(nameTables(s.toolNames).work, 3 * sum(MANY) + resolved * 3 * sum(MISSES), String(streamArguments));
  }
  const opts = new ChatCompletionStreamRewriter({ tools, unknownTools: 'reject', streamArguments: true })._opts;
  assert.equal(opts.sieve().toolNames, opts.toolNames); // the choices of one request share the tables
});
