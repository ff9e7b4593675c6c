"""The taps of the raw-text tag grammars (R17.2 to R17.4): Qwen3-Coder / Seed-OSS, GLM, MiniMax.

(blocktap.py says what a tap is and why it and its grammar are written twice.)
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Final

from . import strings

# The markers and the name's characters are the grammars' own (one table for both readings)
from .blocks import (
    _FN,
    _FN_END,
    _INV_END,
    _K,
    _K_END,
    _NOT_NAME,
    _P,
    _P_END,
    _V,
    _V_END,
    NAME_MAX,
    Typer,
    _one_newline,
    _raw_value,
    name_ok,
)
from .blocktap import _ASIS, _BLANK, _GLM, _QWEN, _TRIM, HEAD_LIMIT, BlockTap, _prefix, _skip, _starts

# ---- R17.2 Qwen3-Coder / Seed-OSS ---------------------------------------------------------------

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
        self.end = _F_DONE
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
        """The name: blanks, 1 to NAME_MAX name characters, blanks, `>` (anything else is no name)."""
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
            elif self.head_state == 2 or ch in _NOT_NAME or len(head) >= NAME_MAX:
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
        self.end = _G_DONE
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
            elif self.head_state == 2 or ch in _NOT_NAME or len(head) >= NAME_MAX:
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
_PARAM: Final = "<parameter"
_INV_STOPS: Final = (_INV_END, _INV)
_VALUE_STOPS: Final = (_P_END, _INV_END, _INV)


class _Attr:
    """`[ \\t]+name=` then `"N"`, `'N'` or a bare N (at most NAME_MAX characters), `[ \\t]*>`
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
                    elif ch in "<>\n" or len(self.name) >= NAME_MAX:
                        return self._no(j, i)
                    else:
                        self.name.append(ch)
                elif ch in " \t":
                    self.phase = 3
                elif ch == ">":
                    self.state = 1
                    return j + 1 - i
                elif ch in "\n\r\"'<" or len(self.name) >= NAME_MAX:
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
        self.end = _M_DONE
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
