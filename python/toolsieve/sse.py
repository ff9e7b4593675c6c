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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from .errors import InputTypeError, ToolsieveError, check_iterable
from .schema import json_text

_EOL: Final = re.compile(rb"\r\n|\r|\n")
_BOM: Final = b"\xef\xbb\xbf"
DONE: Final = "[DONE]"


class SSEFormatError(ToolsieveError, ValueError):
    """The event stream cannot be read: invalid UTF-8, a `data:` that is not JSON, data after `[DONE]`."""


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched event."""

    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None


def _split_lf(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _lines(byte_chunks: Iterable[bytes | bytearray]) -> Iterator[bytes]:
    """Complete lines (without terminator); the unfinished last line is yielded at the end."""
    parts: list[bytes] = []
    skip_lf = False
    at_start = True
    for chunk in check_iterable(byte_chunks, "byte_chunks"):
        if not isinstance(chunk, bytes | bytearray):
            raise InputTypeError(f"SSE input must be bytes chunks, got {type(chunk).__name__}")
        data = bytes(chunk)
        if not data:
            continue
        if skip_lf:
            skip_lf = False
            if data[:1] == b"\n":
                data = data[1:]
                if not data:
                    continue
        if at_start:
            head = b"".join([*parts, data])
            parts = []
            if len(head) < len(_BOM) and _BOM.startswith(head):
                parts.append(head)  # maybe a BOM cut in pieces: decided with the next bytes
                continue
            at_start = False
            data = head[len(_BOM) :] if head.startswith(_BOM) else head
            if not data:
                continue
        if b"\r" not in data:  # the common case, split at C speed
            pieces = _split_lf(data)
            if len(pieces) > 1:
                first = pieces[0]
                if parts:
                    parts.append(first)
                    first = b"".join(parts)
                    parts = []
                yield first
                yield from pieces[1:-1]
            if pieces[-1]:
                parts.append(pieces[-1])
            continue
        start = 0
        for m in _EOL.finditer(data):
            if parts:
                parts.append(data[start : m.start()])
                line = b"".join(parts)
                parts = []
            else:
                line = data[start : m.start()]
            yield line
            start = m.end()
        if start < len(data):
            parts.append(data[start:])
        elif data[-1:] == b"\r":
            skip_lf = True
    if parts:
        line = b"".join(parts)
        if at_start and line.startswith(_BOM):
            line = line[len(_BOM) :]
        if line:
            yield line


def iter_sse_events(byte_chunks: Iterable[bytes | bytearray]) -> Iterator[SSEEvent]:
    """The events of an event stream given as bytes chunks cut anywhere (see the module docstring)."""
    data: list[str] = []
    event = ""
    last_id: str | None = None
    retry: int | None = None
    lineno = 0
    for raw in _lines(byte_chunks):
        lineno += 1
        if raw[:1] == b":":
            continue  # a comment: ignored, whatever bytes it holds
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SSEFormatError(f"line {lineno} is not valid UTF-8 (byte {exc.start})") from None
        if not line:
            if data:
                yield SSEEvent("\n".join(data), event or "message", last_id, retry)
            data = []
            event = ""
            continue
        if line[0] == ":":
            continue
        field, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value
        elif field == "id" and "\0" not in value:
            last_id = value
        elif field == "retry" and value and value.isascii() and value.isdigit():
            retry = int(value)
    if data:
        yield SSEEvent("\n".join(data), event or "message", last_id, retry)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class ChatChunks(Iterator[Any]):
    """What `iter_chat_chunks` returns: an iterator of the chunks whose `saw_done` tells whether
    the stream said `data: [DONE]` (a stream that ends without it may have been cut off; a
    gateway should then not write a `[DONE]` of its own)."""

    def __init__(self, byte_chunks: Iterable[bytes | bytearray]) -> None:
        self.saw_done = False
        self._it = self._values(byte_chunks)

    def __next__(self) -> Any:
        return next(self._it)

    def _values(self, byte_chunks: Iterable[bytes | bytearray]) -> Iterator[Any]:
        n = 0
        for ev in iter_sse_events(byte_chunks):
            n += 1
            if not ev.data.strip(" \t\r\n"):
                continue  # an empty data: event (a keep-alive) carries no chunk
            if self.saw_done:
                raise SSEFormatError(f"event {n} comes after data: [DONE]")
            if ev.data.strip(" \t\r\n") == DONE:
                self.saw_done = True
                continue
            yield _chunk_value(ev.data, n)


def iter_chat_chunks(byte_chunks: Iterable[bytes | bytearray]) -> ChatChunks:
    """The JSON values of the `data:` events of an OpenAI stream, up to `data: [DONE]`."""
    return ChatChunks(byte_chunks)


def _chunk_value(data: str, n: int) -> Any:
    try:
        return json.loads(data, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise SSEFormatError(f"event {n}: data is not JSON ({exc.msg} at char {exc.pos})") from None
    except (ValueError, RecursionError) as exc:
        raise SSEFormatError(f"event {n}: data is not JSON ({exc})") from None


def write_sse(chunks: Iterable[Any], *, done: bool = True) -> Iterator[bytes]:
    """Each chunk as `data: <JSON>\\n\\n`, then `data: [DONE]\\n\\n` (unless `done=False`)."""
    if not isinstance(done, bool):
        raise InputTypeError(f"done must be a bool, got {type(done).__name__}")
    for chunk in check_iterable(chunks, "chunks"):
        yield b"data: " + json_text(chunk).encode("utf-8") + b"\n\n"
    if done:
        yield b"data: [DONE]\n\n"


__all__ = [
    "DONE",
    "ChatChunks",
    "SSEEvent",
    "SSEFormatError",
    "iter_chat_chunks",
    "iter_sse_events",
    "write_sse",
]
