"""The taps of the JSON-arguments grammars (R17.1, R17.5 to R17.7); TAPS, the tap of each grammar.

(blocktap.py says what a tap is and why it and its grammar are written twice.)
"""

from __future__ import annotations

import re
from enum import IntEnum
from typing import Any, Final

from . import strings, values
from .arguments import CallDone, ParamDone

# The markers and the name's characters are the grammars' own (one table for both readings)
from .blocks import (
    _KA,
    _KB,
    _KE,
    Typer,
    kimi_name,
    name_ok,
)
from .blocktap import _ASIS, _JSON_WS, BlockTap, _prefix, _skip, _starts
from .events import ToolCall
from .tagtaps import FunctionTap, InvokeTap, PairTap

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
        yet; -2 not a JSON string; -(k + 3) a stop marker at k, or wait at k (a stop marker's
        prefix, or an escape cut by the chunk's end: the next chunk must read it whole)."""
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
                    return -2 if final else -(k + 3)
                e = s[k + 1]
                if e == "u":
                    if k + 6 > n and all(c in _HEX_DIGITS for c in s[k + 2 :]):
                        return -2 if final else -(k + 3)
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


# Keys that make R9 read a JSON object otherwise than a Hermes body (values.json_calls): a
# message, a wrapper, `input` before `arguments` / `parameters`.
_R9_KEYS: Final = frozenset(("role", "content", "tool_calls", "function", "input"))


class HermesTap(BlockTap):
    """`{"name": N, "arguments": {…}}` (blocks.json_call): announced when `arguments` (or
    `parameters`) opens an object after a name. Other orders, arguments written as a string and an
    array of calls are announced with the block (D38)."""

    __slots__ = ("args_end", "args_key", "hid", "hkey", "ids", "js", "pending", "rd", "spelled")

    def __init__(self, typer: Typer | None, ids: bool = True) -> None:
        super().__init__(typer)
        self.end = _H_QUIT
        self.ids = ids  # False: R9's reading (Llama's JSON calls in prose) has no ids
        self.js = JsonArgs(())
        self.rd = JsonArgs((), _J_KEY, True)  # an outer key or value
        self.hkey = ""
        self.spelled = ""  # the name read (trimmed; "" none)
        self.args_key = ""  # `arguments` or `parameters`: the key whose object streams
        self.hid: str | None = None  # the `id` read
        self.pending: ToolCall | None = None  # the call, its arguments complete, its object open
        self.args_end = -1  # body offset past the arguments object announced

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
        elif not self.ids and not self.started and key in _R9_KEYS:
            return self._quit()  # R9 reads these first, or not as a call: announced whole, if at all
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
                elif self.hkey == "id" and self.ids and not self.started:  # D63: none after the announcement
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
            self.done_at = self.args_end = self.off + self.i
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
        self.end = 2
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


# Here, not in blocktap: it names every tap, and blocktap <- tagtaps <- jsontaps import no cycle.
TAPS: Final[dict[str, type[BlockTap]]] = {
    "function_tags": FunctionTap,
    "arg_pairs": PairTap,
    "invoke_tags": InvokeTap,
    "kimi_calls": KimiTap,
    "json_call": HermesTap,
}
