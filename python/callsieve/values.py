"""Parameter values (R6): CDATA, entities, JSON literals, XML children, repeated names.

A parameter body arrives from the scanner as segments: ("text", raw markup) and ("cdata", content).
Everything here is a pure function of those segments, so Python and Node agree by construction.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from .events import ToolCall
from .jsontext import number_int
from .shell import CLOSE_ANGLES, MORE, NO, match_cdata_open
from .strings import JS_SPACE, ascii_lower, is_blank, json_trim, trim

Segment = tuple[str, str]  # ("text" | "cdata", string)

# R6.5: parameters whose value is raw text whatever it holds.
RAW_TEXT_NAMES: Final = frozenset(
    {
        "content",
        "file_content",
        "text",
        "prompt",
        "query",
        "command",
        "cmd",
        "script",
        "code",
        "old_string",
        "new_string",
        "pattern",
        "path",
        "file_path",
    }
)

_ENTITY_RE: Final = re.compile(r"&(lt|gt|amp|quot|apos|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});")
_NAMED: Final = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


def _entity(m: re.Match[str]) -> str:
    body = m.group(1)
    if body[0] != "#":
        return _NAMED[body]
    code = int(body[2:], 16) if body[1] in "xX" else int(body[1:])
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return m.group(0)
    return chr(code)


def decode_entities(s: str) -> str:
    """D13: the five XML entities and numeric references; anything else stays as written."""
    if "&" not in s:
        return s
    if len(s) <= _DECODE_BLOCK:
        return _ENTITY_RE.sub(_entity, s)
    # A long text goes by blocks: re.sub keeps every piece of its result as a string object
    # until it joins them (about 8 bytes per character for code full of entities). A block
    # never ends inside an entity (one is at most 10 characters, starting with `&`).
    out: list[str] = []
    i, n = 0, len(s)
    while i < n:
        j = min(n, i + _DECODE_BLOCK)
        if j < n:
            k = s.rfind("&", j - 10, j)
            if k > i:
                j = k
        out.append(_ENTITY_RE.sub(_entity, s[i:j]))
        i = j
    return "".join(out)


_DECODE_BLOCK: Final = 1 << 16


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_JSON_START: Final = frozenset('{["-0123456789tfn')
_JSON_BLANKS: Final = re.compile(r"[ \t\n\r]*")
_JS_BLANKS: Final = re.compile("[" + JS_SPACE + "]*")


MAX_DEPTH: Final = 200  # D21: JSON or XML values nested deeper stay strings


# json.loads with options builds a decoder per call; one decoder serves every value.
_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant, parse_int=number_int)


def json_value(s: str) -> tuple[bool, Any]:
    """(True, value) when `s` is a JSON text as JSON.parse accepts it (no NaN/Infinity)."""
    k = _JSON_BLANKS.match(s).end()  # type: ignore[union-attr]
    if k == len(s) or s[k] not in _JSON_START:
        return False, None  # (decided without copying a long text that is not JSON)
    t = json_trim(s)
    try:
        v = _DECODER.decode(t)
    except (ValueError, RecursionError):
        return False, None
    # (a value is at most as deep as its text has openers: only a text with many is walked)
    if t[0] in "[{" and t.count("[") + t.count("{") > MAX_DEPTH and _deeper_than(v, MAX_DEPTH):
        return False, None
    return True, v


def _deeper_than(v: Any, limit: int) -> bool:
    """D21: is the JSON value nested more than `limit` levels deep? (iterative)"""
    stack = [(v, 1)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, dict | list):
            if d > limit:
                return True
            stack.extend((y, d + 1) for y in (x.values() if isinstance(x, dict) else x))
    return False


def _object_list(s: str) -> tuple[bool, Any]:
    """D9: `{..}, {..}` (comma-separated objects) as an array."""
    i = _JS_BLANKS.match(s).end()  # type: ignore[union-attr]
    j = len(s)
    while j > i and s[j - 1] in JS_SPACE:
        j -= 1
    if i == j or s[i] != "{" or s[j - 1] != "}":
        return False, None  # (decided without copying a long text)
    t = s[i:j]
    ok, v = json_value("[" + t + "]")
    if ok and isinstance(v, list) and len(v) > 1 and all(isinstance(x, dict) for x in v):
        return True, v
    return False, None


def literal(name: str, s: str) -> Any:
    """A scalar text value: JSON when it is JSON (R6.3), an object list (D9), else the string."""
    ok, v = json_value(s)
    if ok:
        return v
    if name not in RAW_TEXT_NAMES:
        ok, v = _object_list(s)
        if ok:
            return v
    return s


# ---- XML children (R6.4, R6.5) --------------------------------------------------------------

_TAG_RE: Final = re.compile(r"<(/?)([A-Za-z_][A-Za-z0-9_:.\-]*)((?:[ \t\n\r][^<>]*?)?)(/?)>")
_BR_RE: Final = re.compile(r"<[bB][rR][ \t\n\r]*/?>")


class _NotStructured(ValueError):
    """A fragment that parses as XML but is not a value (mixed content)."""


class _Element:
    __slots__ = ("children", "name", "texts")

    def __init__(self, name: str) -> None:
        self.name = name
        self.children: list[_Element] = []
        self.texts: list[tuple[str, str]] = []  # ("text", decoded) / ("cdata", raw)


def _tokens(segments: list[Segment]) -> list[tuple[str, str]] | None:
    """Split segments into ("open"|"close"|"empty", name) and ("text"|"cdata", s) tokens. Nesting
    deeper than D21 allows stops it at once: no token list the size of the value is built."""
    out: list[tuple[str, str]] = []
    depth = 0
    for kind, s in segments:
        if kind == "cdata":
            out.append(("cdata", s))
            continue
        i = 0
        n = len(s)
        while i < n:
            lt = s.find("<", i)
            if lt < 0:
                out.append(("text", s[i:]))
                break
            if lt > i:
                out.append(("text", s[i:lt]))
            c_end = match_cdata_open(s, lt, True)
            if c_end is not MORE and c_end is not NO:
                assert isinstance(c_end, int)
                close = _find_cdata_close(s, c_end)
                if close < 0:
                    return None
                out.append(("cdata", s[c_end:close]))
                i = close + 3
                continue
            m = _TAG_RE.match(s, lt)
            if m is None:
                return None  # a '<' that is not markup: not structured
            if m.group(1):
                out.append(("close", m.group(2)))
                depth -= 1
            elif m.group(4):
                out.append(("empty", m.group(2)))
            else:
                out.append(("open", m.group(2)))
                depth += 1
                if depth > MAX_DEPTH:
                    return None  # _build would refuse it too
            i = m.end()
    return out


def _find_cdata_close(s: str, i: int) -> int:
    while True:
        k = s.find("]]", i)
        if k < 0 or k + 2 >= len(s):
            return -1
        if s[k + 2] in CLOSE_ANGLES:
            return k
        i = k + 1


def _build(tokens: list[tuple[str, str]]) -> _Element | None:
    root = _Element("")
    stack = [root]
    for kind, v in tokens:
        top = stack[-1]
        if kind == "open":
            el = _Element(v)
            top.children.append(el)
            stack.append(el)
            if len(stack) > MAX_DEPTH + 1:
                return None
        elif kind == "empty":
            top.children.append(_Element(v))
        elif kind == "close":
            if len(stack) == 1 or top.name != v:
                return None
            stack.pop()
        elif kind == "text":
            top.texts.append(("text", v))
        else:
            top.texts.append(("cdata", v))
    if len(stack) != 1:
        return None
    return root


def _leaf(el: _Element) -> Any:
    texts = el.texts
    if len(texts) == 1 and texts[0][0] == "cdata":
        return literal(el.name, texts[0][1])
    parts = [decode_entities(s) if k == "text" else s for k, s in texts]
    return literal(el.name, trim("".join(parts)))


def _value(el: _Element) -> Any:
    if not el.children:
        return _leaf(el)
    if any(k == "cdata" or not is_blank(s) for k, s in el.texts):
        raise _NotStructured("mixed content")
    if all(c.name == "item" for c in el.children):
        return [_value(c) for c in el.children]
    obj: dict[str, Any] = {}
    multi: set[str] = set()
    for c in el.children:
        v = _value(c)
        if c.name in obj:
            if c.name not in multi:
                obj[c.name] = [obj[c.name]]
                multi.add(c.name)
            obj[c.name].append(v)
        else:
            obj[c.name] = v
    return obj


def structured(segments: list[Segment], *, clearly: bool) -> tuple[bool, Any]:
    """Parse segments as an XML fragment of elements (R6.4). With `clearly`, only a clearly
    structured fragment counts (R6.5): several top-level elements, one `item`, or one element with
    child elements."""
    tokens = _tokens(segments)
    if tokens is None:
        return False, None
    root = _build(tokens)
    if root is None or not root.children:
        return False, None
    if clearly:
        kids = root.children
        if not (len(kids) > 1 or kids[0].name == "item" or kids[0].children):
            return False, None
    try:
        return True, _value(root)
    except (_NotStructured, RecursionError):
        return False, None


def param_value(name: str, segments: list[Segment], string: str | None = None) -> Any:
    """The value of one parameter from its body segments (R6.1-R6.5, R6.7, D9), or by its
    `string` attribute (R14.2, D24) when it says "true" or "false"."""
    typed = ascii_lower(trim(string)) if string is not None else ""
    if typed == "true":
        return _as_written(segments)
    if typed == "false":
        raw = trim(_as_written(segments))
        ok, v = json_value(raw)
        return v if ok else raw
    key = trim(name).lower()
    cdatas = [s for k, s in segments if k == "cdata"]
    texts_blank = all(is_blank(s) for k, s in segments if k == "text")
    if len(cdatas) == 1 and texts_blank:
        raw = cdatas[0]
        ok, v = json_value(raw)
        if ok:
            return v
        if key in RAW_TEXT_NAMES:
            return raw
        ok, v = _object_list(raw)
        if ok:
            return v
        if "<" in raw:
            ok, v = structured([("text", _BR_RE.sub("\n", raw))], clearly=True)
            if ok:
                return v
        return raw
    if any(k == "text" and "<" in s for k, s in segments):
        ok, v = structured(segments, clearly=False)
        if ok:
            return v
    parts = [decode_entities(s) if k == "text" else s for k, s in segments]
    return literal(key, trim("".join(parts)))


def _as_written(segments: list[Segment]) -> str:
    """D24: the body as written: no entity decoding, no trimming; CDATA sections are unwrapped,
    and a body that is one CDATA between blanks is its content."""
    if any(k == "cdata" for k, _ in segments) and all(is_blank(s) for k, s in segments if k == "text"):
        return "".join(s for k, s in segments if k == "cdata")
    return "".join(s for _, s in segments)


def invoke_input(params: list[tuple[str, Any]]) -> dict[str, Any]:
    """Collect parameters into the input object; a repeated name becomes an array (R6.6)."""
    out: dict[str, Any] = {}
    multi: set[str] = set()
    for name, value in params:
        add_param(out, multi, name, value)
    return out


def add_param(out: dict[str, Any], multi: set[str], name: str, value: Any) -> None:
    """One parameter into the input object being built (`multi`: the names already arrays)."""
    if name in out:
        if name not in multi:
            out[name] = [out[name]]
            multi.add(name)
        out[name].append(value)
    else:
        out[name] = value


_BAD_ESCAPE: Final = re.compile(r'\\(?!["\\/bfnrtu])')


def json_calls(text: str) -> tuple[list[ToolCall], bool] | None:
    """R9: the calls of a JSON object in prose and whether they were read only after R9.2's
    repair, or None when it is not a tool call.

    Accepted: `{"tool_calls": [item, ...]}` and a single item, where an item is
    `{"name", "input": {..}}`, `{"name", "arguments": {..} | "<JSON object text>"}`,
    `{"name", "parameters": {..}}`, or OpenAI's `{"type": "function", "function": {...}}`.
    A chat message envelope (with `role` or `content`) is not a call. Invalid backslashes are
    the one narrow repair (R9.2)."""
    ok, v = json_value(text)
    repaired = not ok
    if repaired:
        ok, v = json_value(_BAD_ESCAPE.sub(r"\\\\", text))
    if not ok or not isinstance(v, dict) or "role" in v or "content" in v:
        return None
    if "tool_calls" in v:
        items = v["tool_calls"]
        if len(v) != 1 or not isinstance(items, list) or not items:
            return None
        calls = [_json_item(x, bare=False) for x in items]
    else:
        calls = [_json_item(v, bare=True)]
    if any(c is None for c in calls):
        return None
    return [c for c in calls if c is not None], repaired


def _json_item(item: Any, *, bare: bool) -> ToolCall | None:
    if not isinstance(item, dict):
        return None
    if item.get("type") == "function" and isinstance(item.get("function"), dict):
        item = item["function"]
    name = item.get("name")
    if not isinstance(name, str) or is_blank(name):
        return None
    for key in ("input", "arguments", "parameters"):
        if key in item:
            args = item[key]
            if isinstance(args, str):
                if is_blank(args):
                    return ToolCall(trim(name), {})
                ok, args = json_value(args)
                if not ok:
                    return None
            return ToolCall(trim(name), args) if isinstance(args, dict) else None
    return None if bare else ToolCall(trim(name), {})


def json_body_input(text: str) -> dict[str, Any] | None:
    """D5: an invoke whose body is a JSON object; `{"input": {...}}` unwraps."""
    ok, v = json_value(text)
    if not ok or not isinstance(v, dict):
        return None
    inner = v.get("input")
    if len(v) == 1 and isinstance(inner, dict):
        return inner
    return v
