"""Mistral tool calls (R17.7, D56): the scanner's MISTRAL mode, from `[TOOL_CALLS]` to its JSON's end.

After `[TOOL_CALLS]` comes either a JSON array of `{"name", "arguments"[, "id"]}` (older
tokenizers) or one call written `NAME[ARGS]{json}`, with an optional `[CALL_ID]ID` before
`[ARGS]` (tokenizer v11+; a second call repeats `[TOOL_CALLS]`). The block ends where that JSON
value ends, counted incrementally (braces and brackets outside strings), so text after it is
content again and nothing depends on where a chunk ended.

- The head (between the marker and the JSON) is at most MAX_HEAD characters on one line; past
  that, at a newline, or at anything but a JSON start after blanks / `[ARGS]`, the marker and the
  head are text (decided at that character).
- A value cut by the end of the output is text (as D44: only complete calls survive a cut).
- Calls that cannot be executed are reported as malformed (R18.2).
- With stream_arguments, a v11 call is announced when its JSON starts after `[ARGS]` and its
  arguments stream as they arrive (jsontaps.ObjectTap, D62); a cut or a value that is no JSON
  then keeps the call with what it read (R16.3), and the rest of the JSON is text. The array
  form is announced when complete (D38).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from . import strings, values
from .blocks import Body, json_item, name_ok
from .blocktap import same_calls
from .events import Malformed, TextEvent, ToolCall, ToolCallsEvent
from .jsontaps import ObjectTap

if TYPE_CHECKING:
    from .scanbase import ScanBase
    from .scanner import Scanner

MARKER: Final = "[TOOL_CALLS]"
ARGS: Final = "[ARGS]"
CALL_ID: Final = "[CALL_ID]"
MAX_HEAD: Final = 256
_OUT: Final = re.compile(r'["{}\[\]]')  # what matters outside a JSON string
_IN: Final = re.compile(r'["\\]')  # inside one

HEAD, JSON = 0, 1


class Mistral:
    """MISTRAL's state: the open block."""

    __slots__ = ("blank", "depth", "esc", "head", "in_str", "json", "over", "size", "stage", "tap")

    def __init__(self) -> None:
        self.stage = HEAD
        self.head: list[str] = []
        self.size = 0  # characters of the head, then of the JSON
        self.json: list[str] = []
        self.depth = 0
        self.in_str = False
        self.esc = False
        self.over = False
        self.blank = True  # the head so far is blanks only
        self.tap: ObjectTap | None = None  # R16: a v11 call's arguments as they arrive


def match_marker(s: str, i: int, final: bool) -> tuple[str, int] | str | None:
    """`[TOOL_CALLS]` at `s[i]`: (marker, end), "more" (cut by the end of the input), or None."""
    if s.startswith(MARKER, i):
        return MARKER, i + len(MARKER)
    if not final and len(s) - i < len(MARKER) and MARKER.startswith(s[i:]):
        return "more"
    return None


def start(sc: ScanBase, end: int) -> None:
    m = sc.mi
    m.stage, m.head, m.size, m.json = HEAD, [], 0, []
    m.depth, m.in_str, m.esc, m.over, m.blank = 0, False, False, False, True
    m.tap = None
    sc.pos = end


def step(sc: Scanner, final: bool) -> bool:
    return _head(sc, final) if sc.mi.stage == HEAD else _json(sc, final)


def _head(sc: Scanner, final: bool) -> bool:
    m = sc.mi
    buf, pos = sc.buf, sc.pos
    n = len(buf)
    i = pos
    while i < n:
        c = buf[i]
        if c == "\n" or m.size >= MAX_HEAD:
            return _fails(sc, i)
        if c == "[":
            tag = _tag_at(buf, i, final)
            if tag == "more":
                break  # `[ARGS]` or `[CALL_ID]` cut by the end of the input so far
            if tag == ARGS:
                k = i + len(ARGS)
                room = MAX_HEAD - m.size - len(ARGS)
                while k < n and buf[k] in " \t" and k - i - len(ARGS) < room:
                    k += 1
                if k == n and not final:
                    break  # only blanks after [ARGS] so far: wait for what follows
                if k < n and buf[k] == "{":
                    m.head.append(buf[pos:k])
                    sc.pos = k
                    m.stage, m.size = JSON, 0
                    if sc.stream:
                        _announce(sc)
                    return True
                return _fails(sc, k)
            if tag is None and m.blank:
                return _json_starts(sc, i)  # the JSON form: an array of calls
        elif c == "{" and m.blank:
            return _json_starts(sc, i)
        if c != " " and c != "\t":
            m.blank = False
        m.size += 1
        i += 1
    if final:
        return _fails(sc, n)
    m.head.append(buf[pos:i])
    sc.pos = i
    return False


def _tag_at(buf: str, i: int, final: bool) -> str | None:
    """`[ARGS]` or `[CALL_ID]` at `buf[i]`, "more" when one may still start there, else None."""
    for tag in (ARGS, CALL_ID):
        if buf.startswith(tag, i):
            return tag
    rest = buf[i : i + len(CALL_ID)]  # (never the rest of the buffer: this runs at each `[`)
    if not final and any(len(rest) < len(t) and t.startswith(rest) for t in (ARGS, CALL_ID)):
        return "more"
    return None


def _fails(sc: Scanner, at: int) -> bool:
    m = sc.mi
    text = MARKER + "".join(m.head) + sc.buf[sc.pos : at]
    sc.pos = at
    sc._emit(text)
    sc._text_resumes(text)
    return True


def _json_starts(sc: Scanner, i: int) -> bool:
    m = sc.mi
    buf = sc.buf
    m.head.append(buf[sc.pos : i])
    sc.pos = i
    m.stage, m.size = JSON, 0
    return True


def _json(sc: Scanner, final: bool) -> bool:
    m = sc.mi
    buf, pos = sc.buf, sc.pos
    n = len(buf)
    i = pos
    while i < n:
        if m.in_str:
            if m.esc:
                m.esc = False
                i += 1
                continue
            hit = _IN.search(buf, i)
            if hit is None:
                i = n
                break
            i = hit.start() + 1
            if hit.group() == "\\":
                m.esc = True
            else:
                m.in_str = False
            continue
        hit = _OUT.search(buf, i)
        if hit is None:
            i = n
            break
        c = hit.group()
        i = hit.start() + 1
        if c == '"':
            m.in_str = True
        elif c in "{[":
            m.depth += 1
        else:
            m.depth -= 1
            if m.depth <= 0:
                _take(sc, buf[pos:i])
                sc.pos = i
                return _end(sc, True)
    _take(sc, buf[pos:i])
    sc.pos = i
    if final:
        return _end(sc, False)
    return False


def _name_and_id(head: str) -> tuple[str, str | None]:
    """A v11 head, `NAME[CALL_ID]ID[ARGS]`: its name (trimmed) and id."""
    name, call_id = head, None
    k = head.find(ARGS)
    if k >= 0:
        name = head[:k]
    c = name.find(CALL_ID)
    if c >= 0:
        call_id = strings.trim(name[c + len(CALL_ID) :]) or None
        name = name[:c]
    return strings.trim(name), call_id


def _announce(sc: Scanner) -> None:
    """R16: a v11 call whose name is valid is announced as its JSON starts."""
    m = sc.mi
    name, call_id = _name_and_id(strings.trim("".join(m.head)))
    if name_ok(name):
        m.tap = ObjectTap(sc.typer, sc._name(name), call_id)
        _pull(sc)


def _pull(sc: Scanner) -> None:
    tap = sc.mi.tap
    if tap is not None and tap.out:
        sc._flush_text()
        sc.out += tap.out
        tap.out = []


def _keep(sc: Scanner) -> None:
    """R16.3: the announced call ends where its JSON stopped being an object: its event, and the
    rest of the JSON value is text, as it comes."""
    m = sc.mi
    tap = m.tap
    assert tap is not None
    text = "".join(m.json)
    cut = tap.broken
    sc.saw = True
    sc._flush_text()
    raw = MARKER + "".join(m.head) + text[:cut]
    sc.out.append(ToolCallsEvent(tuple(tap.calls), raw, (), "mistral", (), ("D37",)))
    m.tap, m.json, m.over = None, [], True
    sc._emit(text[cut:])


def _take(sc: Scanner, s: str) -> None:
    m = sc.mi
    if m.over:
        sc._emit(s)
        return
    m.json.append(s)
    m.size += len(s)
    if m.tap is not None:
        m.tap.feed(s)
        _pull(sc)
        if m.tap.broken >= 0:
            _keep(sc)
            return
        if m.tap.started:
            return  # (the capture limit stops applying to an announced call, D37)
    if m.size > sc.max_capture:  # D43: past the limit the block is text, as it goes
        sc._flush_text()
        sc.out.append(TextEvent(MARKER + "".join(m.head) + "".join(m.json), "capture_limit"))
        m.json, m.over = [], True


def _end(sc: Scanner, complete: bool) -> bool:
    m = sc.mi
    tap = m.tap
    if tap is not None and not m.over:
        tap.finish()
        _pull(sc)
        if tap.broken < 0:
            got = calls("".join(m.head), "".join(m.json)) if complete else None
            if got is None or got[1] or not same_calls(tap.calls, got[0]):
                text = "".join(m.json)
                tap.broken = len(text) - len(text[tap.done_at :].lstrip(strings.JS_SPACE))
        if tap.broken >= 0:
            _keep(sc)
            sc._resume_text()
            return True
        m.tap = None
    if m.over:
        sc._resume_text()
        return True
    head = "".join(m.head)
    text = "".join(m.json)
    raw = MARKER + head + text
    sc.work += len(text)
    got = calls(head, text) if complete else None
    if got is None or not (got[0] or got[1]):  # (an empty list holds no call the model meant: D46)
        sc._emit(raw)
        sc._text_resumes(raw)
        return True
    found, bad = got
    sc.saw = True
    sc._flush_text()
    found = [ToolCall(sc._name(c.name), c.input, c.id) for c in found]
    sc.out.append(ToolCallsEvent(tuple(found), raw, (), "mistral", tuple(bad)))
    sc._resume_text()
    return True


def calls(head: str, text: str) -> tuple[list[ToolCall], list[Malformed]] | None:
    """The calls of one block: `head` before the JSON value `text`."""
    found: list[ToolCall] = []
    bad: list[Malformed] = []
    ok, v = values.json_value(text)
    h = strings.trim(head)
    if not h:  # the JSON form: an array of calls (or one call object)
        if not ok:
            bad.append(Malformed(strings.trim(text), "not JSON"))
            return found, bad
        body = Body()
        for item in v if isinstance(v, list) else [v]:
            json_item(item, body, None)  # (as Hermes' items, R17.1; raw: the item's compact JSON)
        return body.calls, body.malformed
    name, call_id = _name_and_id(h)
    if not name_ok(name):
        bad.append(Malformed(strings.trim(head + text), "invalid name", name or None))
    elif not ok or not isinstance(v, dict):
        bad.append(Malformed(strings.trim(text), "arguments are not a JSON object", name))
    else:
        found.append(ToolCall(name, v, call_id))
    return found, bad
