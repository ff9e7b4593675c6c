"""Incremental tool-call arguments (R16): which characters of a parameter value are already
certain while its body is still arriving, and the JSON text written from them.

The scanner feeds a `ValueTap` the body of the open parameter as it reads it (text pieces as
written, CDATA content pieces). The tap answers with characters that are certainly the next
characters of the parameter's final value, and only when that value is certainly a string
(R16.2): its opening characters rule out every other reading of R6 (a JSON literal, an object
list, XML children) and the whitespace rules of R6.1/R6.2 cannot change what came before. What
is not certain is held: a trailing run of whitespace (a plain value is trimmed), a partial entity
(at most 9 characters), and the whole value when it may still be something else (D36). The final value
is always the one R6 gives (`values.param_value`); streaming only decides how much of it leaves
early, so the fragments are a prefix of the final JSON text by construction.

The scanner turns what it learns into small internal events (`CallBegun`, `ValueChars`,
`ParamDone`, `CallDone`) that the Sieve writes as `tool_call_start` / `tool_call_arguments`
(`ArgumentsWriter`), after name resolution and schema normalization (R10, R12).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Final

from .events import ToolCallsEvent
from .jsontext import INDEX_KEY, json_string_body, json_text
from .strings import JS_SPACE, ascii_lower, trim
from .values import RAW_TEXT_NAMES, decode_entities

_JSON_START: Final = frozenset('{["-0123456789tfn')
_NUMBER_CHARS: Final = frozenset("0123456789.eE+-")
_LITERALS: Final = ("true", "false", "null")
_ENTITY_SPAN: Final = 9  # `&#x10FFFF` before its `;`: the longest partial entity (D13)


# ---- internal events: the scanner to the Sieve ----------------------------------------------


@dataclass(slots=True)
class CallBegun:
    """An invoke of a block opened by its wrapper: its name is final (R16.2); `id`: the call's
    own id, when the grammar read it before the name was final (D63)."""

    name: str
    id: str | None = None


@dataclass(slots=True)
class ValueChars:
    """Characters certain to continue the string value of parameter `key`."""

    key: str
    text: str


@dataclass(slots=True)
class ParamDone:
    """Parameter `key` closed with its final `value`."""

    key: str
    value: Any


@dataclass(slots=True)
class CallDone:
    """The begun call is complete (its invoke closed, or the block broke, R16.3)."""

    input: dict[str, Any]


def is_index_key(key: str) -> bool:
    """An array-index key, which JavaScript objects list first (so it cannot stream in order)."""
    return INDEX_KEY.fullmatch(key) is not None and int(key) <= 2**32 - 2


class Tap(IntEnum):
    """Where a ValueTap is."""

    LEAD = 0  # blank text so far
    DECIDE = 1  # the value began; a string reading is not certain yet
    STREAM = 2  # certainly a string: certain characters go out
    AFTER_CDATA = 3  # the value began with a CDATA section, which closed; blank text since
    HOLD = 4  # not streamable: the value comes out when the parameter closes


# The members as module constants for the hot paths (as the scanner does with Mode: an Enum
# class's attribute access goes through EnumType's __getattr__ hook, slow in CPython).
_T_LEAD, _T_DECIDE, _T_STREAM, _T_AFTER_CDATA, _T_HOLD = Tap


class ValueTap:
    """The open parameter's body, read incrementally (see the module docstring). Each method
    returns the characters of the final value that became certain. Runs that may grow without
    bound (blank text, held whitespace, an undecided opening) are kept as lists of pieces and
    looked at piece by piece, so a value costs time linear in its length."""

    __slots__ = (
        "decide", "digits_gap", "entity", "from_cdata", "gap", "held", "kind", "lead", "raw",
        "state", "work", "written",
    )  # fmt: skip

    def __init__(self, name: str, string: str | None) -> None:
        typed = ascii_lower(trim(string)) if string is not None else ""
        self.written = typed == "true"  # R14.2 / D24: as written, no decoding, no trimming
        self.raw = trim(name).lower() in RAW_TEXT_NAMES
        self.state = _T_HOLD if typed == "false" else _T_LEAD
        self.from_cdata = False  # the value began with a CDATA section
        self.lead: list[str] = []  # LEAD: the blank text so far
        self.decide: list[str] = []  # DECIDE: the opening so far (not kept for JSON-like ones)
        self.kind = ""  # DECIDE: "lit" (t/f/n), "num" (digit or -), "json" ({ [ ")
        self.digits_gap = False  # DECIDE "num": a blank came after the digits
        self.held: list[str] = []  # STREAM: a trailing whitespace run (plain values are trimmed)
        self.entity = ""  # STREAM: a partial entity at the end of the text (as written)
        self.gap: list[str] = []  # AFTER_CDATA: the blank text since the CDATA closed
        self.work = 0  # characters looked at (Sieve.work: linear time is checked by counting)

    def text(self, s: str) -> str:
        """A piece of body text, as written (entities not decoded)."""
        st = self.state
        if st is _T_HOLD or not s:
            return ""
        if st is _T_STREAM:
            return s if self.written else self._stream(s)
        if st is _T_DECIDE:
            return self._decide(s)
        blank = not s.strip(JS_SPACE)
        if st is _T_LEAD:
            if blank:
                self.lead.append(s)
                return ""
            if self.written:  # blank text before non-blank text stays (join all, D24)
                self.state = _T_STREAM
                out = "".join(self.lead) + s
                self.lead = []
                return out
            self.state = _T_DECIDE  # R6.2 trims the blank text away
            return self._decide(s.lstrip(JS_SPACE))
        # AFTER_CDATA
        if blank:
            self.gap.append(s)
            return ""
        if self.written:
            self.state = _T_HOLD
            return ""
        self.state = _T_STREAM  # no longer one CDATA between blanks: R6.2 joins and trims
        gap = "".join(self.gap)
        self.gap = []
        return self._stream(gap + s)

    def cdata_open(self) -> str:
        st = self.state
        if st is _T_LEAD:
            if self.written and self.lead:
                self.state = _T_HOLD  # blank text before a CDATA: dropped or kept, seen at the close
            self.from_cdata = True
        elif st is _T_DECIDE:
            self.state = _T_HOLD
        elif st is _T_AFTER_CDATA:
            self.state = _T_HOLD if self.written else _T_STREAM
        elif st is _T_STREAM and self.entity and not self.written:
            lit, self.entity = self.entity, ""  # the text ended: not an entity after all
            return self._stream(lit, decoded=True)
        return ""

    def cdata_piece(self, s: str) -> str:
        """A piece of CDATA content (never decoded)."""
        st = self.state
        if st is _T_STREAM and not self.gap:  # the hot path: a long CDATA body streaming
            return s if self.written else self._stream(s, decoded=True)
        if st is _T_HOLD or not s:
            return ""
        if st is _T_LEAD:
            if self.written:  # nothing before the CDATA: as written, both readings start here
                self.state = _T_STREAM
                return s
            # One CDATA between blanks is its raw content (R6.1); joined with more it is trimmed
            # (R6.2): both agree only when the content does not begin with a blank.
            if s[0] in JS_SPACE:
                self.state = _T_HOLD
                return ""
            self.state = _T_DECIDE
            return self._decide(s, decoded=True)
        if st is _T_DECIDE:
            return self._decide(s, decoded=True)
        if self.written:
            return s
        gap = "".join(self.gap)
        self.gap = []
        return self._stream(gap + s, decoded=True)

    def cdata_close(self) -> None:
        if self.from_cdata and self.state is not _T_HOLD and self.state is not _T_AFTER_CDATA:
            if self.state is _T_STREAM and not self.gap:
                self.state = _T_AFTER_CDATA
            else:
                self.state = _T_HOLD
            self.from_cdata = False

    # ---- internals ----------------------------------------------------------------------

    def _decide(self, s: str, *, decoded: bool = False) -> str:
        """DECIDE: look at the new opening characters only, until only a string reading is left."""
        if not s:
            return ""
        if not self.kind:
            c = s[0]
            if c == "<" and not (self.raw and decoded):
                self.state = _T_HOLD  # XML children or a structured fragment (R6.4, R6.5)
                return ""
            if c == "&" and not decoded:
                self.state = _T_HOLD  # an entity decodes to anything: wait for the close
                return ""
            if c not in _JSON_START:
                return self._go(s, decoded)
            self.kind = "json" if c in '{["' else "lit" if c in "tfn" else "num"
        if self.kind == "json":
            return ""  # JSON text can run on: the value comes out at the close
        self.decide.append(s)
        if self.kind == "lit":
            if s.strip(JS_SPACE):  # at most 6 such joins: then the opening is not a literal
                joined = "".join(self.decide)
                self.work += len(joined)
                if _ruled_out(joined):
                    return self._go(joined, decoded)
            return ""
        # "num": a character no number has, or anything after a blank, rules it out
        self.work += len(s)
        for ch in s:
            if ch in JS_SPACE:
                self.digits_gap = True
            elif self.digits_gap or ch not in _NUMBER_CHARS:
                return self._go("".join(self.decide), decoded)
        return ""

    def _go(self, opening: str, decoded: bool) -> str:
        self.work += len(opening)
        self.state = _T_STREAM
        self.decide = []
        return self._stream(opening, decoded=decoded)

    def _stream(self, s: str, *, decoded: bool = False) -> str:
        """Decoded characters out, holding back a trailing whitespace run and, at the end of
        text, a partial entity."""
        if not decoded:
            s = self.entity + s
            self.entity = ""
            amp = s.rfind("&", max(0, len(s) - _ENTITY_SPAN))
            if amp >= 0 and ";" not in s[amp:]:
                self.entity = s[amp:]
                s = s[:amp]
            s = decode_entities(s)
        self.work += len(s)
        body = s.rstrip(JS_SPACE)
        if not body:
            if s:
                self.held.append(s)
            return ""
        if self.held:
            out = "".join(self.held) + body
            self.work += len(out) - len(body)
        else:
            out = body
        self.held = [s[len(body) :]] if len(body) < len(s) else []
        return out


def _ruled_out(d: str) -> bool:
    """Do the opening characters `d` (no leading blank) rule out a JSON reading (R6.3)?"""
    c = d[0]
    if c in '{["':
        return False  # JSON text can run on: the value comes out at the close
    body = d.rstrip(JS_SPACE)
    if c in "tfn":
        return not next(x for x in _LITERALS if x[0] == c).startswith(body)
    return any(ch not in _NUMBER_CHARS for ch in body)


# ---- the Sieve side: internal events to public ones -----------------------------------------


class _Call:
    """A call announced by `tool_call_start`: what of its arguments text went out."""

    __slots__ = ("index", "keys", "name", "open_key", "open_sent", "sent")

    def __init__(self, index: int, name: str) -> None:
        self.index = index  # -1: rejected by the policy, so never announced
        self.name = name
        self.sent = 0  # characters of the arguments text sent
        self.keys = 0  # keys written
        self.open_key: str | None = None  # a string value streaming now
        self.open_sent = 0  # characters of that value's JSON text sent (with its quote)


class ArgumentsWriter:
    """Writes `tool_call_start` / `tool_call_arguments` (R16.2, R16.3) from the scanner's internal
    events. `events(events, resolve, normalize, apply)` takes the Sieve's treatment of calls:
    `resolve(name)` gives the declared spelling or None when the policy rejects the call;
    `normalize(name, input)` applies the tool's schema (R12); `apply(event)` is the Sieve's
    treatment of a block. Every fragment extends the call's arguments text, which ends as
    `json_text(normalize(name, input))`: the same text the OpenAI layer writes. They are arguments
    of `events`, not kept: the Sieve's bound methods, kept, would make the Sieve a reference cycle
    (test_cycles.py)."""

    def __init__(
        self, start: Callable[[int, str, str | None], Any], delta: Callable[[int, str], Any]
    ) -> None:
        self._start = start  # (index, name, id) -> event
        self._delta = delta  # (index, text) -> event
        self.next_index = 0
        self._call: _Call | None = None
        self._begun = 0  # calls begun in the current block

    def events(
        self,
        events: list[Any],
        resolve: Callable[[str], str | None],
        normalize: Callable[[str, dict[str, Any]], dict[str, Any]],
        apply: Callable[[ToolCallsEvent], ToolCallsEvent],
    ) -> list[Any]:
        out: list[Any] = []
        for e in events:
            t = type(e)
            if t is ValueChars:
                c = self._call
                if c is not None and c.index >= 0 and c.open_key == e.key:  # the hot path
                    body = json_string_body(e.text)
                    c.open_sent += len(body)
                    c.sent += len(body)
                    out.append(self._delta(c.index, body))
                else:
                    self._chars(e, out)
            elif t is ParamDone:
                self._param(e, out, normalize)
            elif t is CallBegun:
                self._begin(e.name, e.id, out, resolve)
            elif t is CallDone:
                self._done(e.input, out, normalize)
            elif getattr(e, "type", None) == "tool_calls":
                self._block(e, out, resolve, normalize, apply)
            else:
                out.append(e)
        return out

    def _begin(
        self, name: str, call_id: str | None, out: list[Any], resolve: Callable[[str], str | None]
    ) -> None:
        self._begun += 1
        resolved = resolve(name)
        if resolved is None:
            self._call = _Call(-1, name)
            return
        self._call = _Call(self.next_index, resolved)
        self.next_index += 1
        out.append(self._start(self._call.index, resolved, call_id))

    def _send(self, c: _Call, text: str, out: list[Any]) -> None:
        if text:
            c.sent += len(text)
            out.append(self._delta(c.index, text))

    def _key(self, c: _Call, key: str) -> str:
        c.keys += 1
        return ("{" if c.keys == 1 else ",") + json_text(key) + ":"

    def _chars(self, e: ValueChars, out: list[Any]) -> None:
        c = self._call
        if c is None or c.index < 0:
            return
        body = json_string_body(e.text)
        if c.open_key != e.key:
            c.open_key = e.key
            c.open_sent = 1 + len(body)
            self._send(c, self._key(c, e.key) + '"' + body, out)
        else:
            c.open_sent += len(body)
            self._send(c, body, out)

    def _param(
        self, e: ParamDone, out: list[Any], normalize: Callable[[str, dict[str, Any]], dict[str, Any]]
    ) -> None:
        c = self._call
        if c is None or c.index < 0:
            return
        value = normalize(c.name, {e.key: e.value})[e.key]
        text = json_text(value)
        if c.open_key == e.key:
            self._send(c, text[c.open_sent :], out)
        else:
            self._send(c, self._key(c, e.key) + text, out)
        c.open_key = None

    def _done(
        self, inp: dict[str, Any], out: list[Any], normalize: Callable[[str, dict[str, Any]], dict[str, Any]]
    ) -> None:
        c = self._call
        self._call = None
        if c is None or c.index < 0:
            return
        final = json_text(normalize(c.name, inp))
        self._send(c, final[c.sent :], out)

    def _block(
        self,
        e: Any,
        out: list[Any],
        resolve: Callable[[str], str | None],
        normalize: Callable[[str, dict[str, Any]], dict[str, Any]],
        apply: Callable[[ToolCallsEvent], ToolCallsEvent],
    ) -> None:
        """A block's event: calls begun in it are complete; the others (token sections, JSON
        calls, repaired blocks) are announced now, whole, before it (D38)."""
        applied = apply(e)
        begun, self._begun = self._begun, 0
        for call in e.calls[begun:]:
            resolved = resolve(call.name)
            if resolved is None:
                continue
            index = self.next_index
            self.next_index += 1
            out.append(self._start(index, resolved, call.id))
            text = json_text(normalize(resolved, call.input))
            out.append(self._delta(index, text))
        out.append(applied)
