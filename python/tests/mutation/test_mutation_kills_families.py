"""Tests that tell the scanner apart from the mutants of its R17 families (the block engine, JSON
calls in prose) that survived the full run of 2026-12-07: every prefix of each family's blocks, every
two-chunk split under a small capture limit, what each feed releases. Each expectation comes from
the rules (R8.2 nothing lost, R8.3 release as soon as decided and the limit, R8.6 chunking
invariance, the event types of the API), not from the implementation's output; where a table pins
an exact release it says which rule decides it. Node's twin: test/mutation/mutation-kills-families.test.js."""

from __future__ import annotations

from typing import Any

import pytest
from sieve_support import event_types_hold, released, run, scanner_work

from callsieve import coalesce
from callsieve.events import TextEvent, ToolCallsEvent

# Well-formed, repeated, cut and malformed blocks of each family (the preset that reads them).
FAMILY_DOCS: list[tuple[str, str]] = [
    ("qwen3", '<tool_call>\n{"name": "get", "arguments": {"a": 1, "b": "x"}}\n</tool_call>'),
    ("qwen3", '<tool_call>{"name": "get", "arguments": {"a": 1}, "name": "again"}</tool_call>'),
    (
        "qwen3",
        '<tool_call>{"name": "a", "arguments": {}}\n{"name": "b", "arguments": {"k": [1]}}</tool_call>',
    ),
    ("qwen3", '<tool_call>{"name": "get"</tool_call> after'),
    ("qwen3-coder", "<tool_call>\n<function=get>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"),
    (
        "qwen3-coder",
        "<tool_call><function=><parameter=a>1</parameter></function>"
        "<function=ok><parameter=b>2</parameter></function></tool_call>",
    ),
    (
        "qwen3-coder",
        "<tool_call><function=get><parameter=a>1</parameter><parameter=a>2</parameter></function></tool_call>",
    ),
    ("glm-4.5", "<tool_call>get\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>"),
    (
        "glm-4.5",
        "<tool_call>get<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>"
        "<tool_call>two<arg_key>b</arg_key><arg_value>[1]</arg_value></tool_call>",
    ),
    ("glm-4.5", "<tool_call>get<arg_key>a</arg_key>oops<arg_value>1</arg_value></tool_call>"),
    (
        "minimax-m2",
        '<minimax:tool_call>\n<invoke name="get">\n<parameter name="a">1</parameter>\n</invoke>\n'
        "</minimax:tool_call>",
    ),
    (
        "kimi-k2",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get:0<|tool_call_argument_begin|>"
        '{"a": 1}<|tool_call_end|><|tool_calls_section_end|>',
    ),
    ("llama3", '{"name": "get", "parameters": {"a": 1, "b": "x"}}'),
    ("llama3", '{"name": "get", "parameters": {"a": 1}, "name": "get", "parameters": {"a": 1}}'),
    (
        "llama3",
        '{"name": "get", "parameters": {"a": 1}, "content": "x"} then {"name": "two", "parameters": {}}',
    ),
    (
        "qwen3",
        '<tool_call>{"name": "get", "arguments": {"a": 1}</tool_call>\n'
        '<tool_call>{"name": "two", "arguments": {}}</tool_call>',
    ),
    ("llama3", '{"name": "get", "parameters": {"a": 1},} then {"name": "two", "parameters": {}}'),
    ("llama4", "<|python_start|>[get(a=1, b='x'), two()]<|python_end|>"),
    ("llama4", "[get(a=1), two(b=[1, 2])] after"),
    ("mistral", '[TOOL_CALLS]get[ARGS]{"a": 1}'),
    (
        "gpt-oss",
        '<|channel|>commentary to=functions.get <|constrain|>json<|message|>{"a": 1}<|call|>',
    ),
]
IDS = [f"{p}-{i}" for i, (p, _) in enumerate(FAMILY_DOCS)]


@pytest.mark.parametrize(("preset", "doc"), FAMILY_DOCS, ids=IDS)
def test_every_prefix_loses_nothing_and_keeps_its_types(preset: str, doc: str) -> None:
    # A reply cut anywhere (a stream that stops) still gives back each character once (R8.2), no
    # empty text event, and events of the declared types, with and without streamed arguments and
    # under capture limits that the block passes.
    for opts in (
        {"preset": preset},
        {"preset": preset, "stream_arguments": True},
        {"preset": preset, "stream_arguments": True, "max_capture_chars": 40},
        {"preset": preset, "max_capture_chars": 12},
    ):
        for k in range(1, len(doc) + 1):
            events = run([doc[:k]], **opts)
            assert "".join(e.source for e in events) == doc[:k], (opts, k)
            for i, e in enumerate(events):
                if isinstance(e, TextEvent):
                    assert e.text, (opts, k, events)
                if isinstance(e, ToolCallsEvent):
                    assert event_types_hold(e), (opts, k, e)
                    if "D44" in e.repaired:  # (cut by the end of the output: nothing after it)
                        assert not "".join(x.source for x in events[i + 1 :]), (opts, k, events)


@pytest.mark.parametrize(("preset", "doc"), FAMILY_DOCS, ids=IDS)
def test_every_two_chunk_split_under_a_small_limit_is_the_whole(preset: str, doc: str) -> None:
    # R8.3: the limit counts characters of the output, so where a chunk ends never decides
    # whether a block passed it (R8.6), for limits just around where each block's call is
    # announced.
    for limit in (12, 13, 40):
        for stream in (False, True):
            opts = {"preset": preset, "max_capture_chars": limit, "stream_arguments": stream}
            whole = coalesce(run([doc], **opts))
            for k in range(1, len(doc)):
                assert coalesce(run([doc[:k], doc[k:]], **opts)) == whole, (limit, stream, k)


@pytest.mark.parametrize(("preset", "doc"), FAMILY_DOCS, ids=IDS)
def test_a_whole_reply_is_released_by_its_feed(preset: str, doc: str) -> None:
    # R8.3: each of these replies ends decided (a closer, a complete call, prose that starts no
    # markup), so the feed that brings it releases all of it and the flush has nothing left.
    for stream in (False, True):
        assert released([doc], preset=preset, stream_arguments=stream) == [doc, ""], stream


def test_after_a_json_call_breaks_its_rest_is_released_as_it_comes() -> None:
    # R9 with streamed arguments: the repeated "name" key breaks the call where its value opens
    # (D37: the call announced stays, its source up to the break is raw); from there the rest is
    # plain text, each character decided as it arrives (R8.3, D43).
    doc = '{"name": "get", "parameters": {"a": 1}, "name": "get", "parameters": {"a": 1}}'
    brk = doc.index('"', doc.index('"name"', 10) + 7) + 1
    got = released(list(doc), preset="llama3", stream_arguments=True)
    assert got == [""] * (brk - 1) + [doc[:brk]] + list(doc[brk:]) + [""]


def test_after_a_block_breaks_its_rest_is_released_as_it_comes() -> None:
    # R16.3 with streamed arguments: a second "name" key breaks the Hermes call where its value
    # opens; the rest of the block, closer included, is text as it arrives (R8.3, D43).
    doc = '<tool_call>{"name": "get", "arguments": {"a": 1}, "name": "again"}</tool_call>'
    brk = doc.index('"', doc.index('"name": "again"') + 7) + 1
    got = released(list(doc), preset="qwen3", stream_arguments=True)
    end = len(doc) - len("</tool_call>")
    assert got[:brk] == [""] * (brk - 1) + [doc[:brk]]
    assert got[brk:end] == list(doc[brk:end])
    assert got[end:] == [""] * 11 + ["</tool_call>", ""]  # (the closer is held until it is whole)


def test_d44_names_a_block_cut_with_its_calls_complete_d37_one_cut_inside_a_call() -> None:
    # D44: cut by the end of the output, every call read is whole (the nameless function before
    # it is kept as malformed, R18.2); D37: cut inside the announced call's arguments, the call is
    # kept up to where it broke and what follows is text.
    coder = "<tool_call><function=><parameter=a>1</parameter></function><function=ok>"
    hermes = '<tool_call>\n{"name": "get", "arguments": {"'
    for doc, preset, want in ((coder, "qwen3-coder", ("D44",)), (hermes, "qwen3", ("D37",))):
        for chunks in ([doc], list(doc)):
            events = run(chunks, preset=preset, stream_arguments=True)
            blocks = [e for e in events if isinstance(e, ToolCallsEvent)]
            assert [e.repaired for e in blocks] == [want], (doc, blocks)
    events = run([coder], preset="qwen3-coder", stream_arguments=True)
    reasons = [m.reason for e in events if isinstance(e, ToolCallsEvent) for m in e.malformed]
    assert reasons == ["invalid name"]


def test_a_block_is_released_when_its_body_passes_the_limit() -> None:
    # R8.3: past the limit is one character more than it; fed one character at a time, the text
    # with the note ends at the opener and max_capture_chars + 1 characters of body.
    opener = "<tool_call>"
    doc = opener + '\n{"name": "get", "arguments": {"a": 1, "b": "x"}}\n</tool_call>'
    for limit in (12, 20):
        events = run(list(doc), preset="qwen3", max_capture_chars=limit)
        first = events[0]
        assert isinstance(first, TextEvent) and first.note == "capture_limit"
        assert first.text == doc[: len(opener) + limit + 1]


# (preset, opener, body, closer, the values its tap decodes (None: no row of the opener reads a
# body that starts so (D45), so no tap is made), the malformed calls read again when the block is
# kept to its announced call (None: the grammar reads the whole body instead))
WORK_BLOCKS: list[tuple[str, str, str, str, str | None, str | None]] = [
    ("glm-4.5", "<tool_call>", "get<arg_key>a</arg_key><arg_value>1</arg_value>", "</tool_call>", "1", None),
    ("glm-4.5", "<tool_call>", "{bad json", "</tool_call>", None, None),
    (
        "qwen3-coder",
        "<tool_call>",
        "<function=get><parameter=a>1</parameter></function>",
        "</tool_call>",
        "1",
        None,
    ),
    ("qwen3-coder", "<tool_call>", "\n<function=", "", "", None),
    ("minimax-m2", "<minimax:tool_call>", "   ", "</minimax:tool_call>", "", None),  # (one bodiless row)
    ("qwen3-coder", "<tool_call>", "\n<function=get>\n<", "", "", "\n"),
    (
        "minimax-m2",
        "<minimax:tool_call>",
        '<invoke name="get"><parameter name="q">x</parameter></invoke>',
        "</minimax:tool_call>",
        "x",
        None,
    ),
]


@pytest.mark.parametrize(("preset", "opener", "body", "closer", "values", "before"), WORK_BLOCKS)
def test_the_work_of_a_block_fed_whole(
    preset: str, opener: str, body: str, closer: str, values: str | None, before: str | None
) -> None:
    # The scanner's share of the work counter (the documented debug counter; pinned exactly, as
    # in test_mutation_kills_scanner.py): each character fed is scanned once, and the body is
    # read once more by its grammar. With streamed arguments the tap reads the body once, as it
    # comes, and each value it decodes; a block kept to its announced call (D37) has its grammar
    # read only what stands before that call (the malformed calls it reports).
    doc = opener + body + closer
    assert scanner_work([doc], preset=preset) == len(doc) + len(body)
    tap = 0 if values is None else len(body) + len(values)
    grammar = len(body) if before is None else len(before)
    assert scanner_work([doc], preset=preset, stream_arguments=True) == len(doc) + tap + grammar


def test_a_json_call_feeds_its_tap_only_new_characters() -> None:
    # The work counter pinned exactly (as above) for a Llama call fed one character at a time:
    # a \u escape cut by a chunk's end waits in the tap until it is whole (10 more than six plain
    # characters, 34 for the second one); a step that fed the tap an empty piece would join what
    # it holds once more at each character.
    plain = '{"name": "get", "parameters": {"a": "ABCDEF"}}'
    one = '{"name": "get", "parameters": {"a": "\\u0041"}}'
    two = '{"name": "get", "parameters": {"a": "\\u0041\\u0041"}}'
    opts: dict[str, Any] = {"preset": "llama3", "stream_arguments": True}
    assert [scanner_work(list(d), **opts) for d in (plain, one, two)] == [170, 180, 214]


@pytest.mark.parametrize(
    ("doc", "at"),
    [
        ('{"name": "get", "parameters": {"a": "x\n\\qy"}} tail', "\n"),
        ('{"name": "get", "parameters": {"a": "x\u0001\\qy"}} tail', "\u0001"),
        ('{"name": "get", "parameters": {"a": "\\q", "b": "x\n\\w"}} tail', "\n"),
        ('{"name": "get", "parameters": {"a": "\\q", "b": "\\w\\e", "c": "x\n\\w"}} tail', "\n"),
    ],
)
def test_a_broken_json_call_cuts_its_raw_in_the_source(doc: str, at: str) -> None:
    # R9.2 reads a backslash that escapes nothing doubled; where the tap breaks (D37) is counted in
    # the source: the raw ends where the broken value's bad character stands (a raw line break or
    # control character in a string), whatever doubled backslashes stand before or after it. (The
    # twin of Node's test in mutation-kills-scanner-slices.test.js.)
    cut = doc.index(at)
    for chunks in ([doc], list(doc)):
        events = run(chunks, preset="llama3", stream_arguments=True)
        got = [(e.type, e.source, getattr(e, "repaired", None)) for e in coalesce(events)]
        got = [g for g in got if g[0] in ("tool_calls", "text")]
        assert got == [("tool_calls", doc[:cut], ("D37",)), ("text", doc[cut:], None)], chunks[:1]


# Closed blocks kept to their announced call at the end of the body (R16.3, D37): the tap reads the
# whole body only when the closer comes, and the break falls before the body's end. (The twin of
# Node's CUT_CLOSED in mutation-kills-scanner-slices.test.js.)
CUT_CLOSED = [
    ("qwen3", "<tool_call>", '{"name": "get", "arguments": {"a": 1}, "x', "</tool_call>"),
    ("qwen3", "<tool_call>", '{"name": "get", "arguments": {"a": [1, 2', "</tool_call>"),
    ("qwen3-coder", "<tool_call>", "<function=get><parameter=a>1</parameter><param", "</tool_call>"),
    (
        "glm-4.5",
        "<tool_call>",
        "get<arg_key>a</arg_key><arg_value>1</arg_value><arg_key>b</arg_key>",
        "</tool_call>",
    ),
]


@pytest.mark.parametrize(("preset", "opener", "body", "closer"), CUT_CLOSED)
def test_a_closed_block_kept_to_its_call_loses_nothing(
    preset: str, opener: str, body: str, closer: str
) -> None:
    doc = opener + body + closer
    for chunks in ([doc], list(doc)):
        events = run(chunks, preset=preset, stream_arguments=True)
        assert "".join(e.source for e in events) == doc
        blocks = [e for e in events if isinstance(e, ToolCallsEvent)]
        assert [e.repaired for e in blocks] == [("D37",)]
        assert doc.startswith(blocks[0].raw) and len(blocks[0].raw) < len(opener + body)
