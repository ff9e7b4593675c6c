"""The public API: types, misuse errors, result shapes."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import Any

import pytest

import callsieve
from callsieve import (
    CallsieveError,
    ConcurrentUseError,
    Event,
    InputTypeError,
    OptionsError,
    ParseResult,
    Sieve,
    SieveClosedError,
    TextEvent,
    ToolCall,
    ToolCallsEvent,
    parse,
)

BLOCK = (
    '<|DSML|tool_calls><|DSML|invoke name="ls"><|DSML|parameter name="p">1</|DSML|parameter>'
    "</|DSML|invoke></|DSML|tool_calls>"
)


def test_parse_result_shape() -> None:
    r = parse("hi " + BLOCK)
    assert r == ParseResult((ToolCall("ls", {"p": 1}),), True, text="hi ")
    assert r.to_dict() == {
        "calls": [{"name": "ls", "input": {"p": 1}}],
        "sawToolCallSyntax": True,
        "rejectedByPolicy": False,
        "rejectedToolNames": [],
        "text": "hi ",
    }


def test_parse_returns_the_prose() -> None:
    """Issue 40 item 6: the text outside calls and reasoning, coalesced, in the result and its dict."""
    r = parse("<think>hm</think>Sure. " + BLOCK + " Done.\n```\n" + BLOCK + "\n```")
    assert r.text == "Sure.  Done.\n```\n" + BLOCK + "\n```"
    assert r.reasoning == "hm" and len(r.calls) == 1
    assert r.to_dict()["text"] == r.text
    assert parse("").text == "" and parse("").to_dict()["text"] == ""
    assert parse(BLOCK).text == ""


def test_events_are_frozen_and_carry_raw() -> None:
    s = Sieve()
    events = s.feed("hi " + BLOCK + " bye") + s.flush()
    block = ToolCallsEvent((ToolCall("ls", {"p": 1}),), BLOCK, format="dsml")
    assert events == [TextEvent("hi "), block, TextEvent(" bye")]
    with pytest.raises(dataclasses.FrozenInstanceError):
        events[0].text = "x"  # type: ignore[misc,union-attr]
    assert events[1].to_dict() == {
        "type": "tool_calls",
        "calls": [{"name": "ls", "input": {"p": 1}}],
        "format": "dsml",
    }


_INV = '<|DSML|invoke name="f"><|DSML|parameter name="p">1</|DSML|parameter></|DSML|invoke>'
_CALL = "<｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>"
# (output, options, (format, repaired)): the same table is in parity/node/test/core/api.test.js
FORMATS_AND_REPAIRS: list[tuple[str, dict[str, Any], tuple[str, tuple[str, ...]]]] = [
    (f"<|DSML|tool_calls>{_INV}</|DSML|tool_calls>", {}, ("dsml", ())),
    (f"<｜DSML｜function_calls>{_INV}</｜DSML｜tool_calls>", {}, ("function_calls", ())),  # the opener's row
    (f"{_INV}</|DSML|function_calls>", {}, ("function_calls", ("D6",))),  # R3: the closer's row
    (
        '<tool_calls><invoke name="f"><parameter name="p"><![CDATA[x</parameter></invoke></tool_calls>',
        {},
        ("dsml", ("D8",)),
    ),
    (f"<｜tool▁calls▁begin｜>{_CALL}<｜tool▁calls▁end｜>", {}, ("tokens", ())),
    (f"<｜tool▁calls▁begin｜>{_CALL}", {}, ("tokens", ("D26",))),
    (f"<tool_calls>{_INV} oops", {"stream_arguments": True}, ("dsml", ("D37",))),
    ('<tool_call>{"name": "f", "arguments": {}}', {}, ("hermes", ("D44",))),
    (
        '<tool_call>{"name": "f", "arguments": {"p": 1}} x</tool_call>',
        {"stream_arguments": True},
        ("hermes", ("D37",)),
    ),
    ('[TOOL_CALLS]f[ARGS]{"p": 1', {"preset": "mistral", "stream_arguments": True}, ("mistral", ("D37",))),
    (
        "<|channel|>commentary to=functions.f<|message|>{}",
        {"preset": "gpt-oss"},
        ("harmony", ()),
    ),  # no repair
    ('Run {"name": "f", "arguments": {}}', {"json_tool_calls": True}, ("", ())),  # R9: no row
    ('Run {"name": "f", "arguments": {"p": "C:\\dev"}}', {"json_tool_calls": True}, ("", ("R9.2",))),
    ('{"name": "f", "parameters": {"p": "a\\qb"}}', {"preset": "llama3"}, ("llama_json", ("R9.2",))),
    ('{"name": "f", "parameters": {"p": "a\\\\qb"}}', {"preset": "llama3"}, ("llama_json", ())),  # valid
]


@pytest.mark.parametrize(("text", "opts", "want"), FORMATS_AND_REPAIRS)
def test_events_name_their_format_and_repairs(
    text: str, opts: dict[str, Any], want: tuple[str, tuple[str, ...]]
) -> None:
    """D58: every block's event names the row that read it and the decisions of its repairs."""
    for size in (len(text), 1):
        s = Sieve(**opts)
        events = [e for i in range(0, len(text), size) for e in s.feed(text[i : i + size])] + s.flush()
        blocks = [e for e in events if isinstance(e, ToolCallsEvent)]
        assert [(e.format, e.repaired) for e in blocks] == [want]


def test_feed_after_flush_raises() -> None:
    s = Sieve()
    s.flush()
    with pytest.raises(SieveClosedError):
        s.feed("x")
    with pytest.raises(SieveClosedError):
        s.flush()


@pytest.mark.parametrize("options", [{}, {"tools": [{"name": "ls"}]}, {"stream_arguments": True}])
def test_a_sieve_used_from_two_threads_at_once_raises_a_typed_error(options: dict[str, object]) -> None:
    """Issue 41 F8: a second thread's feed() or flush() while a call runs raised AttributeError
    (from the scanner's half-updated state), or worse, went on with it. Now ConcurrentUseError,
    with nothing changed: the running call finishes as if alone."""
    s = Sieve(**options)  # type: ignore[arg-type]
    first = s.feed("a")  # (the first feed picks the path the next ones take)
    inside, release = threading.Event(), threading.Event()
    scanner = s._scanner

    class Slow:  # the scanner, with a feed that waits (a wrapper: a compiled class is read-only)
        def feed(self, chunk: str) -> list[Event]:
            inside.set()
            assert release.wait(10)
            return scanner.feed(chunk)

        def __getattr__(self, name: str) -> Any:
            return getattr(scanner, name)

    s._scanner = Slow()  # type: ignore[assignment]
    s._direct = None
    out: list[Event] = []
    t = threading.Thread(target=lambda: out.extend(s.feed("b " + BLOCK)))
    t.start()
    assert inside.wait(10)
    try:
        with pytest.raises(ConcurrentUseError, match="not thread-safe") as e:
            s.feed("x")
        assert isinstance(e.value, CallsieveError) and isinstance(e.value, RuntimeError)
        with pytest.raises(ConcurrentUseError, match="not thread-safe"):
            s.flush()
    finally:
        release.set()
        t.join(10)
    s._scanner = scanner
    events = first + out + s.flush()
    assert "".join(e.text for e in events if isinstance(e, TextEvent)) == "ab "
    assert [c.name for e in events if isinstance(e, ToolCallsEvent) for c in e.calls] == ["ls"]
    with pytest.raises(SieveClosedError):  # after the error, the sieve is as it was
        s.feed("x")


@pytest.mark.parametrize("bad", [b"bytes", None, 3, ["x"]])
def test_feed_wrong_type_raises(bad: object) -> None:
    with pytest.raises(InputTypeError) as info:
        Sieve().feed(bad)  # type: ignore[arg-type]
    assert isinstance(info.value, CallsieveError)
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("bad", [b"bytes", None, 3, ["x"]])
def test_feed_checks_every_chunk_not_only_the_first(bad: object) -> None:
    # After the first chunk, feed goes straight to the scanner: the checks still hold.
    s = Sieve()
    assert s.feed("a") == [TextEvent("a")]
    with pytest.raises(InputTypeError):
        s.feed(bad)  # type: ignore[arg-type]
    assert s.feed("") == []
    assert s.feed("b") == [TextEvent("b")]
    s.flush()
    with pytest.raises(SieveClosedError):
        s.feed("x")


def test_feed_takes_str_subclasses() -> None:
    class Text(str):
        pass

    s = Sieve()
    assert s.feed("a") == [TextEvent("a")]
    assert [e.text for e in s.feed(Text("b")) if isinstance(e, TextEvent)] == ["b"]


def test_parse_wrong_type_raises() -> None:
    with pytest.raises(InputTypeError):
        parse(b"x")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["read_file", [1], b"x"])
def test_tool_names_wrong_type_raises(bad: object) -> None:
    with pytest.raises(InputTypeError):
        Sieve(tool_names=bad)  # type: ignore[arg-type]


def test_declared_tools_options_are_checked() -> None:
    with pytest.raises(OptionsError):
        Sieve(unknown_tools="drop")
    with pytest.raises(OptionsError):
        parse("x", unknown_tools="Reject")
    with pytest.raises(InputTypeError):
        Sieve(tools={"name": "read_file"})  # type: ignore[arg-type]


def test_rejected_names_accumulate_on_the_sieve() -> None:
    block = '<|DSML|tool_calls><|DSML|invoke name="{}"></|DSML|invoke></|DSML|tool_calls>'
    s = Sieve(tool_names=["ls"], unknown_tools="reject")
    first = s.feed(block.format("fly") + block.format("LS"))
    rest = s.flush()
    assert [e.to_dict() for e in first + rest if isinstance(e, ToolCallsEvent)] == [
        {"type": "tool_calls", "calls": [], "rejectedToolNames": ["fly"], "format": "dsml"},
        {"type": "tool_calls", "calls": [{"name": "ls", "input": {}}], "format": "dsml"},
    ]
    assert s.rejected_tool_names == ("fly",)
    assert s.tool_names == ("ls",)


def test_empty_chunks_and_empty_input() -> None:
    s = Sieve()
    assert s.feed("") == []
    assert s.flush() == []
    assert parse("") == ParseResult((), False)


def test_partial_tag_is_held_then_released() -> None:
    s = Sieve()
    assert s.feed("Look: <|DSML|tool_ca") == [TextEvent("Look: ")]
    assert s.flush() == [TextEvent("<|DSML|tool_ca")]


def test_text_is_released_as_soon_as_it_cannot_be_a_tag() -> None:
    s = Sieve()
    assert s.feed("plain words ") == [TextEvent("plain words ")]
    assert s.feed("<b>bold</b>") == [TextEvent("<b>bold</b>")]


def test_public_names() -> None:
    for name in callsieve.__all__:
        assert hasattr(callsieve, name)


MISUSE: dict[str, Callable[[], object]] = {
    "to_openai_tool_calls(None)": lambda: callsieve.to_openai_tool_calls(None),  # type: ignore[arg-type]
    "to_openai_stream_deltas(start_index=None)": lambda: callsieve.to_openai_stream_deltas(
        [],
        start_index=None,  # type: ignore[arg-type]
    ),
    "rewrite_chat_completion_stream(None)": lambda: list(callsieve.rewrite_chat_completion_stream(None)),  # type: ignore[arg-type]
    "iter_sse_events(None)": lambda: list(callsieve.iter_sse_events(None)),  # type: ignore[arg-type]
    "write_sse(None)": lambda: list(callsieve.write_sse(None)),  # type: ignore[arg-type]
    "apply_policy(None)": lambda: callsieve.apply_policy(None, ["a"]),  # type: ignore[arg-type]
    "coalesce(None)": lambda: callsieve.coalesce(None),  # type: ignore[arg-type]
    "rejected_tool_names=()": lambda: callsieve.rewrite_chat_completion(
        {"choices": []},
        rejected_tool_names=(),  # type: ignore[arg-type]
    ),
    "ToolCall(1, None)": lambda: ToolCall(1, None),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("name", list(MISUSE))
def test_public_functions_raise_typed_errors_on_misuse(name: str) -> None:
    with pytest.raises(InputTypeError):
        MISUSE[name]()
