"""Incremental arguments (R16, D62) for the block engine (R17): a block's body read as it arrives.

The block engine holds a block to its closer and reads it whole (blocks.py). With
stream_arguments, a tap reads the same body as it is taken, piece by piece, and tells the Sieve
what became certain, with arguments.py's internal events: `CallBegun` once a call's name is final,
`ValueChars` for the characters of a string value, `ParamDone` when a value ends (whole, for one
that is not certainly a string), `CallDone` when the call ends. Each family has its tap, a small
state machine over the pending text `s` from the cursor `i` (what stays pending is at most a
partial marker: every other run is consumed as it comes, so each character is looked at a bounded
number of times). This module holds what the taps share (`BlockTap`, `_Value`, `same_calls`); the
taps are in tagtaps.py (the tag grammars) and jsontaps.py (JSON arguments, and `TAPS`).

The tap reads exactly what the family's grammar reads. When the block closes, the scanner still
reads the body with the grammar and keeps its result when it agrees with the announced calls
(it does, unless the block broke); otherwise the block ends after what was announced (R16.3, D37):
the calls announced are kept, completed with what they read (an open value as far as it was
read), and the rest of the block is text. A tap breaks where an announced call stops being one
(`broken`: the body offset of that point).

Why the grammar is written twice, in the taps and in blocks.py: a grammar reads a whole body with
forward searches, reports every malformed call with its reason and reads on past it; a tap must
decide at each chunk's end whether the text so far is a marker, a marker's prefix or neither, and
stops at the first break. Neither can run as the other without losing its linear time or its
reports. What they can share they do: the markers and the name's characters (blocks.py's, which
gen_tables.py writes into Node's tables.js), `name_ok`, `kimi_name`, the value readings
(`_one_newline`, `_raw_value`, `glm_value`). The two readings are held to each other at every
block's end (`same_calls`): a tap that disagrees ends the block after its announced calls.

Values as the families write them (D48): Qwen3-Coder and Seed-OSS as written less one line break
at each end, MiniMax trimmed, GLM as written (JSON or a Python literal when it reads as one), JSON
families' top-level string values decoded. A value whose schema types it as a non-string, and a
GLM or JSON value not yet certainly a string, goes out whole when it ends.
"""

from __future__ import annotations

from typing import Any, Final

from . import strings
from .arguments import CallBegun, CallDone, ParamDone, ValueChars, is_index_key
from .blocks import Typer
from .events import ToolCall
from .jsontext import json_text

_BLANK: Final = strings.JS_SPACE
_JSON_WS: Final = " \t\n\r"
_NUMBER_CHARS: Final = "0123456789.eE+-"
HEAD_LIMIT: Final = 1024  # a head (a tag's attributes, an id) still undecided past this is no call

# How a raw-text value streams (_Value.how).
_HOLD: Final = 0  # whole, when it ends (typed by a schema as a non-string)
_QWEN: Final = 1  # as written less one line break at each end
_TRIM: Final = 2  # trimmed
_GLM: Final = 3  # as written once no JSON or Python literal reading is left
_ASIS: Final = 4  # as written


def _prefix(s: str, i: int, markers: tuple[str, ...]) -> bool:
    """Is s[i:] a proper prefix of one of the markers (it may still become that marker)?"""
    n = len(s) - i
    return any(n < len(m) and m.startswith(s[i:]) for m in markers)  # (no copy of a long rest)


def _starts(s: str, i: int, markers: tuple[str, ...]) -> str:
    for m in markers:
        if s.startswith(m, i):
            return m
    return ""


def _skip(s: str, i: int, blank: str = _BLANK) -> int:
    n = len(s)
    while i < n and s[i] in blank:
        i += 1
    return i


class _Value:
    """A raw-text value as it arrives: `add` returns the characters of the final string value that
    became certain (none while it may not be a string)."""

    __slots__ = ("held", "how", "lit", "lit_at", "pieces", "state", "ws")

    def __init__(self, how: int) -> None:
        self.how = how
        self.pieces: list[str] = []
        self.state = 0  # _QWEN: 0 before the first line break is decided; _TRIM, _GLM: 0 leading
        self.held: list[str] = []  # characters not yet certain (a trailing run; a GLM opening)
        self.lit = ""  # _GLM: the literal the opening may still be ("" a number, "-" undecided)
        self.lit_at = 0  # _GLM: characters of `lit` matched
        self.ws = False  # _GLM: a blank came after the opening

    def add(self, t: str) -> str:
        if not t:
            return ""
        self.pieces.append(t)
        how = self.how
        if how == _HOLD:
            return ""
        if how == _ASIS:
            return t
        if how == _QWEN:
            return self._qwen(t)
        if how == _TRIM:
            return self._trim(t)
        return self._glm(t)

    def text(self) -> str:
        return "".join(self.pieces)

    def _qwen(self, t: str) -> str:
        s = "".join(self.held) + t if self.held else t
        if self.state == 0:
            if s == "\r":
                self.held = [s]
                return ""
            if s.startswith("\r\n"):
                s = s[2:]
            elif s.startswith("\n"):
                s = s[1:]
            self.state = 1
        k = len(s)
        if s.endswith("\r\n"):
            k -= 2
        elif s.endswith("\n") or s.endswith("\r"):
            k -= 1
        self.held = [s[k:]] if k < len(s) else []
        return s[:k]

    def _trim(self, t: str) -> str:
        if self.state == 0:
            t = t.lstrip(_BLANK)
            if not t:
                return ""
            self.state = 1
        body = t.rstrip(_BLANK)
        if not body:
            self.held.append(t)
            return ""
        out = "".join(self.held) + body if self.held else body
        self.held = [t[len(body) :]] if len(body) < len(t) else []
        return out

    def _glm(self, t: str) -> str:
        """GLM without a schema entry: a string only once the opening rules out JSON and the
        Python literals True / False / None (blocks.glm_value)."""
        if self.state == 2:
            return t
        self.held.append(t)
        for ch in t:
            if self.state == 0:
                if ch in _BLANK:
                    continue
                self.state = 1
                json_lead = not "".join(self.held).lstrip(_JSON_WS).startswith(tuple(_BLANK))
                if ch in '{["':
                    if json_lead:
                        self.how = _HOLD  # JSON text can run on: the value comes out whole
                        self.held = []
                        return ""
                    return self._release()
                if ch in "TFN":
                    self.lit = {"T": "True", "F": "False", "N": "None"}[ch]
                elif ch in "tfn" and json_lead:
                    self.lit = {"t": "true", "f": "false", "n": "null"}[ch]
                elif ch in "-0123456789" and json_lead:
                    self.lit = ""
                else:
                    return self._release()
                self.lit_at = 1
                continue
            lit = self.lit
            blank = _BLANK if lit[:1] in ("T", "F", "N") else _JSON_WS
            if ch in blank:
                self.ws = True
            elif self.ws:
                return self._release()
            elif lit:
                if self.lit_at < len(lit) and ch == lit[self.lit_at]:
                    self.lit_at += 1
                else:
                    return self._release()
            elif ch not in _NUMBER_CHARS:
                return self._release()
        return ""

    def _release(self) -> str:
        self.state = 2
        out = "".join(self.held)
        self.held = []
        return out


class BlockTap:
    """What every family's tap shares: the pending text, the calls announced, the open value."""

    __slots__ = (
        "args", "at", "broken", "call_at", "call_id", "calls", "done_at", "end", "i", "key",
        "keys", "name", "off", "open", "other", "out", "s", "started", "state", "top", "typer",
        "val", "vc", "work",
    )  # fmt: skip

    def __init__(self, typer: Typer | None) -> None:
        self.out: list[Any] = []  # internal events for the Sieve (arguments.py)
        self.typer = typer
        self.s = ""  # pending text
        self.i = 0  # cursor into s
        self.off = 0  # body offset of s[0]
        self.state = 0
        self.end = -1  # the state in which the tap reads no more (it then keeps no text)
        self.calls: list[ToolCall] = []  # the announced calls, once complete
        self.started = 0  # calls announced
        self.broken = -1  # where an announced call stopped being one: the block ends there
        self.done_at = 0  # body offset where the last complete announced call ends
        self.call_at = 0  # body offset where the open (or last) announced call starts
        self.at = 0  # body offset where the open parameter (or head, or pair) starts
        self.open = False  # an announced call is open
        self.name = ""
        self.call_id: str | None = None
        self.args: dict[str, Any] = {}
        self.keys: set[str] = set()
        self.top = -1
        self.other = False
        self.key = ""
        self.val: _Value | None = None
        self.vc: list[str] = []  # characters of the open value gathered for one ValueChars
        self.work = 0

    def feed(self, piece: str) -> None:
        if self.state == self.end:
            return  # (it would only gather the rest of the body, copied again at every chunk)
        if self.i:
            self.s = self.s[self.i :]
            self.off += self.i
            self.i = 0
        self.s = self.s + piece if self.s else piece
        self.work += len(self.s)  # (what the join copied: the pending text and the piece)
        while self.broken < 0 and self.step(False):
            pass
        self.flush_chars()

    def finish(self) -> None:
        """The body is complete (its closer, or the end of the output)."""
        while self.broken < 0 and self.step(True):
            pass
        self.flush_chars()

    def step(self, final: bool) -> bool:
        raise NotImplementedError

    # ---- calls and values ---------------------------------------------------------------

    def begin(self, name: str, at: int, call_id: str | None = None) -> None:
        self.started += 1
        self.open = True
        self.name = name
        self.call_id = call_id
        self.call_at = at
        self.args = {}
        self.keys = set()
        self.top = -1
        self.other = False
        self.out.append(CallBegun(name, call_id))

    def end_call(self, at: int) -> None:
        self.out.append(CallDone(self.args))
        self.calls.append(ToolCall(self.name, self.args, self.call_id))
        self.open = False
        self.done_at = at

    def fail(self, at: int) -> bool:
        """R16.3: the announced call stops being one at `at`: it ends there with what it read."""
        if self.val is not None:
            self.end_value()
        if self.open:
            self.end_call(at)
        self.broken = at
        return False

    def reorders(self, key: str) -> bool:
        """A repeated key, or an array index after another key (JavaScript lists index keys
        first), would change arguments text already sent (D37)."""
        if key in self.keys:
            return True
        if is_index_key(key):
            if self.other or int(key) < self.top:
                return True
            self.top = int(key)
        else:
            self.other = True
        self.keys.add(key)
        return False

    def how(self, key: str, family: int, string: int) -> int:
        """How the value of `key` streams: the family's way without a schema entry, `string` when
        the schema keeps the text, else whole (R17.9)."""
        t = self.typer
        if t is None:
            return family
        k = t.kind(self.name, key)
        return family if k == 0 else string if k == 1 else _HOLD

    def begin_value(self, key: str, how: int) -> None:
        self.key = key
        self.val = _Value(how)

    def chars(self, t: str) -> None:
        if t and self.val is not None:
            got = self.val.add(t)
            if got:
                self.vc.append(got)

    def flush_chars(self) -> None:
        """The characters gathered go out as one event (a string with many escapes is many
        pieces)."""
        if self.vc:
            self.out.append(ValueChars(self.key, "".join(self.vc)))
            self.vc = []

    def end_value(self) -> None:
        val = self.val
        if val is None:
            return
        self.flush_chars()
        self.val = None
        v = self.value(val.text())
        self.work += len(val.text())
        self.args[self.key] = v
        self.out.append(ParamDone(self.key, v))

    def value(self, raw: str) -> Any:
        return raw


def same_calls(announced: list[ToolCall], read: list[ToolCall]) -> bool:
    """Do the calls a grammar read begin with the announced ones, exactly (names, ids, the
    arguments text)?"""
    if len(read) < len(announced):
        return False
    for a, b in zip(announced, read, strict=False):
        if a.name != b.name or a.id != b.id or json_text(a.input) != json_text(b.input):
            return False
    return True
