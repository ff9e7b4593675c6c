"""Property tests for the native formats (R14): chunk invariance, no loss (the end-of-sentence
token aside, D29), stream calls equal parse calls, over documents mixing every format."""

from __future__ import annotations

from docs import kept
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import PROSE, split

from callsieve import Event, Sieve, ToolCallsEvent, coalesce, parse

EOS = "<｜end▁of▁sentence｜>"
BAR_OPEN = st.sampled_from(["<｜DSML｜", "<|DSML|", "<", "<｜DSML｜"])
STRING = st.sampled_from(["", ' string="true"', ' string="false"'])
VALUE = st.sampled_from(
    ["Hangzhou", "007", " 3 ", "true", '{"a": [1]}', "&amp; x", "<![CDATA[<b>]]>", "\nline\n", "[1,", ""]
)
NAME = st.sampled_from(["get_weather", "ls", "", "a b", "read_file"])
ARGS = st.sampled_from(['{"city": "Paris"}', "{}", "", '{\n "n": 2\n}', "{bad", "[1]", '{"s": "<｜x"}'])


@st.composite
def native_block(draw: st.DrawFn) -> str:
    o = draw(BAR_OPEN)
    c = o.replace("<", "</", 1)
    wrapper = draw(st.sampled_from(["function_calls", "function_calls", "tool_calls"]))
    parts = [f"{o}{wrapper}>\n"]
    for _ in range(draw(st.integers(0, 2))):
        parts.append(f'{o}invoke name="{draw(NAME)}">\n')
        for k in range(draw(st.integers(0, 3))):
            parts.append(f'{o}parameter name="p{k}"{draw(STRING)}>{draw(VALUE)}{c}parameter>\n')
        parts.append(f"{c}invoke>\n")
    if draw(st.integers(0, 9)) > 0:
        parts.append(f"{c}{wrapper}>")
    return "".join(parts)


@st.composite
def section(draw: st.DrawFn) -> str:
    parts = [draw(st.sampled_from(["<｜tool▁calls▁begin｜>", "<｜tool▁calls｜>", "<|tool▁calls▁begin|>"]))]
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            parts.append(f"<｜tool▁call▁begin｜>{draw(NAME)}<｜tool▁sep｜>{draw(ARGS)}<｜tool▁call▁end｜>")
        else:
            parts.append(
                f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{draw(NAME)}\n```json\n{draw(ARGS)}\n```"
                "<｜tool▁call▁end｜>"
            )
        parts.append(draw(st.sampled_from(["", "\n", " "])))
    parts.append(draw(st.sampled_from(["<｜tool▁calls▁end｜>", "<｜tool▁calls▁end｜>", EOS, ""])))
    text = "".join(parts)
    if draw(st.integers(0, 4)) == 0 and text:
        text = text[: draw(st.integers(0, len(text) - 1))]
    return text


@st.composite
def fenced(draw: st.DrawFn) -> str:
    inner = draw(st.one_of(native_block(), section())).replace(EOS, "")
    fence = draw(st.sampled_from(["~~~~", "````"]))
    return f"\n{fence}\n{inner}\n{fence}\n"


DOCUMENTS = st.lists(st.one_of(PROSE, native_block(), section(), fenced(), st.just(EOS)), max_size=6).map(
    "".join
)


def stream(chunks: list[str]) -> list[Event]:
    sieve = Sieve()
    events = [e for c in chunks for e in sieve.feed(c)]
    return events + sieve.flush()


def shape(events: list[Event]) -> list[dict[str, object]]:
    return [e.to_dict() for e in coalesce(events)]


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS, st.data())
def test_chunk_invariance_every_format(text: str, data: st.DataObject) -> None:
    whole = shape(stream([text]))
    assert shape(stream(list(text))) == whole
    assert shape(stream(data.draw(split(text)))) == whole


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS, st.data())
def test_no_loss_every_format(text: str, data: st.DataObject) -> None:
    events = stream(data.draw(split(text)))
    rebuilt = "".join(e.source for e in events)
    # D29: the end-of-sentence token is the one thing dropped (a failed V3 section can leave a
    # fence in prose, which then keeps a later token as written)
    assert kept(rebuilt, text)


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS)
def test_stream_calls_equal_parse_calls_every_format(text: str) -> None:
    calls = [c for e in stream(list(text)) if isinstance(e, ToolCallsEvent) for c in e.calls]
    assert calls == list(parse(text).calls)


@settings(max_examples=200, deadline=None)
@given(DOCUMENTS)
def test_seed_dialect_alone_ignores_native_formats(text: str) -> None:
    """R14.9: with formats=["dsml"] no native block or section is a call."""
    for e in Sieve(formats=["dsml"]).feed(text):
        if isinstance(e, ToolCallsEvent):
            assert "function_calls" not in e.raw.lower() and "tool▁call" not in e.raw
