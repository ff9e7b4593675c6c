"""R16.5 and D63 with the official `openai` SDK's own accumulation: with `stream_arguments=True`
a call's first delta carries its own id when the model wrote it before the call was announced
(Kimi-K2, Mistral's `[CALL_ID]`, a Hermes `id` before the arguments), else a generated one, and the
message the SDK accumulates equals the one it accumulates without the option and the
non-streamed response's message, whatever the chunking."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from callsieve.openai import rewrite_chat_completion, rewrite_chat_completion_stream

openai = pytest.importorskip("openai")
from openai.lib.streaming.chat import ChatCompletionStreamState  # noqa: E402
from openai.types.chat import ChatCompletion, ChatCompletionChunk  # noqa: E402

REPLIES = {
    "kimi": (
        "Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_call_begin|>'
        "functions.get_time:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"
    ),
    "mistral": '[TOOL_CALLS]convert[CALL_ID]Zq81mPw04[ARGS]{"amount": 12, "to": "EUR"}',
    "hermes-id-first": '<tool_call>\n{"id": "h-1", "name": "lookup", "arguments": {"q": "k"}}\n</tool_call>',
    "hermes-id-late": '<tool_call>\n{"name": "lookup", "arguments": {"q": "k"}, "id": "h-19"}\n</tool_call>',
    "hermes-array": (
        '<tool_call>\n[{"name": "lookup", "arguments": {"q": "a"}, "id": "h-1"}, '
        '{"name": "lookup", "arguments": {"q": "b"}}]\n</tool_call>'
    ),
    "hermes-string-arguments": (
        '<tool_call>\n{"name": "f", "arguments": "{\\"q\\": 1}", "id": "h-7"}\n</tool_call>'
    ),
    "dsml": '<|DSML|tool_calls><|DSML|invoke name="run"><|DSML|parameter name="cmd">ls</|DSML|parameter>'
    "</|DSML|invoke></|DSML|tool_calls>",
}
BASE = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def ids() -> Callable[[], str]:
    counter = iter(range(1, 100))
    return lambda: f"call_{next(counter)}"


def chunks(text: str, size: int) -> Iterator[dict[str, Any]]:
    yield {
        **BASE,
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
    }
    for i in range(0, len(text), size):
        yield {
            **BASE,
            "choices": [{"index": 0, "delta": {"content": text[i : i + size]}, "finish_reason": None}],
        }
    yield {**BASE, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}


def accumulated(text: str, size: int, stream_arguments: bool) -> Any:
    state: Any = ChatCompletionStreamState()
    for c in rewrite_chat_completion_stream(
        chunks(text, size), stream_arguments=stream_arguments, id_factory=ids()
    ):
        state.handle_chunk(ChatCompletionChunk.model_validate(c))
    return state.get_final_completion().choices[0].message


def message(m: Any) -> dict[str, Any]:
    calls = [
        {"id": tc.id, "type": tc.type, "name": tc.function.name, "arguments": tc.function.arguments}
        for tc in m.tool_calls or []
    ]
    return {"content": m.content or None, "tool_calls": calls}


@pytest.mark.parametrize("size", [1, 3, 16, 1000])
@pytest.mark.parametrize("name", sorted(REPLIES))
def test_accumulated_stream_equals_the_non_streamed_message(name: str, size: int) -> None:
    text = REPLIES[name]
    on = message(accumulated(text, size, True))
    off = message(accumulated(text, size, False))
    response = {
        "id": "chatcmpl-s",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    }
    whole = message(
        ChatCompletion.model_validate(rewrite_chat_completion(response, id_factory=ids())).choices[0].message
    )
    assert on == off == whole


def test_own_ids_are_the_tool_call_ids() -> None:
    got = {n: [tc["id"] for tc in message(accumulated(t, 5, True))["tool_calls"]] for n, t in REPLIES.items()}
    assert got == {
        "kimi": ["functions.get_weather:0", "functions.get_time:1"],
        "mistral": ["Zq81mPw04"],
        "hermes-id-first": ["h-1"],
        "hermes-id-late": ["call_1"],  # D63: read after the call was announced
        "hermes-array": ["h-1", "call_1"],
        "hermes-string-arguments": ["h-7"],  # announced with its block: its id is known
        "dsml": ["call_1"],
    }
