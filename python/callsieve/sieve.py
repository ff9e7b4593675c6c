"""The public API: `parse()` and the streaming `Sieve`, both on the one incremental Scanner.

Declared tools (R10, R12; D22) act on each recognized block after the scanner decided it, so they
never change what is text and what is a block, nor chunk invariance:

- Declared names are `tool_names`, or else the names of `tools`. When `tools` are given or the
  policy is `"reject"`, each call name resolves through the R10.1 funnel to the declared
  spelling. `tool_names` alone (the R7 option) leaves names as written, as before R10.
- `unknown_tools="reject"` leaves out the calls whose name resolves to no declared tool; the
  block still comes out as one ToolCallsEvent (its source is never text, R8.1), with the names in
  `rejected_tool_names` and `calls` empty when all of its calls were rejected. Without declared
  names nothing is rejected.
- With `tools`, each input is normalized by its tool's schema (R12), after name resolution.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .arguments import ArgumentsWriter
from .blocks import NO_SCHEMA
from .errors import ConcurrentUseError, InputTypeError, OptionsError, SieveClosedError, check_iterable
from .events import (
    Event,
    ParseResult,
    ReasoningEvent,
    TextEvent,
    ToolCall,
    ToolCallArgumentsEvent,
    ToolCallsEvent,
    ToolCallStartEvent,
)
from .formats import DEFAULT_FORMATS, FORMATS, Preset, check_preset
from .names import apply_policy, check_policy, declared_names, resolve_tool_name
from .reasoning import Phase, ReasoningGate, ReasoningMode, check_reasoning
from .scanner import Scanner
from .schema import check_tools, find_tool_schema, keeps_text, normalize_input, property_schema, typed_value

DEFAULT_MAX_CAPTURE = 8 * 1024 * 1024
_DONE = Phase.DONE  # a module constant: read once per chunk (see scanner.py on Enum members)
_INSIDE = Phase.INSIDE
_BUSY = "a Sieve is one stream's state, not thread-safe: another feed() or flush() on it is running"


class Sieve:
    """Streaming sieve: `feed(chunk)` returns the events that chunk decided, `flush()` the rest.

    Text comes out as soon as it cannot become part of a tool call (R8.3); a recognized block
    comes out once, as one ToolCallsEvent whose `raw` is its exact source text (R8.1, R8.2).

    Not thread-safe: a Sieve is one stream's state. A `feed()` or `flush()` that starts while
    another call on the same sieve runs (in another thread) raises ConcurrentUseError and
    changes nothing; the check is a flag, not a lock (it costs about 1% of a small feed), so it
    catches misuse rather than making sharing safe: give each stream its own Sieve.
    """

    def __init__(
        self,
        *,
        tool_names: Iterable[str] | None = None,
        tools: Sequence[Any] | None = None,
        unknown_tools: str = "keep",
        json_tool_calls: bool = False,
        max_capture_chars: int = DEFAULT_MAX_CAPTURE,
        formats: Iterable[str] | None = None,
        reasoning: ReasoningMode | None = None,
        stream_arguments: bool = False,
        preset: str | None = None,
    ) -> None:
        self.preset: Preset | None = check_preset(preset)
        if formats is None and self.preset is not None:
            formats = self.preset.formats
        if reasoning is None:
            reasoning = "auto" if self.preset is None else self.preset.reasoning  # type: ignore[assignment]
        self.tools = check_tools(tools)
        self.reasoning = check_reasoning(reasoning)
        if not isinstance(stream_arguments, bool):
            raise InputTypeError("stream_arguments must be a bool")
        self.stream_arguments = stream_arguments
        self.formats = check_formats(formats)
        self.unknown_tools = check_policy(unknown_tools)
        self.tool_names = declared_names(tool_names, tools)
        self._rejected: dict[str, None] = {}
        if isinstance(max_capture_chars, bool) or not isinstance(max_capture_chars, int):
            raise InputTypeError("max_capture_chars must be an int")
        if max_capture_chars < 1:
            raise OptionsError("max_capture_chars must be at least 1")
        if not isinstance(json_tool_calls, bool):
            raise InputTypeError("json_tool_calls must be a bool")
        self._scanner = Scanner(
            max_capture=max_capture_chars,
            json_calls=json_tool_calls,
            formats=self.formats,
            stream_arguments=stream_arguments,
            typer=SchemaTyper(self.tools, self.tool_names) if self.tools is not None else None,
        )
        self._writer = (
            ArgumentsWriter(ToolCallStartEvent, ToolCallArgumentsEvent) if stream_arguments else None
        )
        self._gate = (
            ReasoningGate(self.reasoning)
            if self.preset is None
            else ReasoningGate(self.reasoning, self.preset.think)
        )
        self._closed = False
        self._busy = False  # a feed() or flush() is running (ConcurrentUseError)
        # The scanner's feed once nothing stands between it and the chunks (no reasoning left to
        # look for, nothing declared that acts on calls, no incremental arguments): set by the
        # first feed that finds it so, cleared by flush. This runs once per chunk.
        self._direct: Callable[[str], list[Event]] | None = None

    def feed(self, chunk: str) -> list[Event]:
        if self._busy:
            raise ConcurrentUseError(_BUSY)
        self._busy = True
        try:
            direct = self._direct
            if direct is not None and chunk.__class__ is str:
                return direct(chunk)
            if self._closed:
                raise SieveClosedError("feed() after flush(): create a new Sieve for a new stream")
            if not isinstance(chunk, str):
                raise InputTypeError(f"feed() takes str, got {type(chunk).__name__}")
            if not chunk:
                return []
            gate = self._gate
            if gate.phase is not _DONE:
                if gate.phase is _INSIDE and not gate.held and gate.lead not in chunk:
                    # in a reasoning region, no closing marker can start in this chunk (R15)
                    gate.work += len(chunk)
                    return [ReasoningEvent(chunk)]
                return self._declared(self._pass(gate.feed(chunk)))
            if self._writer is None and not self._acts():
                self._direct = self._scanner.feed
                return self._direct(chunk)
            return self._declared(self._scanner.feed(chunk))
        finally:
            self._busy = False

    def flush(self) -> list[Event]:
        if self._busy:
            raise ConcurrentUseError(_BUSY)
        self._busy = True
        try:
            if self._closed:
                raise SieveClosedError("flush() called twice")
            self._closed = True
            self._direct = None
            events = self._pass(self._gate.finish())
            return self._declared(events + self._scanner.finish())
        finally:
            self._busy = False

    def _pass(self, pieces: list[tuple[bool, str]]) -> list[Event]:
        """Reasoning pieces become events; content pieces go through the scanner."""
        if len(pieces) == 1 and not pieces[0][0]:
            return self._scanner.feed(pieces[0][1])
        events: list[Event] = []
        for reasoning, text in pieces:
            if reasoning:
                events.append(ReasoningEvent(text))
            else:
                events += self._scanner.feed(text)
        return events

    def _declared(self, events: list[Event]) -> list[Event]:
        if self._writer is not None:
            # the Sieve's treatment of calls, as bound methods for this call only (kept by the
            # writer they would make the Sieve a reference cycle)
            out: list[Event] = self._writer.events(events, self._resolve, self._normalize_input, self._apply)
            return out
        if not self._acts():
            return events  # R1-R8 behavior: nothing declared that acts on calls
        return [self._apply(e) if isinstance(e, ToolCallsEvent) else e for e in events]

    def _acts(self) -> bool:
        """Do declared tools act on calls (names, policy, schemas)?"""
        return self.tools is not None or (bool(self.tool_names) and self.unknown_tools != "keep")

    def _resolve(self, name: str) -> str | None:
        """R16: a call's name as the block's event will have it, or None when it is rejected."""
        if not self._acts():
            return name
        r = apply_policy((ToolCall(name, {}),), self.tool_names, self.unknown_tools)
        return r.calls[0].name if r.calls else None

    def _normalize_input(self, name: str, inp: dict[str, Any]) -> dict[str, Any]:
        return inp if self.tools is None else normalize_input(name, inp, self.tools)

    def _apply(self, e: ToolCallsEvent) -> ToolCallsEvent:
        if not self._acts():
            return e
        r = apply_policy(e.calls, self.tool_names, self.unknown_tools)
        calls = r.calls if self.tools is None else tuple(self._normalized(c) for c in r.calls)
        self._rejected.update(dict.fromkeys(r.rejected_tool_names))
        return ToolCallsEvent(calls, e.raw, r.rejected_tool_names, e.format, e.malformed, e.repaired)

    def _normalized(self, c: ToolCall) -> ToolCall:
        inp = normalize_input(c.name, c.input, self.tools)
        return c if inp is c.input else ToolCall(c.name, inp, c.id)

    @property
    def rejected_tool_names(self) -> tuple[str, ...]:
        """Names rejected by `unknown_tools="reject"` so far, once each, in order of appearance."""
        return tuple(self._rejected)

    @property
    def saw_tool_call_syntax(self) -> bool:
        """True once a wrapper tag was recognized outside ignored regions (R7, D11)."""
        return self._scanner.saw

    @property
    def work(self) -> int:
        """Debug counter: characters the scanner has been exposed to so far (new input, held
        lookahead seen again, rescans, value decoding). Linear time means work / input stays
        below a small constant, whatever the chunking."""
        tap = self._scanner.tap
        return self._scanner.work + self._gate.work + (tap.work if tap is not None else 0)


class SchemaTyper:
    """R17.9: a raw-text value of a call, typed by its tool's declared schema; the string as
    written when it does not convert; NO_SCHEMA when the parameter has none. The scanner owns it
    (it holds no reference back to the Sieve: no cycle for the GC to find)."""

    __slots__ = ("_schemas", "tool_names", "tools")

    def __init__(self, tools: Sequence[Any], tool_names: Sequence[str]) -> None:
        self.tools = tools
        self.tool_names = tool_names
        self._schemas: dict[str, dict[str, Any] | None] = {}  # call name -> its tool's schema

    def _schema(self, name: str) -> dict[str, Any] | None:
        schemas = self._schemas
        if name in schemas:
            return schemas[name]
        resolved = resolve_tool_name(name, self.tool_names) if self.tool_names else name
        schema = find_tool_schema(self.tools, resolved if resolved is not None else name)
        if len(schemas) >= 1024:
            schemas.clear()
        schemas[name] = schema
        return schema

    def __call__(self, name: str, key: str, raw: str) -> Any:
        prop = property_schema(self._schema(name), key)
        if prop is None:
            return NO_SCHEMA
        ok, v = typed_value(prop, raw)
        return v if ok else raw

    def kind(self, name: str, key: str) -> int:
        """R16: 0 no schema entry for `key`; 1 its value stays the text as written; 2 it may be
        typed otherwise (it streams only once whole)."""
        prop = property_schema(self._schema(name), key)
        if prop is None:
            return 0
        return 1 if keeps_text(prop) else 2


def check_formats(formats: Iterable[str] | None) -> frozenset[str]:
    """The `formats` option (R14.9, D23): None means the default formats (R19.3: every format
    that is unambiguous); else names from FORMATS."""
    if formats is None:
        return DEFAULT_FORMATS
    if isinstance(formats, (str, Mapping)) or not isinstance(formats, Iterable):
        raise InputTypeError("formats must be a list of format names, e.g. ['dsml', 'tokens']")
    names = list(formats)
    for f in names:
        if not isinstance(f, str):
            raise InputTypeError("formats must be a list of strings")
        if f not in FORMATS:
            raise OptionsError(f"unknown format {f!r}; known: {', '.join(FORMATS)}")
    return frozenset(names)


def parse(
    text: str,
    *,
    tool_names: Iterable[str] | None = None,
    tools: Sequence[Any] | None = None,
    unknown_tools: str = "keep",
    json_tool_calls: bool = False,
    max_capture_chars: int = DEFAULT_MAX_CAPTURE,
    formats: Iterable[str] | None = None,
    reasoning: ReasoningMode | None = None,
    stream_arguments: bool = False,
    preset: str | None = None,
) -> ParseResult:
    """One-shot parse (R7): feed everything to a Sieve, flush, collect the calls and the text.
    `rejected_by_policy` is true when calls were found and `unknown_tools="reject"` left none."""
    if not isinstance(text, str):
        raise InputTypeError(f"parse() takes str, got {type(text).__name__}")
    sieve = Sieve(
        tool_names=tool_names,
        tools=tools,
        unknown_tools=unknown_tools,
        json_tool_calls=json_tool_calls,
        max_capture_chars=max_capture_chars,
        formats=formats,
        reasoning=reasoning,
        stream_arguments=stream_arguments,
        preset=preset,
    )
    events = sieve.feed(text) + sieve.flush()
    calls = [c for e in events if isinstance(e, ToolCallsEvent) for c in e.calls]
    rejected = sieve.rejected_tool_names
    thought = "".join(e.text for e in events if isinstance(e, ReasoningEvent))
    prose = "".join(e.text for e in events if isinstance(e, TextEvent))
    return ParseResult(
        tuple(calls), sieve.saw_tool_call_syntax, bool(rejected) and not calls, rejected, thought, prose
    )


def coalesce(events: Sequence[Event]) -> list[Event]:
    """Join adjacent text events, adjacent reasoning events, and adjacent argument fragments of
    one call (the form fixtures and the driver protocol compare)."""
    out: list[Event] = []
    for e in check_iterable(events, "events"):
        last = out[-1] if out else None
        if isinstance(e, TextEvent):
            if not e.text:
                continue
            if isinstance(last, TextEvent):
                out[-1] = TextEvent(last.text + e.text, last.note or e.note)
                continue
        elif isinstance(e, ReasoningEvent):
            if not e.text:
                continue
            if isinstance(last, ReasoningEvent):
                out[-1] = ReasoningEvent(last.text + e.text)
                continue
        elif (
            isinstance(e, ToolCallArgumentsEvent)
            and isinstance(last, ToolCallArgumentsEvent)
            and last.index == e.index
        ):
            out[-1] = ToolCallArgumentsEvent(e.index, last.delta + e.delta)
            continue
        out.append(e)
    return out


__all__ = ["FORMATS", "Sieve", "ToolCall", "check_formats", "coalesce", "parse"]
