"""Property tests for the open-model families (R17): chunk invariance, no loss (dropped markers
aside, D47, D49), stream calls equal parse calls, and with incremental arguments (R16) the
fragments of every started call concatenate to its final arguments, over documents mixing every
family with prose and each family's preset."""

from __future__ import annotations

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
