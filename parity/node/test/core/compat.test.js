'use strict';
/** The seed-compatible API of compat.js, and the schema normalization of src/schema.js (R12). */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const compat = require('../../compat.js');
const { normalizeValue, findToolSchema, isStringSchema } = require('../../src/schema.js');

const BLOCK =
  '<|DSML|tool_calls><|DSML|invoke name="read_file"><|DSML|parameter name="path"><![CDATA[README.MD]]>' +
  '</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>';
const CALL = { name: 'read_file', input: { path: 'README.MD' } };

test('compat has exactly the seed exports', () => {
  assert.deepEqual(Object.keys(compat).sort(), [
    'createCallSieveState',
    'extractToolNames',
    'flushCallSieve',
    'formatOpenAIStreamToolCalls',
    'parseStandaloneToolCalls',
    'parseStandaloneToolCallsDetailed',
    'parseToolCalls',
    'parseToolCallsDetailed',
    'processCallSieveChunk',
  ]);
});

test('processCallSieveChunk / flushCallSieve stream events without raw', () => {
  const state = compat.createCallSieveState();
  const text = 'Sure.\n' + BLOCK + '\nDone.';
  const events = [];
  for (const ch of Array.from(text)) events.push(...compat.processCallSieveChunk(state, ch, ['read_file']));
  events.push(...compat.flushCallSieve(state, ['read_file']));
  const joined = [];
  for (const e of events) {
    if (e.type === 'text' && joined.length && joined[joined.length - 1].type === 'text') {
      joined[joined.length - 1] = { type: 'text', text: joined[joined.length - 1].text + e.text };
    } else {
      joined.push(e);
    }
  }
  assert.deepEqual(joined, [
    { type: 'text', text: 'Sure.\n' },
    { type: 'tool_calls', calls: [CALL] },
    { type: 'text', text: '\nDone.' },
  ]);
  for (const e of events) assert.ok(!('raw' in e));
});

test('compat stream tolerates missing toolNames and empty chunks; state is reusable after flush', () => {
  const state = compat.createCallSieveState();
  assert.deepEqual(compat.processCallSieveChunk(state, '', undefined), []);
  assert.deepEqual(compat.processCallSieveChunk(state, null, null), []);
  const a = compat.processCallSieveChunk(state, BLOCK, undefined);
  assert.deepEqual(a, [{ type: 'tool_calls', calls: [CALL] }]);
  assert.deepEqual(compat.flushCallSieve(state), []);
  // a new stream on the same state
  assert.deepEqual(compat.processCallSieveChunk(state, 'hello <', null), [{ type: 'text', text: 'hello ' }]);
  assert.deepEqual(compat.flushCallSieve(state, null), [{ type: 'text', text: '<' }]);
  // flushing a state that never saw a chunk
  assert.deepEqual(compat.flushCallSieve(compat.createCallSieveState()), []);
});

test('parseToolCalls and parseToolCallsDetailed', () => {
  assert.deepEqual(compat.parseToolCalls('x ' + BLOCK, ['read_file']), [CALL]);
  assert.deepEqual(compat.parseToolCalls('no calls', undefined), []);
  assert.deepEqual(compat.parseToolCalls(undefined, null), []);
  assert.deepEqual(compat.parseToolCallsDetailed(BLOCK, null), {
    calls: [CALL],
    sawToolCallSyntax: true,
    rejectedByPolicy: false,
    rejectedToolNames: [],
  });
  assert.deepEqual(compat.parseToolCallsDetailed('`' + BLOCK + '`', []), {
    calls: [],
    sawToolCallSyntax: false,
    rejectedByPolicy: false,
    rejectedToolNames: [],
  });
  // a wrapper seen without calls
  assert.equal(compat.parseToolCallsDetailed('<tool_calls><param/></tool_calls>').sawToolCallSyntax, true);
});

test('parseStandaloneToolCalls* behave as the non-standalone ones', () => {
  for (const text of [BLOCK, 'prose ' + BLOCK + ' prose', 'nothing', '```\n' + BLOCK + '\n```']) {
    assert.deepEqual(compat.parseStandaloneToolCalls(text, ['read_file']), compat.parseToolCalls(text, ['read_file']));
    assert.deepEqual(compat.parseStandaloneToolCallsDetailed(text), compat.parseToolCallsDetailed(text));
  }
});

test('extractToolNames: unique trimmed names in order; skips nameless and non-object entries', () => {
  const tools = [
    { type: 'function', function: { name: ' read_file ', parameters: {} } },
    { name: 'bash' },
    { function: { name: 'read_file' } }, // duplicate after trimming
    { function: {} }, // no name
    { function: { name: '   ' } }, // blank name
    { name: '' },
    { name: 42 },
    null,
    'write_file',
    42,
    [],
    { function: 'x', name: 'fallback' }, // function not an object: the top-level name
    { function: { name: 'Bash' } }, // case differs: a different name
  ];
  assert.deepEqual(compat.extractToolNames(tools), ['read_file', 'bash', 'fallback', 'Bash']);
  assert.deepEqual(compat.extractToolNames(undefined), []);
  assert.deepEqual(compat.extractToolNames(null), []);
  assert.deepEqual(compat.extractToolNames({ name: 'x' }), []);
  assert.deepEqual(compat.extractToolNames([]), []);
});

test('formatOpenAIStreamToolCalls: shape, ids, arguments', () => {
  const out = compat.formatOpenAIStreamToolCalls(
    [CALL, { name: 'ls', input: {} }],
    undefined,
    undefined,
  );
  assert.equal(out.length, 2);
  out.forEach((d, i) => {
    assert.equal(d.index, i);
    assert.match(d.id, /^call_[0-9a-f]{24}$/);
    assert.equal(d.type, 'function');
  });
  assert.notEqual(out[0].id, out[1].id);
  assert.deepEqual(out[0].function, { name: 'read_file', arguments: '{"path":"README.MD"}' });
  assert.deepEqual(out[1].function, { name: 'ls', arguments: '{}' });
  assert.deepEqual(compat.formatOpenAIStreamToolCalls([], new Map(), []), []);
  assert.deepEqual(compat.formatOpenAIStreamToolCalls(undefined, new Map(), []), []);
});

test('formatOpenAIStreamToolCalls: a Map idStore keeps ids stable per index', () => {
  const store = new Map();
  const first = compat.formatOpenAIStreamToolCalls([CALL], store, []);
  const second = compat.formatOpenAIStreamToolCalls([CALL, { name: 'ls', input: {} }], store, []);
  assert.equal(second[0].id, first[0].id);
  assert.notEqual(second[1].id, second[0].id);
  assert.equal(store.get(0), first[0].id);
  assert.equal(store.get(1), second[1].id);
  const third = compat.formatOpenAIStreamToolCalls([CALL, CALL], store, []);
  assert.deepEqual(third.map((d) => d.id), second.map((d) => d.id));
  // without a store, every call gets a fresh id
  const a = compat.formatOpenAIStreamToolCalls([CALL], undefined, []);
  const b = compat.formatOpenAIStreamToolCalls([CALL], undefined, []);
  assert.notEqual(a[0].id, b[0].id);
});

test('formatOpenAIStreamToolCalls normalizes by schema (R12), tool name case-insensitive', () => {
  const tools = [
    {
      type: 'function',
      function: {
        name: 'Write_File',
        parameters: {
          type: 'object',
          properties: {
            path: { type: 'string' },
            mode: { enum: ['a', 'b'] },
            tag: { const: 'x' },
            note: { type: ['string', 'null'] },
            count: { type: 'integer' },
            body: { type: 'string' },
            list: { type: 'array', items: { type: 'string' } },
            keep: { type: 'array' },
            meta: {
              type: 'object',
              properties: { id: { type: 'string' }, deep: { type: 'object', properties: { v: { type: 'string' } } } },
              additionalProperties: { type: 'string' },
            },
            pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: { type: 'string' } },
            old: { type: 'array', items: [{ type: 'string' }], additionalItems: { type: 'boolean' } },
          },
        },
      },
    },
  ];
  const input = {
    path: 1,
    mode: true,
    tag: null,
    note: null,
    count: 3,
    body: { message: 'hi', n: [1, 2] },
    list: [1, 'a', { b: 1 }, [1], null],
    keep: [1, 2],
    meta: { id: 7, deep: { v: false, w: 1 }, other: [1], extra: 2.5 },
    pair: [1, 2, 3, 'x'],
    old: [1, 2],
    unknown: 5,
  };
  const [d] = compat.formatOpenAIStreamToolCalls([{ name: 'write_file', input }], new Map(), tools);
  assert.deepEqual(JSON.parse(d.function.arguments), {
    path: '1',
    mode: 'true',
    tag: 'null',
    note: null,
    count: 3,
    body: '{"message":"hi","n":[1,2]}',
    list: ['1', 'a', '{"b":1}', '[1]', 'null'],
    keep: [1, 2],
    meta: { id: '7', deep: { v: 'false', w: 1 }, other: '[1]', extra: '2.5' },
    pair: ['1', 2, '3', 'x'],
    old: ['1', 2],
    unknown: 5,
  });
  // the input itself is not mutated
  assert.equal(input.path, 1);
  assert.deepEqual(input.list, [1, 'a', { b: 1 }, [1], null]);
});

test('schema sources: function.parameters, input_schema, inputSchema, schema; no schema -> unchanged', () => {
  const s = { type: 'object', properties: { q: { type: 'string' } } };
  const input = { q: 12, r: 1 };
  for (const tools of [
    [{ function: { name: 't', parameters: s } }],
    [{ name: 't', input_schema: s }],
    [{ name: 't', inputSchema: s }],
    [{ name: 'T', schema: s }],
  ]) {
    const [d] = compat.formatOpenAIStreamToolCalls([{ name: 't', input }], null, tools);
    assert.equal(d.function.arguments, '{"q":"12","r":1}');
  }
  for (const tools of [undefined, null, [], [{ name: 'other', input_schema: s }], [{ name: 't' }]]) {
    const [d] = compat.formatOpenAIStreamToolCalls([{ name: 't', input }], null, tools);
    assert.equal(d.function.arguments, '{"q":12,"r":1}');
  }
});

test('schema helpers', () => {
  assert.equal(isStringSchema({ type: 'string' }), true);
  assert.equal(isStringSchema({ type: ['string', 'null'] }), true);
  assert.equal(isStringSchema({ type: ['string', 'number'] }), false);
  assert.equal(isStringSchema({ type: ['null'] }), false);
  assert.equal(isStringSchema({ enum: ['a', 'b'] }), true);
  assert.equal(isStringSchema({ enum: ['a', 1] }), false);
  assert.equal(isStringSchema({ const: 'a' }), true);
  assert.equal(isStringSchema({ type: 'integer', enum: ['1'] }), false);
  assert.equal(normalizeValue({ a: 1 }, undefined).a, 1);
  assert.deepEqual(normalizeValue([[1, 2]], { type: 'array', items: { type: 'array', items: { type: 'string' } } }), [['1', '2']]);
  assert.deepEqual(normalizeValue({ a: { b: [{ c: 1 }] } }, {
    properties: { a: { properties: { b: { items: { properties: { c: { type: 'string' } } } } } } },
  }), { a: { b: [{ c: '1' }] } });
  const tools = [{ name: 'exact', schema: { type: 'object' } }, { name: 'EXACT', schema: { type: 'string' } }];
  assert.deepEqual(findToolSchema(tools, 'EXACT'), { type: 'string' });
  assert.deepEqual(findToolSchema(tools, 'Exact'), { type: 'object' });
  assert.equal(findToolSchema(tools, 'nope'), null);
  // __proto__ is an ordinary key
  const v = normalizeValue(JSON.parse('{"__proto__": 1}'), { type: 'object', additionalProperties: { type: 'string' } });
  assert.deepEqual(Object.keys(v), ['__proto__']);
  assert.equal(JSON.stringify(v), '{"__proto__":"1"}');
});
