"""The scanner's base layer: its state (buffer, cursor, offsets, one small object per mode),
output, and the helpers every layer uses. See scanner.py for the theory of operation.
"""

from __future__ import annotations

from enum import IntEnum
from sys import intern
from typing import Any, Final

from . import harmony, mistral, pylist, strings
from .arguments import ValueTap
from .blocks import Typer, body_kind
from .blocktap import BlockTap
from .events import Event, Malformed, TextEvent, ToolCall, ToolCallsEvent
from .fences import FenceLine
from .formats import BLOCK_FORMATS, DEFAULT_FORMATS, FORMATS, Format
from .jsontaps import HermesTap
from .sections import BARS
from .shell import (
    KEYWORDS_ALL,
    KEYWORDS_NATIVE,
    KEYWORDS_SEED,
    MORE,
    NO,
    Tag,
    match_tag,
    skip_no_tag,
)


class Mode(IntEnum):
    """What the scanner is doing at `pos`."""

    TEXT = 0
    RUN = 1
    FENCE = 2
    PENDING = 3
    CAPTURE = 4
    JSON = 5
    TOKENS = 6
    REGION = 7
    BLOCK = 8
    HARMONY = 9
    MISTRAL = 10
    PYLIST = 11


# The members as module constants: the hot paths compare them at every step, and an Enum
# class's attribute access goes through EnumType's __getattr__ hook (slow in CPython).
(
    _M_TEXT,
    _M_RUN,
    _M_FENCE,
    _M_PENDING,
    _M_CAPTURE,
    _M_JSON,
    _M_TOKENS,
    _M_REGION,
    _M_BLOCK,
    _M_HARMONY,
    _M_MISTRAL,
    _M_PYLIST,
) = Mode


class Level(IntEnum):
    """Where a CAPTURE is inside its block."""

    TOP = 0  # directly inside the wrapper
    INVOKE = 1
    PARAM = 2  # a parameter body
    CDATA = 3  # a CDATA section inside a parameter body
    AFTER_CDATA = 4  # after a `]]>`: closes the CDATA only if a closing tag follows (D7)


# As Mode's members in scanner.py: module constants for the hot paths.
_L_TOP, _L_INVOKE, _L_PARAM, _L_CDATA, _L_AFTER_CDATA = Level


# The modes whose hold the capture limit bounds (_release_past_limit).
_HOLDING: Final = frozenset((_M_CAPTURE, _M_TOKENS))


class _Text:
    """Text kept in pieces. Small pieces are joined in batches, so a long text costs about one
    byte per character (as the input does) whatever the size of its pieces (issue 14, item 5)."""

    __slots__ = ("big", "size", "small")

    def __init__(self) -> None:
        self.big: list[str] = []
        self.small: list[str] = []
        self.size = 0  # characters in `small`

    def add(self, s: str) -> None:
        if len(s) >= 4096:
            self._flush()
            self.big.append(s)
            return
        self.small.append(s)
        self.size += len(s)
        if self.size >= 4096 or len(self.small) >= 64:
            self._flush()

    def _flush(self) -> None:
        if self.small:
            self.big.append("".join(self.small))
            self.small = []
            self.size = 0

    def text(self, tail: str = "") -> str:
        return "".join([*self.big, *self.small, tail])


_FLAT_PARAMS: Final = 8  # the most parameters a held call keeps as list slots (_Calls)


class _Calls:
    """The calls of an open block, in one flat list, made ToolCalls when the block ends, once its
    source is joined and let go. A held call is its keys and values, their count and its name
    (`k1, v1, …, n, name`), not a dict: a one-parameter call costs four list slots, not a dict
    of 184 bytes and its two slots (issue 14, memory per held character). A call of more than
    _FLAT_PARAMS parameters keeps its dict (`inp, -1, name`)."""

    __slots__ = ("first", "flat")

    def __init__(self) -> None:
        self.flat: list[Any] = []
        self.first = 0  # the length of the first call's record

    def add(self, name: str, inp: dict[str, Any]) -> None:
        flat = self.flat
        if len(inp) > _FLAT_PARAMS:  # a big input costs little more as a dict than as slots
            flat.append(inp)
            flat.append(-1)
        else:
            for k, v in inp.items():  # (keys from JSON are new strings per call: shared here)
                flat += (intern(k), v)
            flat.append(len(inp))
        flat.append(name)
        if not self.first:
            self.first = len(flat)

    def __bool__(self) -> bool:
        return bool(self.flat)

    def keep_first(self) -> None:
        """Only "there was one" matters from here on (past the capture limit)."""
        del self.flat[self.first :]

    def take(self) -> tuple[ToolCall, ...]:
        """The calls, read from the end: the list shrinks as the objects are made, so the held
        records and the calls are not in memory twice."""
        flat, self.flat, self.first = self.flat, [], 0
        pop = flat.pop
        out: list[ToolCall] = []
        while flat:
            name = pop()
            n = pop()
            if n == 1:
                v = pop()
                inp = {pop(): v}
            elif n < 0:
                inp = pop()
            else:
                kv = flat[len(flat) - 2 * n :]
                del flat[len(flat) - 2 * n :]
                inp = dict(zip(kv[::2], kv[1::2], strict=True))
            out.append(ToolCall(name, inp))
        out.reverse()
        return tuple(out)


class _Run:
    """RUN: a backtick or tilde run being counted (its characters are text either way)."""

    __slots__ = ("line", "start")

    def __init__(self) -> None:
        self.start = 0  # absolute offset of the run
        self.line = False  # it started at a line start (a fence may open)


class _Fence:
    """FENCE: the open fence and the recognizer of its closing line."""

    __slots__ = ("char", "length", "line")

    def __init__(self) -> None:
        self.char = ""
        self.length = 0
        self.line = FenceLine()


class _Pending:
    """PENDING: an open inline code span of `n` backticks (D1)."""

    __slots__ = (
        "blank",
        "hold",
        "hold_start",
        "indent",
        "line_start",
        "n",
        "run_len",
        "run_start",
        "runs",
    )

    def __init__(self) -> None:
        self.n = 0
        self.hold: list[str] | None = None  # held text, from the first span-dependent thing
        self.hold_start = 0  # absolute offset where the hold began
        self.runs: dict[int, list[int]] = {}  # backtick runs seen while holding: length -> offsets
        self.blank = False  # at a line start that may still be blank
        self.indent = 0  # indent of that line (tab = 4)
        self.line_start = 0  # absolute offset of that line
        self.run_len = 0  # a backtick run being counted
        self.run_start = 0


class _Invoke:
    """The invoke being captured."""

    __slots__ = ("bad", "keys", "live", "multi", "name", "other", "params", "start", "text", "top")

    def __init__(self) -> None:
        self.name = ""
        self.start = 0  # absolute offset of its opening tag
        self.bad = ""  # D59: why it cannot be executed ("": nothing so far)
        self.live = False  # R16: announced (its parameters stream)
        # The input object, built as the parameters close (R6.6: `multi` are the names already
        # arrays), so a long invoke keeps its values once, not also as a list of pairs.
        self.params: dict[str, Any] = {}
        self.multi: set[str] = set()
        self.text: list[str] = []  # body text that is not a parameter (a JSON body, D5)
        self.keys: set[str] = set()  # R16: parameter names so far
        self.top = -1  # R16: the largest array-index name so far
        self.other = False  # R16: a name that is not an array index came


class _Param:
    """The parameter body being captured: segments of text and CDATA."""

    __slots__ = ("name", "segs", "string", "text")

    def __init__(self) -> None:
        self.name = ""
        self.string: str | None = None  # the `string` attribute (R14.2), when honored
        self.segs: list[tuple[str, str]] = []
        self.text: list[str] = []


class _Cdata:
    """A CDATA section inside a parameter body, with the fences inside it (R5.3, D7)."""

    __slots__ = ("after", "after_tail", "depth", "fence", "fence_len", "line", "parts", "start")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.after: list[str] = []  # `]]>` and blanks that may close it (AFTER_CDATA)
        # spaces since the last newline in those blanks; -1: no newline yet (or not only spaces)
        self.after_tail = -1
        self.start = 0  # absolute offset of the content
        self.depth = 1  # nested CDATA openers
        self.fence = ""  # the open fence character inside the CDATA, or ""
        self.fence_len = 0
        self.line = FenceLine()


class _Held:
    """A block held from its opener until it is decided: CAPTURE's DSML block, TOKENS' section,
    JSON's candidate. One path decides each (ScanBase._succeed, _fail, _overflow); a kind says
    only what differs (the hooks below)."""

    __slots__ = ("calls", "mark", "over", "raw", "start", "started", "tail")

    def __init__(self) -> None:
        # The block's source so far is `raw`, then the buffer from `mark` (absolute) to `pos`: it
        # is always the input from `start`, so it is kept in chunk-sized pieces, not per token.
        self.raw = _Text()
        self.mark = 0
        self.tail = ""  # the last characters released past the limit (for the line state)
        self.calls = _Calls()
        self.start = 0  # absolute offset of the block
        self.over = False  # grew past max_capture: released as text as it goes
        self.started = 0  # R16: calls announced in this block (stream_arguments; DSML only)

    def open(self, at: int) -> None:
        self.raw, self.tail, self.calls = _Text(), "", _Calls()
        self.start = self.mark = at
        self.over = False
        self.started = 0

    def take_calls(self) -> tuple[ToolCall, ...]:
        return self.calls.take()

    def reported(self, raw: str) -> tuple[Malformed, ...]:
        """R18.2: its calls that cannot be executed, their text cut from its source `raw`."""
        return ()

    def let_go(self, sc: ScanBase) -> None:
        """Past the limit (_overflow): what it need not keep any more."""

    def resumes(self, sc: ScanBase, text: str) -> None:
        """It was text (_fail): TEXT resumes after `text`."""
        sc._text_resumes(text)


class _Capture(_Held):
    """CAPTURE: the block being parsed."""

    __slots__ = ("bad", "fixed", "format", "level", "wrapped")

    def __init__(self) -> None:
        super().__init__()
        self.level = _L_TOP
        self.wrapped = False  # opened by its wrapper tag (not a repaired bare invoke)
        self.format = ""  # the row of its opening wrapper, or of its closing one when repaired (D58)
        self.fixed: list[str] = []  # the decisions of the repairs applied to it (D58)
        # D59: its malformed invokes so far (start, end, reason, name), None when D4 holds for it
        self.bad: list[tuple[int, int, str, str | None]] | None = None

    def reported(self, raw: str) -> tuple[Malformed, ...]:
        if not self.bad:
            return ()
        at = self.start
        return tuple(Malformed(strings.trim(raw[s - at : e - at]), why, name) for s, e, why, name in self.bad)

    def let_go(self, sc: ScanBase) -> None:
        sc.cd.parts, sc.cd.after = [], []
        sc.inv.text = ["x"] if sc.inv.text else []  # keep "a JSON body is in progress"
        sc.par.text, sc.par.segs = [], []
        # Only "there was one" matters from here on: keep no more (memory stays flat, D43).
        self.calls.keep_first()
        if sc.inv.params:  # (a placeholder: "there was one"; a repeated name would grow a list)
            sc.inv.params, sc.inv.multi = {"": None}, set()


class Stage(IntEnum):
    """Where a TOKENS capture is inside its section."""

    BETWEEN = 0  # between calls: whitespace, a call, or the section end
    HEAD = 1  # after a call begin: the name (or `function`) up to the separator
    BODY = 2  # after the separator: the arguments up to the call end


# As Mode's members in scanner.py: module constants for the hot paths.
_S_BETWEEN, _S_HEAD, _S_BODY = Stage


class _Section(_Held):
    """TOKENS: the token section being parsed (R14.4, R14.5)."""

    __slots__ = ("bad", "body", "head", "head_len", "lead", "loose", "stage")

    def __init__(self) -> None:
        super().__init__()
        self.bad: list[Malformed] = []  # R18.2: the section's calls that cannot be executed
        self.stage = _S_BETWEEN
        self.lead = False  # right after a section opener: a call may begin without its opener (D61)
        self.loose = False  # the call's head began so (D61): it must end on its line
        self.head: list[str] = []
        self.head_len = 0
        self.body: list[str] = []

    def reported(self, raw: str) -> tuple[Malformed, ...]:
        return tuple(self.bad)

    def let_go(self, sc: ScanBase) -> None:
        self.head, self.body = [], []


class _Block:
    """BLOCK: a block of the block engine (R17), held from its opener to its closer."""

    __slots__ = ("closer", "head", "opener", "over", "parts", "row", "rows", "size", "tap", "wait")

    def __init__(self) -> None:
        self.rows: tuple[Format, ...] = ()  # the enabled rows sharing this opener
        self.opener = ""
        self.closer = ""
        self.parts: list[str] = []
        self.size = 0
        self.over = False
        self.wait = False  # R16: the row that reads the body is not known yet
        self.head = ""  # R16: the body's start, from its first non-blank, while `wait`
        self.row: Format | None = None  # R16: the row the tap reads for
        self.tap: BlockTap | None = None  # R16: the body read as it arrives (blocktap.py)


# What the block engine recognizes at an open angle: marker -> the enabled rows it opens
# (a closer maps to no rows: a stray closer, dropped, R18.3).
_BlockMarkers = dict[str, tuple[Format, ...]]


# The second characters of every block-engine marker (`<t`, `<s`, `<m`, `<|`, `</`).
_MARKER_SECONDS: Final = frozenset(
    m[1]
    for row in BLOCK_FORMATS
    for m in (row.opener, *row.also_opens, row.closer, *row.strays)
    if len(m) > 1
)


def block_markers(formats: frozenset[str]) -> _BlockMarkers:
    out: _BlockMarkers = {}
    for row in BLOCK_FORMATS:
        if row.name in formats:
            for opener in (row.opener, *row.also_opens) if row.opener else ():
                out[opener] = (*out.get(opener, ()), row)
            for closer in (row.closer, *row.strays):
                if closer:
                    out.setdefault(closer, ())
    return out


def match_block_marker(markers: _BlockMarkers, s: str, i: int, final: bool) -> tuple[str, int] | str:
    """A block engine marker at `s[i]`: (marker, end), MORE (a marker cut by the end of the
    input so far) or NO."""
    if i + 1 < len(s) and s[i + 1] not in _MARKER_SECONDS:
        return NO  # (every marker is `<` then one of a few characters: most angles end here)
    more = False
    for m in markers:
        if s.startswith(m, i):
            return m, i + len(m)
        if not final and len(s) - i < len(m) and m.startswith(s[i:]):
            more = True
    return MORE if more else NO


class _Json(_Held):
    """JSON: a JSON tool-call candidate in prose (R9). It never goes over the limit: it is text
    where it reaches it (D43)."""

    __slots__ = ("bad", "depth", "fed", "found", "in_str", "ins", "tap")

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.in_str = False
        self.found: tuple[ToolCall, ...] = ()  # its calls, once its text is read as calls
        # R16, D38: under llama_json a Hermes tap reads the candidate as it arrives (jsontaps.py);
        # `over` then means it broke after its announced calls: the rest of it is text as it goes
        self.tap: HermesTap | None = None
        self.fed = 0  # absolute offset the tap has read to
        self.bad: list[int] = []  # absolute offsets of backslashes that escape nothing, not yet fed
        self.ins: list[int] = []  # the tap's offsets of the backslashes added for them (R9.2)

    def take_calls(self) -> tuple[ToolCall, ...]:
        found, self.found = self.found, ()
        return found

    def resumes(self, sc: ScanBase, text: str) -> None:
        sc._resume_text()  # (mid-line, wherever its text ends)


def _row_for(rows: tuple[Format, ...], body: str) -> Format | None:
    """The row of a shared opener that reads this body (formats.py: `body`)."""
    if len(rows) == 1 and not rows[0].body:
        return rows[0]
    kind = body_kind(body)
    for row in rows:
        if row.body == kind:
            return row
    return None


def _named(tag: Tag) -> bool:
    """The tag has a non-blank `name` (D14: without one an invoke or parameter makes its block text)."""
    return tag.name is not None and not strings.is_blank(tag.name)


class ScanBase:
    """State and helpers shared by every layer of the scanner."""

    def __init__(
        self,
        max_capture: int = 8 * 1024 * 1024,
        json_calls: bool = False,
        formats: frozenset[str] = DEFAULT_FORMATS,
        stream_arguments: bool = False,
        typer: Typer | None = None,
    ) -> None:
        self.max_capture = max_capture
        self.typer = typer  # R17.9: raw-text values typed by the declared schemas
        self.stream = stream_arguments  # R16: announce calls, stream their string values
        self.tap: ValueTap | None = None  # the open parameter's value, when streaming
        self._tap_text = 0  # par.text pieces the tap has seen
        self._tap_cdata = 0  # cd.parts pieces the tap has seen
        # Llama 3's calls are JSON in prose (R17.8): R9's reader, its events marked as the row's
        self._json_format = "llama_json" if "llama_json" in formats else ""
        json_calls = json_calls or "llama_json" in formats
        self.json_calls = json_calls
        self.loose = False  # an unclosed CDATA was repaired (D8): the rest is read by its rule
        dsml, native = "dsml" in formats, "function_calls" in formats
        self._keywords = (
            (KEYWORDS_ALL if native else KEYWORDS_SEED) if dsml else (KEYWORDS_NATIVE if native else None)
        )
        self.native = native  # the `string` attribute (R14.2)
        self.tokens = "tokens" in formats
        self.eos = native or self.tokens  # R14.6: the end-of-sentence token is not content
        self._mistral = "mistral" in formats  # `[TOOL_CALLS]` (R17.7)
        rows = [FORMATS[f] for f in formats]
        self._bare = any(r.bare == "[" for r in rows)  # a bare pythonic list (R17.8, D64)
        # The prose skip stops at `[` for a row whose opener or bare body starts with it.
        self._brackets = any(r.opener.startswith("[") or r.bare == "[" for r in rows)
        self.work = 0  # characters exposed to the scanner (see Sieve.work)
        self._memo_at = -1
        self._memo: Tag | str = NO
        self._memo_base = 0
        self.buf = ""
        self.pos = 0
        self.base = 0  # absolute offset of buf[0]
        self.mode = _M_TEXT
        self.saw = False
        self.out: list[Any] = []  # events, and R16's internal events for the Sieve
        self._text: list[str] = []
        self.line = FenceLine()  # TEXT's line state
        # rescan index after a failed inline span: run length -> absolute offsets
        self.idx: dict[int, list[int]] = {}
        self.idx_end = -1
        self.run = _Run()
        self.fence = _Fence()
        self.pend = _Pending()
        self.cap = _Capture()
        self.held: _Held = self.cap  # the block CAPTURE, TOKENS or JSON holds (see _hold)
        self.inv = _Invoke()
        self.par = _Param()
        self.cd = _Cdata()
        self.json = _Json()
        self.sec = _Section()
        self.blk = _Block()
        self.hm = harmony.Harmony()
        self.mi = mistral.Mistral()
        self.py = pylist.PyList()
        self._blocks = block_markers(formats)
        self._bol = -1  # absolute offset of the last line start TEXT saw (after its indent)
        self._prose_stop = -1  # absolute offset where this feed's prose skip stopped (-1: none)
        self._names: dict[str, str] = {}  # see _name

    def _take(self) -> list[Event]:
        self._flush_text()
        out = self.out
        self.out = []
        return out

    # ---- held blocks (CAPTURE, TOKENS, JSON) -----------------------------------------------

    def _hold(self, held: _Held, mode: Mode) -> None:
        """A block opens at `pos`: held from here until it is decided."""
        self.mode = mode
        self.held = held
        held.open(self.base + self.pos)

    def _source(self) -> str:
        """The source of the held block, up to `pos`. Its pieces are let go: the caller ends the
        block or starts its source afresh (a held block is not in memory twice)."""
        held = self.held
        text = held.raw.text(self.buf[held.mark - self.base : self.pos])
        held.raw, held.mark = _Text(), self.base + self.pos
        return text

    def _succeed(self, end: int, fmt: str, fixed: tuple[str, ...]) -> bool:
        """The held block ends at `end` as a block of calls (unless the limit made it text)."""
        held = self.held
        self.pos = end
        if not held.over and not held.started and self.base + end - held.start > self.max_capture:
            self._overflow()  # its closer took it past the limit
        if held.over:
            return self._fail()
        held.started = 0
        self._flush_text()
        raw = self._source()  # (first: the pieces go before the calls are made)
        self.out.append(ToolCallsEvent(held.take_calls(), raw, (), fmt, held.reported(raw), fixed))
        self._resume_text()
        return True

    def _fail(self) -> bool:
        """Not a block: what was held is text; TEXT resumes at the current position."""
        held = self.held
        if held.started:
            return self._break()
        if not held.over and self.base + self.pos - held.start > self.max_capture:
            self._overflow()  # a block that ends past the limit was over it, wherever the chunks ended (D43)
        text = self._source()
        self._emit(text)
        held.resumes(self, held.tail + text)  # (the tail of what was released before)
        return True

    def _overflow(self) -> None:
        """The held block grew past max_capture: what was held is released as text (with a note),
        and the rest of the block is still parsed (so its content is not read as prose) but
        released as text as it goes."""
        held = self.held
        text = self._source()
        if not held.over:
            held.over = True
            self._flush_text()
            self.out.append(TextEvent(text, "capture_limit"))
        else:
            self._emit(text)
        held.tail = (held.tail + text)[-4:]
        held.let_go(self)

    def _text_resumes(self, text: str) -> None:
        """TEXT resumes after `text`: the line state its last line leaves."""
        self.mode = _M_TEXT
        nl = text.rfind("\n")
        tail = text[nl + 1 :] if nl >= 0 else "x"
        self.line.mid_line()
        if len(tail) <= 3 and not tail.strip(" "):
            self.line.indent = len(tail)

    def _break(self) -> bool:
        raise NotImplementedError  # dsml.py

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
                end = r.end + self._memo_base - self.base
                return Tag(r.local, r.closing, r.name, r.self_closing, end, r.string, r.format)
            return r
        if self._keywords is None:
            return NO
        r = match_tag(buf, pos, final, self._keywords)
        if r is not MORE:
            self._memo_at, self._memo, self._memo_base = at, r, self.base
        return r

    def _name(self, name: str | None) -> str:
        """A tool or parameter name, trimmed. The same name in many calls is one string: a block
        of many calls keeps one copy of each name (issue 14, memory per held character)."""
        n = strings.trim(name or "")
        names = self._names
        got = names.get(n)
        if got is None:
            if len(names) >= 1024:
                names.clear()
            names[n] = got = n
        return got

    def _skip(self, buf: str, pos: int, text: bool = False) -> int:
        """Where to resume after no tag started at `pos`: past the open angles, but not past the
        last one when a token marker may start there (`<<｜end▁of▁sentence｜>`), nor, in text
        (`text`), when a region opener may (`<<!-- … -->`)."""
        end = skip_no_tag(buf, pos)
        if end - pos > 1 and (
            text or (self.eos and end < len(buf) and buf[end] in BARS and buf[end - 1] == "<")
        ):
            return end - 1
        return end

    def _resume_text(self) -> None:
        """A block or message ended where TEXT resumes, mid-line."""
        self.mode = _M_TEXT
        self.line.mid_line()
