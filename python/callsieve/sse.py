"""Server-sent events: a reader for byte streams cut anywhere, and a writer for chat chunks.

Reader (`iter_sse_events`), per the WHATWG event-stream format:

- Lines end with CRLF, LF or CR, also when the chunk boundary falls between CR and LF. There is
  no line-length limit: the bytes of an unfinished line are kept as a list of parts and joined
  once, when its end arrives, so a 10 MB `data:` line costs linear time.
- A leading UTF-8 BOM is skipped. Lines are decoded as UTF-8, strictly: invalid UTF-8 raises
  SSEFormatError (the spec would substitute U+FFFD; a gateway should not alter payload bytes).
- `:` lines are comments and ignored (whatever bytes they hold). `field: value` (one space after
  the colon removed; a line without a colon is a field with an empty value): `data` appends the
  value and a newline to the data buffer, `event` sets the event type, `id` the last event id
  (unless it contains NUL), `retry` the reconnection time (ASCII digits only); other fields are
  ignored.
- A blank line dispatches the event: when the data buffer is empty nothing is dispatched (and the
  event type is reset); otherwise its last newline is removed and `SSEEvent(data, event, id,
  retry)` is yielded with `event` defaulting to `"message"`.
- At the end of the input, an event with data that was not yet dispatched (no blank line after
  it) is dispatched too, rather than discarded as the spec says: a captured stream that lost its
  last blank line must not lose its last chunk.

Chat chunks (`iter_chat_chunks`): the `data` of each event parsed as JSON, any value; an event
whose data is empty or only whitespace (a keep-alive) carries no chunk. `[DONE]`
(exactly, after trimming ASCII whitespace) ends the chunks; the rest of the input is still read
to check that no data follows: comments and blank lines are fine, another event with data raises
SSEFormatError (a stream that goes on after `[DONE]` is not dropped silently). A `data:` that is
not JSON (as JSON.parse reads it: no NaN or Infinity) raises SSEFormatError, with the event
number. Integers keep all their digits. Event types, ids and retry are not part of
chat chunks (`iter_sse_events` has them).

Writer (`write_sse`): `data: <JSON>\\n\\n` per chunk (compact JSON as JavaScript writes it, UTF-8,
never containing a newline), then `data: [DONE]\\n\\n`.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from .errors import InputTypeError, SSEFormatError, check_iterable
from .jsontext import json_text
from .strings import json_trim

_EOL: Final = re.compile(rb"\r\n|\r|\n")
_BOM: Final = b"\xef\xbb\xbf"
DONE: Final = "[DONE]"
T = TypeVar("T")


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched event."""

    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None

    def __init__(
        self, data: str, event: str = "message", id: str | None = None, retry: int | None = None
    ) -> None:
        # One of these per event: filling the dict directly is twice as fast as the generated
        # frozen __init__ (object.__setattr__ per field).
        d = self.__dict__
        d["data"], d["event"], d["id"], d["retry"] = data, event, id, retry


def _split_lf(data: bytes) -> list[bytes]:
    return data.split(b"\n")


class _Lines:
    """Incremental line splitter: `feed(bytes)` returns the complete lines (without terminator),
    `finish()` the unfinished last line."""

    __slots__ = ("_at_start", "_parts", "_skip_lf")

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._skip_lf = False
        self._at_start = True

    def feed(self, chunk: bytes | bytearray) -> list[bytes]:
        if not isinstance(chunk, bytes | bytearray):
            raise InputTypeError(f"SSE input must be bytes chunks, got {type(chunk).__name__}")
        data = bytes(chunk)
        out: list[bytes] = []
        if not data:
            return out
        parts = self._parts
        if self._skip_lf:
            self._skip_lf = False
            if data[:1] == b"\n":
                data = data[1:]
                if not data:
                    return out
        if self._at_start:
            head = b"".join([*parts, data])
            parts.clear()
            if len(head) < len(_BOM) and _BOM.startswith(head):
                parts.append(head)  # maybe a BOM cut in pieces: decided with the next bytes
                return out
            self._at_start = False
            data = head[len(_BOM) :] if head.startswith(_BOM) else head
            if not data:
                return out
        if b"\r" not in data:  # the common case, split at C speed
            pieces = _split_lf(data)
            if len(pieces) > 1:
                first = pieces[0]
                if parts:
                    parts.append(first)
                    first = b"".join(parts)
                    parts.clear()
                out.append(first)
                out += pieces[1:-1]
            if pieces[-1]:
                parts.append(pieces[-1])
            return out
        start = 0
        for m in _EOL.finditer(data):
            if parts:
                parts.append(data[start : m.start()])
                out.append(b"".join(parts))
                parts.clear()
            else:
                out.append(data[start : m.start()])
            start = m.end()
        if start < len(data):
            parts.append(data[start:])
        elif data[-1:] == b"\r":
            self._skip_lf = True
        return out

    def finish(self) -> list[bytes]:
        if not self._parts:
            return []
        line = b"".join(self._parts)
        self._parts = []
        if self._at_start and line.startswith(_BOM):
            line = line[len(_BOM) :]
        return [line] if line else []


@dataclass(frozen=True)
class SSEComment:
    """A comment line (`SSEParser(comments=True)` only): `raw` is the whole line, from its `:`,
    without the line end, as bytes (a comment may hold any bytes)."""

    raw: bytes


class SSEParser:
    """The incremental reader under `iter_sse_events`: `feed(bytes)` returns what the complete
    lines dispatched, `finish()` the rest (an unfinished last line, an event without its blank
    line). With `comments=True`, comment lines come out too, as `SSEComment`, in order (a gateway
    forwards them: keep-alives).

    A line that is not UTF-8 is an SSEFormatError, but the events dispatched before it in the
    same call come out first: that call returns them, and the next call raises (a call with
    nothing before the line raises at once). From then on every call raises it again: the rest
    of the stream is not read."""

    __slots__ = (
        "_comments",
        "_data",
        "_error",
        "_event",
        "_finished",
        "_last_id",
        "_lineno",
        "_lines",
        "_retry",
    )

    def __init__(self, *, comments: bool = False) -> None:
        self._lines = _Lines()
        self._comments = comments
        self._data: list[str] = []
        self._event = ""
        self._last_id: str | None = None
        self._retry: int | None = None
        self._lineno = 0
        self._finished = False
        self._error: str | None = None  # a line that is not UTF-8: raised by every later call

    def feed(self, chunk: bytes | bytearray) -> list[SSEEvent | SSEComment]:
        if self._error is not None:
            raise SSEFormatError(self._error)
        if self._finished:
            raise SSEFormatError("feed() after finish()")
        return self._handle(self._lines.feed(chunk))

    def finish(self) -> list[SSEEvent | SSEComment]:
        if self._error is not None:
            raise SSEFormatError(self._error)
        if self._finished:
            return []
        self._finished = True
        out = self._handle(self._lines.finish())
        if self._data:
            out.append(SSEEvent("\n".join(self._data), self._event or "message", self._last_id, self._retry))
            self._data = []
        return out

    def _feed_data(self, chunk: bytes | bytearray) -> list[str]:
        """`feed` for chat chunks: the data of each event dispatched (what `SSEEvent.data`
        would be); event types, ids and retry times play no part there, comments neither."""
        if self._error is not None:
            raise SSEFormatError(self._error)
        if self._finished:
            raise SSEFormatError("feed() after finish()")
        return self._handle_data(self._lines.feed(chunk))

    def _finish_data(self) -> list[str]:
        """`finish` for chat chunks, as `_feed_data`."""
        if self._error is not None:
            raise SSEFormatError(self._error)
        if self._finished:
            return []
        self._finished = True
        out = self._handle_data(self._lines.finish())
        if self._data:
            out.append("\n".join(self._data))
            self._data = []
        return out

    def _handle_data(self, lines: list[bytes]) -> list[str]:
        """_handle for _feed_data: the same lines dispatch the same data, and the same lines are
        not UTF-8 (the parser's event type, id and retry are left as they are)."""
        out: list[str] = []
        data = self._data
        n = self._lineno
        for raw in lines:
            n += 1
            if not raw:  # a blank line dispatches the event
                if data:
                    out.append(data[0] if len(data) == 1 else "\n".join(data))
                    data.clear()
                continue
            if raw[:5] == b"data:":
                payload = raw[6:] if raw[5:6] == b" " else raw[5:]
                try:
                    data.append(payload.decode("utf-8"))
                except UnicodeDecodeError:
                    self._lineno = n
                    self._bad_utf8(raw, bool(out))
                    return out
                continue
            if raw[:1] == b":":
                continue  # a comment
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                self._lineno = n
                self._bad_utf8(raw, bool(out))
                return out
            field, colon, value = line.partition(":")
            if field == "data":
                data.append(value[1:] if colon and value[:1] == " " else value)
        self._lineno = n
        return out

    def _bad_utf8(self, raw: bytes, later: bool) -> None:
        """Line `self._lineno` (`raw`) is not UTF-8: the SSEFormatError is raised now, or by the
        next call when `later` (events came before the line in this call: they come out first)."""
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self._error = f"line {self._lineno} is not valid UTF-8 (byte {exc.start})"
        else:  # pragma: no cover
            raise AssertionError("unreachable")
        if not later:
            raise SSEFormatError(self._error)

    def _handle(self, lines: list[bytes]) -> list[SSEEvent | SSEComment]:
        out: list[SSEEvent | SSEComment] = []
        for raw in lines:
            self._lineno += 1
            if not raw:  # a blank line dispatches the event
                data = self._data
                if data:
                    text = data[0] if len(data) == 1 else "\n".join(data)
                    out.append(SSEEvent(text, self._event or "message", self._last_id, self._retry))
                    self._data = []
                self._event = ""
                continue
            if raw[:1] == b":":
                if self._comments:
                    out.append(SSEComment(raw))
                continue  # a comment: ignored, whatever bytes it holds
            if raw[:5] == b"data:":  # the common line, without the general field parsing
                payload = raw[6:] if raw[5:6] == b" " else raw[5:]
                try:
                    self._data.append(payload.decode("utf-8"))
                except UnicodeDecodeError:
                    self._bad_utf8(raw, bool(out))
                    return out
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                self._bad_utf8(raw, bool(out))
                return out
            field, colon, value = line.partition(":")
            if colon and value[:1] == " ":
                value = value[1:]
            if field == "data":
                self._data.append(value)
            elif field == "event":
                self._event = value
            elif field == "id" and "\0" not in value:
                self._last_id = value
            elif field == "retry" and value and value.isascii() and value.isdigit():
                self._retry = int(value)
        return out


def iter_sse_events(byte_chunks: Iterable[bytes | bytearray]) -> Iterator[SSEEvent]:
    """The events of an event stream given as bytes chunks cut anywhere (see the module docstring)."""
    p = SSEParser()
    for chunk in check_iterable(byte_chunks, "byte_chunks"):
        yield from p.feed(chunk)  # type: ignore[misc]
    yield from p.finish()  # type: ignore[misc]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class _Done:
    """The `[DONE]` bookkeeping of a chat-chunk stream, shared by the sync and async readers."""

    __slots__ = ("n", "saw_done")

    def __init__(self) -> None:
        self.saw_done = False
        self.n = 0

    def value(self, data: str) -> tuple[bool, Any]:
        """(True, chunk) for an event (its data) that carries a chunk, (False, None) for one that
        does not."""
        self.n += 1
        if data[:1] != "{" or self.saw_done:  # not the common case: a JSON object, before [DONE]
            trimmed = json_trim(data)
            if not trimmed:
                return False, None  # an empty data: event (a keep-alive) carries no chunk
            if self.saw_done:
                raise SSEFormatError(f"event {self.n} comes after data: [DONE]")
            if trimmed == DONE:
                self.saw_done = True
                return False, None
            return True, _chunk_value(data, self.n)
        try:  # a JSON object that ends the data: the scanner alone, without decode()'s wrapping
            v, end = _SCAN(data, 0)
        except (StopIteration, ValueError, RecursionError):
            pass  # (json.decoder raises StopIteration for "not a value here")
        else:
            if end == len(data):
                return True, v
        return True, _chunk_value(data, self.n)  # whitespace after it, errors: decode() decides


class ChatChunks(Iterator[Any]):
    """What `iter_chat_chunks` returns: an iterator of the chunks whose `saw_done` tells whether
    the stream said `data: [DONE]` (a stream that ends without it may have been cut off; a
    gateway should then not write a `[DONE]` of its own)."""

    def __init__(self, byte_chunks: Iterable[bytes | bytearray]) -> None:
        self._done = _Done()
        self._it = self._values(byte_chunks)

    @property
    def saw_done(self) -> bool:
        return self._done.saw_done

    def __iter__(self) -> Iterator[Any]:
        # The generator itself (it shares this object's state): a `for` over the chunks then
        # costs no __next__ call of ours per chunk.
        return self._it

    def __next__(self) -> Any:
        return next(self._it)

    def _values(self, byte_chunks: Iterable[bytes | bytearray]) -> Iterator[Any]:
        # iter_sse_events, inlined: one generator per chunk less
        p = SSEParser()
        value = self._done.value
        for chunk in check_iterable(byte_chunks, "byte_chunks"):
            for data in p._feed_data(chunk):
                ok, v = value(data)
                if ok:
                    yield v
        for data in p._finish_data():
            ok, v = value(data)
            if ok:
                yield v


class AsyncChatChunks(AsyncIterator[Any]):
    """What `aiter_chat_chunks` returns: `async for` over the chunks, with `saw_done` as in
    `ChatChunks`."""

    def __init__(self, byte_chunks: AsyncIterable[bytes | bytearray] | Iterable[bytes | bytearray]) -> None:
        self._done = _Done()
        self._it = self._values(byte_chunks)

    @property
    def saw_done(self) -> bool:
        return self._done.saw_done

    def __aiter__(self) -> AsyncChatChunks:
        return self

    async def __anext__(self) -> Any:
        return await self._it.__anext__()

    async def aclose(self) -> None:
        await self._it.aclose()

    async def _values(
        self, byte_chunks: AsyncIterable[bytes | bytearray] | Iterable[bytes | bytearray]
    ) -> AsyncGenerator[Any, None]:
        p = SSEParser()
        async for chunk in aiter_any(byte_chunks, "byte_chunks"):
            for data in p._feed_data(chunk):
                ok, v = self._done.value(data)
                if ok:
                    yield v
        for data in p._finish_data():
            ok, v = self._done.value(data)
            if ok:
                yield v


async def aiter_any(items: AsyncIterable[T] | Iterable[T], what: str) -> AsyncGenerator[T, None]:
    """`async for` over an async iterable, or over a plain one."""
    if hasattr(items, "__aiter__"):
        async for x in items:
            yield x
        return
    for x in check_iterable(items, what):
        yield x


def iter_chat_chunks(byte_chunks: Iterable[bytes | bytearray]) -> ChatChunks:
    """The JSON values of the `data:` events of an OpenAI stream, up to `data: [DONE]`."""
    return ChatChunks(byte_chunks)


def aiter_chat_chunks(
    byte_chunks: AsyncIterable[bytes | bytearray] | Iterable[bytes | bytearray],
) -> AsyncChatChunks:
    """`iter_chat_chunks` for `async for`: the byte chunks may come from an async iterable (an
    httpx / aiohttp response body) or a plain one."""
    return AsyncChatChunks(byte_chunks)


_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant)
_SCAN: Final[Any] = _DECODER.scan_once  # type: ignore[attr-defined]  # (value, end) at an index


def _chunk_value(data: str, n: int) -> Any:
    try:
        return _DECODER.decode(data)
    except json.JSONDecodeError as exc:
        raise SSEFormatError(f"event {n}: data is not JSON ({exc.msg} at char {exc.pos})") from None
    except (ValueError, RecursionError) as exc:
        raise SSEFormatError(f"event {n}: data is not JSON ({exc})") from None


_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
# JSONEncoder.encode builds its C encoder anew on every call; this one is built once. No cycle
# check (markers None: a shared dict would not be thread-safe): a cycle ends in RecursionError,
# and then json_text decides (it raises InputTypeError for a cycle).
_MAKE_ENCODER: Final[Any] = getattr(json.encoder, "c_make_encoder", None)  # (not in typeshed)
_C_ENCODER: Final[Any] = (
    None
    if _MAKE_ENCODER is None
    else _MAKE_ENCODER(
        None, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",", False, False, False
    )
)


# Text in which json.dumps may differ from JSON.stringify: a float (a digit then `.`, `e` or
# `E`: every float json.dumps writes has one), or a key that is a number or a literal (integer
# keys, array-index keys, which JavaScript orders first). Strings only ever make this match more
# often than needed; then `json_text` decides.
_UNSURE: Final = re.compile(r'\d[.eE]|"(?:-?\d[^"]*|true|false|null)":')
# The cheap test in front of _UNSURE: with every ASCII digit made `0`, and `.`, `e` and `E` made
# `.`, text without `0.` has no float (every float json.dumps writes has a digit then `.`, `e` or
# `E`), and text without `0":` has no array-index key (digits, then the key's closing quote and
# its colon): the only things in which json.dumps and JSON.stringify differ (lone surrogates
# aside). Literal keys and other keys that start with a digit, which _UNSURE also takes, are
# written alike by both.
_DIGITS_DOTS: Final = bytes.maketrans(b"0123456789.eE", b"0000000000...")


def sse_event(chunk: Any) -> bytes:
    """One chunk as `data: <JSON>\\n\\n` bytes: JSON exactly as `json_text` (JavaScript's
    JSON.stringify) writes it, at json.dumps speed when no float or numeric key can make them
    differ."""
    if type(chunk) is dict and _C_ENCODER is not None:
        try:
            text = "".join(_C_ENCODER(chunk, 0))
            data = text.encode("utf-8")
        except (TypeError, ValueError, RecursionError, UnicodeEncodeError):
            pass  # (a lone surrogate: json_text escapes it)
        else:
            t = data.translate(_DIGITS_DOTS)
            if (b"0." not in t and b'0":' not in t) or _UNSURE.search(text) is None:
                return b"data: " + data + b"\n\n"
    return b"data: " + json_text(chunk).encode("utf-8") + b"\n\n"


def write_sse(chunks: Iterable[Any], *, done: bool = True) -> Iterator[bytes]:
    """Each chunk as `data: <JSON>\\n\\n`, then `data: [DONE]\\n\\n` (unless `done=False`)."""
    if not isinstance(done, bool):
        raise InputTypeError(f"done must be a bool, got {type(done).__name__}")
    for chunk in check_iterable(chunks, "chunks"):
        yield sse_event(chunk)
    if done:
        yield b"data: [DONE]\n\n"


async def awrite_sse(
    chunks: AsyncIterable[Any] | Iterable[Any], *, done: bool = True
) -> AsyncIterator[bytes]:
    """`write_sse` for `async for`: chunks from an async iterable (or a plain one)."""
    if not isinstance(done, bool):
        raise InputTypeError(f"done must be a bool, got {type(done).__name__}")
    async for chunk in aiter_any(chunks, "chunks"):
        yield sse_event(chunk)
    if done:
        yield b"data: [DONE]\n\n"


__all__ = [
    "DONE",
    "AsyncChatChunks",
    "ChatChunks",
    "SSEComment",
    "SSEEvent",
    "SSEFormatError",
    "SSEParser",
    "aiter_chat_chunks",
    "awrite_sse",
    "iter_chat_chunks",
    "iter_sse_events",
    "sse_event",
    "write_sse",
]
