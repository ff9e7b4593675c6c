'use strict';
/**
 * The data the Python and Node sieves share: markers, keywords, limits, character and fold tables.
 * GENERATED from the python/callsieve modules named below by scripts/build/gen_tables.py. Do not
 * edit; edit the Python module and run the script. A name defined in two modules carries the
 * module's name (SHELL_MAX_HEAD is shell.py's MAX_HEAD).
 */

// python/callsieve/strings.py
// D10: the whitespace JavaScript's String.prototype.trim removes.
const JS_SPACE = ' \t\n\x0b\x0c\r\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';

// python/callsieve/shell.py
const MAX_TAG = 512; // a tool tag longer than this is not a tool tag
const SHELL_MAX_HEAD = 64; // shell.MAX_HEAD: prefix noise + local name
const MAX_PREFIX = 32;
const MAX_LEAD = 8; // repeated leading open angles (R2.3) a tag may have
const FOLD = new Map(
  [
    ['a', 'A\u03b1\u0410\u0430\uff21\uff41'], // AαАаＡａ
    ['b', 'B\u0392\u0412\u0432\uff22\uff42'], // BΒВвＢｂ
    ['c', 'C\u03f2\u0421\u0441\uff23\uff43'], // CϲСсＣｃ
    ['d', 'D\u0501\uff24\uff44'], // DԁＤｄ
    ['e', 'E\u0395\u03b5\u0415\u0435\uff25\uff45'], // EΕεЕеＥｅ
    ['f', 'F\uff26\uff46'], // FＦｆ
    ['g', 'G\uff27\uff47'], // GＧｇ
    ['h', 'H\u0397\u041d\u04bb\uff28\uff48'], // HΗНһＨｈ
    ['i', 'I\u0399\u03b9\u0406\u0456\uff29\uff49'], // IΙιІіＩｉ
    ['j', 'J\u0408\u0458\uff2a\uff4a'], // JЈјＪｊ
    ['k', 'K\u039a\u03ba\u041a\u043a\uff2b\uff4b'], // KΚκКкＫｋ
    ['l', 'L\u04cf\uff2c\uff4c'], // LӏＬｌ
    ['m', 'M\u039c\u041c\u043c\uff2d\uff4d'], // MΜМмＭｍ
    ['n', 'N\u039d\u041f\u043f\uff2e\uff4e'], // NΝПпＮｎ
    ['o', 'O\u039f\u03bf\u041e\u043e\uff2f\uff4f'], // OΟοОоＯｏ
    ['p', 'P\u03a1\u03c1\u0420\u0440\uff30\uff50'], // PΡρРрＰｐ
    ['q', 'Q\uff31\uff51'], // QＱｑ
    ['r', 'R\uff32\uff52'], // RＲｒ
    ['s', 'S\u0405\u0455\uff33\uff53'], // SЅѕＳｓ
    ['t', 'T\u03a4\u03c4\u0422\u0442\uff34\uff54'], // TΤτТтＴｔ
    ['u', 'U\u03c5\uff35\uff55'], // UυＵｕ
    ['v', 'V\u03bd\uff36\uff56'], // VνＶｖ
    ['w', 'W\uff37\uff57'], // WＷｗ
    ['x', 'X\u03a7\u03c7\u0425\u0445\uff38\uff58'], // XΧχХхＸｘ
    ['y', 'Y\u03a5\u03b3\u0423\u0443\uff39\uff59'], // YΥγУуＹｙ
    ['z', 'Z\u0396\uff3a\uff5a'], // ZΖＺｚ
    ['!', '\uff01'], // ！
    ['"', '\u201c\u201d\u201e\u201f\u2033\uff02'], // “”„‟″＂
    ['#', '\uff03'], // ＃
    ['$', '\uff04'], // ＄
    ['%', '\uff05'], // ％
    ['&', '\uff06'], // ＆
    ['\'', '\u2018\u2019\u201a\u201b\u2032\uff07'], // ‘’‚‛′＇
    ['(', '\uff08'], // （
    [')', '\uff09'], // ）
    ['*', '\uff0a'], // ＊
    ['+', '\uff0b'], // ＋
    [',', '\uff0c'], // ，
    ['-', '\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d'], // ‐‑‒–—―−﹣－
    ['.', '\uff0e'], // ．
    ['/', '\uff0f'], // ／
    ['0', '\uff10'], // ０
    ['1', '\uff11'], // １
    ['2', '\uff12'], // ２
    ['3', '\uff13'], // ３
    ['4', '\uff14'], // ４
    ['5', '\uff15'], // ５
    ['6', '\uff16'], // ６
    ['7', '\uff17'], // ７
    ['8', '\uff18'], // ８
    ['9', '\uff19'], // ９
    [':', '\uff1a'], // ：
    [';', '\uff1b'], // ；
    ['<', '\u3008\u300a\uff1c'], // 〈《＜
    ['=', '\uff1d'], // ＝
    ['>', '\u3009\u300b\uff1e'], // 〉》＞
    ['?', '\uff1f'], // ？
    ['@', '\uff20'], // ＠
    ['[', '\uff3b'], // ［
    ['\\', '\uff3c'], // ＼
    [']', '\uff3d'], // ］
    ['^', '\uff3e'], // ＾
    ['_', '\ufe4d\ufe4e\ufe4f\uff3f'], // ﹍﹎﹏＿
    ['`', '\uff40'], // ｀
    ['{', '\uff5b'], // ｛
    ['|', '\uff5c'], // ｜
    ['}', '\uff5d'], // ｝
    ['~', '\uff5e'], // ～
    [null, '\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f\xad\u200b\u200c\u200d\u200e\u200f\u2060\ufeff'],
    [' ', '\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u2402\u2581\u3000'],
  ].flatMap(([to, chars]) => Array.from(chars, (c) => [c.codePointAt(0), to])),
);
const OPEN_ANGLES = '<\uff1c\u3008\u300a'; // <＜〈《
const CLOSE_ANGLES = '>\uff1e\u3009\u300b'; // >＞〉》
// Characters that end the head of a tag (prefix noise + local name + attribute names).
const STOP_CHARS = '\n\r<>="\'`,.;()[]{}*&^%$#@?+\\~\uff1c\uff1e\u3008\u3009\u300a\u300b\uff1d\u201c\u201d\u2018\u2019\uff02\uff07';
const KEYWORD_RE = new RegExp('(tool_calls|toolcalls|tool-calls|invoke|parameter)(?![a-z0-9_-])');
// R14.1: the native DSML wrapper (`function_calls`) too.
const KEYWORD_NATIVE_RE = new RegExp('(tool_calls|toolcalls|tool-calls|function_calls|functioncalls|function-calls|invoke|parameter)(?![a-z0-9_-])');
const KEYWORD_ONLY_NATIVE_RE = new RegExp('(function_calls|functioncalls|function-calls|invoke|parameter)(?![a-z0-9_-])');
const SPACE = '\t\n\x0b\x0c\r ';
const WRAPPER = 'tool_calls';
const INVOKE = 'invoke';
const PARAMETER = 'parameter';
const NOT_CDATA_SEP = '\t\n "\'/0123456789<=>ABCDEFGHIJKLMNOPQRSTUVWXYZ[]abcdefghijklmnopqrstuvwxyz';

// python/callsieve/sections.py
const SECTION_BEGIN = 'section_begin';
const SECTION_END = 'section_end';
const CALL_BEGIN = 'call_begin';
const CALL_END = 'call_end';
const SEP = 'sep';
const EOS = 'eos';
const MARKERS = [
  ['<\uff5ctool\u2581calls\u2581begin\uff5c>', 'section_begin'],
  ['<\uff5ctool\u2581calls\u2581end\uff5c>', 'section_end'],
  ['<\uff5ctool\u2581call\u2581begin\uff5c>', 'call_begin'],
  ['<\uff5ctool\u2581call\u2581end\uff5c>', 'call_end'],
  ['<\uff5ctool\u2581sep\uff5c>', 'sep'],
  ['<\uff5cend\u2581of\u2581sentence\uff5c>', 'eos'],
  ['<\uff5ctool\u2581calls\uff5c>', 'section_begin'],
];
const SECTIONS_MAX_MARKER = 20; // sections.MAX_MARKER
const BARS = '\uff5c|'; // ｜|
const SECTIONS_MAX_HEAD = 512; // sections.MAX_HEAD: a call head (the name, or `function`) longer than this is not a call

// python/callsieve/harmony.py
const START = '<|start|>';
const CHANNEL = '<|channel|>';
const MESSAGE = '<|message|>';
const ENDS = ['<|end|>', '<|call|>', '<|return|>'];
const OPENERS = ['<|start|>', '<|channel|>'];
// What ends a body: an end token (consumed) or the next message's opener (left for TEXT).
const BODY_MARKERS = ['<|end|>', '<|call|>', '<|return|>', '<|start|>', '<|channel|>'];
const HARMONY_MAX_MARKER = 11; // harmony._MAX_MARKER
const MAX_HEADER = 256;

// python/callsieve/mistral.py
const MARKER = '[TOOL_CALLS]';
const ARGS = '[ARGS]';
const CALL_ID = '[CALL_ID]';
const MISTRAL_MAX_HEAD = 256; // mistral.MAX_HEAD

// python/callsieve/pylist.py
const PYLIST_MAX_HEAD = 256; // pylist.MAX_HEAD

// python/callsieve/reasoning.py
const REASONING_MODES = ['off', 'auto', 'open'];
const OPEN = '<think>';
const CLOSE = '</think>';

// python/callsieve/values.py
// R6.5: parameters whose value is raw text whatever it holds.
const RAW_TEXT_NAMES = new Set([
  'cmd',
  'code',
  'command',
  'content',
  'file_content',
  'file_path',
  'new_string',
  'old_string',
  'path',
  'pattern',
  'prompt',
  'query',
  'script',
  'text',
]);
const ENTITY_RE = new RegExp('&(lt|gt|amp|quot|apos|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});', 'g');
const NAMED = { lt: '<', gt: '>', amp: '&', quot: '"', apos: '\'' };
const VALUES_JSON_START = '"-0123456789[fnt{'; // values._JSON_START
const VALUES_MAX_DEPTH = 200; // values.MAX_DEPTH: D21: JSON or XML values nested deeper stay strings

// python/callsieve/arguments.py
const ARGUMENTS_JSON_START = '"-0123456789[fnt{'; // arguments._JSON_START
const NUMBER_CHARS = '+-.0123456789Ee';
const LITERALS = ['true', 'false', 'null'];
const ENTITY_SPAN = 9; // `&#x10FFFF` before its `;`: the longest partial entity (D13)

// python/callsieve/names.py
const SEPARATORS = new RegExp('[\\u0000-\\u002f\\u003a-\\u0040\\u005b-\\u0060\\u007b-\\u007f\\u00a0\\u00b7\\u1680\\u2000-\\u200a\\u2010-\\u2015\\u2028-\\u2029\\u202f\\u205f\\u3000-\\u3002\\u30fb\\ufeff\\uff01-\\uff0f\\uff1a-\\uff20\\uff3b-\\uff40\\uff5b-\\uff65]');

// python/callsieve/blocks.py
// A tool name as the block formats write it: no blank, no markup, not prose (one class in every
// runtime: JavaScript's blanks, not the regex engine's idea of a blank).
const NOT_NAME = ' \t\n\x0b\x0c\r\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff<>"\'`{}[],;';
const NAME_MAX = 256; // code points of a tool name, in every grammar and tap
const FN = '<function=';
const FN_END = '</function>';
const P = '<parameter=';
const P_END = '</parameter>';
const K = '<arg_key>';
const K_END = '</arg_key>';
const V = '<arg_value>';
const V_END = '</arg_value>';
// `name="N"`, `name='N'` or a bare `name=N`: at most NAME_MAX characters, on one line.
const ATTR = 'name=(?:"([^"<>\\n]{0,256})"|\'([^\'<>\\n]{0,256})\'|([^ \\t\\n\\r"\'<>]{1,256}))[ \\t]*>';
const INV_END = '</invoke>';
const PARAM_END = '</parameter>';
const KB = '<|tool_call_begin|>';
const KA = '<|tool_call_argument_begin|>';
const KE = '<|tool_call_end|>';
const ESCAPES = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  '\'': '\'',
  '"': '"',
  a: '\x07',
  b: '\x08',
  f: '\x0c',
  v: '\x0b',
};
const BLOCKS_MAX_DEPTH = 100; // blocks.MAX_DEPTH

// python/callsieve/prompt.py
const MARKUP = new Map([
  ['<', '\u2039'],
  ['\uff1c', '\u2039'],
  ['\ufe64', '\u2039'],
  ['\u2329', '\u2039'],
  ['\u3008', '\u2039'],
  ['\u300a', '\xab'],
  ['\uff5c', '\xa6'],
]);
const MAX_EXAMPLE_NAME = 200; // well inside a tag's length limit
const HEADER =
  '# Tools\n' +
  '\n' +
  'You can call the tools listed below. To call tools, write one block in exactly this form,\n' +
  'outside any code fence or inline code:\n' +
  '\n' +
  '<|DSML|tool_calls>\n' +
  '<|DSML|invoke name="TOOL_NAME">\n' +
  '<|DSML|parameter name="STRING_PARAMETER"><![CDATA[text, written as it is]]></|DSML|parameter>\n' +
  '<|DSML|parameter name="OTHER_PARAMETER">42</|DSML|parameter>\n' +
  '</|DSML|invoke>\n' +
  '</|DSML|tool_calls>\n' +
  '\n' +
  'Rules:\n' +
  '- Use the tool names and parameter names exactly as listed below.\n' +
  '- Write string values inside <![CDATA[ and ]]>, exactly as they are: no escaping, no quotes.\n' +
  '- Write numbers, true, false, null, arrays and objects as JSON, without CDATA.\n' +
  '- Give every required parameter; leave out optional parameters you do not need.\n' +
  '- Never give a blank or placeholder value (an empty string, "...", "TODO"): every parameter you\n' +
  '  write holds its real value. The "..." in the examples below only marks where a value goes.\n' +
  '- A shell command goes in the command parameter, whole, as one string.\n' +
  '- To call several tools at once, put several invoke elements in one tool_calls block.\n' +
  '- A block inside a code fence or inline code is shown as text and never runs.\n' +
  '- After the block, stop: the results come in the next message.';

// python/callsieve/fences.py
const RUNS = { '`': new RegExp('`+', 'y'), '~': new RegExp('~+', 'y') };
const BLANKS = new RegExp('[ \\t\\r]*', 'y');

// python/callsieve/prose.py
const SPECIAL = new RegExp('[\\n`<\uff1c\u3008\u300a]', 'g');
const SPECIAL_JSON = new RegExp('[\\n`<\uff1c\u3008\u300a{]', 'g');
// With a format whose opener starts with `[` (Mistral's `[TOOL_CALLS]`), prose stops there too.
const SPECIAL_BR = new RegExp('[\\n`<\uff1c\u3008\u300a\\[]', 'g');
const SPECIAL_JSON_BR = new RegExp('[\\n`<\uff1c\u3008\u300a{\\[]', 'g');
const ANGLE = new RegExp('[<\uff1c\u3008\u300a]', 'g');
// Ignored regions in prose (R5, D40-D42): kind -> (closer, a partial closer at the end of input).
const REGIONS = {
  cdata: [
    new RegExp('\\]\\][>\uff1e\u3009]', 'g'),
    new RegExp('\\]\\]?$', 'g'),
  ],
  comment: [new RegExp('-->', 'g'), new RegExp('--?$', 'g')],
  pre: [
    new RegExp('</pre>', 'gi'),
    new RegExp('<(?:/(?:p(?:r(?:e)?)?)?)?$', 'gi'),
  ],
};
const PRE_OPEN = new RegExp('<pre(?=[ \\t\\r\\n>])', 'iy');
const PRE_PREFIX = new RegExp('<(?:p(?:r(?:e)?)?)?$', 'iy');
const COMMENT_PREFIX = new RegExp('<(?:!(?:-)?)?$', 'y');

// python/callsieve/dsml.py
const CD_SPECIAL = new RegExp('\\]\\]|\\n {0,3}[`~]|[<\uff1c\u3008\u300a][!\uff01\u3001]', 'g');
const CD_TAIL = new RegExp('(?:\\n {0,3}|\\]|[<\uff1c\u3008\u300a])$', 'g');
const LOOSE_CLOSE_TAIL = new RegExp('\\]\\][>\uff1e\u3009][ \\t\\r\\n]*$');
// DeepSeek's own shell (R14.1): a `tool_calls` block written in it is the model's, not the seed's
// dialect, so its malformed calls are reported (D59).
const NATIVE_SHELL = '<\uff5cDSML\uff5c'; // <｜DSML｜

// python/callsieve/scanner.py
// R9: a JSON candidate is `{` + a first key that starts a tool call object or a chat
// message (R9.2: text with what it holds), by a bounded lookahead.
const SCANNER_JSON_START = new RegExp('\\{[ \\t\\r\\n]{0,16}"(tool_calls|name|function|type|id|role|content)"', 'y'); // scanner._JSON_START
const JSON_START_PREFIX = new RegExp('\\{[ \\t\\r\\n]{0,16}(?:"[a-z_]{0,10})?$', 'y');
const JSON_OUT = new RegExp('["{}\\[\\]]', 'g');
const JSON_IN = new RegExp('["\\\\]', 'g');
const FN_TAG = '<function='; // D45: how a `<tool_call>` body that is Qwen3-Coder's starts

module.exports = {
  JS_SPACE, MAX_TAG, SHELL_MAX_HEAD, MAX_PREFIX, MAX_LEAD, FOLD, OPEN_ANGLES, CLOSE_ANGLES,
  STOP_CHARS, KEYWORD_RE, KEYWORD_NATIVE_RE, KEYWORD_ONLY_NATIVE_RE, SPACE, WRAPPER, INVOKE,
  PARAMETER, NOT_CDATA_SEP, SECTION_BEGIN, SECTION_END, CALL_BEGIN, CALL_END, SEP, EOS, MARKERS,
  SECTIONS_MAX_MARKER, BARS, SECTIONS_MAX_HEAD, START, CHANNEL, MESSAGE, ENDS, OPENERS,
  BODY_MARKERS, HARMONY_MAX_MARKER, MAX_HEADER, MARKER, ARGS, CALL_ID, MISTRAL_MAX_HEAD,
  PYLIST_MAX_HEAD, REASONING_MODES, OPEN, CLOSE, RAW_TEXT_NAMES, ENTITY_RE, NAMED,
  VALUES_JSON_START, VALUES_MAX_DEPTH, ARGUMENTS_JSON_START, NUMBER_CHARS, LITERALS, ENTITY_SPAN,
  SEPARATORS, NOT_NAME, NAME_MAX, FN, FN_END, P, P_END, K, K_END, V, V_END, ATTR, INV_END,
  PARAM_END, KB, KA, KE, ESCAPES, BLOCKS_MAX_DEPTH, MARKUP, MAX_EXAMPLE_NAME, HEADER, RUNS,
  BLANKS, SPECIAL, SPECIAL_JSON, SPECIAL_BR, SPECIAL_JSON_BR, ANGLE, REGIONS, PRE_OPEN,
  PRE_PREFIX, COMMENT_PREFIX, CD_SPECIAL, CD_TAIL, LOOSE_CLOSE_TAIL, NATIVE_SHELL,
  SCANNER_JSON_START, JSON_START_PREFIX, JSON_OUT, JSON_IN, FN_TAG,
};
