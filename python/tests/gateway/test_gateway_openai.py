"""R13 OpenAI output and the chat-completion gateway: unit and property tests."""

from __future__ import annotations

import copy
import itertools
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callsieve import CallsieveError, InputTypeError, OptionsError, Sieve, TextEvent, ToolCall, parse
from callsieve.openai import (
    ChatCompletionStreamRewriter,
    OpenAIFormatError,
    new_call_id,
    rewrite_chat_completion,
    rewrite_chat_completion_stream,
    to_openai_stream_deltas,
    to_openai_tool_calls,
)

BLOCK = (
    '<|DSML|tool_calls>\n<|DSML|invoke name="read_file">\n'
    '<|DSML|parameter name="path"><![CDATA[README.md]]></|DSML|parameter>\n'
    "</|DSML|invoke>\n</|DSML|tool_calls>"
)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


def ids() -> Callable[[], str]:
    c = itertools.count(1)
    return lambda: f"call_{next(c)}"


def chunk(
    content: str | None = None, finish: str | None = None, index: int = 0, **delta: Any
) -> dict[str, Any]:
    d: dict[str, Any] = dict(delta)
    if content is not None:
        d["content"] = content
    return {
        "id": "chatcmpl-x",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": index, "delta": d, "finish_reason": finish}],
    }


def test_default_ids_are_random_call_ids() -> None:
    got = {new_call_id() for _ in range(100)}
    assert len(got) == 100
    assert all(re.fullmatch(r"call_[0-9a-f]{24}", i) for i in got)
    calls = to_openai_tool_calls([ToolCall("a", {}), ToolCall("b", {})])
    assert len({c["id"] for c in calls}) == 2


def test_format_misuse() -> None:
    with pytest.raises(InputTypeError):
        to_openai_tool_calls(ToolCall("a", {}))  # type: ignore[arg-type]
    with pytest.raises(InputTypeError):
        to_openai_tool_calls([{"name": "a", "input": {}}])  # type: ignore[list-item]
    with pytest.raises(InputTypeError):
        to_openai_tool_calls([ToolCall("a", {})], id_factory=lambda: 1)  # type: ignore[arg-type, return-value]
    with pytest.raises(InputTypeError):
        to_openai_tool_calls([ToolCall("a", {})], tools={"name": "a"})  # type: ignore[arg-type]
    with pytest.raises(InputTypeError):
        to_openai_tool_calls([ToolCall("a", {"x": {1, 2}})])


def test_stream_deltas() -> None:
    got = to_openai_stream_deltas(
        [ToolCall("read_file", {"path": 3})], tools=TOOLS, id_factory=ids(), start_index=4
    )
    assert got == [
        {
            "index": 4,
            "id": "call_1",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path":"3"}'},
        }
    ]


def run(chunks: list[Any], **kw: Any) -> list[dict[str, Any]]:
    kw.setdefault("id_factory", ids())
    return list(rewrite_chat_completion_stream(chunks, **kw))


def content_of(out: list[dict[str, Any]], index: int = 0) -> str:
    return "".join(
        c["delta"].get("content") or ""
        for ch in out
        for c in ch.get("choices", [])
        if c.get("index", 0) == index and c.get("delta")
    )


def calls_of(out: list[dict[str, Any]], index: int = 0) -> list[dict[str, Any]]:
    return [
        tc
        for ch in out
        for c in ch.get("choices", [])
        if c.get("index", 0) == index and c.get("delta")
        for tc in c["delta"].get("tool_calls") or []
    ]


def finish_of(out: list[dict[str, Any]], index: int = 0) -> list[Any]:
    return [
        c["finish_reason"]
        for ch in out
        for c in ch.get("choices", [])
        if c["index"] == index and c["finish_reason"]
    ]


TEXTS = [
    "Hello.\n" + BLOCK + "\nDone.",
    BLOCK,
    "Example:\n```\n" + BLOCK + "\n```\nthen " + BLOCK,
    "`" + BLOCK + "` inline stays text",
    "no markup at all < > & ]]>",
    "two " + BLOCK + BLOCK + " blocks",
    'unfinished <|DSML|tool_calls>\n<|DSML|invoke name="x">',
    "中文 " + BLOCK.replace("README.md", "说明.md") + " 好",
]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(TEXTS), st.lists(st.integers(1, 40), min_size=1, max_size=60), st.booleans())
def test_stream_rewrite_matches_parse_under_any_chunking(text: str, cuts: list[int], finish: bool) -> None:
    pieces: list[str] = []
    i = 0
    for n in itertools.cycle(cuts):
        if i >= len(text):
            break
        pieces.append(text[i : i + n])
        i += n
    chunks = [chunk(role="assistant", content="")] + [chunk(p) for p in pieces]
    if finish:
        chunks.append(chunk(None, "stop"))
    before = copy.deepcopy(chunks)
    out = run(chunks)
    assert chunks == before, "input chunks were modified"
    result = parse(text)
    want_calls = to_openai_stream_deltas(result.calls, id_factory=ids())
    assert calls_of(out) == want_calls
    # the text is everything that is not a recognized block, as the sieve fed whole releases it
    sieve = Sieve()
    events = sieve.feed(text) + sieve.flush()
    sieve_text = "".join(e.text for e in events if isinstance(e, TextEvent))
    assert content_of(out) == sieve_text
    # no empty deltas (issue 40 item 5): only the first chunk (role) has content "", and every
    # chunk carries something
    empties = [c for ch in out for c in ch["choices"] if c["delta"].get("content") == ""]
    assert empties == [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]
    assert all(
        c["finish_reason"] or any(v not in (None, "", []) for v in c["delta"].values())
        for ch in out
        for c in ch["choices"]
    )
    if finish:
        assert finish_of(out) == ["tool_calls" if result.calls else "stop"]
    else:
        assert finish_of(out) == []
    # every output chunk carries the envelope
    assert all(ch["id"] == "chatcmpl-x" and ch["model"] == "m" for ch in out)


def test_input_chunks_stay_one_for_one_in_order() -> None:
    chunks = [chunk(role="assistant", content=""), chunk("a " + BLOCK + " b"), chunk(None, "stop")]
    out = run(chunks)
    assert [c["choices"][0]["delta"] for c in out] == [
        {"role": "assistant", "content": ""},
        {"content": "a "},
        {"tool_calls": calls_of(out)},
        {"content": " b"},
        {},
    ]
    assert out[0] is chunks[0]  # untouched chunks are passed through as they are


def test_choice_without_index_uses_its_position_and_bad_shapes_raise() -> None:
    c = chunk("x")
    del c["choices"][0]["index"]
    assert content_of(run([c])) == "x"
    bad: list[Any] = [
        "text",
        {"choices": {"0": {}}},
        {"choices": [3]},
        {"choices": [{"index": "0", "delta": {}}]},
        {"choices": [{"index": True, "delta": {}}]},
        {"choices": [{"index": 0, "delta": "x"}]},
        {"choices": [{"index": 0, "delta": {"content": ["part"]}}]},
    ]
    for b in bad:
        with pytest.raises(OpenAIFormatError) as info:
            run([chunk("ok"), b])
        assert "chunk 2" in str(info.value)
        assert isinstance(info.value, CallsieveError)


def test_pass_through_shapes() -> None:
    err = {"error": {"message": "boom"}}
    empty = {"id": "x", "choices": [], "usage": {"total_tokens": 3}}
    no_delta = {"id": "x", "choices": [{"index": 0, "finish_reason": None}]}
    null_delta = {"id": "x", "choices": [{"index": 0, "delta": None, "finish_reason": None}]}
    out = run([err, empty, no_delta, null_delta])
    assert out[0] is err and out[1] is empty and out[2] is no_delta and out[3] is null_delta


def test_finish_without_delta_flushes_into_a_new_delta() -> None:
    out = run(
        [chunk("see <|DSML|tool"), {"id": "chatcmpl-x", "choices": [{"index": 0, "finish_reason": "stop"}]}]
    )
    assert out[-1]["choices"][0] == {"index": 0, "finish_reason": "stop", "delta": {"content": "<|DSML|tool"}}


def test_content_after_finish_starts_a_new_sieve() -> None:
    out = run([chunk(BLOCK, "stop"), chunk("more " + BLOCK), chunk(None, "stop")])
    assert [c["index"] for c in calls_of(out)] == [0, 1]
    assert content_of(out) == "more "
    assert finish_of(out) == ["tool_calls", "tool_calls"]


def test_policy_and_names_in_the_stream() -> None:
    rejected: list[str] = []
    text = BLOCK.replace("read_file", "mcp.Read-File") + BLOCK.replace("read_file", "rm_rf")
    out = run(
        [chunk(text), chunk(None, "stop")], tools=TOOLS, unknown_tools="reject", rejected_tool_names=rejected
    )
    assert [c["function"]["name"] for c in calls_of(out)] == ["read_file"]
    assert rejected == ["rm_rf"]
    rw = ChatCompletionStreamRewriter(tool_names=["rm_rf"], unknown_tools="reject")
    got = rw.feed(chunk(text)) + rw.finish()
    assert [c["function"]["name"] for c in calls_of(got)] == ["rm_rf"]
    assert rw.rejected_tool_names == ["mcp.Read-File"]
    assert rw.finish() == []
    with pytest.raises(OpenAIFormatError):
        rw.feed(chunk("x"))


def test_rewriter_option_errors() -> None:
    with pytest.raises(OptionsError):
        ChatCompletionStreamRewriter(unknown_tools="drop")  # type: ignore[arg-type]
    with pytest.raises(InputTypeError):
        ChatCompletionStreamRewriter(tool_names="read_file")
    with pytest.raises(InputTypeError):
        ChatCompletionStreamRewriter(tool_names=[1])  # type: ignore[list-item]
    with pytest.raises(InputTypeError):
        ChatCompletionStreamRewriter(tools="x")
    with pytest.raises(InputTypeError):
        ChatCompletionStreamRewriter(id_factory="x")  # type: ignore[arg-type]


def test_arguments_follow_the_schema_in_the_stream() -> None:
    text = BLOCK.replace("<![CDATA[README.md]]>", "42")
    assert calls_of(run([chunk(text)]))[0]["function"]["arguments"] == '{"path":42}'
    assert calls_of(run([chunk(text)], tools=TOOLS))[0]["function"]["arguments"] == '{"path":"42"}'


def response(content: Any, finish: str = "stop", **msg: Any) -> dict[str, Any]:
    return {
        "id": "r",
        "object": "chat.completion",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content, **msg}, "finish_reason": finish}
        ],
    }


def test_non_streaming_rewrite() -> None:
    r = response("Sure.\n" + BLOCK + "\nok")
    before = copy.deepcopy(r)
    out = rewrite_chat_completion(r, id_factory=ids())
    assert r == before
    msg = out["choices"][0]["message"]
    assert msg["content"] == "Sure.\n\nok"
    assert msg["tool_calls"] == [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path":"README.md"}'},
        }
    ]
    assert out["choices"][0]["finish_reason"] == "tool_calls"
    plain = response("hello")
    assert rewrite_chat_completion(plain)["choices"][0] is plain["choices"][0]
    assert (
        rewrite_chat_completion(response(BLOCK, tool_calls=None))["choices"][0]["message"]["content"] is None
    )


def test_non_streaming_shapes() -> None:
    assert rewrite_chat_completion({"error": 1}) == {"error": 1}
    no_msg = {"choices": [{"index": 0, "finish_reason": "stop"}]}
    assert rewrite_chat_completion(no_msg)["choices"][0] is no_msg["choices"][0]
    null_content = response(None)
    assert rewrite_chat_completion(null_content)["choices"][0] is null_content["choices"][0]
    bad: Any
    for bad in ([], {"choices": 1}, {"choices": [1]}, {"choices": [{"message": "x"}]}, response({"a": 1})):
        with pytest.raises(OpenAIFormatError):
            rewrite_chat_completion(bad)
    rejected: list[str] = ["old"]
    rewrite_chat_completion(
        response(BLOCK.replace("read_file", "nope")),
        tools=TOOLS,
        unknown_tools="reject",
        rejected_tool_names=rejected,
    )
    assert rejected == ["old", "nope"]


def test_stream_output_is_json_serializable() -> None:
    out = run([chunk("x " + BLOCK + " y"), chunk(None, "stop")])
    assert json.loads(json.dumps(out)) == out


def test_formatting_checks_id_factory_and_start_index() -> None:
    calls = [ToolCall("ls", {})]
    with pytest.raises(InputTypeError):
        to_openai_tool_calls(calls, id_factory="call_1")  # type: ignore[arg-type]
    with pytest.raises(InputTypeError):
        to_openai_stream_deltas(calls, id_factory=5)  # type: ignore[arg-type]
    with pytest.raises(InputTypeError):
        to_openai_stream_deltas(calls, start_index="1")  # type: ignore[arg-type]


_INVOKE = '<|DSML|invoke name="read_file"><|DSML|parameter name="path">a</|DSML|parameter></|DSML|invoke>'
_CALL = '<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path": "a"}<｜tool▁call▁end｜>'
# (text, blocks, repaired[, the two with stream_arguments]): the same table is in
# parity/node/test/gateway/openai.test.js
REPAIRS = [
    (f"a <|DSML|tool_calls>{_INVOKE}</|DSML|tool_calls> b", 1, 0),
    (f"a {_INVOKE}\n</|DSML|tool_calls> b", 1, 1),  # R3: no opening wrapper
    (f"a {_INVOKE}{_INVOKE}</tool_calls>", 1, 1),
    (
        '<|DSML|tool_calls><|DSML|invoke name="read_file"><|DSML|parameter name="path"><![CDATA[a'
        "</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>",
        1,
        1,
    ),  # D8: the CDATA never closes
    (
        '<|DSML|tool_calls><|DSML|invoke name="read_file"><|DSML|parameter name="path"><![CDATA[a]]> b'
        "</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>",
        1,
        1,
    ),  # D8: a `]]>` that no closing tag follows does not close it
    (f"<｜tool▁calls▁begin｜>{_CALL}<｜tool▁calls▁end｜> b", 1, 0),
    (f"<｜tool▁calls▁begin｜>{_CALL}\n", 1, 1),  # D26: no section end
    (f"<｜tool▁calls▁begin｜>{_CALL}<｜end▁of▁sentence｜>", 1, 1),
    (f"<｜tool▁calls｜>{_CALL}<｜tool▁calls▁end｜>", 1, 0),
    (f"a `b <|DSML|tool_calls>{_INVOKE}</|DSML|tool_calls>", 1, 0),  # held to the end, complete
    (f"<｜DSML｜function_calls>{_INVOKE}</｜DSML｜function_calls>", 1, 0),
    (f"{_INVOKE}</tool_calls> and <tool_calls>{_INVOKE}</tool_calls>", 2, 1),
    (f"<tool_calls>{_INVOKE}", 0, 0, 1, 1),  # D27: text; D37: the announced call is kept
    (f"<tool_calls>{_INVOKE} b </tool_calls>", 0, 0, 1, 1),  # D37: the block breaks at "b"
    (
        '<tool_call>{"name": "f", "arguments": {"p": 1}} x</tool_call>',
        1,
        0,
        1,
        1,
    ),  # malformed; D37 once announced
    (
        '<|channel|>commentary to=functions.f<|message|>{"p": 1}',
        1,
        0,
    ),  # Harmony's end token may be the end (D58)
    (f"<tool_calls>{_INVOKE}</tool_calls|", 1, 0),  # R2.6: read as written, no repair (D58)
    ("no markup", 0, 0),
]


@pytest.mark.parametrize("case", REPAIRS)
def test_repaired_blocks_are_counted(case: tuple[Any, ...]) -> None:
    text, blocks, repaired, *announced = case
    want = {"blocks": blocks, "repaired_blocks": repaired}
    b, r = announced or (blocks, repaired)
    want_announced = {"blocks": b, "repaired_blocks": r}

    def counts(st: dict[str, int]) -> dict[str, int]:
        return {k: st[k] for k in want}

    stats: dict[str, int] = {}
    rewrite_chat_completion(
        {
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ]
        },
        stats=stats,
    )
    assert counts(stats) == want
    for size in (1, 3, len(text)):
        for finish in ("stop", None):  # flushed by the finish, or at the end of the stream
            for stream_arguments in (False, True):
                rw = ChatCompletionStreamRewriter(stream_arguments=stream_arguments)
                for i in range(0, len(text), size):
                    rw.feed(chunk(text[i : i + size]))
                rw.feed(chunk(finish=finish))
                rw.finish()
                assert counts(rw.stats) == (want_announced if stream_arguments else want)


def test_json_calls_read_after_the_backslash_repair_are_repaired_blocks() -> None:
    """D58: a JSON call in prose that reads only once R9.2 doubled its backslashes is a repaired
    block; one of valid JSON is not (the same test is in parity/node/test/openai.test.js)."""
    for text, repaired in (
        ('Open {"name": "open", "arguments": {"path": "C:\\Users\\dev"}} now', 1),
        ('Open {"name": "open", "arguments": {"path": "C:\\\\Users"}} now', 0),
    ):
        stats: dict[str, int] = {}
        rewrite_chat_completion(
            {
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                ]
            },
            stats=stats,
            json_tool_calls=True,
        )
        assert (stats["blocks"], stats["repaired_blocks"]) == (1, repaired), text
        for stream_arguments in (False, True):
            rw = ChatCompletionStreamRewriter(stream_arguments=stream_arguments, json_tool_calls=True)
            for i in range(0, len(text), 3):
                rw.feed(chunk(text[i : i + 3]))
            rw.feed(chunk(finish="stop"))
            rw.finish()
            assert (rw.stats["blocks"], rw.stats["repaired_blocks"]) == (1, repaired), text
