"""Tool-name resolution and the unknown-tool policy (SEMANTICS.md R10, seed 003).

Models rename tools: `Read_File`, `mcp.search_web`, `search-web`. With declared tool names, a
parsed name resolves through a funnel, strictest level first; the first level that matches wins:

1. exact: the name equals a declared name;
2. case-insensitive: the trimmed name equals a trimmed declared name, ignoring ASCII case;
3. namespace: when the trimmed name has a `.` with something after the last one, that last part
   (`mcp.search_web` → `search_web`) equals a declared name exactly, then ignoring ASCII case;
4. loose: the names reduced to their `[a-z0-9]` characters after ASCII lowercasing are equal and
   not empty (`search-web` → `searchweb` = `search_web` → `searchweb`); first the whole name,
   then its last namespace part (`mcp.search-web`).

Decisions where R10 is silent (pinned by fixtures/r10-names/):

- Ambiguity: when several declared names match at the same level, the first declared wins.
- Case folding is ASCII only (A–Z), identically in every implementation; other letters compare
  as written (and count as non-`[a-z0-9]` in the loose level). Trimming removes the D10 whitespace.
- Only the parsed name loses its namespace; declared names are compared as declared.
- The result is the declared spelling (as given in `tool_names`, not trimmed), or None.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, NamedTuple

from .errors import InputTypeError, OptionsError, check_iterable
from .events import ToolCall
from .schema import tool_names_of
from .strings import ascii_lower, trim

UNKNOWN_TOOLS_POLICIES: Final = ("keep", "reject")
_NOT_LOOSE: Final = re.compile(r"[^a-z0-9]+")


def _loose(s: str) -> str:
    return _NOT_LOOSE.sub("", ascii_lower(s))


def check_policy(unknown_tools: object) -> str:
    """`unknown_tools` when it is a policy of UNKNOWN_TOOLS_POLICIES, else an OptionsError."""
    if unknown_tools not in UNKNOWN_TOOLS_POLICIES:
        raise OptionsError(f"unknown_tools must be 'keep' or 'reject', got {unknown_tools!r}")
    return unknown_tools


def check_tool_names(tool_names: Iterable[str] | None) -> tuple[str, ...]:
    """Declared tool names as a tuple; a single string or a non-string name is an InputTypeError."""
    if tool_names is None:
        return ()
    if isinstance(tool_names, str | bytes):
        raise InputTypeError("tool_names must be a list of strings, not a single string")
    if isinstance(tool_names, Mapping) or not isinstance(tool_names, Iterable):
        raise InputTypeError(f"tool_names must be a list of strings, got {type(tool_names).__name__}")
    names = tuple(tool_names)
    for n in names:
        if not isinstance(n, str):
            raise InputTypeError(f"tool_names must hold strings, got {type(n).__name__}")
    return names


def declared_names(tool_names: Iterable[str] | None, tools: Any) -> tuple[str, ...]:
    """The declared names (R10): `tool_names` when given, else the names of `tools`."""
    return check_tool_names(tool_names) if tool_names is not None else tuple(tool_names_of(tools))


def _namespace_tail(name: str) -> str | None:
    dot = name.rfind(".")
    if dot < 0 or dot == len(name) - 1:
        return None
    return name[dot + 1 :]


def resolve_name(name: str, names: tuple[str, ...]) -> str | None:
    """The R10.1 funnel over already-checked declared names (see `resolve_tool_name`)."""
    if name in names:
        return name
    t = trim(name)
    tl = ascii_lower(t)
    for d in names:
        if ascii_lower(trim(d)) == tl:
            return d
    tail = _namespace_tail(t)
    if tail is not None:
        for d in names:
            if trim(d) == tail:
                return d
        tail_lower = ascii_lower(tail)
        for d in names:
            if ascii_lower(trim(d)) == tail_lower:
                return d
    for key in (_loose(t), _loose(tail) if tail is not None else ""):
        if key:
            for d in names:
                if _loose(d) == key:
                    return d
    return None


def resolve_tool_name(name: object, tool_names: Iterable[str] | None) -> str | None:
    """The declared name that `name` resolves to through the R10 funnel, or None.

    None when `name` is not a string, or no declared name matches at any level. Raises
    InputTypeError when `tool_names` is a single string or holds a non-string."""
    names = check_tool_names(tool_names)
    if not isinstance(name, str):
        return None
    return resolve_name(name, names)


class PolicyResult(NamedTuple):
    """What `apply_policy` returns; the field names follow ParseResult."""

    calls: tuple[ToolCall, ...]
    rejected_tool_names: tuple[str, ...]
    rejected_by_policy: bool

    def to_dict(self) -> dict[str, object]:
        return {
            "calls": [c.to_dict() for c in self.calls],
            "rejectedToolNames": list(self.rejected_tool_names),
            "rejectedByPolicy": self.rejected_by_policy,
        }


def apply_policy(
    calls: Sequence[ToolCall], tool_names: Iterable[str] | None, unknown_tools: str = "keep"
) -> PolicyResult:
    """Resolve call names against the declared names and apply the unknown-tool policy (R10.2).

    - No declared names (None or empty): the calls are returned unchanged, whatever the policy.
    - Each call whose name resolves carries the declared spelling (same input object).
    - `"keep"` (default, R4.3): a call whose name does not resolve is kept as written.
    - `"reject"`: such a call is dropped; its name (as written) is listed in
      `rejected_tool_names`, once per distinct name, in order of first appearance.
    - `rejected_by_policy` is true when there was at least one call and all were rejected.

    Raises OptionsError for another policy, InputTypeError for bad `tool_names` or calls."""
    check_policy(unknown_tools)
    names = check_tool_names(tool_names)
    calls = tuple(check_iterable(calls, "calls"))
    for c in calls:
        if not isinstance(c, ToolCall):
            raise InputTypeError(f"calls must be ToolCall objects, got {type(c).__name__}")
    if not names:
        return PolicyResult(calls, (), False)
    kept: list[ToolCall] = []
    rejected: dict[str, None] = {}  # insertion-ordered set
    for c in calls:
        resolved = resolve_name(c.name, names)
        if resolved is None:
            if unknown_tools == "reject":
                rejected[c.name] = None
                continue
            kept.append(c)
        elif resolved == c.name:
            kept.append(c)
        else:
            kept.append(ToolCall(resolved, c.input))
    return PolicyResult(tuple(kept), tuple(rejected), bool(calls) and not kept)


__all__ = [
    "UNKNOWN_TOOLS_POLICIES",
    "PolicyResult",
    "apply_policy",
    "check_policy",
    "check_tool_names",
    "declared_names",
    "resolve_name",
    "resolve_tool_name",
]
