"""No reference cycles: a sieve, a rewriter or an SSE parser that is dropped (finished or not) is
freed by reference counting at once, not left to the cyclic GC's full passes. In a gateway those
passes stop every stream for tens of milliseconds; before this was tested each Scanner kept a
tuple of its own bound methods, a cycle that held the whole sieve state of every finished stream
until a full collection."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, fixture_files, load
from fixture_support import options, random_chunks

from callsieve import ChatCompletionStreamRewriter, Sieve, parse
from callsieve.sse import SSEEvent, SSEParser, sse_event

FILES = fixture_files()


@pytest.fixture
def no_gc() -> Iterator[None]:
    """The cyclic GC off, and what earlier tests left collected: a later collection finds only
    what the code under test made."""
    gc.collect()
    gc.disable()
    gc.freeze()  # what exists now is not looked at again: each collection below stays quick
    try:
        yield
    finally:
        gc.unfreeze()
        gc.enable()


def cyclic_garbage(work: Callable[[], Any]) -> int:
    """How many objects only the cyclic GC can free after `work` ran and its result was dropped."""
    gc.collect()
    work()
    return gc.collect()


@pytest.mark.usefixtures("no_gc")
@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(FIXTURES)) for p in FILES])
def test_a_sieve_leaves_no_cycle(path: Path) -> None:
    case = load(path)
    chunks = random_chunks(case["input"], 0)

    def finished() -> None:
        sieve = Sieve(**options(case))
        for c in chunks:
            sieve.feed(c)
        sieve.flush()

    def dropped_half_way() -> None:  # a client that leaves mid-stream: the sieve is just dropped
        sieve = Sieve(**options(case))
        for c in chunks[: len(chunks) // 2]:
            sieve.feed(c)

    assert cyclic_garbage(finished) == 0
    assert cyclic_garbage(dropped_half_way) == 0
    assert cyclic_garbage(lambda: parse(case["input"], **options(case))) == 0


BLOCK = (
    'Reading it.\n<|DSML|tool_calls>\n<|DSML|invoke name="read_file">\n'
    '<|DSML|parameter name="path"><![CDATA[src/app.py]]></|DSML|parameter>\n'
    "</|DSML|invoke>\n</|DSML|tool_calls>\nDone."
)


def chunk(content: str) -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}],
    }


@pytest.mark.usefixtures("no_gc")
@pytest.mark.parametrize("stream_arguments", [False, True])
def test_the_gateway_path_leaves_no_cycle(stream_arguments: bool) -> None:
    """What a gateway runs per stream: the SSE parser, the chunk rewriter, the SSE writer."""
    body = b"".join(sse_event(chunk(BLOCK[i : i + 3])) for i in range(0, len(BLOCK), 3)) + b"data: [DONE]\n\n"

    def stream(upto: int) -> None:
        parser = SSEParser()
        rw = ChatCompletionStreamRewriter(stream_arguments=stream_arguments)
        for i in range(0, min(upto, len(body)), 7):
            for ev in parser.feed(body[i : i + 7]):
                if isinstance(ev, SSEEvent) and ev.data != "[DONE]":
                    for c in rw.feed(json.loads(ev.data)):
                        sse_event(c)
        if upto >= len(body):
            parser.finish()
            for c in rw.finish():
                sse_event(c)

    assert cyclic_garbage(lambda: stream(len(body))) == 0
    assert cyclic_garbage(lambda: stream(len(body) // 2)) == 0
