"""Tool definitions and schema-aware normalization of call inputs (docs/SPEC.md R12).

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
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .errors import InputTypeError
from .jsontext import json_text
from .strings import ascii_lower, trim
from .values import json_value as _json_value

SCHEMA_KEYS: Final = ("parameters", "input_schema", "inputSchema", "schema")

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
    a schema; else the schema (or None) of the first tool whose name matches ignoring ASCII case
    (D19)."""
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


# ---------------------------------------------------------------------------------------------
# R17.9: values written as raw text (Qwen3-Coder, Seed-OSS, GLM, MiniMax), typed by the schema.


def _schema_types(s: dict[str, Any]) -> list[str]:
    """The type names a schema allows, in order: `type` (a name or a list), else the types of its
    `anyOf` / `oneOf` branches (one level)."""
    t = s.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return [x for x in t if isinstance(x, str)]
    out: list[str] = []
    for key in ("anyOf", "oneOf"):
        branches = s.get(key)
        if isinstance(branches, list):
            for b in branches:
                if isinstance(b, dict):
                    out += [x for x in _schema_types(b) if x not in out]
    return out


def keeps_text(schema: Any) -> bool:
    """Does `typed_value` give every text back as written (the schema allows a string, or says
    nothing usable)? Only then can a raw-text value stream before it ends (R16, R17.9)."""
    if not isinstance(schema, dict):
        return True
    types = _schema_types(schema)
    return not types or "string" in types


def typed_value(schema: Any, raw: str) -> tuple[bool, Any]:
    """(True, value) when `raw` reads as a type the property's schema allows: a string stays as
    written; integer, number, boolean, object and array convert from their JSON text (`True` /
    `False` too; an object or array only from an object or array text; an integer only within
    ±(2**53 - 1), D65); `null` / `None` is null where the schema allows it. (False, None) when the schema
    says nothing usable or the text does not convert: the caller keeps the string (R17.9: a call
    is never dropped for a value)."""
    if not isinstance(schema, dict):
        return False, None
    types = _schema_types(schema)
    if not types:
        return (True, raw) if is_string_schema(schema) else (False, None)
    if "string" in types:
        return True, raw
    t = trim(raw)
    for ty in types:
        if ty == "boolean" and t in ("true", "True", "false", "False"):
            return True, t in ("true", "True")
        if ty in ("object", "array"):
            # only a container converts: a bare `5` for an object stays the string
            ok, v = _json_value(t)
            if ok and isinstance(v, dict if ty == "object" else list):
                return True, v
        elif ty in ("integer", "number"):
            ok, v = _json_value(t)
            if not ok or isinstance(v, bool) or not isinstance(v, int | float):
                continue
            if ty == "number":
                return True, v
            # D65: an integer JavaScript cannot hold exactly (beyond 2**53 - 1) stays the string
            if isinstance(v, int):
                return True, v
            if v.is_integer() and abs(v) < 2**53:
                return True, int(v)
    if "null" in types and t in ("null", "None"):
        return True, None
    return False, None


def property_schema(schema: dict[str, Any] | None, key: str) -> Any:
    """The schema of property `key` of an object schema (`properties`, else a schema-object
    `additionalProperties`), or None."""
    if schema is None:
        return None
    props = schema.get("properties")
    if isinstance(props, dict) and key in props:
        return props[key]
    extra = schema.get("additionalProperties")
    return extra if isinstance(extra, dict) else None


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
    "keeps_text",
    "normalize_input",
    "normalize_value",
    "property_schema",
    "tool_name",
    "tool_names_of",
    "tool_schema",
    "tool_schemas",
    "typed_value",
]
