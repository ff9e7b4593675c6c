"""Result and event types: small frozen dataclasses whose `to_dict()` gives the docs/DRIVER.md shapes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from .errors import InputTypeError


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call: the tool `name` and its `input` object (always a dict)."""

    name: str
    input: dict[str, Any]
    id: str | None = None  # the call's id where the model wrote one (Kimi-K2, Mistral)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not isinstance(self.input, dict):
            raise InputTypeError("ToolCall needs a str name and a dict input")
        if self.id is not None and not isinstance(self.id, str):
            raise InputTypeError("ToolCall's id must be a str or None")

    def to_dict(self) -> dict[str, Any]:
        if self.id is None:
            return {"name": self.name, "input": self.input}
        return {"name": self.name, "input": self.input, "id": self.id}


@dataclass(frozen=True, slots=True)
class Malformed:
    """A call of a recognized block that cannot be executed (R18.2): its raw text, why, and its
    name when one could be read. Reported on the block's event, never shown as text."""

    raw: str
    reason: str
    name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"raw": self.raw, "reason": self.reason}
        if self.name is not None:
            d["name"] = self.name
        return d


@dataclass(frozen=True)
class TextEvent:
    """Text that is not part of a tool call, in source order. `note` says why text that looked
    like a block was released (`"capture_limit"`: the block grew past `max_capture_chars`)."""

    text: str
    note: str | None = None
    type: Literal["text"] = field(default="text", init=False)

    def __init__(self, text: str, note: str | None = None) -> None:
        # One of these is made per chunk: filling the dict directly is twice as fast as the
        # generated frozen __init__ (which goes through object.__setattr__ per field).
        d = self.__dict__
        d["text"], d["note"], d["type"] = text, note, "text"

    @property
    def source(self) -> str:
        """The input this event stands for (text, reasoning, a block's raw; "" for R16's events):
        joined over a stream it rebuilds the input but for dropped markers (D29, R15)."""
        return self.text

    def to_dict(self) -> dict[str, Any]:
        if self.note is None:
            return {"type": "text", "text": self.text}
        return {"type": "text", "text": self.text, "note": self.note}


@dataclass(frozen=True)
class ToolCallsEvent:
    """The calls of one recognized block; `raw` is the exact source span they came from.

    With `unknown_tools="reject"`, calls to undeclared tools are left out of `calls` and their
    names (as written, once each) are in `rejected_tool_names`; `calls` is empty when all were."""

    calls: tuple[ToolCall, ...]
    raw: str
    rejected_tool_names: tuple[str, ...] = ()
    format: str = ""  # the format row the block was read by (formats.py)
    malformed: tuple[Malformed, ...] = ()  # R18.2: the block's calls that cannot be executed
    repaired: tuple[str, ...] = ()  # the decisions of each repair applied (e.g. "D26")
    type: Literal["tool_calls"] = field(default="tool_calls", init=False)

    def __init__(
        self,
        calls: tuple[ToolCall, ...],
        raw: str,
        rejected_tool_names: tuple[str, ...] = (),
        format: str = "",
        malformed: tuple[Malformed, ...] = (),
        repaired: tuple[str, ...] = (),
    ) -> None:
        d = self.__dict__  # as TextEvent
        d["calls"], d["raw"], d["rejected_tool_names"], d["type"] = (
            calls,
            raw,
            rejected_tool_names,
            "tool_calls",
        )
        d["format"], d["malformed"], d["repaired"] = format, malformed, repaired

    @property
    def source(self) -> str:
        return self.raw

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "tool_calls", "calls": [c.to_dict() for c in self.calls]}
        if self.rejected_tool_names:
            d["rejectedToolNames"] = list(self.rejected_tool_names)
        if self.format:
            d["format"] = self.format
        if self.malformed:
            d["malformed"] = [m.to_dict() for m in self.malformed]
        return d


@dataclass(frozen=True)
class ReasoningEvent:
    """Text of a reasoning region (R15): not content, and markup in it is never a call."""

    text: str
    type: Literal["reasoning"] = field(default="reasoning", init=False)

    def __init__(self, text: str) -> None:
        d = self.__dict__  # as TextEvent
        d["text"], d["type"] = text, "reasoning"

    @property
    def source(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        return {"type": "reasoning", "text": self.text}


@dataclass(frozen=True, slots=True)
class ToolCallStartEvent:
    """With `stream_arguments` (R16): a call was announced as soon as its name was final.
    `index` counts the announced calls of the stream from 0; `id` is the call's own id when the
    model wrote one before the call was announced (D63), else None."""

    index: int
    name: str
    id: str | None = None
    type: ClassVar[Literal["tool_call_start"]] = "tool_call_start"
    source: ClassVar[Literal[""]] = ""

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "tool_call_start", "index": self.index, "name": self.name}
        if self.id is not None:
            d["id"] = self.id
        return d


@dataclass(frozen=True, slots=True)
class ToolCallArgumentsEvent:
    """With `stream_arguments` (R16): the next fragment of call `index`'s arguments, as JSON text.
    A call's fragments join to exactly the JSON text of its final input."""

    index: int
    delta: str
    # class attributes, not fields: one of these is made per chunk while arguments stream
    type: ClassVar[Literal["tool_call_arguments"]] = "tool_call_arguments"
    source: ClassVar[Literal[""]] = ""

    def to_dict(self) -> dict[str, Any]:
        return {"type": "tool_call_arguments", "index": self.index, "delta": self.delta}


Event = TextEvent | ToolCallsEvent | ReasoningEvent | ToolCallStartEvent | ToolCallArgumentsEvent


@dataclass(frozen=True)
class ParseResult:
    """What `parse()` returns (R7)."""

    calls: tuple[ToolCall, ...]
    saw_tool_call_syntax: bool
    rejected_by_policy: bool = False
    rejected_tool_names: tuple[str, ...] = ()
    reasoning: str = ""  # R15: the reasoning text ("" when there was none)
    text: str = ""  # the text outside calls and reasoning (the text events, joined)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "calls": [c.to_dict() for c in self.calls],
            "sawToolCallSyntax": self.saw_tool_call_syntax,
            "rejectedByPolicy": self.rejected_by_policy,
            "rejectedToolNames": list(self.rejected_tool_names),
        }
        if self.reasoning:
            d["reasoning"] = self.reasoning
        d["text"] = self.text
        return d
