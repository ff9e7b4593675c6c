"""Property tests (R8.2, R8.6): chunk invariance, no loss, stream calls equal parse calls."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import DOCUMENTS, split

from toolsieve import Sieve, TextEvent, ToolCallsEvent, coalesce, parse


def stream(chunks: list[str]) -> list[TextEvent | ToolCallsEvent]:
    sieve = Sieve()
    events = [e for c in chunks for e in sieve.feed(c)]
    return events + sieve.flush()


def shape(events: list[TextEvent | ToolCallsEvent]) -> list[dict[str, object]]:
    return [e.to_dict() for e in coalesce(events)]


@settings(max_examples=400, deadline=None)
@given(DOCUMENTS, st.data())
def test_chunk_invariance(text: str, data: st.DataObject) -> None:
    whole = shape(stream([text]))
    assert shape(stream(list(text))) == whole
    assert shape(stream(data.draw(split(text)))) == whole


@settings(max_examples=400, deadline=None)
@given(DOCUMENTS, st.data())
def test_no_loss(text: str, data: st.DataObject) -> None:
    events = stream(data.draw(split(text)))
    rebuilt = "".join(e.text if isinstance(e, TextEvent) else e.raw for e in events)
    assert rebuilt == text


@settings(max_examples=400, deadline=None)
@given(DOCUMENTS)
def test_stream_calls_equal_parse_calls(text: str) -> None:
    calls = [c for e in stream(list(text)) if isinstance(e, ToolCallsEvent) for c in e.calls]
    assert calls == list(parse(text).calls)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.data())
def test_arbitrary_text_never_raises(text: str, data: st.DataObject) -> None:
    events = stream(data.draw(split(text)))
    assert "".join(e.text if isinstance(e, TextEvent) else e.raw for e in events) == text
