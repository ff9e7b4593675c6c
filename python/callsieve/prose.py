"""The scanner's prose layer: TEXT, RUN, FENCE, PENDING and REGION, the prose skip and the ignored
regions. Openers are recognized here and handed to the engine of their format's row. See
scanner.py for the theory of operation.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Final

from . import harmony, mistral, pylist, sections, strings
from .blocks import Typer
from .fences import _RUNS, PLAIN, RUN_END, TAIL_END, WAIT, FenceLine
from .formats import DEFAULT_FORMATS, FORMATS, Format
from .scanbase import (
    _L_INVOKE,
    _L_TOP,
    _M_FENCE,
    _M_HARMONY,
    _M_MISTRAL,
    _M_PENDING,
    _M_PYLIST,
    _M_REGION,
    _M_RUN,
    _M_TEXT,
    Level,
    ScanBase,
    _named,
    match_block_marker,
)
from .sections import match_marker
from .shell import (
    INVOKE,
    MORE,
    NO,
    NO_TAG_ANGLES,
    NO_TAG_SO_FAR,
    OPEN_ANGLES,
    STOP_CHARS,
    WRAPPER,
    Tag,
    match_cdata_open,
)

_SPECIAL: Final = re.compile(r"[\n`<＜〈《]")


_SPECIAL_JSON: Final = re.compile(r"[\n`<＜〈《{]")


# With a format whose opener starts with `[` (Mistral's `[TOOL_CALLS]`), prose stops there too.
_SPECIAL_BR: Final = re.compile(r"[\n`<＜〈《\[]")


_SPECIAL_JSON_BR: Final = re.compile(r"[\n`<＜〈《{\[]")


_ANGLE: Final = re.compile(r"[<＜〈《]")


# DeepSeek's closing wrappers as its models write them (R14.1): alone, they are not content (D60).
_NATIVE_CLOSERS: Final = frozenset(FORMATS["function_calls"].strays)


_WS: Final = re.compile("[" + strings.JS_SPACE + "]+")


# Ignored regions in prose (R5, D40-D42): kind -> (closer, a partial closer at the end of input).
_REGIONS: Final = {
    "cdata": (re.compile(r"\]\][>＞〉]"), re.compile(r"\]\]?\Z")),
    "comment": (re.compile(r"-->"), re.compile(r"--?\Z")),
    "pre": (re.compile(r"</pre>", re.I), re.compile(r"<(?:/(?:p(?:r(?:e)?)?)?)?\Z", re.I)),
}


def _prose_skip(json_calls: bool, brackets: bool = False) -> re.Pattern[str]:
    """TEXT's skip over decided prose, from `pos`: plain characters; an ASCII `<` of prose HTML
    (`<div class=`, `</span>`: an ASCII head starting with a letter or digit, ended, with no
    keyword of any format, so every recognizer says NO); open angles before a blank head that
    has ended (`a < b`); open angles that start no tag (shell.NO_TAG_ANGLES: runs of prefixes like
    `<｜DSML｜<｜DSML｜`); a newline followed by a character that cannot start anything at a
    line start (no indent, fence or tag). It consumes only what is decided whatever follows,
    so it does not depend on where a chunk ended; it stops at anything else, for the steps."""
    plain = "[^\\n`<＜〈《" + ("{" if json_calls else "") + ("\\[" if brackets else "") + "]"
    head = "[" + re.escape(_PLAIN_HEAD_CHARS) + "]"
    tag = (
        "<(?!/?(?i:pre))(?!" + head + "{0,64}?(?i:tool|function|invoke|parameter))"
        "/?[A-Za-z0-9]" + head + "{0,62}(?=[" + re.escape(STOP_CHARS) + "])"
    )
    # `a < b and c > d`, `<< shifts >>`: a head that starts blank is no tag once it has ended
    blank = "<{1,8}(?=[ \\t][^" + re.escape(STOP_CHARS) + "]{0,63}[" + re.escape(STOP_CHARS) + "])"
    newline = "\\n(?=[^ \\t\\r\\n`~<＜〈《{])"
    return re.compile("(?:" + plain + "+|" + tag + "|" + blank + "|" + NO_TAG_ANGLES + "|" + newline + ")*+")


# The characters of a prose tag head (see _prose_skip): ASCII, no stop character (the head ends at
# one, as match_tag's), no `|` or `!` (markers, comments, CDATA drift forms), no control character.
_PLAIN_HEAD_CHARS: Final = "".join(
    ch for ch in "\t" + "".join(map(chr, range(0x20, 0x7F))) if ch not in STOP_CHARS and ch not in "|!"
)


# A tag head cut by the end of the input (shell.NO_TAG_SO_FAR): prose waits there, as its steps
# would (a `<pre ` at a line start opens a region, D41, and is decided at its blank).
_PLAIN_TAG_SO_FAR: Final = re.compile(NO_TAG_SO_FAR)


_PROSE: Final = _prose_skip(False)


_PROSE_JSON: Final = _prose_skip(True)


_PROSE_BR: Final = _prose_skip(False, True)


_PROSE_JSON_BR: Final = _prose_skip(True, True)


_PRE_OPEN: Final = re.compile(r"<pre(?=[ \t\r\n>])", re.I)


_PRE_PREFIX: Final = re.compile(r"<(?:p(?:r(?:e)?)?)?\Z", re.I)


_COMMENT_PREFIX: Final = re.compile(r"<(?:!(?:-)?)?\Z")


def match_region(s: str, i: int, final: bool, bol: bool) -> tuple[str, int] | str:
    """An ignored region opening at `s[i]` (an open angle): (kind, end of the opener), MORE or
    NO. A CDATA section (drift forms, R5.5) or an HTML comment anywhere; a `<pre>` block only
    at a line start (`bol`), as CommonMark's HTML blocks. A comment's closer may overlap its
    opener (`<!-->`), so its opener ends after `<!`."""
    if s.startswith("<!--", i):
        return "comment", i + 2
    if not final and _COMMENT_PREFIX.match(s, i):
        return MORE
    cd = match_cdata_open(s, i, final)
    if isinstance(cd, int):
        return "cdata", cd
    if cd is MORE:
        return MORE
    if bol:
        m = _PRE_OPEN.match(s, i)
        if m is not None or (final and s[i : i + 4].lower() == "<pre" and i + 4 == len(s)):
            return "pre", i + 4
        if not final and _PRE_PREFIX.match(s, i):
            return MORE
    return NO


class Prose(ScanBase):
    """The prose layer of the scanner (TEXT, RUN, FENCE, PENDING, REGION)."""

    def __init__(
        self,
        max_capture: int = 8 * 1024 * 1024,
        json_calls: bool = False,
        formats: frozenset[str] = DEFAULT_FORMATS,
        stream_arguments: bool = False,
        typer: Typer | None = None,
    ) -> None:
        super().__init__(max_capture, json_calls, formats, stream_arguments, typer)
        json_calls = self.json_calls
        if self._brackets:
            self._special = _SPECIAL_JSON_BR if json_calls else _SPECIAL_BR
            self._prose = _PROSE_JSON_BR if json_calls else _PROSE_BR
        else:
            self._special = _SPECIAL_JSON if json_calls else _SPECIAL
            self._prose = _PROSE_JSON if json_calls else _PROSE
        self.region = _REGIONS["cdata"]  # REGION: the closer of the open region, and its prefix

    # ---- TEXT ---------------------------------------------------------------------------

    def _m_text(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        n = len(buf)
        if pos >= n:
            return False
        line = self.line
        if line.indent >= 0:
            r, end = line.step(buf, pos, "`~")
            self._emit(buf[pos:end])
            self.pos = end
            if r == WAIT and line.run == 0:
                return False  # only line-start spaces so far: wait (at the end nothing follows)
            if r != PLAIN:  # a run at a line start
                self._start_run(line=True, at=end - line.run)
                return True
            pos = end
            self._bol = self._abs(pos)  # at most 3 spaces in: an HTML block may start here
        if self.base + pos != self._prose_stop:
            end = self._prose.match(buf, pos).end()  # type: ignore[union-attr]
            if end > pos:  # decided prose, in one step (see _prose_skip)
                self._emit(buf[pos:end])
                line.indent = -1
                self.pos = end
                return True
        c = buf[pos]
        if c == "\n":
            self._emit(c)
            line.line_start()
            self.pos = pos + 1
            return True
        if c == "`":
            line.mid_line()
            end = line.start_run(buf, pos)
            self._emit(buf[pos:end])
            self.pos = end
            self._start_run(line=False, at=pos)
            return True
        if c in OPEN_ANGLES:
            if not final and c == "<" and _PLAIN_TAG_SO_FAR.match(buf, pos):
                return False  # a prose tag head cut by the end of the input so far: all say MORE
            return self._text_tag(final)
        if c == "[":  # (only with Mistral or a bare pythonic list: else _prose took it)
            return self._text_bracket(final)
        return self._text_json(final)  # `{`: the only other character _prose stops at

    def _text_bracket(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        if self._mistral:
            r = mistral.match_marker(buf, pos, final)
            if r == "more":
                return False
            if isinstance(r, tuple):
                self.line.indent = -1
                self.mode = _M_MISTRAL
                mistral.start(self, r[1])
                return True
        self.line.indent = -1
        if self._bare:  # R17.8, D64: a bare pythonic list may open here
            self.mode = _M_PYLIST
            pylist.start(self)
            return True
        self._emit("[")
        self.pos = pos + 1
        return True

    def _marker(self, buf: str, pos: int, final: bool) -> tuple[str, int] | str:
        """A token marker at `buf[pos]` that some format in use gives a meaning: MORE, NO, or
        (kind, end) for a section opener or end (tokens) or the end-of-sentence token."""
        if not self.eos or buf[pos] != "<":
            return NO
        r = match_marker(buf, pos, final)
        if isinstance(r, tuple):
            kind = r[0]
            if kind == sections.EOS or (
                self.tokens and (kind == sections.SECTION_BEGIN or kind == sections.SECTION_END)
            ):
                return r
            return NO
        return r

    def _text_tag(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        if self._blocks and buf[pos] == "<":
            bm = match_block_marker(self._blocks, buf, pos, final)
            if bm is MORE:
                return False
            if isinstance(bm, tuple):
                self.line.indent = -1
                rows = self._blocks[bm[0]]
                if rows and rows[0].engine == "harmony":
                    self.mode = _M_HARMONY
                    harmony.start(self, bm[0], bm[1])
                elif rows:
                    self._start_block(rows, bm[0], bm[1])
                else:  # R18.3: a stray closer is not content
                    self.pos = bm[1]
                return True
        mk = self._marker(buf, pos, final)
        if mk is MORE:
            return False
        if isinstance(mk, tuple):
            self.line.indent = -1
            kind, end = mk
            if kind != sections.SECTION_BEGIN:  # R14.6; a stray section end (R18.3, D60): dropped
                self.pos = end
                return True
            self.saw = True
            self._start_section(end)
            return True
        rg = match_region(buf, pos, final, self._abs(pos) == self._bol)
        if rg is MORE:
            return False
        if isinstance(rg, tuple):
            self.line.indent = -1
            kind, end = rg
            self._emit(buf[pos:end])
            self.pos = end
            self.mode = _M_REGION
            self.region = _REGIONS[kind]
            return True
        r = self._tag(buf, pos, final)
        if r is MORE:
            return False
        self.line.indent = -1
        if isinstance(r, Tag):
            if r.local == WRAPPER:
                self.saw = True
                if not r.closing:
                    self._start_capture(_L_TOP, r.end, r.format)
                    return True
                if self.native and buf[pos : r.end] in _NATIVE_CLOSERS:  # R18.3, D60: dropped
                    self.pos = r.end
                    return True
            elif r.local == INVOKE and not r.closing and not r.self_closing and _named(r):
                # R3 / D6: a bare named invoke may be a block missing its opening wrapper
                self._start_capture(_L_INVOKE, r.end, "")
                self.inv.name = self._name(r.name)
                return True
            self._emit(buf[pos : r.end])
            self.pos = r.end
            return True
        end = self._skip(buf, pos, text=True)
        self._emit(buf[pos:end])
        self.pos = end
        return True

    # ---- RUN (backticks / tildes) -------------------------------------------------------

    def _start_run(self, *, line: bool, at: int) -> None:
        self.mode = _M_RUN
        self.run.start = self._abs(at)
        self.run.line = line

    def _m_run(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        line = self.line
        r, end = line.step(buf, pos, "")
        self._emit(buf[pos:end])
        self.pos = pos = end
        if r == WAIT and not final:
            return False
        line.indent = -1
        char, length = line.char, line.run
        line.run = 0
        if self.run.line and length >= 3:
            self.mode = _M_FENCE
            fence = self.fence
            fence.char, fence.length = char, length
            fence.line.mid_line()
            return True
        self.mode = _M_TEXT
        if char == "`":
            start = self.run.start
            if start < self.idx_end:
                offs = self.idx.get(length, [])
                k = bisect_right(offs, start)
                if k < len(offs):
                    end = offs[k] + length - self.base
                    self._emit(buf[pos:end])
                    self.pos = end
            else:
                self._start_pending(length)
        return True

    # ---- FENCE --------------------------------------------------------------------------

    def _m_fence(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        n = len(buf)
        if pos >= n:
            return False
        fence = self.fence
        line = fence.line
        r, end = line.step(buf, pos, fence.char)
        self._emit(buf[pos:end])
        self.pos = pos = end
        if r == WAIT:
            return False
        if r == RUN_END:
            line.tail = line.run >= fence.length
            line.run = 0
            return True
        if r == TAIL_END and buf[pos] == "\n":  # a closing fence line
            self._emit("\n")
            self.pos = pos + 1
            self.mode = _M_TEXT
            self.line.line_start()
            return True
        k = buf.find("\n", pos)
        if k < 0:
            self._emit(buf[pos:])
            self.pos = n
            return False
        self._emit(buf[pos : k + 1])
        self.pos = k + 1
        line.line_start()
        return True

    # ---- REGION (CDATA, HTML comment or <pre> block in prose) ---------------------------

    def _m_region(self, final: bool) -> bool:
        """An ignored region in prose (D40, D41): text up to its closer, or to the end of input;
        only a partial closer at the end of the buffer waits."""
        buf, pos = self.buf, self.pos
        n = len(buf)
        if pos >= n:
            return False
        closer, partial = self.region
        m = closer.search(buf, pos)
        if m is None:
            end = n
            if not final:
                t = partial.search(buf, max(pos, n - 6))
                if t is not None:
                    end = t.start()
            self._emit(buf[pos:end])
            self.pos = end
            return False
        self._emit(buf[pos : m.end()])
        self.pos = m.end()
        self.mode = _M_TEXT
        self.line.mid_line()
        return True

    # ---- PENDING (inline code span) -----------------------------------------------------

    def _start_pending(self, n: int) -> None:
        self.mode = _M_PENDING
        p = self.pend
        p.n = n
        p.hold = None
        p.runs = {}
        p.blank = False
        p.indent = 0
        p.run_len = 0

    def _p_put(self, s: str) -> None:
        hold = self.pend.hold
        if hold is None:
            self._emit(s)
        else:
            hold.append(s)

    def _p_hold_here(self, at: int) -> None:
        p = self.pend
        if p.hold is None:
            p.hold = []
            p.hold_start = at

    def _m_pending(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        n = len(buf)
        p = self.pend
        if self._p_over(pos):
            # R8.3: a code span that would hold more than a block may is not a code span. The
            # length is content, so every chunking decides at the same place (a backtick run
            # is read no further than that place: _p_run_end).
            assert p.hold is not None
            if p.run_len:  # a backtick run read to the limit is held text too
                p.hold.append("`" * p.run_len)
                p.run_len = 0
            self._pending_literal(self._abs(pos))
            return True
        if p.run_len:
            return self._p_run(final)
        if pos >= n:
            if final:
                self._pending_literal(self._abs(pos))
                return True
            return False
        c = buf[pos]
        if p.blank:
            if c == " " or c == "\t":
                self._p_put(c)
                p.indent += 1 if c == " " else 4
                self.pos = pos + 1
                return True
            if c == "\n":  # blank line: the paragraph ended
                self._pending_literal(p.line_start)
                return True
            if (c == "`" or c == "~") and p.indent <= 3:
                opens = FenceLine.opens_at(buf, pos, final)
                if opens is None:
                    return False
                if opens:  # a fence line ends the paragraph
                    self._pending_literal(p.line_start)
                    return True
            elif c in OPEN_ANGLES:
                if p.indent <= 3:  # a `<pre>` block starts here and ends the paragraph (D41)
                    rg = match_region(buf, pos, final, True)
                    if rg is MORE:
                        return False
                    if isinstance(rg, tuple) and rg[0] == "pre":
                        self._pending_literal(p.line_start)
                        return True
                mk = self._marker(buf, pos, final)
                if mk is MORE:
                    return False
                if isinstance(mk, tuple) and mk[0] == sections.SECTION_BEGIN:
                    self._pending_literal(p.line_start)
                    return True
                bm = match_block_marker(self._blocks, buf, pos, final) if self._blocks else NO
                if bm is MORE:
                    return False
                if isinstance(bm, tuple) and self._blocks[bm[0]]:
                    self._pending_literal(p.line_start)
                    return True
                r = self._tag(buf, pos, final)
                if r is MORE:
                    return False
                if isinstance(r, Tag) and r.local == WRAPPER and not r.closing:
                    self._pending_literal(p.line_start)
                    return True
            elif c == "[" and self._mistral:
                mr = mistral.match_marker(buf, pos, final)
                if mr == "more":
                    return False
                if isinstance(mr, tuple):  # a block starts here and ends the paragraph
                    self._pending_literal(p.line_start)
                    return True
            p.blank = False
        if c == "\n":
            self._p_put(c)
            self.pos = pos + 1
            p.blank = True
            p.indent = 0
            p.line_start = self._abs(pos + 1)
            return True
        if c == "`":
            p.run_start = self._abs(pos)
            end = self._p_run_end(buf, pos)
            p.run_len = end - pos
            self.pos = end
            return True
        if c == "{" and self.json_calls:
            self._p_hold_here(self._abs(pos))
            self._p_put(c)
            self.pos = pos + 1
            return True
        if c in OPEN_ANGLES:
            bm = match_block_marker(self._blocks, buf, pos, final) if self._blocks else NO
            if bm is MORE:
                return False
            if isinstance(bm, tuple):  # a block or a stray closer: meaning depends on the span
                self._p_hold_here(self._abs(pos))
                self._p_put(buf[pos : bm[1]])
                self.pos = bm[1]
                return True
            mk = self._marker(buf, pos, final)
            if mk is MORE:
                return False
            if isinstance(mk, tuple):  # a section marker or an end-of-sentence token: meaning depends
                self._p_hold_here(self._abs(pos))
                self._p_put(buf[pos : mk[1]])
                self.pos = mk[1]
                return True
            rg = match_region(buf, pos, final, False)
            if rg is MORE:
                return False
            if isinstance(rg, tuple):  # a region hides what follows if the span is literal
                self._p_hold_here(self._abs(pos))
                self._p_put(buf[pos : rg[1]])
                self.pos = rg[1]
                return True
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
            end = self._skip(buf, pos, text=True)
            self._p_put(buf[pos:end])
            self.pos = end
            return True
        if c == "[" and self._mistral:
            mr = mistral.match_marker(buf, pos, final)
            if mr == "more":
                return False
            if isinstance(mr, tuple):  # a block: its meaning depends on the span
                self._p_hold_here(self._abs(pos))
                self._p_put(buf[pos : mr[1]])
                self.pos = mr[1]
                return True
        if c == "[" and self._bare:  # a bare pythonic list: its meaning depends on the span (D64)
            self._p_hold_here(self._abs(pos))
            self._p_put(c)
            self.pos = pos + 1
            return True
        m = self._special.search(buf, pos + 1)
        end = m.start() if m else n
        self._p_put(buf[pos:end])
        self.pos = end
        return True

    def _p_run(self, final: bool) -> bool:
        """A backtick run inside the span: the closing run, or one more run to remember."""
        buf, pos = self.buf, self.pos
        p = self.pend
        end = self._p_run_end(buf, pos)
        if end > pos:
            p.run_len += end - pos
            self.pos = pos = end
        if self._p_over(pos):
            return True  # (the run reached the limit: _m_pending releases the span)
        if pos >= len(buf) and not final:
            return False
        length, start = p.run_len, p.run_start
        p.run_len = 0
        if length == p.n:  # the closing run: the whole span is text
            self._p_put("`" * length)
            if p.hold is not None:
                self._emit("".join(p.hold))
            p.hold = None
            self.mode = _M_TEXT
            self.line.indent = -1
            return True
        self._p_hold_here(start)
        assert p.hold is not None
        p.hold.append("`" * length)
        p.runs.setdefault(length, []).append(start)
        return True

    def _p_over(self, pos: int) -> bool:
        """The held span is past max_capture at `pos` (R8.3)."""
        p = self.pend
        return p.hold is not None and self.base + pos - p.hold_start > self.max_capture

    def _p_run_end(self, buf: str, pos: int) -> int:
        """Where the backtick run at `pos` ends, or the first place past the limit of a held
        span: whether the span is over its limit is decided there, wherever a chunk ended."""
        m = _RUNS["`"].match(buf, pos)
        end = m.end() if m else pos
        p = self.pend
        if p.hold is not None:
            end = min(end, p.hold_start + self.max_capture + 1 - self.base)
        return end

    def _pending_literal(self, region_end: int) -> None:
        """The open inline span has no closer in its paragraph: its opener is literal."""
        self.mode = _M_TEXT
        p = self.pend
        if p.hold is None:
            self.line.indent = p.indent if p.blank and p.indent <= 3 else -1
            return
        held = "".join(p.hold)
        self.work += len(held)
        p.hold = None
        self.idx = p.runs
        self.idx_end = region_end
        self.buf = held + self.buf[self.pos :]
        self.base = p.hold_start
        self.pos = 0
        self.line.indent = -1

    # ---- the layers above this one (each a subclass) define these ----------------------

    def _start_block(self, rows: tuple[Format, ...], opener: str, end: int) -> None:
        raise NotImplementedError  # scanner.py

    def _start_capture(self, level: Level, end: int, fmt: str) -> None:
        raise NotImplementedError  # dsml.py

    def _start_section(self, end: int) -> None:
        raise NotImplementedError  # scanner.py

    def _text_json(self, final: bool) -> bool:
        raise NotImplementedError  # scanner.py
