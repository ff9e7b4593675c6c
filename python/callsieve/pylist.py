"""Bare pythonic call lists (R17.8, D64): the scanner's PYLIST mode, from `[` to the outer `]`.

With `pythonic` on, Llama 4 may write its calls without `<|python_start|>`: a Python list of
calls in prose, `[get_weather(city="Paris"), get_time()]`. Such a list cannot be told from an
ordinary answer by its opener, so `[` only opens a candidate, read incrementally:

- The head, `[`, blanks, a name (identifiers joined by dots), blanks, `(`, stands on one line
  within MAX_HEAD characters. At any other character (a line break, a digit, a quote, a comma,
  the 257th character) the candidate fails: what was read of it is text and the scan resumes at
  that character, wherever the chunks end.
- Past the head, brackets, parentheses and braces are counted outside Python string literals (in
  either quote, backslash escapes honored) to the one that closes the `[`. A line break inside a
  string (no call list has one) ends the candidate as text there; so do the end of the output and
  the capture limit (D43).
- The list, whole, is read by the `pythonic_calls` grammar of the tagged form (blocks.py). When it
  reads as calls, valid every one, it is a `tool_calls` event of the `pythonic` row; anything else
  is text (a bare list is prose unless it is calls, so nothing is reported malformed).

Each character is looked at once: the head by a small state machine, the list by one regex
search per string or bracket.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from .blocks import pythonic_calls
from .events import ToolCall, ToolCallsEvent

if TYPE_CHECKING:
    from .scanbase import ScanBase
    from .scanner import Scanner

MAX_HEAD: Final = 256
_OUT: Final = re.compile(r"[\"'()\[\]{}]")  # what matters outside a string
_IN: Final = {'"': re.compile(r'["\\\n\r]'), "'": re.compile(r"['\\\n\r]")}  # inside one, per quote
_IDENT_START: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_IDENT: Final = _IDENT_START | frozenset("0123456789")

# Head states: after `[` or its blanks, in a name, blanks after a name, after a dot.
_LEAD, _NAME, _GAP, _DOT = 0, 1, 2, 3
# Stages: the head, then the list to its end.
HEAD, LIST = 0, 1


class PyList:
    """PYLIST's state: the open candidate."""

    __slots__ = ("depth", "esc", "head", "parts", "quote", "size", "stage", "start")

    def __init__(self) -> None:
        self.stage = HEAD
        self.head = _LEAD
        self.parts: list[str] = []  # the candidate's text so far
        self.size = 0  # its head's length (only the head has a limit of its own)
        self.start = 0  # absolute offset of its `[`
        self.depth = 0  # open brackets, parentheses and braces
        self.quote = ""  # the open string's quote ("" outside strings)
        self.esc = False  # a backslash ended the text so far, inside a string


def start(sc: ScanBase) -> None:
    """A candidate opens at the `[` at `sc.pos`."""
    p = sc.py
    p.stage, p.head, p.parts, p.size = HEAD, _LEAD, ["["], 1
    p.start = sc.base + sc.pos
    p.quote, p.esc = "", False  # (depth is set at the head's `(`)
    sc.pos += 1


def step(sc: Scanner, final: bool) -> bool:
    return _head(sc, final) if sc.py.stage == HEAD else _list(sc, final)


def _head(sc: Scanner, final: bool) -> bool:
    p = sc.py
    buf, pos = sc.buf, sc.pos
    n = len(buf)
    i = pos
    st = p.head
    limit = min(MAX_HEAD, sc.max_capture)  # (a head holds no more than a block may, D43)
    while i < n:
        c = buf[i]
        if p.size + i - pos >= limit:
            break
        if c == "(" and st in (_NAME, _GAP):
            p.parts.append(buf[pos : i + 1])
            sc.pos = i + 1
            p.stage, p.depth = LIST, 2
            return True
        if c == " " or c == "\t":
            if st == _NAME:
                st = _GAP
            elif st == _DOT:
                break
        elif c in _IDENT_START or (c in _IDENT and st == _NAME):
            if st == _GAP:
                break
            st = _NAME
        elif c == "." and st == _NAME:
            st = _DOT
        else:
            break
        i += 1
    if i < n or final:
        return _fails(sc, i)
    p.parts.append(buf[pos:i])
    p.size += i - pos
    p.head = st
    sc.pos = i
    return False


def _fails(sc: Scanner, at: int) -> bool:
    """Not a call list: what was read is text, and TEXT resumes at `at` (not yet consumed)."""
    p = sc.py
    text = "".join(p.parts) + sc.buf[sc.pos : at]
    p.parts = []
    sc.pos = at
    sc._emit(text)
    sc._text_resumes(text)
    return True


def _list(sc: Scanner, final: bool) -> bool:
    p = sc.py
    buf, pos = sc.buf, sc.pos
    stop = p.start + sc.max_capture - sc.base  # where the candidate reaches the limit (D43)
    n = min(len(buf), stop)
    i = pos
    while i < n:
        q = p.quote
        if q:
            if p.esc:
                if buf[i] == "\n" or buf[i] == "\r":  # (escaped or not, a line break in a string is text)
                    return _fails_after(sc, pos, i)
                p.esc = False
                i += 1
                continue
            hit = _IN[q].search(buf, i, n)
            if hit is None:
                i = n
                break
            k = hit.start()
            c = buf[k]
            if c == "\n" or c == "\r":  # no call list has a line break in a string
                return _fails_after(sc, pos, k)
            i = k + 1
            if c == "\\":
                p.esc = True
            else:
                p.quote = ""
            continue
        hit = _OUT.search(buf, i, n)
        if hit is None:
            i = n
            break
        k = hit.start()
        c = buf[k]
        i = k + 1
        if c == '"' or c == "'":
            p.quote = c
        elif c in "([{":
            p.depth += 1
        else:
            p.depth -= 1
            if p.depth == 0:
                p.parts.append(buf[pos:i])
                sc.pos = i
                return _end(sc)
    p.parts.append(buf[pos:i])
    sc.pos = i
    if i >= stop or final:  # past the limit, or cut by the end of the output: text
        return _fails(sc, i)
    return False


def _fails_after(sc: Scanner, pos: int, at: int) -> bool:
    sc.py.parts.append(sc.buf[pos:at])
    sc.pos = at
    return _fails(sc, at)


def _end(sc: Scanner) -> bool:
    """The list closed: calls, or text."""
    p = sc.py
    text = "".join(p.parts)
    p.parts = []
    sc.work += len(text)
    got = pythonic_calls(text)
    if got is None or not got.calls or got.malformed:
        sc._emit(text)
        sc._text_resumes(text)
        return True
    sc.saw = True
    sc._flush_text()
    calls = tuple(ToolCall(sc._name(c.name), c.input, c.id) for c in got.calls)
    sc.out.append(ToolCallsEvent(calls, text, (), "pythonic"))
    sc._resume_text()
    return True
