"""Hostile inputs (issue: proven linear, bounded, crash-free): each is streamed in 16-character
chunks and must finish without an exception or a recursion error, lose nothing, and keep the work
counter (characters the scanner was exposed to) under a small constant times the input size. The
counter is deterministic, so this checks linear growth without timing anything."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from callsieve import Event, Sieve, ToolCallsEvent, parse

BLOCK = (
    '<|DSML|tool_calls><|DSML|invoke name="x"><|DSML|parameter name="{name}">{value}'
    "</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>"
)


def block(name: str, value: str) -> str:
    return BLOCK.replace("{name}", name).replace("{value}", value)


def code(size: int) -> str:
    line = "if (a < b && c > d) { x = y << 2; } // <br/> ]] > done\n"
    return (line * (size // len(line) + 1))[:size]


HOSTILE: dict[str, Callable[[], str]] = {
    "one million <": lambda: "<" * 1_000_000,
    "200,000 backticks": lambda: "`" * 200_000,
    "100,000 separate backticks": lambda: "` " * 100_000,
    "100,000 nested item elements": lambda: block("items", "<item>" * 100_000 + "x" + "</item>" * 100_000),
    "unclosed CDATA of 10 MB": lambda: block("content", "<![CDATA[" + code(10_000_000)).split(
        "</|DSML|param"
    )[0],
    "10,000 parameters in one invoke": lambda: (
        '<|DSML|tool_calls><|DSML|invoke name="x">'
        + "".join(f'<|DSML|parameter name="p{i}">{i}</|DSML|parameter>' for i in range(10_000))
        + "</|DSML|invoke></|DSML|tool_calls>"
    ),
    "JSON nested 100,000 deep": lambda: block("q", "[" * 100_000 + "]" * 100_000),
    "one million unclosed openers": lambda: "<|DSML|tool_calls>" * 1_000_000,
    "200,000 bare invokes": lambda: '<invoke name="a">' * 200_000,
    "unclosed CDATA openers in nested captures": lambda: (
        '<tool_calls><invoke name="a"><parameter name="p"><![CDATA[xxxxxxxxxx' * 20_000
    ),
    "stray backticks before wrapper mentions": lambda: "` a <tool_calls> b " * 50_000,
    "nested CDATA openers": lambda: block("q", "<![CDATA[" * 100_001),
    "100,000 spaces inside a tag after an attribute name": lambda: (
        '<tool_calls x="1" a' + " " * 100_000 + "=1>"
    ),
    "100,000 zero-width characters after a CDATA end": lambda: block(
        "q", "<![CDATA[x]]><" + "\u200b" * 100_000 + "/parameter>"
    ),
    "W1 1 MB CDATA of code lines": lambda: block("content", "<![CDATA[" + code(1_000_000) + "]]>"),
    "W4 one block with 200 invokes": lambda: (
        "<|DSML|tool_calls>\n"
        + "".join(
            f'<|DSML|invoke name="read"><|DSML|parameter name="path">f{i}</|DSML|parameter></|DSML|invoke>\n'
            for i in range(200)
        )
        + "</|DSML|tool_calls>"
    ),
    "W6 1 MB plain parameter": lambda: block("body", code(1_000_000).replace("<", "&lt;")),
    "W7 1,000 small blocks in prose": lambda: "".join(
        f"Step {i}.\n" + block("path", f"f{i}.txt") + "\n" for i in range(1000)
    ),
    "one million call-begin markers": lambda: "<｜tool▁call▁begin｜>" * 1_000_000,
    "one million native DSML prefixes": lambda: "<｜DSML｜" * 1_000_000,
    # issue 14: each block needed the one repair of its own, and each repair rescanned the rest
    "2,000 blocks each holding a lone CDATA opener": lambda: (
        '<tool_calls><invoke name="a"><parameter name="p"><![CDATA[x <![CDATA[ y]]></parameter>'
        "</invoke></tool_calls>\n" * 2000
    ),
}


def stream(text: str, size: int) -> tuple[list[Event], int]:
    s = Sieve()
    events: list[Event] = []
    for i in range(0, len(text), size):
        events += s.feed(text[i : i + size])
    events += s.flush()
    return events, s.work


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_input_is_linear_and_lossless(name: str) -> None:
    text = HOSTILE[name]()
    events, work = stream(text, 16)
    assert "".join(e.source for e in events) == text
    chunks = -(-len(text) // 16)
    assert work <= 4 * len(text) + 64 * chunks, f"work {work} for {len(text)} characters"


def test_deep_json_falls_back_to_a_string_without_recursion_error() -> None:
    value = "[" * 100_000 + "]" * 100_000
    limit = sys.getrecursionlimit()
    r = parse(block("q", value))
    assert sys.getrecursionlimit() == limit
    assert r.calls[0].input == {"q": value}


def test_deep_items_fall_back_to_a_string() -> None:
    value = "<item>" * 50_000 + "x" + "</item>" * 50_000
    assert parse(block("items", value)).calls[0].input == {"items": value}


def test_work_is_linear_at_one_character_chunks() -> None:
    text = HOSTILE["W7 1,000 small blocks in prose"]()
    events, work = stream(text, 1)
    assert sum(1 for e in events if isinstance(e, ToolCallsEvent)) == 1000
    assert work <= 4 * len(text) + 64 * len(text)


def test_every_prefix_of_a_valid_block_then_flush() -> None:
    text = "Let me look.\n" + block("content", "<![CDATA[a <b> ]] c\n```\n]]></x>\n```\n]]>") + "\nDone."
    full = [e for e in stream(text, 7)[0] if isinstance(e, ToolCallsEvent)]
    assert len(full) == 1
    for i in range(len(text) + 1):
        prefix = text[:i]
        events, work = stream(prefix, 5)
        assert "".join(e.source for e in events) == prefix
        assert work <= 4 * len(prefix) + 64 * (len(prefix) // 5 + 1)


# R16 in the R17 formats (D62): the taps read each block as it arrives; with stream_arguments
# they must stay as linear as the block engine that holds the block.
STREAMED: dict[str, Callable[[], str]] = {
    "Qwen3-Coder value of one million <": lambda: (
        "<tool_call>\n<function=f>\n<parameter=p>\n" + "<" * 1_000_000
    ),
    "Qwen3-Coder 10,000 parameters": lambda: (
        "<tool_call>\n<function=f>\n"
        + "".join(f"<parameter=p{i}>\n{i}\n</parameter>\n" for i in range(10_000))
        + "</function>\n</tool_call>"
    ),
    "GLM value of 100,000 partial closers": lambda: (
        "<tool_call>f<arg_key>k</arg_key><arg_value>" + "</arg_valu" * 100_000 + "</arg_value></tool_call>"
    ),
    "GLM number-like value of one million digits": lambda: (
        "<tool_call>f<arg_key>k</arg_key><arg_value>" + "1" * 1_000_000 + "</arg_value></tool_call>"
    ),
    "MiniMax invoke head of 100,000 blanks": lambda: (
        '<minimax:tool_call><invoke name="a"></invoke><invoke'
        + " " * 100_000
        + 'name="b"></invoke></minimax:tool_call>'
    ),
    "MiniMax 10,000 invokes": lambda: (
        "<minimax:tool_call>"
        + "".join(f'<invoke name="f"><parameter name="p">{i}</parameter></invoke>' for i in range(10_000))
        + "</minimax:tool_call>"
    ),
    "Kimi-K2 string of 200,000 escapes": lambda: (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
        '{"s": "' + "\\n\\u00e9" * 200_000 + '"}<|tool_call_end|><|tool_calls_section_end|>'
    ),
    "Kimi-K2 value nested 100,000 deep": lambda: (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
        '{"v": ' + "[" * 100_000 + "]" * 100_000 + "}<|tool_call_end|><|tool_calls_section_end|>"
    ),
    "Hermes object of 100,000 keys": lambda: (
        '<tool_call>{"name": "f", "arguments": {'
        + ", ".join(f'"k{i}": "{i}"' for i in range(100_000))
        + "}}</tool_call>"
    ),
    "Harmony body of one million <|": lambda: (
        '<|channel|>commentary to=functions.f<|message|>{"s": "' + "<|" * 500_000 + '"}<|call|>'
    ),
    # a tap that reads no more (text after an announced call, a head past the limit) keeps no
    # text: it gathered the rest of the block, copied again at every chunk
    "Qwen3-Coder 1 MB of text after an announced call": lambda: (
        "<tool_call>\n<function=f>\n<parameter=p>\n1\n</parameter>\n</function>\nnote "
        + "x" * 1_000_000
        + "\n</tool_call>"
    ),
    "MiniMax head past the limit after an announced call": lambda: (
        '<minimax:tool_call><invoke name="a"></invoke><invoke'
        + " " * 2000
        + "y" * 1_000_000
        + "</minimax:tool_call>"
    ),
    "Mistral arguments of 100,000 nested objects": lambda: (
        '[TOOL_CALLS]f[ARGS]{"v": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}"
    ),
}


@pytest.mark.parametrize("name", list(STREAMED))
def test_hostile_blocks_stream_their_arguments_in_linear_work(name: str) -> None:
    text = STREAMED[name]()
    s = Sieve(stream_arguments=True)
    events: list[Event] = []
    for i in range(0, len(text), 16):
        events += s.feed(text[i : i + 16])
    events += s.flush()
    assert "".join(e.source for e in events) == text
    chunks = -(-len(text) // 16)
    assert s.work <= 4 * len(text) + 64 * chunks, f"work {s.work} for {len(text)} characters"


# R17.8's bare pythonic lists (D64): every `[` of prose may open a candidate with `pythonic` on.
BARE_LISTS: dict[str, Callable[[], str]] = {
    "one million [": lambda: "[" * 1_000_000,
    "200,000 heads that fail at their comma": lambda: "[alpha, " * 200_000,
    "100,000 nested call heads, cut": lambda: "[f(" * 100_000,
    "a list of 20,000 calls": lambda: (
        "[" + ", ".join(f'f{i}(a="x]", b=[1, (2,)])' for i in range(20_000)) + "]"
    ),
    "a string of one million ] and quotes": lambda: '[f(a="' + "]'\\\"" * 250_000 + '")]',
    "100,000 lists of calls in prose": lambda: "ok [f(a=1)] " * 100_000,
}


@pytest.mark.parametrize("name", list(BARE_LISTS))
def test_bare_pythonic_lists_are_linear_and_lossless(name: str) -> None:
    text = BARE_LISTS[name]()
    s = Sieve(preset="llama4")
    events: list[Event] = []
    for i in range(0, len(text), 16):
        events += s.feed(text[i : i + 16])
    events += s.flush()
    assert "".join(e.source for e in events) == text
    chunks = -(-len(text) // 16)
    assert s.work <= 4 * len(text) + 64 * chunks, f"work {s.work} for {len(text)} characters"
