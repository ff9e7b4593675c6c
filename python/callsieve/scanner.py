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
  the end of the object, which is then decoded once.

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
"""

from __future__ import annotations

import re
from bisect import bisect_right
from enum import IntEnum
from sys import intern
from typing import Any, Final

from . import harmony, mistral, sections, strings, values
from .arguments import CallBegun, CallDone, ParamDone, ValueChars, ValueTap, is_index_key
from .blocks import GRAMMARS, Typer, body_kind
from .events import Event, Malformed, TextEvent, ToolCall, ToolCallsEvent
from .formats import ALL_FORMATS, BLOCK_FORMATS, DEFAULT_FORMATS, FORMATS, Format
from .sections import BARS, match_marker
from .shell import (
    CLOSE_ANGLES,
    INVOKE,
    KEYWORDS_ALL,
    KEYWORDS_NATIVE,
    KEYWORDS_SEED,
    MORE,
    NO,
    OPEN_ANGLES,
    PARAMETER,
    STOP_CHARS,
    WRAPPER,
    Tag,
    cdata_close_at,
    match_cdata_open,
    match_close_start,
    match_tag,
    skip_no_tag,
)

# The format layer (R14.9, R17): the rows of formats.py. The shell and token engines live here;
# the block engine's grammars in blocks.py, its holding mode (BLOCK) below.


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


_SPECIAL: Final = re.compile(r"[\n`<＜〈《]")
_SPECIAL_JSON: Final = re.compile(r"[\n`<＜〈《{]")
# With a format whose opener starts with `[` (Mistral's `[TOOL_CALLS]`), prose stops there too.
_SPECIAL_BR: Final = re.compile(r"[\n`<＜〈《\[]")
_SPECIAL_JSON_BR: Final = re.compile(r"[\n`<＜〈《{\[]")
# R9: a JSON candidate is `{` + a first key that starts a tool call object or a chat
# message (R9.2: text with what it holds), by a bounded lookahead.
_JSON_START: Final = re.compile(r'\{[ \t\r\n]{0,16}"(tool_calls|name|function|type|id|role|content)"')
_JSON_START_PREFIX: Final = re.compile(r'\{[ \t\r\n]{0,16}(?:"[a-z_]{0,10})?\Z')
_JSON_OUT: Final = re.compile(r'["{}\[\]]')
_JSON_IN: Final = re.compile(r'["\\]')
_ANGLE: Final = re.compile(r"[<＜〈《]")
_WS: Final = re.compile("[" + strings.JS_SPACE + "]+")
_RUNS: Final = {"`": re.compile(r"`+"), "~": re.compile(r"~+")}
_BLANKS: Final = re.compile(r"[ \t\r]*")
_CD_SPECIAL: Final = re.compile(r"\]\]|\n {0,3}[`~]|[<＜〈《][!！、]")
_CD_TAIL: Final = re.compile(r"(?:\n {0,3}|\]|[<＜〈《])\Z")
_LOOSE_CLOSE_TAIL: Final = re.compile(r"\]\][>＞〉][ \t\r\n]*$")
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
    has ended (`a < b`); a newline followed by a character that cannot start anything at a
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
    return re.compile("(?:" + plain + "+|" + tag + "|" + blank + "|" + newline + ")*+")


# The characters of a prose tag head (see _prose_skip): ASCII, no stop character (the head ends at
# one, as match_tag's), no `|` or `!` (markers, comments, CDATA drift forms), no control character.
_PLAIN_HEAD_CHARS: Final = "".join(
    ch for ch in "\t" + "".join(map(chr, range(0x20, 0x7F))) if ch not in STOP_CHARS and ch not in "|!"
)
# A prose tag head cut by the end of the input: every recognizer says MORE, except a `<pre ` at a
# line start, which opens a region (D41) and is decided at its blank.
_PLAIN_TAG_SO_FAR: Final = re.compile(
    "<(?![Pp][Rr][Ee][ \\t])/?(?:[A-Za-z0-9][" + re.escape(_PLAIN_HEAD_CHARS) + "]{0,62})?\\Z"
)
_CUT_HEAD = _PLAIN_TAG_SO_FAR  # feed's shortcut (a test turns it off to compare)
_PROSE: Final = _prose_skip(False)
_PROSE_JSON: Final = _prose_skip(True)
_PROSE_BR: Final = _prose_skip(False, True)
_PROSE_JSON_BR: Final = _prose_skip(True, True)
_PRE_OPEN: Final = re.compile(r"<pre(?=[ \t\r\n>])", re.I)
_PRE_PREFIX: Final = re.compile(r"<(?:p(?:r(?:e)?)?)?\Z", re.I)
_COMMENT_PREFIX: Final = re.compile(r"<(?:!(?:-)?)?\Z")


# The modes whose hold the capture limit bounds (_release_past_limit).
_HOLDING: Final = frozenset((_M_CAPTURE, _M_TOKENS, _M_JSON, _M_BLOCK))

# FenceLine.step results
WAIT: Final = 0  # consumed to the end of the buffer; still deciding
PLAIN: Final = 1  # not (or no longer) a fence line start: the rest of the line is the mode's
RUN_END: Final = 2  # a run ended: `char` and `run` say which and how long
TAIL_END: Final = 3  # the blanks after a closing run ended (at a newline: the line closes)


class FenceLine:
    """The fence-line recognizer (D2), written once: at a line start up to 3 spaces of indent,
    then a run of backticks or tildes; after a closing run only blanks to the end of the line.
    It consumes incrementally (a run or a tail of any length, across chunks) and reports what it
    found; the calling mode owns the consumed characters and decides what a run means."""

    __slots__ = ("char", "indent", "run", "tail")

    def __init__(self) -> None:
        self.indent = 0  # spaces seen at this line start; -1: past the line start
        self.char = ""  # the character of the run being counted
        self.run = 0  # length of that run (0: none)
        self.tail = False  # after a closing run: only blanks may follow

    def line_start(self) -> None:
        self.indent, self.run, self.tail = 0, 0, False

    def mid_line(self) -> None:
        self.indent, self.run, self.tail = -1, 0, False

    def start_run(self, buf: str, pos: int) -> int:
        """Count a run that starts at `buf[pos]` (not at a line start); returns its end so far."""
        self.char = buf[pos]
        end = _RUNS[self.char].match(buf, pos).end()  # type: ignore[union-attr]
        self.run = end - pos
        return end

    def step(self, buf: str, pos: int, chars: str) -> tuple[int, int]:
        """Consume line-start characters of `buf[pos:]`; `chars` are the run characters this
        mode accepts. Returns (result, end): `buf[pos:end]` was consumed."""
        n = len(buf)
        if self.tail:
            k = _BLANKS.match(buf, pos).end()  # type: ignore[union-attr]
            if k >= n:
                return WAIT, k
            self.tail = False
            self.indent = -1
            return TAIL_END, k
        if not self.run:
            if self.indent < 0:
                return PLAIN, pos
            while pos < n and buf[pos] == " " and self.indent < 3:
                self.indent += 1
                pos += 1
            if pos >= n:
                return WAIT, pos
            c = buf[pos]
            if c not in chars:
                self.indent = -1
                return PLAIN, pos
            self.char = c
        elif pos >= n:
            return WAIT, pos
        m = _RUNS[self.char].match(buf, pos)
        if m:
            self.run += m.end() - pos
            pos = m.end()
            if pos >= n:
                return WAIT, pos
        self.indent = -1
        return RUN_END, pos

    @staticmethod
    def opens_at(buf: str, pos: int, final: bool) -> bool | None:
        """Does a fence run (3 of the same backtick or tilde) start at `buf[pos]`? None: wait."""
        c = buf[pos]
        k = pos
        n = len(buf)
        while k < n and k < pos + 3 and buf[k] == c:
            k += 1
        if k - pos < 3 and k == n and not final:
            return None
        return k - pos >= 3


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

    __slots__ = ("keys", "multi", "name", "other", "params", "text", "top")

    def __init__(self) -> None:
        self.name = ""
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


class _Capture:
    """CAPTURE: the block being parsed."""

    __slots__ = ("calls", "level", "mark", "over", "raw", "start", "started", "tail", "wrapped")

    def __init__(self) -> None:
        self.level = _L_TOP
        self.wrapped = False  # opened by its wrapper tag (not a repaired bare invoke)
        self.started = 0  # R16: calls announced in this block (stream_arguments)
        # The block's source so far is `raw`, then the buffer from `mark` (absolute) to `pos`: it
        # is always the input from `start`, so it is kept in chunk-sized pieces, not per token.
        self.raw = _Text()
        self.mark = 0
        self.tail = ""  # the last characters released past the limit (for the line state)
        self.calls = _Calls()
        self.start = 0  # absolute offset of the block
        self.over = False  # grew past max_capture: released as text as it goes


class Stage(IntEnum):
    """Where a TOKENS capture is inside its section."""

    BETWEEN = 0  # between calls: whitespace, a call, or the section end
    HEAD = 1  # after a call begin: the name (or `function`) up to the separator
    BODY = 2  # after the separator: the arguments up to the call end


# As Mode's members in scanner.py: module constants for the hot paths.
_S_BETWEEN, _S_HEAD, _S_BODY = Stage


class _Section:
    """TOKENS: the token section being parsed (R14.4, R14.5)."""

    __slots__ = ("bad", "body", "calls", "head", "head_len", "mark", "over", "raw", "stage", "start", "tail")

    def __init__(self) -> None:
        self.bad: list[Malformed] = []  # R18.2: the section's calls that cannot be executed
        self.stage = _S_BETWEEN
        self.raw = _Text()  # as _Capture: `raw`, then the buffer from `mark` to `pos`
        self.mark = 0
        self.tail = ""
        self.calls = _Calls()
        self.head: list[str] = []
        self.head_len = 0
        self.body: list[str] = []
        self.start = 0
        self.over = False


class _Block:
    """BLOCK: a block of the block engine (R17), held from its opener to its closer."""

    __slots__ = ("closer", "opener", "over", "parts", "rows", "size", "start")

    def __init__(self) -> None:
        self.rows: tuple[Format, ...] = ()  # the enabled rows sharing this opener
        self.opener = ""
        self.closer = ""
        self.parts: list[str] = []
        self.size = 0
        self.start = 0
        self.over = False


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


class _Json:
    """JSON: a JSON tool-call candidate in prose (R9)."""

    __slots__ = ("depth", "in_str", "parts", "start")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.depth = 0
        self.in_str = False
        self.start = 0


class Scanner:
    """Incremental scanner. `feed()` returns the events the new text decided; `finish()` the rest."""

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
        self._brackets = "mistral" in formats  # `[TOOL_CALLS]` (R17.7)
        if self._brackets:
            self._special = _SPECIAL_JSON_BR if json_calls else _SPECIAL_BR
            self._prose = _PROSE_JSON_BR if json_calls else _PROSE_BR
        else:
            self._special = _SPECIAL_JSON if json_calls else _SPECIAL
            self._prose = _PROSE_JSON if json_calls else _PROSE
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
        self.inv = _Invoke()
        self.par = _Param()
        self.cd = _Cdata()
        self.json = _Json()
        self.sec = _Section()
        self.blk = _Block()
        self.hm = harmony.Harmony()
        self.mi = mistral.Mistral()
        self._blocks = block_markers(formats)
        self.region = _REGIONS["cdata"]  # REGION: the closer of the open region, and its prefix
        self._bol = -1  # absolute offset of the last line start TEXT saw (after its indent)
        self._prose_stop = -1  # absolute offset where this feed's prose skip stopped (-1: none)
        self._names: dict[str, str] = {}  # see _name

    # ---- driving ------------------------------------------------------------------------

    def feed(self, chunk: str) -> list[Event]:
        pos = self.pos
        mode = self.mode
        if pos:
            if mode is _M_CAPTURE or mode is _M_TOKENS:  # _keep_raw, inlined (once per chunk)
                holder: _Capture | _Section = self.cap if mode is _M_CAPTURE else self.sec
                at = self.base + pos
                if at > holder.mark:
                    holder.raw.add(self.buf[holder.mark - self.base : pos])
                    holder.mark = at
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
        """At the end of a chunk, what a block holds past max_capture is released now, not with
        the next chunk (R8.3, D43): a step may consume a whole chunk before it waits."""
        at = self.base + self.pos
        cap = self.cap
        if self.mode == _M_CAPTURE and not cap.started and (cap.over or at - cap.start > self.max_capture):
            self._overflow()  # (once a call is announced the limit stops applying, D37)
        elif self.mode == _M_TOKENS and (self.sec.over or at - self.sec.start > self.max_capture):
            self._sec_overflow()
        elif self.mode == _M_BLOCK and not self.blk.over and self.blk.size > self.max_capture:
            self._blk_overflow()
        elif self.mode == _M_JSON and at - self.json.start >= self.max_capture:
            self._json_release()
            step = _STEPS
            while step[self.mode](self, False):
                pass

    def finish(self) -> list[Event]:
        self._prose_stop = -1
        step = _STEPS
        while step[self.mode](self, True):
            pass
        return self._take()

    def _take(self) -> list[Event]:
        self._flush_text()
        out = self.out
        self.out = []
        return out

    def _source(self, holder: _Capture | _Section) -> str:
        """The source of the open block or section, up to `pos`. Its pieces are let go: the
        caller ends the holder or starts its source afresh (a held block is not in memory twice)."""
        text = holder.raw.text(self.buf[holder.mark - self.base : self.pos])
        holder.raw, holder.mark = _Text(), self.base + self.pos
        return text

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
                return Tag(r.local, r.closing, r.name, r.self_closing, end, r.string)
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
        if c == "[":  # (only with Mistral: else _prose took it)
            return self._text_bracket(final)
        return self._text_json(final)  # `{`: the only other character _prose stops at

    def _text_bracket(self, final: bool) -> bool:
        buf, pos = self.buf, self.pos
        r = mistral.match_marker(buf, pos, final)
        if r == "more":
            return False
        self.line.indent = -1
        if isinstance(r, tuple):
            self.mode = _M_MISTRAL
            mistral.start(self, r[1])
            return True
        self._emit("[")
        self.pos = pos + 1
        return True

    def _marker(self, buf: str, pos: int, final: bool) -> tuple[str, int] | str:
        """A token marker at `buf[pos]` that some format in use gives a meaning: MORE, NO, or
        (kind, end) for a section opener (tokens) or the end-of-sentence token."""
        if not self.eos or buf[pos] != "<":
            return NO
        r = match_marker(buf, pos, final)
        if isinstance(r, tuple):
            kind = r[0]
            if (kind == sections.SECTION_BEGIN and self.tokens) or kind == sections.EOS:
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
            if kind == sections.EOS:  # R14.6: dropped
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
                    self._start_capture(_L_TOP, r.end)
                    return True
            elif r.local == INVOKE and not r.closing and not r.self_closing and _named(r):
                # R3 / D6: a bare named invoke may be a block missing its opening wrapper
                self._start_capture(_L_INVOKE, r.end)
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
        if p.hold is not None and self.base + pos - p.hold_start > self.max_capture:
            # R8.3: a code span that would hold more than a block may is not a code span. The
            # length is content, so every chunking decides at the same place.
            if p.run_len:  # a backtick run read to the end of the buffer is held text too
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
            elif c == "[" and self._brackets:
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
            m = _RUNS["`"].match(buf, pos)
            assert m is not None
            p.run_len = m.end() - pos
            self.pos = m.end()
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
            if isinstance(mk, tuple):  # a section or an end-of-sentence token: meaning depends
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
        if c == "[" and self._brackets:
            mr = mistral.match_marker(buf, pos, final)
            if mr == "more":
                return False
            if isinstance(mr, tuple):  # a block: its meaning depends on the span
                self._p_hold_here(self._abs(pos))
                self._p_put(buf[pos : mr[1]])
                self.pos = mr[1]
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
        m = _RUNS["`"].match(buf, pos)
        if m:
            p.run_len += m.end() - pos
            self.pos = pos = m.end()
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
        self.mode = _M_JSON
        j = self.json
        j.parts = [m.group(0)]
        j.depth = 1
        j.in_str = False
        j.start = self._abs(pos)
        self.pos = m.end()
        return True

    def _m_json(self, final: bool) -> bool:
        """Read a JSON call candidate. One longer than the limit is text (D43), decided where it
        reaches the limit: no step reads past that point, so every chunking decides there."""
        buf, pos = self.buf, self.pos
        j = self.json
        stop = j.start + self.max_capture - self.base  # where the candidate reaches the limit
        if pos >= stop:
            return self._json_release()
        n = min(len(buf), stop)
        if pos >= n:
            return self._json_release() if final else False
        if j.in_str:
            m = _JSON_IN.search(buf, pos, n)
            if m is None:
                j.parts.append(buf[pos:n])
                self.pos = n
                return True
            k = m.start()
            if buf[k] == "\\":
                if k + 1 >= n:
                    if not final and n < stop:
                        j.parts.append(buf[pos:k])
                        self.pos = k
                        return False
                    j.parts.append(buf[pos:n])
                    self.pos = n
                    return True
                j.parts.append(buf[pos : k + 2])
                self.pos = k + 2
                return True
            j.parts.append(buf[pos : k + 1])
            self.pos = k + 1
            j.in_str = False
            return True
        m = _JSON_OUT.search(buf, pos, n)
        if m is None:
            j.parts.append(buf[pos:n])
            self.pos = n
            return True
        k = m.start()
        j.parts.append(buf[pos : k + 1])
        self.pos = k + 1
        ch = buf[k]
        if ch == '"':
            j.in_str = True
        elif ch == "{" or ch == "[":
            j.depth += 1
        else:
            j.depth -= 1
            if j.depth == 0:
                text = "".join(j.parts)
                self.work += len(text)
                calls = values.json_calls(text)
                if calls is None:
                    return self._json_release()
                self.saw = True
                self._flush_text()
                self.out.append(ToolCallsEvent(tuple(calls), text, (), self._json_format))
                self.mode = _M_TEXT
        return True

    def _json_release(self) -> bool:
        """Not a JSON tool call: the candidate is text (R9.2)."""
        self._emit("".join(self.json.parts))
        self.json.parts = []
        self.mode = _M_TEXT
        self.line.indent = -1
        return True

    # ---- CAPTURE ------------------------------------------------------------------------

    def _start_capture(self, level: Level, end: int) -> None:
        self.mode = _M_CAPTURE
        cap = self.cap
        cap.level = level
        cap.raw, cap.tail = _Text(), ""
        cap.start = cap.mark = self._abs(self.pos)
        cap.over = False
        cap.calls = _Calls()
        cap.wrapped = level == _L_TOP
        cap.started = 0
        self.inv.params, self.inv.multi = {}, set()
        self.inv.text = []
        self.pos = end

    def _consumed(self) -> str:
        return self._source(self.sec if self.mode == _M_TOKENS else self.cap)

    def _fail(self) -> bool:
        """Not a block: what was captured is text; TEXT resumes at the current position."""
        if self.mode == _M_CAPTURE and self.cap.started:
            return self._break()
        holder = self.sec if self.mode == _M_TOKENS else self.cap
        if not holder.over and self.base + self.pos - holder.start > self.max_capture:
            # A block that ends past the limit was over it, wherever the chunks ended (D43).
            if self.mode == _M_TOKENS:
                self._sec_overflow()
            else:
                self._overflow()
        text = self._consumed()
        self._emit(text)
        self._text_resumes(holder.tail + text)  # (the tail of what was released before)
        return True

    def _text_resumes(self, text: str) -> None:
        """TEXT resumes after `text`: the line state its last line leaves."""
        self.mode = _M_TEXT
        nl = text.rfind("\n")
        tail = text[nl + 1 :] if nl >= 0 else "x"
        self.line.mid_line()
        if len(tail) <= 3 and not tail.strip(" "):
            self.line.indent = len(tail)

    def _break(self) -> bool:
        """R16.3: the block broke after a call was announced. The calls so far are kept, the one
        in progress completed with what it has (its open parameter's value as R6 reads the body
        so far); the block ends here and TEXT resumes at the current position."""
        cap, inv, par = self.cap, self.inv, self.par
        self._tap_pull()
        self._tap_done()
        if cap.level != _L_TOP:
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
        raw = self._consumed()
        self._flush_text()
        self.out.append(ToolCallsEvent(cap.calls.take(), raw))
        cap.started = 0
        self._text_resumes(raw)
        return True

    def _succeed(self, end: int) -> bool:
        cap = self.cap
        self.pos = end
        if not cap.over and not cap.started and self.base + end - cap.start > self.max_capture:
            self._overflow()  # the closing tag took the block past the limit
        if cap.over:
            return self._fail()
        cap.started = 0
        self._flush_text()
        raw = self._source(cap)  # (first: the pieces go before the calls are made)
        self.out.append(ToolCallsEvent(cap.calls.take(), raw))
        self.mode = _M_TEXT
        self.line.mid_line()
        return True

    def _overflow(self) -> None:
        """The block grew past max_capture: what was captured is released as text (with a note),
        and the rest of the block is still parsed (so its content is not read as prose) but
        released as text as it goes."""
        cap = self.cap
        text = self._consumed()
        if not cap.over:
            cap.over = True
            self._flush_text()
            self.out.append(TextEvent(text, "capture_limit"))
        else:
            self._emit(text)
        cap.tail = (cap.tail + text)[-4:]
        self.cd.parts, self.cd.after = [], []
        self.inv.text = ["x"] if self.inv.text else []  # keep "a JSON body is in progress"
        self.par.text, self.par.segs = [], []
        # Only "there was one" matters from here on: keep no more (memory stays flat, D43).
        cap.calls.keep_first()
        if self.inv.params:  # (a placeholder: "there was one"; a repeated name would grow a list)
            self.inv.params, self.inv.multi = {"": None}, set()

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
        if r.local == INVOKE and not r.closing and not r.self_closing and _named(r):
            self.pos = r.end
            self.cap.level = _L_INVOKE
            self.inv.name = self._name(r.name)
            self.inv.params, self.inv.multi = {}, set()
            self.inv.text = []
            if self.stream and self.cap.wrapped and not self.cap.over:
                self.cap.started += 1
                self.inv.keys, self.inv.top, self.inv.other = set(), -1, False
                self._flush_text()
                self.out.append(CallBegun(self.inv.name))
            return True
        if r.local == WRAPPER and r.closing and self.cap.calls:
            self.saw = True
            return self._succeed(r.end)
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
                        return self._fail()
                    name = self._name(r.name)
                    if cap.started and self._reorders(name):
                        return self._break()
                    self.pos = r.end
                    cap.level = _L_PARAM
                    self.par.name = name
                    self.par.string = r.string if self.native else None
                    self.par.segs = []
                    self.par.text = []
                    if cap.started:
                        self.tap = ValueTap(name, self.par.string)
                        self._tap_text = self._tap_cdata = 0
                    return True
                if r.local == INVOKE and r.closing:
                    inp = {} if cap.over else self._invoke_input()
                    if inp is None:
                        return self._fail()
                    inv.params, inv.multi = {}, set()  # `inp` is the call's now
                    if not (cap.over and cap.calls):  # past the limit only "there was one" counts
                        cap.calls.add(inv.name, inp)
                    if cap.started:
                        self._flush_text()
                        self.out.append(CallDone(inp))
                    self.pos = r.end
                    cap.level = _L_TOP
                    return True
                return self._fail()
            if not inv.text:
                return self._fail()
            end = self._skip(buf, pos)
            inv.text.append(buf[pos:end])
            self.pos = end
            return True
        if inv.params:
            return self._fail()
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
            self.work += sum(len(x) for _, x in par.segs)
            value = values.param_value(par.name, par.segs, par.string)
            par.segs = []  # the body is decoded: keep only its value
            values.add_param(self.inv.params, self.inv.multi, par.name, value)
            if cap.started:
                self._flush_text()
                self.out.append(ParamDone(par.name, value))
            self.pos = r.end
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
            self._loose_value("".join(cd.parts) + buf[pos:k])
            cd.parts = []
            self.pos = k
            return True
        end = self._skip(buf, k)
        cd.parts.append(buf[pos:end])
        self.pos = end
        return True

    def _loose_value(self, content: str) -> None:
        """The repaired CDATA value (D8): `content` up to its parameter closing tag."""
        t = _LOOSE_CLOSE_TAIL.search(content)
        self.par.segs.append(("cdata", content[: t.start()] if t else content))
        self.cap.level = _L_PARAM

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
        self._loose_value(content[:close])
        cd.parts, cd.after = [], []
        # The block's source now ends where the value does; reading goes on from there.
        end = cd.start + close
        source = self._source(cap) + self.buf[self.pos :]
        cap.raw.add(source[: end - cap.start])
        cap.mark = end
        self.buf = content[close:]
        self.base = end
        self.pos = 0
        return True

    # ---- TOKENS (token sections, R14.4-R14.5) -------------------------------------------

    def _start_section(self, end: int) -> None:
        self.mode = _M_TOKENS
        sec = self.sec
        sec.stage = _S_BETWEEN
        sec.raw, sec.tail = _Text(), ""
        sec.calls = _Calls()
        sec.bad = []
        sec.start = sec.mark = self._abs(self.pos)
        sec.over = False
        self.pos = end

    def _sec_succeed(self, end: int, repaired: bool = False) -> bool:
        """`repaired`: the section ended without its section end (D26)."""
        sec = self.sec
        self.pos = end
        if not sec.over and self.base + end - sec.start > self.max_capture:
            self._sec_overflow()  # the section end took it past the limit
        if sec.over:
            return self._fail()
        self._flush_text()
        raw = self._source(sec)
        fixed = ("D26",) if repaired else ()
        self.out.append(ToolCallsEvent(sec.calls.take(), raw, (), "", tuple(sec.bad), fixed))
        self.mode = _M_TEXT
        self.line.mid_line()
        return True

    def _sec_overflow(self) -> None:
        """As `_overflow`: past max_capture the section is released as text as it goes."""
        sec = self.sec
        text = self._source(sec)
        if not sec.over:
            sec.over = True
            self._flush_text()
            self.out.append(TextEvent(text, "capture_limit"))
        else:
            self._emit(text)
        sec.tail = (sec.tail + text)[-4:]
        sec.head, sec.body = [], []

    def _sec_takes(self, buf: str) -> bool:
        """Fast path of feed: a call's head or body with no marker in sight is only appended
        (what _m_tokens would do, with no limit reached); False: let the steps decide."""
        sec = self.sec
        if sec.over or sec.stage is _S_BETWEEN or self.base + len(buf) - sec.start > self.max_capture:
            return False
        if sec.stage is _S_BODY:
            sec.body.append(buf)
            return True
        if sec.head_len + len(buf) > sections.MAX_HEAD:
            return False
        sec.head.append(buf)
        sec.head_len += len(buf)
        return True

    def _sec_waits(self, buf: str) -> bool:
        """Fast path of feed: the steps stopped at a marker the new chunk still does not
        complete (`<｜tool▁ca` + `ll▁be`); they would wait again with nothing done (the limit
        acts on what they consumed: see _cap_waits)."""
        return match_marker(buf, 0, False) is MORE

    def _m_tokens(self, final: bool) -> bool:
        sec = self.sec
        if sec.over or self.base + self.pos - sec.start > self.max_capture:
            self._sec_overflow()
        buf, pos = self.buf, self.pos
        n = len(buf)
        if pos >= n:
            if not final:
                return False
            # D26: a section whose calls are all complete survives a missing section end.
            if sec.stage == _S_BETWEEN and (sec.calls or sec.bad):
                return self._sec_succeed(pos, True)
            return self._fail()
        if sec.stage == _S_BETWEEN:
            m = _WS.match(buf, pos)
            if m:
                self.pos = m.end()
                return True
            mk = match_marker(buf, pos, final) if buf[pos] == "<" else NO
            if mk is MORE:
                return False
            if not isinstance(mk, tuple):
                return self._fail()  # D3: nothing else stands between calls
            kind, end = mk
            if kind == sections.CALL_BEGIN:
                self.pos = end
                sec.stage = _S_HEAD
                sec.head, sec.head_len, sec.body = [], 0, []
                return True
            if kind == sections.SECTION_BEGIN:  # R18.3: a repeated section opener is tolerated
                self.pos = end
                return True
            if kind == sections.SECTION_END and (sec.calls or sec.bad):
                return self._sec_succeed(end)
            if kind == sections.EOS and (sec.calls or sec.bad):  # the output ended: as at end of input
                return self._sec_succeed(pos, True)
            return self._fail()
        k = buf.find("<", pos)
        if k != pos:
            end = n if k < 0 else k
            piece = buf[pos:end]
            if sec.stage == _S_HEAD:
                room = sections.MAX_HEAD - sec.head_len
                if end - pos > room:
                    # D26: a head longer than MAX_HEAD is no call. Decided at its first character
                    # past the limit, so TEXT resumes there whatever the chunks were.
                    self.pos = pos + room
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
        blk.start = self._abs(self.pos)
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

    def _resume_text(self) -> None:
        """A block or message ended where TEXT resumes, mid-line."""
        self.mode = _M_TEXT
        self.line.mid_line()

    def _blk_take(self, s: str) -> None:
        blk = self.blk
        if blk.over:
            self._emit(s)
            return
        blk.parts.append(s)
        blk.size += len(s)
        if blk.size > self.max_capture:
            self._blk_overflow()

    def _blk_overflow(self) -> None:
        """Past max_capture the block is released as text (with a note) and, to its closer,
        the rest goes out as text as it comes (D43)."""
        blk = self.blk
        self._flush_text()
        self.out.append(TextEvent(blk.opener + "".join(blk.parts), "capture_limit"))
        blk.parts, blk.over = [], True

    def _blk_end(self, closed: bool) -> bool:
        blk = self.blk
        closer = blk.closer if closed else ""
        if blk.over:
            self._emit(closer)
            self._text_resumes("x" + closer)
            return True
        body = "".join(blk.parts)
        blk.parts = []
        self.work += len(body)
        row = _row_for(blk.rows, body)
        got = GRAMMARS[row.grammar](body, self.typer) if row is not None else None
        raw = blk.opener + body + closer
        if (
            row is None
            or got is None
            or (not got.calls and not got.malformed)
            or (not closed and (not row.eof_repair or not got.calls or got.malformed))
        ):
            self._emit(raw)  # R4: not a block of an enabled format; nothing is lost
            self._text_resumes(raw)
            return True
        self.saw = True
        self._flush_text()
        calls = tuple(ToolCall(self._name(c.name), c.input, c.id) for c in got.calls)
        repaired = () if closed else ("D44",)
        self.out.append(ToolCallsEvent(calls, raw, (), row.name, tuple(got.malformed), repaired))
        self.mode = _M_TEXT
        self.line.mid_line()
        return True


def _row_for(rows: tuple[Format, ...], body: str) -> Format | None:
    """The row of a shared opener that reads this body (formats.py: `body`)."""
    if len(rows) == 1 and not rows[0].body:
        return rows[0]
    kind = body_kind(body)
    for row in rows:
        if row.body == kind:
            return row
    return None


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
)


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


def _named(tag: Tag) -> bool:
    """The tag has a non-blank `name` (D14: without one an invoke or parameter makes its block text)."""
    return tag.name is not None and not strings.is_blank(tag.name)


__all__ = ["ALL_FORMATS", "CLOSE_ANGLES", "FORMATS", "FenceLine", "Level", "Mode", "Scanner", "match_region"]
