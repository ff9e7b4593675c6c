'use strict';
/**
 * Seeded random model replies for the property tests: prose, fences, inline code, valid, noisy,
 * truncated and malformed blocks in every format. A small port of parity/docs.py (the parity
 * runner's generator) with shapes R16 cares about added: long values, entities, emoji, index
 * and repeated parameter names, reasoning. Same seed, same documents (not the same as Python's).
 */

const { mulberry32 } = require('./support');

const PROSE = [
  'Sure, let me check that.\n',
  '好的，我来看看。\n',
  'Done. ',
  'a < b and c > d ',
  '\n\n',
  '   ',
  'Use `ls` here. ',
  'stray ` tick ',
  'see <tool_calls> above ',
  '<invoke name="x"> in prose ',
  '&lt;tag&gt; ',
  ']]> ',
  'x',
  '\n',
  'emoji 💥 and ｜fullwidth｜ ',
  '<｜end▁of▁sentence｜>',
  '<think>a draft <|DSML|tool_calls></think>',
  '</think>',
  '\t```\n',
];
const SHELLS = [
  ['<|DSML|', '</|DSML|'],
  ['<|DSML|', '</|DSML|'],
  ['<', '</'],
  ['<DSML|', '</DSML|'],
  ['＜|DSML|', '＜／DSML|'],
  ['<｜DSML｜', '</｜DSML｜'],
  ['<proto💥', '</proto💥'],
];
const WRAPPERS = ['tool_calls', 'tool_calls', 'tool_calls', 'TOOL_CALLS', 'tool_calls_extra', 'function_calls', 'function_calls'];
const INVOKES = ['invoke', 'invoke', 'invoke', 'Invoke', 'invokes'];
const PARAMS = ['parameter', 'parameter', 'parameter', 'Parameter', 'param'];
const NAMES = ['read_file', 'Bash', 'write_file', 'search', 'noop', '', 'a b'];
const PNAMES = ['path', 'command', 'content', 'todos', 'q', 'items', 'n', '0', '1', '2', '__proto__'];
const VALUES = [
  'README.md',
  ' 42 ',
  'true',
  ' tru',
  'trueish',
  'null',
  '-1.5e3x',
  '12 34',
  '[1,2]',
  '{"a":1}',
  '"quoted"',
  '<![CDATA[raw <x> & y]]>',
  '<![CDATA[  keep  ]]>',
  '<![CDATA[a]]> b',
  '  <![CDATA[x]]>  ',
  '<![CDATA[x]]><![CDATA[y]]>',
  '<![CDATA[unclosed',
  '<item>a</item><item>b</item>',
  '&lt;b&gt; &amp; &#60;',
  '&#x1F4A5; and &#128165;',
  'a &amp b &#x4',
  '',
  '   ',
  '中文',
  'emoji 💥💥 end',
  'line one\nline two\t\n',
  'say "hi" \\ back',
  '<![CDATA[echo `date`]]>',
  '<br>x<br/>',
  'x'.repeat(300),
  'a ' + 'long value '.repeat(40) + ' ',
];
const OPEN_ENDS = ['>', '>', '>\n', '|', ' id="1">'];
const STRING_ATTRS = ['', '', '', ' string="true"', ' string="false"', ' string="TRUE"'];
const M = {
  callsBegin: '<｜tool▁calls▁begin｜>',
  callsEnd: '<｜tool▁calls▁end｜>',
  callBegin: '<｜tool▁call▁begin｜>',
  callEnd: '<｜tool▁call▁end｜>',
  sep: '<｜tool▁sep｜>',
  eos: '<｜end▁of▁sentence｜>',
};
const ARGS = ['{"city": "Paris"}', '{}', '', '{"q": "x<y"}', '{bad', '[1]'];
const MUTATIONS = ['<', '>', '`', '\n', ']]>', ' ', '/', '"', '```\n'];

function helpers(rng) {
  const choice = (a) => a[Math.floor(rng() * a.length)];
  const randint = (lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));
  return { choice, randint };
}

function mutate(text, rng, extra = []) {
  const { choice } = helpers(rng);
  for (let k = choice([0, 0, 0, 1, 2]); k > 0 && text; k--) {
    const i = Math.floor(rng() * text.length);
    const r = rng();
    if (r < 0.3) text = text.slice(0, i);
    else if (r < 0.6) text = text.slice(0, i) + text.slice(i + 1);
    else text = text.slice(0, i) + choice([...MUTATIONS, ...extra]) + text.slice(i);
  }
  return text;
}

function block(rng) {
  const { choice, randint } = helpers(rng);
  const [o, c] = choice(SHELLS);
  const w = choice(WRAPPERS);
  const parts = rng() < 0.1 ? [] : [o + w + choice(OPEN_ENDS)];
  for (let i = randint(0, 3); i > 0; i--) {
    const inv = choice(INVOKES);
    parts.push(`${o}${inv} name="${choice(NAMES)}">`);
    if (rng() < 0.1) parts.push('{"input": {"a": 1}}');
    for (let j = randint(0, 3); j > 0; j--) {
      const p = choice(PARAMS);
      parts.push(`${o}${p} name="${choice(PNAMES)}"${choice(STRING_ATTRS)}>${choice(VALUES)}${c}${p}>`);
    }
    parts.push(`${c}${inv}>\n`);
  }
  if (rng() < 0.85) parts.push(`${c}${w}>`);
  return mutate(parts.join(''), rng);
}

function section(rng) {
  const { choice, randint } = helpers(rng);
  const parts = [choice([M.callsBegin, M.callsBegin, '<｜tool▁calls｜>'])];
  for (let i = randint(0, 3); i > 0; i--) {
    const name = choice(NAMES);
    const args = choice(ARGS);
    if (rng() < 0.5) parts.push(`${M.callBegin}${name}${M.sep}${args}${M.callEnd}`);
    else parts.push(`${M.callBegin}function${M.sep}${name}\n\`\`\`json\n${args}\n\`\`\`${M.callEnd}`);
    parts.push(choice(['', '', '\n', ' ']));
  }
  const r = rng();
  if (r < 0.75) parts.push(M.callsEnd);
  else if (r < 0.85) parts.push(M.eos);
  return mutate(parts.join(''), rng, Object.values(M));
}

/** One random reply. */
function document(rng) {
  const { choice, randint } = helpers(rng);
  const out = [];
  for (let i = randint(0, 7); i > 0; i--) {
    const r = rng();
    if (r < 0.4) out.push(choice(PROSE));
    else if (r < 0.7) out.push(block(rng));
    else if (r < 0.8) out.push(section(rng));
    else if (r < 0.92) {
      const fence = choice(['```', '~~~', '  ```']);
      const inner = rng() < 0.7 ? block(rng) : section(rng);
      out.push(`${fence}xml\n${inner}\n` + (rng() < 0.8 ? `${fence.trim()}\n` : ''));
    } else {
      const ticks = choice(['`', '``']);
      out.push(`${ticks}${block(rng)}${ticks}`);
    }
  }
  return out.join('');
}

/** `count` documents from `seed`. */
function documents(count, seed) {
  const rng = mulberry32(seed);
  const out = [];
  for (let i = 0; i < count; i++) out.push(document(rng));
  return out;
}

module.exports = { document, documents };
