"""Property tests for the open-model families (R17): chunk invariance, no loss (dropped markers
aside, D47, D49), stream calls equal parse calls, and with incremental arguments (R16) the
fragments of every started call concatenate to its final arguments, over documents mixing every
family with prose and each family's preset."""

from __future__ import annotations

import json

from docs import FAMILY_CALLS, FAMILY_CLOSERS, FAMILY_VALUES, kept
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import PROSE, split

from callsieve import Event, Sieve, ToolCall, ToolCallsEvent, coalesce, json_text, parse
from callsieve.events import ToolCallArgumentsEvent, ToolCallStartEvent
from callsieve.formats import PRESETS

NAMES = st.sampled_from(["read_file", "get_weather", "", "a b", "run.task"])
KEYS = st.sampled_from(["path", "city", "q"])
PRESET = st.sampled_from([None, *PRESETS])


@st.composite
def family_block(draw: st.DrawFn) -> str:
    opener = draw(st.sampled_from(sorted(FAMILY_CALLS)))
    body = draw(st.sampled_from(FAMILY_CALLS[opener])).format(
        n=draw(NAMES), k=draw(KEYS), v=draw(st.sampled_from(FAMILY_VALUES))
    )
    closer = FAMILY_CLOSERS[opener] if draw(st.integers(0, 5)) else ""
    text = opener + body + closer
    if draw(st.integers(0, 6)) == 0:  # a cut, or a stray closer or opener put in
        i = draw(st.integers(0, len(text)))
        extra = draw(st.sampled_from(["", *FAMILY_CLOSERS.values(), *FAMILY_CLOSERS]))
        text = text[:i] + extra
    return text


@st.composite
def fenced(draw: st.DrawFn) -> str:
    return f"\n```\n{draw(family_block())}\n```\n"


DOCUMENTS = st.lists(st.one_of(PROSE, family_block(), family_block(), fenced()), max_size=6).map("".join)


def stream(chunks: list[str], preset: str | None, **kw: object) -> list[Event]:
    sieve = Sieve(preset=preset, **kw)  # type: ignore[arg-type]
    events = [e for c in chunks for e in sieve.feed(c)]
    return events + sieve.flush()


def shape(events: list[Event]) -> list[dict[str, object]]:
    return [e.to_dict() for e in coalesce(events)]


@settings(max_examples=250, deadline=None)
@given(DOCUMENTS, PRESET, st.data())
def test_chunk_invariance_every_family(text: str, preset: str | None, data: st.DataObject) -> None:
    whole = shape(stream([text], preset))
    assert shape(stream(list(text), preset)) == whole
    assert shape(stream(data.draw(split(text)), preset)) == whole


@settings(max_examples=250, deadline=None)
@given(DOCUMENTS, PRESET, st.data())
def test_no_loss_every_family(text: str, preset: str | None, data: st.DataObject) -> None:
    events = stream(data.draw(split(text)), preset)
    assert kept("".join(e.source for e in events), text)


@settings(max_examples=250, deadline=None)
@given(DOCUMENTS, PRESET)
def test_stream_calls_equal_parse_calls_every_family(text: str, preset: str | None) -> None:
    calls = [c for e in stream(list(text), preset) if isinstance(e, ToolCallsEvent) for c in e.calls]
    assert calls == list(parse(text, preset=preset).calls)


@settings(max_examples=200, deadline=None)
@given(DOCUMENTS, PRESET, st.data())
def test_fragments_concatenate_to_the_final_arguments(
    text: str, preset: str | None, data: st.DataObject
) -> None:
    """R16.3: with stream_arguments, every started call's fragments join to exactly the compact
    JSON of its input in the block's final event, and no started call is retracted."""
    events = stream(data.draw(split(text)), preset, stream_arguments=True)
    started: dict[int, str] = {}
    args: dict[int, str] = {}
    finals: list[ToolCall] = []
    for e in events:
        if isinstance(e, ToolCallStartEvent):
            started[e.index] = e.name
            args[e.index] = ""
        elif isinstance(e, ToolCallArgumentsEvent):
            args[e.index] += e.delta
        elif isinstance(e, ToolCallsEvent):
            finals += e.calls
    assert len(finals) == len(started)
    for i, call in enumerate(finals):
        assert started[i] == call.name
        assert args[i] == json_text(call.input)


@settings(max_examples=200, deadline=None)
@given(DOCUMENTS, PRESET, st.data())
def test_chunk_invariance_with_incremental_arguments(
    text: str, preset: str | None, data: st.DataObject
) -> None:
    """R16.4: with stream_arguments only fragment boundaries depend on chunking (the blocks'
    calls are announced as they arrive, and a break, R16.3, is decided by the text)."""
    whole = shape(stream([text], preset, stream_arguments=True))
    assert shape(stream(list(text), preset, stream_arguments=True)) == whole
    assert shape(stream(data.draw(split(text)), preset, stream_arguments=True)) == whole


CLEAN_VALUES = st.sampled_from(
    [*FAMILY_VALUES, " x ", "\n\nz\n", "true", "[1, 2]", "-2.5", "None", "12 apples"]
)


@st.composite
def clean_block(draw: st.DrawFn) -> str:
    """A well-formed block of a family the block engine streams: distinct keys, no markup in values."""
    name = draw(st.sampled_from(["read_file", "get_weather", "run.task"]))
    keys = draw(st.lists(st.sampled_from(["path", "city", "q", "n"]), unique=True, max_size=3))
    vals = [draw(CLEAN_VALUES) for _ in keys]
    kind = draw(st.integers(0, 4))
    if kind == 0:
        params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in zip(keys, vals, strict=True))
        opener, closer = draw(
            st.sampled_from([("<tool_call>", "</tool_call>"), ("<seed:tool_call>", "</seed:tool_call>")])
        )
        return f"{opener}\n<function={name}>\n{params}</function>\n{closer}"
    if kind == 1:
        pairs = "".join(
            f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in zip(keys, vals, strict=True)
        )
        return f"<tool_call>{name}\n{pairs}</tool_call>"
    if kind == 2:
        params = "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in zip(keys, vals, strict=True))
        return f'<minimax:tool_call>\n<invoke name="{name}">\n{params}</invoke>\n</minimax:tool_call>'
    obj = json_text(
        {
            k: draw(st.sampled_from([v, 1, [1, {"a": "]"}], None, True]))
            for k, v in zip(keys, vals, strict=True)
        }
    )
    if kind == 3:
        return (
            f"<|tool_calls_section_begin|><|tool_call_begin|>functions.{name}:0<|tool_call_argument_begin|>"
            f"{obj}<|tool_call_end|><|tool_calls_section_end|>"
        )
    return f'<tool_call>\n{{"name": "{name}", "arguments": {obj}}}\n</tool_call>'


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(PROSE, clean_block()), max_size=5).map("".join), st.data())
def test_well_formed_blocks_give_the_same_calls_with_incremental_arguments(
    text: str, data: st.DataObject
) -> None:
    """R16.3 gives up the all-or-nothing only for broken blocks: a well-formed block's calls are
    the same with stream_arguments, every one announced, its fragments joining to its arguments."""
    events = stream(data.draw(split(text)), None, stream_arguments=True)
    finals = [c for e in events if isinstance(e, ToolCallsEvent) for c in e.calls]
    assert finals == list(parse(text).calls)
    joined: dict[int, str] = {}
    for e in events:
        if isinstance(e, ToolCallArgumentsEvent):
            joined[e.index] = joined.get(e.index, "") + e.delta
    assert [joined[i] for i in range(len(finals))] == [json_text(c.input) for c in finals]


# JSON arguments with escapes in every family that writes its arguments as JSON: a chunk cut right
# after a backslash (in a key, a value, or a string inside a nested value) must not end the string.
JSON_CALLS = [
    (None, '<tool_call>{{"name": "f", "arguments": {a}}}</tool_call>'),
    (None, '<tool_call>{{"name": "f", "id": "c1", "arguments": {a}}}</tool_call>'),
    (
        None,
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
        "{a}<|tool_call_end|><|tool_calls_section_end|>",
    ),
    ("mistral", "[TOOL_CALLS]f[ARGS]{a}"),
    ("gpt-oss", "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{a}<|call|>"),
    ("llama3", '<|python_tag|>{{"name": "f", "parameters": {a}}}<|eom_id|>'),
]
ESCAPED = st.text(st.sampled_from('ab"\\/\n\t\u00e9\U0001f600<>]}'), max_size=6)
JSON_VALUES = st.recursive(
    st.one_of(ESCAPED, st.integers(-5, 5), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(ESCAPED, inner, max_size=3)),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(JSON_CALLS),
    st.dictionaries(ESCAPED, JSON_VALUES, max_size=3),
    st.booleans(),
    st.booleans(),
    st.data(),
)
def test_json_arguments_with_escapes_cut_anywhere(
    call: tuple[str | None, str],
    args: dict[str, object],
    ascii_only: bool,
    incremental: bool,
    data: st.DataObject,
) -> None:
    preset, template = call
    text = template.format(a=json.dumps(args, ensure_ascii=ascii_only))
    whole = shape(stream([text], preset, stream_arguments=incremental))
    assert shape(stream(list(text), preset, stream_arguments=incremental)) == whole
    assert shape(stream(data.draw(split(text)), preset, stream_arguments=incremental)) == whole
    assert [c.input for c in parse(text, preset=preset).calls] == [args]
