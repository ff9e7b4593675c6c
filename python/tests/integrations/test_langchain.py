"""callsieve.langchain against the real langchain-core (pinned in requirements-dev.txt) and its own
fake chat models: FakeListChatModel (one character a chunk), GenericFakeChatModel (cut at
whitespace) and a GenericFakeChatModel that streams the chunks it is given (any cut, native tool
call chunks, list content)."""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from conftest import ROOT, fixture_files, load
from fixture_support import options, random_chunks
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from pydantic import BaseModel, PrivateAttr, ValidationError
from strategies import DOCUMENTS, split

import callsieve.sieve
from callsieve import OptionsError, Sieve, TextEvent, ToolCallsEvent, parse
from callsieve.langchain import CallsieveChatModel, with_callsieve

BLOCK = (
    '<|DSML|tool_calls><|DSML|invoke name="{name}"><|DSML|parameter name="path"><![CDATA[{path}]]>'
    "</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>"
)
TOKENS = (
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>"
    '{"path":"t.txt"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
)


def block(name: str = "read_file", path: str = "a.txt") -> str:
    return BLOCK.format(name=name, path=path)


DOC = f"Let me look. {block()} Then the other one:\n{block(path='b.txt')}\nDone."
DOC_TEXT = "Let me look.  Then the other one:\n\nDone."
DOC_CALLS = [("read_file", {"path": "a.txt"}), ("read_file", {"path": "b.txt"})]


class ChunkedFakeChatModel(GenericFakeChatModel):
    """GenericFakeChatModel streaming each message in the chunks it is given (GenericFakeChatModel
    itself cuts at whitespace); invoke gives their sum."""

    # Private, not a field: LangChain writes a model's fields out (repr) on every call.
    _chunked: list[list[AIMessageChunk]] = PrivateAttr(default_factory=list)

    def __init__(self, chunked: list[list[AIMessageChunk]]) -> None:
        super().__init__(messages=iter([]))
        self._chunked = list(chunked)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        total = _sum(self._chunked.pop(0))
        self.messages = iter(
            [AIMessage(**total.model_dump(exclude={"type", "tool_call_chunks", "chunk_position"}))]
        )
        return super()._generate(messages, *args, **kwargs)

    def _stream(
        self, messages: list[BaseMessage], *args: Any, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        for c in self._chunked.pop(0):
            yield ChatGenerationChunk(message=c)


def cut(text: str, pieces: list[str] | None = None) -> list[AIMessageChunk]:
    parts = pieces if pieces is not None else [text]
    assert "".join(parts) == text
    return [AIMessageChunk(content=p) for p in parts]


def ids() -> Any:
    n = itertools.count(1)
    return lambda: f"call_{next(n)}"


def _sum(chunks: Sequence[BaseMessage]) -> AIMessageChunk:
    """chunk1 + chunk2 + ...: how LangChain adds a stream up."""
    total: Any = chunks[0]
    for c in chunks[1:]:
        total = total + c
    assert isinstance(total, AIMessageChunk)
    return total


def calls_of(message: AIMessage) -> list[tuple[str, dict[str, Any]]]:
    return [(c["name"], c["args"]) for c in message.tool_calls]


def chunkings(text: str) -> dict[str, list[str]]:
    return {
        "whole": [text],
        "chars": list(text),
        **{f"random{s}": random_chunks(text, s) for s in range(3)},
        "halves": [text[: len(text) // 2], text[len(text) // 2 :]],
    }


def test_invoke_gives_tool_calls_and_content_without_markup() -> None:
    for inner in (FakeListChatModel(responses=[DOC]), GenericFakeChatModel(messages=iter([DOC]))):
        msg = with_callsieve(inner, id_factory=ids()).invoke("read both")
        assert isinstance(msg, AIMessage)
        assert msg.content == DOC_TEXT
        assert calls_of(msg) == DOC_CALLS
        assert [c["id"] for c in msg.tool_calls] == ["call_1", "call_2"]
        assert msg.invalid_tool_calls == []


def test_the_models_own_call_ids_are_kept_invoke_and_stream() -> None:
    """A call whose id the model wrote (Kimi-K2, Mistral's [CALL_ID]) keeps it, as in the OpenAI
    layer (D63); a call without one gets an id from id_factory."""
    kimi = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>"
        '{"path": "a.txt"}<|tool_call_end|><|tool_calls_section_end|>'
    )
    doc = f"Reading. {kimi} And {block(path='b.txt')}"
    msg = with_callsieve(FakeListChatModel(responses=[doc]), preset="kimi-k2", id_factory=ids()).invoke("x")
    assert [c["id"] for c in msg.tool_calls] == ["functions.read_file:0"]
    msg = with_callsieve(FakeListChatModel(responses=[doc]), id_factory=ids()).invoke("x")
    assert [c["id"] for c in msg.tool_calls] == ["functions.read_file:0", "call_1"]
    for pieces in (list(doc), [doc]):
        model = with_callsieve(ChunkedFakeChatModel([cut(doc, pieces)]), id_factory=ids())
        total = _sum(list(model.stream("x")))
        assert [c["id"] for c in total.tool_calls] == ["functions.read_file:0", "call_1"]
        assert total.tool_calls == msg.tool_calls


def test_stream_one_char_and_whitespace_chunks_add_up_to_the_invoke_message() -> None:
    for make in (
        lambda: FakeListChatModel(responses=[DOC]),
        lambda: GenericFakeChatModel(messages=iter([DOC])),
    ):
        want = with_callsieve(make(), id_factory=ids()).invoke("x")
        chunks = list(with_callsieve(make(), id_factory=ids()).stream("x"))
        assert all(isinstance(c, AIMessageChunk) for c in chunks)
        for c in chunks:
            assert isinstance(c.content, str)
            assert "DSML" not in c.content and "CDATA" not in c.content
        total = _sum(chunks)
        assert total.content == want.content
        assert total.tool_calls == want.tool_calls
        assert [c["index"] for c in total.tool_call_chunks] == [0, 1]
        # Each call is one whole chunk: its own tool_calls are complete where it appears.
        assert [calls_of(c) for c in chunks if c.tool_call_chunks] == [[DOC_CALLS[0]], [DOC_CALLS[1]]]


@pytest.mark.parametrize("how", ["whole", "chars", "random0", "random1", "random2", "halves"])
def test_stream_at_every_chunking_sync_and_async(how: str) -> None:
    pieces = chunkings(DOC)[how]
    model = with_callsieve(ChunkedFakeChatModel([cut(DOC, pieces), cut(DOC, pieces)]), id_factory=ids())
    total = _sum(list(model.stream("x")))
    assert (total.content, calls_of(total)) == (DOC_TEXT, DOC_CALLS)

    async def run() -> AIMessageChunk:
        return _sum([c async for c in model.astream("x")])

    atotal = asyncio.run(run())
    assert (atotal.content, calls_of(atotal)) == (DOC_TEXT, DOC_CALLS)
    assert [c["id"] for c in atotal.tool_calls] == ["call_3", "call_4"]


def test_ainvoke_and_batch() -> None:
    model = with_callsieve(FakeListChatModel(responses=[DOC]))
    msg = asyncio.run(model.ainvoke("x"))
    assert (msg.content, calls_of(msg)) == (DOC_TEXT, DOC_CALLS)
    for m in model.batch(["a", "b"]):
        assert (m.content, calls_of(m)) == (DOC_TEXT, DOC_CALLS)


def test_every_fixture_through_the_model_at_several_chunkings() -> None:
    runs = 0
    for path in fixture_files():
        case = load(path)
        if case.get("options", {}).get("streamArguments"):
            continue  # R16 (incremental arguments) is not an option of the integration yet
        events = case["expected"]["events"]
        text = "".join(e["text"] for e in events if e["type"] == "text")
        thought = "".join(e["text"] for e in events if e["type"] == "reasoning")
        calls = [(c["name"], c["input"]) for e in events if e["type"] == "tool_calls" for c in e["calls"]]
        # Each chunk costs two chat-model runs' machinery (~0.2 ms): whole, one random cut and the
        # fixture's own here; one character a chunk and other cuts in the tests above, and the
        # Sieve itself at every chunking of every fixture in test_fixtures.py.
        ways = {"whole": [case["input"]], "random0": random_chunks(case["input"], 0)}
        if "chunks" in case:
            ways["fixture"] = case["chunks"]
        for how, pieces in ways.items():
            chunked = [cut(case["input"], pieces)] if pieces else [[AIMessageChunk(content="")]]
            opts = {k: v for k, v in options(case).items() if k != "stream_arguments"}
            model = CallsieveChatModel(model=ChunkedFakeChatModel(chunked), **opts)
            total = _sum(list(model.stream("x")))
            where = f"{path.name} ({how})"
            assert total.content == text, where
            assert total.additional_kwargs.get("reasoning_content", "") == thought, where
            assert json.loads(json.dumps(calls_of(total))) == json.loads(json.dumps(calls)), where
            runs += 1
    assert runs > 900


@settings(max_examples=60, deadline=None)
@given(DOCUMENTS, st.data())
def test_property_stream_sum_equals_invoke_and_the_sieve(text: str, data: st.DataObject) -> None:
    pieces = data.draw(split(text))
    sieve = Sieve()
    events = [e for p in [text] for e in sieve.feed(p)] + sieve.flush()
    want_text = "".join(e.text for e in events if isinstance(e, TextEvent))
    want_calls = [(c.name, c.input) for e in events if isinstance(e, ToolCallsEvent) for c in e.calls]
    inner = ChunkedFakeChatModel([cut(text, pieces) or [AIMessageChunk(content="")]] * 2)
    model = with_callsieve(inner, id_factory=ids())
    total = _sum(list(model.stream("x")))
    assert (total.content, calls_of(total)) == (want_text, want_calls)
    msg = with_callsieve(
        ChunkedFakeChatModel([cut(text, pieces) or [AIMessageChunk(content="")]]), id_factory=ids()
    )
    whole = msg.invoke("x")
    assert (whole.content, calls_of(whole)) == (want_text, want_calls)


BLOCK_OF_N = (
    '<|DSML|tool_calls><|DSML|invoke name="f"><|DSML|parameter name="n">{}</|DSML|parameter>'
    "</|DSML|invoke></|DSML|tool_calls>"
)


@pytest.mark.parametrize("number", ["12345678901234567890", "1e400", "-1e400", "0.1", "1e21"])
def test_streamed_numbers_read_back_as_invoke_gives_them(number: str) -> None:
    # A float JavaScript would write as an integer (or as null) reads back the same in the stream.
    text = BLOCK_OF_N.format(number)
    want = parse(text).calls[0].input
    streamed = with_callsieve(ChunkedFakeChatModel([[AIMessageChunk(content=text)]]), id_factory=ids())
    whole = with_callsieve(ChunkedFakeChatModel([[AIMessageChunk(content=text)]]), id_factory=ids())
    assert calls_of(_sum(list(streamed.stream("x")))) == [("f", want)]
    assert calls_of(whole.invoke("x")) == [("f", want)]


def test_native_tool_call_chunks_pass_through_with_an_index_of_their_own() -> None:
    native = [
        AIMessageChunk(
            content="", tool_call_chunks=[tool_call_chunk(name="ls", args='{"pa', id="n1", index=0)]
        ),
        AIMessageChunk(content="", tool_call_chunks=[tool_call_chunk(args='th": "."}', index=0)]),
    ]
    chunks = cut(f"a {block()} b", [f"a {block()[:20]}", f"{block()[20:]} b"])
    model = with_callsieve(ChunkedFakeChatModel([chunks + native]), id_factory=ids())
    out = list(model.stream("x"))
    total = _sum(out)
    assert total.content == "a  b"
    assert calls_of(total) == [("read_file", {"path": "a.txt"}), ("ls", {"path": "."})]
    assert [(c["id"], c["index"]) for c in total.tool_call_chunks] == [("call_1", 0), ("n1", 1)]
    # Untouched when nothing collides.
    plain = list(with_callsieve(ChunkedFakeChatModel([native])).stream("x"))
    assert plain[0] is not None and _sum(plain).tool_call_chunks[0]["index"] == 0


def test_metadata_usage_and_ids_pass_once() -> None:
    usage = {"input_tokens": 3, "output_tokens": 5, "total_tokens": 8}
    chunks = [
        AIMessageChunk(content=f"x {block()[:30]}", id="run-1", response_metadata={"model_name": "m"}),
        AIMessageChunk(content=f"{block()[30:]} y", usage_metadata=usage),  # type: ignore[arg-type]
        AIMessageChunk(content="", response_metadata={"finish_reason": "stop"}, chunk_position="last"),
    ]
    total = _sum(list(with_callsieve(ChunkedFakeChatModel([chunks])).stream("x")))
    assert total.content == "x  y"
    assert total.usage_metadata == usage
    assert total.response_metadata["model_name"] == "m"
    assert total.response_metadata["finish_reason"] == "stop"
    assert total.id == "run-1"


def test_held_text_comes_out_after_a_stream_without_a_last_chunk() -> None:
    class NoLast(GenericFakeChatModel):
        def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
            yield ChatGenerationChunk(message=AIMessageChunk(content="x <|DSML|tool_ca"))
            yield ChatGenerationChunk(message=AIMessageChunk(content="", additional_kwargs={"k": "v"}))

    out = list(with_callsieve(NoLast(messages=iter([]))).stream("x"))
    assert _sum(out).content == "x <|DSML|tool_ca"
    assert out[0].content == "x "


def test_list_content_text_blocks_are_sieved_per_index() -> None:
    b = block()
    chunks = [
        AIMessageChunk(content=[{"type": "text", "text": f"A {b[:25]}", "index": 0}]),
        AIMessageChunk(content=[{"type": "reasoning", "reasoning": f"thinking {b}", "index": 1}]),
        AIMessageChunk(content=[{"type": "text", "text": f"{b[25:]} B", "index": 0}]),
        AIMessageChunk(
            content=[{"type": "text", "text": "C <|DSML|tool", "index": 2}], chunk_position="last"
        ),
    ]
    total = _sum(list(with_callsieve(ChunkedFakeChatModel([chunks])).stream("x")))
    assert total.content == [
        {"type": "text", "text": "A  B", "index": 0},
        {"type": "reasoning", "reasoning": f"thinking {b}", "index": 1},
        {"type": "text", "text": "C <|DSML|tool", "index": 2},
    ]
    assert calls_of(total) == [("read_file", {"path": "a.txt"})]
    # Whole messages: each text block on its own.
    msg = with_callsieve(
        GenericFakeChatModel(messages=iter([AIMessage(content=[{"type": "text", "text": f"A {b} B"}])]))
    )
    out = msg.invoke("x")
    assert out.content == [{"type": "text", "text": "A  B"}]
    assert calls_of(out) == [("read_file", {"path": "a.txt"})]


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return path


def test_bind_tools_declares_the_tools_resolve_shape_and_reject() -> None:
    doc = f"{block('READ_FILE', '12')} {block('rm', 'x')}"
    base = with_callsieve(GenericFakeChatModel(messages=iter([doc, doc, doc])))
    # GenericFakeChatModel has no native tools (NotImplementedError): declared for the sieve only.
    bound = base.bind_tools([read_file])
    assert isinstance(bound, CallsieveChatModel) and bound.model is base.model
    msg = bound.invoke("x")
    # Declared: the name takes the declared spelling, and "12" stays a string as the schema says.
    assert calls_of(msg) == [("read_file", {"path": "12"}), ("rm", {"path": "x"})]
    rejecting = CallsieveChatModel(model=base.model, unknown_tools="reject").bind_tools([read_file])
    assert calls_of(rejecting.invoke("x")) == [("read_file", {"path": "12"})]
    assert calls_of(base.invoke("x")) == [("READ_FILE", {"path": 12}), ("rm", {"path": "x"})]


def test_bind_tools_binds_them_on_a_model_with_native_tools() -> None:
    seen: list[Any] = []

    class Native(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            seen.append((tools, kwargs))
            return self.bind(tools_bound=True)

        def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
            assert kwargs.get("tools_bound") is True
            return super()._generate(messages, *args)

    model = with_callsieve(Native(messages=iter([block("read_file", "3")]))).bind_tools(
        [read_file], tool_choice="any"
    )
    assert calls_of(model.invoke("x")) == [("read_file", {"path": "3"})]
    assert seen == [([read_file], {"tool_choice": "any"})]
    off = CallsieveChatModel(model=Native(messages=iter([])), bind_native_tools=False).bind_tools([read_file])
    assert isinstance(off, CallsieveChatModel) and not isinstance(off.model, type(off)) and seen[1:] == []


def test_with_structured_output_reads_a_markup_call() -> None:
    class ReadFile(BaseModel):
        """Read a file."""

        path: str

    reply = (
        '<|DSML|tool_calls><|DSML|invoke name="ReadFile"><|DSML|parameter name="path">notes.md'
        "</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>"
    )
    model = with_callsieve(GenericFakeChatModel(messages=iter([reply])))
    assert model.with_structured_output(ReadFile).invoke("x") == ReadFile(path="notes.md")


class Tokens(BaseCallbackHandler):
    def __init__(self) -> None:
        self.tokens: list[str] = []
        self.runs = 0

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self.runs += 1

    def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
        self.tokens.append(token)


def test_callbacks_see_the_sieved_tokens_only() -> None:
    handler = Tokens()
    model = with_callsieve(FakeListChatModel(responses=[DOC]))
    chain = RunnableLambda(lambda x: x) | model
    total = _sum(list(chain.stream("x", {"callbacks": [handler]})))
    assert total.content == DOC_TEXT
    assert "".join(handler.tokens) == DOC_TEXT
    assert handler.runs == 1, "the wrapped model's run does not report to the caller's handlers"


def test_options_are_checked_when_the_model_is_made() -> None:
    inner = FakeListChatModel(responses=["x"])
    with pytest.raises(OptionsError):
        CallsieveChatModel(model=inner, unknown_tools="drop")
    with pytest.raises(OptionsError):
        CallsieveChatModel(model=inner, formats=["json"])
    with pytest.raises(OptionsError):
        CallsieveChatModel(model=inner, max_capture_chars=0)
    # Wrong types and misspelt options are caught by pydantic first, as for any LangChain model.
    with pytest.raises(ValidationError):
        CallsieveChatModel(model=inner, tools="read_file")
    with pytest.raises(ValidationError):
        CallsieveChatModel(model=inner, unknown_tool="reject")
    assert CallsieveChatModel(model=inner, formats=["dsml"]).invoke("x").content == "x"


def test_reasoning_goes_to_reasoning_content_and_adds_up() -> None:
    doc = f"<think>maybe {block('draft')}?</think>Reading. {block()} ok"
    thought = f"maybe {block('draft')}?"
    for make in (
        lambda: FakeListChatModel(responses=[doc]),
        lambda: GenericFakeChatModel(messages=iter([doc])),
    ):
        msg = with_callsieve(make()).invoke("x")
        assert (msg.content, calls_of(msg)) == ("Reading.  ok", [("read_file", {"path": "a.txt"})])
        assert msg.additional_kwargs == {"reasoning_content": thought}
        total = _sum(list(with_callsieve(make()).stream("x")))
        assert (total.content, calls_of(total)) == ("Reading.  ok", [("read_file", {"path": "a.txt"})])
        assert total.additional_kwargs == {"reasoning_content": thought}
        assert total.content_blocks[0] == {"type": "reasoning", "reasoning": thought}
    # Appended to reasoning the model sent itself; "off" keeps the region as text.
    chunks = [
        AIMessageChunk(content="", additional_kwargs={"reasoning_content": "native. "}),
        *cut(doc, list(doc)),
    ]
    total = _sum(list(with_callsieve(ChunkedFakeChatModel([chunks])).stream("x")))
    assert total.additional_kwargs == {"reasoning_content": "native. " + thought}
    off = with_callsieve(FakeListChatModel(responses=[doc]), reasoning="off").invoke("x")
    assert isinstance(off.content, str) and off.content.startswith("<think>maybe ")
    assert "reasoning_content" not in off.additional_kwargs
    with pytest.raises(OptionsError):
        with_callsieve(FakeListChatModel(responses=[doc]), reasoning="always")


def test_formats_pass_through() -> None:
    doc = f"a {TOKENS} b {block()}"
    only = with_callsieve(FakeListChatModel(responses=[doc]), formats=["dsml"])
    msg = only.invoke("x")
    assert (msg.content, calls_of(msg)) == (f"a {TOKENS} b ", [("read_file", {"path": "a.txt"})])
    assert len(calls_of(with_callsieve(FakeListChatModel(responses=[doc])).invoke("x"))) == 2


def test_event_types_a_later_sieve_may_add_are_never_text(monkeypatch: pytest.MonkeyPatch) -> None:
    original = callsieve.sieve.Sieve.feed

    class LaterKind:
        type = "tool_call_arguments"
        text = "secret"

    def feed(self: Sieve, chunk: str) -> list[Any]:
        return [LaterKind(), *original(self, chunk)]

    monkeypatch.setattr(callsieve.sieve.Sieve, "feed", feed)
    model = with_callsieve(FakeListChatModel(responses=[DOC]))
    assert _sum(list(model.stream("x"))).content == DOC_TEXT
    assert model.invoke("x").content == DOC_TEXT


def test_without_langchain_core_the_core_imports_and_the_integration_raises_a_typed_error() -> None:
    script = (
        "import sys\n"
        "sys.modules['langchain_core'] = None\n"
        "import callsieve\n"
        "assert 'callsieve.langchain' not in sys.modules\n"
        "try:\n"
        "    import callsieve.langchain\n"
        "except callsieve.MissingDependencyError as e:\n"
        "    print(isinstance(e, ImportError), 'callsieve[langchain]' in str(e))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.split() == ["True", "True"]
