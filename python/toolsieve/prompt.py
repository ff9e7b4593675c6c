"""The system-prompt text that teaches a model to call tools in DSML (R1.1 form only).

`build_tool_instructions(tools)` is deterministic: the same tools give the same text, in every
implementation. It has four parts: the block format with its rules; one section per tool (name,
description, parameters from the JSON schema: name, type, required or optional, allowed values,
description); an example with one call; an example with two calls in one block.

Decisions:

- Tools are OpenAI-style definitions (see `schema`); entries without a name are skipped, a name
  given twice is described once (the first definition). No tools: the empty string.
- Parameters are the schema's top-level `properties`, in JavaScript property order (`js_keys`).
  The type is `type` (a list joined with ` | `; `array of T` when `items.type` is a string),
  `string` for a schema with a string `enum` / `const` and no type, else `any`. Descriptions are
  trimmed and their whitespace runs (D10 whitespace) become one space.
- Examples call the first tool (the one-call example) and the first two tools (the two-call
  example; the first tool twice when there is only one). They give the required parameters, or
  the first parameter when none is required. A value is the first of `enum`, `const`, `default`,
  `examples[0]`, else by type: `"..."` for strings, `1` for integers and numbers, `true`, `[]`,
  `{}`, `null`. Strings are written in CDATA, other values as JSON text (`schema.json_text`);
  a string that contains `]]>` is replaced by `"..."` so that the example stays one CDATA. JSON
  text holding `<` goes in CDATA too (or becomes `"..."` when it holds `]]>`), and a name holding
  `"` is written in single quotes (names holding both kinds of quote are left out of the
  examples; no example at all when no tool name can be written): the examples always parse back
  into their calls.
- The text ends without a newline.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from .errors import InputTypeError
from .jsontext import js_keys, json_text
from .schema import tool_name, tool_schema
from .strings import JS_SPACE, trim

_SPACES: Final = re.compile("[" + "".join(re.escape(c) for c in JS_SPACE) + "]+")

_HEADER: Final = """# Tools

You can call the tools listed below. To call tools, write one block in exactly this form,
outside any code fence or inline code:

<|DSML|tool_calls>
<|DSML|invoke name="TOOL_NAME">
<|DSML|parameter name="STRING_PARAMETER"><![CDATA[text, written as it is]]></|DSML|parameter>
<|DSML|parameter name="OTHER_PARAMETER">42</|DSML|parameter>
</|DSML|invoke>
</|DSML|tool_calls>

Rules:
- Use the tool names and parameter names exactly as listed below.
- Write string values inside <![CDATA[ and ]]>, exactly as they are: no escaping, no quotes.
- Write numbers, true, false, null, arrays and objects as JSON, without CDATA.
- Give every required parameter; leave out optional parameters you do not need.
- To call several tools at once, put several invoke elements in one tool_calls block.
- A block inside a code fence or inline code is shown as text and never runs.
- After the block, stop: the results come in the next message."""


def _one_line(s: Any) -> str:
    return _SPACES.sub(" ", trim(s)) if isinstance(s, str) else ""


def _description(tool: dict[str, Any]) -> str:
    fn = tool.get("function")
    if isinstance(fn, dict) and isinstance(fn.get("description"), str):
        return trim(fn["description"])
    d = tool.get("description")
    return trim(d) if isinstance(d, str) else ""


def _properties(schema: dict[str, Any] | None) -> list[tuple[str, dict[str, Any]]]:
    if schema is None or not isinstance(schema.get("properties"), dict):
        return []
    return [(k, v if isinstance(v, dict) else {}) for k, v in js_keys(schema["properties"])]


def _required(schema: dict[str, Any] | None) -> list[str]:
    req = schema.get("required") if schema is not None else None
    return [r for r in req if isinstance(r, str)] if isinstance(req, list) else []


def _type_text(p: dict[str, Any]) -> str:
    t = p.get("type")
    if isinstance(t, str):
        items = p.get("items")
        if t == "array" and isinstance(items, dict) and isinstance(items.get("type"), str):
            return f"array of {items['type']}"
        return t
    if isinstance(t, list) and t and all(isinstance(x, str) for x in t):
        return " | ".join(t)
    enum = p.get("enum")
    if "type" not in p and (
        (isinstance(enum, list) and enum and all(isinstance(x, str) for x in enum))
        or isinstance(p.get("const"), str)
    ):
        return "string"
    return "any"


def _param_line(name: str, p: dict[str, Any], required: bool) -> str:
    parts = [_type_text(p), "required" if required else "optional"]
    enum = p.get("enum")
    if isinstance(enum, list) and enum:
        parts.append("one of " + ", ".join(json_text(v) for v in enum))
    line = f"- {name} ({', '.join(parts)})"
    desc = _one_line(p.get("description"))
    return f"{line}: {desc}" if desc else line


_BY_TYPE: Final[dict[str, Any]] = {
    "string": "...",
    "integer": 1,
    "number": 1,
    "boolean": True,
    "array": [],
    "object": {},
    "null": None,
}


def _example_value(p: dict[str, Any]) -> Any:
    enum = p.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    for k in ("const", "default"):
        if k in p:
            return p[k]
    ex = p.get("examples")
    if isinstance(ex, list) and ex:
        return ex[0]
    t = p.get("type")
    if isinstance(t, list):
        t = next((x for x in t if isinstance(x, str) and x != "null"), t[0] if t else None)
    return _BY_TYPE.get(t, "...") if isinstance(t, str) else "..."


def _value_text(v: Any) -> str:
    if isinstance(v, str):
        return f"<![CDATA[{'...' if ']]>' in v else v}]]>"
    try:
        text = json_text(v)
    except InputTypeError:
        return "<![CDATA[...]]>"
    if "<" not in text and "&" not in text:
        return text
    # JSON holding a tag would end the parameter early, an entity would be decoded (R6.2): in
    # CDATA the text stays the value (R6.3).
    return "<![CDATA[...]]>" if "]]>" in text else f"<![CDATA[{text}]]>"


def _attr(v: str) -> str:
    """An attribute value in quotes that do not occur in it (the scanner takes both kinds)."""
    return f"'{v}'" if '"' in v else f'"{v}"'


def _writable(name: str) -> bool:
    """A name an example can write: not holding both kinds of quote."""
    return not ('"' in name and "'" in name)


def _invoke(name: str, schema: dict[str, Any] | None) -> list[str]:
    props = [(k, p) for k, p in _properties(schema) if _writable(k)]
    required = set(_required(schema))
    chosen = [(k, p) for k, p in props if k in required] or props[:1]
    lines = [f"<|DSML|invoke name={_attr(name)}>"]
    for k, p in chosen:
        lines.append(f"<|DSML|parameter name={_attr(k)}>{_value_text(_example_value(p))}</|DSML|parameter>")
    lines.append("</|DSML|invoke>")
    return lines


def _block(invokes: list[list[str]]) -> str:
    lines = ["<|DSML|tool_calls>"]
    for inv in invokes:
        lines.extend(inv)
    lines.append("</|DSML|tool_calls>")
    return "\n".join(lines)


def build_tool_instructions(tools: Sequence[Any] | None) -> str:
    """The system-prompt text teaching the DSML tool-call format for `tools` (see the module
    docstring); the empty string when no tool has a name."""
    entries: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()
    for tool in tools if isinstance(tools, list | tuple) else []:
        n = tool_name(tool)
        if n and n not in seen:
            seen.add(n)
            entries.append((n, tool))
    if not entries:
        return ""
    out = [_HEADER, "", "## Available tools"]
    for name, tool in entries:
        schema = tool_schema(tool)
        out += ["", f"### {name}"]
        desc = _description(tool)
        if desc:
            out.append(desc)
        props = _properties(schema)
        if not props:
            out.append("Parameters: none.")
            continue
        required = set(_required(schema))
        out.append("Parameters:")
        out += [_param_line(k, p, k in required) for k, p in props]
    examples = [e for e in entries if _writable(e[0])]
    if not examples:
        return "\n".join(out)
    first = examples[0]
    second = examples[1] if len(examples) > 1 else examples[0]
    out += ["", "## Example: one call", "", _block([_invoke(first[0], tool_schema(first[1]))])]
    out += [
        "",
        "## Example: two calls in one block",
        "",
        _block([_invoke(n, tool_schema(t)) for n, t in (first, second)]),
    ]
    return "\n".join(out)


__all__ = ["build_tool_instructions"]
