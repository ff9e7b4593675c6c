"""The scanner's DSML / XML-wrapper capture (CAPTURE): a block parsed at a `Level` (wrapper, invoke,
parameter body, CDATA), released as text when it turns out not to be a block (D3, D5), with the
narrow end-of-input CDATA repair (R5.6, D8) and R16's value tap. See scanner.py.
"""

from __future__ import annotations

import re
from typing import Any, Final

from . import sections, strings, values
from .arguments import CallBegun, CallDone, ParamDone, ValueChars, ValueTap, is_index_key
from .events import ToolCallsEvent
from .fences import RUN_END, TAIL_END, WAIT
from .prose import _ANGLE, _WS, Prose
from .scanbase import (
    _L_AFTER_CDATA,
    _L_CDATA,
    _L_INVOKE,
    _L_PARAM,
    _L_TOP,
    _M_CAPTURE,
    Level,
    _named,
)
from .sections import BARS
from .shell import (
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
)

_CD_SPECIAL: Final = re.compile(r"\]\]|\n {0,3}[`~]|[<＜〈《][!！、]")


_CD_TAIL: Final = re.compile(r"(?:\n {0,3}|\]|[<＜〈《])\Z")


_LOOSE_CLOSE_TAIL: Final = re.compile(r"\]\][>＞〉][ \t\r\n]*\Z")


# DeepSeek's own shell (R14.1): a `tool_calls` block written in it is the model's, not the seed's
# dialect, so its malformed calls are reported (D59).
_NATIVE_SHELL: Final = "<｜DSML｜"


class DsmlCapture(Prose):
    """The DSML / XML-wrapper block capture of the scanner (CAPTURE)."""

    # ---- CAPTURE ------------------------------------------------------------------------

    def _start_capture(self, level: Level, end: int, fmt: str) -> None:
        """`fmt`: the format row of the opening wrapper ("" for a bare invoke, R3)."""
        cap = self.cap
        self._hold(cap, _M_CAPTURE)
        cap.level = level
        cap.format = fmt
        cap.fixed = []
        # D59: R18.2 in function_calls blocks and in tool_calls blocks of the native shell; the
        # seed's dialect keeps D4 (its recorded corpus pins broken blocks as text)
        native = fmt == "function_calls" or (self.native and self.buf.startswith(_NATIVE_SHELL, self.pos))
        cap.bad = [] if level == _L_TOP and native else None
        cap.wrapped = level == _L_TOP
        inv = self.inv
        inv.params, inv.multi = {}, set()
        inv.text = []
        inv.start, inv.bad, inv.live = cap.start, "", False
        self.pos = end

    def _break(self) -> bool:
        """R16.3: the block broke after a call was announced. The calls so far are kept, the one
        in progress completed with what it has (its open parameter's value as R6 reads the body
        so far); the block ends here and TEXT resumes at the current position."""
        cap, inv, par = self.cap, self.inv, self.par
        self._tap_pull()
        self._tap_done()
        if cap.level != _L_TOP and not inv.live:  # a nameless invoke, never announced (D59)
            self._malformed(self.pos)
        elif cap.level != _L_TOP:
            inp = inv.params  # (the block ends here: the object is the call's)
            if cap.level != _L_INVOKE:
                segs = list(par.segs)
                if par.text:
                    segs.append(("text", "".join(par.text)))
                if cap.level in (_L_CDATA, _L_AFTER_CDATA):
                    segs.append(("cdata", "".join(self.cd.parts)))
                self.work += sum(len(x) for _, x in segs)
                values.add_param(inp, inv.multi, par.name, values.param_value(par.name, segs, par.string))
            cap.calls.add(inv.name, inp)
            self._flush_text()
            self.out.append(CallDone(inp))
        raw = self._source()
        self._flush_text()
        fixed = (*cap.fixed, "D37")
        bad = cap.reported(raw)
        self.out.append(ToolCallsEvent(cap.calls.take(), raw, (), cap.format, bad, fixed))
        cap.started = 0
        self._text_resumes(raw)
        return True

    def _malformed(self, end: int) -> None:
        """D59: the invoke read so far (to `buf[end]`) is a malformed call of the block."""
        cap, inv = self.cap, self.inv
        if cap.bad is not None and not (cap.over and cap.bad):  # (past the limit: "there was one")
            cap.bad.append((inv.start, self.base + end, inv.bad, inv.name or None))

    def _tolerates(self) -> bool:
        """D59: the block reports a malformed invoke instead of being text (R18.2); an announced
        call breaks the block instead (R16.3, D37)."""
        return self.cap.bad is not None and not self.inv.live

    def _m_capture(self, final: bool) -> bool:
        cap = self.cap
        # R16 (D37): once a call is announced its arguments stream instead of being held, so
        # the capture limit stops applying to the block.
        if not cap.started and (cap.over or self.base + self.pos - cap.start > self.max_capture):
            self._overflow()
        level = cap.level
        if level == _L_CDATA:
            return self._c_cdata(final)
        if level == _L_AFTER_CDATA:
            return self._c_after(final)
        buf, pos = self.buf, self.pos
        n = len(buf)
        if pos >= n:
            if not final:
                return False
            return self._fail()  # end of input inside a block (R8.5, D27)
        c = buf[pos]
        if level == _L_PARAM:
            return self._c_param(final, c)
        m = _WS.match(buf, pos)
        if m:
            if level == _L_INVOKE and self.inv.text:
                self.inv.text.append(m.group(0))
            self.pos = m.end()
            return True
        if level == _L_TOP:
            return self._c_top(final, c)
        return self._c_invoke(final, c)

    def _cap_waits(self, buf: str) -> bool:
        """Fast path of feed: the steps stopped at a tag the new chunk still does not complete
        (`<|DSML|param` + `eter na`). Between tags and in a parameter body an open angle is
        tried as a CDATA opener (in a body), the end-of-sentence token (it ends with `>`, so a
        tag that waits is not one) and a tag: when the tag waits, the steps would wait again
        with nothing done. (The capture limit and the tap need no check: what they act on is
        what the steps consumed, and the last feed ended with them at this same position.)"""
        level = self.cap.level
        if level > _L_PARAM or ">" in buf:  # (with a `>` in sight the steps decide: a tag may end there)
            return False
        if level == _L_PARAM and isinstance(match_cdata_open(buf, 0, False), int):
            return False
        keywords = self._keywords
        assert keywords is not None  # (blocks exist only with a tag format)
        return match_tag(buf, 0, False, keywords) is MORE

    def _eos_at(self, buf: str, pos: int, final: bool) -> bool | str:
        """Is there an end-of-sentence token at `buf[pos]`? True, False or MORE."""
        if pos + 1 < len(buf) and buf[pos + 1] not in BARS:
            return False  # (what _marker finds without a call: every marker starts `<｜`)
        mk = self._marker(buf, pos, final)
        if mk is MORE:
            return MORE
        return isinstance(mk, tuple) and mk[0] == sections.EOS

    def _c_top(self, final: bool, c: str) -> bool:
        """Directly inside the wrapper: invokes, whitespace and the closing wrapper (D3)."""
        buf, pos = self.buf, self.pos
        if c not in OPEN_ANGLES:
            return self._fail()
        eos = self._eos_at(buf, pos, final)
        if eos is MORE:
            return False
        if eos is True:  # the output ended inside the block: as at end of input (D27)
            return self._fail()
        r = self._tag(buf, pos, final)
        if r is MORE:
            return False
        if not isinstance(r, Tag):
            return self._fail()
        cap, inv = self.cap, self.inv
        if r.local == INVOKE and not r.closing and not r.self_closing:
            named = _named(r)
            if not named and cap.bad is None:
                return self._fail()  # D14
            self.pos = r.end
            cap.level = _L_INVOKE
            inv.start = self.base + pos
            inv.name = self._name(r.name) if named else ""
            inv.bad = "" if named else "no name"  # D59
            inv.live = False
            inv.params, inv.multi = {}, set()
            inv.text = []
            if named and self.stream and cap.wrapped and not cap.over:
                cap.started += 1
                inv.live = True
                inv.keys, inv.top, inv.other = set(), -1, False
                self._flush_text()
                self.out.append(CallBegun(inv.name))
            return True
        if r.local == WRAPPER and r.closing:
            self.saw = True
            if cap.calls or cap.bad:
                if cap.wrapped:
                    return self._succeed(r.end, cap.format, tuple(cap.fixed))
                return self._succeed(r.end, r.format, ("D6", *cap.fixed))  # R3: its closer's row
            self.pos = r.end  # an empty wrapper is text, its closer with it (D46, D60)
        return self._fail()

    def _c_invoke(self, final: bool, c: str) -> bool:
        """Inside an invoke: parameters, or a JSON object body (D5), then the closing invoke."""
        buf, pos = self.buf, self.pos
        cap, inv = self.cap, self.inv
        if c in OPEN_ANGLES:
            eos = self._eos_at(buf, pos, final)
            if eos is MORE:
                return False
            if eos is True:
                return self._fail()
            r = self._tag(buf, pos, final)
            if r is MORE:
                return False
            if isinstance(r, Tag):
                if r.local == PARAMETER and not r.closing:
                    if r.self_closing or not _named(r) or not strings.is_blank("".join(inv.text)):
                        if not self._tolerates():
                            return self._fail()  # D14, D5
                        inv.bad = inv.bad or "broken parameter"  # D59
                        if r.self_closing:
                            self.pos = r.end
                            return True
                    name = self._name(r.name)
                    if inv.live and self._reorders(name):
                        return self._break()
                    self.pos = r.end
                    cap.level = _L_PARAM
                    self.par.name = name
                    self.par.string = r.string if self.native else None
                    self.par.segs = []
                    self.par.text = []
                    if inv.live:
                        self.tap = ValueTap(name, self.par.string)
                        self._tap_text = self._tap_cdata = 0
                    return True
                if r.local == INVOKE and r.closing:
                    inp = {} if cap.over or inv.bad else self._invoke_input()
                    if inp is None or inv.bad:
                        if not self._tolerates():
                            return self._fail()
                        if not inv.bad:  # D59
                            inv.bad = "broken parameter" if inv.params else "arguments are not a JSON object"
                        self._malformed(r.end)
                    else:
                        if not (cap.over and cap.calls):  # past the limit only "there was one" counts
                            cap.calls.add(inv.name, inp)
                        if inv.live:
                            self._flush_text()
                            self.out.append(CallDone(inp))
                    inv.params, inv.multi = {}, set()  # `inp` is the call's now
                    inv.text = []
                    self.pos = r.end
                    cap.level = _L_TOP
                    return True
                if r.local == PARAMETER and self._tolerates():  # a stray closer (D59)
                    inv.bad = inv.bad or "broken parameter"
                    self.pos = r.end
                    return True
                return self._fail()
            if not inv.text:
                if not self._tolerates():
                    return self._fail()
                if inv.params:  # D59: an angle that starts nothing, beside parameters
                    inv.bad = inv.bad or "broken parameter"
            end = self._skip(buf, pos)
            inv.text.append(buf[pos:end])
            self.pos = end
            return True
        if inv.params:
            if not self._tolerates():
                return self._fail()
            inv.bad = inv.bad or "broken parameter"  # D59: text beside parameters
        m = _ANGLE.search(buf, pos + 1)
        end = m.start() if m else len(buf)
        inv.text.append(buf[pos:end])
        self.pos = end
        return True

    def _invoke_input(self) -> dict[str, Any] | None:
        body = "".join(self.inv.text)
        if self.inv.params:
            return self.inv.params if strings.is_blank(body) else None
        if strings.is_blank(body):
            return {}
        return values.json_body_input(body)

    def _c_param(self, final: bool, c: str) -> bool:
        """A parameter body: text up to a CDATA opener or the closing parameter tag. Angles that
        start nothing are part of the text and skipped in the same step (code is full of them)."""
        buf, pos = self.buf, self.pos
        n = len(buf)
        start = pos
        while True:
            if c in OPEN_ANGLES:
                r = self._param_angle(buf, pos, final, start)
                if r is not None:
                    return r
                pos = self._skip(buf, pos, text=True)  # the last angle may open a CDATA
            m = _ANGLE.search(buf, pos)
            if m is None:
                pos = n
                break
            pos = m.start()
            c = buf[pos]
        if pos > start:
            self.par.text.append(buf[start:pos])
        self.pos = pos
        return True

    def _param_angle(self, buf: str, pos: int, final: bool, start: int) -> bool | None:
        """An open angle in a parameter body: None when it starts nothing (it is text), else
        the step's answer after taking the text before it (`buf[start:pos]`)."""
        cd = match_cdata_open(buf, pos, final)
        eos: bool | str = False
        r: Tag | str = NO
        if cd is NO:
            eos = self._eos_at(buf, pos, final)
            if eos is False:
                r = self._tag(buf, pos, final)
                if r is NO:
                    return None
        cap, par = self.cap, self.par
        if pos > start:
            par.text.append(buf[start:pos])
        self.pos = pos
        if cd is MORE or eos is MORE or r is MORE:
            return False
        if isinstance(cd, int):
            if self.tap is not None:
                self._tap_pull()
                self._tap_out(self.tap.cdata_open())
            self._par_flush_text()
            self._tap_text = self._tap_cdata = 0
            self.pos = cd
            cap.level = _L_CDATA
            self._start_cdata(cd)
            return True
        if isinstance(r, Tag) and r.local == PARAMETER and r.closing:
            if self.tap is not None:
                self._tap_pull()
                self._tap_done()
            self._par_flush_text()
            if not self.inv.bad:  # (a malformed call's values are never read, D59)
                self.work += sum(len(x) for _, x in par.segs)
                value = values.param_value(par.name, par.segs, par.string)
                values.add_param(self.inv.params, self.inv.multi, par.name, value)
                if self.inv.live:
                    self._flush_text()
                    self.out.append(ParamDone(par.name, value))
            par.segs = []  # the body is decoded: keep only its value
            self.pos = r.end
            cap.level = _L_INVOKE
            return True
        if (
            isinstance(r, Tag)
            and (r.local == PARAMETER or (r.local == INVOKE and r.closing))
            and self._tolerates()
        ):
            # D59: a parameter left open ends at the next parameter or at its invoke's end
            self.inv.bad = self.inv.bad or "broken parameter"
            par.segs, par.text = [], []
            cap.level = _L_INVOKE
            return True
        return self._fail()  # the end-of-sentence token, or another tag inside a value

    def _reorders(self, name: str) -> bool:
        """R16 (D37): a parameter name that repeats (R6.6 makes an array of both) or an array
        index after another name (JavaScript lists index keys first) would change arguments
        text already sent: the block breaks before it."""
        inv = self.inv
        if name in inv.keys:
            return True
        if is_index_key(name):
            if inv.other or int(name) < inv.top:
                return True
            inv.top = int(name)
        else:
            inv.other = True
        inv.keys.add(name)
        return False

    def _tap_pull(self) -> None:
        """Hand the tap the body pieces it has not seen; what became certain goes out."""
        tap = self.tap
        if tap is None:
            return
        text = self.par.text
        if self._tap_text < len(text):
            got = "".join([tap.text(x) for x in text[self._tap_text :]])
            self._tap_text = len(text)
            self._tap_out(got)
        if self.cap.level >= _L_CDATA:
            parts = self.cd.parts
            i = self._tap_cdata
            n = len(parts)
            if i < n:
                self._tap_cdata = n
                got = (
                    tap.cdata_piece(parts[i])
                    if i + 1 == n
                    else "".join([tap.cdata_piece(x) for x in parts[i:]])
                )
                if got:  # inside a block no text is pending: the characters go straight out
                    self.out.append(ValueChars(self.par.name, got))

    def _tap_done(self) -> None:
        if self.tap is not None:
            self.work += self.tap.work
            self.tap = None

    def _tap_out(self, s: str) -> None:
        if s:
            self._flush_text()
            self.out.append(ValueChars(self.par.name, s))

    def _par_flush_text(self) -> None:
        par = self.par
        if par.text:
            par.segs.append(("text", "".join(par.text)))
            par.text = []

    # ---- CDATA inside a parameter ---------------------------------------------------------

    def _start_cdata(self, at: int) -> None:
        cd = self.cd
        cd.parts = []
        cd.after = []
        cd.start = self._abs(at)
        cd.depth = 1
        cd.fence = ""
        cd.line.line_start()

    def _c_cdata(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        n = len(buf)
        if pos >= n:
            if final:
                return self._eof_in_cdata()
            return False
        if self.loose:
            return self._c_cdata_loose(final)
        cd = self.cd
        line = cd.line
        if line.tail or line.run or line.indent >= 0:
            r, end = line.step(buf, pos, cd.fence or "`~")
            if end > pos:
                cd.parts.append(buf[pos:end])
                self.pos = pos = end
            if r == WAIT:
                return True
            if r == RUN_END:
                run, ch = line.run, line.char
                line.run = 0
                if not cd.fence:
                    if run >= 3:
                        cd.fence, cd.fence_len = ch, run
                elif ch == cd.fence and run >= cd.fence_len:
                    line.tail = True
                return True
            if r == TAIL_END:
                c = buf[pos]
                if c == "\n" or c == "]":  # the closing fence line ended
                    cd.fence = ""
                if c == "\n":
                    cd.parts.append(c)
                    self.pos = pos + 1
                    line.line_start()
                return True
        # Only line starts that begin with a fence character matter (R5.3), so plain lines are
        # skipped in bulk; a possible partial match at the end of the buffer waits.
        m = _CD_SPECIAL.search(buf, pos)
        if m is None:
            end = n
            if not final:
                t = _CD_TAIL.search(buf, max(pos, n - 4))
                if t is not None:
                    end = t.start()
            cd.parts.append(buf[pos:end])
            self.pos = end
            return final
        k = m.start()
        if k > pos:
            cd.parts.append(buf[pos:k])
            self.pos = pos = k
        ch = buf[k]
        if ch == "\n":
            cd.parts.append(ch)
            self.pos = k + 1
            line.line_start()
            return True
        if ch == "]":
            if k + 2 >= n:
                if not final:
                    return False
                cd.parts.append(buf[k:])
                self.pos = n
                return True
            if cdata_close_at(buf, k):
                if cd.depth > 1:
                    cd.depth -= 1
                    cd.parts.append(buf[k : k + 3])
                elif cd.fence:  # a closer in a fenced example stays in the value (R5.3)
                    cd.parts.append(buf[k : k + 3])
                else:
                    cd.after = [buf[k : k + 3]]
                    cd.after_tail = -1
                    self.cap.level = _L_AFTER_CDATA
                self.pos = k + 3
                return True
            cd.parts.append("]")
            self.pos = k + 1
            return True
        # Openers count inside a fence too: an example there has its own closers, and an opener
        # seen through a fence the value never closed is the next value's (D7).
        opener = match_cdata_open(buf, k, final)
        if opener is MORE:
            return False
        if isinstance(opener, int):
            cd.depth += 1
            cd.parts.append(buf[k:opener])
            self.pos = opener
            return True
        cd.parts.append(ch)
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
        cd = self.cd
        c = buf[pos]
        if c in " \t\r\n":
            k = pos
            while k < n and buf[k] in " \t\r\n":
                k += 1
            ws = buf[pos:k]
            cd.after.append(ws)
            # The line state after the blanks, counted across chunks (the blanks may be split).
            nl = ws.rfind("\n")
            if nl >= 0:
                cd.after_tail = 0
            if cd.after_tail >= 0:
                rest = ws[nl + 1 :]
                spaces = cd.after_tail + len(rest) if rest == " " * len(rest) else 4
                cd.after_tail = min(spaces, 4)
                cd.line.mid_line()
                if spaces <= 3:
                    cd.line.indent = spaces
            self.pos = k
            return True
        closed: bool | str = False
        if c in OPEN_ANGLES:
            closed = match_close_start(buf, pos, final)
            if closed is MORE:
                return False
        if closed is True:
            if self.tap is not None:
                self._tap_pull()
                self.tap.cdata_close()
                self._tap_text = self._tap_cdata = 0
            self.par.segs.append(("cdata", "".join(cd.parts)))
            cd.parts, cd.after = [], []
            self.cap.level = _L_PARAM
            return True
        if cd.after_tail < 0:  # no newline after the `]]>`: the line goes on
            cd.line.mid_line()
        cd.parts.extend(cd.after)
        cd.after = []
        self.cap.level = _L_CDATA
        return True

    def _c_cdata_loose(self, final: bool) -> bool:
        """After the repair (D8) every CDATA is read by its rule, in one pass: the value runs to
        the first parameter closing tag, less a `]]>` and blanks right before it."""
        buf, pos = self.buf, self.pos
        cd = self.cd
        m = _ANGLE.search(buf, pos)
        if m is None:
            cd.parts.append(buf[pos:])
            self.pos = len(buf)
            return True
        k = m.start()
        r = self._tag(buf, k, final)
        if r is MORE:
            cd.parts.append(buf[pos:k])
            self.pos = k
            return False
        if isinstance(r, Tag) and r.local == PARAMETER and r.closing:
            self._loose_value("".join(cd.parts) + buf[pos:k], False)
            cd.parts = []
            self.pos = k
            return True
        end = self._skip(buf, k)
        cd.parts.append(buf[pos:end])
        self.pos = end
        return True

    def _loose_value(self, content: str, repaired: bool) -> None:
        """The repaired CDATA value (D8): `content` up to its parameter closing tag. `repaired`:
        the input ended in it; a later value is repaired when its `]]>` is missing (D58)."""
        t = _LOOSE_CLOSE_TAIL.search(content)
        self.par.segs.append(("cdata", content[: t.start()] if t else content))
        cap = self.cap
        cap.level = _L_PARAM
        if (repaired or t is None) and "D8" not in cap.fixed:
            cap.fixed.append("D8")

    def _eof_in_cdata(self) -> bool:
        """R5.6 / D8: the input ended inside a CDATA: its value runs to the first parameter
        closing tag; the rest of the input is then read once more, every CDATA in it by the
        same rule (`_c_cdata_loose`), so no second repair and no second rescan."""
        cd, cap = self.cd, self.cap
        content = "".join(cd.parts) + "".join(cd.after) + self.buf[self.pos :]
        if self.loose or cap.over or cap.started:
            return self._fail()  # with a call announced, the block breaks here (R16.3, D37)
        self.loose = True
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
        self._loose_value(content[:close], True)
        cd.parts, cd.after = [], []
        # The block's source now ends where the value does; reading goes on from there.
        end = cd.start + close
        source = self._source() + self.buf[self.pos :]
        cap.raw.add(source[: end - cap.start])
        cap.mark = end
        self.buf = content[close:]
        self.base = end
        self.pos = 0
        return True
