"""Property tests for incremental arguments (R16), over generated documents:

(a) per announced call, the fragments join to exactly the JSON text of its final input;
(b) no announced call is missing from a final tool_calls event (and none is there unannounced);
(c) final calls and text are chunk-invariant and equal parse(text, stream_arguments=True);
(d) a string value is never held back by more than a bounded number of characters.
"""

from __future__ import annotations

import json
import random
from typing import Any

import docs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import split

from callsieve import Event, Sieve, ToolCallsEvent, coalesce, parse
from callsieve.jsontext import json_text

HOLD_BOUND = 32  # README: a string value lags its input by at most this many characters


def stream(chunks: list[str], **kw: Any) -> list[Event]:
    s = Sieve(stream_arguments=True, **kw)
    return [e for c in chunks for e in s.feed(c)] + s.flush()


def check_announced(events: list[Event]) -> None:
    names: dict[int, str] = {}
    args: dict[int, str] = {}
    for e in events:
        if e.type == "tool_call_start":
            assert e.index == len(names), "indices count announced calls from 0"
            names[e.index] = e.name
            args[e.index] = ""
        elif e.type == "tool_call_arguments":
            assert e.index in names, "fragments follow their call's start"
            args[e.index] += e.delta
    finals = [c for e in events if isinstance(e, ToolCallsEvent) for c in e.calls]
    assert len(finals) == len(names), "(b) every announced call is in a final event, and only those"
    for i, call in enumerate(finals):
        assert names[i] == call.name
        assert args[i] == json_text(call.input), "(a) fragments join to the final arguments text"


def shape(events: list[Event]) -> list[dict[str, Any]]:
    return [e.to_dict() for e in coalesce(events)]


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False), st.data())
def test_fragments_join_and_every_announced_call_is_final(rng: random.Random, data: st.DataObject) -> None:
    text = docs.document(rng)
    whole = stream([text])
    check_announced(whole)
    chunks = data.draw(split(text))
    got = stream(chunks)
    check_announced(got)
    assert shape(got) == shape(whole), f"(c) chunk invariance; chunks={chunks!r}"
    assert shape(stream(list(text))) == shape(whole)
    assert docs.kept("".join(e.source for e in got), text)
    calls = [c for e in whole if isinstance(e, ToolCallsEvent) for c in e.calls]
    assert list(parse(text, stream_arguments=True).calls) == calls, "(c) stream = parse"


@settings(max_examples=100, deadline=None)
@given(st.randoms(use_true_random=False), st.data())
def test_declared_tools_and_reject_policy_keep_the_invariants(
    rng: random.Random, data: st.DataObject
) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": n,
                "parameters": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "n": {"type": "integer"},
                        "q": {"type": "string"},
                    },
                },
            },
        }
        for n in ("read_file", "ls")
    ]
    text = docs.document(rng)
    kw: dict[str, Any] = {"tools": tools, "unknown_tools": data.draw(st.sampled_from(["keep", "reject"]))}
    whole = stream([text], **kw)
    check_announced(whole)
    got = stream(data.draw(split(text)), **kw)
    check_announced(got)
    assert shape(got) == shape(whole)


CODE_LINES = [
    "def f(x):",
    "    return x < 1 and y > 2",
    '    s = "quoted \\"text\\""',
    "    # a comment with ]] and <tags>",
    "        if a &lt; b: pass",
    "",
    "\tindented = True",
    "```python\nx = 1\n```",
    "print('café 😀')",
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(CODE_LINES), min_size=1, max_size=60), st.integers(1, 24), st.booleans())
def test_a_string_value_is_held_back_at_most_a_bounded_number_of_characters(
    lines: list[str], size: int, cdata: bool
) -> None:
    body = "\n".join(["start", *lines, "end"])
    if cdata:
        value, expected = f"<![CDATA[{body}]]>", body
    else:
        value = body.replace("&", "&amp;").replace("<", "&lt;")
        expected = body
    head = '<|DSML|tool_calls><|DSML|invoke name="write_file"><|DSML|parameter name="content">'
    text = head + value + "</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>"
    prefix = '{"content":"'
    s = Sieve(stream_arguments=True)
    sent = ""
    worst = 0
    for i in range(0, len(text), size):
        for e in s.feed(text[i : i + size]):
            if e.type == "tool_call_arguments":
                sent += e.delta
        fed = min(len(text), i + size) - len(head)
        if fed > 0 and i + size < len(head) + len(value):
            got = json.loads('"' + sent[len(prefix) :] + '"') if len(sent) > len(prefix) else ""
            # characters of the value that arrived but were not sent (as written: an entity
            # counts as its written length)
            worst = max(worst, fed - len(value_written_prefix(value, got, cdata)))
    for e in s.flush():
        if e.type == "tool_call_arguments":
            sent += e.delta
    assert json.loads(sent)["content"] == expected
    assert worst <= HOLD_BOUND, f"held back {worst} characters (chunk size {size})"


def value_written_prefix(value: str, got: str, cdata: bool) -> str:
    """The written form of the decoded prefix `got` (CDATA: as is; text: entities re-encoded)."""
    if cdata:
        return "<![CDATA[" + got
    return got.replace("&", "&amp;").replace("<", "&lt;")


def test_the_capture_limit_does_not_release_a_block_whose_call_started() -> None:
    """D37: with a call announced, its arguments stream instead of being held, so the block is not
    released as text when it grows past max_capture_chars."""
    big = "x" * 5000
    head = '<|DSML|tool_calls><|DSML|invoke name="w"><|DSML|parameter name="content">'
    text = head + big + "</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>"
    s = Sieve(stream_arguments=True, max_capture_chars=1000)
    events = [e for i in range(0, len(text), 64) for e in s.feed(text[i : i + 64])] + s.flush()
    check_announced(events)
    calls = [c for e in events if isinstance(e, ToolCallsEvent) for c in e.calls]
    assert [c.input["content"] for c in calls] == [big]
    plain = parse(text, max_capture_chars=1000)
    assert plain.calls == ()  # without the option the block is released (R8.3)


HEAD = '<|DSML|tool_calls><|DSML|invoke name="w"><|DSML|parameter name="v">'
TAIL = "</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>"


@pytest.mark.parametrize(
    "value",
    [
        "1" * 200_000 + "x",  # a number-like opening, ruled out at the very end
        "a" + " " * 200_000 + "b",  # a blank run inside plain text
        "<![CDATA[a" + " " * 200_000 + "b]]>",  # a blank run inside CDATA
        "true" + " " * 200_000 + "x",  # a literal-like opening, then blanks
        " " * 200_000 + "x",  # blank text before the value
        '{"a": "' + "x" * 200_000 + '"}',  # JSON: held to the close, not copied per piece
    ],
    ids=["digits", "text-blanks", "cdata-blanks", "true-blanks", "lead-blanks", "json"],
)
def test_streaming_a_value_is_linear(value: str) -> None:
    """R8.7 with stream_arguments: the value taps look at each piece once (work counter)."""
    text = HEAD + value + TAIL
    s = Sieve(stream_arguments=True)
    chunks = 0
    for i in range(0, len(text), 16):
        s.feed(text[i : i + 16])
        chunks += 1
    s.flush()
    assert s.work <= 6 * len(text) + 64 * chunks, s.work / len(text)
