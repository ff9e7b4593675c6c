"""Tool calls as OpenAI writes them (docs/SPEC.md R13): `message.tool_calls` entries and streaming
`delta.tool_calls` deltas, with their ids (the formatting rules: callsieve.openai's docstring).
The rewriters of `chunks` and `completion` write their calls with these."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .errors import InputTypeError, check_iterable
from .events import ToolCall
from .jsontext import json_text
from .schema import check_tools, normalize_input

IdFactory = Callable[[], str]


def new_call_id() -> str:
    """A fresh tool-call id: `call_` and 24 random hex digits."""
    return "call_" + secrets.token_hex(12)


def _check_id_factory(id_factory: Any) -> IdFactory | None:
    if id_factory is not None and not callable(id_factory):
        raise InputTypeError("id_factory must be callable")
    return id_factory  # type: ignore[no-any-return]


def _next_id(id_factory: IdFactory | None) -> str:
    if id_factory is None:
        return new_call_id()
    v = id_factory()
    if not isinstance(v, str):
        raise InputTypeError(f"id_factory must return str, got {type(v).__name__}")
    return v


def _check_calls(calls: Iterable[ToolCall]) -> tuple[ToolCall, ...]:
    if isinstance(calls, ToolCall):
        raise InputTypeError("calls must be a sequence of ToolCall, not a single ToolCall")
    out = tuple(check_iterable(calls, "calls"))
    for c in out:
        if not isinstance(c, ToolCall):
            raise InputTypeError(f"calls must hold ToolCall objects, got {type(c).__name__}")
    return out


class UnparsedCall(ToolCall):
    """A malformed call (R18.2) that goes out as a tool call anyway (D54): its `arguments` are
    its raw text, which is not a JSON object, so the client's own validation tells the model."""

    __slots__ = ("raw_arguments",)
    raw_arguments: str

    def __init__(self, name: str, raw_arguments: str) -> None:
        super().__init__(name, {})
        object.__setattr__(self, "raw_arguments", raw_arguments)


def _arguments(call: ToolCall, tools: Sequence[Any] | None) -> str:
    if isinstance(call, UnparsedCall):
        return call.raw_arguments
    return json_text(normalize_input(call.name, call.input, tools))


def _call_id(call: ToolCall, id_factory: IdFactory | None) -> str:
    """The id the model wrote for the call (Kimi-K2, Mistral, D50), else a fresh one."""
    return call.id if call.id else _next_id(id_factory)


def to_openai_tool_calls(
    calls: Iterable[ToolCall], *, tools: Sequence[Any] | None = None, id_factory: IdFactory | None = None
) -> list[dict[str, Any]]:
    """Calls as an OpenAI `message.tool_calls` list (R13)."""
    tools = check_tools(tools)
    id_factory = _check_id_factory(id_factory)
    return [
        {
            "id": _call_id(c, id_factory),
            "type": "function",
            "function": {"name": c.name, "arguments": _arguments(c, tools)},
        }
        for c in _check_calls(calls)
    ]


def to_openai_stream_deltas(
    calls: Iterable[ToolCall],
    *,
    tools: Sequence[Any] | None = None,
    id_factory: IdFactory | None = None,
    start_index: int = 0,
) -> list[dict[str, Any]]:
    """Calls as OpenAI streaming `delta.tool_calls` entries, each complete in one delta, with
    `index` counting from `start_index` (R13)."""
    tools = check_tools(tools)
    id_factory = _check_id_factory(id_factory)
    if isinstance(start_index, bool) or not isinstance(start_index, int):
        raise InputTypeError(f"start_index must be an int, got {type(start_index).__name__}")
    return [
        {
            "index": start_index + i,
            "id": _call_id(c, id_factory),
            "type": "function",
            "function": {"name": c.name, "arguments": _arguments(c, tools)},
        }
        for i, c in enumerate(_check_calls(calls))
    ]


__all__ = ["IdFactory", "UnparsedCall", "new_call_id", "to_openai_stream_deltas", "to_openai_tool_calls"]
