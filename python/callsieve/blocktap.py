"""Incremental arguments (R16, D62) for the block engine (R17): a block's body read as it arrives.

The block engine holds a block to its closer and reads it whole (blocks.py). With
stream_arguments, a tap reads the same body as it is taken, piece by piece, and tells the Sieve
what became certain, with arguments.py's internal events: `CallBegun` once a call's name is final,
`ValueChars` for the characters of a string value, `ParamDone` when a value ends (whole, for one
that is not certainly a string), `CallDone` when the call ends. Each family has its tap, a small
state machine over the pending text `s` from the cursor `i` (what stays pending is at most a
partial marker: every other run is consumed as it comes, so each character is looked at a bounded
number of times).

The tap reads exactly what the family's grammar reads. When the block closes, the scanner still
reads the body with the grammar and keeps its result when it agrees with the announced calls
(it does, unless the block broke); otherwise the block ends after what was announced (R16.3, D37):
the calls announced are kept, completed with what they read (an open value as far as it was
read), and the rest of the block is text. A tap breaks where an announced call stops being one
(`broken`: the body offset of that point).

Values as the families write them (D48): Qwen3-Coder and Seed-OSS as written less one line break
at each end, MiniMax trimmed, GLM as written (JSON or a Python literal when it reads as one), JSON
families' top-level string values decoded. A value whose schema types it as a non-string, and a
GLM or JSON value not yet certainly a string, goes out whole when it ends.
"""

from __future__ import annotations

import re
from enum import IntEnum
from typing import Any, Final

from . import strings, values
from .arguments import CallBegun, CallDone, ParamDone, ValueChars, is_index_key
from .blocks import Typer, _one_newline, _raw_value, kimi_name, name_ok
from .events import ToolCall
from .jsontext import json_text

_BLANK: Final = strings.JS_SPACE
_NOT_NAME: Final = strings.JS_SPACE + "<>\"'`{}[],;"
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
        "args", "at", "broken", "call_at", "call_id", "calls", "done_at", "i", "key", "keys",
        "name", "off", "open", "other", "out", "s", "started", "state", "top", "typer", "val",
        "vc", "work",
    )  # fmt: skip

    def __init__(self, typer: Typer | None) -> None:
        self.out: list[Any] = []  # internal events for the Sieve (arguments.py)
        self.typer = typer
        self.s = ""  # pending text
        self.i = 0  # cursor into s
        self.off = 0  # body offset of s[0]
        self.state = 0
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
        if self.i:
            self.s = self.s[self.i :]
            self.off += self.i
            self.i = 0
        self.s = self.s + piece if self.s else piece
        self.work += len(piece)
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


# ---- R17.2 Qwen3-Coder / Seed-OSS ---------------------------------------------------------------

_FN: Final = "<function="
_FN_END: Final = "</function>"
_P: Final = "<parameter="
_P_END: Final = "</parameter>"
_CALL_ENDS: Final = (_FN, _FN_END)
_PARAM_STOPS: Final = (_P_END, _P, _FN, _FN_END)
_IN_CALL: Final = (_P, _FN_END, _FN)


# FunctionTap states
class _F(IntEnum):
    """The states of a tap (module constants below: an Enum attribute is slow to read)."""

    BETWEEN = 0
    HEAD = 1
    SKIP = 2
    PARAMS = 3
    KEY = 4
    VALUE = 5
    DONE = 6


_F_BETWEEN, _F_HEAD, _F_SKIP, _F_PARAMS, _F_KEY, _F_VALUE, _F_DONE = _F


class FunctionTap(BlockTap):
    """`<function=NAME>` `<parameter=KEY>VALUE</parameter>` … `</function>` (blocks.function_tags)."""

    __slots__ = ("head", "head_state", "keybuf")

    def __init__(self, typer: Typer | None) -> None:
        super().__init__(typer)
        self.head: list[str] = []
        self.head_state = 0
        self.keybuf: list[str] = []

    def step(self, final: bool) -> bool:
        st = self.state
        if st == _F_VALUE:
            return self._value(final)
        if st == _F_PARAMS:
            return self._params(final)
        if st == _F_BETWEEN:
            return self._between(final)
        if st == _F_HEAD:
            return self._head(final)
        if st == _F_KEY:
            return self._key(final)
        if st == _F_SKIP:
            return self._skip(final)
        return False

    def _between(self, final: bool) -> bool:
        s = self.s
        j = self.i = _skip(s, self.i)
        if j >= len(s):
            return False
        if s.startswith(_FN, j):
            self.at = self.off + j
            self.i = j + len(_FN)
            self.state = _F_HEAD
            self.head, self.head_state = [], 0
            return True
        if not final and _prefix(s, j, (_FN,)):
            return False
        self.state = _F_DONE  # text between calls: the grammar reports the rest
        return False

    def _head(self, final: bool) -> bool:
        """The name: blanks, 1 to 256 name characters, blanks, `>` (anything else is no name)."""
        s, i = self.s, self.i
        n = len(s)
        head = self.head
        while i < n:
            ch = s[i]
            if ch == ">":
                self.i = i + 1
                name = "".join(head)
                if name_ok(name):
                    self.begin(name, self.at)
                    self.state = _F_PARAMS
                else:
                    self.state = _F_SKIP
                return True
            if ch in _BLANK:
                if self.head_state == 1:
                    self.head_state = 2
            elif self.head_state == 2 or ch in _NOT_NAME or len(head) >= 256:
                self.i = i
                self.state = _F_SKIP  # not announced: the grammar reads it
                return True
            else:
                self.head_state = 1
                head.append(ch)
            i += 1
        self.i = i
        return False

    def _skip(self, final: bool) -> bool:
        """A call that is not announced, to its end: `</function>` or the next `<function=`."""
        s = self.s
        i = self.i
        while True:
            k = s.find("<", i)
            if k < 0:
                self.i = len(s)
                return False
            m = _starts(s, k, _CALL_ENDS)
            if m:
                self.i = k + len(_FN_END) if m == _FN_END else k
                self.state = _F_BETWEEN
                return True
            if not final and _prefix(s, k, _CALL_ENDS):
                self.i = k
                return False
            i = k + 1

    def _params(self, final: bool) -> bool:
        s = self.s
        j = self.i = _skip(s, self.i)
        if j >= len(s):
            if final:
                self.end_call(self.off + j)
                self.state = _F_DONE
            return False
        m = _starts(s, j, _IN_CALL)
        if m == _P:
            self.at = self.off + j
            self.i = j + len(_P)
            self.keybuf = []
            self.state = _F_KEY
            return True
        if m:
            end = j + len(_FN_END) if m == _FN_END else j
            self.end_call(self.off + end)
            self.i = end
            self.state = _F_BETWEEN
            return True
        if not final and _prefix(s, j, _IN_CALL):
            return False
        return self.fail(self.off + j)  # text where a parameter belongs

    def _key(self, final: bool) -> bool:
        s, i = self.s, self.i
        gt = s.find(">", i)
        lt = s.find("<", i)
        while lt >= 0 and (gt < 0 or lt < gt):
            if _starts(s, lt, _CALL_ENDS):
                return self.fail(self.at)  # the tag never closes: a broken parameter
            if not final and _prefix(s, lt, _CALL_ENDS):
                self.keybuf.append(s[i:lt])
                self.i = lt
                return False
            lt = s.find("<", lt + 1)
        if gt < 0:
            self.keybuf.append(s[i:])
            self.i = len(s)
            return self.fail(self.at) if final else False
        self.keybuf.append(s[i:gt])
        key = strings.trim("".join(self.keybuf))
        self.keybuf = []
        if not key or self.reorders(key):
            return self.fail(self.at)
        self.i = gt + 1
        self.begin_value(key, self.how(key, _QWEN, _QWEN))
        self.state = _F_VALUE
        return True

    def _value(self, final: bool) -> bool:
        s, i = self.s, self.i
        n = len(s)
        k = i
        while True:
            k = s.find("<", k)
            if k < 0:
                self.chars(s[i:])
                self.i = n
                if final:
                    self.end_value()
                    self.state = _F_PARAMS
                    return True
                return False
            if k + 1 < n and s[k + 1] not in "/pf":
                k += 1  # (a `<` of the value: no marker starts so)
                continue
            m = _starts(s, k, _PARAM_STOPS)
            if m:
                self.chars(s[i:k])
                self.end_value()
                self.i = k + len(_P_END) if m == _P_END else k
                self.state = _F_PARAMS
                return True
            if not final and _prefix(s, k, _PARAM_STOPS):
                self.chars(s[i:k])
                self.i = k
                return False
            k += 1

    def value(self, raw: str) -> Any:
        return _raw_value(self.typer, self.name, self.key, _one_newline(raw))


# ---- R17.3 GLM ------------------------------------------------------------------------------------

_K: Final = "<arg_key>"
_K_END: Final = "</arg_key>"
_V: Final = "<arg_value>"
_V_END: Final = "</arg_value>"


class _G(IntEnum):
    """The states of a tap (module constants below: an Enum attribute is slow to read)."""

    NAME = 0
    PAIRS = 1
    KEY = 2
    BETWEEN = 3
    VALUE = 4
    DONE = 5


_G_NAME, _G_PAIRS, _G_KEY, _G_BETWEEN, _G_VALUE, _G_DONE = _G


class PairTap(BlockTap):
    """NAME `<arg_key>K</arg_key><arg_value>V</arg_value>` … (blocks.arg_pairs): the name is final
    at the first `<arg_key>`."""

    __slots__ = ("head", "head_state", "keybuf")

    def __init__(self, typer: Typer | None) -> None:
        super().__init__(typer)
        self.head: list[str] = []
        self.head_state = 0
        self.keybuf: list[str] = []

    def step(self, final: bool) -> bool:
        st = self.state
        if st == _G_VALUE:
            return self._value(final)
        if st == _G_PAIRS:
            return self._pairs(final)
        if st == _G_KEY:
            return self._key(final)
        if st == _G_BETWEEN:
            return self._between(final)
        if st == _G_NAME:
            return self._name(final)
        return False

    def _name(self, final: bool) -> bool:
        s, i = self.s, self.i
        n = len(s)
        head = self.head
        while i < n:
            ch = s[i]
            if ch == "<":
                if s.startswith(_K, i):
                    name = "".join(head)
                    if name_ok(name):
                        self.begin(name, 0)
                        self.state = _G_PAIRS
                        self.i = i
                        return True
                elif not final and _prefix(s, i, (_K,)):
                    self.i = i
                    return False
                self.state = _G_DONE  # no name before a pair: the grammar reads it
                return False
            if ch in _BLANK:
                if self.head_state == 1:
                    self.head_state = 2
            elif self.head_state == 2 or ch in _NOT_NAME or len(head) >= 256:
                self.state = _G_DONE
                return False
            else:
                self.head_state = 1
                head.append(ch)
            i += 1
        self.i = i
        return False  # (a name alone is a call with input {}, announced with the block)

    def _pairs(self, final: bool) -> bool:
        s = self.s
        j = self.i = _skip(s, self.i)
        if j >= len(s):
            if final:
                self.end_call(self.off + j)
                self.state = _G_DONE
            return False
        if s.startswith(_K, j):
            self.at = self.off + j
            self.i = j + len(_K)
            self.keybuf = []
            self.state = _G_KEY
            return True
        if not final and _prefix(s, j, (_K,)):
            return False
        return self.fail(self.off + j)  # a broken argument pair

    def _key(self, final: bool) -> bool:
        s, i = self.s, self.i
        k = s.find(_K_END, i)
        if k < 0:
            cut = s.rfind("<", max(i, len(s) - len(_K_END) + 1))
            keep = cut if cut >= 0 and _prefix(s, cut, (_K_END,)) else len(s)
            self.keybuf.append(s[i:keep])
            self.i = keep
            return self.fail(self.at) if final else False
        self.keybuf.append(s[i:k])
        key = strings.trim("".join(self.keybuf))
        self.keybuf = []
        if self.reorders(key):
            return self.fail(self.at)
        self.key = key
        self.i = k + len(_K_END)
        self.state = _G_BETWEEN
        return True

    def _between(self, final: bool) -> bool:
        s = self.s
        j = self.i = _skip(s, self.i)
        if j >= len(s):
            return self.fail(self.at) if final else False
        if s.startswith(_V, j):
            self.i = j + len(_V)
            self.begin_value(self.key, self.how(self.key, _GLM, _ASIS))
            self.state = _G_VALUE
            return True
        if not final and _prefix(s, j, (_V,)):
            return False
        return self.fail(self.at)

    def _value(self, final: bool) -> bool:
        s, i = self.s, self.i
        k = s.find(_V_END, i)
        if k < 0:
            cut = s.rfind("<", max(i, len(s) - len(_V_END) + 1))
            keep = cut if cut >= 0 and not final and _prefix(s, cut, (_V_END,)) else len(s)
            self.chars(s[i:keep])
            self.i = keep
            if final:  # cut inside the value: the call ends with the value so far (R16.3)
                return self.fail(self.off + len(s))
            return False
        self.chars(s[i:k])
        self.end_value()
        self.i = k + len(_V_END)
        self.state = _G_PAIRS
        return True

    def value(self, raw: str) -> Any:
        return _raw_value(self.typer, self.name, self.key, raw, glm=True)


# ---- R17.4 MiniMax ------------------------------------------------------------------------------

_INV: Final = "<invoke"
_INV_END: Final = "</invoke>"
_PARAM: Final = "<parameter"
_INV_STOPS: Final = (_INV_END, _INV)
_VALUE_STOPS: Final = (_P_END, _INV_END, _INV)


class _Attr:
    """`[ \\t]+name=` then `"N"`, `'N'` or a bare N (at most 256 characters), `[ \\t]*>`
    (blocks._ATTR) after a tag's word, matched as it arrives. `feed` returns how many characters
    it took; `state` says where it stands (1: matched, -1: no match, 0: not yet)."""

    __slots__ = ("blanks", "matched", "name", "phase", "quote", "state")

    def __init__(self) -> None:
        self.phase = 0  # 0 blanks, then `name=`; 1 the value's first character; 2 in the value; 3 after it
        self.blanks = False  # phase 0: a blank came after the tag's word
        self.matched = 0  # phase 0: characters of `name=` matched
        self.quote = ""  # the value's quote ("" bare)
        self.name: list[str] = []
        self.state = 0

    def feed(self, s: str, i: int) -> int:
        n = len(s)
        j = i
        while j < n:
            ch = s[j]
            ph = self.phase
            if ph == 0:
                if self.matched == 0 and ch in " \t":
                    self.blanks = True
                elif self.blanks and ch == "name="[self.matched]:
                    self.matched += 1
                    if self.matched == 5:
                        self.phase = 1
                else:
                    return self._no(j, i)
            elif ph == 1:
                if ch in "\"'":
                    self.quote = ch
                elif ch in " \t\n\r<>":
                    return self._no(j, i)
                else:
                    self.name.append(ch)
                self.phase = 2
            elif ph == 2:
                q = self.quote
                if q:
                    if ch == q:
                        self.phase = 3
                    elif ch in "<>\n" or len(self.name) >= 256:
                        return self._no(j, i)
                    else:
                        self.name.append(ch)
                elif ch in " \t":
                    self.phase = 3
                elif ch == ">":
                    self.state = 1
                    return j + 1 - i
                elif ch in "\n\r\"'<" or len(self.name) >= 256:
                    return self._no(j, i)
                else:
                    self.name.append(ch)
            elif ch == ">":
                self.state = 1
                return j + 1 - i
            elif ch not in " \t":
                return self._no(j, i)
            j += 1
        return n - i

    def _no(self, j: int, i: int) -> int:
        self.state = -1
        return j - i


class _M(IntEnum):
    """The states of a tap (module constants below: an Enum attribute is slow to read)."""

    BETWEEN = 0
    HEAD = 1
    NOT = 2
    SKIP = 3
    PARAMS = 4
    PHEAD = 5
    VALUE = 6
    DONE = 7


_M_BETWEEN, _M_HEAD, _M_NOT, _M_SKIP, _M_PARAMS, _M_PHEAD, _M_VALUE, _M_DONE = _M


class InvokeTap(BlockTap):
    """`<invoke name="N">` `<parameter name="K">V</parameter>` … `</invoke>` (blocks.invoke_tags)."""

    __slots__ = ("attr", "head_len", "word")

    def __init__(self, typer: Typer | None) -> None:
        super().__init__(typer)
        self.attr = _Attr()
        self.head_len = 0
        self.word = 0  # characters of the tag's word (`<invoke`, `<parameter`) still to match

    def step(self, final: bool) -> bool:
        st = self.state
        if st == _M_VALUE:
            return self._value(final)
        if st == _M_PARAMS:
            return self._params(final)
        if st == _M_BETWEEN:
            return self._between(final)
        if st in (_M_HEAD, _M_PHEAD):
            return self._head(final)
        if st in (_M_NOT, _M_SKIP):
            return self._skip(final)
        return False

    def _between(self, final: bool) -> bool:
        s = self.s
        j = self.i = _skip(s, self.i)
        if j >= len(s):
            return False
        if s.startswith(_INV, j):
            self.at = self.off + j
            self.i = j + len(_INV)
            self.attr, self.head_len = _Attr(), 0
            self.state = _M_HEAD
            return True
        if not final and _prefix(s, j, (_INV,)):
            return False
        self.i = j + 1
        self.state = _M_NOT  # not an invoke: to the next `<invoke`
        return True

    def _head(self, final: bool) -> bool:
        s, i = self.s, self.i
        a = self.attr
        took = a.feed(s, i)
        self.i = i + took
        self.head_len += took
        if a.state == 0:
            if not final and self.head_len <= HEAD_LIMIT:
                return False
            if self.state == _M_HEAD and not final:
                self.state = _M_DONE  # a head this long: no more announcements in this block
                return False
            a.state = -1
        name = strings.trim("".join(a.name))
        if self.state == _M_HEAD:
            if a.state > 0 and name_ok(name):
                self.begin(name, self.at)
                self.state = _M_PARAMS
            elif a.state > 0:
                self.state = _M_SKIP  # an invalid name: the grammar reports it
            else:
                self.state = _M_NOT  # (what the head took holds no `<`: the search goes on here)
            return True
        if a.state < 0 or not name or self.reorders(name):
            return self.fail(self.at)  # a broken parameter
        self.begin_value(name, self.how(name, _TRIM, _TRIM))
        self.state = _M_VALUE
        return True

    def _skip(self, final: bool) -> bool:
        """To the next `<invoke` (not an invoke), or to `</invoke>` or `<invoke` (a call not
        announced)."""
        s = self.s
        i = self.i
        stops = (_INV,) if self.state == _M_NOT else _INV_STOPS
        while True:
            k = s.find("<", i)
            if k < 0:
                self.i = len(s)
                return False
            m = _starts(s, k, stops)
            if m:
                self.i = k + len(_INV_END) if m == _INV_END else k
                self.state = _M_BETWEEN
                return True
            if not final and _prefix(s, k, stops):
                self.i = k
                return False
            i = k + 1

    def _params(self, final: bool) -> bool:
        s = self.s
        j = self.i = _skip(s, self.i)
        if j >= len(s):
            if final:
                self.end_call(self.off + j)
                self.state = _M_DONE
            return False
        m = _starts(s, j, (_INV_END, _INV, _PARAM))
        if m == _PARAM:
            self.at = self.off + j
            self.i = j + len(_PARAM)
            self.attr, self.head_len = _Attr(), 0
            self.state = _M_PHEAD
            return True
        if m:
            end = j + len(_INV_END) if m == _INV_END else j
            self.end_call(self.off + end)
            self.i = end
            self.state = _M_BETWEEN
            return True
        if not final and _prefix(s, j, (_INV_END, _INV, _PARAM)):
            return False
        return self.fail(self.off + j)

    def _value(self, final: bool) -> bool:
        s, i = self.s, self.i
        n = len(s)
        k = i
        while True:
            k = s.find("<", k)
            if k < 0:
                self.chars(s[i:])
                self.i = n
                return self.fail(self.off + n) if final else False
            if k + 1 < n and s[k + 1] not in "/i":
                k += 1  # (a `<` of the value: no marker starts so)
                continue
            m = _starts(s, k, _VALUE_STOPS)
            if m == _P_END:
                self.chars(s[i:k])
                self.end_value()
                self.i = k + len(_P_END)
                self.state = _M_PARAMS
                return True
            if m:  # the invoke ends inside the value: it ends there, with the value so far
                self.chars(s[i:k])
                self.i = k
                return self.fail(self.off + k)
            if not final and _prefix(s, k, _VALUE_STOPS):
                self.chars(s[i:k])
                self.i = k
                return False
            k += 1

    def value(self, raw: str) -> Any:
        return _raw_value(self.typer, self.name, self.key, strings.trim(raw))


# ---- JSON arguments (Kimi-K2, Hermes) -------------------------------------------------------------


class _J(IntEnum):
    """The states of a tap (module constants below: an Enum attribute is slow to read)."""

    OPEN = 0  # before the object
    FIRST = 1  # after `{`: a key or `}`
    NEXT = 2  # after `,`: a key
    KEY = 3  # in a key string
    COLON = 4
    VALUE = 5  # before a value
    STRING = 6  # in a string value (streams)
    OTHER = 7  # in another value (whole at its end)
    AFTER = 8  # after a value: `,` or `}`
    END = 9  # the object closed
    BAD = 10  # not a JSON object (from `bad_at` on)


_J_OPEN, _J_FIRST, _J_NEXT, _J_KEY, _J_COLON, _J_VALUE, _J_STRING, _J_OTHER, _J_AFTER, _J_END, _J_BAD = _J

_STRING_STOP: Final = re.compile('["\\\\\x00-\x1f<]')
_OTHER_STOP: Final = re.compile('["\\\\{}\\[\\]<,\x00-\x1f \t\n\r]')
_ESC: Final = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX: Final = re.compile("[0-9a-fA-F]{4}")
_HEX_DIGITS: Final = "0123456789abcdefABCDEF"


class JsonArgs:
    """A JSON object read as it arrives: its top-level string values decoded as they come, its
    other values whole at their end (decoded by values.json_value, as the grammar decodes). It
    reads the tap's text and stops at one of `stops` (markers that end the arguments wherever they
    stand, even in a string). With `outer`, it reads one key or one value of an enclosing object
    for the tap instead (`got`), announcing nothing."""

    __slots__ = ("at", "bad_at", "buf", "depth", "got", "in_str", "outer", "state", "stops")

    def __init__(self, stops: tuple[str, ...], state: int = _J_OPEN, outer: bool = False) -> None:
        self.state = state
        self.stops = stops
        self.outer = outer
        self.buf: list[str] = []  # a key, or another value's text
        self.depth = 0  # _J_OTHER: containers open
        self.in_str = False  # _J_OTHER: in a string
        self.at = 0  # body offset where the open key or value starts
        self.bad_at = -1
        self.got: Any = None  # outer: the key or value read

    def step(self, tap: BlockTap, final: bool) -> bool:
        """Read on from tap.s[tap.i]; False: wait, or the object ended (_J_END), or it is no
        JSON object (_J_BAD)."""
        st = self.state
        if st == _J_STRING:
            return self._string(tap, final)
        if st == _J_OTHER:
            return self._other(tap, final)
        if st == _J_KEY:
            return self._key(tap, final)
        if st in (_J_END, _J_BAD):
            return False
        s = tap.s
        j = tap.i = _skip(s, tap.i, _JSON_WS)
        if j >= len(s):
            return self._bad(tap, j) if final else False
        ch = s[j]
        if st == _J_OPEN:
            if ch != "{":
                return self._bad(tap, j)
            tap.i = j + 1
            self.state = _J_FIRST
            return True
        if st in (_J_FIRST, _J_NEXT):
            if ch == '"':
                self.at = tap.off + j
                tap.i = j + 1
                self.buf = []
                self.state = _J_KEY
                return True
            if ch == "}" and st == _J_FIRST:
                tap.i = j + 1
                self.state = _J_END
                return False
            return self._bad(tap, j)
        if st == _J_COLON:
            if ch != ":":
                return self._bad(tap, j)
            tap.i = j + 1
            self.state = _J_VALUE
            return True
        if st == _J_VALUE:
            self.at = tap.off + j
            if ch == '"':
                tap.i = j + 1
                tap.begin_value(tap.key, _ASIS)
                self.state = _J_STRING
                return True
            self.buf, self.depth, self.in_str = [], 0, False
            self.state = _J_OTHER
            return True
        # _J_AFTER
        if ch == ",":
            tap.i = j + 1
            self.state = _J_NEXT
            return True
        if ch == "}":
            tap.i = j + 1
            self.state = _J_END
            return False
        return self._bad(tap, j)

    def _bad(self, tap: BlockTap, j: int, at: int = -1) -> bool:
        """Not a JSON object: from `at` (the open key or value), else from s[j]."""
        self.state = _J_BAD
        self.bad_at = at if at >= 0 else tap.off + j
        tap.i = j
        return False

    def _stop_at(self, s: str, k: int, final: bool) -> int:
        """At a `<`: 1 a stop marker, 0 not one, -1 maybe (wait)."""
        if _starts(s, k, self.stops):
            return 1
        if not final and _prefix(s, k, self.stops):
            return -1
        return 0

    def _string_end(self, s: str, i: int, final: bool) -> int:
        """The closing quote of the string going on at s[i] (escapes skipped): its index; -1 not
        yet; -2 not a JSON string; -(k + 3) a stop marker (or its prefix: wait) at k."""
        n = len(s)
        while True:
            m = _STRING_STOP.search(s, i)
            if m is None:
                return -1
            k = m.start()
            ch = s[k]
            if ch == '"':
                return k
            if ch == "\\":
                if k + 1 >= n:
                    return -2 if final else -1
                e = s[k + 1]
                if e == "u":
                    if k + 6 > n and all(c in _HEX_DIGITS for c in s[k + 2 :]):
                        return -2 if final else -1
                    if _HEX.match(s, k + 2) is None:
                        return -2
                    i = k + 6
                elif e in _ESC:
                    i = k + 2
                else:
                    return -2
                continue
            if ch == "<":
                if self._stop_at(s, k, final):
                    return -(k + 3)
                i = k + 1
                continue
            return -2  # a control character

    def _key(self, tap: BlockTap, final: bool) -> bool:
        s, i = tap.s, tap.i
        k = self._string_end(s, i, final)
        if k == -1:
            self.buf.append(s[i:])
            tap.i = len(s)
            return self._bad(tap, len(s), self.at) if final else False
        if k == -2:
            return self._bad(tap, i, self.at)
        if k < -2:
            k = -k - 3
            self.buf.append(s[i:k])
            tap.i = k
            return self._bad(tap, k, self.at) if _starts(s, k, self.stops) else False
        self.buf.append(s[i:k])
        tap.i = k + 1
        ok, key = values.json_value('"' + "".join(self.buf) + '"')
        self.buf = []
        if not ok:
            return self._bad(tap, k, self.at)
        if self.outer:
            self.got = key
        elif tap.reorders(key):
            return self._bad(tap, k, self.at)
        else:
            tap.key = key
        self.state = _J_COLON
        return True

    def _string(self, tap: BlockTap, final: bool) -> bool:
        """A top-level string value: its characters go out decoded, a partial escape held."""
        s, i = tap.s, tap.i
        n = len(s)
        while True:
            m = _STRING_STOP.search(s, i)
            if m is None:
                tap.chars(s[i:])
                tap.i = n
                return self._bad(tap, n) if final else False
            k = m.start()
            tap.chars(s[i:k])
            tap.i = k
            ch = s[k]
            if ch == '"':
                tap.i = k + 1
                tap.end_value()
                self.state = _J_AFTER
                return True
            if ch == "<":
                stop = self._stop_at(s, k, final)
                if stop:
                    return self._bad(tap, k) if stop > 0 else False
                tap.chars("<")
                i = k + 1
                continue
            if ch != "\\":
                return self._bad(tap, k)  # a control character: not JSON
            if k + 1 >= n:
                return self._bad(tap, k) if final else False
            e = s[k + 1]
            if e in _ESC:
                tap.chars(_ESC[e])
                i = k + 2
                continue
            if e != "u":
                return self._bad(tap, k)
            if k + 6 > n and all(c in _HEX_DIGITS for c in s[k + 2 :]):
                return self._bad(tap, k) if final else False
            if _HEX.match(s, k + 2) is None:
                return self._bad(tap, k)
            cp = int(s[k + 2 : k + 6], 16)
            i = k + 6
            if 0xD800 <= cp <= 0xDBFF:  # a high surrogate: JSON pairs it with a low one next
                nxt = s[k + 6 : k + 12]
                if len(nxt) < 6 and not final and _maybe_low(nxt):
                    return False
                if len(nxt) == 6 and nxt[:2] == "\\u" and _HEX.match(nxt, 2) is not None:
                    lo = int(nxt[2:], 16)
                    if 0xDC00 <= lo <= 0xDFFF:
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                        i = k + 12
            tap.chars(chr(cp))

    def _other(self, tap: BlockTap, final: bool) -> bool:
        """Another value: its text to its end (its container's close, or a scalar's delimiter)."""
        s, i = tap.s, tap.i
        n = len(s)
        while True:
            if self.in_str:
                k = self._string_end(s, i, final)
                if k == -1:
                    self.buf.append(s[i:])
                    tap.i = n
                    return self._bad(tap, n, self.at) if final else False
                if k == -2:
                    return self._bad(tap, i, self.at)
                if k < -2:
                    k = -k - 3
                    self.buf.append(s[i:k])
                    tap.i = k
                    return self._bad(tap, k, self.at) if _starts(s, k, self.stops) else False
                self.buf.append(s[i : k + 1])
                i = k + 1
                self.in_str = False
                continue
            m = _OTHER_STOP.search(s, i)
            if m is None:
                self.buf.append(s[i:])
                tap.i = n
                return self._bad(tap, n, self.at) if final else False
            k = m.start()
            ch = s[k]
            if ch == "<":
                stop = self._stop_at(s, k, final)
                if stop:
                    self.buf.append(s[i:k])
                    tap.i = k
                    return self._bad(tap, k, self.at) if stop > 0 else False
            if ch == '"':
                self.in_str = True
            elif ch == "{" or ch == "[":
                self.depth += 1
            elif (ch == "}" or ch == "]") and self.depth > 0:
                self.depth -= 1
                if self.depth == 0:
                    self.buf.append(s[i : k + 1])
                    tap.i = k + 1
                    return self._done(tap)
            elif self.depth == 0 and ch != "<":
                self.buf.append(s[i:k])  # a scalar ends here
                tap.i = k
                return self._done(tap)
            self.buf.append(s[i : k + 1])
            i = k + 1

    def _done(self, tap: BlockTap) -> bool:
        text = "".join(self.buf)
        self.buf = []
        tap.work += len(text)
        ok, v = values.json_value(text)
        if not ok:
            return self._bad(tap, tap.i, self.at)
        if self.outer:
            self.got = v
        else:
            tap.args[tap.key] = v
            tap.out.append(ParamDone(tap.key, v))
        self.state = _J_AFTER
        return True


def _maybe_low(t: str) -> bool:
    """Can `t` still begin a `\\uXXXX` escape?"""
    return "\\u".startswith(t[:2]) and all(c in _HEX_DIGITS for c in t[2:])


# ---- R17.5 Kimi-K2 --------------------------------------------------------------------------------

_KB: Final = "<|tool_call_begin|>"
_KA: Final = "<|tool_call_argument_begin|>"
_KE: Final = "<|tool_call_end|>"
_K_STOPS: Final = (_KE, _KB)


class _KI(IntEnum):
    """The states of a tap (module constants below: an Enum attribute is slow to read)."""

    BETWEEN = 0
    ID = 1
    SKIP = 2
    ARGS = 3
    TAIL = 4


_KI_BETWEEN, _KI_ID, _KI_SKIP, _KI_ARGS, _KI_TAIL = _KI


class KimiTap(BlockTap):
    """`<|tool_call_begin|>ID<|tool_call_argument_begin|>{…}<|tool_call_end|>` (blocks.kimi_calls):
    the name is final at the argument marker."""

    __slots__ = ("blank", "idbuf", "js")

    def __init__(self, typer: Typer | None) -> None:
        super().__init__(typer)
        self.idbuf: list[str] = []
        self.js = JsonArgs(_K_STOPS)
        self.blank = False  # a blank JSON does not allow (blank arguments are still {})

    def step(self, final: bool) -> bool:
        st = self.state
        if st == _KI_ARGS:
            return self._args(final)
        if st == _KI_BETWEEN:
            return self._between(final)
        if st == _KI_ID:
            return self._id(final)
        if st == _KI_SKIP:
            return self._skip(final)
        return self._tail(final)

    def _between(self, final: bool) -> bool:
        s = self.s
        j = self.i = _skip(s, self.i)
        if j >= len(s):
            return False
        if s.startswith(_KB, j):
            self.at = self.off + j
            self.i = j + len(_KB)
            self.idbuf = []
            self.state = _KI_ID
            return True
        if not final and _prefix(s, j, (_KB,)):
            return False
        self.state = _KI_SKIP  # text between calls: to the next call
        return True

    def _id(self, final: bool) -> bool:
        s, i = self.s, self.i
        k = s.find("<", i)
        if k < 0:
            self.idbuf.append(s[i:])
            self.i = len(s)
            return False
        self.idbuf.append(s[i:k])
        self.i = k
        if s.startswith(_KA, k):
            call_id = strings.trim("".join(self.idbuf))
            name = kimi_name(call_id)
            if name_ok(name):
                self.i = k + len(_KA)
                self.begin(name, self.at, call_id)
                self.js = JsonArgs(_K_STOPS)
                self.blank = False
                self.state = _KI_ARGS
                return True
        elif not final and _prefix(s, k, (_KA,)):
            return False
        self.state = _KI_SKIP  # not announced: the grammar reads it
        return True

    def _skip(self, final: bool) -> bool:
        """To the next `<|tool_call_begin|>`."""
        s = self.s
        i = self.i
        while True:
            k = s.find("<", i)
            if k < 0:
                self.i = len(s)
                return False
            if s.startswith(_KB, k):
                self.i = k
                self.state = _KI_BETWEEN
                return True
            if not final and _prefix(s, k, (_KB,)):
                self.i = k
                return False
            i = k + 1

    def _args(self, final: bool) -> bool:
        js = self.js
        s = self.s
        if js.state == _J_OPEN:
            j = _skip(s, self.i)
            if j > self.i and s[self.i : j].strip(_JSON_WS):
                self.blank = True  # a blank JSON does not allow: only blank arguments read
            self.i = j
            if j >= len(s):
                return self.fail(self.off + j) if final else False
            if s.startswith(_KE, j):
                self.state = _KI_TAIL  # blank arguments: {}
                return True
            if not final and _prefix(s, j, (_KE,)):
                return False
            if self.blank:
                return self.fail(self.off + j)
        if js.step(self, final):
            return True
        if js.state == _J_END:
            self.state = _KI_TAIL
            return True
        if js.state == _J_BAD:
            return self.fail(js.bad_at)
        return False

    def _tail(self, final: bool) -> bool:
        s = self.s
        j = self.i = _skip(s, self.i, _JSON_WS)
        if j >= len(s):
            return self.fail(self.off + j) if final else False
        if s.startswith(_KE, j):
            self.i = j + len(_KE)
            self.end_call(self.off + self.i)
            self.state = _KI_BETWEEN
            return True
        if not final and _prefix(s, j, (_KE,)):
            return False
        return self.fail(self.off + j)  # text after the object: no JSON object, or no end


# ---- R17.1 Hermes ---------------------------------------------------------------------------------


class _H(IntEnum):
    """The states of a tap (module constants below: an Enum attribute is slow to read)."""

    OPEN = 0
    FIRST = 1
    NEXT = 2
    KEY = 3
    COLON = 4
    VALUE = 5
    READ = 6  # another key's value (or the name, the id), read whole
    ARGS = 7  # the arguments object, streaming
    AFTER = 8
    TAIL = 9  # after the object: blanks only
    QUIT = 10  # no early announcement in this block


_H_OPEN, _H_FIRST, _H_NEXT, _H_KEY, _H_COLON, _H_VALUE, _H_READ, _H_ARGS, _H_AFTER, _H_TAIL, _H_QUIT = _H


class HermesTap(BlockTap):
    """`{"name": N, "arguments": {…}}` (blocks.json_call): announced when `arguments` (or
    `parameters`) opens an object after a name. Other orders, arguments written as a string and an
    array of calls are announced with the block (D38)."""

    __slots__ = ("args_key", "hid", "hkey", "js", "pending", "rd", "spelled")

    def __init__(self, typer: Typer | None) -> None:
        super().__init__(typer)
        self.js = JsonArgs(())
        self.rd = JsonArgs((), _J_KEY, True)  # an outer key or value
        self.hkey = ""
        self.spelled = ""  # the name read (trimmed; "" none)
        self.args_key = ""  # `arguments` or `parameters`: the key whose object streams
        self.hid: str | None = None  # the `id` read
        self.pending: ToolCall | None = None  # the call, its arguments complete, its object open

    def step(self, final: bool) -> bool:
        st = self.state
        if st == _H_ARGS:
            return self._args(final)
        if st in (_H_KEY, _H_READ):
            return self._read(final)
        if st == _H_QUIT:
            return False
        s = self.s
        j = self.i = _skip(s, self.i, _JSON_WS)
        if j >= len(s):
            if final and st != _H_TAIL:
                return self._stop(j)
            return False
        ch = s[j]
        if st == _H_OPEN:
            if ch != "{":
                return self._quit()  # an array of calls (or no JSON): read with the block
            self.i = j + 1
            self.state = _H_FIRST
            return True
        if st in (_H_FIRST, _H_NEXT):
            if ch == '"':
                self.rd = JsonArgs((), _J_KEY, True)
                self.rd.at = self.off + j
                self.i = j + 1
                self.state = _H_KEY
                return True
            if ch == "}" and st == _H_FIRST:
                self.i = j + 1
                return self._closed()
            return self._stop(j)
        if st == _H_COLON:
            if ch != ":":
                return self._stop(j)
            self.i = j + 1
            self.state = _H_VALUE
            return True
        if st == _H_VALUE:
            return self._value(j, ch)
        if st == _H_AFTER:
            if ch == ",":
                self.i = j + 1
                self.state = _H_NEXT
                return True
            if ch == "}":
                self.i = j + 1
                return self._closed()
        return self._stop(j)  # (after the object: text, so no JSON)

    def _quit(self) -> bool:
        self.state = _H_QUIT
        return False

    def _stop(self, j: int) -> bool:
        """Not JSON from s[j]: an announced call ends (R16.3); else the block reads it."""
        return self.fail(self.off + j) if self.started else self._quit()

    def fail(self, at: int) -> bool:
        self.call_id = self.hid
        if self.pending is not None:
            p, self.pending = self.pending, None
            self.calls.append(ToolCall(p.name, p.input, self.hid))
        return super().fail(at)

    def _closed(self) -> bool:
        if self.pending is not None:
            p, self.pending = self.pending, None
            self.calls.append(ToolCall(p.name, p.input, self.hid))
            self.done_at = self.off + self.i
        self.state = _H_TAIL
        return True

    def _value(self, j: int, ch: str) -> bool:
        key = self.hkey
        if key == "arguments" or key == "parameters":
            if self.started:
                if key == "arguments" or self.args_key == "parameters":
                    return self.fail(self.at)  # it would replace the arguments sent
            elif self.spelled and ch == "{":
                self.args_key = key
                self.i = j + 1
                self.begin(self.spelled, 0, self.hid)
                self.js = JsonArgs((), _J_FIRST)
                self.state = _H_ARGS
                return True
            else:
                return self._quit()  # arguments before the name, or not an object
        elif key == "name" and self.started:
            return self.fail(self.at)  # a second name would rename the call
        elif key == "id" and self.started and self.hid is not None:
            return self.fail(self.at)  # a second id would change the id announced (D63)
        self.rd = JsonArgs((), _J_OTHER, True)
        self.rd.at = self.off + j
        self.state = _H_READ
        return True

    def _read(self, final: bool) -> bool:
        rd = self.rd
        if self.state == _H_KEY:
            rd._key(self, final)
            if rd.state == _J_COLON:
                self.hkey = rd.got
                self.at = rd.at
                self.state = _H_COLON
                return True
        else:
            rd._other(self, final)
            if rd.state == _J_AFTER:
                v = rd.got
                if self.hkey == "name":
                    self.spelled = strings.trim(v) if isinstance(v, str) else ""
                elif self.hkey == "id" and not self.started:  # D63: an id after the announcement is none
                    self.hid = v if isinstance(v, str) and v else None
                self.state = _H_AFTER
                return True
        if rd.state == _J_BAD:
            return self.fail(rd.bad_at) if self.started else self._quit()
        return False

    def _args(self, final: bool) -> bool:
        js = self.js
        if js.step(self, final):
            return True
        if js.state == _J_END:
            self.out.append(CallDone(self.args))
            self.open = False
            self.pending = ToolCall(self.name, self.args, None)
            self.done_at = self.off + self.i
            self.state = _H_AFTER
            return True
        if js.state == _J_BAD:
            return self.fail(js.bad_at)
        return False


# ---- a JSON object named before it: Harmony (R17.6), Mistral's v11 calls (R17.7) ------------------


class ObjectTap(BlockTap):
    """A call whose name came before its body, the body one JSON object (blank: `{}`): a Harmony
    message addressed to `functions.NAME`, a Mistral `NAME[ARGS]{…}`. Announced when made; it
    reads to the end of the body its mode finds (an end token, the JSON's closing brace)."""

    __slots__ = ("blank", "js")

    def __init__(self, typer: Typer | None, name: str, call_id: str | None = None) -> None:
        super().__init__(typer)
        self.js = JsonArgs(())
        self.blank = False  # a blank JSON does not allow (blank arguments are still {})
        self.begin(name, 0, call_id)

    def step(self, final: bool) -> bool:
        s = self.s
        if self.state == 1:  # after the object: JSON's blanks only
            j = self.i = _skip(s, self.i, _JSON_WS)
            if j < len(s):
                return self.fail(self.off + j)
            if final:
                self.end_call(self.off + j)
                self.state = 2
            return False
        if self.state == 2:
            return False
        js = self.js
        if js.state == _J_OPEN:
            j = _skip(s, self.i)
            if j > self.i and s[self.i : j].strip(_JSON_WS):
                self.blank = True
            self.i = j
            if j >= len(s):
                if final:  # a blank body: {}
                    self.end_call(self.off + j)
                    self.state = 2
                return False
            if self.blank:
                return self.fail(self.off + j)
        if js.step(self, final):
            return True
        if js.state == _J_END:
            self.state = 1
            return True
        if js.state == _J_BAD:
            return self.fail(js.bad_at)
        return False


TAPS: Final[dict[str, type[BlockTap]]] = {
    "function_tags": FunctionTap,
    "arg_pairs": PairTap,
    "invoke_tags": InvokeTap,
    "kimi_calls": KimiTap,
    "json_call": HermesTap,
}


def same_calls(announced: list[ToolCall], read: list[ToolCall]) -> bool:
    """Do the calls a grammar read begin with the announced ones, exactly (names, ids, the
    arguments text)?"""
    if len(read) < len(announced):
        return False
    for a, b in zip(announced, read, strict=False):
        if a.name != b.name or a.id != b.id or json_text(a.input) != json_text(b.input):
            return False
    return True
