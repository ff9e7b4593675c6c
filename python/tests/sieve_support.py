"""What the mutation-kill tests ask of a Sieve run: its events, what each feed releases, the
scanner's work, and whether a tool-calls event has the types it declares."""

from __future__ import annotations

from typing import Any

from callsieve import Sieve, ToolCall
from callsieve.events import Event, Malformed, ToolCallsEvent


def run(chunks: list[str], **opts: Any) -> list[Event]:
    """Every event of a run fed these chunks, then flushed."""
    s = Sieve(**opts)
    return [e for c in chunks for e in s.feed(c)] + s.flush()


def released(chunks: list[str], **opts: Any) -> list[str]:
    """What each feed (then the flush) gives back, as source text."""
    s = Sieve(**opts)
    out = ["".join(e.source for e in s.feed(c)) for c in chunks]
    return [*out, "".join(e.source for e in s.flush())]


def scanner_work(chunks: list[str], **opts: Any) -> int:
    """The scanner's share of Sieve.work: each feed's buffer (the chunk and what was held), then
    what is exposed again (a pending span's held part rescanned, a body or section decoded)."""
    s = Sieve(**opts)
    for c in chunks:
        s.feed(c)
    s.flush()
    return s._scanner.work


def event_types_hold(e: ToolCallsEvent) -> bool:
    """The event's fields are what the dataclass says (tuples, strings): a None for an empty tuple
    does not show in to_dict, which leaves empty fields out."""
    return (
        isinstance(e.calls, tuple)
        and all(isinstance(c, ToolCall) for c in e.calls)
        and isinstance(e.raw, str)
        and bool(e.raw)
        and isinstance(e.rejected_tool_names, tuple)
        and isinstance(e.format, str)
        and isinstance(e.malformed, tuple)
        and all(isinstance(m, Malformed) for m in e.malformed)
        and isinstance(e.repaired, tuple)
        and all(isinstance(r, str) for r in e.repaired)
    )
