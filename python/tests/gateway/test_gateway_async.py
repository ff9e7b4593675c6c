"""The async stream functions (`aiter_chat_chunks`, `arewrite_chat_completion_stream`,
`awrite_sse`) give what the sync ones give, over async and plain iterables, and the rewriters take
the `openai` SDK's own objects; `SSEParser(comments=True)` reports comments in order."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable
from typing import Any

import pytest
from upstream import CLEAN, REPLY, TOOLS, WANT_CALLS, response, stream_bytes

from callsieve import (
    aiter_chat_chunks,
    arewrite_chat_completion_stream,
    awrite_sse,
    iter_chat_chunks,
    rewrite_chat_completion,
    rewrite_chat_completion_stream,
    write_sse,
)
from callsieve.sse import SSEComment, SSEEvent, SSEFormatError, SSEParser


def ids() -> Any:
    n = iter(range(1, 1000))
    return lambda: f"call_{next(n)}"


async def agen(items: Iterable[Any]) -> AsyncIterator[Any]:
    for x in items:
        await asyncio.sleep(0)
        yield x


def run_async(pieces: list[bytes], plain: bool) -> tuple[bytes, bool]:
    async def main() -> tuple[bytes, bool]:
        chunks = aiter_chat_chunks(pieces if plain else agen(pieces))
        out = [
            b
            async for b in awrite_sse(
                arewrite_chat_completion_stream(chunks, tools=TOOLS, id_factory=ids()), done=False
            )
        ]
        return b"".join(out), chunks.saw_done

    return asyncio.run(main())


@pytest.mark.parametrize("size", [1, 7, 64])
@pytest.mark.parametrize("plain", [False, True])
def test_async_equals_sync(size: int, plain: bool) -> None:
    pieces = list(stream_bytes(REPLY, size))
    chunks = iter_chat_chunks(pieces)
    want = b"".join(
        write_sse(rewrite_chat_completion_stream(chunks, tools=TOOLS, id_factory=ids()), done=False)
    )
    got, saw_done = run_async(pieces, plain)
    assert got == want
    assert saw_done and chunks.saw_done


def test_async_reports_a_cut_stream_and_bad_data() -> None:
    pieces = list(stream_bytes(REPLY, 7))
    data = b"".join(pieces)
    cut = data[: data.index(b"data: [DONE]")]
    _, saw_done = run_async([cut], plain=False)
    assert not saw_done
    with pytest.raises(SSEFormatError):
        run_async([b"data: {nope\n\n"], plain=False)


def test_sdk_objects_are_accepted() -> None:
    openai = pytest.importorskip("openai")
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    completion = ChatCompletion.model_validate(response(REPLY))
    rewritten = rewrite_chat_completion(completion, tools=TOOLS)
    assert type(rewritten) is ChatCompletion  # an SDK object in, one of its type out (issue 40)
    assert rewritten.choices[0].message.tool_calls is not None
    got = rewritten.model_dump(exclude_unset=True, mode="json")
    msg = got["choices"][0]["message"]
    assert msg["content"] == CLEAN
    assert [
        (c["function"]["name"], json.loads(c["function"]["arguments"])) for c in msg["tool_calls"]
    ] == WANT_CALLS
    assert got["choices"][0]["finish_reason"] == "tool_calls"
    assert "service_tier" not in got  # only the fields that were set
    dicts = list(iter_chat_chunks(stream_bytes(REPLY, 5)))
    objects = [ChatCompletionChunk.model_validate(d) for d in dicts]
    want = list(rewrite_chat_completion_stream(dicts, tools=TOOLS, id_factory=ids()))
    # SDK chunks in, SDK chunks out: the same chunks as the dicts give
    got_chunks = list(rewrite_chat_completion_stream(objects, tools=TOOLS, id_factory=ids()))
    assert all(type(c) is ChatCompletionChunk for c in got_chunks)
    assert got_chunks == [ChatCompletionChunk.model_validate(d) for d in want]

    async def main() -> list[Any]:
        return [
            c async for c in arewrite_chat_completion_stream(agen(objects), tools=TOOLS, id_factory=ids())
        ]

    assert asyncio.run(main()) == got_chunks
    assert openai is not None


def test_rewriter_stats() -> None:
    stats: dict[str, int] = {}
    rewrite_chat_completion(response(REPLY), tools=TOOLS, unknown_tools="reject", stats=stats)
    assert stats == {
        "blocks": 1,
        "calls": 2,
        "rejected_calls": 0,
        "capture_limit_releases": 0,
        "repaired_blocks": 0,
        "malformed_calls": 0,
    }


def test_sse_parser_reports_comments_in_order() -> None:
    data = b": one\r\ndata: a\n:two \xff\n\ndata: b\n\n: three"
    for cut in range(1, len(data)):
        p = SSEParser(comments=True)
        items = p.feed(data[:cut]) + p.feed(data[cut:]) + p.finish()
        assert items == [
            SSEComment(b": one"),
            SSEComment(b":two \xff"),
            SSEEvent("a"),
            SSEEvent("b"),
            SSEComment(b": three"),
        ], cut
    assert SSEParser().feed(data) == [SSEEvent("a"), SSEEvent("b")]


@pytest.mark.parametrize(
    "value",
    [
        {"a": 1, "b": [True, None, "x"]},
        {"a": 1.0, "b": 1e21, "c": 1e-7, "d": 0.5},
        {"2": "x", "1": "y", "a": {"10": 1, "b": 2}},
        {"s": "lone \ud800 surrogate", "t": "pair 😀"},
        {"v": "1.5 and 2e3 in text", "w": '"3": not a key'},
        {"x": float("nan")},
        {"n": -0.0, "m": 2**60, "k": -(2**53)},
        {"true": 1, "null": 2, "-1": 3},
        {"nested": [{"deep": [1, 2.5, {"3": 4}]}]},
    ],
)
def test_sse_event_is_json_text(value: dict[str, Any]) -> None:
    from callsieve.jsontext import json_text
    from callsieve.sse import sse_event

    assert sse_event(value) == b"data: " + json_text(value).encode("utf-8") + b"\n\n"
