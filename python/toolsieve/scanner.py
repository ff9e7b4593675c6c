"""The incremental scanner: one state machine for `parse()` and for the streaming `Sieve`.

Theory of operation
-------------------
Input arrives as chunks. The scanner keeps `buf`, the part of the input it has not decided yet,
and a cursor `pos` into it. Each step looks at `buf[pos:]` in the current mode and either
consumes some characters (emitting them as text, or adding them to the block being captured) or
answers "wait": the characters at `pos` could still mean different things depending on what
follows. Nothing is ever decided by where a chunk ended: a step that cannot decide waits for more
input, and at end of input (`final`) every step decides. So every split of the input gives the same
events (R8.6), and `parse()` is simply "feed everything, finish".

Modes:
- TEXT: prose. Plain runs are skipped with one regex search to the next special character
  (newline, backtick, open angle). An open angle is tried as a tool tag (shell.match_tag, bounded
  lookahead). An opening wrapper, or a bare `invoke` with a name (R3), starts a CAPTURE.
- RUN: counting a run of backticks / tildes: at a line start a run of 3+ opens a FENCE (R5.1);
  a backtick run elsewhere opens an inline code span, resolved in PENDING.
- FENCE: everything is text until a closing fence line.
- PENDING: an inline code span is open (R5.2, D1). Text after the opener is emitted until the
  first thing whose meaning depends on the span (a backtick run, a wrapper tag, a named invoke);
  from there it is held. If the closing run comes, everything held is text. If the paragraph ends
  first, the opener was literal: the held part is scanned again as TEXT, with the backtick runs
  seen during the hold indexed, so no opener inside it has to look ahead again. Each character is
  scanned at most twice.
- CAPTURE: a block is parsed incrementally: wrapper level, invoke, parameter body, CDATA (with
  fences tracked inside it, R5.3, D7). The block's raw text and parameter values accumulate in
  lists; only a bounded lookahead stays in `buf`. A structure a real block never has ends the
  capture (D3, D5): the captured text is released as text and TEXT resumes at that point, so
  nothing is rescanned. At end of input an unclosed CDATA gets one narrow repair (R5.6, D8).

Per chunk the work is proportional to the chunk plus a bounded lookahead (R8.7); the only
rescans are the PENDING one above and the one-time loose-CDATA repair at end of input.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Any, Final

from . import values
from .events import Event, TextEvent, ToolCall, ToolCallsEvent
from .shell import (
    CLOSE_ANGLES,
    INVOKE,
    MORE,
    NO,
    OPEN_ANGLES,
    PARAMETER,
    WRAPPER,
    Tag,
    cdata_close_at,
    match_cdata_open,
    match_close_start,
    match_tag,
    skip_no_tag,
)

TEXT, RUN, FENCE, PENDING, CAPTURE, JSON = range(6)
TOP, INV, PAR, CDATA, AFTER = range(5)

_SPECIAL: Final = re.compile(r"[\n`<＜〈《]")
_SPECIAL_JSON: Final = re.compile(r"[\n`<＜〈《{]")
# R9: a JSON candidate is `{` + a first key that starts a tool call object (bounded lookahead).
_JSON_START: Final = re.compile(r'\{[ \t\r\n]{0,16}"(tool_calls|name|function|type|id)"')
_JSON_START_PREFIX: Final = re.compile(r'\{[ \t\r\n]{0,16}(?:"[a-z_]{0,10})?\Z')
_JSON_OUT: Final = re.compile(r'["{}\[\]]')
_JSON_IN: Final = re.compile(r'["\\]')
_ANGLE: Final = re.compile(r"[<＜〈《]")
_WS: Final = re.compile("[" + values.JS_SPACE + "]+")
_RUNS: Final = {"`": re.compile(r"`+"), "~": re.compile(r"~+")}
_CD_SPECIAL: Final = re.compile(r"\]\]|\n {0,3}[`~]|[<＜〈《][!！、]")
_CD_FENCE_LINE: Final = re.compile(r"\n {0,3}[`~]")
_CD_TAIL: Final = re.compile(r"(?:\n {0,3}|\]|[<＜〈《])\Z")
_LOOSE_CLOSE_TAIL: Final = re.compile(r"\]\][>＞〉][ \t\r\n]*$")


class Scanner:
    """Incremental scanner. `feed()` returns the events the new text decided; `finish()` the rest."""

    def __init__(self, max_capture: int = 8 * 1024 * 1024, json_calls: bool = False) -> None:
        self.max_capture = max_capture
        self.json_calls = json_calls
        self._special = _SPECIAL_JSON if json_calls else _SPECIAL
        # JSON (R9)
        self.j_parts: list[str] = []
        self.j_depth = 0
        self.j_in_str = False
        self.j_start = 0
        self.work = 0  # characters exposed to the scanner (see Sieve.work)
        self._memo_at = -1
        self._memo: Tag | str = NO
        self._memo_base = 0
        self.buf = ""
        self.pos = 0
        self.base = 0  # absolute offset of buf[0]
        self.mode = TEXT
        self.saw = False
        self.out: list[Event] = []
        self._text: list[str] = []
        # TEXT: line state: -1 mid-line, 0..3 spaces seen at a line start
        self.ls = 0
        # rescan index after a failed inline span: run length -> absolute offsets
        self.idx: dict[int, list[int]] = {}
        self.idx_end = -1
        # RUN
        self.run_char = ""
        self.run_len = 0
        self.run_start = 0
        self.run_line = False
        # FENCE
        self.f_char = ""
        self.f_len = 0
        self.f_ls = -1
        self.f_run = 0
        self.f_tail = False
        # PENDING
        self.p_n = 0
        self.p_hold: list[str] | None = None
        self.p_hold_start = 0
        self.p_runs: dict[int, list[int]] = {}
        self.p_blank = False
        self.p_indent = 0
        self.p_line_start = 0
        self.p_run_len = 0
        self.p_run_start = 0
        # CAPTURE
        self.c_kind = WRAPPER
        self.c_level = TOP
        self.c_raw: list[str] = []
        self.c_calls: list[ToolCall] = []
        self.inv_name = ""
        self.inv_params: list[tuple[str, Any]] = []
        self.inv_text: list[str] = []
        self.par_name = ""
        self.par_segs: list[tuple[str, str]] = []
        self.par_text: list[str] = []
        self.cd_parts: list[str] = []
        self.cd_start = 0
        self.cd_depth = 1
        self.cd_fence = ""
        self.cd_fence_len = 0
        self.cd_ls = 0
        self.cd_run_char = ""
        self.cd_run = 0
        self.cd_tail = False
        self.cd_loose_ok = True
        self.ac_parts: list[str] = []
        self._steps = (
            self._m_text,
            self._m_run,
            self._m_fence,
            self._m_pending,
            self._m_capture,
            self._m_json,
        )

    # ---- driving ------------------------------------------------------------------------

    def feed(self, chunk: str) -> list[Event]:
        pos = self.pos
        if (
            chunk
            and self.mode == TEXT
            and pos == len(self.buf)
            and (self.ls < 0 or chunk[0] not in " ~")
            and self._special.search(chunk) is None
        ):
            # Fast path: plain prose with nothing held decides itself.
            self.work += len(chunk)
            self.base += pos
            self.buf = chunk
            self.pos = len(chunk)
            self.ls = -1
            return [TextEvent(chunk)]
        if pos:
            self.base += pos
            self.buf = self.buf[pos:] + chunk
            self.pos = 0
        else:
            self.buf += chunk
        self.work += len(self.buf)
        step = self._steps
        while step[self.mode](False):
            pass
        return self._take()

    def finish(self) -> list[Event]:
        step = self._steps
        while step[self.mode](True):
            pass
        return self._take()

    def _take(self) -> list[Event]:
        self._flush_text()
        out = self.out
        self.out = []
        return out

    # ---- output -------------------------------------------------------------------------

    def _emit(self, s: str) -> None:
        if s:
            self._text.append(s)

    def _flush_text(self) -> None:
        if self._text:
            self.out.append(TextEvent("".join(self._text)))
            self._text = []

    def _abs(self, i: int) -> int:
        return self.base + i

    def _tag(self, buf: str, pos: int, final: bool) -> Tag | str:
        """match_tag, remembering the last decided answer: after a capture ends at a tag, TEXT
        looks at the same tag again. A decided answer (Tag or NO) never changes for a position."""
        at = self.base + pos
        if at == self._memo_at:
            r = self._memo
            if isinstance(r, Tag):  # `end` was relative to the buffer of that time
                return Tag(r.local, r.closing, r.name, r.self_closing, r.end + self._memo_base - self.base)
            return r
        r = match_tag(buf, pos, final)
        if r is not MORE:
            self._memo_at, self._memo, self._memo_base = at, r, self.base
        return r

    # ---- TEXT ---------------------------------------------------------------------------

    def _m_text(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        n = len(buf)
        if pos >= n:
            return False
        c = buf[pos]
        if self.ls >= 0:
            if c == " " and self.ls < 3:
                self._emit(c)
                self.ls += 1
                self.pos = pos + 1
                return True
            if c == "`" or c == "~":
                self._start_run(c, line=True)
                return True
            if c != "\n":
                self.ls = -1
        if c == "\n":
            self._emit(c)
            self.ls = 0
            self.pos = pos + 1
            return True
        if c == "`":
            self._start_run(c, line=False)
            return True
        if c in OPEN_ANGLES:
            return self._text_tag(final)
        if c == "{" and self.json_calls:
            return self._text_json(final)
        m = self._special.search(buf, pos + 1)
        end = m.start() if m else n
        self._emit(buf[pos:end])
        self.ls = -1
        self.pos = end
        return True

    def _text_tag(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        r = self._tag(buf, pos, final)
        if r is MORE:
            return False
        self.ls = -1
        if isinstance(r, Tag):
            if r.local == WRAPPER:
                self.saw = True
                if not r.closing:
                    self._start_capture(WRAPPER, TOP, r.end)
                    return True
            elif r.local == INVOKE and not r.closing and not r.self_closing and _named(r):
                self._start_capture(INVOKE, INV, r.end)
                self.inv_name = values.trim(r.name or "")
                return True
            self._emit(buf[pos : r.end])
            self.pos = r.end
            return True
        end = skip_no_tag(buf, pos)
        self._emit(buf[pos:end])
        self.pos = end
        return True

    # ---- RUN (backticks / tildes) -------------------------------------------------------

    def _start_run(self, c: str, *, line: bool) -> None:
        self.mode = RUN
        self.run_char = c
        self.run_len = 0
        self.run_start = self._abs(self.pos)
        self.run_line = line

    def _m_run(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        m = _RUNS[self.run_char].match(buf, pos)
        if m:
            self._emit(m.group(0))
            self.run_len += m.end() - pos
            self.pos = pos = m.end()
        if pos >= len(buf) and not final:
            return False
        self.ls = -1
        if self.run_line and self.run_len >= 3:
            self.mode = FENCE
            self.f_char, self.f_len = self.run_char, self.run_len
            self.f_ls, self.f_run, self.f_tail = -1, 0, False
            return True
        self.mode = TEXT
        if self.run_char == "`":
            start, n = self.run_start, self.run_len
            if start < self.idx_end:
                offs = self.idx.get(n, [])
                k = bisect_right(offs, start)
                if k < len(offs):
                    end = offs[k] + n - self.base
                    self._emit(buf[pos:end])
                    self.pos = end
            else:
                self._start_pending(n)
        return True

    # ---- FENCE --------------------------------------------------------------------------

    def _m_fence(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        n = len(buf)
        if pos >= n:
            return False
        c = buf[pos]
        if self.f_tail:
            if c == " " or c == "\t" or c == "\r":
                self._emit(c)
                self.pos = pos + 1
                return True
            self.f_tail = False
            if c == "\n":
                self._emit(c)
                self.pos = pos + 1
                self.mode = TEXT
                self.ls = 0
                return True
            self.f_ls = -1
        if self.f_run:
            m = _RUNS[self.f_char].match(buf, pos)
            if m:
                self._emit(m.group(0))
                self.f_run += m.end() - pos
                self.pos = m.end()
                return True
            if self.f_run >= self.f_len:
                self.f_tail = True
            else:
                self.f_ls = -1
            self.f_run = 0
            return True
        if self.f_ls >= 0:
            if c == " " and self.f_ls < 3:
                self._emit(c)
                self.f_ls += 1
                self.pos = pos + 1
                return True
            if c == self.f_char:
                self.f_run = 0
                m = _RUNS[c].match(buf, pos)
                assert m is not None
                self._emit(m.group(0))
                self.f_run = m.end() - pos
                self.pos = m.end()
                return True
            self.f_ls = -1
        k = buf.find("\n", pos)
        if k < 0:
            self._emit(buf[pos:])
            self.pos = n
            return False
        self._emit(buf[pos : k + 1])
        self.pos = k + 1
        self.f_ls = 0
        return True

    # ---- PENDING (inline code span) -----------------------------------------------------

    def _start_pending(self, n: int) -> None:
        self.mode = PENDING
        self.p_n = n
        self.p_hold = None
        self.p_runs = {}
        self.p_blank = False
        self.p_indent = 0
        self.p_run_len = 0

    def _p_put(self, s: str) -> None:
        if self.p_hold is None:
            self._emit(s)
        else:
            self.p_hold.append(s)

    def _p_hold_here(self, at: int) -> None:
        if self.p_hold is None:
            self.p_hold = []
            self.p_hold_start = at

    def _m_pending(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        n = len(buf)
        if self.p_run_len:
            m = _RUNS["`"].match(buf, pos)
            if m:
                self.p_run_len += m.end() - pos
                self.pos = pos = m.end()
            if pos >= n and not final:
                return False
            length, start = self.p_run_len, self.p_run_start
            self.p_run_len = 0
            if length == self.p_n:  # the closing run: the whole span is text
                self._p_put("`" * length)
                if self.p_hold is not None:
                    self._emit("".join(self.p_hold))
                self.p_hold = None
                self.mode = TEXT
                self.ls = -1
                return True
            self._p_hold_here(start)
            assert self.p_hold is not None
            self.p_hold.append("`" * length)
            self.p_runs.setdefault(length, []).append(start)
            return True
        if pos >= n:
            if final:
                self._pending_literal(self._abs(pos))
                return True
            return False
        c = buf[pos]
        if self.p_blank:
            if c == " " or c == "\t":
                self._p_put(c)
                self.p_indent += 1 if c == " " else 4
                self.pos = pos + 1
                return True
            if c == "\n":  # blank line: the paragraph ended
                self._pending_literal(self.p_line_start)
                return True
            if (c == "`" or c == "~") and self.p_indent <= 3:
                k = pos
                while k < n and k < pos + 3 and buf[k] == c:
                    k += 1
                if k - pos < 3 and k == n and not final:
                    return False
                if k - pos >= 3:  # a fence line ends the paragraph
                    self._pending_literal(self.p_line_start)
                    return True
            elif c in OPEN_ANGLES:
                r = self._tag(buf, pos, final)
                if r is MORE:
                    return False
                if isinstance(r, Tag) and r.local == WRAPPER and not r.closing:
                    self._pending_literal(self.p_line_start)
                    return True
            self.p_blank = False
        if c == "\n":
            self._p_put(c)
            self.pos = pos + 1
            self.p_blank = True
            self.p_indent = 0
            self.p_line_start = self._abs(pos + 1)
            return True
        if c == "`":
            self.p_run_start = self._abs(pos)
            m = _RUNS["`"].match(buf, pos)
            assert m is not None
            self.p_run_len = m.end() - pos
            self.pos = m.end()
            return True
        if c == "{" and self.json_calls:
            self._p_hold_here(self._abs(pos))
            self._p_put(c)
            self.pos = pos + 1
            return True
        if c in OPEN_ANGLES:
            r = self._tag(buf, pos, final)
            if r is MORE:
                return False
            if isinstance(r, Tag):
                if r.local == WRAPPER or (
                    r.local == INVOKE and not r.closing and not r.self_closing and _named(r)
                ):
                    self._p_hold_here(self._abs(pos))
                self._p_put(buf[pos : r.end])
                self.pos = r.end
                return True
            end = skip_no_tag(buf, pos)
            self._p_put(buf[pos:end])
            self.pos = end
            return True
        m = self._special.search(buf, pos + 1)
        end = m.start() if m else n
        self._p_put(buf[pos:end])
        self.pos = end
        return True

    def _pending_literal(self, region_end: int) -> None:
        """The open inline span has no closer in its paragraph: its opener is literal."""
        self.mode = TEXT
        if self.p_hold is None:
            self.ls = self.p_indent if self.p_blank and self.p_indent <= 3 else -1
            return
        held = "".join(self.p_hold)
        self.work += len(held)
        self.p_hold = None
        self.idx = self.p_runs
        self.idx_end = region_end
        self.buf = held + self.buf[self.pos :]
        self.base = self.p_hold_start
        self.pos = 0
        self.ls = -1

    # ---- JSON tool calls in prose (R9) -------------------------------------------------

    def _text_json(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        m = _JSON_START.match(buf, pos)
        self.ls = -1
        if m is None:
            if not final and _JSON_START_PREFIX.match(buf, pos):
                return False
            self._emit("{")
            self.pos = pos + 1
            return True
        self.mode = JSON
        self.j_parts = [m.group(0)]
        self.j_depth = 1
        self.j_in_str = False
        self.j_start = self._abs(pos)
        self.pos = m.end()
        return True

    def _m_json(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        n = len(buf)
        if self.base + pos - self.j_start > self.max_capture:
            return self._json_release()
        if pos >= n:
            return self._json_release() if final else False
        if self.j_in_str:
            m = _JSON_IN.search(buf, pos)
            if m is None:
                self.j_parts.append(buf[pos:])
                self.pos = n
                return True
            k = m.start()
            if buf[k] == "\\":
                if k + 1 >= n:
                    if not final:
                        self.j_parts.append(buf[pos:k])
                        self.pos = k
                        return False
                    self.j_parts.append(buf[pos:])
                    self.pos = n
                    return True
                self.j_parts.append(buf[pos : k + 2])
                self.pos = k + 2
                return True
            self.j_parts.append(buf[pos : k + 1])
            self.pos = k + 1
            self.j_in_str = False
            return True
        m = _JSON_OUT.search(buf, pos)
        if m is None:
            self.j_parts.append(buf[pos:])
            self.pos = n
            return True
        k = m.start()
        self.j_parts.append(buf[pos : k + 1])
        self.pos = k + 1
        ch = buf[k]
        if ch == '"':
            self.j_in_str = True
        elif ch == "{" or ch == "[":
            self.j_depth += 1
        else:
            self.j_depth -= 1
            if self.j_depth == 0:
                text = "".join(self.j_parts)
                self.work += len(text)
                calls = values.json_calls(text)
                if calls is None:
                    return self._json_release()
                self.saw = True
                self._flush_text()
                self.out.append(ToolCallsEvent(tuple(calls), text))
                self.mode = TEXT
        return True

    def _json_release(self) -> bool:
        """Not a JSON tool call: the candidate is text (R9.2)."""
        self._emit("".join(self.j_parts))
        self.j_parts = []
        self.mode = TEXT
        self.ls = -1
        return True

    # ---- CAPTURE ------------------------------------------------------------------------

    def _start_capture(self, kind: str, level: int, end: int) -> None:
        self.mode = CAPTURE
        self.c_kind = kind
        self.c_level = level
        self.c_raw = [self.buf[self.pos : end]]
        self.c_start = self._abs(self.pos)
        self.c_over = False
        self.c_calls = []
        self.inv_params = []
        self.inv_text = []
        self.cd_loose_ok = True
        self.pos = end

    def _consumed(self) -> str:
        parts = self.c_raw
        if self.c_level in (CDATA, AFTER):
            parts = parts + self.cd_parts + self.ac_parts
        return "".join(parts)

    def _fail(self) -> bool:
        """Not a block: what was captured is text; TEXT resumes at the current position."""
        text = self._consumed()
        self._emit(text)
        self.mode = TEXT
        nl = text.rfind("\n")
        tail = text[nl + 1 :] if nl >= 0 else "x"
        self.ls = len(tail) if len(tail) <= 3 and not tail.strip(" ") else -1
        return True

    def _succeed(self, end: int) -> bool:
        self.c_raw.append(self.buf[self.pos : end])
        self.pos = end
        if self.c_over:
            return self._fail()
        self._flush_text()
        self.out.append(ToolCallsEvent(tuple(self.c_calls), "".join(self.c_raw)))
        self.mode = TEXT
        self.ls = -1
        return True

    def _overflow(self) -> None:
        """The block grew past max_capture: what was captured is released as text (with a note),
        and the rest of the block is still parsed (so its content is not read as prose) but
        released as text as it goes."""
        if not self.c_over:
            self.c_over = True
            self._flush_text()
            self.out.append(TextEvent(self._consumed(), "capture_limit"))
        else:
            self._emit(self._consumed())
        self.c_raw, self.cd_parts, self.ac_parts = [], [], []
        self.inv_text = ["x"] if self.inv_text else []  # keep "a JSON body is in progress"
        self.par_text, self.par_segs = [], []

    def _m_capture(self, final: bool) -> bool:
        if self.c_over or self.base + self.pos - self.c_start > self.max_capture:
            self._overflow()
        level = self.c_level
        if level == CDATA:
            return self._c_cdata(final)
        if level == AFTER:
            return self._c_after(final)
        buf, pos = self.buf, self.pos
        n = len(buf)
        if pos >= n:
            if not final:
                return False
            return self._fail()  # end of input inside a block
        c = buf[pos]
        if level == PAR:
            return self._c_param(final, c)
        m = _WS.match(buf, pos)
        if m:
            self.c_raw.append(m.group(0))
            if level == INV and self.inv_text:
                self.inv_text.append(m.group(0))
            self.pos = m.end()
            return True
        if level == TOP:
            if c not in OPEN_ANGLES:
                return self._fail()
            r = self._tag(buf, pos, final)
            if r is MORE:
                return False
            if not isinstance(r, Tag):
                return self._fail()
            if r.local == INVOKE and not r.closing and not r.self_closing and _named(r):
                self.c_raw.append(buf[pos : r.end])
                self.pos = r.end
                self.c_level = INV
                self.inv_name = values.trim(r.name or "")
                self.inv_params = []
                self.inv_text = []
                return True
            if r.local == WRAPPER and r.closing and self.c_calls:
                self.saw = True
                return self._succeed(r.end)
            return self._fail()
        # INV
        if c in OPEN_ANGLES:
            r = self._tag(buf, pos, final)
            if r is MORE:
                return False
            if isinstance(r, Tag):
                if r.local == PARAMETER and not r.closing:
                    if r.self_closing or not _named(r) or not values.is_blank("".join(self.inv_text)):
                        return self._fail()
                    self.c_raw.append(buf[pos : r.end])
                    self.pos = r.end
                    self.c_level = PAR
                    self.par_name = values.trim(r.name or "")
                    self.par_segs = []
                    self.par_text = []
                    return True
                if r.local == INVOKE and r.closing:
                    inp = {} if self.c_over else self._invoke_input()
                    if inp is None:
                        return self._fail()
                    self.c_calls.append(ToolCall(self.inv_name, inp))
                    self.c_raw.append(buf[pos : r.end])
                    self.pos = r.end
                    self.c_level = TOP
                    return True
                return self._fail()
            if not self.inv_text:
                return self._fail()
            end = skip_no_tag(buf, pos)
            self.c_raw.append(buf[pos:end])
            self.inv_text.append(buf[pos:end])
            self.pos = end
            return True
        if self.inv_params:
            return self._fail()
        m = _ANGLE.search(buf, pos + 1)
        end = m.start() if m else n
        self.c_raw.append(buf[pos:end])
        self.inv_text.append(buf[pos:end])
        self.pos = end
        return True

    def _invoke_input(self) -> dict[str, Any] | None:
        body = "".join(self.inv_text)
        if self.inv_params:
            return values.invoke_input(self.inv_params) if values.is_blank(body) else None
        if values.is_blank(body):
            return {}
        return values.json_body_input(body)

    def _c_param(self, final: bool, c: str) -> bool:
        buf, pos = self.buf, self.pos
        if c in OPEN_ANGLES:
            cd = match_cdata_open(buf, pos, final)
            if cd is MORE:
                return False
            if isinstance(cd, int):
                self._par_flush_text()
                self.c_raw.append(buf[pos:cd])
                self.pos = cd
                self.c_level = CDATA
                self.cd_parts = []
                self.ac_parts = []
                self.cd_start = self._abs(cd)
                self.cd_depth = 1
                self.cd_fence = ""
                self.cd_ls = 0
                self.cd_run = 0
                self.cd_tail = False
                return True
            r = self._tag(buf, pos, final)
            if r is MORE:
                return False
            if isinstance(r, Tag):
                if r.local == PARAMETER and r.closing:
                    self._par_flush_text()
                    self.work += sum(len(x) for _, x in self.par_segs)
                    self.inv_params.append((self.par_name, values.param_value(self.par_name, self.par_segs)))
                    self.c_raw.append(buf[pos : r.end])
                    self.pos = r.end
                    self.c_level = INV
                    return True
                return self._fail()
            end = skip_no_tag(buf, pos)
        else:
            m = _ANGLE.search(buf, pos + 1)
            end = m.start() if m else len(buf)
        self.c_raw.append(buf[pos:end])
        self.par_text.append(buf[pos:end])
        self.pos = end
        return True

    def _par_flush_text(self) -> None:
        if self.par_text:
            self.par_segs.append(("text", "".join(self.par_text)))
            self.par_text = []

    # ---- CDATA inside a parameter ---------------------------------------------------------

    def _c_cdata(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        n = len(buf)
        if pos >= n:
            if final:
                return self._eof_in_cdata()
            return False
        c = buf[pos]
        put = self.cd_parts.append
        if self.cd_tail:  # after a possible closing fence run: only blanks may follow
            if c == " " or c == "\t" or c == "\r":
                put(c)
                self.pos = pos + 1
                return True
            self.cd_tail = False
            if c == "\n" or c == "]":
                self.cd_fence = ""
            self.cd_ls = -1
            if c == "\n":
                put(c)
                self.pos = pos + 1
                self.cd_ls = 0
                return True
            return True
        if self.cd_run:
            m = _RUNS[self.cd_run_char].match(buf, pos)
            if m:
                put(m.group(0))
                self.cd_run += m.end() - pos
                self.pos = m.end()
                return True
            run, ch = self.cd_run, self.cd_run_char
            self.cd_run = 0
            self.cd_ls = -1
            if not self.cd_fence:
                if run >= 3:
                    self.cd_fence, self.cd_fence_len = ch, run
            elif ch == self.cd_fence and run >= self.cd_fence_len:
                self.cd_tail = True
            return True
        if self.cd_ls >= 0:
            if c == " " and self.cd_ls < 3:
                put(c)
                self.cd_ls += 1
                self.pos = pos + 1
                return True
            if (c == "`" or c == "~") and (not self.cd_fence or c == self.cd_fence):
                self.cd_run_char = c
                m = _RUNS[c].match(buf, pos)
                assert m is not None
                put(m.group(0))
                self.cd_run = m.end() - pos
                self.pos = m.end()
                return True
            self.cd_ls = -1
        # Only line starts that begin with a fence character matter (R5.3), so plain lines are
        # skipped in bulk; a possible partial match at the end of the buffer waits.
        m = (_CD_FENCE_LINE if self.cd_fence else _CD_SPECIAL).search(buf, pos)
        if m is None:
            end = n
            if not final:
                t = _CD_TAIL.search(buf, max(pos, n - 4))
                if t is not None:
                    end = t.start()
            put(buf[pos:end])
            self.pos = end
            return final
        k = m.start()
        if k > pos:
            put(buf[pos:k])
            self.pos = pos = k
        ch = buf[k]
        if ch == "\n":
            put(ch)
            self.pos = k + 1
            self.cd_ls = 0
            return True
        if ch == "]":
            if k + 2 >= n:
                if not final:
                    return False
                put(buf[k:])
                self.pos = n
                return True
            if cdata_close_at(buf, k):
                if self.cd_depth > 1:
                    self.cd_depth -= 1
                    put(buf[k : k + 3])
                else:
                    self.ac_parts = [buf[k : k + 3]]
                    self.c_level = AFTER
                self.pos = k + 3
                return True
            put("]")
            self.pos = k + 1
            return True
        cd = match_cdata_open(buf, k, final)
        if cd is MORE:
            return False
        if isinstance(cd, int):
            self.cd_depth += 1
            put(buf[k:cd])
            self.pos = cd
            return True
        put(ch)
        self.pos = k + 1
        return True

    def _c_after(self, final: bool) -> bool:
        """After `]]>` at depth 1: it closes the CDATA only if a closing tag follows (D7)."""
        buf, pos = self.buf, self.pos
        n = len(buf)
        if pos >= n:
            if final:
                return self._eof_in_cdata()
            return False
        c = buf[pos]
        if c in " \t\r\n":
            k = pos
            while k < n and buf[k] in " \t\r\n":
                k += 1
            ws = buf[pos:k]
            self.ac_parts.append(ws)
            nl = ws.rfind("\n")
            if nl >= 0:
                tail = len(ws) - nl - 1
                self.cd_ls = tail if tail <= 3 and " " * tail == ws[nl + 1 :] else -1
            self.pos = k
            return True
        closed: bool | str = False
        if c in OPEN_ANGLES:
            closed = match_close_start(buf, pos, final)
            if closed is MORE:
                return False
        if closed is True:
            self.par_segs.append(("cdata", "".join(self.cd_parts)))
            self.c_raw.extend(self.cd_parts)
            self.c_raw.extend(self.ac_parts)
            self.cd_parts, self.ac_parts = [], []
            self.c_level = PAR
            return True
        if not any("\n" in p for p in self.ac_parts):
            self.cd_ls = -1
        self.cd_parts.extend(self.ac_parts)
        self.ac_parts = []
        self.c_level = CDATA
        return True

    def _eof_in_cdata(self) -> bool:
        """R5.6 / D8: the input ended inside a CDATA: its value runs to the first parameter
        closing tag; the rest of the block is then parsed as usual (once)."""
        content = "".join(self.cd_parts) + "".join(self.ac_parts) + self.buf[self.pos :]
        if not self.cd_loose_ok or self.c_over:
            return self._fail()
        self.cd_loose_ok = False
        self.work += len(content)
        i = 0
        close = -1
        while True:
            m = _ANGLE.search(content, i)
            if m is None:
                break
            r = match_tag(content, m.start(), True)
            if isinstance(r, Tag) and r.local == PARAMETER and r.closing:
                close = m.start()
                break
            i = m.start() + 1
        if close < 0:
            return self._fail()
        value = content[:close]
        t = _LOOSE_CLOSE_TAIL.search(value)
        if t:
            value = value[: t.start()]
        self.par_segs.append(("cdata", value))
        self.c_raw.append(content[:close])
        self.cd_parts, self.ac_parts = [], []
        self.c_level = PAR
        self.buf = content[close:]
        self.base = self.cd_start + close
        self.pos = 0
        return True


def _named(tag: Tag) -> bool:
    return tag.name is not None and not values.is_blank(tag.name)


__all__ = ["CLOSE_ANGLES", "Scanner"]
