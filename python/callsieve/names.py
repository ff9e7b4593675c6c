"""Tool-name resolution and the unknown-tool policy (docs/SPEC.md R10).

Models rename tools: `Read_File`, `mcp.search_web`, `search-web`. With declared tool names, a
parsed name resolves through a funnel, strictest level first; the first level that matches wins:

1. exact: the name equals a declared name;
2. case-insensitive: the trimmed name equals a trimmed declared name, ignoring ASCII case;
3. namespace: when the trimmed name has a `.` with something after the last one, that last part
   (`mcp.search_web` → `search_web`) equals a declared name exactly, then ignoring ASCII case;
4. loose: the names without separators, case folded, are equal and not empty (`search-web` and
   `search_web` → `searchweb`; `file-読込` → `file読込`); first the whole name, then its last
   namespace part (`mcp.search-web`). Separators are a fixed set (ASCII punctuation and
   whitespace, the D10 whitespace, dashes, middle dots, ideographic stops, fullwidth ASCII
   punctuation); every other character stays, so letters and digits of any script are compared,
   never deleted. Folding lowercases A-Z and the single-character lowercase of Latin, Greek and
   Cyrillic letters (U+00C0-U+052F, U+1E00-U+1FFF) and fullwidth A-Z: ranges where Python and
   JavaScript agree whatever their Unicode version.

Decisions where R10 is silent (pinned by fixtures/r10-names/, D16):

- A tie is no match: when two different declared names match at the level that decides, the name
  is unresolved (kept as written under "keep", rejected under "reject"); looser levels are not
  tried. A name declared twice with the same spelling is one name.
- The case-insensitive levels fold ASCII only (A-Z), identically in every implementation.
  Trimming removes the D10 whitespace.
- Only the parsed name loses its namespace; declared names are compared as declared.
- The result is the declared spelling (as given in `tool_names`, not trimmed), or None.

Names are not a security boundary: a model can always call a declared tool by its exact name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Literal, NamedTuple

from .errors import InputTypeError, OptionsError, check_iterable
from .events import ToolCall
from .schema import tool_names_of
from .strings import JS_SPACE, ascii_lower, trim

UnknownToolsPolicy = Literal["keep", "reject"]
UNKNOWN_TOOLS_POLICIES: Final[tuple[UnknownToolsPolicy, ...]] = ("keep", "reject")

_FULLWIDTH_PUNCTUATION: Final = ((0xFF01, 0xFF0F), (0xFF1A, 0xFF20), (0xFF3B, 0xFF40), (0xFF5B, 0xFF65))
_SEPARATORS: Final = frozenset(
    [chr(c) for c in range(0x80) if not chr(c).isalnum()]
    + list(JS_SPACE)
    + list("\u00b7\u2010\u2011\u2012\u2013\u2014\u2015\u3001\u3002\u30fb")
    + [chr(c) for a, b in _FULLWIDTH_PUNCTUATION for c in range(a, b + 1)]
)


def _fold(c: str) -> str:
    o = ord(c)
    if o < 0x80:
        return c.lower()
    if 0xC0 <= o <= 0x52F or 0x1E00 <= o <= 0x1FFF or 0xFF21 <= o <= 0xFF3A:
        low = c.lower()
        return low if len(low) == 1 else c  # 'İ' → 'i̇' would add a character
    return c


def _loose(s: str) -> str:
    return "".join(_fold(c) for c in s if c not in _SEPARATORS)


def _loose_equals(key: str) -> Callable[[str], bool]:
    return lambda d: _loose(d) == key


_TIE: Final = object()


def _only(names: tuple[str, ...], same: Callable[[str], bool]) -> object:
    """The one declared name `same` accepts, None when none does, _TIE when different names do."""
    found: str | None = None
    for d in names:
        if same(d):
            if found is None:
                found = d
            elif d != found:
                return _TIE
    return found


def check_policy(unknown_tools: object) -> UnknownToolsPolicy:
    """`unknown_tools` when it is a policy of UNKNOWN_TOOLS_POLICIES, else an OptionsError."""
    if unknown_tools not in UNKNOWN_TOOLS_POLICIES:
        raise OptionsError(f"unknown_tools must be 'keep' or 'reject', got {unknown_tools!r}")
    return "keep" if unknown_tools == "keep" else "reject"


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
    levels: list[Callable[[str], bool]] = [lambda d: ascii_lower(trim(d)) == tl]
    tail = _namespace_tail(t)
    if tail is not None:
        tail_lower = ascii_lower(tail)
        levels.append(lambda d: trim(d) == tail)
        levels.append(lambda d: ascii_lower(trim(d)) == tail_lower)
    for key in (_loose(t), _loose(tail) if tail is not None else ""):
        if key:
            levels.append(_loose_equals(key))
    for same in levels:
        found = _only(names, same)
        if found is _TIE:
            return None
        if found is not None:
            assert isinstance(found, str)
            return found
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
    calls: Sequence[ToolCall], tool_names: Iterable[str] | None, unknown_tools: UnknownToolsPolicy = "keep"
) -> PolicyResult:
    """Resolve call names against the declared names and apply the unknown-tool policy (R10.2, D17).

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
            kept.append(ToolCall(resolved, c.input, c.id))
    return PolicyResult(tuple(kept), tuple(rejected), bool(calls) and not kept)


__all__ = [
    "UNKNOWN_TOOLS_POLICIES",
    "PolicyResult",
    "UnknownToolsPolicy",
    "apply_policy",
    "check_policy",
    "check_tool_names",
    "declared_names",
    "resolve_name",
    "resolve_tool_name",
]
