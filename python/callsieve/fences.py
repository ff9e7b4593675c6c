"""The fence-line recognizer (D2), shared by the scanner's TEXT, FENCE and CDATA modes."""

from __future__ import annotations

import re
from typing import Final

_RUNS: Final = {"`": re.compile(r"`+"), "~": re.compile(r"~+")}


_BLANKS: Final = re.compile(r"[ \t\r]*")


# FenceLine.step results
WAIT: Final = 0  # consumed to the end of the buffer; still deciding


PLAIN: Final = 1  # not (or no longer) a fence line start: the rest of the line is the mode's


RUN_END: Final = 2  # a run ended: `char` and `run` say which and how long


TAIL_END: Final = 3  # the blanks after a closing run ended (at a newline: the line closes)


class FenceLine:
    """The fence-line recognizer (D2), written once: at a line start up to 3 spaces of indent,
    then a run of backticks or tildes; after a closing run only blanks to the end of the line.
    It consumes incrementally (a run or a tail of any length, across chunks) and reports what it
    found; the calling mode owns the consumed characters and decides what a run means."""

    __slots__ = ("char", "indent", "run", "tail")

    def __init__(self) -> None:
        self.indent = 0  # spaces seen at this line start; -1: past the line start
        self.char = ""  # the character of the run being counted
        self.run = 0  # length of that run (0: none)
        self.tail = False  # after a closing run: only blanks may follow

    def line_start(self) -> None:
        self.indent, self.run, self.tail = 0, 0, False

    def mid_line(self) -> None:
        self.indent, self.run, self.tail = -1, 0, False

    def start_run(self, buf: str, pos: int) -> int:
        """Count a run that starts at `buf[pos]` (not at a line start); returns its end so far."""
        self.char = buf[pos]
        end = _RUNS[self.char].match(buf, pos).end()  # type: ignore[union-attr]
        self.run = end - pos
        return end

    def step(self, buf: str, pos: int, chars: str) -> tuple[int, int]:
        """Consume line-start characters of `buf[pos:]`; `chars` are the run characters this
        mode accepts. Returns (result, end): `buf[pos:end]` was consumed."""
        n = len(buf)
        if self.tail:
            k = _BLANKS.match(buf, pos).end()  # type: ignore[union-attr]
            if k >= n:
                return WAIT, k
            self.tail = False
            self.indent = -1
            return TAIL_END, k
        if not self.run:
            if self.indent < 0:
                return PLAIN, pos
            while pos < n and buf[pos] == " " and self.indent < 3:
                self.indent += 1
                pos += 1
            if pos >= n:
                return WAIT, pos
            c = buf[pos]
            if c not in chars:
                self.indent = -1
                return PLAIN, pos
            self.char = c
        elif pos >= n:
            return WAIT, pos
        m = _RUNS[self.char].match(buf, pos)
        if m:
            self.run += m.end() - pos
            pos = m.end()
            if pos >= n:
                return WAIT, pos
        self.indent = -1
        return RUN_END, pos

    @staticmethod
    def opens_at(buf: str, pos: int, final: bool) -> bool | None:
        """Does a fence run (3 of the same backtick or tilde) start at `buf[pos]`? None: wait."""
        c = buf[pos]
        k = pos
        n = len(buf)
        while k < n and k < pos + 3 and buf[k] == c:
            k += 1
        if k - pos < 3 and k == n and not final:
            return None
        return k - pos >= 3
