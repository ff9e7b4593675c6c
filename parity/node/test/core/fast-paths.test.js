'use strict';
// Speed paths (issue 15) give the answers of the general code they stand in front of (the Node
// side of python/tests/core/test_fast_paths.py). Each fast path is held to the code behind it over
// every prefix of many plain and mutated inputs, with `final` both ways. The tag matchers' own are
// in fast-paths-shell.test.js.
const test = require('node:test');
const assert = require('node:assert');
const shell = require('../../src/shell');
const { kept, seededRng: rng, mutateChars: mutate } = require('../support');

const { KEYWORDS_ALL, KEYWORDS_NATIVE, KEYWORDS_SEED, MORE } = shell;
const KEYWORD_SETS = [KEYWORDS_SEED, KEYWORDS_ALL, KEYWORDS_NATIVE];

// ---- the prose skip (prose.js proseSkip) against the steps behind it ---------------------------

const { Sieve } = require('../..');

// The skip reduced to what TEXT's steps always took in one step (a run of plain characters): every
// tag, blank head, newline and line start is then decided by the general steps.
// (`[` is a stop too: Mistral's `[TOOL_CALLS]` is on by default)
const PLAIN_ONLY = /[^\n`<\uff1c\u3008\u300a[]*/y;
const PLAIN_ONLY_JSON = /[^\n`<\uff1c\u3008\u300a{[]*/y;

const BLOCK =
  '<|DSML|tool_calls>\n<|DSML|invoke name="read_file">\n<|DSML|parameter name="path"><![CDATA[a.py]]>' +
  '</|DSML|parameter>\n</|DSML|invoke>\n</|DSML|tool_calls>';
const PROSE_PIECES = [
  'When a < b and b > c, the <b>result</b> is 3. ',
  'Use <div class="note"> or <span>inline</span> tags; <br/> breaks lines. ',
  'Arrows like -> and <- or << shifts >> are common in prose <3. ',
  'HTML: <ul><li>one</li><li>two</li></ul>\n',
  '\n',
  '\n\n',
  '\n  ',
  '\n    indented code <x>\n',
  '\r\n',
  '\t<td>',
  '```\n' + BLOCK + '\n```\n',
  '~~~\n<tool_calls>\n~~~\n',
  '~~~\n' + BLOCK + '\n~~~\n',
  '`<tool_calls>` and `code`',
  '<pre>\n' + BLOCK + '\n</pre>\n',
  '\n<pre>x</pre>\n',
  '\n<PRE class="x">',
  '<prefix a="b">',
  '</pre>',
  '<!-- ' + BLOCK + ' -->',
  '<![CDATA[' + BLOCK + ']]>',
  BLOCK,
  '\n' + BLOCK + '\n',
  '<tool_calls><invoke name="x"></invoke></tool_calls>',
  '<my_invoke name="x"><parameter name="a">1</parameter></my_invoke>',
  '<invoke name="y"><parameter name="a">1</parameter></invoke>',
  '<x_tool_calls a="1">',
  '<Tool_Calls>',
  '<div tool_calls="1">',
  '<functionX a="1">',
  '<a href="x">Parameter</a>',
  '<\uff5cDSML\uff5cfunction_calls>\n<\uff5cDSML\uff5cinvoke name="f">\n</\uff5cDSML\uff5cinvoke>\n</\uff5cDSML\uff5cfunction_calls>',
  '<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>f<\uff5ctool\u2581sep\uff5c>{}<\uff5ctool\u2581call\u2581end\uff5c><\uff5ctool\u2581calls\u2581end\uff5c>',
  '<\uff5cend\u2581of\u2581sentence\uff5c>',
  '<|x|>',
  '{"name": "f", "arguments": {}}',
  '{ "a": 1 }',
  '\uff1cdiv\uff1e \u3008b\u3009 \u300ac\u300b',
  '\u{1F600} <\u{1F600}> < \u{1F600}' + 'x'.repeat(30) + '>',
  '<' + 'a'.repeat(61) + ' ',
  '<' + 'a'.repeat(62) + ' ',
  '<' + 'a'.repeat(63) + ' ',
  '<' + 'a'.repeat(64) + ' ',
  '</' + 'a'.repeat(62) + '>',
  '< ' + 'b'.repeat(61) + '>',
  '< ' + 'b'.repeat(62) + '>',
  '< ' + 'b'.repeat(63) + '>',
  '<'.repeat(7) + ' x',
  '<'.repeat(8) + ' x',
  '<'.repeat(9) + ' x',
  '<'.repeat(10) + ' x',
  '<\t>',
  '< \n',
  '<a|b>',
  '<a!b>',
  '<a\x01b>',
  '<a\u200bb>',
  '<a\u00e9b>',
  'word',
  ' ',
  '~',
  '{',
  '<',
  // runs of tag-like prefixes that never become a tag (shell.js NO_TAG_ANGLES, NO_TAG_SO_FAR)
  '<\uff5cDSML\uff5c<\uff5cDSML\uff5c<\uff5cDSML\uff5c',
  '<|DSML|<|DSML|x',
  '</</</</',
  '</<</<<x>',
  '<\uff5c<\uff5c<\uff5c',
  '<invoke<invoke<Parameter<tool_calls<',
  '<invoke|<invoke <invoke\u200b<',
  '<\uff5ctool\u2581call<\uff5ctool\u2581call<',
  '<tool_call<tool_call<',
  '<'.repeat(12) + 'x<',
  '\uff1c\u3008\u300ax\u300a',
  '<pre x<pre<PRE\t<',
  '<!x<![<[CDATA[<\uff3bx<',
  '<\uff54ool_calls<\u0442<\u200b<',
  '</\uff0f<x<\uff0f<<tool_calls>',
];

const NEVER = /(?!)/y;

function feedAll(text, sizes, opts, reference) {
  const s = new Sieve(opts);
  if (reference) {
    s._scanner._prose = opts.jsonToolCalls ? PLAIN_ONLY_JSON : PLAIN_ONLY;
    s._scanner._soFar = NEVER;
  }
  const out = [];
  let i = 0;
  for (let k = 0; i < text.length; k++) {
    const size = sizes[k % sizes.length];
    out.push(s.feed(text.slice(i, i + size)));
    i += size;
  }
  out.push(s.flush());
  out.push(s.sawToolCallSyntax);
  return out;
}

const { coalesce } = require('../..');

/** The events of feedAll as one coalesced list (what every chunking must agree on). */
function joined(fed) {
  return [coalesce(fed.slice(0, -1).flat()), fed[fed.length - 1]];
}

function checkProse(text, sizes, opts) {
  const why = JSON.stringify([text, sizes, opts]);
  const fast = feedAll(text, sizes, opts, false);
  const general = feedAll(text, sizes, opts, true);
  assert.deepStrictEqual(fast, general, why); // chunk by chunk, the same events
  const events = joined(fast);
  assert.deepStrictEqual(events, joined(feedAll(text, [text.length || 1], opts, true)), why); // whatever the chunks
  // nothing lost (but the markers dropped where they stand alone: D29, D47, D60)
  assert.ok(kept(events[0].map((e) => (e.type === 'tool_calls' ? e.raw : e.text)).join(''), text), why);
}

function proseDocs(seed, count, mutations) {
  const r = rng(seed);
  const alphabet = Array.from(' \t\n<>/="|!`~{}abcpreDSMLtoolcalsinvk\uff1c\u{1F600}');
  const docs = [];
  for (let x = 0; x < count; x++) {
    let doc = '';
    const n = r.int(1, 8);
    for (let k = 0; k < n; k++) doc += r.choice(PROSE_PIECES);
    if (mutations) doc = mutate(r, doc, alphabet, 4);
    docs.push(doc);
  }
  return docs;
}

const SIZES = [[1], [2], [3], [4], [5], [7], [16], [1000000], [3, 1, 4, 1, 5, 9, 2, 6]];

test('prose skip: every piece alone and in pairs, every chunking, gives what the steps give', () => {
  for (const a of PROSE_PIECES) {
    for (const sizes of SIZES) {
      checkProse(a, sizes, {});
      checkProse('x ' + a + '\nafter', sizes, { jsonToolCalls: true });
    }
    for (const b of PROSE_PIECES) for (const sizes of [[1], [4], [1000000]]) checkProse(a + b, sizes, {});
  }
});

test('prose skip: random documents and mutations give what the steps give', () => {
  for (const [seed, mutations] of [
    [21, false],
    [22, true],
  ]) {
    const r = rng(seed + 100);
    for (const doc of proseDocs(seed, 600, mutations)) {
      const sizes = r.choice(SIZES);
      checkProse(doc, sizes, r.random() < 0.3 ? { jsonToolCalls: true } : {});
    }
  }
});

test('prose skip: a long input is skipped in bounded matches (no stack overflow)', () => {
  const text = 'a\nb<c> '.repeat(2_000_000);
  const s = new Sieve();
  const events = s.feed(text).concat(s.flush());
  assert.strictEqual(events.map((e) => e.text).join(''), text);
});

// ---- matchMarker (sections.js) against its first form ------------------------------------------

const sections = require('../../src/sections');

const MARKER_LIST = [
  ['<\uff5ctool\u2581calls\u2581begin\uff5c>', sections.SECTION_BEGIN],
  ['<\uff5ctool\u2581calls\u2581end\uff5c>', sections.SECTION_END],
  ['<\uff5ctool\u2581call\u2581begin\uff5c>', sections.CALL_BEGIN],
  ['<\uff5ctool\u2581call\u2581end\uff5c>', sections.CALL_END],
  ['<\uff5ctool\u2581sep\uff5c>', sections.SEP],
  ['<\uff5cend\u2581of\u2581sentence\uff5c>', sections.EOS],
  ['<\uff5ctool\u2581calls\uff5c>', sections.SECTION_BEGIN],
];

/** matchMarker as first written (a loop over the markers), the reference for its regex. */
function markerReference(s, i, final) {
  const n = s.length;
  if (i + 1 >= n) return final ? shell.NO : MORE;
  if (!sections.BARS.includes(s[i + 1])) return shell.NO;
  const w = s.slice(i, i + sections.MAX_MARKER).replace(/\|/g, '\uff5c');
  for (const [marker, kind] of MARKER_LIST) if (w.startsWith(marker)) return [kind, i + marker.length];
  if (!final && i + w.length === n && MARKER_LIST.some(([m]) => m.startsWith(w))) return MORE;
  return shell.NO;
}

test('matchMarker: every prefix of mutated markers agrees with its first form', () => {
  const r = rng(10);
  const alphabet = Array.from('<>|\uff5c\u2581toolcalbegindsepfhr ');
  for (let x = 0; x < 3000; x++) {
    let s = r.choice(MARKER_LIST)[0].replace(/\uff5c/g, () => r.choice(['\uff5c', '|']));
    if (r.random() < 0.7) s = mutate(r, s, alphabet, 2);
    s += r.choice(['', 'x', '<', '\uff5c>']);
    if (!s.startsWith('<')) continue;
    for (let end = 1; end <= s.length; end++) {
      for (const final of [false, true]) {
        const t = s.slice(0, end);
        assert.deepStrictEqual(sections.matchMarker(t, 0, final), markerReference(t, 0, final), JSON.stringify([t, final]));
        assert.deepStrictEqual(sections.matchMarker('ab' + t, 2, final), markerReference('ab' + t, 2, final), t);
      }
    }
  }
});


// ---- the token-section fast path of feed (scanner.js _secTakes) against the steps --------------

const SECTION_CALLS = [
  '<\uff5ctool\u2581call\u2581begin\uff5c>read_file<\uff5ctool\u2581sep\uff5c>{"path": "src/a.py", "limit": 3}<\uff5ctool\u2581call\u2581end\uff5c>\n',
  '<\uff5ctool\u2581call\u2581begin\uff5cfunction<\uff5ctool\u2581sep\uff5c>f\n```json\n{"a": "<b>"}\n```<\uff5ctool\u2581call\u2581end\uff5c>',
  '<\uff5ctool\u2581call\u2581begin\uff5c>' + 'n'.repeat(505) + '<\uff5ctool\u2581sep\uff5c>{}<\uff5ctool\u2581call\u2581end\uff5c>',
  '<\uff5ctool\u2581call\u2581begin\uff5c>' + 'n'.repeat(512) + '<\uff5ctool\u2581sep\uff5c>{}<\uff5ctool\u2581call\u2581end\uff5c>',
  '<\uff5ctool\u2581call\u2581begin\uff5c>' + 'n'.repeat(513) + '<\uff5ctool\u2581sep\uff5c>{}<\uff5ctool\u2581call\u2581end\uff5c>',
  '<\uff5ctool\u2581call\u2581begin\uff5c>' + '\u{1F600}'.repeat(300) + '<\uff5ctool\u2581sep\uff5c>{}<\uff5ctool\u2581call\u2581end\uff5c>',
  '<\uff5ctool\u2581call\u2581begin\uff5c>f<\uff5ctool\u2581sep\uff5c>{"q": "' + 'x'.repeat(300) + '\u{1F600}"}<\uff5ctool\u2581call\u2581end\uff5c>',
  '<\uff5ctool\u2581call\u2581begin\uff5c>f<\uff5ctool\u2581sep\uff5c>{"q": 1} <x> <\uff5ctool\u2581call\u2581end\uff5c>',
];

function feedSections(text, sizes, opts, reference) {
  const s = new Sieve(opts);
  if (reference) s._scanner._secTakes = () => false;
  const out = [];
  let i = 0;
  for (let k = 0; i < text.length; k++) {
    const size = sizes[k % sizes.length];
    out.push(s.feed(text.slice(i, i + size)));
    i += size;
  }
  out.push(s.flush());
  out.push(s.work);
  return out;
}

test('token sections: the fast path of feed gives what the steps give, chunk by chunk', () => {
  const r = rng(12);
  const alphabet = Array.from('<>|\uff5c\u2581{}"\n x');
  for (let x = 0; x < 500; x++) {
    let body = '';
    const n = r.int(1, 4);
    for (let k = 0; k < n; k++) body += r.choice(SECTION_CALLS);
    let text = 'Reading.\n<\uff5ctool\u2581calls\u2581begin\uff5c>' + body + r.choice(['<\uff5ctool\u2581calls\u2581end\uff5c>Done.', '', 'tail']);
    if (r.random() < 0.3) text = mutate(r, text, alphabet, 3);
    const sizes = r.choice(SIZES.concat([[8], [64], [200]]));
    const opts = r.random() < 0.4 ? { maxCaptureChars: r.int(20, 700) } : {};
    const fast = feedSections(text, sizes, opts, false);
    assert.deepStrictEqual(fast, feedSections(text, sizes, opts, true), JSON.stringify([text, sizes, opts]));
  }
});

// ---- jsonValue's depth walk only for texts with many openers (values.js) -----------------------

const values = require('../../src/values');

function jsonReference(s) {
  const t = s.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '');
  if (!t || !'{["-0123456789tfn'.includes(t[0])) return [false, null];
  let v;
  try {
    v = JSON.parse(t);
  } catch {
    return [false, null];
  }
  const deep = (x, d) => x !== null && typeof x === 'object' && (d > 200 || Object.values(x).some((y) => deep(y, d + 1)));
  if ((t[0] === '[' || t[0] === '{') && deep(v, 1)) return [false, null];
  return [true, v];
}

test('jsonValue: the depth walk only for many openers gives what the walk always gave', () => {
  const nest = (d, inner = '1') => '['.repeat(d) + inner + ']'.repeat(d);
  const objs = (d) => '{"a":'.repeat(d) + '1' + '}'.repeat(d);
  const cases = [
    '1', '"x"', '{}', '[]', ' {"a": [1, {"b": "[[[["}]} ', '[' + '"[{",'.repeat(300) + '1]',
    nest(199), nest(200), nest(201), objs(199), objs(200), objs(201), nest(100, objs(100)), nest(100, objs(101)),
    '[' + nest(3).repeat(300).replace(/\]\[/g, '],[') + ']', '{"a": ' + nest(250) + '}', '[' + '{},'.repeat(500) + '{}]',
  ];
  for (const c of cases) assert.deepStrictEqual(values.jsonValue(c), jsonReference(c), c.slice(0, 60));
});

// ---- open angles that start no tag (shell.js NO_TAG_ANGLES, NO_TAG_SO_FAR) ---------------------
// (Python: test_no_tag_angles_are_no_for_every_prose_recognizer, test_no_tag_so_far_waits_at_a_cut_head)

const { Scanner, ALL_FORMATS } = require('../../src/scanner');
const { matchRegion } = require('../../src/prose');
const { matchBlockMarker } = require('../../src/scanbase');

const NO_TAG_PIECES = [
  '<\uff5cDSML\uff5c', '<|DSML|', '</', '<\uff5c', '<', '\uff1c', '\u3008', '\u300a', '/', '\uff0f', 'x', ' ', '\t', '\n',
  '|', '\uff5c', 'invoke', 'tool_calls', 'parameter', 'function_calls', 'tool-calls', 'toolcalls', 'TOOL_CALLS',
  'Invoke', '<pre ', '<pre', 'pre', 'PRE', '!', '\uff01', '[', '\uff3b', 'CDATA', '<![CDATA[', ']]>', '>', '=', '"',
  'name', '<!--', '<\uff5ctool\u2581calls\u2581begin\uff5c>', '<\uff5cend\u2581of\u2581sentence\uff5c>', '<|start|>',
  '<|end|>', '<tool_call>', '</tool_call>', '<|channel|>', '<|python_tag|>', '<minimax:tool_call>', '\u200b', '\x0b',
  '\uff54', '\u0442', '\uff34', '\ufe4d', '\u2014', '\u2581', 'e', 'tool', '_', '-', 'calls', 'call', 'DSML', '\u212a',
  '\u017f', '<'.repeat(9), '<'.repeat(8), '\u{1F600}', 'a'.repeat(30), 'b'.repeat(70),
];

function noTagTexts(count, seed) {
  const r = rng(seed);
  const out = [];
  for (let x = 0; x < count; x++) {
    let t = '';
    for (let k = r.int(1, 30); k > 0; k--) t += r.choice(NO_TAG_PIECES);
    out.push(t);
  }
  return out;
}

const BLOCKS = new Scanner(8 * 1024 * 1024, false, ALL_FORMATS)._blocks;

/** What each recognizer the prose steps try at an open angle says there (every format on). */
function proseAnswers(s, p, final) {
  return [
    matchBlockMarker(BLOCKS, s, p, final),
    sections.matchMarker(s, p, final),
    matchRegion(s, p, final, false),
    matchRegion(s, p, final, true),
    ...KEYWORD_SETS.map((kw) => shell.matchTag(s, p, final, kw)),
  ];
}

test('NO_TAG_ANGLES: every angle it takes starts nothing, for every prose recognizer', () => {
  const angles = new RegExp(shell.NO_TAG_ANGLES, 'y');
  let taken = 0;
  for (const text of noTagTexts(3000, 17)) {
    for (let i = 0; i < text.length; i++) {
      if (!shell.OPEN_ANGLES.includes(text[i])) continue;
      angles.lastIndex = i;
      if (!angles.test(text)) continue;
      for (let p = i; p < angles.lastIndex; p++) {
        taken++;
        for (const final of [false, true]) {
          const answers = proseAnswers(text, p, final);
          assert.ok(answers.every((a) => a === 'NO'), JSON.stringify([text, p, final, answers]));
        }
      }
    }
  }
  assert.ok(taken > 10000, String(taken));
});

test('NO_TAG_SO_FAR: at a head cut by the end of the input matchTag waits and nothing is decided', () => {
  const soFar = new RegExp(shell.NO_TAG_SO_FAR, 'y');
  let taken = 0;
  for (const text of noTagTexts(1500, 18)) {
    for (let end = 1; end <= text.length; end++) {
      const s = text.slice(0, end);
      for (let i = Math.max(0, end - 80); i < end; i++) {
        if (s[i] !== '<') continue;
        soFar.lastIndex = i;
        if (!soFar.test(s)) continue;
        taken++;
        const answers = proseAnswers(s, i, false);
        const why = JSON.stringify([s, i, answers]);
        assert.ok(answers.every((a) => a === MORE || a === 'NO'), why);
        assert.ok(answers.slice(4).every((a) => a === MORE), why);
      }
    }
  }
  assert.ok(taken > 5000, String(taken));
});

// ---- reasoning: feed's shortcut for a chunk no closing marker can start in (reasoning.py) -------

const { partialClose } = require('../../src/reasoning');
const { mulberry32, randomChunks } = require('../support');

test('partialClose: the longest proper prefix of the marker that ends the text', () => {
  const rng = mulberry32(21);
  for (const close of ['</think>', '</seed:think>', '[/THINK]', 'abab', 'aab']) {
    const pieces = ['', 'x', close[0], close, close + close[0]];
    for (let k = 1; k < close.length; k++) pieces.push(close.slice(0, k));
    const texts = [];
    for (const a of pieces) for (const b of pieces) for (const c of pieces) texts.push(a + b + c);
    for (let i = 0; i < 3000; i++) {
      let s = '';
      for (let n = Math.floor(rng() * 13); n > 0; n--) s += (close + 'z')[Math.floor(rng() * (close.length + 1))];
      texts.push(s);
    }
    for (const s of texts) {
      let want = 0;
      for (let k = 1; k < close.length; k++) if (s.endsWith(close.slice(0, k))) want = k;
      assert.strictEqual(partialClose(s, close), want, JSON.stringify([s, close]));
    }
  }
});

test('reasoning: the Sieve shortcut inside a region gives what the gate gives, chunk by chunk', () => {
  const example = '<|DSML|tool_calls><|DSML|invoke name="rm"><|DSML|parameter name="p">x</|DSML|parameter>';
  const body = `a < b; </thin <div>x</div> \`\`\`xml\n${example}\n\`\`\` [/THI <|en <seed:th </`;
  const cases = [
    [`<think>${body}</think>\nok ${example}</|DSML|invoke></|DSML|tool_calls>`, {}],
    [` \n<think>${body}</thi`, {}],
    [`${body}</think>${body}`, { reasoning: 'open' }],
    [`<seed:think>${body}</seed:think>${body}`, { preset: 'seed-oss' }],
    [`[THINK]${body}[/THINK]${body}`, { preset: 'mistral' }],
    [`<think>${body}`, { reasoning: 'open', streamArguments: true }],
  ];
  const fed = (chunks, opts, shortcut) => {
    const s = new Sieve(opts);
    if (!shortcut) s._gate.lead = ''; // every chunk holds '': the gate decides it
    const out = chunks.map((c) => [...s.feed(c), s._gate.phase, s._gate.held, s.work]);
    return out.concat([s.flush(), s.work]);
  };
  let seed = 22;
  for (const [text, opts] of cases) {
    for (const [lo, hi] of [[1, 6], [1, 30]]) {
      for (let i = 0; i < 20; i++) {
        const chunks = randomChunks(text, seed++, lo, hi);
        assert.deepStrictEqual(fed(chunks, opts, true), fed(chunks, opts, false), JSON.stringify([chunks, opts]));
      }
    }
  }
});

// ---- after every feed the steps have nothing to do (Python: test_fast_paths.py) ---------------

const { fixtureFiles, load, options: fixtureOptions } = require('../support');

function feedDocs() {
  const cases = fixtureFiles().map((p) => {
    const c = load(p);
    return [c.input, fixtureOptions(c)];
  });
  const r = rng(1515);
  const w4 = [0, 1, 2]
    .map(
      (i) =>
        `<|DSML|invoke name="read_file">\n<|DSML|parameter name="path"><![CDATA[f${i}]]></|DSML|parameter>\n` +
        `<\uff5cDSML\uff5cparameter name="n" string="false">${i}</\uff5cDSML\uff5cparameter>\n` +
        `<|DSML|parameter name="d"><!\uff3bCDATA\uff3bx${i}]]></|DSML|parameter></|DSML|invoke>\n`,
    )
    .join('');
  const base = [
    'When a < b, the <b>result</b> is 1.\n<|DSML|tool_calls>\n' + w4 + '</|DSML|tool_calls>\ny',
    'x<\uff5ctool\u2581calls\u2581begin\uff5c>' + SECTION_CALLS.join('') + '<\uff5ctool\u2581calls\u2581end\uff5c>y',
  ];
  const alphabet = Array.from('<>/|\uff5c\u2581!=" \n[]CDATtoolcalsbeginendsepvkDSML');
  for (let x = 0; x < 300; x++) {
    const opts = { streamArguments: r.random() < 0.3 };
    if (r.random() < 0.3) opts.maxCaptureChars = r.int(10, 120);
    cases.push([mutate(r, r.choice(base), alphabet, 4), opts]);
  }
  return cases;
}

test('after every feed the steps have nothing to do', () => {
  // Whatever path a chunk took (the steps or a fast path of feed), the scanner is left where its
  // steps would wait: running them again without new input changes nothing.
  let seed = 8;
  for (const [text, opts] of feedDocs()) {
    const s = new Sieve(opts);
    const sc = s._scanner;
    const where = () => [sc.mode, sc.cap.level, sc.sec.stage, sc.base + sc.pos, sc.buf.length];
    for (const chunk of randomChunks(text, seed++, 1, 12)) {
      s.feed(chunk);
      const before = where();
      sc._run(false);
      assert.deepStrictEqual(where(), before, JSON.stringify([text, chunk]));
      assert.ok(!sc.out.length && !sc._text.length, JSON.stringify([text, chunk]));
    }
  }
});
