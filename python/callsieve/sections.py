"""Token sections of DeepSeek-V3, R1 and V3.1 (R14.4-R14.6): the marker recognizer and the call
grammar. The scanner's TOKENS mode drives them; see the theory of operation in scanner.py.

A section is `<｜tool▁calls▁begin｜>` (or `<｜tool▁calls｜>`), one or more calls, then
`<｜tool▁calls▁end｜>`. A call is `<｜tool▁call▁begin｜>HEAD<｜tool▁sep｜>BODY<｜tool▁call▁end｜>`:
- V3.1: HEAD is the tool name and BODY a JSON object (it may span lines);
- V3 / R1: HEAD is the word `function` and BODY the tool name, a newline, and the arguments as a
  JSON object in a fenced block (```` ```json ```` … ```` ``` ````); the fence is syntax here.
Each marker is one tokenizer token, so the recognizer is exact (D25): a bar `｜` (U+FF5C, also ASCII `|`)
on each side and `▁` (U+2581) between the words. Nothing else is folded: these markers are never
typed by hand, and a looser form would collide with the DSML shell of R2 (`<|tool_calls|>`).
"""

from __future__ import annotations

import re
from typing import Any, Final

from . import strings, values
from .events import Malformed
from .shell import MORE, NO

SECTION_BEGIN: Final = "section_begin"
SECTION_END: Final = "section_end"
CALL_BEGIN: Final = "call_begin"
CALL_END: Final = "call_end"
SEP: Final = "sep"
EOS: Final = "eos"

_MARKERS: Final = (
    ("<｜tool▁calls▁begin｜>", SECTION_BEGIN),
    ("<｜tool▁calls▁end｜>", SECTION_END),
    ("<｜tool▁call▁begin｜>", CALL_BEGIN),
    ("<｜tool▁call▁end｜>", CALL_END),
    ("<｜tool▁sep｜>", SEP),
    ("<｜end▁of▁sentence｜>", EOS),
    # Seen in some runtimes' templates as the section opener (decision D26).
    ("<｜tool▁calls｜>", SECTION_BEGIN),
)
MAX_MARKER: Final = max(len(m) for m, _ in _MARKERS)
BARS: Final = "｜|"
MAX_HEAD: Final = 512  # a call head (the name, or `function`) longer than this is not a call


# One regex for all of them (either bar on either side); the word names the kind.
_KINDS: Final = {m[2:-2]: kind for m, kind in _MARKERS}
_MARKER_RE: Final = re.compile("<[｜|](" + "|".join(re.escape(w) for w in _KINDS) + ")[｜|]>")
# Every proper prefix of a marker (bars as `｜`): what a marker cut by the end of the input may be.
_PREFIXES: Final = frozenset(m[:k] for m, _ in _MARKERS for k in range(1, len(m)))


def match_marker(s: str, i: int, final: bool) -> tuple[str, int] | str:
    """Recognize a token marker at `s[i]` (`<`). Returns (kind, end), MORE or NO."""
    n = len(s)
    if i + 1 >= n:
        return NO if final else MORE
    if s[i + 1] not in BARS or (i + 2 < n and s[i + 2] not in "te"):  # every marker: `<｜t…` or `<｜e…`
        return NO
    m = _MARKER_RE.match(s, i)
    if m is not None:
        return _KINDS[m.group(1)], m.end()
    # Cut by the end of the input: a marker's start?
    if not final and i + MAX_MARKER > n and s[i:].replace("|", "｜") in _PREFIXES:
        return MORE
    return NO


def decode_call(head: str, body: str) -> tuple[str, dict[str, Any]] | None:
    """One call from the text between its markers (R14.4, R14.5); None when it is not a valid
    call (the section then follows D4 and D28: all or nothing)."""
    h = strings.trim(head)
    b = strings.trim(body)
    if not b or b[0] == "{":  # V3.1: NAME<｜tool▁sep｜>{json}; no arguments at all is {}
        name, args = h, b
    elif h == "function":  # V3 / R1: function<｜tool▁sep｜>NAME\n```json\n{json}\n```
        nl = b.find("\n")
        if nl < 0:
            return None
        name = strings.trim(b[:nl])
        fenced = _fenced(b[nl + 1 :])
        if fenced is None:
            return None
        args = fenced
    else:
        return None
    if not name or "\n" in name or "\r" in name:
        return None
    if not args:
        return name, {}
    ok, v = values.json_value(args)
    if not ok or not isinstance(v, dict):
        return None
    return name, v


def malformed_call(head: str, body: str) -> Malformed:
    """R18.2: what a call that decode_call refused is reported as (D55): the call's text as
    written between its markers, why, and its name when one could be read."""
    h = strings.trim(head)
    b = strings.trim(body)
    raw = h + "<｜tool▁sep｜>" + b
    name: str | None = h
    if h == "function" and b and b[0] != "{":
        nl = b.find("\n")
        name = strings.trim(b[:nl]) if nl >= 0 else strings.trim(b)
    if not name or "\n" in name or "\r" in name:
        return Malformed(raw, "no name")
    return Malformed(raw, "arguments are not a JSON object", name)


def _fenced(s: str) -> str | None:
    """The inside of one fenced block that is all of `s` (```` ```json ```` or bare ```` ``` ````)."""
    s = strings.trim(s)
    if not s.startswith("```") or not s.endswith("```") or len(s) < 6:
        return None
    nl = s.find("\n")
    if nl < 0:
        return None
    info = strings.trim(s[3:nl])
    if info not in ("", "json", "JSON"):
        return None
    inner = s[nl + 1 : -3]
    return strings.trim(inner)
