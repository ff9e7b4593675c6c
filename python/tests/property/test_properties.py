"""Property tests (R8.2, R8.6): chunk invariance, no loss, stream calls equal parse calls."""

from __future__ import annotations

from docs import kept
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import DOCUMENTS, split

from callsieve import Event, Sieve, ToolCallsEvent, coalesce, parse


def stream(chunks: list[str]) -> list[Event]:
    sieve = Sieve()
    events = [e for c in chunks for e in sieve.feed(c)]
    return events + sieve.flush()


def shape(events: list[Event]) -> list[dict[str, object]]:
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
    rebuilt = "".join(e.source for e in events)
    assert kept(rebuilt, text)


@settings(max_examples=400, deadline=None)
@given(DOCUMENTS)
def test_stream_calls_equal_parse_calls(text: str) -> None:
    calls = [c for e in stream(list(text)) if isinstance(e, ToolCallsEvent) for c in e.calls]
    assert calls == list(parse(text).calls)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.data())
def test_arbitrary_text_never_raises(text: str, data: st.DataObject) -> None:
    events = stream(data.draw(split(text)))
    assert kept("".join(e.source for e in events), text)


JSON_PIECES = st.sampled_from(
    [
        '{"tool_calls":[{"name":"a","input":{"x":1}}]}',
        '{"name":"b","arguments":"{\\"q\\":\\"}{\\"}"}',
        '{"name": "Alice"}',
        "{",
        "}",
        '{"tool_calls":[',
        '"',
        "\\",
        "{x}",
        "```json\n",
        "`",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(JSON_PIECES, DOCUMENTS), max_size=6).map("".join), st.data())
def test_json_tool_calls_chunk_invariance_and_no_loss(text: str, data: st.DataObject) -> None:
    def run(chunks: list[str]) -> tuple[list[dict[str, object]], str]:
        s = Sieve(json_tool_calls=True)
        ev = [e for c in chunks for e in s.feed(c)] + s.flush()
        raw = "".join(e.source for e in ev)
        return shape(ev), raw

    whole, raw = run([text])
    assert kept(raw, text)
    split_events, raw = run(data.draw(split(text)))
    assert kept(raw, text) and split_events == whole
    assert run(list(text))[0] == whole
    calls = [c for e in whole if e["type"] == "tool_calls" for c in e["calls"]]  # type: ignore[attr-defined]
    assert calls == [c.to_dict() for c in parse(text, json_tool_calls=True).calls]


DECLARED = {"tool_names": ["read_file", "Search_Web"], "unknown_tools": "reject", "tools": []}


@settings(max_examples=200, deadline=None)
@given(DOCUMENTS, st.data())
def test_declared_tools_keep_chunk_invariance_and_no_loss(text: str, data: st.DataObject) -> None:
    def run(chunks: list[str]) -> list[Event]:
        sieve = Sieve(**DECLARED)  # type: ignore[arg-type]
        return [e for c in chunks for e in sieve.feed(c)] + sieve.flush()

    whole = run([text])
    assert shape(run(data.draw(split(text)))) == shape(whole)
    assert kept("".join(e.source for e in whole), text)
    calls = [c for e in whole if isinstance(e, ToolCallsEvent) for c in e.calls]
    assert calls == list(parse(text, **DECLARED).calls)  # type: ignore[arg-type]
