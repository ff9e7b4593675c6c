'use strict';
/**
 * Tests that tell the Node port apart from mutants that survived the full runs of 2026-12-06
 * (names, schema): the same cases as python/tests/mutation/test_mutation_kills_fresh.py, and the
 * same expectations (the rules, R10.1 and R17.9, as the Python reference gives them). Reasoning
 * (its first Node run's survivors): traces of the Python gate, and the misuse errors. Arguments
 * (its first Node run, 2026-12-07): traces of the Python value tap, ruledOut, surrogate ends.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { keepsText, typedValue, propertySchema } = require('../../src/schema.js');
const { applyPolicy, resolveToolName } = require('../../src/names.js');
const { parse } = require('../../src/sieve.js');
const { ReasoningGate, checkReasoning } = require('../../src/reasoning.js');
const { ValueTap, ruledOut } = require('../../src/arguments.js');
const { Sieve, coalesce } = require('../../index.js');

test('names: a tie of three is still a tie (R10.1)', () => {
  assert.equal(resolveToolName('aB', ['ab', 'AB', 'Ab']), null);
  assert.equal(resolveToolName('x.aB', ['ab', 'AB', 'Ab']), null);
  assert.equal(resolveToolName('a-b', ['a_b', 'a__b', 'A_B']), null);
});

test('names: a resolved call keeps its id', () => {
  const calls = [
    { name: 'GET_WEATHER', input: { city: 'Paris' }, id: 'call_1' },
    { name: 'other', input: {}, id: 'call_2' },
  ];
  assert.deepEqual(applyPolicy(calls, ['get_weather']).calls, [
    { name: 'get_weather', input: { city: 'Paris' }, id: 'call_1' },
    { name: 'other', input: {}, id: 'call_2' },
  ]);
});

// [schema, raw text, expected [typed?, value]]: Python's None is null here.
const TYPED = [
  [null, '1', [false, null]],
  [true, '1', [false, null]],
  [{ description: 'd' }, '1', [false, null]],
  [{ enum: ['a', 'b'] }, ' a ', [true, ' a ']],
  [{ type: ['integer', 'string'] }, '42', [true, '42']],
  [{ type: 'boolean' }, 'True', [true, true]],
  [{ type: 'boolean' }, 'true', [true, true]],
  [{ type: 'boolean' }, ' False ', [true, false]],
  [{ type: 'boolean' }, 'false', [true, false]],
  [{ type: 'boolean' }, 'TRUE', [false, null]],
  [{ type: ['boolean', 'integer'] }, '5', [true, 5]],
  [{ type: ['integer', 'boolean'] }, 'True', [true, true]],
  [{ type: ['integer', 'boolean'] }, 'true', [true, true]],
  [{ type: 'number' }, '1.5', [true, 1.5]],
  [{ type: 'number' }, '2', [true, 2]],
  [{ type: 'integer' }, '2.0', [true, 2]],
  [{ type: 'integer' }, '200.0', [true, 200]],
  [{ type: 'integer' }, '2.5', [false, null]],
  [{ type: 'integer' }, '9007199254740992.0', [false, null]],
  [{ type: 'integer' }, '"5"', [false, null]],
  [{ type: 'integer' }, 'null', [false, null]],
  [{ type: 'object' }, '5.5', [false, null]],
  [{ type: 'array' }, '5.5', [false, null]],
  [{ type: 'object' }, '{"a": 1}', [true, { a: 1 }]],
  [{ type: 'array' }, '[1]', [true, [1]]],
  [{ type: ['integer', 'null'] }, 'null', [true, null]],
  [{ type: ['integer', 'null'] }, 'None', [true, null]],
  [{ type: ['integer', 'null'] }, 'x', [false, null]],
  [{ anyOf: [{ type: 'integer' }, { type: 'null' }] }, '7', [true, 7]],
  [{ oneOf: [{ type: 'integer' }, { type: 'null' }] }, 'None', [true, null]],
  [{ anyOf: [{ type: 'integer' }, { type: ['integer', 'string'] }] }, '7', [true, '7']],
  [{ anyOf: [1, { type: 'number' }], oneOf: [{ type: 'boolean' }] }, 'true', [true, true]],
  [{ anyOf: [null, { type: 'number' }] }, '1', [true, 1]],
  [{ type: 'integer' }, 'true', [false, null]],
  [{ type: 'boolean' }, '5', [false, null]],
  [{ type: 'integer' }, '{"a": 1}', [false, null]],
  [{ type: 'integer' }, '[1]', [false, null]],
  [{ type: 'number' }, '"5"', [false, null]],
  [{ type: 'number' }, 'true', [false, null]],
  // R17.9: only a container converts for object and array, a bare number stays the string
  [{ type: 'object' }, '5', [false, null]],
  [{ type: 'array' }, '7', [false, null]],
  [{ type: ['object', 'null'] }, '5', [false, null]],
  [{ type: ['object', 'integer'] }, '5', [true, 5]],
  [{ type: ['array', 'object'] }, '{"a": 1}', [true, { a: 1 }]],
  // D65: an integer beyond 2**53 - 1 stays the string (a double cannot hold it exactly)
  [{ type: 'integer' }, '12345678901234567890', [false, null]],
  [{ type: 'integer' }, '9007199254740992', [false, null]],
  [{ type: 'integer' }, '-9007199254740992', [false, null]],
  [{ type: 'integer' }, '9007199254740991', [true, 9007199254740991]],
  [{ type: 'integer' }, '-9007199254740991', [true, -9007199254740991]],
  [{ type: 'number' }, '12345678901234567890', [true, 12345678901234567000]],
];

test('schema: raw-text values typed by the schema (R17.9)', () => {
  for (const [schema, raw, want] of TYPED) {
    assert.deepEqual(typedValue(schema, raw), want, `${JSON.stringify(schema)} ${JSON.stringify(raw)}`);
  }
});

test('schema: keepsText when a string is allowed or nothing usable is said (R16, R17.9)', () => {
  assert.ok(keepsText(null) && keepsText('string') && keepsText({}));
  assert.ok(keepsText({ type: 'string' }));
  assert.ok(keepsText({ type: ['integer', 'string'] }));
  assert.ok(keepsText({ anyOf: [{ type: 'integer' }, { type: 'string' }] }));
  assert.ok(!keepsText({ type: 'integer' }));
  assert.ok(!keepsText({ type: ['object', 'null'] }));
});

test('schema: a property schema falls back to additionalProperties', () => {
  const integer = { type: 'integer' };
  assert.deepEqual(propertySchema({ properties: {}, additionalProperties: integer }, 'k'), integer);
  assert.deepEqual(propertySchema({ additionalProperties: integer }, 'k'), integer);
  assert.equal(propertySchema({ additionalProperties: true }, 'k'), null);
  assert.equal(propertySchema(null, 'k'), null);
  assert.equal(propertySchema(undefined, 'k'), null);
  assert.deepEqual(propertySchema({ properties: { k: { type: 'string' } }, additionalProperties: integer }, 'k'), {
    type: 'string',
  });
});

test('schema: typed values in a call', () => {
  const tools = [
    {
      type: 'function',
      function: {
        name: 'f',
        parameters: {
          type: 'object',
          properties: { n: { type: ['integer', 'null'] }, s: { type: ['integer', 'string'] } },
          additionalProperties: { type: 'boolean' },
        },
      },
    },
  ];
  const text =
    '<tool_call>\n<function=f>\n<parameter=n>\nNone\n</parameter>\n<parameter=s>\n42\n</parameter>\n' +
    '<parameter=b>\nTrue\n</parameter>\n</function>\n</tool_call>';
  const [call] = parse(text, { tools, formats: ['qwen3_coder'] }).calls;
  assert.deepEqual(call.input, { n: null, s: '42', b: true });
});

test('shell: a cut drifted CDATA opener waits for more (R5.5)', () => {
  const { matchCdataOpen, MORE, NO } = require('../../src/shell.js');
  assert.equal(matchCdataOpen('<！', 0, false), MORE);
  assert.equal(matchCdataOpen('x<！', 1, false), MORE);
  assert.equal(matchCdataOpen('<！', 0, true), NO);
  assert.equal(matchCdataOpen('<！ no bracket in this window at all', 0, false), NO);
  assert.equal(matchCdataOpen('<！[ＣＤＡＴＡ[x', 0, false), 9);
});

test('names: what folds and what separates in loose keys (R10.1), as Python', () => {
  const { nameTables, checkToolNames } = require('../../src/names.js');
  assert.equal(resolveToolName('Աx', ['աx']), null); // Armenian capitals are not folded
  assert.equal(resolveToolName('İx', ['i\u0307x']), null); // a letter that lower-cases to two stays
  assert.equal(resolveToolName('get·weather', ['get_weather']), 'get_weather');
  assert.equal(resolveToolName('get、weather', ['get_weather']), 'get_weather');
  assert.equal(resolveToolName('A.B', ['a.b', 'b']), 'a.b'); // found whole: the tail is not tried
  // Tables of an array not checked here are not kept for it: checking it still copies and freezes.
  const arr = ['a'];
  nameTables(arr);
  const checked = checkToolNames(arr);
  assert.ok(Object.isFrozen(checked) && checked !== arr);
});

// ---- reasoning (R15): the gate, step by step -----------------------------------------------------
// Traces of the Python reference's ReasoningGate (python/callsieve/reasoning.py): per feed, the
// pieces ([isReasoning, text]), then phase, held and work; at the end what finish() gives, and a
// second finish() gives nothing (as python/tests/core/test_arguments_tap.py checks). The sieve
// never feeds a gate that is DONE, but the gate answers such a feed with the chunk as content and
// counts none of it (the last steps of the second trace).
const REASONING_TRACES = [
  {"mode": "open", "markers": null, "steps": [{"chunk": "  <t", "out": [[true, "  "]], "phase": 1, "held": "<t", "work": 4}, {"chunk": "h", "out": [], "phase": 1, "held": "<th", "work": 7}, {"chunk": "i", "out": [], "phase": 1, "held": "<thi", "work": 11}, {"chunk": "nk> ", "out": [[true, " "]], "phase": 2, "held": "", "work": 19}, {"chunk": "r </", "out": [[true, "r "]], "phase": 2, "held": "</", "work": 23}, {"chunk": "thin", "out": [], "phase": 2, "held": "</thin", "work": 29}, {"chunk": "k> c", "out": [[false, " c"]], "phase": 3, "held": "", "work": 39}, {"chunk": " ", "out": [[false, " "]], "phase": 3, "held": "", "work": 39}], "finish": [], "phase": 3, "work": 39},
  {"mode": "auto", "markers": null, "steps": [{"chunk": " \t\r\n", "out": [[false, " \t\r\n"]], "phase": 0, "held": "", "work": 4}, {"chunk": " <think>x</think>", "out": [[false, " "], [true, "x"]], "phase": 3, "held": "", "work": 21}], "finish": [], "phase": 3, "work": 21},
  {"mode": "open", "markers": ["<seed:think>", "</seed:think>"], "steps": [{"chunk": "<think>r</", "out": [[true, "<think>r"]], "phase": 2, "held": "</", "work": 10}], "finish": [[true, "</"]], "phase": 3, "work": 10},
  {"mode": "auto", "markers": null, "steps": [{"chunk": "a", "out": [[false, "a"]], "phase": 3, "held": "", "work": 1}], "finish": [], "phase": 3, "work": 1},
  {"mode": "off", "markers": null, "steps": [{"chunk": "", "out": [[false, ""]], "phase": 3, "held": "", "work": 0}], "finish": [], "phase": 3, "work": 0},
  {"mode": "open", "markers": null, "steps": [{"chunk": "<t", "out": [], "phase": 1, "held": "<t", "work": 2}], "finish": [[true, "<t"]], "phase": 3, "work": 2},
  {"mode": "auto", "markers": null, "steps": [{"chunk": "<t", "out": [], "phase": 0, "held": "<t", "work": 2}], "finish": [[false, "<t"]], "phase": 3, "work": 2},
];

test('reasoning: the gate splits chunks as the Python reference does', () => {
  for (const c of REASONING_TRACES) {
    const g = c.markers ? new ReasoningGate(c.mode, c.markers) : new ReasoningGate(c.mode);
    for (const s of c.steps) {
      assert.deepEqual(g.feed(s.chunk), s.out, JSON.stringify([c.mode, s.chunk]));
      assert.deepEqual([g.phase, g.held, g.work], [s.phase, s.held, s.work]);
    }
    assert.deepEqual(g.finish(), c.finish);
    assert.deepEqual(g.finish(), []);
    assert.deepEqual([g.phase, g.held, g.work], [c.phase, '', c.work]);
  }
});

test('reasoning: misuse names the option and what was given', () => {
  // Python: "reasoning must be a string, got int", "unknown reasoning mode 'maybe'; known: ...":
  // the same classes, in Node's words (PORT_NOTES: messages match in class, not wording).
  assert.throws(() => checkReasoning(5), { name: 'InputTypeError', message: 'reasoning must be a string, got number' });
  assert.throws(() => checkReasoning('maybe'), {
    name: 'OptionsError',
    message: 'unknown reasoning mode "maybe"; known: off, auto, open',
  });
  for (const m of ['off', 'auto', 'open']) assert.equal(checkReasoning(m), m);
});

// ---- arguments (R16): the value tap, the writer's surrogate test, ruledOut ------------------------
// Traces of the Python reference's ValueTap (python/callsieve/arguments.py): per call, what it
// returns (null for cdataClose) and the state after it. The last: blank text after a CDATA, then a
// second CDATA in two pieces (the blank text goes out once, before the first piece).
const TAP_TRACES = [
  {"name": "code", "string": null, "ops": [["text", "00-"], ["text", "  p;&&"], ["text", "fz"], ["open"], ["close"], ["text", "&lt;"]], "out": [["", 1], ["00-  p;&", 2], ["", 2], ["&fz", 2], [null, 2], ["<", 2]]},
  {"name": "file_content", "string": "", "ops": [["open"], ["piece", "f"], ["piece", "ue&lt;<b>"], ["close"], ["text", "&amp;f<"], ["text", "\";&#"], ["open"], ["piece", "a&n"], ["close"]], "out": [["", 0], ["", 1], ["fue&lt;<b>", 2], [null, 3], ["&f<", 2], ["\";", 2], ["&#", 2], ["a&n", 2], [null, 2]]},
  {"name": "v", "string": null, "ops": [["open"], ["piece", "a"], ["close"], ["text", " "], ["open"], ["piece", "b"], ["piece", "c"], ["text", "d"]], "out": [["", 0], ["a", 2], [null, 3], ["", 3], ["", 2], [" b", 2], ["c", 2], ["d", 2]]},
];

test('arguments: the value tap returns what the Python reference returns, call by call', () => {
  for (const c of TAP_TRACES) {
    const tap = new ValueTap(c.name, c.string);
    c.ops.forEach(([op, s], i) => {
      let r = null;
      if (op === 'text') r = tap.text(s);
      else if (op === 'open') r = tap.cdataOpen();
      else if (op === 'piece') r = tap.cdataPiece(s);
      else tap.cdataClose();
      assert.deepEqual([r, tap.state], c.out[i], `${JSON.stringify(c.ops)}: step ${i}`);
    });
  }
  // No string attribute, given as undefined: as null (Python's None).
  assert.equal(new ValueTap('v', undefined).text(' x'), 'x');
});

test('arguments: ruledOut never rules out a JSON-like opening (the text can run on)', () => {
  // Python: _ruled_out gives False for each.
  for (const d of ['{', '[1', '"x', '{"a": 1} z']) assert.equal(ruledOut(d), false, d);
});

test('arguments: a pair whose high half is 0xD800 or 0xDBFF is held whole across chunks', () => {
  // U+10000 is \ud800\udc00, U+10FFFD is \udbff\udffd: the ends of the high-surrogate range.
  const open = '<|DSML|tool_calls><|DSML|invoke name="w"><|DSML|parameter name="content">';
  const text = open + 'a\u{10000}b\u{10FFFD}c</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>';
  const cut1 = text.indexOf('\ud800') + 1;
  const cut2 = text.indexOf('\udbff') + 1;
  for (const parts of [[text.slice(0, cut1), text.slice(cut1, cut2), text.slice(cut2)], text.split('')]) {
    const sieve = new Sieve({ streamArguments: true });
    const events = [...parts.flatMap((p) => sieve.feed(p)), ...sieve.flush()];
    const fragments = events.filter((e) => e.type === 'tool_call_arguments').map((e) => e.delta);
    assert.equal(fragments.join(''), '{"content":"a\u{10000}b\u{10FFFD}c"}'); // Python's json_text
    for (const f of fragments) assert.ok(!/\\ud[89ab]/i.test(f), JSON.stringify(f));
  }
});

test('scanbase: a JSON call read with jsonToolCalls has no format key (D58)', () => {
  const doc = 'see {"name": "ls", "arguments": {}} ok';
  for (const chunks of [[doc], [...doc]]) {
    const sieve = new Sieve({ jsonToolCalls: true });
    const events = [...chunks.flatMap((c) => sieve.feed(c)), ...sieve.flush()];
    const calls = events.filter((e) => e.type === 'tool_calls');
    assert.equal(calls.length, 1);
    assert.equal('format' in calls[0], false);
  }
});

// ---- prose (its second Node run, 2026-12-07): blocks at a line start inside an open code span, and
// the holds of Mistral markers and bare lists in it. Expected values: the Python reference's.

/** Per feed (the last one is flush()), the coalesced events without `raw`. */
function proseFeeds(opts, chunks) {
  const s = new Sieve(opts);
  const out = chunks.map((c) => s.feed(c));
  out.push(s.flush());
  return out.map((evs) =>
    coalesce(evs).map((e) => {
      const { raw, ...rest } = e;
      return rest;
    }),
  );
}

/** The coalesced events of the whole stream, fed whole, one character at a time, and in `cuts`. */
function proseEvents(opts, doc, cuts = []) {
  const splits = [[doc], [...doc], ...cuts.map((k) => [doc.slice(0, k), doc.slice(k)])];
  let first = null;
  for (const chunks of splits) {
    const got = coalesce(proseFeeds(opts, chunks).flat());
    if (first === null) first = got;
    else assert.deepEqual(got, first, JSON.stringify(chunks).slice(0, 80));
  }
  return first;
}

const SPAN_HERMES = 'a `b\n<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call> c` d';
const SPAN_MISTRAL = 'a `b\n[TOOL_CALLS]f[ARGS]{"x":1} c` d';

for (const [preset, doc, marker, format] of [
  ['qwen3', SPAN_HERMES, '<tool_call>', 'hermes'],
  ['mistral', SPAN_MISTRAL, '[TOOL_CALLS]', 'mistral'],
]) {
  test(`prose: a ${format} block at a line start ends the paragraph of an open code span, at once`, () => {
    const cut = doc.indexOf(marker) + 4; // the marker cut at the line start: MORE
    const want = [
      { type: 'text', text: 'a `b\n' },
      { type: 'tool_calls', calls: [{ name: 'f', input: { x: 1 } }], format },
      { type: 'text', text: ' c` d' },
    ];
    assert.deepEqual(proseEvents({ preset }, doc, [cut]), want);
    // Python: feed() of the whole text returns the call, before flush()
    assert.deepEqual(proseFeeds({ preset }, [doc]), [want, []]);
  });
}

test('prose: what starts a line of an open code span without being a block ends nothing', () => {
  // a stray closer is no block: the span goes on and closes
  const stray = 'a `b\n</tool_call> c` d';
  assert.deepEqual(proseEvents({ preset: 'qwen3' }, stray), [{ type: 'text', text: stray }]);
  // another bracket: the marker after it is inside the span
  const other = 'a `b\n[x] [TOOL_CALLS]f[ARGS]{"x":1} c` d';
  assert.deepEqual(proseEvents({ preset: 'mistral' }, other), [{ type: 'text', text: other }]);
  // without Mistral the marker is prose: the span goes on over the block after it
  const off = 'a `b\n[TOOL_CALLS] <tool_call>{"name": "f", "arguments": {}}</tool_call> c` d';
  assert.deepEqual(proseEvents({ preset: 'qwen3' }, off), [{ type: 'text', text: off }]);
});

test('prose: a block or Mistral marker inside a code span that never closes is held, then read', () => {
  const hermes = 'a `b <tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call> c';
  assert.deepEqual(proseEvents({ preset: 'qwen3' }, hermes), [
    { type: 'text', text: 'a `b ' },
    { type: 'tool_calls', calls: [{ name: 'f', input: { x: 1 } }], format: 'hermes' },
    { type: 'text', text: ' c' },
  ]);
  const mistral = 'a `b [TOOL_CALLS]f[ARGS]{"x":1} c';
  assert.deepEqual(proseEvents({ preset: 'mistral' }, mistral), [
    { type: 'text', text: 'a `b ' },
    { type: 'tool_calls', calls: [{ name: 'f', input: { x: 1 } }], format: 'mistral' },
    { type: 'text', text: ' c' },
  ]);
  // closed, the span is text, and feed() returns all of it (Python's feed)
  const closed = 'a `b [TOOL_CALLS]f[ARGS]{"x":1} c` d';
  assert.deepEqual(proseFeeds({ preset: 'mistral' }, [closed]), [[{ type: 'text', text: closed }], []]);
});

test('prose: a bracket inside a code span is held only for a bare list, and feed() releases the rest', () => {
  const bare = 'a `b [f(x=1)] c';
  assert.deepEqual(proseEvents({ preset: 'llama4' }, bare), [
    { type: 'text', text: 'a `b ' },
    { type: 'tool_calls', calls: [{ name: 'f', input: { x: 1 } }], format: 'pythonic' },
    { type: 'text', text: ' c' },
  ]);
  const closed = 'a `b [f(x=1)] c` d';
  assert.deepEqual(proseFeeds({ preset: 'llama4' }, [closed]), [[{ type: 'text', text: closed }], []]);
  // other characters of the span are not held (Python's feed returns them)
  assert.deepEqual(proseFeeds({ preset: 'llama4' }, ['a `bcd']), [[{ type: 'text', text: 'a `bcd' }], []]);
});

test('prose: without Mistral a marker inside a code span holds nothing, whatever the capture limit', () => {
  // Held from the marker, the span would pass the limit (80) and be literal: its closer would open
  // a new span over the block after it.
  const doc = 'a `[TOOL_CALLS] ' + 'x'.repeat(100) + '` <tool_call>{"name": "f", "arguments": {}}</tool_call> ` e';
  assert.deepEqual(proseEvents({ preset: 'qwen3', maxCaptureChars: 80 }, doc), [
    { type: 'text', text: 'a `[TOOL_CALLS] ' + 'x'.repeat(100) + '` ' },
    { type: 'tool_calls', calls: [{ name: 'f', input: {} }], format: 'hermes' },
    { type: 'text', text: ' ` e' },
  ]);
});

// ---- dsml: the repairs a block reports (D8, D58; the full run of 2026-12-07) ----------------------
// Each block's `repaired` names the decisions applied to it, once each. After an unclosed CDATA (D8)
// the rest of the input is read by the loose rule: a later CDATA with its `]]>` is not a repair, one
// without it is. python/tests/mutation/test_mutation_kills_fresh.py has this table.
const block = (value) =>
  '<|DSML|tool_calls><|DSML|invoke name="f"><|DSML|parameter name="p">' +
  value +
  '</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>';
// [preset, streamArguments, document, each block's `repaired`]: the one table of repairs, the
// families' rows below.
const REPAIRS = [
  [undefined, false, block('<![CDATA[a') + ' then ' + block('<![CDATA[b]]>'), [['D8'], []]],
  [undefined, false, block('<![CDATA[a') + ' then ' + block('<![CDATA[b'), [['D8'], ['D8']]],
  [undefined, false, block('<![CDATA[x <![CDATA[y]]>'), [['D8']]], // the `]]>` closes the inner one only (D7)
  [
    undefined,
    false,
    '<|DSML|tool_calls><|DSML|invoke name="f"><|DSML|parameter name="p"><![CDATA[a</|DSML|parameter>' +
      '<|DSML|parameter name="q"><![CDATA[b</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>',
    [['D8']], // two values repaired, one decision
  ],
];


test('dsml: past the limit a block keeps no more malformed calls', () => {
  // D43: past the capture limit only "there was one" matters: 2,000 malformed invokes (a stray
  // closer each) leave the block's list as it was at the limit, not 2,000 entries long.
  const s = new Sieve({ maxCaptureChars: 1000 });
  s.feed('<\uff5cDSML\uff5cfunction_calls>');
  for (let i = 0; i < 2000; i++) s.feed('<\uff5cDSML\uff5cinvoke name="a"></\uff5cDSML\uff5cparameter></\uff5cDSML\uff5cinvoke>');
  const bad = s._scanner.cap.bad;
  assert.ok(bad !== null && bad.length > 0 && bad.length <= 1000 / 50, `${bad && bad.length} entries`);
  assert.ok(s.flush().every((e) => e.type === 'text')); // the block was released as text
});

test("dsml: a malformed call's values are never read (D59)", () => {
  // Text before a parameter makes the invoke malformed: its parameter's body is scanned, not
  // decoded (the work of decoding is spared, and nothing of it is kept).
  const values = require('../../src/values');
  const original = values.paramValue;
  let decoded = 0;
  values.paramValue = (...args) => {
    decoded += 1;
    return original(...args);
  };
  try {
    const param = '<\uff5cDSML\uff5cparameter name="p" string="true">1</\uff5cDSML\uff5cparameter>';
    const doc = (body) =>
      '<\uff5cDSML\uff5cfunction_calls><\uff5cDSML\uff5cinvoke name="a">' + body +
      '</\uff5cDSML\uff5cinvoke></\uff5cDSML\uff5cfunction_calls>';
    for (const [body, calls, malformed, reads] of [
      [param, 1, 0, 1],
      ['x' + param, 0, 1, 0],
    ]) {
      decoded = 0;
      const s = new Sieve();
      const events = [...s.feed(doc(body)), ...s.flush()].filter((e) => e.type === 'tool_calls');
      assert.deepEqual(
        [events.length, events[0].calls.length, (events[0].malformed || []).length, decoded],
        [1, calls, malformed, reads],
      );
    }
  } finally {
    values.paramValue = original;
  }
});

test('names: a function is no list of tool names, even an iterable one', () => {
  // A Node-only value (parity/PORT_NOTES.md, gateway layer): Python takes any non-mapping iterable.
  const { InputTypeError } = require('../../index.js');
  const { checkToolNames } = require('../../src/names.js');
  const iterable = Object.assign(() => [], {
    *[Symbol.iterator]() {
      yield 'get_weather';
    },
  });
  assert.throws(() => checkToolNames(iterable), InputTypeError);
  assert.deepEqual([...checkToolNames(new Set(['get_weather']))], ['get_weather']); // any other iterable object is
});

// ---- scanner: the families' blocks and the capture limit (D43, D37; the full run of 2026-12-07) ----
// A block longer than maxCaptureChars is released as text with the note (JSON in prose is plain
// text: it was never a block); once its call is announced (streamArguments) the limit stops
// applying and the call streams whole. python/tests/mutation/test_mutation_kills_fresh.py has this table.
const X = 'x'.repeat(100);
const LIMITED = [
  ['qwen3', '<tool_call>{"name": "write", "arguments": {"text": "' + X + '"}}</tool_call>', 'hermes'],
  ['glm-4.5', '<tool_call>write\n<arg_key>text</arg_key>\n<arg_value>' + X + '</arg_value>\n</tool_call>', 'glm'],
  ['llama3', '{"name": "write", "parameters": {"text": "' + X + '"}}', 'llama_json'],
  [
    'kimi-k2', // announced only at its argument marker, past the limit: text in both modes
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0<|tool_call_argument_begin|>' +
      '{"text": "' + X + '"}<|tool_call_end|><|tool_calls_section_end|>',
    '',
  ],
];

test('scanner: a family block past the capture limit', () => {
  for (const [preset, block, fmt] of LIMITED) {
    const doc = 'a ' + block + ' b';
    const limited = [{ type: 'text', text: doc, ...(fmt === 'llama_json' ? {} : { note: 'capture_limit' }) }];
    const announced = fmt
      ? [
          { type: 'text', text: 'a ' },
          { type: 'tool_call_start', index: 0, name: 'write' },
          { type: 'tool_call_arguments', index: 0, delta: '{"text":"' + X + '"}' },
          { type: 'tool_calls', calls: [{ name: 'write', input: { text: X } }], format: fmt },
          { type: 'text', text: ' b' },
        ]
      : [{ type: 'text', text: doc, note: 'capture_limit' }];
    for (const streamArguments of [false, true]) {
      for (const size of [1, 7, doc.length]) {
        const s = new Sieve({ preset, maxCaptureChars: 40, streamArguments });
        const events = [];
        for (let i = 0; i < doc.length; i += size) events.push(...s.feed(doc.slice(i, i + size)));
        events.push(...s.flush());
        const got = coalesce(events).map((e) => {
          const { raw, ...rest } = e;
          return rest;
        });
        assert.deepEqual(got, streamArguments ? announced : limited, `${preset} ${streamArguments} ${size}`);
      }
    }
  }
});

// The families' repairs (D58): D44 a block the end of the output cut that its grammar can still read,
// D37 a block that broke after its call was announced, D26 a token section without its end.
// python/tests/mutation/test_mutation_kills_fresh.py has this table.
REPAIRS.push(
  ['qwen3', false, '<tool_call>{"name": "f", "arguments": {"x": 1}}', [['D44']]],
  ['qwen3', true, '<tool_call>{"name": "f", "arguments": {"x": 1}} trailing</tool_call> after', [['D37']]],
  ['qwen3', false, '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>', [[]]],
  ['llama3', true, '{"name": "f", "parameters": {"x": "abc', [['D37']]],
  ['llama3', true, '{"name": "f", "parameters": {"x": 1}}', [[]]],
  ['deepseek-v3', false, '<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>f<\uff5ctool\u2581sep\uff5c>{}<\uff5ctool\u2581call\u2581end\uff5c>', [['D26']]],
  // the end-of-sentence token ends the section: as the end of the output
  ['deepseek-v3', false, '<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>f<\uff5ctool\u2581sep\uff5c>{}<\uff5ctool\u2581call\u2581end\uff5c><\uff5cend\u2581of\u2581sentence\uff5c>', [['D26']]],
  ['glm-4.5', true, '<tool_call>f\n<arg_key>x</arg_key>\n<arg_value>1', [['D44']]],
  ['qwen3-coder', false, '<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>', [['D44']]],
  ['qwen3-coder', true, '<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\nstray\n</function>\n</tool_call>', [['D37']]],
);

test('a block names each repair once', () => {
  for (const [preset, streamArguments, doc, want] of REPAIRS) {
    for (const size of [1, doc.length]) {
      const s = new Sieve({ preset, streamArguments });
      const events = [];
      for (let i = 0; i < doc.length; i += size) events.push(...s.feed(doc.slice(i, i + size)));
      events.push(...s.flush());
      const got = events.filter((e) => e.type === 'tool_calls').map((e) => [...(e.repaired || [])]);
      assert.deepEqual(got, want, `${preset} ${streamArguments} ${size} ${doc}`);
    }
  }
});

test('scanner: the work counter counts every character at least once', () => {
  // `work` (the documented debug counter) counts the characters exposed to the scanner and its
  // taps: every character of the input at least once, whatever the family and the chunking.
  const docs = REPAIRS.map(([p, st, d]) => [p, st, d, 8 * 1024 * 1024]);
  for (const [p, b] of LIMITED) for (const st of [false, true]) docs.push([p, st, 'a ' + b + ' b', 40]);
  for (const [preset, streamArguments, doc, maxCaptureChars] of docs) {
    for (const size of [1, doc.length]) {
      const s = new Sieve({ preset, streamArguments, maxCaptureChars });
      for (let i = 0; i < doc.length; i += size) s.feed(doc.slice(i, i + size));
      s.flush();
      assert.ok(s.work >= doc.length, `${preset} ${streamArguments} ${size}: ${s.work} < ${doc.length}`);
    }
  }
});
