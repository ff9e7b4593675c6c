"""Reasoning regions (R15): the `<think>` … `</think>` part of a reasoning model's output.

The gate sits in front of the scanner and splits the input into reasoning and content; only
content reaches the scanner, so markup in reasoning is never a call (R15.1) and never counts as
tool-call syntax. Modes:

- "off": no reasoning; everything is content (the R1-R14 behavior).
- "auto" (the default): a `<think>` opens a region when only whitespace precedes it in the
  output; that whitespace is content (D31).
- "open": the output starts inside the region (the prompt opened it); a `<think>` the model
  repeats after leading whitespace only is dropped as the marker (D31).

The region ends at the first `</think>`, wherever it stands: reasoning is not scanned for fences
or markup (D32). Both markers are dropped. A region still open at the end stays reasoning (D33).
Any later `<think>` or `</think>` is content, read by the scanner as prose (D34). The gate holds at
most a partial marker (7 characters), so reasoning streams as it arrives.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final, Literal

from .errors import InputTypeError, OptionsError

ReasoningMode = Literal["off", "auto", "open"]
REASONING_MODES: Final = ("off", "auto", "open")
OPEN: Final = "<think>"
CLOSE: Final = "</think>"
_BLANK: Final = " \t\r\n"


class Phase(IntEnum):
    """Where the gate is."""

    START = 0  # "auto": only whitespace so far; a `<think>` may still open a region
    START_INSIDE = 1  # "open": only whitespace so far, inside the region; a `<think>` is dropped
    INSIDE = 2  # in the region, looking for `</think>`
    DONE = 3  # content only, to the end


# The members as module constants for the hot paths (as the scanner does with Mode: an Enum
# class's attribute access goes through EnumType's __getattr__ hook, slow in CPython).
_P_START, _P_START_INSIDE, _P_INSIDE, _P_DONE = Phase


def check_reasoning(mode: object) -> ReasoningMode:
    """The `reasoning` option: one of REASONING_MODES."""
    if not isinstance(mode, str):
        raise InputTypeError(f"reasoning must be a string, got {type(mode).__name__}")
    if mode == "off":
        return "off"
    if mode == "auto":
        return "auto"
    if mode == "open":
        return "open"
    raise OptionsError(f"unknown reasoning mode {mode!r}; known: {', '.join(REASONING_MODES)}")


Piece = tuple[bool, str]  # (is reasoning, text)


class ReasoningGate:
    """Splits chunks into reasoning and content pieces, in order; `work` counts characters seen."""

    def __init__(self, mode: ReasoningMode, markers: tuple[str, str] = (OPEN, CLOSE)) -> None:
        self.phase = {"off": _P_DONE, "auto": _P_START, "open": _P_START_INSIDE}[mode]
        self.open, self.close = markers  # R17.10: `<seed:think>`, `[THINK]` by preset
        self.lead = self.close[0]  # a chunk without it, with nothing held, is reasoning as it is
        self.held = ""  # a partial marker at the end of what was seen
        self.work = 0

    def feed(self, chunk: str) -> list[Piece]:
        if self.phase is _P_DONE:
            return [(False, chunk)]
        s = self.held + chunk
        self.held = ""
        self.work += len(s)
        out: list[Piece] = []
        if self.phase is not _P_INSIDE:
            s = self._start(s, out)
        return self._rest(s, out)

    def _rest(self, s: str, out: list[Piece]) -> list[Piece]:
        """After the start: `s` is in the region or, once it closed, content."""
        if s and self.phase is _P_INSIDE:
            self._inside(s, out)
        elif s and self.phase is _P_DONE:
            out.append((False, s))
        return out

    def finish(self) -> list[Piece]:
        """End of output: a held partial marker is what it was read in (content or reasoning)."""
        held, self.held = self.held, ""
        if not held:
            return []
        inside = self.phase is _P_INSIDE or self.phase is _P_START_INSIDE
        self.phase = _P_DONE
        return [(inside, held)]

    def _start(self, s: str, out: list[Piece]) -> str:
        """Leading whitespace, then maybe the opening marker; returns what is left of `s`."""
        inside = self.phase is _P_START_INSIDE
        i = len(s) - len(s.lstrip(_BLANK))
        if i:
            out.append((inside, s[:i]))
        rest = s[i:]
        if not rest:
            return ""
        opener = self.open
        if rest.startswith(opener):
            self.phase = _P_INSIDE
            return rest[len(opener) :]
        if len(rest) < len(opener) and opener.startswith(rest):
            self.held = rest
            return ""
        self.phase = _P_INSIDE if inside else _P_DONE
        return rest

    def _inside(self, s: str, out: list[Piece]) -> None:
        close = self.close
        j = s.find(close)
        if j >= 0:
            if j:
                out.append((True, s[:j]))
            self.phase = _P_DONE
            if j + len(close) < len(s):
                out.append((False, s[j + len(close) :]))
            return
        k = _partial_close(s, close)
        if len(s) > k:
            out.append((True, s[: len(s) - k]))
        self.held = s[len(s) - k :]


def _partial_close(s: str, close: str) -> int:
    """Length of the longest proper prefix of the closing marker that `s` ends with. Only the
    marker's first character among the last few of `s` can start one (this runs once per chunk)."""
    n = len(s)
    j = s.find(close[0], max(0, n - len(close) + 1))
    while j >= 0:
        if close.startswith(s[j:]):
            return n - j
        j = s.find(close[0], j + 1)
    return 0
