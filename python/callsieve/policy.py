"""What the two OpenAI rewriters (`chunks`, `completion`) share: their options, checked, and the
policy each block's calls go through before they are written: the declared names and
`unknown_tools` (R10), the request's `tool_choice` and `parallel_tool_calls`, the malformed calls
that still go out (D54), and the counts (`stats`). The rules are in callsieve.openai's docstring."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .errors import InputTypeError, OpenAIFormatError, OptionsError
from .events import TextEvent, ToolCall, ToolCallsEvent
from .formats import check_preset
from .names import UnknownToolsPolicy, apply_policy, check_policy, declared_names, resolve_name
from .reasoning import ReasoningMode, check_reasoning
from .schema import check_tools
from .sieve import Sieve, check_formats
from .toolcalls import IdFactory, UnparsedCall, _check_id_factory

TOOL_CHOICES: Final = ("none", "auto", "required")


def chosen_function(tool_choice: Any) -> str | None:
    """The name of a named `tool_choice` (`{"type": "function", "function": {"name": N}}`), else None."""
    if isinstance(tool_choice, dict) and tool_choice.get("type") == "function":
        fn = tool_choice.get("function")
        if isinstance(fn, dict) and isinstance(fn.get("name"), str) and fn["name"]:
            return str(fn["name"])
    return None


def check_tool_choice(tool_choice: Any) -> Any:
    """`tool_choice` when it is None, `"none"`, `"auto"`, `"required"` or a named function, else
    an OptionsError."""
    if tool_choice is None or (isinstance(tool_choice, str) and tool_choice in TOOL_CHOICES):
        return tool_choice
    if chosen_function(tool_choice) is None:
        raise OptionsError(
            "tool_choice must be 'none', 'auto', 'required' or "
            f'{{"type": "function", "function": {{"name": ...}}}}, got {tool_choice!r}'
        )
    return tool_choice


def check_parallel_tool_calls(parallel_tool_calls: Any) -> bool | None:
    if parallel_tool_calls is not None and not isinstance(parallel_tool_calls, bool):
        raise OptionsError(f"parallel_tool_calls must be a bool or None, got {parallel_tool_calls!r}")
    return parallel_tool_calls


def _check_rejected_list(v: Any) -> None:
    if v is not None and not isinstance(v, list):
        raise InputTypeError(f"rejected_tool_names must be a list to append to, got {type(v).__name__}")


def _index_of(choice: dict[str, Any], pos: int, n: int | None) -> int:
    """The choice's index (its position when it has none); `n`: the chunk's number for errors
    (None: a whole response)."""
    if "index" not in choice:
        return pos
    idx = choice["index"]
    if isinstance(idx, bool) or not isinstance(idx, int):
        where = "response" if n is None else f"chunk {n}"
        raise OpenAIFormatError(f"{where}: choices[{pos}].index must be an integer, got {idx!r}")
    return idx


def _renamed(c: ToolCall, name: str) -> ToolCall:
    if isinstance(c, UnparsedCall):
        return UnparsedCall(name, c.raw_arguments)
    return ToolCall(name, c.input, c.id)


class _Options:
    def __init__(
        self,
        tools: Any,
        tool_names: Iterable[str] | None,
        unknown_tools: UnknownToolsPolicy,
        id_factory: IdFactory | None,
        json_tool_calls: bool = False,
        formats: Iterable[str] | None = None,
        reasoning: ReasoningMode | None = None,
        stream_arguments: bool = False,
        tool_choice: Any = None,
        parallel_tool_calls: bool | None = None,
        preset: str | None = None,
    ) -> None:
        self.preset = check_preset(preset)  # R19: formats and reasoning unless given
        if formats is None and self.preset is not None:
            formats = self.preset.formats
        if reasoning is None:
            reasoning = "auto" if self.preset is None else self.preset.reasoning  # type: ignore[assignment]
        self.tools = check_tools(tools)
        if not isinstance(stream_arguments, bool):
            raise InputTypeError("stream_arguments must be a bool")
        tool_choice = check_tool_choice(tool_choice)
        self.calls_off = tool_choice == "none"  # markup stays content
        self.only = chosen_function(tool_choice)  # a named tool_choice: only calls to it
        self.single = check_parallel_tool_calls(parallel_tool_calls) is False  # one call per choice
        self.stream_arguments = stream_arguments and not self.calls_off
        self.formats = check_formats(formats)
        self.reasoning = check_reasoning(reasoning)
        if not isinstance(json_tool_calls, bool):
            raise InputTypeError("json_tool_calls must be a bool")
        self.json_tool_calls = json_tool_calls
        self.tool_names = declared_names(tool_names, self.tools)
        self.unknown_tools = check_policy(unknown_tools)
        self.id_factory = _check_id_factory(id_factory)
        self.rejected: dict[str, None] = {}  # insertion-ordered set
        self.stats = {
            "blocks": 0,
            "calls": 0,
            "rejected_calls": 0,
            "capture_limit_releases": 0,
            "repaired_blocks": 0,
            "malformed_calls": 0,
        }

    def sieve(self) -> Sieve:
        if self.stream_arguments:  # the sieve resolves, rejects and normalizes as it announces
            return Sieve(
                tool_names=self.tool_names,
                tools=self.tools,
                unknown_tools=self.unknown_tools,
                json_tool_calls=self.json_tool_calls,
                formats=self.formats,
                reasoning=self.reasoning,
                stream_arguments=True,
                preset=self.preset.name if self.preset is not None else None,
            )
        return Sieve(
            tool_names=self.tool_names,
            json_tool_calls=self.json_tool_calls,
            formats=self.formats,
            reasoning=self.reasoning,
            preset=self.preset.name if self.preset is not None else None,
        )

    def announced(self, e: ToolCallsEvent, dropped: int = 0) -> None:
        """R16.5: a block whose calls went out as they were announced: only counted here
        (`dropped`: its calls that tool_choice or parallel_tool_calls left out)."""
        self.rejected.update(dict.fromkeys(e.rejected_tool_names))
        st = self.stats
        st["blocks"] += 1
        if e.repaired:  # the scanner's repairs (D58)
            st["repaired_blocks"] += 1
        st["calls"] += max(0, len(e.calls) - dropped)
        st["rejected_calls"] += len(e.rejected_tool_names)

    def policy(self, e: ToolCallsEvent, already: int = 0) -> tuple[ToolCall, ...]:
        """The block's calls under the reject policy (R10.2) and the request's tool_choice and
        parallel_tool_calls (`already`: the calls the choice has so far); counts the block."""
        calls = e.calls
        result = apply_policy(calls, self.tool_names, self.unknown_tools)
        self.rejected.update(dict.fromkeys(result.rejected_tool_names))
        kept = result.calls + self.unparsed(e)
        if self.only is not None:
            kept = tuple(_renamed(c, self.only) for c in kept if self.chosen(c.name) is not None)
        if self.single:
            kept = kept[: max(0, 1 - already)]
        st = self.stats
        st["blocks"] += 1
        if e.repaired:  # the scanner's repairs (D58)
            st["repaired_blocks"] += 1
        st["calls"] += len(kept)
        st["rejected_calls"] += len(calls) - len(result.calls)
        return kept

    def unparsed(self, e: ToolCallsEvent) -> tuple[ToolCall, ...]:
        """D54: the block's malformed calls that have a name, as calls with their raw text for
        arguments (under the reject policy like any call); the nameless ones are only counted."""
        self.stats["malformed_calls"] += len(e.malformed)
        named = [m for m in e.malformed if m.name]
        if not named:
            return ()
        probes = tuple(ToolCall(m.name or "", {}) for m in named)
        r = apply_policy(probes, self.tool_names, self.unknown_tools)
        self.rejected.update(dict.fromkeys(r.rejected_tool_names))
        kept = {c.name for c in r.calls}
        out = []
        for m in named:
            name = self.resolve(m.name or "")
            if name in kept:
                out.append(UnparsedCall(name, m.raw))
        return tuple(out)

    def chosen(self, name: str) -> str | None:
        """The name a call to `name` goes out with under a named tool_choice (None: dropped)."""
        if self.only is None or name == self.only:
            return name if self.only is None else self.only
        return self.only if resolve_name(name, (self.only,)) is not None else None

    def resolve(self, name: str) -> str:
        """D22: a name as the gateway hands it out (the declared spelling when it resolves)."""
        r = apply_policy((ToolCall(name, {}),), self.tool_names, "keep")
        return r.calls[0].name

    def released(self, e: TextEvent) -> None:
        if e.note == "capture_limit":
            self.stats["capture_limit_releases"] += 1


__all__ = ["TOOL_CHOICES", "check_parallel_tool_calls", "check_tool_choice", "chosen_function"]
