"""The public API: `parse()` and the streaming `Sieve`, both on the one incremental Scanner."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .errors import InputTypeError, OptionsError, SieveClosedError
from .events import Event, ParseResult, TextEvent, ToolCall, ToolCallsEvent
from .names import check_tool_names
from .scanner import Scanner

DEFAULT_MAX_CAPTURE = 8 * 1024 * 1024


class Sieve:
    """Streaming sieve: `feed(chunk)` returns the events that chunk decided, `flush()` the rest.

    Text comes out as soon as it cannot become part of a tool call (R8.3); a recognized block
    comes out once, as one ToolCallsEvent whose `raw` is its exact source text (R8.1, R8.2).
    """

    def __init__(
        self,
        *,
        tool_names: Iterable[str] | None = None,
        json_tool_calls: bool = False,
        max_capture_chars: int = DEFAULT_MAX_CAPTURE,
    ) -> None:
        self.tool_names = check_tool_names(tool_names)
        if isinstance(max_capture_chars, bool) or not isinstance(max_capture_chars, int):
            raise InputTypeError("max_capture_chars must be an int")
        if max_capture_chars < 1:
            raise OptionsError("max_capture_chars must be at least 1")
        if not isinstance(json_tool_calls, bool):
            raise InputTypeError("json_tool_calls must be a bool")
        self._scanner = Scanner(max_capture=max_capture_chars, json_calls=json_tool_calls)
        self._closed = False

    def feed(self, chunk: str) -> list[Event]:
        if self._closed:
            raise SieveClosedError("feed() after flush(): create a new Sieve for a new stream")
        if not isinstance(chunk, str):
            raise InputTypeError(f"feed() takes str, got {type(chunk).__name__}")
        if not chunk:
            return []
        return self._scanner.feed(chunk)

    def flush(self) -> list[Event]:
        if self._closed:
            raise SieveClosedError("flush() called twice")
        self._closed = True
        return self._scanner.finish()

    @property
    def saw_tool_call_syntax(self) -> bool:
        """True once a wrapper tag was recognized outside ignored regions (R7)."""
        return self._scanner.saw

    @property
    def work(self) -> int:
        """Debug counter: characters the scanner has been exposed to so far (new input, held
        lookahead seen again, rescans, value decoding). Linear time means work / input stays
        below a small constant, whatever the chunking."""
        return self._scanner.work


def parse(
    text: str,
    *,
    tool_names: Iterable[str] | None = None,
    json_tool_calls: bool = False,
    max_capture_chars: int = DEFAULT_MAX_CAPTURE,
) -> ParseResult:
    """One-shot parse (R7): feed everything to a Sieve, flush, collect the calls."""
    if not isinstance(text, str):
        raise InputTypeError(f"parse() takes str, got {type(text).__name__}")
    sieve = Sieve(tool_names=tool_names, json_tool_calls=json_tool_calls, max_capture_chars=max_capture_chars)
    events = sieve.feed(text) + sieve.flush()
    calls = [c for e in events if isinstance(e, ToolCallsEvent) for c in e.calls]
    return ParseResult(tuple(calls), sieve.saw_tool_call_syntax)


def coalesce(events: Sequence[Event]) -> list[Event]:
    """Join adjacent text events (the form fixtures and the driver protocol compare)."""
    out: list[Event] = []
    for e in events:
        if isinstance(e, TextEvent):
            if not e.text:
                continue
            last = out[-1] if out else None
            if isinstance(last, TextEvent):
                out[-1] = TextEvent(last.text + e.text, last.note or e.note)
                continue
        out.append(e)
    return out


__all__ = ["Sieve", "ToolCall", "coalesce", "parse"]
