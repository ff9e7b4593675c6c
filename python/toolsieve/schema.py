"""Tool definitions and schema-aware normalization of call inputs (SEMANTICS.md R12).

Tool definitions are OpenAI-style, either wrapped or flat::

    {"type": "function", "function": {"name": "read_file", "description": "...", "parameters": {...}}}
    {"name": "read_file", "parameters" | "input_schema" | "inputSchema" | "schema": {...}}

Declared names are trimmed (D10 whitespace). The schema of a wrapped tool is looked up in
`function` first, then in the tool itself, under `parameters`, `input_schema`, `inputSchema`,
`schema` (in that order); only an object counts as a schema.

Normalization (`normalize_value`) follows R12:

- A value whose schema "says string" becomes a string. A schema says string when its `type` is
  `"string"`; or its `type` is a non-empty list of `"string"` and `"null"` only that contains
  `"string"`; or it has no `type` and its `enum` is a non-empty list of strings, or its `const` is a
  string. Strings stay as they are; `null` stays `null` when the type list allows `"null"`;
  anything else becomes its JSON text as JavaScript's `JSON.stringify` writes it (`json_text`):
  `1` → `"1"`, `true` → `"true"`, `null` → `"null"`, `{"a": 1}` → `'{"a":1}'`.
- An array recurses into its items: with `prefixItems` (a list), item *i* takes `prefixItems[i]`
  and later items take `items`; with `items` as a list (older drafts), item *i* takes `items[i]`
  and later items take `additionalItems`; otherwise every item takes `items`. A property typed
  `array` therefore keeps its array (only its items may change).
- An object recurses into its properties: a key takes `properties[key]` when declared, else
  `additionalProperties` when that is a schema object.
- Anything else (no schema, a schema that is not an object, `$ref`, `anyOf`, a type that does not
  match the value) leaves the value as it is. Odd schemas never raise.

Values are never mutated: changed containers are copied, unchanged parts are shared.

Numbers are written as JavaScript writes them, so that Python and JavaScript give the same text:
integral floats without a fraction (`2.0` → `"2"`), exponents from 1e21 up and below 1e-6
(`1e21` → `"1e+21"`, `1.5e-7` → `"1.5e-7"`), non-finite numbers as `null`. Object keys that are
array indices (`"0"`, `"12"`) come first in ascending order, as in a JavaScript object; other keys
keep their order.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from .errors import InputTypeError
from .values import ascii_lower, trim

SCHEMA_KEYS: Final = ("parameters", "input_schema", "inputSchema", "schema")

# ---------------------------------------------------------------------------------------------
# JSON text exactly as JavaScript's JSON.stringify(value) writes it (no spaces).

_ESCAPES: Final = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE: Final = re.compile('[\x00-\x1f"\\\\\ud800-\udfff]')
_INDEX_KEY: Final = re.compile(r"0|[1-9][0-9]{0,9}")
_MAX_INDEX: Final = 2**32 - 2


def _escape_char(m: re.Match[str]) -> str:
    c = m.group()
    return _ESCAPES.get(c) or f"\\u{ord(c):04x}"


def _quote(s: str) -> str:
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, s) + '"'


def js_number(x: int | float) -> str:
    """A number as JavaScript's Number#toString (and JSON.stringify) writes it; NaN/±Infinity → "null"."""
    if isinstance(x, int):
        try:
            return str(x)
        except ValueError:  # beyond Python's int-to-str digit limit
            raise InputTypeError("integer too large to write as JSON text") from None
    if math.isnan(x) or math.isinf(x):
        return "null"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mant, _, exp = repr(abs(x)).partition("e")
    ip, _, fp = mant.partition(".")
    digits = ip + fp
    point = len(ip) + (int(exp) if exp else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k, n = len(digits), point  # value = 0.<digits> * 10**n
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        es = f"+{e}" if e >= 0 else str(e)
        body = (digits if k == 1 else digits[0] + "." + digits[1:]) + "e" + es
    return sign + body


def _key_text(k: object) -> str:
    if isinstance(k, str):
        return k
    if k is None or isinstance(k, bool):
        return {None: "null", True: "true", False: "false"}[k]
    if isinstance(k, int | float):
        return js_number(k)
    raise InputTypeError(f"object keys must be strings, got {type(k).__name__}")


def js_keys(obj: Mapping[Any, Any]) -> list[tuple[str, Any]]:
    """The (key, value) pairs of `obj` in JavaScript property order: array-index keys first,
    ascending, then the other keys in insertion order."""
    pairs = [(_key_text(k), v) for k, v in obj.items()]
    index = [(k, v) for k, v in pairs if _INDEX_KEY.fullmatch(k) and int(k) <= _MAX_INDEX]
    if not index:
        return pairs
    index.sort(key=lambda kv: int(kv[0]))
    return index + [(k, v) for k, v in pairs if not (_INDEX_KEY.fullmatch(k) and int(k) <= _MAX_INDEX)]


_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _plain(value: Any) -> bool:
    """True when json.dumps writes `value` exactly as JSON.stringify does (but for lone
    surrogates, fixed afterwards): no floats, and only string keys that are not array indices."""
    stack = [value]
    seen = 0
    while stack:
        v = stack.pop()
        seen += 1
        if seen > 100_000:
            return False  # large (or cyclic): the general path decides
        t = type(v)
        if t is dict:
            for k, x in v.items():
                if type(k) is not str or (k[:1].isdigit() and _INDEX_KEY.fullmatch(k)):
                    return False
                stack.append(x)
        elif t is list or t is tuple:
            stack.extend(v)
        elif not (t is str or t is int or t is bool or v is None):
            return False  # floats, subclasses, anything else: the general path
    return True


def json_text(value: Any) -> str:
    """Compact JSON text of a JSON-like value, byte for byte as JavaScript's JSON.stringify writes it.

    Accepts dict (string keys), list, tuple, str, int, float, bool and None; iterative, so any
    depth works. Raises InputTypeError for other types."""
    if _plain(value):
        # The common case (chunks, arguments without floats) at C speed; any surprise (another
        # type, a depth beyond the recursion limit) takes the general path below.
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError, RecursionError):
            pass
        else:
            return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return _json_text(value)


def _json_text(value: Any) -> str:
    out: list[str] = []
    # Work items: a value to write, or a literal piece of text to append (a _Lit). A closing
    # _Lit carries the id of its container, which is "open" until then: meeting an open
    # container again is a cycle (JSON.stringify throws too).
    stack: list[Any] = [value]
    open_ids: set[int] = set()
    while stack:
        v = stack.pop()
        if type(v) is _Lit:
            out.append(v.s)
            if v.closes:
                open_ids.discard(v.closes)
        elif isinstance(v, str):
            out.append(_quote(v))
        elif v is None:
            out.append("null")
        elif v is True:
            out.append("true")
        elif v is False:
            out.append("false")
        elif isinstance(v, int | float):
            out.append(js_number(v))
        elif isinstance(v, dict | list | tuple):
            if id(v) in open_ids:
                raise InputTypeError("cyclic structure: not a JSON value")
            open_ids.add(id(v))
            items: list[Any]
            if isinstance(v, dict):
                items = [_Lit("{")]
                for i, (k, x) in enumerate(js_keys(v)):
                    items.append(_Lit(("," if i else "") + _quote(k) + ":"))
                    items.append(x)
                items.append(_Lit("}", id(v)))
            else:
                items = [_Lit("[")]
                for i, x in enumerate(v):
                    if i:
                        items.append(_Lit(","))
                    items.append(x)
                items.append(_Lit("]", id(v)))
            stack.extend(reversed(items))
        else:
            raise InputTypeError(f"not a JSON value: {type(v).__name__}")
    return "".join(out)


class _Lit:
    __slots__ = ("closes", "s")

    def __init__(self, s: str, closes: int = 0) -> None:
        self.s = s
        self.closes = closes


# ---------------------------------------------------------------------------------------------
# Tool definitions.


def check_tools(tools: Any) -> list[Any] | tuple[Any, ...] | None:
    """`tools` when it is None or a list (or tuple) of tool definitions, else an InputTypeError."""
    if tools is not None and not isinstance(tools, list | tuple):
        raise InputTypeError(f"tools must be a list of tool definitions, got {type(tools).__name__}")
    return tools


def tool_name(tool: Any) -> str:
    """The declared name of a tool entry (`{"function": {"name"}}` or `{"name"}`), trimmed, or ''."""
    if not isinstance(tool, dict):
        return ""
    fn = tool.get("function")
    if isinstance(fn, dict):
        n = fn.get("name")
        if isinstance(n, str) and trim(n):
            return trim(n)
    n = tool.get("name")
    if isinstance(n, str) and trim(n):
        return trim(n)
    return ""


def tool_schema(tool: Any) -> dict[str, Any] | None:
    """The JSON schema of a tool entry, or None (see the module docstring for where it is found)."""
    if not isinstance(tool, dict):
        return None
    fn = tool.get("function")
    holders = [fn, tool] if isinstance(fn, dict) else [tool]
    for holder in holders:
        for k in SCHEMA_KEYS:
            s = holder.get(k)
            if isinstance(s, dict):
                return s
    return None


def tool_names_of(tools: Iterable[Any] | None) -> list[str]:
    """The distinct declared names of `tools`, in order (entries without a name are skipped)."""
    if not isinstance(tools, list | tuple):
        return []
    out: list[str] = []
    seen: set[str] = set()
    for tool in tools:
        n = tool_name(tool)
        if n and n not in seen:
            seen.add(n)
            out.append(n)
    return out


def tool_schemas(tools: Iterable[Any] | None) -> dict[str, dict[str, Any]]:
    """Declared name → schema, for the tools that have one (the first definition of a name wins)."""
    out: dict[str, dict[str, Any]] = {}
    if not isinstance(tools, list | tuple):
        return out
    for tool in tools:
        n = tool_name(tool)
        s = tool_schema(tool)
        if n and s is not None and n not in out:
            out[n] = s
    return out


def find_tool_schema(tools: Iterable[Any] | None, name: Any) -> dict[str, Any] | None:
    """The schema of the tool called `name` (trimmed): the first tool of exactly that name that has
    a schema; else the schema (or None) of the first tool whose name matches ignoring ASCII case."""
    if not isinstance(tools, list | tuple) or not isinstance(name, str):
        return None
    want = trim(name)
    want_lower = ascii_lower(want)
    loose: dict[str, Any] | None = None
    loose_seen = False
    for tool in tools:
        n = tool_name(tool)
        if not n:
            continue
        if n == want:
            s = tool_schema(tool)
            if s is not None:
                return s
        elif not loose_seen and ascii_lower(n) == want_lower:
            loose_seen = True
            loose = tool_schema(tool)
    return loose


# ---------------------------------------------------------------------------------------------
# Normalization.

_STRING_LIKE: Final = frozenset({"string", "null"})


def is_string_schema(s: dict[str, Any]) -> bool:
    """Does the schema say "string"? (R12; see the module docstring.)"""
    t = s.get("type")
    if t == "string" and isinstance(t, str):
        return True
    if isinstance(t, list):
        return bool(t) and "string" in t and all(isinstance(x, str) and x in _STRING_LIKE for x in t)
    if "type" in s:
        return False
    enum = s.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(x, str) for x in enum):
        return True
    return isinstance(s.get("const"), str)


def _allows_null(s: dict[str, Any]) -> bool:
    t = s.get("type")
    return isinstance(t, list) and "null" in t


def _to_text(v: Any) -> str:
    try:
        return json_text(v)
    except InputTypeError:
        return str(v)


def normalize_value(value: Any, schema: Any) -> Any:
    """Normalize one value by its JSON schema (R12). Never raises on odd schemas."""
    if not isinstance(schema, dict):
        return value
    if is_string_schema(schema):
        if isinstance(value, str):
            return value
        if value is None and _allows_null(schema):
            return value
        return _to_text(value)
    if isinstance(value, list):
        tuple_: list[Any] | None = None
        rest: Any = None
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        if isinstance(prefix, list):
            tuple_, rest = prefix, items
        elif isinstance(items, list):
            tuple_, rest = items, schema.get("additionalItems")
        else:
            rest = items
        out = []
        for i, x in enumerate(value):
            sub = tuple_[i] if tuple_ is not None and i < len(tuple_) else rest
            out.append(normalize_value(x, sub) if isinstance(sub, dict) else x)
        return out
    if isinstance(value, dict):
        props = schema.get("properties")
        props = props if isinstance(props, dict) else None
        extra = schema.get("additionalProperties")
        extra = extra if isinstance(extra, dict) else None
        if props is None and extra is None:
            return value
        result = {}
        for k, x in value.items():
            sub = props[k] if props is not None and k in props else extra
            result[k] = normalize_value(x, sub) if isinstance(sub, dict) else x
        return result
    return value


def normalize_input(name: str, input: dict[str, Any], tools: Iterable[Any] | None) -> dict[str, Any]:
    """The input of a call to `name`, normalized by that tool's schema (R12); the input itself
    when the tool is unknown or has no schema. The tool name is matched as in `find_tool_schema`."""
    schema = find_tool_schema(tools, name)
    if schema is None:
        return input
    out = normalize_value(input, schema)
    return out if isinstance(out, dict) else input


__all__ = [
    "find_tool_schema",
    "is_string_schema",
    "js_number",
    "json_text",
    "normalize_input",
    "normalize_value",
    "tool_name",
    "tool_names_of",
    "tool_schema",
    "tool_schemas",
]
