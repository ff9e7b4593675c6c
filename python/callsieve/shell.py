"""Recognizers for the tool-tag shell (R1-R2) and CDATA openers (R5.5).

Each recognizer looks at `s[i:]` and answers MORE (the text so far could still become the
construct: wait for more input), NO, or a match with its end. They only look a bounded distance
ahead (`MAX_TAG` characters), so calling one again after more input arrived is cheap.

Folding (R2.4) applies only to the candidate span of a tag: fullwidth letters, homoglyphs, dash
and underscore variants, curly quotes and CJK brackets fold to ASCII; zero-width and control
characters are dropped. Attribute *values* are taken from the original text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

MORE: Final = "MORE"
NO: Final = "NO"

MAX_TAG: Final = 512  # a tool tag longer than this is not a tool tag
MAX_HEAD: Final = 64  # prefix noise + local name
MAX_PREFIX: Final = 32
MAX_LEAD: Final = 8  # repeated leading open angles (R2.3) a tag may have


def _build_fold() -> dict[int, str | None]:
    t: dict[int, str | None] = {}
    for c in range(ord("A"), ord("Z") + 1):
        t[c] = chr(c + 32)
    for c in range(0xFF01, 0xFF5F):  # fullwidth ASCII
        t[c] = chr(c - 0xFEE0).lower()
    for code in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F]:
        t[code] = None  # control characters (raw STX among them)
    for code in [0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2060, 0xFEFF, 0x00AD]:
        t[code] = None  # zero-width, BOM, soft hyphen
    for code in [0x0085, 0x00A0, 0x1680, 0x202F, 0x205F, 0x3000, 0x2581, 0x2402, *range(0x2000, 0x200B)]:
        t[code] = " "  # Unicode spaces, '▁', '␂'
    for chars, to in (("‐‑‒–—―−﹣", "-"), ("﹍﹎﹏", "_"), ("“”„‟″", '"'), ("‘’‚‛′", "'")):
        for ch in chars:
            t[ord(ch)] = to
    t[ord("〈")] = "<"
    t[ord("〉")] = ">"
    t[ord("《")] = "<"
    t[ord("》")] = ">"
    homoglyphs = {
        "a": "аαА",
        "b": "ВΒв",
        "c": "сСϲ",
        "d": "ԁ",
        "e": "еЕεΕ",
        "h": "һНΗ",
        "i": "іІιΙ",
        "j": "јЈ",
        "k": "кКκΚ",
        "l": "ӏ",
        "m": "мМΜ",
        "n": "ΝпП",
        "o": "оОοΟ",
        "p": "рРρΡ",
        "s": "ѕЅ",
        "t": "тТτΤ",
        "u": "υ",
        "v": "ν",
        "x": "хХχΧ",
        "y": "уУγΥ",
        "z": "Ζ",
    }
    for ascii_letter, variants in homoglyphs.items():
        for v in variants:
            t[ord(v)] = ascii_letter
    return t


FOLD: Final = _build_fold()

OPEN_ANGLES: Final = "<＜〈《"
_ANGLES_RUN: Final = re.compile("[" + OPEN_ANGLES + "]+")
CLOSE_ANGLES: Final = ">＞〉》"
# Characters that end the head of a tag (prefix noise + local name + attribute names).
STOP_CHARS: Final = "\n\r<>=\"'`,.;()[]{}*&^%$#@?+\\~＜＞〈〉《》＝“”‘’＂＇"
_HEAD_RE: Final = re.compile("[^" + re.escape(STOP_CHARS) + "]{0," + str(MAX_HEAD + 1) + "}")
_KEYWORD_RE: Final = re.compile(r"(tool_calls|toolcalls|tool-calls|invoke|parameter)(?![a-z0-9_-])")
# R14.1: the native DSML wrapper (`function_calls`) too.
_KEYWORD_NATIVE_RE: Final = re.compile(
    r"(tool_calls|toolcalls|tool-calls|function_calls|functioncalls|function-calls|invoke|parameter)"
    r"(?![a-z0-9_-])"
)
_KEYWORD_ONLY_NATIVE_RE: Final = re.compile(
    r"(function_calls|functioncalls|function-calls|invoke|parameter)(?![a-z0-9_-])"
)
_ATTR_NAME_RE: Final = re.compile(r"[a-z_][a-z0-9_:.-]*")
_SPACE: Final = frozenset(" \t\n\r\f\v")

WRAPPER: Final = "tool_calls"
INVOKE: Final = "invoke"
PARAMETER: Final = "parameter"


@dataclass(frozen=True, slots=True)
class Tag:
    """A recognized tool tag: `local` is WRAPPER, INVOKE or PARAMETER."""

    local: str
    closing: bool
    name: str | None  # the value of the `name` attribute, as written
    self_closing: bool
    end: int  # index just past the tag
    string: str | None = None  # the value of the `string` attribute (R14.2), as written
    # a wrapper's format row: `function_calls` for that name (R14.1), else `dsml`; "" for the others
    format: str = ""


def fold(s: str) -> str:
    return s.translate(FOLD)


def _fold_map(span: str) -> tuple[str, list[int]]:
    """Fold `span` and return, for each folded character, its index in `span`."""
    out: list[str] = []
    idx: list[int] = []
    for k, ch in enumerate(span):
        f = FOLD.get(ord(ch), ch)
        if f is None:
            continue
        out.append(f)
        idx.append(k)
    return "".join(out), idx


def _is_trailing_sep(f: str) -> bool:
    """R2.6: a non-structural separator: not ASCII alnum, not whitespace, not `< > / = " '`."""
    if not f or f.isspace():
        return False
    if f.isascii():
        return f in "|!"
    return not f.isalnum() and f not in CLOSE_ANGLES and f not in OPEN_ANGLES


KEYWORDS_SEED: Final = _KEYWORD_RE
KEYWORDS_ALL: Final = _KEYWORD_NATIVE_RE
KEYWORDS_NATIVE: Final = _KEYWORD_ONLY_NATIVE_RE


def match_tag(s: str, i: int, final: bool, keywords: re.Pattern[str] = _KEYWORD_RE) -> Tag | str:
    """Recognize a tool tag starting at `s[i]` (an open angle). Returns a Tag, MORE or NO.
    `keywords` says which local names are tags (the formats in use, R14.9)."""
    if s[i] == "<":
        fast = _match_plain(s, i, final, keywords)
        if fast is not None:
            return fast
    return _match_general(s, i, final, keywords)


def _match_general(s: str, i: int, final: bool, keywords: re.Pattern[str]) -> Tag | str:
    """match_tag for every spelling: open angles, then the head and the attributes."""
    n = len(s)
    j = _ANGLES_RUN.match(s, i).end()  # type: ignore[union-attr]
    if j - i > MAX_LEAD:
        return NO
    if j == n:
        return NO if final else MORE
    if FOLD.get(ord(s[j]), s[j]) == "/" and j + 1 < n and s[j + 1] in OPEN_ANGLES:
        # D15: a closing tag may repeat its open angles after the slash (`</<|DSML|parameter>`).
        k = _ANGLES_RUN.match(s, j + 1).end()  # type: ignore[union-attr]
        if k - j - 1 > MAX_LEAD:
            return NO
        if k == n:
            return NO if final else MORE
        r = _match_head(s, k, final, keywords)
        if isinstance(r, Tag) and not r.closing:
            return Tag(r.local, True, r.name, r.self_closing, r.end, r.string, r.format)
        return NO if isinstance(r, Tag) else r
    return _match_head(s, j, final, keywords)


# The tags models write, spelled plainly (ASCII but the bars, one `<`, double-quoted values, no
# character that folding changes or drops): one regex decides them, complete or cut by the end of
# the input, with the answer the general recognizer below gives (tested against it).
# Every run is bounded (a tag is at most MAX_TAG characters), so a call scans a bounded span.
_SP: Final = "[ \t\n\r]"
_WSP: Final = _SP + "{0,512}"
_WSP1: Final = _SP + "{1,512}"
_NAME: Final = "[A-Za-z_][A-Za-z0-9_:.-]{0,39}"
_VALUE: Final = '[^"\n“”„‟″＂]{0,513}'  # the characters that fold to `"` end a value (R2.4)
_ATTR: Final = f'{_WSP1}{_NAME}{_WSP}={_WSP}"{_VALUE}"'
_PLAIN_TAG: Final = re.compile(
    "<(?P<slash>/?)(?:[|｜](?i:dsml)[|｜])?(?P<word>(?i:tool_?calls|function_?calls|invoke|parameter))"
    f"(?P<attrs>(?:{_ATTR}){{0,100}})"
    f"(?:{_WSP}(?P<self>/?)(?P<end>>)"  # complete, or cut by the end of the input:
    f'|(?:{_WSP1}{_NAME}(?:{_WSP}={_WSP}(?:"{_VALUE})?)?|{_WSP}/?)\\Z)'
)
_PLAIN_ATTR: Final = re.compile(f'{_WSP1}({_NAME}){_WSP}={_WSP}"({_VALUE})"')
_HEAD_TO_END: Final = re.compile("<[^" + re.escape(STOP_CHARS) + "]{0," + str(MAX_HEAD) + "}\\Z")


def _match_plain(s: str, i: int, final: bool, keywords: re.Pattern[str]) -> Tag | str | None:
    """match_tag for a plainly spelled tag at `s[i]` (`<`); None: ask the general recognizer."""
    if not final and _HEAD_TO_END.match(s, i):
        return MORE  # the head has not ended: any head waits (see _match_head)
    m = _PLAIN_TAG.match(s, i)
    if m is None or m.end() - m.end("word") > MAX_TAG:
        return None
    if _HEAD_RE.match(s, i + 1).end() - i - 1 > MAX_HEAD:  # type: ignore[union-attr]
        return None  # (a head ends at its first stop character: `=`, `>`, a newline)
    word = m.group("word").lower()
    if not keywords.fullmatch(word):
        return None
    if m.group("end") is None:
        return None if final else MORE
    name: str | None = None
    string: str | None = None
    if m.group("attrs"):
        for attr, value in _PLAIN_ATTR.findall(m.group("attrs")):
            attr = attr.lower()
            if attr == "name" and name is None:
                name = value
            elif attr == "string" and string is None:
                string = value
    local = WRAPPER if word.endswith("calls") else word
    fmt = _wrapper_format(word) if local == WRAPPER else ""
    return Tag(local, m.group("slash") == "/", name, m.group("self") == "/", m.end(), string, fmt)


def _match_head(s: str, j: int, final: bool, keywords: re.Pattern[str]) -> Tag | str:
    """The head of a tag after its open angles: prefix noise, local name, then attributes."""
    n = len(s)
    m = _HEAD_RE.match(s, j)
    assert m is not None
    head_end = m.end()
    if head_end - j > MAX_HEAD:
        return NO
    if head_end == n and not final:
        return MORE
    head = s[j:head_end]
    folded = head.translate(FOLD)
    if not folded or folded[0] in _SPACE:
        return NO
    km = keywords.search(folded)
    if km is None:
        return NO
    idx = range(len(head)) if len(folded) == len(head) else _fold_map(head)[1]
    prefix = folded[: km.start()]
    if len(prefix) > MAX_PREFIX or prefix.count("/") > 1:
        return NO
    closing = "/" in prefix
    prefix_noslash = prefix.replace("/", "")
    word = km.group(1)
    if word.endswith("-calls") and not prefix_noslash.strip():  # D12: `tool-calls` needs a prefix
        return NO
    local = WRAPPER if word.endswith("calls") else word
    # Original index just past the keyword.
    k = j + idx[km.end() - 1] + 1
    return _match_attrs(s, k, local, closing, final, _wrapper_format(word) if local == WRAPPER else "")


def _wrapper_format(word: str) -> str:
    """The format row a wrapper's name belongs to (D58): `function_calls` (R14.1) or `dsml`."""
    return "function_calls" if word.startswith("function") else "dsml"


# ---- open angles that start no tag, decided by one regex (hostile prefixes) -----------------
#
# A run like `<｜DSML｜<｜DSML｜…` (or `</</…`, `<｜<｜…`, `<invoke<invoke…`) is tag-like at every
# angle and never a tag; the prose layer's steps would try each angle with every recognizer. These
# patterns decide such angles in one regex step (the prose skip): a run of open angles whose head
# (R2: up to its first stop character) ends at another open angle and holds no keyword, or one
# only at its very end (a keyword then an angle is no tag, see _match_attrs). match_tag says NO
# there whatever follows, and so does every other recognizer of prose: each marker (block engines,
# token sections) ends with `>`, which no head holds; a comment needs `!` and a CDATA opener `[`,
# both kept out of the head, as is a head starting `pre`. The head's end is in the text, so the
# answer does not depend on where a chunk ends.

# Head characters that keyword search reads as written: ASCII (not a stop character, not `!`,
# not a control character that folding drops) and any other character that folds to one
# character that is no part of a keyword (`｜` to `|`, `▁` to a space, most to themselves). Out:
# whatever folds to a letter, digit, `_`, `-`, `!` or `[`, or to nothing.
NO_TAG_HEAD: Final = (
    "[^"
    + re.escape(
        "".join(
            sorted(
                {*STOP_CHARS, "!", "\x7f"}
                | {chr(c) for c in range(0x20) if c != 0x09}
                | {
                    chr(c)
                    for c, f in FOLD.items()
                    if c >= 0x80 and (f is None or re.fullmatch(r"[a-z0-9_\-!\[]", f))
                }
            )
        )
    )
    + "]"
)
_ANGLE_CLASS: Final = "[" + OPEN_ANGLES + "]"
# A keyword of any format (KEYWORDS_ALL) in ASCII of either case, where it ends (R2.2).
_TAG_KEYWORDS: Final = (
    "tool_calls",
    "toolcalls",
    "tool-calls",
    "function_calls",
    "functioncalls",
    "function-calls",
    "invoke",
    "parameter",
)
_KEYWORD_ANY_CASE: Final = (
    "(?:"
    + "|".join("".join(f"[{c}{c.upper()}]" if c.isalpha() else c for c in w) for w in _TAG_KEYWORDS)
    + ")(?![A-Za-z0-9_-])"
)
_NO_KEYWORD_HEAD: Final = (
    f"(?!{NO_TAG_HEAD}{{0,{MAX_HEAD}}}?{_KEYWORD_ANY_CASE}){NO_TAG_HEAD}{{1,{MAX_HEAD}}}"
)
# More than MAX_LEAD angles: no tag starts at any but the last MAX_LEAD. Then a run of angles
# whose head ends at an angle (not a slash right before one: D15 reads on after it), or, D15, a
# closing tag's repeated angles (`</<x…`) before a head with no keyword at all.
NO_TAG_ANGLES: Final = (
    f"(?:{_ANGLE_CLASS}(?={_ANGLE_CLASS}{{{MAX_LEAD}}}))+"
    f"|{_ANGLE_CLASS}{{1,{MAX_LEAD}}}(?=(?![Pp][Rr][Ee])(?![/／]{_ANGLE_CLASS}){NO_TAG_HEAD}{{1,{MAX_HEAD}}}"
    f"{_ANGLE_CLASS})(?!{NO_TAG_HEAD}{{0,{MAX_HEAD}}}?{_KEYWORD_ANY_CASE}{NO_TAG_HEAD})"
    f"|{_ANGLE_CLASS}{{1,{MAX_LEAD}}}(?=[/／]{_ANGLE_CLASS}{{1,{MAX_LEAD}}}{_NO_KEYWORD_HEAD}"
    f"[{re.escape(STOP_CHARS)}])"
)
# A `<` whose head is cut by the end of the input (after at most MAX_LEAD angles, or a D15
# slash and angles): match_tag says MORE and no other recognizer of prose decides anything, so
# prose waits there (a `<pre ` is decided at its blank, D41).
NO_TAG_SO_FAR: Final = (
    f"<(?![Pp][Rr][Ee][ \\t])(?:{_ANGLE_CLASS}{{0,{MAX_LEAD - 1}}}|[/／]{_ANGLE_CLASS}{{1,{MAX_LEAD}}})"
    f"{NO_TAG_HEAD}{{0,{MAX_HEAD}}}\\Z"
)


def skip_no_tag(s: str, i: int) -> int:
    """Where to resume after `match_tag(s, i)` said NO: past the run of open angles, except
    the last MAX_LEAD of a longer run (a tag may still start there)."""
    j = _ANGLES_RUN.match(s, i).end()  # type: ignore[union-attr]
    return j - MAX_LEAD if j - i > MAX_LEAD else j


def _match_attrs(s: str, k: int, local: str, closing: bool, final: bool, fmt: str) -> Tag | str:
    """Parse the attribute area after the local name, up to the tag end (R1.4, R2.3, R2.6)."""
    n = len(s)
    start = k
    name: str | None = None
    string: str | None = None
    saw_space = False
    while True:
        if k - start > MAX_TAG:
            return NO
        if k >= n:
            return NO if final else MORE
        ch = s[k]
        f = FOLD.get(ord(ch), ch)
        if f is None:  # zero-width / control inside the shell
            k += 1
            continue
        if f == ">":
            return Tag(local, closing, name, False, k + 1, string, fmt)
        if f in _SPACE:
            saw_space = True
            k += 1
            continue
        if f == "/":
            if k + 1 >= n:
                return NO if final else MORE
            nf = FOLD.get(ord(s[k + 1]), s[k + 1])
            if nf == ">":
                return Tag(local, closing, name, True, k + 2, string, fmt)
            return NO
        if saw_space and (f.isascii() and (f.isalpha() or f == "_")):
            # attribute: name [ws] = [ws] value
            am = _ATTR_NAME_RE.match(fold(s[k : k + 40]))
            if am is None:
                return NO
            # advance k over the attribute name in the original text
            count = len(am.group(0))
            attr = am.group(0)
            while count and k < n:
                if FOLD.get(ord(s[k]), s[k]) is not None:
                    count -= 1
                k += 1
            if count:
                return NO if final else MORE
            k = _skip_space(s, k, start + MAX_TAG)
            if k >= n:
                return NO if final else MORE
            if FOLD.get(ord(s[k]), s[k]) != "=":
                return NO
            k = _skip_space(s, k + 1, start + MAX_TAG)
            if k >= n:
                return NO if final else MORE
            q = FOLD.get(ord(s[k]), s[k])
            if q in ('"', "'"):
                v_start = k + 1
                e = v_start
                while e < n and FOLD.get(ord(s[e]), s[e]) != q and s[e] != "\n":
                    if e - v_start > MAX_TAG:
                        return NO
                    e += 1
                if e >= n:
                    return NO if final else MORE
                if s[e] == "\n":
                    return NO
                value = s[v_start:e]
                k = e + 1
            else:
                v_start = k
                e = k
                while e < n:
                    fe = FOLD.get(ord(s[e]), s[e])
                    if fe is not None and (fe in _SPACE or fe in "<>/" or fe == '"' or fe == "'"):
                        break
                    if e - v_start > MAX_TAG:
                        return NO
                    e += 1
                if e >= n:
                    return NO if final else MORE
                value = s[v_start:e]
                k = e
            if attr == "name" and name is None:
                name = value
            elif attr == "string" and string is None:
                string = value
            saw_space = True  # the next attribute may follow a value directly
            continue
        if _is_trailing_sep(f):
            # R2.6: broken terminator; a following '>' is consumed with it. At the end of the
            # input the separator alone ends the tag.
            if k + 1 >= n and not final:
                return MORE
            end = k + 2 if k + 1 < n and FOLD.get(ord(s[k + 1]), s[k + 1]) == ">" else k + 1
            return Tag(local, closing, name, False, end, string, fmt)
        return NO


def _skip_space(s: str, k: int, limit: int) -> int:
    """Skip shell whitespace and dropped characters, but not past `limit` (a tag is bounded)."""
    n = min(len(s), limit)
    while k < n:
        f = FOLD.get(ord(s[k]), s[k])
        if f is None or f in _SPACE:
            k += 1
            continue
        break
    return k


_NOT_CDATA_SEP: Final = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/ \t\n<>=\"'[]"
)
_CDATA_RE: Final = re.compile(r"<[^a-z0-9<>\[\] \t\n\r]{1,3}\[cdata\[")
_CDATA_PREFIX_RE: Final = re.compile(
    r"<(?:[^a-z0-9<>\[\] \t\n\r]{1,3}(?:\[(?:c(?:d(?:a(?:t(?:a)?)?)?)?)?)?)?"
)


_DROPPED_ASCII: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # FOLD drops these
# What folds to `[`: a window with none of these holds no CDATA opener (a cheap NO for the long
# runs of `<｜DSML｜`-like prefixes that are tried at every open angle).
_LBRACKET: Final = re.compile(
    "[" + re.escape("".join({"[", *(chr(k) for k, v in FOLD.items() if v == "[")})) + "]"
)


def match_cdata_open(s: str, i: int, final: bool) -> int | str:
    """Recognize a (drifted) CDATA opener at `s[i]` (R5.5). Returns its end index, MORE or NO."""
    if i + 1 < len(s) and s[i + 1] in _NOT_CDATA_SEP:
        return NO
    rest = s[i : i + 9]
    if rest == "<![CDATA[":  # the plain spelling, complete or cut (as the folding below finds)
        return i + 9
    if len(rest) < 9 and not final and "<![CDATA[".startswith(rest):
        return MORE
    window = s[i : i + 24]
    if window.isascii() and _DROPPED_ASCII.search(window) is None:
        folded = window.lower()  # what folding gives ASCII without control characters
        m = _CDATA_RE.match(folded)
        if m is not None:
            return i + m.end()
    else:
        if _LBRACKET.search(window) is None and (final or i + len(window) < len(s)):
            return NO  # (decided: no `[`, and the window is not cut by the end of the input)
        folded = window.translate(FOLD)  # (in C; the index map only for a match)
        m = _CDATA_RE.match(folded)
        if m is not None:
            folded, idx = _fold_map(window)
            m = _CDATA_RE.match(folded)
            assert m is not None
            return i + idx[m.end() - 1] + 1
    if not final and i + len(window) == len(s):
        pm = _CDATA_PREFIX_RE.fullmatch(folded)
        if pm is not None:
            return MORE
    return NO


def match_close_start(s: str, i: int, final: bool) -> bool | str:
    """Is `s[i:]` the start of a closing tag (`</`, `<／`, `<！/`, `〈/`)? True, False or MORE."""
    n = len(s)
    k = i + 1
    seps = 0
    while k < n:
        if k - i > 16:  # bounded lookahead: dropped characters cannot pad it forever
            return False
        f = FOLD.get(ord(s[k]), s[k])
        if f is None:
            k += 1
            continue
        if f == "/":
            return True
        if seps < 3 and _is_trailing_sep(f) and f not in "<>":
            seps += 1
            k += 1
            continue
        return False
    return False if final else MORE


def cdata_close_at(s: str, i: int) -> bool:
    """`s[i:i+3]` is a CDATA closer `]]>` (also `]]＞`, `]]〉`)."""
    return s.startswith("]]", i) and i + 2 < len(s) and s[i + 2] in CLOSE_ANGLES
