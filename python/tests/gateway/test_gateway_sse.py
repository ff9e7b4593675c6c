"""SSE reader and writer: arbitrary byte splits, line endings, [DONE], errors, long lines."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callsieve import CallsieveError, InputTypeError, sse
from callsieve.sse import (
    SSEComment,
    SSEEvent,
    SSEFormatError,
    SSEParser,
    iter_chat_chunks,
    iter_sse_events,
    write_sse,
)

STREAM = (
    "\ufeff: comment\r\n"
    "event: ping\r\n"
    "data: 1\r\n"
    "\r\n"
    "id: 7\r"
    "data:no-space\r"
    "data:  two spaces\r"
    "retry: 3000\r"
    "retry: x\r"
    "\r"
    "data\n"
    "\n"
    "unknown: field\n"
    "\n"
    "data: 中文 ✓\n"
    "id: a\x00b\n"
    "\n"
    "data: last without blank line"
).encode()

WANT = [
    SSEEvent("1", "ping", None, None),
    SSEEvent("no-space\n two spaces", "message", "7", 3000),
    SSEEvent("", "message", "7", 3000),
    SSEEvent("中文 ✓", "message", "7", 3000),
    SSEEvent("last without blank line", "message", "7", 3000),
]


def split(data: bytes, cuts: list[int]) -> Iterator[bytes]:
    i = 0
    k = 0
    while i < len(data):
        n = cuts[k % len(cuts)] if cuts else len(data)
        yield data[i : i + n]
        i += n
        k += 1


def test_events_whole() -> None:
    assert list(iter_sse_events([STREAM])) == WANT


def test_empty_data_line_dispatches_an_empty_event_but_no_data_dispatches_nothing() -> None:
    # "data" with no colon is a data field with an empty value (WANT[2]); a blank line alone is nothing
    assert list(iter_sse_events([b"\n\n\n"])) == []
    assert list(iter_sse_events([b"event: x\n\ndata: y\n\n"])) == [SSEEvent("y")]


@settings(max_examples=300)
@given(st.lists(st.integers(1, 9), max_size=8))
def test_events_under_any_byte_split(cuts: list[int]) -> None:
    assert list(iter_sse_events(split(STREAM, cuts))) == WANT


def test_each_byte_alone_and_empty_chunks() -> None:
    pieces = [bytes([b]) for b in STREAM]
    assert list(iter_sse_events(x for p in pieces for x in (b"", p))) == WANT
    assert list(iter_sse_events([bytearray(STREAM)])) == WANT


def test_crlf_split_between_cr_and_lf_is_one_line_end() -> None:
    assert list(iter_sse_events([b"data: a\r", b"\n", b"\r", b"\ndata: b\r\n\r\n"])) == [
        SSEEvent("a"),
        SSEEvent("b"),
    ]


def test_bom_only_at_the_start() -> None:
    assert list(iter_sse_events([b"\xef", b"\xbb", b"\xbf", b"data: x\n\n"])) == [SSEEvent("x")]
    # a BOM later is an ordinary character: "\ufeffdata" is an unknown field, ignored
    assert list(iter_sse_events([b"data: x\n\n\xef\xbb\xbfdata: y\n\n"])) == [SSEEvent("x")]
    with pytest.raises(SSEFormatError):
        list(iter_sse_events([b"\xef", b"\xbb"]))  # a cut BOM at the end is invalid UTF-8


def test_invalid_utf8_raises_with_the_line() -> None:
    with pytest.raises(SSEFormatError, match="line 2"):
        list(iter_sse_events([b"data: ok\n", b"data: \xff\n\n"]))


def test_events_before_an_invalid_line_come_out_first() -> None:
    """Issue 41 F3: the events dispatched before a line that is not UTF-8, in the same read, are
    returned; the next call raises, and so does every call after it (as in Node)."""
    p = SSEParser()
    assert p.feed(b'data: {"a":1}\n\ndata: \xff\n\n') == [SSEEvent('{"a":1}')]
    with pytest.raises(SSEFormatError, match=r"^line 3 is not valid UTF-8 \(byte 6\)$"):
        p.feed(b"data: 2\n\n")
    for _ in range(2):
        with pytest.raises(SSEFormatError, match=r"^line 3 is not valid UTF-8 \(byte 6\)$"):
            p.finish()
    with pytest.raises(SSEFormatError, match=r"^line 1 "):
        SSEParser().feed(b"data: \xff\n\n")  # nothing came before it: raised at once
    c = SSEParser(comments=True)
    assert c.feed(b": hi\n\xff\n") == [SSEComment(b": hi")]
    with pytest.raises(SSEFormatError, match=r"^line 2 "):
        c.finish()
    # the readers, at every cut of one read into two: the event (or chunk), then the error
    stream = b'data: {"a":1}\n\ndata: \xff\n\n'
    for cut in range(len(stream) + 1):
        events: list[SSEEvent] = []
        chunks: list[Any] = []
        with pytest.raises(SSEFormatError, match=r"^line 3 "):
            for e in iter_sse_events([stream[:cut], stream[cut:]]):
                events.append(e)
        with pytest.raises(SSEFormatError, match=r"^line 3 "):
            for v in iter_chat_chunks([stream[:cut], stream[cut:]]):
                chunks.append(v)
        assert (events, chunks) == ([SSEEvent('{"a":1}')], [{"a": 1}]), cut


def test_non_bytes_chunk_raises() -> None:
    with pytest.raises(InputTypeError):
        list(iter_sse_events(["data: x\n\n"]))  # type: ignore[list-item]


def chat(*objs: Any, done: bool = True) -> bytes:
    body = b"".join(b"data: " + json.dumps(o).encode() + b"\n\n" for o in objs)
    return body + (b"data: [DONE]\n\n" if done else b"")


def test_chat_chunks_stop_at_done() -> None:
    data = chat({"a": 1}, [2], "s", 3, None) + b": keep-alive\n\n\n"
    assert list(iter_chat_chunks([data])) == [{"a": 1}, [2], "s", 3, None]
    assert list(iter_chat_chunks([chat({"a": 1}, done=False)])) == [{"a": 1}]
    assert list(iter_chat_chunks([b"data:  [DONE] \n\n"])) == []


def test_data_after_done_raises() -> None:
    got: list[Any] = []
    with pytest.raises(SSEFormatError, match="after data: \\[DONE\\]"):
        for c in iter_chat_chunks([chat({"a": 1}) + b"data: {}\n\n"]):
            got.append(c)
    assert got == [{"a": 1}]


def test_keep_alives_and_comments_carry_no_chunk() -> None:
    stream = b"data: 1\n\ndata: \n\ndata:\ndata:  \n\n: \xff\xfe not UTF-8\n\ndata: [DONE]\n\ndata:\n\n"
    chunks = iter_chat_chunks([stream])
    assert list(chunks) == [1]
    assert chunks.saw_done


@pytest.mark.parametrize("bad", [b"data: {oops\n\n", b"data: NaN\n\n", b"data: [1,\n\n"])
def test_non_json_data_raises(bad: bytes) -> None:
    with pytest.raises(SSEFormatError, match="event 2"):
        list(iter_chat_chunks([chat({"a": 1}, done=False) + bad]))
    assert issubclass(SSEFormatError, CallsieveError)


def test_deeply_nested_data_raises_cleanly() -> None:
    with pytest.raises(SSEFormatError):
        list(iter_chat_chunks([b"data: " + b"[" * 100_000 + b"]" * 100_000 + b"\n\n"]))


class CountingPattern:
    """Stands in for the line-end pattern and counts the bytes it is asked to scan."""

    def __init__(self, real: re.Pattern[bytes]) -> None:
        self.real = real
        self.scanned = 0

    def finditer(self, data: bytes) -> Iterator[re.Match[bytes]]:
        self.scanned += len(data)
        return self.real.finditer(data)


def test_ten_megabyte_data_line_in_small_chunks_is_scanned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    size = 10 * 1024 * 1024
    body = json.dumps({"content": "x" * size}).encode()
    data = b"data: " + body + b"\r\n\r\ndata: [DONE]\r\n\r\n"
    counter = CountingPattern(sse._EOL)
    monkeypatch.setattr(sse, "_EOL", counter)
    split_lf = sse._split_lf

    def counted_split(chunk: bytes) -> list[bytes]:  # the LF-only fast path
        counter.scanned += len(chunk)
        return split_lf(chunk)

    monkeypatch.setattr(sse, "_split_lf", counted_split)
    got = list(iter_chat_chunks(data[i : i + 4096] for i in range(0, len(data), 4096)))
    assert len(got) == 1 and len(got[0]["content"]) == size
    # linear: every byte is scanned for line ends once, however the line is cut (no rescans)
    assert counter.scanned == len(data)
    lf = data.replace(b"\r\n", b"\n")
    counter.scanned = 0
    got = list(iter_chat_chunks(lf[i : i + 4096] for i in range(0, len(lf), 4096)))
    assert len(got) == 1 and len(got[0]["content"]) == size
    assert counter.scanned == len(lf)


def test_writer() -> None:
    out = b"".join(write_sse([{"a": "中\n", "f": 2.0}, [1]]))
    assert out == 'data: {"a":"中\\n","f":2}\n\ndata: [1]\n\ndata: [DONE]\n\n'.encode()
    assert b"".join(write_sse([], done=False)) == b""
    assert list(iter_chat_chunks([out])) == [{"a": "中\n", "f": 2}, [1]]


@given(
    st.lists(
        st.dictionaries(st.text(max_size=5), st.text(max_size=20) | st.integers(), max_size=3),
        max_size=5,
    ),
    st.lists(st.integers(1, 7), max_size=5),
)
def test_write_then_read_round_trips(objs: list[dict[str, Any]], cuts: list[int]) -> None:
    data = b"".join(write_sse(objs))
    assert list(iter_chat_chunks(split(data, cuts))) == objs


def test_json_trim_strips_exactly_json_blanks() -> None:
    from callsieve.strings import json_trim

    assert json_trim("") == ""
    assert json_trim(" \t\r\n") == ""
    assert json_trim("\n [DONE]\r\n") == "[DONE]"
    assert json_trim("\u00a0x\u2028") == "\u00a0x\u2028"
    assert json_trim("\fx\v") == "\fx\v"
    assert json_trim("a \t b") == "a \t b"
