"""Role normalization for prompts (docs/SPEC.md R11).

`normalize_role(role)` always returns one of `system`, `user`, `assistant`, `tool`, and never
raises (D18). The role is trimmed (D10 whitespace) and ASCII-lowercased, then:

| role after trimming and lowercasing | result |
|---|---|
| `system`, `user`, `assistant`, `tool` | kept |
| `developer` (OpenAI's newer name for the system role) | `system` |
| `function` (the legacy function-result role) | `tool` |
| anything else: other words, `""`, non-ASCII letters | `user` |
| not a string: None, numbers, booleans, lists, objects | `user` |

Why `user` for the unknown: it is the role with the least authority, so an unexpected value can
never be promoted to instructions (`system`) or put words in the model's mouth (`assistant`), and
downstream code that compares roles strictly sees only the four values it knows.
"""

from __future__ import annotations

from typing import Final, Literal

from .strings import trim

Role = Literal["system", "user", "assistant", "tool"]
ROLES: Final[tuple[Role, ...]] = ("system", "user", "assistant", "tool")
DEFAULT_ROLE: Final[Role] = "user"
_ALIASES: Final[dict[str, Role]] = {"developer": "system", "function": "tool"}


def normalize_role(role: object) -> Role:
    """The controlled role for `role` (see the module docstring for every mapping)."""
    if not isinstance(role, str):
        return DEFAULT_ROLE
    r = trim(role)
    if not r.isascii():
        return DEFAULT_ROLE
    r = r.lower()
    for known in ROLES:
        if r == known:
            return known
    return _ALIASES.get(r, DEFAULT_ROLE)


__all__ = ["DEFAULT_ROLE", "ROLES", "Role", "normalize_role"]
