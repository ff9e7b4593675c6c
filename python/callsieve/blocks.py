"""The block engine's grammars (R17): the body of one held block, read once it is whole.

The scanner holds a block from its opener (an exact special token) to its closer, then hands the
body to the grammar of the format row (formats.py). Reading a whole body is linear: every marker
search runs forward from the last one (`_Finder` remembers each marker's next position, so a body
of many parameters is never searched again from its start).

A grammar returns the calls and the malformed ones (R18.2: raw text and reason, never text), in
block order, or None when the body is not this format at all (the block is then text, R4).
Values written as raw text are strings here; the declared tools' schemas type them later (R17.9,
R12), and GLM's JSON-looking values decode as its reference parser does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from . import strings, values
from .events import Malformed, ToolCall
from .jsontext import json_text

# A tool name as the block formats write it: no blank, no markup, not prose (one class in every
# runtime: JavaScript's blanks, not the regex engine's idea of a blank).
_NOT_NAME: Final = strings.JS_SPACE + "<>\"'`{}[],;"
NAME_MAX: Final = 256  # code points of a tool name, in every grammar and tap
_NAME: Final = re.compile("[^" + re.escape(_NOT_NAME) + f"]{{1,{NAME_MAX}}}")


@dataclass(slots=True)
class Body:
    """What a grammar read: the calls and the malformed ones, in block order."""

    calls: list[ToolCall] = field(default_factory=list)
    malformed: list[Malformed] = field(default_factory=list)

    def bad(self, raw: str, reason: str, name: str | None = None) -> None:
        self.malformed.append(Malformed(raw, reason, name))


# R17.9: (tool name, parameter, raw text) -> the value typed by the declared schema, or NO_SCHEMA
# when that parameter has no schema entry (the family's own reading applies).
NO_SCHEMA: Final[Any] = object()


class Typer(Protocol):
    def __call__(self, name: str, key: str, raw: str) -> Any: ...

    def kind(self, name: str, key: str) -> int:
        """What the schema makes of the value of `key` (R16 streams by it): 0 no schema entry
        (the family's reading), 1 the text as written whatever it is, 2 maybe another type."""
        ...


def _raw_value(typer: Typer | None, name: str, key: str, raw: str, glm: bool = False) -> Any:
    if typer is not None:
        v = typer(name, key, raw)
        if v is not NO_SCHEMA:
            return v
    return glm_value(raw) if glm else raw


class _Finder:
    """Forward-only marker search over one body: each marker's text is scanned at most once."""

    __slots__ = ("at", "s")

    def __init__(self, s: str) -> None:
        self.s = s
        self.at: dict[str, int] = {}

    def find(self, marker: str, i: int) -> int:
        """The first `marker` at or after `i` (-1: none); `i` never decreases per marker."""
        k = self.at.get(marker, -2)
        if k == -1 or (k >= i):
            return k
        k = self.s.find(marker, i)
        self.at[marker] = k
        return k


def name_ok(name: str) -> bool:
    return _NAME.fullmatch(name) is not None


def _json_object(text: str) -> dict[str, Any] | None:
    ok, v = values.json_value(text)
    return v if ok and isinstance(v, dict) else None


# ---- R17.1 Hermes: one JSON object per block ---------------------------------------------------


def json_call(body: str, typer: Typer | None = None) -> Body | None:
    """`{"name": N, "arguments": {…}}`; `parameters` is an alias, an `arguments` string holding
    an object is decoded once. A JSON array of such objects is several calls (some templates)."""
    out = Body()
    ok, v = values.json_value(body)
    if not ok:
        out.bad(strings.trim(body), "not JSON")
        return out
    items = v if isinstance(v, list) and v else [v]
    for item in items:
        json_item(item, out, body if len(items) == 1 else None, item is v)
    return out


def json_item(item: Any, out: Body, raw: str | None, lone: bool = False) -> None:
    text = strings.trim(raw) if raw is not None else json_text(item)
    if not isinstance(item, dict):
        out.bad(text, "not a JSON object")
        return
    name = item.get("name")
    if not isinstance(name, str) or not strings.trim(name):
        out.bad(text, "no name")
        return
    name = strings.trim(name)
    args = item.get("arguments", item.get("parameters", {}))
    if isinstance(args, str):
        obj = _json_object(args) if strings.trim(args) else {}
        if obj is None:
            out.bad(text, "arguments are not a JSON object", name)
            return
        args = obj
    if args is None:
        args = {}
    if not isinstance(args, dict):
        out.bad(text, "arguments are not a JSON object", name)
        return
    call_id = item.get("id")
    if lone and call_id is not None and _late_id(item):
        call_id = None
    out.calls.append(ToolCall(name, args, call_id if isinstance(call_id, str) and call_id else None))


def _late_id(item: dict[str, Any]) -> bool:
    """D63: is `id` written after the arguments object that announces a lone Hermes call with
    stream_arguments (D62)? Such an id is not the call's, so that the call is the same however
    it streams: an OpenAI stream's first delta of a call carries its id (R16.5)."""
    keys = list(item)
    for k, key in enumerate(keys):
        if key == "arguments" or key == "parameters":
            return isinstance(item[key], dict) and "name" in keys[:k] and keys.index("id") > k
    return False


# ---- R17.2 Qwen3-Coder / Seed-OSS: <function=NAME><parameter=KEY>VALUE</parameter></function> ---

_FN: Final = "<function="
_FN_END: Final = "</function>"
_P: Final = "<parameter="
_P_END: Final = "</parameter>"


def _one_newline(v: str) -> str:
    """Exactly one newline after the opening tag and one before the closing tag are markup."""
    if v.startswith("\r\n"):
        v = v[2:]
    elif v.startswith("\n"):
        v = v[1:]
    if v.endswith("\r\n"):
        v = v[:-2]
    elif v.endswith("\n"):
        v = v[:-1]
    return v


def function_tags(body: str, typer: Typer | None = None) -> Body | None:
    out = Body()
    f = _Finder(body)
    i = _skip_blank(body, 0)
    if not body.startswith(_FN, i):
        return None
    n = len(body)
    while i < n:
        if not body.startswith(_FN, i):
            rest = strings.trim(body[i:])
            if rest:
                out.bad(rest, "text between calls")
            break
        nxt = f.find(_FN, i + len(_FN))
        end = f.find(_FN_END, i)
        stop = min(x for x in (nxt, end, n) if x >= 0)
        call_end = end + len(_FN_END) if end >= 0 and end == stop else stop
        raw = body[i:call_end]
        gt = body.find(">", i + len(_FN), stop)
        if gt < 0:
            out.bad(strings.trim(raw), "unterminated function tag")
            i = _skip_blank(body, call_end)
            continue
        name = strings.trim(body[i + len(_FN) : gt])
        if not name_ok(name):
            out.bad(strings.trim(raw), "invalid name", name or None)
            i = _skip_blank(body, call_end)
            continue
        args = _parameters(body, gt + 1, stop, f, name, typer)
        if args is None:
            out.bad(strings.trim(raw), "broken parameter", name)
        else:
            out.calls.append(ToolCall(name, args))
        i = _skip_blank(body, call_end)
    return out


def _parameters(
    body: str, i: int, stop: int, f: _Finder, name: str, typer: Typer | None
) -> dict[str, Any] | None:
    args: dict[str, Any] = {}
    while True:
        i = _skip_blank(body, i, stop)
        if i >= stop:
            return args
        if not body.startswith(_P, i):
            return None  # text where a parameter belongs
        gt = body.find(">", i + len(_P), stop)
        if gt < 0:
            return None
        key = strings.trim(body[i + len(_P) : gt])
        if not key:
            return None
        # the value ends at its closing tag, or (a missing one) at the next parameter or the end
        close = f.find(_P_END, gt + 1)
        nxt = f.find(_P, gt + 1)
        ends = [x for x in (close, nxt, stop) if 0 <= x <= stop]
        v_end = min(ends)
        args[key] = _raw_value(typer, name, key, _one_newline(body[gt + 1 : v_end]))
        i = v_end + len(_P_END) if v_end == close else v_end


def _skip_blank(s: str, i: int, stop: int = -1) -> int:
    n = len(s) if stop < 0 else stop
    while i < n and s[i] in strings.JS_SPACE:
        i += 1
    return i


# ---- R17.3 GLM: NAME<arg_key>K</arg_key><arg_value>V</arg_value> ------------------------------

_K: Final = "<arg_key>"
_K_END: Final = "</arg_key>"
_V: Final = "<arg_value>"
_V_END: Final = "</arg_value>"


def arg_pairs(body: str, typer: Typer | None = None) -> Body | None:
    out = Body()
    k = body.find(_K)
    name = strings.trim(body if k < 0 else body[:k])
    if not name_ok(name):
        return None  # no name where GLM writes one: not this format (a `<tool_call>` in prose)
    args: dict[str, Any] = {}
    i = len(body) if k < 0 else k
    n = len(body)
    while True:
        i = _skip_blank(body, i)
        if i >= n:
            break
        ke = body.find(_K_END, i) if body.startswith(_K, i) else -1
        vs = _skip_blank(body, ke + len(_K_END)) if ke >= 0 else -1
        ve = body.find(_V_END, vs) if vs >= 0 and body.startswith(_V, vs) else -1
        if ve < 0:
            out.bad(strings.trim(body), "broken argument pair", name)
            return out
        key = strings.trim(body[i + len(_K) : ke])
        args[key] = _raw_value(typer, name, key, body[vs + len(_V) : ve], glm=True)
        i = ve + len(_V_END)
    out.calls.append(ToolCall(name, args))
    return out


def glm_value(v: str) -> Any:
    """GLM's reference reading of a value without a schema: JSON, then a Python literal's
    `True` / `False` / `None`, else the string as written."""
    ok, got = values.json_value(v)
    if ok:
        return got
    t = strings.trim(v)
    if t == "True":
        return True
    if t == "False":
        return False
    if t == "None":
        return None
    return v


# ---- R17.4 MiniMax-M2: <invoke name="N"><parameter name="K">V</parameter></invoke> ------------

# `name="N"`, `name='N'` or a bare `name=N`: at most NAME_MAX characters, on one line.
_ATTR: Final = (
    f"name=(?:\"([^\"<>\\n]{{0,{NAME_MAX}}})\"|'([^'<>\\n]{{0,{NAME_MAX}}})'"
    f"|([^ \\t\\n\\r\"'<>]{{1,{NAME_MAX}}}))[ \\t]*>"
)
_INV: Final = re.compile("<invoke[ \\t]+" + _ATTR)
_PARAM: Final = re.compile("<parameter[ \\t]+" + _ATTR)
_INV_END: Final = "</invoke>"
_PARAM_END: Final = "</parameter>"


def invoke_tags(body: str, typer: Typer | None = None) -> Body | None:
    out = Body()
    f = _Finder(body)
    n = len(body)
    i = _skip_blank(body, 0)
    if i >= n:
        return None
    while i < n:
        m = _INV.match(body, i)
        if m is None:
            nxt = f.find("<invoke", i + 1)
            stop = n if nxt < 0 else nxt
            out.bad(strings.trim(body[i:stop]), "not an invoke")
            i = _skip_blank(body, stop)
            continue
        name = strings.trim(m.group(1) or m.group(2) or m.group(3) or "")
        end = f.find(_INV_END, m.end())
        nxt = f.find("<invoke", m.end())
        stop = min(x for x in (end, nxt, n) if x >= 0)
        call_end = end + len(_INV_END) if end >= 0 and end == stop else stop
        raw = strings.trim(body[i:call_end])
        args = _named_params(body, m.end(), stop, f, name, typer)
        if not name_ok(name):
            out.bad(raw, "invalid name", name or None)
        elif args is None:
            out.bad(raw, "broken parameter", name)
        else:
            out.calls.append(ToolCall(name, args))
        i = _skip_blank(body, call_end)
    return out


def _named_params(
    body: str, i: int, stop: int, f: _Finder, name: str, typer: Typer | None
) -> dict[str, Any] | None:
    args: dict[str, Any] = {}
    while True:
        i = _skip_blank(body, i, stop)
        if i >= stop:
            return args
        m = _PARAM.match(body, i)
        if m is None or m.end() > stop:
            return None
        key = strings.trim(m.group(1) or m.group(2) or m.group(3) or "")
        close = f.find(_PARAM_END, m.end())
        if not key or close < 0 or close > stop:
            return None
        args[key] = _raw_value(typer, name, key, strings.trim(body[m.end() : close]))
        i = close + len(_PARAM_END)


# ---- R17.5 Kimi-K2: <|tool_call_begin|>ID<|tool_call_argument_begin|>JSON<|tool_call_end|> -----

_KB: Final = "<|tool_call_begin|>"
_KA: Final = "<|tool_call_argument_begin|>"
_KE: Final = "<|tool_call_end|>"


def kimi_calls(body: str, typer: Typer | None = None) -> Body | None:
    out = Body()
    f = _Finder(body)
    n = len(body)
    i = _skip_blank(body, 0)
    while i < n:
        if not body.startswith(_KB, i):
            nxt = f.find(_KB, i)
            stop = n if nxt < 0 else nxt
            out.bad(strings.trim(body[i:stop]), "text between calls")
            i = stop
            continue
        end = f.find(_KE, i)
        nxt = f.find(_KB, i + len(_KB))
        if end < 0 or (0 <= nxt < end):
            stop = n if nxt < 0 else nxt
            out.bad(strings.trim(body[i:stop]), "call without its end")
            i = stop
            continue
        raw = body[i : end + len(_KE)]
        sep = f.find(_KA, i)
        if sep < 0 or sep > end:
            out.bad(raw, "no argument marker")
        else:
            call_id = strings.trim(body[i + len(_KB) : sep])
            name = kimi_name(call_id)
            args = (
                _json_object(body[sep + len(_KA) : end]) if strings.trim(body[sep + len(_KA) : end]) else {}
            )
            if not name_ok(name):
                out.bad(raw, "invalid name", name or None)
            elif args is None:
                out.bad(raw, "arguments are not a JSON object", name)
            else:
                out.calls.append(ToolCall(name, args, call_id))
        i = _skip_blank(body, end + len(_KE))
    return out


def kimi_name(call_id: str) -> str:
    """`functions.NAME:INDEX` -> NAME; an id without the prefix or index is the name as written."""
    s = call_id
    if s.startswith("functions."):
        s = s[len("functions.") :]
    c = s.rfind(":")
    if c > 0 and _DIGITS.fullmatch(s, c + 1) is not None:
        s = s[:c]
    return strings.trim(s)


_DIGITS: Final = re.compile("[0-9]+")

GRAMMARS: Final = {
    "json_call": json_call,
    "function_tags": function_tags,
    "arg_pairs": arg_pairs,
    "invoke_tags": invoke_tags,
    "kimi_calls": kimi_calls,
}


def body_kind(body: str) -> str:
    """How a body starts, to tell apart the rows that share an opener (`<tool_call>`): `json`,
    `function` or `name`."""
    i = _skip_blank(body, 0)
    if i < len(body) and body[i] in "{[":
        return "json"
    if body.startswith(_FN, i):
        return "function"
    return "name"


# ---- R17.8 Llama 4 pythonic: [f(a=1, b="x"), g()] ---------------------------------------------

_IDENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_ESCAPES: Final = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
}
# Python's numeric escapes: \xHH, \uHHHH, \UHHHHHHHH, and up to three octal digits.
_NUM_ESCAPE: Final = re.compile(r"x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}")
MAX_DEPTH: Final = 100


class _Py:
    """A cursor over a pythonic call list; `fail()` ends the reading (not a call list)."""

    __slots__ = ("i", "s")

    def __init__(self, s: str) -> None:
        self.s = s
        self.i = 0

    def ws(self) -> None:
        self.i = _skip_blank(self.s, self.i)

    def eat(self, c: str) -> bool:
        self.ws()
        if self.s.startswith(c, self.i):
            self.i += len(c)
            return True
        return False

    def ident(self) -> str | None:
        self.ws()
        m = _IDENT.match(self.s, self.i)
        if m is None:
            return None
        self.i = m.end()
        return m.group()

    def value(self, depth: int) -> tuple[bool, Any]:
        self.ws()
        s, i = self.s, self.i
        if depth >= MAX_DEPTH or i >= len(s):  # (depth counts the containers around this value)
            return False, None
        c = s[i]
        if c in "'\"":
            return self.string(c)
        if c in "[(":
            return self.items("]" if c == "[" else ")", depth)
        if c == "{":
            return self.mapping(depth)
        m = _NUMBER.match(s, i)
        if m is not None:
            self.i = m.end()
            ok, v = values.json_value(m.group())
            return ok, v
        word = self.ident()
        if word in ("True", "False", "None"):
            return True, {"True": True, "False": False, "None": None}[word]
        return False, None

    def string(self, q: str) -> tuple[bool, Any]:
        s = self.s
        i = self.i + 1
        out: list[str] = []
        start = i
        n = len(s)
        while i < n:
            c = s[i]
            if c == q:
                out.append(s[start:i])
                self.i = i + 1
                return True, "".join(out)
            if c == "\n" or c == "\r":  # (no string holds a line break: Python's newlines are LF, CR LF, CR)
                return False, None
            if c == "\\" and i + 1 < n:
                out.append(s[start:i])
                e = s[i + 1]
                if e == "\n" or e == "\r":  # a line continuation: nothing
                    i += 3 if s.startswith("\r\n", i + 1) else 2
                    start = i
                    continue
                m = _NUM_ESCAPE.match(s, i + 1)
                if m is not None:
                    t = m.group()
                    cp = int(t, 8) if t[0] in "01234567" else int(t[1:], 16)
                    if 0xD800 <= cp <= 0xDFFF or cp > 0x10FFFF:
                        return False, None  # (a surrogate half: no string of every runtime)
                    out.append(chr(cp))
                    i = m.end()
                else:
                    out.append(_ESCAPES.get(e, "\\" + e))
                    i += 2
                start = i
                continue
            i += 1
        return False, None

    def items(self, close: str, depth: int) -> tuple[bool, Any]:
        self.i += 1
        out: list[Any] = []
        while True:
            if self.eat(close):
                return True, out
            ok, v = self.value(depth + 1)
            if not ok:
                return False, None
            out.append(v)
            if not self.eat(","):
                return (True, out) if self.eat(close) else (False, None)

    def mapping(self, depth: int) -> tuple[bool, Any]:
        self.i += 1
        out: dict[str, Any] = {}
        while True:
            if self.eat("}"):
                return True, out
            ok, k = self.value(depth + 1)
            if not ok or not isinstance(k, str) or not self.eat(":"):
                return False, None
            ok, v = self.value(depth + 1)
            if not ok:
                return False, None
            out[k] = v
            if not self.eat(","):
                return (True, out) if self.eat("}") else (False, None)

    def call(self) -> ToolCall | None:
        name = self.ident()
        if name is None:
            return None
        while self.s.startswith(".", self.i):
            self.i += 1
            part = self.ident()
            if part is None:
                return None
            name += "." + part
        if not self.eat("("):
            return None
        args: dict[str, Any] = {}
        while True:
            if self.eat(")"):
                return ToolCall(name, args)
            key = self.ident()
            if key is None or not self.eat("="):
                return None
            ok, v = self.value(0)
            if not ok:
                return None
            args[key] = v
            if not self.eat(","):
                return ToolCall(name, args) if self.eat(")") else None


def pythonic_calls(body: str, typer: Typer | None = None) -> Body | None:
    """`[f(a=1), g()]` (or one bare call): Python literals as values (D57). A body that does not
    read as a call list whole is one malformed call (its text and `not a Python call list`)."""
    out = Body()
    p = _Py(body)
    p.ws()
    if p.i >= len(body):
        return None
    calls: list[ToolCall] = []
    ok = True
    if p.eat("["):
        while True:
            if p.eat("]"):
                break
            c = p.call()
            if c is None:
                ok = False
                break
            calls.append(c)
            if not p.eat(","):
                ok = p.eat("]")
                break
    else:
        c = p.call()
        ok = c is not None
        if c is not None:
            calls.append(c)
    p.ws()
    if not ok or p.i != len(body):
        out.bad(strings.trim(body), "not a Python call list")
        return out
    out.calls = calls
    return out


GRAMMARS["pythonic_calls"] = pythonic_calls
