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

Modes (`Mode`), one method each (`_m_<mode>`), each with its own small state object:
- TEXT: prose. Plain runs are skipped with one regex search to the next special character
  (newline, backtick, open angle). An open angle is tried as the opener of a format (see below).
  At a line start the `FenceLine` recognizer looks for a fence run.
- RUN (`_Run`): counting a run of backticks / tildes: at a line start a run of 3+ opens a FENCE
  (R5.1); a backtick run elsewhere opens an inline code span, resolved in PENDING.
- FENCE (`_Fence`): everything is text until a closing fence line (`FenceLine` again).
- PENDING (`_Pending`): an inline code span is open (R5.2, D1). Text after the opener is emitted
  until the first thing whose meaning depends on the span (a backtick run, a wrapper tag, a
  named invoke); from there it is held. If the closing run comes, everything held is text. If the
  paragraph ends first, the opener was literal: the held part is scanned again as TEXT, with the
  backtick runs seen during the hold indexed, so no opener inside it has to look ahead again. Each
  character is scanned at most twice.
- CAPTURE (`_Capture`, with `_Invoke`, `_Param`, `_Cdata`): a block is parsed incrementally, at
  a `Level`: wrapper, invoke, parameter body, CDATA (with fences tracked inside it by a
  `FenceLine`, R5.3, D7). The block's raw text and parameter values accumulate in lists; only a
  bounded lookahead stays in `buf`. A structure a real block never has ends the capture (D3, D5):
  the captured text is released as text and TEXT resumes at that point, so nothing is rescanned.
  At end of input an unclosed CDATA gets one narrow repair (R5.6, D8).
- JSON (`_Json`): a JSON tool call in prose (R9, an option): braces and strings are counted to
  the end of the object, which is then decoded once. Under `llama_json` with stream_arguments, a
  Hermes tap (jsontaps.py) also reads it as it arrives, so its call is announced early (D38).

CAPTURE's block, TOKENS' section and JSON's candidate are held blocks (`_Held`): their source is
kept the same way, and one path decides each, `_succeed` (a block of calls), `_fail` (text) and
`_overflow` (past max_capture: text as it goes, D43); a kind says only what differs.

The fence-line recognizer (D2: up to 3 spaces of indent, a run of backticks or tildes, then only
blanks for a closing line) exists once, as `FenceLine`; TEXT, FENCE and CDATA feed it line starts
and decide what a run means in their mode, and PENDING asks it whether a fence line starts.

The format layer: a format is the shape of one family of tool-call markup. Each format adds a
recognizer of its opener, tried at an open angle in TEXT (and in PENDING, where an opener makes
the span's meaning matter), and a capture that parses its block. The formats are listed once,
in one table, with the opener each contributes; the capture modes above are shared where the
shells are (DSML and XML wrappers share CAPTURE).

Per chunk the work is proportional to the chunk plus a bounded lookahead (R8.7); the only
rescans are the PENDING one above and the one-time loose-CDATA repair at end of input.

Layers. The scanner is a chain of classes, one module each, every layer a subclass of the one
below it, so a mode's step is one method and the hot paths stay plain attribute reads:
- `scanbase.ScanBase`: the state every layer reads (buffer, cursor, offsets, each mode's state
  object), output, the held blocks' paths, and the helpers all layers use (the tag memo, names,
  skips).
- `fences.FenceLine`: the fence-line recognizer, shared by TEXT, FENCE and CDATA.
- `prose.Prose`: the prose layer: TEXT, RUN, FENCE, PENDING and REGION, and the prose skip. It
  recognizes openers and hands them to the engine of their row.
- `dsml.DsmlCapture`: the DSML / XML-wrapper capture (CAPTURE, its levels and CDATA).
- `scanner.Scanner` (this module): `feed` / `finish` and the step loop over `_STEPS`, the capture
  limit, and the other holding engines: R9's JSON calls (JSON), token sections (TOKENS) and the
  block engine's modes (BLOCK, HARMONY, MISTRAL; grammars in blocks.py, harmony.py, mistral.py)
  and bare pythonic lists (PYLIST, pylist.py).
A lower layer calls an engine above it only through the methods it declares at its end.
"""

from __future__ import annotations

import re
from typing import Final

from . import harmony, mistral, pylist, sections, strings, values
from .blocks import GRAMMARS
from .blocktap import BlockTap, same_calls
from .dsml import DsmlCapture
from .events import Event, ReasoningEvent, TextEvent, ToolCall, ToolCallsEvent
from .fences import FenceLine
from .formats import ALL_FORMATS, FORMATS, Format
from .jsontaps import TAPS, HermesTap
from .prose import _PLAIN_TAG_SO_FAR, _WS, match_region
from .scanbase import (
    _HOLDING,
    _M_BLOCK,
    _M_CAPTURE,
    _M_HARMONY,
    _M_JSON,
    _M_TEXT,
    _M_TOKENS,
    _S_BETWEEN,
    _S_BODY,
    _S_HEAD,
    Level,
    Mode,
    _row_for,
)
from .sections import match_marker
from .shell import (
    CLOSE_ANGLES,
    MORE,
    NO,
)

# R9: a JSON candidate is `{` + a first key that starts a tool call object or a chat
# message (R9.2: text with what it holds), by a bounded lookahead.
_JSON_START: Final = re.compile(r'\{[ \t\r\n]{0,16}"(tool_calls|name|function|type|id|role|content)"')


_JSON_START_PREFIX: Final = re.compile(r'\{[ \t\r\n]{0,16}(?:"[a-z_]{0,10})?\Z')


_JSON_OUT: Final = re.compile(r'["{}\[\]]')


_JSON_IN: Final = re.compile(r'["\\]')


_JSON_ESC: Final = '"\\/bfnrtu'  # what a backslash may escape in JSON (R9.2 doubles the others)


_HM_REASONING: Final = harmony.REASONING  # (CONTENT above it: the kinds of body that stream)
_FN_TAG: Final = "<function="  # D45: how a `<tool_call>` body that is Qwen3-Coder's starts
_CUT_HEAD = _PLAIN_TAG_SO_FAR  # feed's shortcut (a test turns it off to compare)


class Scanner(DsmlCapture):
    """Incremental scanner. `feed()` returns the events the new text decided; `finish()` the rest."""

    # ---- driving ------------------------------------------------------------------------

    def feed(self, chunk: str) -> list[Event]:
        pos = self.pos
        mode = self.mode
        if pos:
            if mode is _M_CAPTURE or mode is _M_TOKENS or mode is _M_JSON:  # a held block keeps its source
                held = self.held
                at = self.base + pos
                if at > held.mark:
                    held.raw.add(self.buf[held.mark - self.base : pos])
                    held.mark = at
            self.base += pos
            buf = self.buf[pos:] + chunk
        else:
            buf = self.buf + chunk
        self.buf = buf
        self.pos = 0
        self.work += len(buf)
        self._prose_stop = -1
        if mode is _M_TEXT and buf and (self.line.indent < 0 or buf[0] not in " ~"):
            # Fast path: decided prose from the start of what is new or held (see _prose_skip).
            # A line start's indent only matters before a space, a tilde or what prose stops at.
            end = self._prose.match(buf).end()  # type: ignore[union-attr]
            if end:
                self.line.indent = -1
                if end == len(buf):
                    self.pos = end
                    return [TextEvent(buf)]
                self.pos = end
                if buf[end] == "<" and _CUT_HEAD.match(buf, end):
                    # A prose tag head cut by the chunk's end: _m_text would wait there.
                    return [TextEvent(buf[:end])]
                self._text.append(buf[:end])
            self._prose_stop = self.base + end  # _m_text need not try there again in this feed
        elif mode is _M_TOKENS:
            if "<" not in buf:
                if self._sec_takes(buf):
                    self.pos = len(buf)
                    return []
            elif buf[0] == "<" and self._sec_waits(buf):
                return []
        elif mode is _M_CAPTURE and buf and buf[0] == "<" and self._cap_waits(buf):
            return []
        elif mode is _M_HARMONY and self.hm.kind >= _HM_REASONING and "<|" not in buf and buf[-1:] not in "<":
            # a body (not empty) no end token or opener can start in streams whole, as in harmony._body
            self.pos = len(buf)
            return [ReasoningEvent(buf) if self.hm.kind == _HM_REASONING else TextEvent(buf)]
        step = _STEPS
        while step[self.mode](self, False):
            pass
        if self.mode in _HOLDING:
            self._release_past_limit()
        if self.tap is not None:
            self._tap_pull()
        if self._text:  # _take, inlined: this runs once per chunk
            self.out.append(TextEvent("".join(self._text)))
            self._text = []
        out = self.out
        self.out = []
        return out

    def _release_past_limit(self) -> None:
        """At the end of a chunk, what a tag block or token section holds past max_capture is
        released now, not with the next chunk (R8.3, D43): a step may consume a whole chunk
        before it waits. Blocks and JSON candidates need no such release: `_blk_take` releases a
        block as it passes the limit, and `_m_json` fails a candidate where it reaches it."""
        held = self.held
        if not held.started and (held.over or self.base + self.pos - held.start > self.max_capture):
            self._overflow()  # (once a call is announced the limit stops applying, D37)

    def finish(self) -> list[Event]:
        self._prose_stop = -1
        step = _STEPS
        while step[self.mode](self, True):
            pass
        return self._take()

    # ---- JSON tool calls in prose (R9) -------------------------------------------------

    def _text_json(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        m = _JSON_START.match(buf, pos)
        self.line.indent = -1
        if m is None:
            if not final and _JSON_START_PREFIX.match(buf, pos):
                return False
            self._emit("{")
            self.pos = pos + 1
            return True
        j = self.json
        self._hold(j, _M_JSON)
        j.depth = 1
        j.in_str = False
        # R16, D38: Llama's calls stream as Hermes bodies do (not R9's json_tool_calls option)
        j.tap = HermesTap(self.typer, False) if self.stream and self._json_format else None
        j.fed = self.base + pos
        j.bad, j.ins = [], []
        self.pos = m.end()
        return True

    def _json_fed(self, end: bool = False) -> bool:
        """The tap reads the candidate to `pos`; True when an announced call broke (handled;
        `end`: the candidate ends at `pos`)."""
        j = self.json
        tap = j.tap
        if tap is None or self.base + self.pos <= j.fed:
            return False
        piece = self.buf[j.fed - self.base : self.pos]
        if j.bad:
            # R9.2: a backslash that escapes nothing is read doubled, as the repair reads it; the
            # tap's offsets past each added one (`ins`) are one more than the source's
            parts, at = [], j.fed
            for b in j.bad:
                parts.append(self.buf[at - self.base : b - self.base] + "\\")
                j.ins.append(b - j.start + len(j.ins))
                at = b
            parts.append(self.buf[at - self.base : self.pos])
            piece = "".join(parts)
            j.bad = []
        tap.feed(piece)
        j.fed = self.base + self.pos
        self._json_pull(tap)
        if tap.broken < 0:
            return False
        return self._json_keep(tap, end)

    def _json_pull(self, tap: HermesTap) -> None:
        if tap.out:
            self._flush_text()
            self.out += tap.out
            tap.out = []
        self.work += tap.work
        tap.work = 0

    def _json_keep(self, tap: HermesTap, end: bool) -> bool:
        """R16.3, D37: the candidate ends where its announced call ends (`tap.broken`): its
        event, then the rest is text: to `pos` now and, unless the candidate ended (`end`), on to
        the end of its JSON value as it comes (`over`)."""
        j = self.json
        j.tap = None
        text = self._source()
        cut = tap.broken - sum(1 for t in j.ins if t < tap.broken)  # (the source's offset)
        self.saw = True
        self._flush_text()
        calls = tuple(ToolCall(self._name(c.name), c.input, c.id) for c in tap.calls)
        self.out.append(ToolCallsEvent(calls, text[:cut], (), self._json_format, (), ("D37",)))
        self._emit(text[cut:])
        if end:
            self._resume_text()
        else:
            j.over = True
        return True

    def _json_end(self, got: tuple[ToolCall, ...] | None) -> bool:
        """The candidate ended (`got`: its calls, None: not a call; `pos` past it): its tap
        finishes; an announced call the reading does not confirm keeps the block to it (R16.3)."""
        j = self.json
        tap = j.tap
        if tap is None:
            return False
        tap.finish()
        self._json_pull(tap)
        if tap.broken < 0 and tap.started and (got is None or not same_calls(tap.calls, list(got))):
            tap.broken = tap.args_end  # (R9 reads the rest otherwise: it is text)
            if tap.broken < 0:
                tap.broken = self.base + self.pos - j.start + len(j.ins)
        if tap.broken >= 0:
            return self._json_keep(tap, True)
        j.tap = None
        j.started = tap.started  # (so _succeed does not apply the limit, D37)
        return False

    def _m_json(self, final: bool) -> bool:
        """Read a JSON call candidate. One longer than the limit is text (D43), decided where it
        reaches the limit: no step reads past that point, so every chunking decides there."""
        j = self.json
        if j.tap is not None and self._json_fed():
            return True
        buf, pos = self.buf, self.pos
        if j.over:
            self._emit(self._source())  # (broken after its announced call: text as it goes)
            stop = len(buf) + 1
        elif j.tap is not None and j.tap.started:
            stop = len(buf) + 1  # (once a call is announced the limit stops applying, D37)
        else:
            stop = j.start + self.max_capture - self.base  # where the candidate reaches the limit
        if pos >= stop:
            return self._fail()
        n = min(len(buf), stop)
        if pos >= n:
            if not final:
                return False
            if j.tap is not None and self._json_end(None):
                return True
            return self._fail()
        if j.in_str:
            m = _JSON_IN.search(buf, pos, n)
            if m is None:
                self.pos = n
                return True
            k = m.start()
            if buf[k] == "\\":
                if k + 1 >= n:
                    if not final and n < stop:
                        self.pos = k
                        if j.tap is not None:
                            self._json_fed()  # (what the next chunk rebases must be read now)
                        elif j.over:
                            self._emit(self._source())
                        return False
                    self.pos = n
                    return True
                if j.tap is not None and buf[k + 1] not in _JSON_ESC:
                    j.bad.append(self.base + k)  # (R9.2, see _json_fed)
                self.pos = k + 2
                return True
            self.pos = k + 1
            j.in_str = False
            return True
        m = _JSON_OUT.search(buf, pos, n)
        if m is None:
            self.pos = n
            return True
        k = m.start()
        self.pos = k + 1
        ch = buf[k]
        if ch == '"':
            j.in_str = True
        elif ch == "{" or ch == "[":
            j.depth += 1
        else:
            j.depth -= 1
            if j.depth == 0:
                if j.over:
                    return self._fail()  # (the rest of a broken candidate: text)
                if j.tap is not None and self._json_fed(True):
                    return True  # (`pos` is past the `}`: read it too)
                text = j.raw.text(buf[j.mark - self.base : k + 1])
                self.work += len(text)
                got = values.json_calls(text)
                if j.tap is not None and self._json_end(tuple(got[0]) if got is not None else None):
                    return True
                if got is None:
                    return self._fail()
                self.saw = True
                j.found = tuple(got[0])
                fixed = ("R9.2",) if got[1] else ()  # D58: read only after its backslashes were doubled
                return self._succeed(k + 1, self._json_format, fixed)
        return True

    # ---- TOKENS (token sections, R14.4-R14.5) -------------------------------------------

    def _start_section(self, end: int) -> None:
        sec = self.sec
        self._hold(sec, _M_TOKENS)
        sec.stage = _S_BETWEEN
        sec.bad = []
        sec.lead, sec.loose = True, False
        self.pos = end

    def _sec_takes(self, buf: str) -> bool:
        """Fast path of feed: a call's head or body with no marker in sight is only appended
        (what _m_tokens would do, with no limit reached); False: let the steps decide."""
        sec = self.sec
        if sec.over or sec.stage is _S_BETWEEN or self.base + len(buf) - sec.start > self.max_capture:
            return False
        if sec.stage is _S_BODY:
            sec.body.append(buf)
            return True
        if sec.head_len + len(buf) > sections.MAX_HEAD or (sec.loose and "\n" in buf):
            return False
        sec.head.append(buf)
        sec.head_len += len(buf)
        return True

    def _sec_waits(self, buf: str) -> bool:
        """Fast path of feed: the steps stopped at a marker the new chunk still does not
        complete (`<｜tool▁ca` + `ll▁be`); they would wait again with nothing done (the limit
        acts on what they consumed: see _cap_waits)."""
        return match_marker(buf, 0, False) is MORE

    def _start_head(self, loose: bool) -> None:
        """A call head begins at `pos` (`loose`: its section opener began it, D61)."""
        sec = self.sec
        sec.stage, sec.loose = _S_HEAD, loose
        sec.head, sec.head_len, sec.body = [], 0, []

    def _m_tokens(self, final: bool) -> bool:
        sec = self.sec
        if sec.over or self.base + self.pos - sec.start > self.max_capture:
            self._overflow()
        buf, pos = self.buf, self.pos
        n = len(buf)
        if pos >= n:
            if not final:
                return False
            # D26: a section whose calls are all complete survives a missing section end.
            if sec.stage == _S_BETWEEN and (sec.calls or sec.bad):
                return self._succeed(pos, "tokens", ("D26",))
            return self._fail()
        if sec.stage == _S_BETWEEN:
            lead, sec.lead = sec.lead, False
            m = _WS.match(buf, pos)
            if m:
                self.pos = m.end()
                return True
            mk = match_marker(buf, pos, final) if buf[pos] == "<" else NO
            if mk is MORE:
                sec.lead = lead
                return False
            if not isinstance(mk, tuple):
                if lead and buf[pos] != "<":
                    # R18.3, D61: the section opener stood where the call opener belongs
                    self._start_head(True)
                    return True
                return self._fail()  # D3: nothing else stands between calls
            kind, end = mk
            if kind == sections.CALL_BEGIN:
                self.pos = end
                self._start_head(False)
                return True
            if kind == sections.SECTION_BEGIN:  # R18.3: a repeated section opener is tolerated
                self.pos = end
                sec.lead = True
                return True
            if kind == sections.SECTION_END and (sec.calls or sec.bad):
                return self._succeed(end, "tokens", ())
            if kind == sections.EOS and (sec.calls or sec.bad):  # the output ended: as at end of input
                return self._succeed(pos, "tokens", ("D26",))  # D26: without its section end
            if kind == sections.SECTION_END:
                self.pos = end  # an empty section is text, its end with it (D46, D60)
            return self._fail()
        k = buf.find("<", pos)
        if k != pos:
            end = n if k < 0 else k
            piece = buf[pos:end]
            if sec.stage == _S_HEAD:
                # D26: a head longer than MAX_HEAD is no call. Decided at its first character past
                # the limit, so TEXT resumes there whatever the chunks were.
                stop = min(end, pos + sections.MAX_HEAD - sec.head_len)  # (`end`: it goes on)
                nl = piece.find("\n") if sec.loose else -1
                if nl >= 0 and pos + nl < stop:
                    stop = pos + nl  # D61: a head its section opener began ends on that line
                if stop < end:
                    self.pos = stop
                    return self._fail()
                sec.head_len += end - pos
                sec.head.append(piece)
            elif not sec.over:
                sec.body.append(piece)
            self.pos = end
            return True
        mk = match_marker(buf, pos, final)
        if mk is MORE:
            return False
        if not isinstance(mk, tuple):
            if sec.stage == _S_HEAD:
                if sec.head_len >= sections.MAX_HEAD:
                    return self._fail()  # (as above: past the limit, at this `<`)
                sec.head.append("<")
                sec.head_len += 1
            elif not sec.over:
                sec.body.append("<")
            self.pos = pos + 1
            return True
        kind, end = mk
        if sec.stage == _S_HEAD and kind == sections.SEP:
            self.pos = end
            sec.stage = _S_BODY
            return True
        if sec.stage == _S_BODY and kind == sections.CALL_END:
            if not sec.over:
                head, body = "".join(sec.head), "".join(sec.body)
                self.work += len(body)
                call = sections.decode_call(head, body)
                if call is None:  # R18.2, D55: reported, the section's other calls kept
                    sec.bad.append(sections.malformed_call(head, body))
                else:
                    sec.calls.add(self._name(call[0]), call[1])
            self.pos = end
            sec.stage = _S_BETWEEN
            return True
        return self._fail()

    # ---- BLOCK (the block engine, R17) --------------------------------------------------

    def _start_block(self, rows: tuple[Format, ...], opener: str, end: int) -> None:
        self.mode = _M_BLOCK
        blk = self.blk
        blk.rows, blk.opener, blk.closer = rows, opener, rows[0].closer
        blk.parts, blk.size, blk.over = [], 0, False
        blk.wait, blk.head, blk.row, blk.tap = self.stream, "", None, None
        self.pos = end

    def _m_block(self, final: bool) -> bool:
        """Hold the body to the closer. Only a suffix that may begin the closer stays in `buf`,
        so each character is searched once, plus at most the closer's length again."""
        blk = self.blk
        buf, pos = self.buf, self.pos
        n = len(buf)
        closer = blk.closer
        i = buf.find(closer, pos)
        if i >= 0:
            self._blk_take(buf[pos:i])
            self.pos = i + len(closer)
            return self._blk_end(True)
        if final:
            self._blk_take(buf[pos:])
            self.pos = n
            return self._blk_end(False)
        keep = n
        for j in range(max(pos, n - len(closer) + 1), n):
            if closer.startswith(buf[j:]):
                keep = j
                break
        if keep > pos:
            self._blk_take(buf[pos:keep])
            self.pos = keep
        return False

    def _m_harmony(self, final: bool) -> bool:
        return harmony.step(self, final)

    def _m_mistral(self, final: bool) -> bool:
        return mistral.step(self, final)

    def _m_pylist(self, final: bool) -> bool:
        return pylist.step(self, final)

    def _blk_take(self, s: str) -> None:
        blk = self.blk
        if blk.over:
            self._emit(s)
            return
        quiet = blk.wait or (blk.tap is not None and not blk.tap.started)  # (no call announced yet)
        if quiet and blk.size + len(s) > self.max_capture:
            room = self.max_capture - blk.size
            if room > 0:
                # The tap reads to the limit first: whether a call is announced before the block
                # reaches it is decided there, wherever the chunk ends (D43, D37).
                self._blk_take(s[:room])
                self._blk_take(s[room:])
                return
            blk.parts.append(s)  # (past the limit with no call announced: the block is text)
            blk.size += len(s)
            self._blk_overflow()
            return
        blk.parts.append(s)
        blk.size += len(s)
        if blk.wait:
            self._blk_row(s)
        elif blk.tap is not None:
            blk.tap.feed(s)
            self._blk_pull(False)
        if blk.over:
            return  # (the tap broke: the rest of the block is text)
        if blk.size > self.max_capture and not (blk.tap is not None and blk.tap.started):
            self._blk_overflow()  # (once a call is announced the limit stops applying, D37)

    def _blk_row(self, s: str) -> None:
        """R16: the row whose tap reads the body, once the body's start tells (D45)."""
        blk = self.blk
        rows = blk.rows
        if len(rows) == 1 and not rows[0].body:
            row: Format | None = rows[0]
        else:
            head = blk.head + s if blk.head else s.lstrip(strings.JS_SPACE)
            blk.head = head[: len(_FN_TAG)]
            if not head or (head[0] == "<" and len(head) < len(_FN_TAG) and _FN_TAG.startswith(head)):
                return
            row = _row_for(rows, head)
        blk.wait = False
        tap = TAPS.get(row.grammar) if row is not None else None
        if row is None or tap is None:
            return
        blk.row = row
        blk.tap = tap(self.typer)
        blk.tap.feed("".join(blk.parts))
        self._blk_pull(False)

    def _blk_pull(self, end: bool) -> None:
        """What the tap learned goes out; a break ends the block there (R16.3)."""
        blk = self.blk
        tap = blk.tap
        if tap is None:
            return
        if tap.out:
            self._flush_text()
            self.out += tap.out
            tap.out = []
        self.work += tap.work
        tap.work = 0
        if tap.broken >= 0 and not end:
            self._blk_keep(tap, "".join(blk.parts), False, False)

    def _blk_keep(self, tap: BlockTap, body: str, closed: bool, end: bool) -> bool:
        """R16.3, D37: the block ends where its announced calls end (`tap.broken`): their event
        (with the malformed calls before the last of them), then the rest of the block is text,
        to its closer (text too, unless the block is whole). `end`: the body is complete."""
        blk = self.blk
        row = blk.row
        assert row is not None
        cut = tap.broken
        before = body[: tap.call_at]
        got = GRAMMARS[row.grammar](before, self.typer) if strings.trim(before) else None
        self.work += len(before)
        malformed = tuple(got.malformed) if got is not None else ()
        calls = tuple(ToolCall(self._name(c.name), c.input, c.id) for c in tap.calls)
        whole = cut >= len(body)
        raw = blk.opener + body[:cut] + (blk.closer if whole and closed else "")
        self.saw = True
        self._flush_text()
        repaired = ("D44",) if whole and end and not closed else ("D37",)  # (D58)
        self.out.append(ToolCallsEvent(calls, raw, (), row.name, malformed, repaired))
        blk.tap, blk.parts = None, []
        rest = body[cut:] + (blk.closer if closed and not whole else "")
        self._emit(rest)
        if end:
            self._text_resumes(raw + rest)
        else:
            blk.over = True  # to its closer, the block is text as it comes
        return True

    def _blk_overflow(self) -> None:
        """Past max_capture the block is released as text (with a note) and, to its closer,
        the rest goes out as text as it comes (D43)."""
        blk = self.blk
        self._flush_text()
        self.out.append(TextEvent(blk.opener + "".join(blk.parts), "capture_limit"))
        blk.parts, blk.over = [], True
        blk.tap, blk.wait = None, False

    def _blk_end(self, closed: bool) -> bool:
        blk = self.blk
        closer = blk.closer if closed else ""
        if blk.over:
            self._emit(closer)
            self._text_resumes("x" + closer)
            return True
        body = "".join(blk.parts)
        tap = blk.tap
        if tap is not None:
            tap.finish()
            self._blk_pull(True)
            if tap.broken >= 0:
                return self._blk_keep(tap, body, closed, True)
        blk.parts = []
        self.work += len(body)
        row = _row_for(blk.rows, body)
        got = GRAMMARS[row.grammar](body, self.typer) if row is not None else None
        raw = blk.opener + body + closer
        bad = (
            row is None
            or got is None
            or (not got.calls and not got.malformed)
            or (not closed and (not row.eof_repair or not got.calls or got.malformed))
        )
        if tap is not None and tap.started and (bad or got is None or not same_calls(tap.calls, got.calls)):
            # R16.3: the block is not what its announced calls said: it ends after them
            tap.broken = len(body) - len(body[tap.done_at :].lstrip(strings.JS_SPACE))
            return self._blk_keep(tap, body, closed, True)
        blk.tap = None
        if bad:
            self._emit(raw)  # R4: not a block of an enabled format; nothing is lost
            self._text_resumes(raw)
            return True
        assert got is not None and row is not None
        self.saw = True
        self._flush_text()
        calls = tuple(ToolCall(self._name(c.name), c.input, c.id) for c in got.calls)
        repaired = () if closed else ("D44",)
        self.out.append(ToolCallsEvent(calls, raw, (), row.name, tuple(got.malformed), repaired))
        self.mode = _M_TEXT
        self.line.mid_line()
        return True


# The steps indexed by Mode, as plain functions: a tuple of bound methods kept on the Scanner
# would make every Scanner a reference cycle, which only the cyclic GC's full passes free.
_STEPS: Final = (
    Scanner._m_text,
    Scanner._m_run,
    Scanner._m_fence,
    Scanner._m_pending,
    Scanner._m_capture,
    Scanner._m_json,
    Scanner._m_tokens,
    Scanner._m_region,
    Scanner._m_block,
    Scanner._m_harmony,
    Scanner._m_mistral,
    Scanner._m_pylist,
)


__all__ = ["ALL_FORMATS", "CLOSE_ANGLES", "FORMATS", "FenceLine", "Level", "Mode", "Scanner", "match_region"]
