"""The gateway's speed paths (issue 11, W8) give the answers of the general code they stand in
front of, as test_fast_paths.py holds the scanner's.

- `sse_event` writes json.dumps text when a byte test finds no float and no number key (else
  `_UNSURE`, else `json_text`): always the bytes of `json_text`.
- `iter_chat_chunks` decodes an event's object with the JSON scanner alone: the value, or the
  error, of the general decode.
- `ChatCompletionStreamRewriter.feed` decides the common chunk itself: the same chunks, stats
  and rejected names as with the fast path off.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callsieve import chunks as chunks_module
from callsieve import sse
from callsieve.errors import SSEFormatError
from callsieve.jsontext import json_text
from callsieve.openai import ChatCompletionStreamRewriter

KEYS = st.sampled_from(
    ["a", "content", "0", "1", "12", "01", "-1", "1.5", "1e3", "4294967294", "4294967295", "true",
     "null", "x1", "١", "٣.٥", "e", "E", "", '"', "1\"", "a:"]
)  # fmt: skip
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.sampled_from('ab019.eE"\\:-\n١٣\ud800中 '), max_size=12)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            KEYS | st.integers(-3, 20) | st.booleans() | st.none() | st.floats(0, 1e20), inner, max_size=4
        )
    ),
    max_leaves=12,
)


def _reference(chunk: Any) -> bytes:
    return b"data: " + json_text(chunk).encode("utf-8") + b"\n\n"


@settings(max_examples=3000, deadline=None)
@given(st.dictionaries(KEYS | st.integers(-3, 20) | st.floats(0, 1e20), VALUES, max_size=5))
def test_sse_event_writes_what_json_text_writes(chunk: dict[Any, Any]) -> None:
    assert sse.sse_event(chunk) == _reference(chunk)


def test_sse_event_on_chunks_and_numbers() -> None:
    base = {"id": "chatcmpl-9", "object": "chat.completion.chunk", "created": 1700000000, "model": "m"}
    extras: list[dict[Any, Any]] = [
        {}, {"t": 1.0}, {"t": 1e16}, {"t": 1.5e-7}, {"2": 1, "1": 2}, {1: "a", 0: "b"}, {True: 1},
        {None: 2}, {1.5: 3}, {"s": "v1.2 \ud800"}, {"s": "١.٥"}, {"n": -0.0},
    ]  # fmt: skip
    for extra in extras:
        chunk = {**base, **extra, "choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": None}]}
        assert sse.sse_event(chunk) == _reference(chunk), extra


def _general_value(data: str, n: int) -> Any:
    """What iter_chat_chunks gave for an event's data before its fast path."""
    try:
        return sse._chunk_value(data, n)
    except SSEFormatError as exc:
        return ("error", str(exc))


@settings(max_examples=2000, deadline=None)
@given(
    VALUES.filter(lambda v: isinstance(v, dict)), st.sampled_from(["", " ", "\t\r ", "x", "}", ",1", " {}"])
)
def test_chat_chunks_decode_as_the_general_decoder(value: dict[Any, Any], tail: str) -> None:
    text = json_text(value) + tail
    for data in (text, text[: len(text) // 2], text.replace(":", ": "), " " + text, "\t" + text[1:]):
        stream = ("data: " + data.replace("\n", "\\n") + "\n\n").encode("utf-8", "surrogatepass")
        try:
            got: Any = list(sse.iter_chat_chunks([stream]))
        except SSEFormatError as exc:
            got = ("error", str(exc))
        want = _general_value(data.replace("\n", "\\n"), 1)
        if isinstance(got, list):
            assert got == [want]
        else:
            if "UTF-8" in got[1]:
                continue  # a lone surrogate: the line is not UTF-8, before any decoding
            assert got == want


def test_chat_chunks_iterate_alike_by_for_and_by_next() -> None:
    data = (
        b"".join(b"data: " + json.dumps({"i": i}).encode() + b"\n\n" for i in range(5)) + b"data: [DONE]\n\n"
    )
    a = sse.iter_chat_chunks([data])
    got = [next(a), next(a), *list(a)]
    assert got == [{"i": i} for i in range(5)] and a.saw_done
    b = sse.iter_chat_chunks([data])
    assert list(b) == got and b.saw_done


TEXTS = [
    "Hello, no markup at all.",
    '好的。\n<|DSML|tool_calls>\n<|DSML|invoke name="read_file">\n'
    '<|DSML|parameter name="path"><![CDATA[a.py]]></|DSML|parameter>\n'
    "</|DSML|invoke>\n</|DSML|tool_calls>\nDone.",
    '<think>maybe <|DSML|invoke name="x"></|DSML|invoke></think>Now: <|DSML|invoke name="read_file">'
    '<|DSML|parameter name="path">b</|DSML|parameter></|DSML|invoke></|DSML|tool_calls> ok',
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path": "c"}<｜tool▁call▁end｜>',
    '<tool_calls><invoke name="nope"><parameter name="q">1</parameter></invoke></tool_calls> and `code <x>`',
    '<|DSML|tool_calls><|DSML|invoke name="read_file"><|DSML|parameter name="path"><![CDATA[open',
]
TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]


def _stream(rng: random.Random, text: str) -> list[Any]:
    base = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    chunks: list[Any] = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    i = 0
    while i < len(text):
        k = rng.choice([1, 2, 3, 7, 16, 40])
        piece, i = text[i : i + k], i + k
        choice: dict[str, Any] = {"index": 0, "delta": {"content": piece}, "finish_reason": None}
        r = rng.random()
        if r < 0.1:
            del choice["index"]
        elif r < 0.15:
            del choice["finish_reason"]
        elif r < 0.2:
            choice["delta"]["tool_calls"] = None
        elif r < 0.23:
            choice["delta"]["tool_calls"] = [
                {"index": 0, "id": "u", "function": {"name": "up", "arguments": ""}}
            ]
        elif r < 0.26:
            choice["logprobs"] = None
            choice["delta"] = {"reasoning_content": "r", "content": piece}
        elif r < 0.28:
            choice["index"] = 1
        elif r < 0.30:
            choice["index"] = True
        chunk: Any = {**base, "choices": [choice]}
        r = rng.random()
        if r < 0.05:
            chunk["choices"].append({"index": 2, "delta": {"content": piece}, "finish_reason": None})
        elif r < 0.08:
            chunk["usage"] = {"total_tokens": 3}
        elif r < 0.1:
            chunk = {**base, "choices": []}
        chunks.append(chunk)
    if rng.random() < 0.7:
        chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return chunks


def _run(chunks: list[Any], fast: bool, **options: Any) -> Any:
    chunks_module._FAST = fast
    try:
        c = itertools.count()
        rw = ChatCompletionStreamRewriter(id_factory=lambda: f"call_{next(c)}", **options)
        out: list[Any] = []
        for chunk in chunks:
            try:
                out.append(rw.feed(json.loads(json.dumps(chunk))))
            except Exception as exc:  # the same error either way
                out.append((type(exc).__name__, str(exc)))
                break
        out.append(rw.finish())
        return out, rw.stats, rw.rejected_tool_names
    finally:
        chunks_module._FAST = True


@pytest.mark.parametrize(
    "options",
    [{}, {"tools": TOOLS, "unknown_tools": "reject"}, {"stream_arguments": True}, {"reasoning": "off"}],
)
def test_rewriter_fast_path_changes_nothing(options: dict[str, Any]) -> None:
    rng = random.Random(11)
    for _ in range(150):
        chunks = _stream(rng, rng.choice(TEXTS) + rng.choice(["", " tail", "\n" + rng.choice(TEXTS)]))
        assert _run(chunks, True, **options) == _run(chunks, False, **options)


def test_rewriter_fast_path_is_taken() -> None:
    taken = 0
    real = ChatCompletionStreamRewriter._feed

    def counting(self: ChatCompletionStreamRewriter, chunk: Any, fed: Any) -> Any:
        nonlocal taken
        taken -= 1
        return real(self, chunk, fed)

    chunks = _stream(random.Random(1), "plain prose " * 20)
    ChatCompletionStreamRewriter._feed = counting  # type: ignore[method-assign]
    try:
        rw = ChatCompletionStreamRewriter()
        for chunk in chunks:
            taken += 1
            rw.feed(chunk)
    finally:
        ChatCompletionStreamRewriter._feed = real  # type: ignore[method-assign]
    assert taken > len(chunks) // 2


SSE_LINES = [
    b'data: {"a": 1}',
    b"data:{}",
    b"data",
    b"data: x",
    b"data:  two spaces",
    b": comment \xff",
    b":",
    b"event: e",
    b"id: 7",
    b"retry: 10",
    b"field",
    b"dat: no",
    b"data: \xe4\xb8\xad",
    b"data: \xe4\xb8",
    b"\xff",
    b"",
    b"",
    b"",
]


def _events_and_error(p: sse.SSEParser, pieces: list[bytes], data_only: bool) -> tuple[list[str], str | None]:
    out: list[str] = []
    try:
        for piece in pieces:
            if data_only:
                out += p._feed_data(piece)
            else:
                out += [e.data for e in p.feed(piece)]  # type: ignore[union-attr]
        out += p._finish_data() if data_only else [e.data for e in p.finish()]  # type: ignore[union-attr]
    except SSEFormatError as exc:
        return out, str(exc)
    return out, None


def test_sse_data_reader_dispatches_what_the_event_reader_dispatches() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        lines = [rng.choice(SSE_LINES) for _ in range(rng.randint(0, 12))]
        eol = rng.choice([b"\n", b"\r\n", b"\r"])
        data = rng.choice([b"", b"\xef\xbb\xbf"]) + eol.join(lines) + rng.choice([b"", eol, eol + eol])
        cuts = sorted(rng.sample(range(len(data) + 1), min(len(data) + 1, rng.randint(0, 5))))
        pieces = [data[i:j] for i, j in zip([0, *cuts], [*cuts, len(data)], strict=True)]
        want = _events_and_error(sse.SSEParser(), pieces, False)
        assert _events_and_error(sse.SSEParser(), pieces, True) == want, data
