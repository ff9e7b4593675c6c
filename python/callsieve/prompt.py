"""The system-prompt text that teaches a model to call tools in DSML (R1.1 form only).

`build_tool_instructions(tools)` is deterministic: the same tools give the same text, in every
implementation. It has four parts: the block format with its rules; one section per tool (name,
description, parameters from the JSON schema: name, type, required or optional, allowed values,
description); an example with one call; an example with two calls in one block.

Decisions (D30 in docs/SPEC.md):

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
  `{}`, `null`. Strings are written in CDATA, other values as JSON text (`jsontext.json_text`);
  JSON text holding markup (below) or `&` goes in CDATA too. A CDATA value holding `]]` before
  a close angle (which would end it early), a run of three backticks or tildes or a CDATA opener
  (which the scanner takes for a fence or a CDATA) is written `...` instead. A name holding `"` is
  written in single quotes; names that are blank, hold both kinds of quote, a control character,
  `&`, a close angle or markup (below), or
  are longer than 200 characters are left out of the examples (no example at all when no tool
  name can be written): the examples always parse back into their calls.
- Tool names, descriptions and schema text come from tool definitions, often third-party ones, so
  in the prose they are neutralized to never form tool syntax of any recognized format: every
  open angle (`<`, `＜`, U+FE64, U+2329, U+3008 → `‹`; `《` → `«`) and the fullwidth bar `｜`
  (→ `¦`) become visible look-alikes that open nothing (no DSML or XML tag, CDATA, native DSML,
  token marker or `<think>`); a run of three or more backticks or tildes (a code fence that could
  hide the examples) becomes `ˋ` / `˜`; a `{` starting a JSON object (`{"…`) becomes `｛` (no
  JSON call).
- The text ends without a newline.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from .errors import InputTypeError
from .jsontext import js_keys, json_text
from .schema import tool_name, tool_schema
from .shell import CLOSE_ANGLES, OPEN_ANGLES, match_cdata_open
from .strings import JS_SPACE, is_blank, trim

_SPACES: Final = re.compile("[" + "".join(re.escape(c) for c in JS_SPACE) + "]+")
_MARKUP: Final = {"<": "‹", "＜": "‹", "\ufe64": "‹", "\u2329": "‹", "\u3008": "‹", "《": "«", "｜": "¦"}
_MARKUP_RE: Final = re.compile("[" + "".join(_MARKUP) + "]")
_FENCE_RUN: Final = re.compile("`{3,}|~{3,}")
_JSON_OPEN: Final = re.compile('\\{(?=[ \t\n\r]*")')
_CDATA_END: Final = re.compile("]][" + CLOSE_ANGLES + "]")
_UNWRITABLE: Final = re.compile("[\\x00-\\x1f\\x7f&" + CLOSE_ANGLES + "]")  # one line, no tag end
_MAX_EXAMPLE_NAME: Final = 200  # well inside a tag's length limit


def _neutral(s: str) -> str:
    """Text from a tool definition, unable to form tool syntax in the prompt (module docstring)."""
    s = _MARKUP_RE.sub(lambda m: _MARKUP[m.group()], s)
    s = _FENCE_RUN.sub(lambda m: ("ˋ" if m.group()[0] == "`" else "˜") * len(m.group()), s)
    return _JSON_OPEN.sub("｛", s)


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
- Never give a blank or placeholder value (an empty string, "...", "TODO"): every parameter you
  write holds its real value. The "..." in the examples below only marks where a value goes.
- A shell command goes in the command parameter, whole, as one string.
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


def _cdata_safe(v: str) -> bool:
    """Can `v` be an example CDATA? Not when "]]" and a close angle would end it early (R5.5),
    nor with a fence run or a CDATA opener, which the scanner reads as a fence or an unclosed CDATA
    in the block (the calls after it are lost)."""
    if _CDATA_END.search(v) or _FENCE_RUN.search(v):
        return False
    return not any(isinstance(match_cdata_open(v, k, True), int) for k, c in enumerate(v) if c in OPEN_ANGLES)


def _value_text(v: Any) -> str:
    if isinstance(v, str):
        return f"<![CDATA[{v if _cdata_safe(v) else '...'}]]>"
    try:
        text = json_text(v)
    except InputTypeError:
        return "<![CDATA[...]]>"
    if not _MARKUP_RE.search(text) and "&" not in text:
        return text
    # JSON holding a tag would end the parameter early, an entity would be decoded (R6.2): in
    # CDATA the text stays the value (R6.3).
    return f"<![CDATA[{text if _cdata_safe(text) else '...'}]]>"


def _attr(v: str) -> str:
    """An attribute value in quotes that do not occur in it (the scanner takes both kinds)."""
    return f"'{v}'" if '"' in v else f'"{v}"'


def _writable(name: str) -> bool:
    """A name an example can write: not blank, not holding both kinds of quote, on one line,
    without markup, a close angle or `&`, not too long."""
    return (
        not is_blank(name)
        and not ('"' in name and "'" in name)
        and len(name) <= _MAX_EXAMPLE_NAME
        and _neutral(name) == name
        and not _UNWRITABLE.search(name)
    )


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


def _entries(tools: Sequence[Any] | None) -> list[tuple[str, Any]]:
    """(name, tool) of the tools to describe: named ones, the first definition of each name."""
    entries: list[tuple[str, Any]] = []
    seen: set[str] = set()
    for tool in tools if isinstance(tools, list | tuple) else []:
        n = tool_name(tool)
        if n and n not in seen:
            seen.add(n)
            entries.append((n, tool))
    return entries


def _example_blocks(entries: list[tuple[str, Any]]) -> list[str]:
    """The one-call and the two-call example blocks (none when no name can be written)."""
    examples = [e for e in entries if _writable(e[0])]
    if not examples:
        return []
    first = examples[0]
    second = examples[1] if len(examples) > 1 else examples[0]
    return [
        _block([_invoke(first[0], tool_schema(first[1]))]),
        _block([_invoke(n, tool_schema(t)) for n, t in (first, second)]),
    ]


def build_tool_instructions(tools: Sequence[Any] | None) -> str:
    """The system-prompt text teaching the DSML tool-call format for `tools` (see the module
    docstring); the empty string when no tool has a name."""
    entries = _entries(tools)
    if not entries:
        return ""
    out = [_HEADER, "", "## Available tools"]
    for name, tool in entries:
        schema = tool_schema(tool)
        out += ["", f"### {_neutral(name)}"]
        desc = _description(tool)
        if desc:
            out.append(_neutral(desc))
        props = _properties(schema)
        if not props:
            out.append("Parameters: none.")
            continue
        required = set(_required(schema))
        out.append("Parameters:")
        out += [_neutral(_param_line(k, p, k in required)) for k, p in props]
    blocks = _example_blocks(entries)
    if blocks:
        out += ["", "## Example: one call", "", blocks[0]]
        out += ["", "## Example: two calls in one block", "", blocks[1]]
    return "\n".join(out)


__all__ = ["build_tool_instructions"]
