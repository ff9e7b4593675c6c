'use strict';
// The tag matchers' fast paths (shell.js matchPlain, matchCdataOpen) give the answers of the general
// matcher behind them over every prefix of many plain and mutated tags, with `final` both ways.
// Apart from test/core/fast-paths.test.js because they touch shell.js only: a mutation run of
// another module (StrykerJS runs the test files that cover a mutant) skips their 15 seconds.
const test = require('node:test');
const assert = require('node:assert');
const shell = require('../../src/shell');
const { seededRng: rng, mutateChars: mutate } = require('../support');

const { KEYWORDS_ALL, KEYWORDS_NATIVE, KEYWORDS_SEED, MORE } = shell;
const KEYWORD_SETS = [KEYWORDS_SEED, KEYWORDS_ALL, KEYWORDS_NATIVE];

// ---- matchPlain (shell.js) against matchGeneral ------------------------------------------------

const TAGS = [
  '<|DSML|invoke name="read_file">',
  '<|DSML|parameter name="path">',
  '<\uff5cDSML\uff5cparameter name="content" string="true">',
  '</|DSML|parameter>',
  '</\uff5cDSML\uff5cinvoke>',
  '<|DSML|tool_calls>',
  '<\uff5cDSML\uff5cfunction_calls>',
  '</|dsml|TOOL_CALLS>',
  '<tool_calls>',
  '<toolcalls/>',
  '<invoke name="x"/>',
  '<parameter\n  name="a b"\r\n  string="false" >',
  '<|DSML|invoke Name="x" name="y" other="z">',
  '<|DSML|invoke name="x"string="y">',
  '<|DSML|invoke name="x" />',
  '<|DSML|invoke/>',
  '<|DSML|parameter name="\u201cq\u201d">',
  '<|DSML|parameter name="a>b">',
  '<|DSML|functioncalls>',
  '<|DSML|tool-calls>',
  '<|DSML|invoke name="x"|',
  '<|DSML|invoke name="x" !>',
  '<|DSML|invoke-x>',
  '<|DSML|invoke name=x>',
  "<|DSML|invoke name='x'>",
  '<|DSML|invoke ' + 'a'.repeat(45) + '="x">',
  '<|DSML|invoke' + ' '.repeat(60) + 'name="x">',
  '<|DSML|invoke name="' + 'v'.repeat(600) + '">',
  '<' + 'x'.repeat(70),
  '<|DSML|invoke\x0bname="x">',
  // code units against code points: astral characters in a value, a head and a long tag
  '<|DSML|invoke name="\u{1F600}x">',
  '<|DSML|invoke name="' + '\u{1F600}'.repeat(300) + '">',
  '<|DSML|invoke name="' + '\u{1F600}'.repeat(200) + '" ' + 'b="' + 'c'.repeat(100) + '">',
  '<|DSML|invoke' + ' '.repeat(30) + 'name="\u{1F600}">',
  '<\u{1F600}' + 'x'.repeat(40),
  '<x' + '\u{1F600}'.repeat(40),
  '<|DSML|invoke name="' + 'v'.repeat(200) + '" a="' + 'v'.repeat(200) + '" b="' + 'v'.repeat(200) + '">',
  '<toolcalls name="w">',
  '<|DSML|functioncalls name="w" string="s">',
  '<|DSML|invoke' + ' a=""'.repeat(99) + ' name="x">', // 100 attributes: PLAIN_TAG takes them
  '<|DSML|invoke' + ' a=""'.repeat(100) + ' name="x">', // 101: it does not
];
const BASE_TAGS = TAGS.length;
// a tag's attribute area about MAX_TAG (512) long, in code units and in code points
for (let n = 490; n <= 500; n++) {
  TAGS.push('<|DSML|invoke name="' + 'v'.repeat(n) + '" a="b">');
  TAGS.push('<|DSML|invoke name="' + 'v'.repeat(n - 8) + '\u{1F600}'.repeat(4) + '" a="b">');
}

function checkTag(s, i = 0) {
  for (const kw of KEYWORD_SETS) {
    for (const final of [false, true]) {
      const general = shell.matchGeneral(s, i, final, kw);
      const fast = shell.matchPlain(s, i, final, kw);
      if (fast !== null) assert.deepStrictEqual(fast, general, JSON.stringify([s, kw.source, final]));
      assert.deepStrictEqual(shell.matchTag(s, i, final, kw), general, JSON.stringify([s, kw.source, final]));
    }
  }
}

test('matchPlain: every prefix of tag-like strings agrees with matchGeneral', () => {
  for (const t of TAGS) {
    for (const tail of ['', ' rest', '\n', '<', '>']) {
      const text = t + tail;
      for (let end = 1; end <= text.length; end++) {
        // (a long one: its ends, and every 13th prefix between)
        if (text.length < 120 || end < 30 || end > text.length - 30 || end % 13 === 0) checkTag(text.slice(0, end));
      }
      checkTag('ab ' + text, 3); // not at the start of the string
    }
  }
});

test('matchPlain decides the plain tags (else it saves nothing), complete and cut', () => {
  for (const t of TAGS.slice(0, 12)) assert.notStrictEqual(shell.matchPlain(t, 0, false, KEYWORDS_ALL), null, t);
  assert.strictEqual(shell.matchPlain('<|DSML|invoke name="x', 0, false, KEYWORDS_ALL), MORE);
  assert.strictEqual(shell.matchPlain('<|DSML|invoke name="x" ', 0, false, KEYWORDS_ALL), MORE);
});

test('matchPlain: random mutations of tags agree with matchGeneral', () => {
  const r = rng(15);
  const alphabet = Array.from(' \t\n\r<>/="\'|\uff5c\u201c\u201d\uff02-_:.!aAnmeiDSMLtoolcalsvkprg\x0b\u200b\uff1e\u{1F600}');
  for (let x = 0; x < 4300; x++) {
    const s = mutate(r, x < 4000 ? r.choice(TAGS.slice(0, BASE_TAGS)) : r.choice(TAGS.slice(BASE_TAGS)), alphabet);
    if (!s.startsWith('<')) continue;
    const step = s.length > 120 ? r.int(7, 23) : r.int(1, 4); // (long ones: the ends below)
    for (let end = 1; end <= s.length; end += step) checkTag(s.slice(0, end));
    for (let end = Math.max(1, s.length - 4); end <= s.length; end++) checkTag(s.slice(0, end));
  }
});

test('matchPlain: random tails after tag starts agree with matchGeneral', () => {
  const r = rng(16);
  const alphabet = Array.from(' \t\n<>/="|\uff5c\u201cabcdeilmnoprstvkDSML_-');
  for (let x = 0; x < 3000; x++) {
    let tail = '';
    const n = r.int(0, 40);
    for (let k = 0; k < n; k++) tail += r.choice(alphabet);
    for (const head of ['<', '</', '<|DSML|', '<|DSML|invoke', '<|DSML|parameter name="']) checkTag(head + tail);
  }
});


// ---- matchCdataOpen's plain and ASCII paths (shell.js) against the folding path ----------------

test('matchCdataOpen: the plain spelling and ASCII windows agree with the folding path', () => {
  const openers = [
    '<![CDATA[',
    '<![cdata[',
    '<!![CDATA[',
    '<![CDATA',
    '<!-[CDATA[',
    '<|DSML|tool_calls>',
    '<|[CDATA[',
    '<|\x01[CDATA[',
    '<\uff5c[\uff23\uff24\uff21\uff34\uff21[',
    '<::[CdAtA[',
    '<!\u200b[CDATA[',
    '<!\x7f[CDATA[',
    '<\u{1F600}[CDATA[',
    '<![CDA\u0422A[',
  ];
  const tails = ['', 'x', '\x00y', ']]>', '<![CDATA[', '\u200b[CDATA[', '\u{1F600}'.repeat(20), 'abcdefghijklmnopqrstuvwxyz'];
  const check = (s, i) => {
    for (const final of [false, true]) {
      assert.deepStrictEqual(shell.matchCdataOpen(s, i, final), shell.matchCdataGeneral(s, i, final), JSON.stringify([s, i, final]));
    }
  };
  for (const tail of tails) {
    for (const opener of openers) {
      const s = opener + tail;
      for (let end = 1; end <= s.length; end++) {
        check(s.slice(0, end), 0);
        check('x' + s.slice(0, end), 1);
      }
    }
  }
  const r = rng(11);
  const alphabet = Array.from('<![]CDATAcdata-|:\x01\x0b\u200b\uff3b\u{1F600} \t\n');
  for (let x = 0; x < 3000; x++) {
    const s = mutate(r, r.choice(openers) + r.choice(tails), alphabet);
    if (!s.startsWith('<')) continue;
    for (let end = 1; end <= s.length; end++) check(s.slice(0, end), 0);
  }
});
