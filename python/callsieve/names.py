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


_TIE: Final = object()


def _table(names: Iterable[str], key: Callable[[str], str]) -> dict[str, object]:
    """Each key to the one declared name that has it, or _TIE when different names have it."""
    table: dict[str, object] = {}
    for d in names:
        k = key(d)
        found = table.get(k)
        if found is None:
            table[k] = d
        elif found != d:
            table[k] = _TIE
    return table


def _folded(d: str) -> str:
    return ascii_lower(trim(d))


class _Tables(NamedTuple):
    exact: frozenset[str]
    trimmed: dict[str, object]  # trim(d): the namespace level, exactly
    folded: dict[str, object]  # ascii_lower(trim(d)): the case-insensitive levels
    loose: dict[str, object]  # _loose(d): the loose levels


class DeclaredNames(tuple[str, ...]):
    """Checked declared names: a tuple of strings that resolves names through the R10.1 funnel
    with lookup tables built once, when the first name is resolved. A name then costs the
    characters of its own pieces, whatever the number and length of the declared names (issue
    41 F1: normalizing every declared name again for each call that missed the exact match made
    resolution cost calls x declared characters, a denial of service when the tools come from a
    client). check_tool_names and declared_names hand a DeclaredNames back unchanged, so a Sieve
    or a rewriter, and the sieves it makes, build the tables of one tool set once.

    `work` is a debug counter, like Sieve.work: characters normalized so far, each declared name
    three times (one key per table, when the tables are built), then the pieces of each resolved
    name that a level normalizes. So work <= 3 x the declared characters + 5 x the characters of
    the resolved names."""

    work: int
    _tables: _Tables | None

    def __new__(cls, names: Iterable[str] = ()) -> DeclaredNames:
        self = super().__new__(cls, names)
        self.work = 0
        self._tables = None
        return self

    def _built(self) -> _Tables:
        tables = self._tables
        if tables is None:
            tables = _Tables(frozenset(self), _table(self, trim), _table(self, _folded), _table(self, _loose))
            self.work += 3 * sum(len(d) for d in self)
            self._tables = tables
        return tables

    def resolve(self, name: str) -> str | None:
        """The declared name that `name` resolves to, or None (see `resolve_tool_name`)."""
        tables = self._built()
        if name in tables.exact:
            return name
        t = trim(name)
        self.work += len(name) + len(t)
        found = tables.folded.get(ascii_lower(t))
        tail = _namespace_tail(t)
        if found is None and tail is not None:
            self.work += len(tail)
            found = tables.trimmed.get(tail)
            if found is None:
                found = tables.folded.get(ascii_lower(tail))
        for part in (t, tail):  # the loose levels: the whole name, then its last namespace part
            if found is not None or part is None:
                break
            self.work += len(part)
            key = _loose(part)
            if key:
                found = tables.loose.get(key)
        if found is None or found is _TIE:  # a tie is no match, and looser levels are not tried
            return None
        assert isinstance(found, str)
        return found


def check_policy(unknown_tools: object) -> UnknownToolsPolicy:
    """`unknown_tools` when it is a policy of UNKNOWN_TOOLS_POLICIES, else an OptionsError."""
    if unknown_tools not in UNKNOWN_TOOLS_POLICIES:
        raise OptionsError(f"unknown_tools must be 'keep' or 'reject', got {unknown_tools!r}")
    return "keep" if unknown_tools == "keep" else "reject"


def check_tool_names(tool_names: Iterable[str] | None) -> DeclaredNames:
    """Declared tool names as a DeclaredNames tuple (itself when it is one already); a single
    string or a non-string name is an InputTypeError."""
    if isinstance(tool_names, DeclaredNames):
        return tool_names
    if tool_names is None:
        return DeclaredNames()
    if isinstance(tool_names, str | bytes):
        raise InputTypeError("tool_names must be a list of strings, not a single string")
    if isinstance(tool_names, Mapping) or not isinstance(tool_names, Iterable):
        raise InputTypeError(f"tool_names must be a list of strings, got {type(tool_names).__name__}")
    names = DeclaredNames(tool_names)
    for n in names:
        if not isinstance(n, str):
            raise InputTypeError(f"tool_names must hold strings, got {type(n).__name__}")
    return names


def declared_names(tool_names: Iterable[str] | None, tools: Any) -> DeclaredNames:
    """The declared names (R10): `tool_names` when given, else the names of `tools`."""
    return check_tool_names(tool_names) if tool_names is not None else DeclaredNames(tool_names_of(tools))


def _namespace_tail(name: str) -> str | None:
    dot = name.rfind(".")
    if dot < 0 or dot == len(name) - 1:
        return None
    return name[dot + 1 :]


def resolve_name(name: str, names: tuple[str, ...]) -> str | None:
    """The R10.1 funnel over already-checked declared names (see `resolve_tool_name`); give a
    DeclaredNames to resolve many names (a plain tuple builds the lookup tables for one name)."""
    return (names if isinstance(names, DeclaredNames) else DeclaredNames(names)).resolve(name)


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
        resolved = names.resolve(c.name)
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
    "DeclaredNames",
    "PolicyResult",
    "UnknownToolsPolicy",
    "apply_policy",
    "check_policy",
    "check_tool_names",
    "declared_names",
    "resolve_name",
    "resolve_tool_name",
]
