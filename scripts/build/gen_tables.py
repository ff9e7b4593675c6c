#!/usr/bin/env python3
"""Write the Node sieve's shared data (parity/node/src/tables.js) from the Python modules.

Markers, keywords, limits and character tables (the shell's fold table among them) are defined
once, in the Python modules listed in SHARED; the Node modules require them from the generated
file. `--check` fails when the generated file is stale (the test command runs it).
"""

from __future__ import annotations

import ast
import importlib
import io
import re
import sys
import tokenize
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

OUT = ROOT / "parity" / "node" / "src" / "tables.js"

# Module -> its shared names, in the order written. A value is written by its type: an int or a
# str as itself, a tuple as an array, a dict as an object, a frozenset of characters as a string
# of them (sorted), any other frozenset as a Set. Arrays are not frozen: V8 iterates a frozen
# array more slowly (the token-section markers, frozen: W10 about 8% slower). `(name, how)`:
#   "fold"         a code point -> replacement (None: dropped) dict, as a Map
#   "map"          a dict as a Map
#   "class"        a frozenset of characters as a RegExp character class
#   "regex[/FLAGS]" a compiled pattern (or a tuple / dict of them) as a RegExp of the same source
#                  (a subset both engines read alike; `\Z` at the end as `$`, re.I as `i`)
SHARED: dict[str, tuple[str | tuple[str, str], ...]] = {
    "strings": ("JS_SPACE",),
    "shell": (
        "MAX_TAG",
        "MAX_HEAD",
        "MAX_PREFIX",
        "MAX_LEAD",
        ("FOLD", "fold"),
        "OPEN_ANGLES",
        "CLOSE_ANGLES",
        "STOP_CHARS",
        ("_KEYWORD_RE", "regex"),
        ("_KEYWORD_NATIVE_RE", "regex"),
        ("_KEYWORD_ONLY_NATIVE_RE", "regex"),
        "_SPACE",
        "WRAPPER",
        "INVOKE",
        "PARAMETER",
        "_NOT_CDATA_SEP",
    ),
    "sections": (
        "SECTION_BEGIN",
        "SECTION_END",
        "CALL_BEGIN",
        "CALL_END",
        "SEP",
        "EOS",
        "_MARKERS",
        "MAX_MARKER",
        "BARS",
        "MAX_HEAD",
    ),
    "harmony": (
        "START",
        "CHANNEL",
        "MESSAGE",
        "ENDS",
        "OPENERS",
        "_BODY_MARKERS",
        "_MAX_MARKER",
        "MAX_HEADER",
    ),
    "mistral": ("MARKER", "ARGS", "CALL_ID", "MAX_HEAD"),
    "pylist": ("MAX_HEAD",),
    "reasoning": ("REASONING_MODES", "OPEN", "CLOSE"),
    "values": ("RAW_TEXT_NAMES", ("_ENTITY_RE", "regex/g"), "_NAMED", "_JSON_START", "MAX_DEPTH"),
    "arguments": ("_JSON_START", "_NUMBER_CHARS", "_LITERALS", "_ENTITY_SPAN"),
    "names": (("_SEPARATORS", "class"),),
    "blocks": (
        "_NOT_NAME",
        "NAME_MAX",
        "_FN",
        "_FN_END",
        "_P",
        "_P_END",
        "_K",
        "_K_END",
        "_V",
        "_V_END",
        "_ATTR",
        "_INV_END",
        "_PARAM_END",
        "_KB",
        "_KA",
        "_KE",
        "_ESCAPES",
        "MAX_DEPTH",
    ),
    "prompt": (("_MARKUP", "map"), "_MAX_EXAMPLE_NAME", "_HEADER"),
    # The scanner's character classes and lookaheads (flags: how each Node module runs them).
    "fences": (("_RUNS", "regex/y"), ("_BLANKS", "regex/y")),
    "prose": (
        ("_SPECIAL", "regex/g"),
        ("_SPECIAL_JSON", "regex/g"),
        ("_SPECIAL_BR", "regex/g"),
        ("_SPECIAL_JSON_BR", "regex/g"),
        ("_ANGLE", "regex/g"),
        ("_REGIONS", "regex/g"),
        ("_PRE_OPEN", "regex/y"),
        ("_PRE_PREFIX", "regex/y"),
        ("_COMMENT_PREFIX", "regex/y"),
    ),
    "dsml": (
        ("_CD_SPECIAL", "regex/g"),
        ("_CD_TAIL", "regex/g"),
        ("_LOOSE_CLOSE_TAIL", "regex"),
        "_NATIVE_SHELL",
    ),
    "scanner": (
        ("_JSON_START", "regex/y"),
        ("_JSON_START_PREFIX", "regex/y"),
        ("_JSON_OUT", "regex/g"),
        ("_JSON_IN", "regex/g"),
        "_FN_TAG",
    ),
}

HEAD = """'use strict';
/**
 * The data the Python and Node sieves share: markers, keywords, limits, character and fold tables.
 * GENERATED from the python/callsieve modules named below by scripts/build/gen_tables.py. Do not
 * edit; edit the Python module and run the script. A name defined in two modules carries the
 * module's name (SHELL_MAX_HEAD is shell.py's MAX_HEAD).
 */
"""

WIDTH = 100
# Pattern text both engines read the same way: BMP characters, escapes of syntax characters and
# of \n \t \r, groups `(?:`, `(?=`, `(?!`; no other escape (\w, \d, \s, \b differ), no inline
# flag, no `.` or `$` (Python's `.` and `$` treat a newline otherwise), `^` only negating a class;
# `\Z` (Python's end of input) only last, written `$`.
_PORTABLE = re.compile(
    r"(?:[^\\.$^(\U00010000-\U0010ffff]|\[\^|\\[ntr\[\](){}|?*+\\/-]|\((?:\?[:=!]|(?!\?)))*(?:\\Z)?"
)
_POSSESSIVE = re.compile(r"[*+?}]\+")  # Python's `*+` (no backtracking): JS has none
# re.I: Python's Unicode case folding matches these ASCII letters with non-ASCII ones, JS's does not.
_FOLDS_WIDER = re.compile(r"[iksIKS]|[^\x00-\x7f]")


def node_name(py_name: str) -> str:
    """The port map's naming rule for UPPER_CASE names: the leading underscores go."""
    return py_name.lstrip("_")


def entries() -> list[tuple[str, str, str, object, str]]:
    """(module, Python name, Node name, value, how) for every shared datum."""
    raw: list[tuple[str, str, object, str]] = []
    for mod, names in SHARED.items():
        m = importlib.import_module(f"callsieve.{mod}")
        for item in names:
            name, how = item if isinstance(item, tuple) else (item, "")
            raw.append((mod, name, getattr(m, name), how))
    counts: dict[str, int] = {}
    for _, name, _, _ in raw:
        counts[node_name(name)] = counts.get(node_name(name), 0) + 1
    out = []
    for mod, name, value, how in raw:
        n = node_name(name)
        out.append((mod, name, f"{mod.upper()}_{n}" if counts[n] > 1 else n, value, how))
    return out


def comments(mod: str) -> dict[str, tuple[list[str], str]]:
    """Each module-level name's comments in the Python source: the comment lines right above its
    assignment, and the comment ending its first line (carried into tables.js)."""
    src = (ROOT / "python" / "callsieve" / f"{mod}.py").read_text(encoding="utf-8")
    by_line: dict[int, tuple[str, bool]] = {}  # line -> (comment text, the line holds nothing else)
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            by_line[tok.start[0]] = (tok.string[1:].strip(), not tok.line[: tok.start[1]].strip())
    out: dict[str, tuple[list[str], str]] = {}
    for node in ast.parse(src).body:
        targets = [node.target] if isinstance(node, ast.AnnAssign) else getattr(node, "targets", [])
        target = targets[0] if len(targets) == 1 else None
        if not isinstance(target, ast.Name):
            continue
        above: list[str] = []
        k = node.lineno - 1
        while k in by_line and by_line[k][1]:
            above.insert(0, by_line[k][0])
            k -= 1
        trailing = by_line.get(node.lineno, ("", True))
        out[target.id] = (above, "" if trailing[1] else trailing[0])
    return out


def _visible(c: str) -> bool:
    return c == " " or unicodedata.category(c)[0] in "LNPS"


def js_str(s: str) -> str:
    """A single-quoted JS string literal, ASCII only (other characters as \\u escapes)."""
    out = []
    for c in s:
        o = ord(c)
        if c in "'\\":
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c == "\r":
            out.append("\\r")
        elif 0x20 <= o < 0x7F:
            out.append(c)
        elif o < 0x100:
            out.append(f"\\x{o:02x}")
        elif o < 0x10000:
            out.append(f"\\u{o:04x}")
        else:
            out.append(f"\\u{{{o:x}}}")
    return "'" + "".join(out) + "'"


def _shown(s: str) -> str:
    """A trailing comment showing `s` as written, when escapes hide it and it is all visible."""
    if s.isascii() or not all(_visible(c) for c in s):
        return ""
    return " // " + s


def _class(chars: frozenset[str]) -> str:
    """A regex character class of `chars`, in runs of consecutive code points."""
    codes = sorted(ord(c) for c in chars)
    if not codes or codes[-1] > 0xFFFF:
        raise SystemExit("gen_tables: a character class must be of BMP characters")
    runs: list[list[int]] = []
    for o in codes:
        if runs and runs[-1][1] == o - 1:
            runs[-1][1] = o
        else:
            runs.append([o, o])
    parts = [f"\\u{a:04x}" + (f"-\\u{b:04x}" if b > a else "") for a, b in runs]
    return "[" + "".join(parts) + "]"


def _regex(pattern: re.Pattern[str], flags: str, where: str) -> str:
    src = pattern.pattern
    folds = pattern.flags == re.UNICODE | re.IGNORECASE
    if not (pattern.flags == re.UNICODE or folds) or not _PORTABLE.fullmatch(src) or _POSSESSIVE.search(src):
        raise SystemExit(f"gen_tables: {where}'s pattern is not in the subset both engines read alike")
    if folds and _FOLDS_WIDER.search(re.sub(r"\\.", "", src)):
        raise SystemExit(f"gen_tables: {where}: re.I folds its letters otherwise than JS's `i`")
    if src.endswith("\\Z"):
        src = src[:-2] + "$"
    flags = "".join(sorted(flags + ("i" if folds else "")))
    return f"new RegExp({js_str(src)}{', ' + js_str(flags) if flags else ''})"


def _fold(table: dict[int, str | None]) -> str:
    """The fold table as (replacement, the characters folding to it) rows, then a Map."""
    groups: dict[str | None, list[int]] = {}
    for code, to in table.items():
        groups.setdefault(to, []).append(code)
    rows = []
    for to, codes in groups.items():
        chars = "".join(chr(c) for c in sorted(codes))
        target = "null" if to is None else js_str(to)
        rows.append(f"    [{target}, {js_str(chars)}],{_shown(chars)}")
    return (
        "new Map(\n  [\n"
        + "\n".join(rows)
        + "\n  ].flatMap(([to, chars]) => Array.from(chars, (c) => [c.codePointAt(0), to])),\n)"
    )


def literal(value: object, how: str, where: str, indent: str = "") -> str:
    """The JS expression for one value."""
    if how == "fold":
        assert isinstance(value, dict)
        return _fold(value)
    if how == "class":
        assert isinstance(value, frozenset)
        return f"new RegExp({js_str(_class(value))})"
    if how.startswith("regex") and isinstance(value, re.Pattern):
        return _regex(value, how.partition("/")[2], where)
    inner = how if how.startswith("regex") else ""  # the patterns in a tuple or dict of them
    if how == "map":
        assert isinstance(value, dict)
        pairs = [f"[{literal(k, '', where)}, {literal(v, '', where)}]" for k, v in value.items()]
        return "new Map(" + _items(pairs, indent) + ")"
    if isinstance(value, bool) or value is None:
        raise SystemExit(f"gen_tables: {where}: no literal for {value!r}")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        if "\n" in value and len(value) > WIDTH:  # one line of the string a line
            lines = value.splitlines(keepends=True)
            return "\n" + "".join(f"{indent}  {js_str(line)} +\n" for line in lines)[:-3]
        return js_str(value)
    if isinstance(value, tuple):
        return _items([literal(v, inner, where, indent + "  ") for v in value], indent)
    if isinstance(value, dict):
        keys = [k if re.fullmatch(r"[A-Za-z_$][\w$]*", k) else js_str(k) for k in value]
        items = [
            f"{k}: {literal(v, inner, where, indent + '  ')}"
            for k, v in zip(keys, value.values(), strict=True)
        ]
        return _items(items, indent, "{}")
    if isinstance(value, frozenset):
        if all(isinstance(c, str) and len(c) == 1 for c in value):
            return js_str("".join(sorted(value)))
        return "new Set(" + _items([literal(v, "", where) for v in sorted(value)], indent) + ")"
    raise SystemExit(f"gen_tables: {where}: no literal for {type(value).__name__}")


def _items(items: list[str], indent: str, brackets: str = "[]") -> str:
    """`[a, b]` (`{ a, b }`) on one line when short, else one item a line."""
    pad = " " if brackets == "{}" else ""
    one = brackets[0] + pad + ", ".join(items) + pad + brackets[1]
    if len(one) <= WIDTH - len(indent) - 30 and "\n" not in one:
        return one
    return brackets[0] + "\n" + "".join(f"{indent}  {i},\n" for i in items) + indent + brackets[1]


def render() -> str:
    parts = [HEAD]
    names = []
    module = ""
    notes: dict[str, tuple[list[str], str]] = {}
    for mod, py_name, name, value, how in entries():
        if mod != module:
            parts.append(f"\n// python/callsieve/{mod}.py\n")
            module = mod
            notes = comments(mod)
        where = f"{mod}.{py_name}"
        above, trailing = notes.get(py_name, ([], ""))
        parts += [f"// {line}\n" if line else "//\n" for line in above]
        said = [where if name != node_name(py_name) else "", trailing]
        note = " // " + ": ".join(x for x in said if x) if any(said) else ""
        text = literal(value, how, where)
        if isinstance(value, str) and not note:
            note = _shown(value)
        parts.append(f"const {name} ={'' if text.startswith(chr(10)) else ' '}{text};{note}\n")
        names.append(name)
    exports = ""
    line = ""
    for n in names:
        if len(line) + len(n) + 2 > WIDTH - 2:
            exports += line.rstrip() + "\n"
            line = ""
        line += f"{n}, " if line else f"  {n}, "
    exports += line.rstrip()
    parts.append(f"\nmodule.exports = {{\n{exports}\n}};\n")
    return "".join(parts)


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run scripts/build/gen_tables.py", file=sys.stderr)
            return 1
        print(f"{OUT.relative_to(ROOT)}: up to date with the Python modules")
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
