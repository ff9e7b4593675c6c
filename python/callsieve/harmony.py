"""gpt-oss Harmony messages (R17.6): the scanner's HARMONY mode, one message at a time.

A message is `[<|start|>ROLE]<|channel|>CHANNEL[ to=RECIPIENT][ <|constrain|>json]<|message|>BODY`
ended by `<|end|>`, `<|call|>` or `<|return|>` (the last two are stop tokens, often absent at the
end of the output), or by the next message's `<|start|>` / `<|channel|>`. The recipient may also
stand in the role part (`<|start|>assistant to=functions.f<|channel|>commentary`).

- The header (opener to `<|message|>`) is read whole. It fails at a newline or past MAX_HEADER
  characters, decided at that character, so TEXT resumes at the same place whatever the chunks:
  what was read of it is text.
- A message with a recipient is a call on any channel (models put many calls on `analysis`): its
  body is held to the message's end and read as JSON arguments; `functions.NAME` calls NAME. Any
  other recipient is a built-in tool (browser, python) that the client does not run: reported as
  malformed (R18.2, D49) with the recipient as its name, as is a body that is not a JSON object;
  never shown, never resolved to a declared function.
- Without a recipient, `analysis` is reasoning and every other channel content: the body streams
  as it arrives, holding back at most a partial end token.
- The markers (header, end tokens) are not content; a stray end token in prose is dropped.
- With stream_arguments, a call to `functions.NAME` is announced when its header ends and its
  JSON arguments stream as the body arrives (jsontaps.ObjectTap, D62); a body that stops being
  a JSON object ends the call there (R16.3): the call is kept with what it read, and the rest of
  the message is content.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from . import strings, values
from .blocktap import same_calls
from .events import Malformed, ReasoningEvent, TextEvent, ToolCall, ToolCallsEvent
from .jsontaps import ObjectTap

if TYPE_CHECKING:
    from .scanbase import ScanBase
    from .scanner import Scanner

START: Final = "<|start|>"
CHANNEL: Final = "<|channel|>"
MESSAGE: Final = "<|message|>"
CONSTRAIN: Final = "<|constrain|>"
ENDS: Final = ("<|end|>", "<|call|>", "<|return|>")
OPENERS: Final = (START, CHANNEL)
# What ends a body: an end token (consumed) or the next message's opener (left for TEXT).
_BODY_MARKERS: Final = (*ENDS, *OPENERS)
_MAX_MARKER: Final = max(len(m) for m in _BODY_MARKERS)
MAX_HEADER: Final = 256

HEADER, CALL, REASONING, CONTENT = 0, 1, 2, 3


class Harmony:
    """HARMONY's state: the open message."""

    __slots__ = ("body", "head", "kind", "opener", "recipient", "size", "tap")

    def __init__(self) -> None:
        self.opener = ""
        self.head: list[str] = []  # the header read so far (after the opener)
        self.size = 0  # characters of head, or of a held call body
        self.kind = HEADER
        self.recipient = ""
        self.body: list[str] = []  # a call's body, held
        self.tap: ObjectTap | None = None  # R16: the call's arguments as they arrive


def start(sc: ScanBase, opener: str, end: int) -> None:
    hm = sc.hm
    hm.opener, hm.head, hm.size, hm.kind, hm.recipient, hm.body = opener, [], 0, HEADER, "", []
    hm.tap = None
    sc.pos = end


def step(sc: Scanner, final: bool) -> bool:
    return _header(sc, final) if sc.hm.kind == HEADER else _body(sc, final)


def _header(sc: Scanner, final: bool) -> bool:
    hm = sc.hm
    buf, pos = sc.buf, sc.pos
    n = len(buf)
    room = MAX_HEADER - hm.size
    i = buf.find(MESSAGE, pos, min(n, pos + room + len(MESSAGE)))
    nl = buf.find("\n", pos, min(n, pos + room))
    if nl >= 0 and (i < 0 or nl < i):
        return _header_fails(sc, nl)
    if i >= 0:
        hm.head.append(buf[pos:i])
        sc.pos = i + len(MESSAGE)
        _read_header(sc)
        return True
    if n - pos > room + len(MESSAGE) - 1 or final:
        return _header_fails(sc, min(n, pos + room))  # past the limit: decided at its character
    keep = min(_partial_at(buf, pos, (MESSAGE,)), pos + room)  # never past the limit
    hm.head.append(buf[pos:keep])
    hm.size += keep - pos
    sc.pos = keep
    return False


def _header_fails(sc: Scanner, at: int) -> bool:
    hm = sc.hm
    text = hm.opener + "".join(hm.head) + sc.buf[sc.pos : at]
    sc.pos = at
    sc._emit(text)
    sc._text_resumes(text)
    return True


def _read_header(sc: Scanner) -> None:
    hm = sc.hm
    head = "".join(hm.head)
    hm.head = []
    channel = ""
    c = head.find(CHANNEL)
    if hm.opener == CHANNEL:
        channel = _first_word(head)
    elif c >= 0:
        channel = _first_word(head[c + len(CHANNEL) :])
    hm.recipient = _recipient(head)
    hm.head = [hm.opener + head + MESSAGE]  # the message's source, for a call's raw
    hm.size = 0
    if hm.recipient:
        hm.kind = CALL
        name = strings.trim(hm.recipient[len("functions.") :])
        if sc.stream and hm.recipient.startswith("functions.") and name:
            hm.tap = ObjectTap(sc.typer, sc._name(name))
            _pull(sc)
    else:
        hm.kind = REASONING if channel == "analysis" else CONTENT


def _first_word(s: str) -> str:
    i = 0
    n = len(s)
    while i < n and s[i] in strings.JS_SPACE:
        i += 1
    j = i
    while j < n and s[j] not in strings.JS_SPACE and s[j] != "<":
        j += 1
    return s[i:j]


def _recipient(head: str) -> str:
    k = head.find("to=")
    while k > 0 and head[k - 1] not in strings.JS_SPACE and head[k - 1] != ">":
        k = head.find("to=", k + 1)  # (`to=` inside another word is no recipient)
    if k < 0:
        return ""
    return _first_word(head[k + 3 :])


def _partial_at(buf: str, pos: int, markers: tuple[str, ...]) -> int:
    """Where a suffix of `buf` that may begin one of `markers` starts (len(buf): none). Only the
    last few characters can: the `<`s among them are tried (this runs once per chunk)."""
    n = len(buf)
    j = buf.find("<", max(pos, n - _MAX_MARKER + 1))
    while j >= 0:
        tail = buf[j:]
        for m in markers:
            if m.startswith(tail):
                return j
        j = buf.find("<", j + 1)
    return n


def _marker_at(buf: str, j: int) -> str | None:
    for m in _BODY_MARKERS:
        if buf.startswith(m, j):
            return m
    return None


def _body(sc: Scanner, final: bool) -> bool:
    buf, pos = sc.buf, sc.pos
    n = len(buf)
    j = buf.find("<|", pos)
    while j >= 0:
        m = _marker_at(buf, j)
        if m is not None:
            _take(sc, buf[pos:j])
            sc.pos = j + len(m) if m in ENDS else j
            return _end(sc, m if m in ENDS else "")
        if n - j < _MAX_MARKER and not final and any(x.startswith(buf[j:]) for x in _BODY_MARKERS):
            break  # a marker cut by the end of the input so far
        j = buf.find("<|", j + 2)
    if final:
        _take(sc, buf[pos:])
        sc.pos = n
        return _end(sc, "")
    keep = _partial_at(buf, pos, _BODY_MARKERS)
    if keep > pos:
        _take(sc, buf[pos:keep])
        sc.pos = keep
    return False


def _take(sc: Scanner, s: str) -> None:
    if not s:
        return
    hm = sc.hm
    if hm.kind == REASONING:
        sc._flush_text()
        sc.out.append(ReasoningEvent(s))
    elif hm.kind == CONTENT:
        sc._emit(s)
    else:
        hm.body.append(s)
        hm.size += len(s)
        if hm.tap is not None:
            hm.tap.feed(s)
            _pull(sc)
            if hm.tap.broken >= 0:
                _keep(sc, "")
                return
        if hm.size > sc.max_capture and not (hm.tap is not None and hm.tap.started):  # D43, D37
            sc._flush_text()
            sc.out.append(TextEvent("".join(hm.head) + "".join(hm.body), "capture_limit"))
            hm.head, hm.body, hm.kind = [], [], CONTENT


def _pull(sc: ScanBase) -> None:
    """What the tap learned goes out (R16)."""
    tap = sc.hm.tap
    if tap is not None and tap.out:
        sc._flush_text()
        sc.out += tap.out
        tap.out = []


def _keep(sc: ScanBase, end: str) -> None:
    """R16.3: the announced call ends where its body stopped being a JSON object: its event, and
    the rest of the message is content (`end`: the message ended too)."""
    hm = sc.hm
    tap = hm.tap
    assert tap is not None
    body = "".join(hm.body)
    cut = tap.broken
    whole = cut >= len(body)
    raw = "".join(hm.head) + body[:cut] + (end if whole else "")
    sc.saw = True
    sc._flush_text()
    sc.out.append(ToolCallsEvent(tuple(tap.calls), raw, (), "harmony", (), ("D37",)))
    hm.tap, hm.head, hm.body, hm.kind = None, [], [], CONTENT
    sc._emit(body[cut:])


def _end(sc: Scanner, end: str) -> bool:
    hm = sc.hm
    tap = hm.tap
    if tap is not None:
        tap.finish()
        _pull(sc)
        if tap.broken < 0:
            body = "".join(hm.body)
            ok, args = values.json_value(body) if strings.trim(body) else (True, {})
            if not (ok and isinstance(args, dict) and same_calls(tap.calls, [ToolCall(tap.name, args)])):
                tap.broken = len(body) - len(body[tap.done_at :].lstrip(strings.JS_SPACE))
        if tap.broken >= 0:
            _keep(sc, end)
            hm.head, hm.body = [], []
            sc._resume_text()
            return True
        hm.tap = None
    if hm.kind == CALL:
        body = "".join(hm.body)
        raw = "".join(hm.head) + body + end
        sc.work += len(body)
        function = hm.recipient.startswith("functions.")
        name = strings.trim(hm.recipient[len("functions.") :] if function else hm.recipient)
        if strings.trim(body):
            ok, args = values.json_value(body)
        else:
            ok, args = True, {}
        sc.saw = True
        sc._flush_text()
        bad: Malformed | None = None
        if not function:  # a built-in tool (browser, python): not the client's to run (D49)
            bad = Malformed(strings.trim(body), "built-in tool recipient", hm.recipient)
        elif not name:
            bad = Malformed(strings.trim(body), "no name")
        elif not ok or not isinstance(args, dict):
            bad = Malformed(strings.trim(body), "arguments are not a JSON object", name)
        if bad is None:
            ev = ToolCallsEvent((ToolCall(sc._name(name), args),), raw, (), "harmony")
        else:
            ev = ToolCallsEvent((), raw, (), "harmony", (bad,))
        sc.out.append(ev)
    hm.head, hm.body = [], []
    sc._resume_text()
    return True
