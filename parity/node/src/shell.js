'use strict';
/**
 * Recognizers for the tool-tag shell (R1-R2) and CDATA openers (R5.5).
 * Port of python/callsieve/shell.py.
 *
 * Each recognizer looks at `s[i:]` and answers MORE (the text so far could still become the
 * construct: wait for more input), NO, or a match with its end. They only look a bounded distance
 * ahead (`MAX_TAG` characters), so calling one again after more input arrived is cheap.
 *
 * Indices are UTF-16 code units (JS strings); every *count limit* and every character
 * classification works on code points, as Python does.
 */

const MORE = 'MORE';
const NO = 'NO';

// The limits, the fold table (R2.4), the angles, the stop characters and the tag keywords are
// generated from shell.py (tables.js).
const {
  MAX_TAG,
  SHELL_MAX_HEAD: MAX_HEAD,
  MAX_PREFIX,
  MAX_LEAD,
  FOLD, // code point -> replacement string, or null (deleted); absent: unchanged
  OPEN_ANGLES,
  CLOSE_ANGLES,
  STOP_CHARS,
  KEYWORD_RE,
  KEYWORD_NATIVE_RE,
  KEYWORD_ONLY_NATIVE_RE,
  SPACE,
  WRAPPER,
  INVOKE,
  PARAMETER,
  NOT_CDATA_SEP,
} = require('./tables');

const ANGLES_RUN = new RegExp('[' + escapeClass(OPEN_ANGLES) + ']+', 'y');

/** End of the run of open angles at `s[i]`. */
function anglesRunEnd(s, i) {
  ANGLES_RUN.lastIndex = i;
  const m = ANGLES_RUN.exec(s);
  return m === null ? i : i + m[0].length;
}

// Python's str.isspace() set (Unicode White_Space minus nothing; includes \x1c-\x1f and \x85).
const PY_SPACE_CLASS = '\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_SPACE_CHAR_RE = new RegExp('^[' + PY_SPACE_CLASS + ']$', 'u');
const PY_BLANK_RE = new RegExp('^[' + PY_SPACE_CLASS + ']*$', 'u');
// Python str.isalnum() for one character (see PORT_NOTES: Unicode version of the runtime).
const ALNUM_RE = /^[\p{L}\p{N}]$/u;

function escapeClass(s) {
  return s.replace(/[\\\]\[^-]/g, (c) => '\\' + c);
}

// STOP_CHARS end the head of a tag (prefix noise + local name + attribute names).
const HEAD_RE = new RegExp('[^' + escapeClass(STOP_CHARS) + ']{0,' + (MAX_HEAD + 1) + '}', 'uy');
const ATTR_NAME_RE = /^[a-z_][a-z0-9_:.-]*/;

/** The code point at `s[k]` as a string of 1 or 2 code units (a lone surrogate stays 1). */
function charAt(s, k) {
  const c = s.charCodeAt(k);
  if (c >= 0xd800 && c <= 0xdbff && k + 1 < s.length) {
    const d = s.charCodeAt(k + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return s.slice(k, k + 2);
  }
  return s[k];
}

/** Number of code points in `s`. */
function cpLen(s) {
  let n = s.length;
  for (let k = 0; k + 1 < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(k + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        k++;
      }
    }
  }
  return n;
}

/** FOLD.get(ord(ch), ch) for one code point `ch`: the folded string, or null (deleted). */
function fold1(ch) {
  const f = FOLD.get(ch.codePointAt(0));
  return f === undefined ? ch : f;
}

function fold(s) {
  let out = '';
  for (const ch of s) {
    const f = FOLD.get(ch.codePointAt(0));
    if (f === undefined) out += ch;
    else if (f !== null) out += f;
  }
  return out;
}

/** Fold `span`; for each code unit of the folded string, its index (code units) in `span`. */
function foldMap(span) {
  let out = '';
  const idx = [];
  let k = 0;
  while (k < span.length) {
    const ch = charAt(span, k);
    const f = fold1(ch);
    if (f !== null) {
      out += f;
      for (let u = 0; u < f.length; u++) idx.push(k + u);
    }
    k += ch.length;
  }
  return [out, idx];
}

/** R2.6: a non-structural separator: not ASCII alnum, not whitespace, not `< > / = " '`. */
function isTrailingSep(f) {
  if (!f || PY_SPACE_CHAR_RE.test(f)) return false;
  if (f.codePointAt(0) < 0x80) return f === '|' || f === '!';
  return !ALNUM_RE.test(f) && !CLOSE_ANGLES.includes(f) && !OPEN_ANGLES.includes(f);
}

/**
 * A recognized tool tag; `string` is the value of the `string` attribute (R14.2), as written;
 * `format` a wrapper's format row (D58: `function_calls` for that name, else `dsml`), '' for the others.
 */
function tag(local, closing, name, selfClosing, end, string = null, format = '') {
  return { local, closing, name, selfClosing, end, string, format };
}

/** The format row a wrapper's name belongs to (D58): `function_calls` (R14.1) or `dsml`. */
function wrapperFormat(word) {
  return word.startsWith('function') ? 'function_calls' : 'dsml';
}

const KEYWORDS_SEED = KEYWORD_RE;
const KEYWORDS_ALL = KEYWORD_NATIVE_RE;
const KEYWORDS_NATIVE = KEYWORD_ONLY_NATIVE_RE;

/**
 * Recognize a tool tag starting at `s[i]` (an open angle). Returns a Tag, MORE or NO.
 * `keywords` says which local names are tags (the formats in use, R14.9).
 */
function matchTag(s, i, final, keywords = KEYWORD_RE) {
  if (s.charCodeAt(i) === 0x3c) {
    const fast = matchPlain(s, i, final, keywords);
    if (fast !== null) return fast;
  }
  return matchGeneral(s, i, final, keywords);
}

/** matchTag for every spelling: open angles, then the head and the attributes. */
function matchGeneral(s, i, final, keywords) {
  const n = s.length;
  const j = anglesRunEnd(s, i);
  if (j - i > MAX_LEAD) return NO;
  if (j === n) return final ? NO : MORE;
  if (fold1(charAt(s, j)) === '/' && j + 1 < n && OPEN_ANGLES.includes(s[j + 1])) {
    // D15: a closing tag may repeat its open angles after the slash (`</<|DSML|parameter>`).
    const k = anglesRunEnd(s, j + 1);
    if (k - j - 1 > MAX_LEAD) return NO;
    if (k === n) return final ? NO : MORE;
    const r = matchHead(s, k, final, keywords);
    if (isTag(r) && !r.closing) return tag(r.local, true, r.name, r.selfClosing, r.end, r.string, r.format);
    return isTag(r) ? NO : r;
  }
  return matchHead(s, j, final, keywords);
}

function isTag(r) {
  return r !== null && typeof r === 'object';
}

// The tags models write, spelled plainly (ASCII but the bars, one `<`, double-quoted values, no
// character that folding changes or drops): one regex decides them, complete or cut by the end of
// the input, with the answer matchGeneral gives (test/core/fast-paths-shell.test.js holds it to that).
// Every run is bounded, so one call scans a bounded span whatever follows. Counts are code units
// (Python's are code points): a JS match is never longer than Python's, so the regex declines a
// few more spellings, never decides one Python's declines.
const PLAIN_SP = '[ \\t\\n\\r]';
const PLAIN_WSP = PLAIN_SP + '{0,512}';
const PLAIN_WSP1 = PLAIN_SP + '{1,512}';
const PLAIN_NAME = '[A-Za-z_][A-Za-z0-9_:.\\-]{0,39}';
const PLAIN_VALUE = '[^"\\n\\u201c\\u201d\\u201e\\u201f\\u2033\\uff02]{0,513}'; // what folds to `"` ends a value (R2.4)
const PLAIN_TAG = new RegExp(
  '<\\/?(?:[|\\uff5c][Dd][Ss][Mm][Ll][|\\uff5c])?' +
    '(?:[Tt][Oo][Oo][Ll]_?[Cc][Aa][Ll][Ll][Ss]|[Ff][Uu][Nn][Cc][Tt][Ii][Oo][Nn]_?[Cc][Aa][Ll][Ll][Ss]|' +
    '[Ii][Nn][Vv][Oo][Kk][Ee]|[Pp][Aa][Rr][Aa][Mm][Ee][Tt][Ee][Rr])' +
    '(?:(?:' + PLAIN_WSP1 + PLAIN_NAME + PLAIN_WSP + '=' + PLAIN_WSP + '"' + PLAIN_VALUE + '"){0,100})' +
    '(?:' + PLAIN_WSP + '\\/?(>)' + // complete, or cut by the end of the input:
    '|(?:' + PLAIN_WSP1 + PLAIN_NAME + '(?:' + PLAIN_WSP + '=' + PLAIN_WSP + '(?:"' + PLAIN_VALUE + ')?)?|' +
    PLAIN_WSP + '\\/?)$)',
  'y',
);
const PLAIN_ATTR = new RegExp(PLAIN_WSP1 + '(' + PLAIN_NAME + ')' + PLAIN_WSP + '=' + PLAIN_WSP + '"(' + PLAIN_VALUE + ')"', 'y');
const HEAD_TO_END = new RegExp('<[^' + escapeClass(STOP_CHARS) + ']{0,' + MAX_HEAD + '}$', 'y');
const HEAD_LEN = new RegExp('[^' + escapeClass(STOP_CHARS) + ']{0,' + (MAX_HEAD + 1) + '}', 'y');

/** Does `keywords` match all of `word` (Python's fullmatch)? Remembered: the words are few. */
function isKeyword(keywords, word) {
  let known = KEYWORD_WORDS.get(keywords);
  if (known === undefined) {
    known = new Map();
    KEYWORD_WORDS.set(keywords, known);
  }
  let yes = known.get(word);
  if (yes === undefined) {
    const m = keywords.exec(word);
    yes = m !== null && m.index === 0 && m[0].length === word.length;
    known.set(word, yes);
  }
  return yes;
}
const KEYWORD_WORDS = new Map(); // keywords regex -> (plainWord -> isKeyword)

/** matchTag for a plainly spelled tag at `s[i]` (`<`); null: ask matchGeneral. */
function matchPlain(s, i, final, keywords) {
  PLAIN_TAG.lastIndex = i;
  if (!PLAIN_TAG.test(s)) {
    if (!final && s.length - i <= MAX_HEAD + 1) {
      HEAD_TO_END.lastIndex = i;
      if (HEAD_TO_END.test(s)) return MORE; // the head has not ended: any head waits (see matchHead)
    }
    return null;
  }
  // (Python asks HEAD_TO_END first: a head that has not ended has no `>`, so the regex matched a
  // cut tag, and the answer below is MORE, or null and matchGeneral's MORE.) What the regex
  // matched is read off the text, without a match object: the optional slash and bars, the local
  // name, then the attributes one by one.
  const end = PLAIN_TAG.lastIndex;
  const slash = s.charCodeAt(i + 1) === 0x2f ? 1 : 0;
  const bar = s.charCodeAt(i + 1 + slash);
  const start = i + 1 + slash + (bar === 0x7c || bar === 0xff5c ? 6 : 0);
  const word = plainWord(s, start);
  const wordEnd = start + word.length;
  if (end - wordEnd > MAX_TAG) return null;
  // (a head ends at its first stop character, the tag's `>` at the latest, or at the end of the
  // input: one in a match of at most MAX_HEAD + 1 characters is short enough)
  if (end - i > MAX_HEAD + 1) {
    HEAD_LEN.lastIndex = i + 1;
    HEAD_LEN.test(s);
    if (HEAD_LEN.lastIndex - i - 1 > MAX_HEAD) return null;
  }
  if (!isKeyword(keywords, word)) return null;
  // Complete, or cut by the end of the input (which a match that ends before it is not; one that
  // ends there with a `>` may be either: a value may hold a `>`, so the regex's group says)
  let complete = end < s.length;
  if (!complete && s.charCodeAt(end - 1) === 0x3e) {
    PLAIN_TAG.lastIndex = i;
    complete = PLAIN_TAG.exec(s)[1] !== undefined;
  }
  if (!complete) return final ? null : MORE;
  let name = null;
  let string = null;
  PLAIN_ATTR.lastIndex = wordEnd; // (the attributes the regex matched, and no more: none follows)
  for (let a = PLAIN_ATTR.exec(s); a !== null; a = PLAIN_ATTR.exec(s)) {
    const attr = a[1].toLowerCase();
    if (attr === 'name' && name === null) name = a[2];
    else if (attr === 'string' && string === null) string = a[2];
  }
  // (a `/` right before the `>` is the self-closing one: attributes end with `"`, the name with a letter)
  const local = word.endsWith('calls') ? WRAPPER : word;
  const fmt = local === WRAPPER ? wrapperFormat(word) : '';
  return tag(local, slash === 1, name, s.charCodeAt(end - 2) === 0x2f, end, string, fmt);
}

/** The local name PLAIN_TAG matched at `s[start]`, lowercased (the regex allows only these). */
function plainWord(s, start) {
  const c = s.charCodeAt(start) | 0x20;
  if (c === 0x74) return s.charCodeAt(start + 4) === 0x5f ? 'tool_calls' : 'toolcalls';
  if (c === 0x66) return s.charCodeAt(start + 8) === 0x5f ? 'function_calls' : 'functioncalls';
  return c === 0x69 ? 'invoke' : 'parameter';
}

/** The head of a tag after its open angles: prefix noise, local name, then attributes. */
function matchHead(s, j, final, keywords) {
  const n = s.length;
  HEAD_RE.lastIndex = j;
  const m = HEAD_RE.exec(s);
  const headEnd = j + m[0].length;
  if (cpLen(m[0]) > MAX_HEAD) return NO;
  if (headEnd === n && !final) return MORE;
  const [folded, idx] = foldMap(m[0]);
  if (!folded || SPACE.includes(folded[0])) return NO;
  const km = keywords.exec(folded);
  if (km === null) return NO;
  const prefix = folded.slice(0, km.index);
  if (cpLen(prefix) > MAX_PREFIX || prefix.split('/').length - 1 > 1) return NO;
  const closing = prefix.includes('/');
  const prefixNoslash = prefix.replace(/\//g, '');
  const word = km[1];
  if (word.endsWith('-calls') && PY_BLANK_RE.test(prefixNoslash)) return NO;
  const local = word.endsWith('calls') ? WRAPPER : word;
  // Original index just past the keyword.
  const k = j + idx[km.index + km[0].length - 1] + 1;
  return matchAttrs(s, k, local, closing, final, local === WRAPPER ? wrapperFormat(word) : '');
}

// ---- open angles that start no tag, decided by one regex (hostile prefixes) ------------------
// Python's NO_TAG_HEAD / NO_TAG_ANGLES / NO_TAG_SO_FAR (shell.py says why each is decided).

// Head characters that keyword search reads as written (code units: a surrogate folds to itself).
const NO_TAG_HEAD =
  '[^' +
  escapeClass(
    [
      ...new Set([
        ...STOP_CHARS,
        '!',
        '\x7f',
        ...Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)).filter((c) => c !== '\t'),
        ...[...FOLD]
          .filter(([c, f]) => c >= 0x80 && (f === null || /^[a-z0-9_\-![]$/.test(f)))
          .map(([c]) => String.fromCharCode(c)),
      ]),
    ]
      .sort()
      .join(''),
  ) +
  ']';
const ANGLE_CLASS = '[' + OPEN_ANGLES + ']';
// A keyword of any format (KEYWORDS_ALL) in ASCII of either case, where it ends (R2.2).
const TAG_KEYWORDS = [
  'tool_calls',
  'toolcalls',
  'tool-calls',
  'function_calls',
  'functioncalls',
  'function-calls',
  'invoke',
  'parameter',
];
const KEYWORD_ANY_CASE =
  '(?:' +
  TAG_KEYWORDS
    .map((w) => Array.from(w, (c) => (/[a-z]/.test(c) ? '[' + c + c.toUpperCase() + ']' : c)).join(''))
    .join('|') +
  ')(?![A-Za-z0-9_-])';
const NO_KEYWORD_HEAD =
  '(?!' + NO_TAG_HEAD + '{0,' + MAX_HEAD + '}?' + KEYWORD_ANY_CASE + ')' + NO_TAG_HEAD + '{1,' + MAX_HEAD + '}';
const NO_TAG_ANGLES =
  '(?:' + ANGLE_CLASS + '(?=' + ANGLE_CLASS + '{' + MAX_LEAD + '}))+' +
  '|' + ANGLE_CLASS + '{1,' + MAX_LEAD + '}(?=(?![Pp][Rr][Ee])(?![/\uff0f]' + ANGLE_CLASS + ')' +
  NO_TAG_HEAD + '{1,' + MAX_HEAD + '}' + ANGLE_CLASS + ')' +
  '(?!' + NO_TAG_HEAD + '{0,' + MAX_HEAD + '}?' + KEYWORD_ANY_CASE + NO_TAG_HEAD + ')' +
  '|' + ANGLE_CLASS + '{1,' + MAX_LEAD + '}(?=[/\uff0f]' + ANGLE_CLASS + '{1,' + MAX_LEAD + '}' + NO_KEYWORD_HEAD +
  '[' + escapeClass(STOP_CHARS) + '])';
const NO_TAG_SO_FAR =
  '<(?![Pp][Rr][Ee][ \\t])(?:' + ANGLE_CLASS + '{0,' + (MAX_LEAD - 1) + '}|[/\uff0f]' + ANGLE_CLASS +
  '{1,' + MAX_LEAD + '})' + NO_TAG_HEAD + '{0,' + MAX_HEAD + '}$';

/**
 * Where to resume after `matchTag(s, i)` said NO: past the run of open angles, except the last
 * MAX_LEAD of a longer run (a tag may still start there).
 */
function skipNoTag(s, i) {
  const j = anglesRunEnd(s, i);
  return j - i > MAX_LEAD ? j - MAX_LEAD : j;
}

/** Parse the attribute area after the local name, up to the tag end (R1.4, R2.3, R2.6). */
function matchAttrs(s, k, local, closing, final, fmt) {
  const n = s.length;
  const start = k;
  let name = null;
  let string = null;
  let sawSpace = false;
  // code points in s[start:cu], counted lazily (only once k - start exceeds MAX_TAG code units)
  let cu = start;
  let cps = 0;
  for (;;) {
    if (k - start > MAX_TAG) {
      while (cu < k) {
        cu += charAt(s, cu).length;
        cps++;
      }
      if (cps > MAX_TAG) return NO;
    }
    if (k >= n) return final ? NO : MORE;
    const ch = charAt(s, k);
    const f = fold1(ch);
    if (f === null) {
      // zero-width / control inside the shell
      k += ch.length;
      continue;
    }
    if (f === '>') return tag(local, closing, name, false, k + 1, string, fmt);
    if (SPACE.includes(f)) {
      sawSpace = true;
      k += 1;
      continue;
    }
    if (f === '/') {
      if (k + 1 >= n) return final ? NO : MORE;
      const nf = fold1(charAt(s, k + 1));
      if (nf === '>') return tag(local, closing, name, true, k + 2, string, fmt);
      return NO;
    }
    if (sawSpace && /^[a-zA-Z_]$/.test(f)) {
      // attribute: name [ws] = [ws] value
      const am = ATTR_NAME_RE.exec(fold(s.slice(k, k + 40)));
      if (am === null) return NO;
      // advance k over the attribute name in the original text
      const attr = am[0];
      let count = attr.length;
      while (count && k < n) {
        const ck = charAt(s, k);
        if (fold1(ck) !== null) count--;
        k += ck.length;
      }
      if (count) return final ? NO : MORE;
      k = skipSpace(s, k, start);
      if (k >= n) return final ? NO : MORE;
      if (fold1(charAt(s, k)) !== '=') return NO;
      k = skipSpace(s, k + 1, start);
      if (k >= n) return final ? NO : MORE;
      const q = fold1(charAt(s, k));
      let value;
      if (q === '"' || q === "'") {
        const vStart = k + 1;
        let e = vStart;
        let cnt = 0;
        for (;;) {
          if (e >= n) break;
          const ce = charAt(s, e);
          if (fold1(ce) === q || ce === '\n') break;
          if (cnt > MAX_TAG) return NO;
          e += ce.length;
          cnt++;
        }
        if (e >= n) return final ? NO : MORE;
        if (s[e] === '\n') return NO;
        value = s.slice(vStart, e);
        k = e + 1;
      } else {
        const vStart = k;
        let e = k;
        let cnt = 0;
        while (e < n) {
          const ce = charAt(s, e);
          const fe = fold1(ce);
          if (fe !== null && (SPACE.includes(fe) || fe === '<' || fe === '>' || fe === '/' || fe === '"' || fe === "'")) {
            break;
          }
          if (cnt > MAX_TAG) return NO;
          e += ce.length;
          cnt++;
        }
        if (e >= n) return final ? NO : MORE;
        value = s.slice(vStart, e);
        k = e;
      }
      if (attr === 'name' && name === null) name = value;
      else if (attr === 'string' && string === null) string = value;
      sawSpace = true; // the next attribute may follow a value directly
      continue;
    }
    if (isTrailingSep(f)) {
      // R2.6: broken terminator; a following '>' is consumed with it. At the end of the input
      // the separator alone ends the tag.
      const k1 = k + ch.length;
      if (k1 >= n && !final) return MORE;
      const end = k1 < n && fold1(charAt(s, k1)) === '>' ? k1 + 1 : k1;
      return tag(local, closing, name, false, end, string, fmt);
    }
    return NO;
  }
}

/** Skip shell whitespace and dropped characters, but not past MAX_TAG code points from `start`. */
function skipSpace(s, k, start) {
  const n = s.length;
  let budget = MAX_TAG - cpLen(s.slice(start, k));
  while (k < n && budget > 0) {
    const ch = charAt(s, k);
    const f = fold1(ch);
    if (f === null || SPACE.includes(f)) {
      k += ch.length;
      budget--;
      continue;
    }
    break;
  }
  return k;
}

const CDATA_RE = /^<[^a-z0-9<>\[\] \t\n\r]{1,3}\[cdata\[/u;
const CDATA_PREFIX_RE = /^<(?:[^a-z0-9<>\[\] \t\n\r]{1,3}(?:\[(?:c(?:d(?:a(?:t(?:a)?)?)?)?)?)?)?$/u;

const CDATA_PLAIN = '<![CDATA[';
// An ASCII window that folding only lowercases: no control character it would drop.
const ASCII_KEPT = /^[\t\n\r\x20-\x7e]*$/;

/** Recognize a (drifted) CDATA opener at `s[i]` (R5.5). Returns its end index, MORE or NO. */
function matchCdataOpen(s, i, final) {
  if (i + 1 < s.length && NOT_CDATA_SEP.includes(s[i + 1])) return NO;
  if (s.startsWith(CDATA_PLAIN, i)) return i + 9; // the plain spelling, as the folding below finds
  if (!final && s.length - i < 9 && CDATA_PLAIN.startsWith(s.slice(i))) return MORE;
  const ascii = s.slice(i, i + 24);
  if (ASCII_KEPT.test(ascii)) {
    // (24 code units of ASCII are the 24 code points of the window below)
    const folded = ascii.toLowerCase();
    const m = CDATA_RE.exec(folded);
    if (m !== null) return i + m[0].length;
    return !final && i + ascii.length === s.length && CDATA_PREFIX_RE.test(folded) ? MORE : NO;
  }
  return matchCdataGeneral(s, i, final);
}

// What folds to `[`: a window with none of these holds no CDATA opener (Python's _LBRACKET).
const LBRACKET = new RegExp('[' + escapeClass(['[', ...[...FOLD].filter(([, v]) => v === '[').map(([k]) => String.fromCharCode(k))].join('')) + ']');

/** matchCdataOpen for every spelling: fold a window of 24 code points, then match. */
function matchCdataGeneral(s, i, final) {
  // the window is 24 code points, as in Python
  let e = i;
  for (let c = 0; c < 24 && e < s.length; c++) e += charAt(s, e).length;
  const window = s.slice(i, e);
  if (!LBRACKET.test(window) && (final || e < s.length)) return NO; // (no `[`, the window not cut)
  const [folded, idx] = foldMap(window);
  const m = CDATA_RE.exec(folded);
  if (m !== null) return i + idx[m[0].length - 1] + 1;
  if (!final && e === s.length) {
    if (CDATA_PREFIX_RE.test(folded)) return MORE;
  }
  return NO;
}

/** Is `s[i:]` the start of a closing tag (`</`, `<／`, `<！/`, `〈/`)? true, false or MORE. */
function matchCloseStart(s, i, final) {
  const n = s.length;
  let k = i + 1;
  let seps = 0;
  let d = 1; // code points from i to k
  while (k < n) {
    if (d > 16) return false; // bounded lookahead: dropped characters cannot pad it forever
    const ch = charAt(s, k);
    const f = fold1(ch);
    if (f === null) {
      k += ch.length;
      d++;
      continue;
    }
    if (f === '/') return true;
    if (seps < 3 && isTrailingSep(f) && f !== '<' && f !== '>') {
      seps++;
      k += ch.length;
      d++;
      continue;
    }
    return false;
  }
  return final ? false : MORE;
}

/** `s[i:i+3]` is a CDATA closer `]]>` (also `]]＞`, `]]〉`). */
function cdataCloseAt(s, i) {
  return s.startsWith(']]', i) && i + 2 < s.length && CLOSE_ANGLES.includes(s[i + 2]);
}

module.exports = {
  MORE,
  NO,
  MAX_TAG,
  MAX_HEAD,
  MAX_PREFIX,
  MAX_LEAD,
  FOLD,
  OPEN_ANGLES,
  CLOSE_ANGLES,
  STOP: STOP_CHARS,
  WRAPPER,
  INVOKE,
  PARAMETER,
  KEYWORDS_SEED,
  KEYWORDS_ALL,
  KEYWORDS_NATIVE,
  NO_TAG_HEAD,
  NO_TAG_ANGLES,
  NO_TAG_SO_FAR,
  fold,
  fold1,
  foldMap,
  isTrailingSep,
  matchTag,
  matchGeneral,
  matchPlain,
  skipNoTag,
  matchCdataOpen,
  matchCdataGeneral,
  matchCloseStart,
  cdataCloseAt,
  charAt,
  cpLen,
  escapeClass,
};
