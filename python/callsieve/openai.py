"""OpenAI output (docs/SPEC.md R13): tool calls as OpenAI `tool_calls`, and a gateway that rewrites
OpenAI chat completions whose text carries DSML tool-call markup into native tool calls.

    from callsieve.openai import rewrite_chat_completion_stream
    for chunk in rewrite_chat_completion_stream(upstream_chunks, tools=request["tools"]):
        send(chunk)

Formatting (`to_openai_tool_calls`, `to_openai_stream_deltas`): each call becomes
`{"id": "call_…", "type": "function", "function": {"name", "arguments"}}` (stream deltas start with
`"index"`). `arguments` is the JSON text (`schema.json_text`, as JavaScript's JSON.stringify writes
it) of the input normalized by the tool's schema (R12). Ids are `call_` + 24 random hex digits, or
whatever `id_factory()` returns (one call per tool call, in order).

Gateway decisions (where R13 is silent; D20):

- Each choice (`choices[].index`, or its position when `index` is missing) has its own Sieve; its
  `delta.content` goes through it. Released text stays `delta.content`; calls become
  `delta.tool_calls` with `index` counting the calls of that choice from 0, above every index
  already taken. Upstream's own native `tool_calls` pass through; their index is kept unless
  another call already took it, and then moves (in every delta of that call) to the next free
  index, so indices never collide. A chunk whose choice releases sieved calls while its upstream
  `tool_calls` is not a list raises `OpenAIFormatError`.
- Output follows the input chunks: each input chunk gives one output chunk with all its
  fields (id, model, created, role, logprobs, usage, unknown fields) and the first piece of what
  its content released (`null` when the first piece is calls or reasoning); when the content
  released more than one piece (text, then calls, then text), the further pieces follow in extra
  chunks that copy the envelope (every top-level field but `choices`) and hold one choice
  `{index, delta, finish_reason}`. A non-null `usage` moves to the last chunk of such a group.
- An output chunk is written only when it carries something (item 5 of issue 40: no empty
  content deltas): a chunk whose choices all carry nothing (a `delta` object, and every delta
  value and every other choice field but `index` null, `""`, `[]` or `{}`) and without a `usage`
  gives no output
  chunk, whether the sieve holds its content or upstream sent it empty. A choice whose content
  the sieve holds keeps `"content": ""` only when its delta carries `role` (the first chunk, as
  OpenAI's API writes it), else `"content": null` (when the chunk is written for its other
  fields, such as `logprobs`).
- A choice's sieve is flushed when its `finish_reason` arrives (what it held comes out before or
  with the finish) or, for choices that never finish, at the end of the stream (extra chunks with
  the envelope of the last chunk with choices, `finish_reason` null). Content for a choice after
  its finish starts a new sieve.
- `finish_reason` `"stop"` becomes `"tool_calls"` when the choice emitted at least one call;
  other reasons (`"length"`, `"content_filter"`, …) are kept.
- `json_tool_calls=True` also takes JSON tool calls in prose (R9) out of the content.
- `stream_arguments=True` (R16.5, D39, streaming only): each call goes out as OpenAI's API streams it,
  a first delta with `index`, `id`, `type`, `name` and `arguments: ""` as soon as its name is
  final, then `arguments` fragments as they arrive; the accumulated message is the same as
  without the option (but for blocks that break after a call started, R16.3).
- Reasoning (R15.4, D35, the `reasoning` option, "auto" by default): a reasoning region in the content
  comes out as `delta.reasoning_content` (with `content` null in that delta) or
  `message.reasoning_content`, appended to any reasoning_content upstream already sent.
- The request's `tool_choice` and `parallel_tool_calls` (the `tool_choice` and
  `parallel_tool_calls` options; `callsieve.request.response_options(body)` reads them from a
  request body). They govern the calls taken out of the content; upstream's own native
  `tool_calls` pass through (upstream got the same request). `"none"`: markup is the model's
  text: blocks are released as content verbatim (reasoning still comes out as reasoning), no
  call, `finish_reason` kept. `"auto"` or None: every call. `"required"`: every call, and an
  output without one is left as it is (a gateway cannot make a call up). A named function
  (`{"type": "function", "function": {"name": N}}`): only calls whose name is N (or resolves to N,
  R10) are kept, with the name N; calls to other tools are dropped (like rejected calls, but
  their names are not in `rejected_tool_names`). `parallel_tool_calls=False`: a choice gets at
  most one call: the first kept call (counting upstream's native calls of that choice) stays,
  every later one is dropped. With `stream_arguments`, a dropped call is dropped when its name
  is final, its argument fragments with it. `stats["calls"]` counts the calls sent.
- Names resolve against the declared names (R10: `tool_names`, or else the names in `tools`),
  also when only `tool_names` are given (unlike `parse`, D22: a gateway exists to hand clients
  the declared names);
  with `unknown_tools="reject"`, calls to undeclared tools are dropped and their names collected
  (`ChatCompletionStreamRewriter.rejected_tool_names`, or the `rejected_tool_names` list argument).
- Malformed input: a chunk (or response) that is a dict without `choices` (an upstream error
  object, a keep-alive) passes through unchanged; a choice without `delta` / `message`, or with a
  null content, passes through. Anything the rewriter would otherwise have to drop or reorder
  raises `OpenAIFormatError`: a chunk that is not a dict, `choices` that is not a list, a choice
  that is not a dict, an `index` that is not an integer, a `delta` / `message` that is not a dict,
  a content that is not a string.
- The chunks and responses may be the `openai` SDK's own objects (`ChatCompletionChunk`,
  `ChatCompletion`; anything with a pydantic-style `model_dump`): they are read as
  `model_dump(exclude_unset=True)` (the fields the server sent). `rewrite_chat_completion`
  returns an object of the same type (built with its `model_validate`; the object itself when
  nothing changed) and a dict for a dict; the stream rewriters give dicts.
- `arewrite_chat_completion_stream` is the same rewriter for `async for` (chunks from an async
  iterable, or a plain one).
- In a non-streaming response, `message.content` becomes the text left around the calls, or null
  when calls were found and no text is left; `message.tool_calls` is upstream's list (if any)
  followed by the new calls.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Sequence
from typing import Any, Final

from .errors import InputTypeError, OpenAIFormatError, OptionsError, check_iterable
from .events import (
    Event,
    ReasoningEvent,
    TextEvent,
    ToolCall,
    ToolCallArgumentsEvent,
    ToolCallsEvent,
    ToolCallStartEvent,
)
from .formats import check_preset
from .jsontext import json_text
from .names import UnknownToolsPolicy, apply_policy, check_policy, declared_names, resolve_name
from .reasoning import ReasoningMode, check_reasoning
from .schema import check_tools, normalize_input
from .sections import SECTION_END, match_marker
from .shell import INVOKE, KEYWORDS_ALL, OPEN_ANGLES, Tag, match_tag
from .sieve import Sieve, check_formats
from .sse import aiter_any

IdFactory = Callable[[], str]


def as_json_object(obj: Any) -> Any:
    """A dict for an SDK object (anything with `model_dump`: the fields that were set, as JSON
    types); anything else as it is."""
    if isinstance(obj, dict):
        return obj
    dump = getattr(obj, "model_dump", None)
    if dump is None or not callable(dump):
        return obj
    try:
        return dump(exclude_unset=True, mode="json")
    except TypeError:  # a model_dump without pydantic's keywords
        return dump()


def _sdk_type(obj: Any) -> Any:
    """The SDK class of a chunk or response object (one with `model_validate`), or None."""
    if isinstance(obj, dict):
        return None
    validate = getattr(type(obj), "model_validate", None)
    return type(obj) if callable(validate) else None


def _as_sdk(kind: Any, out: dict[str, Any]) -> Any:
    """SDK objects in, SDK objects out: a rewritten chunk as the class its input came as."""
    return out if kind is None else kind.model_validate(out)


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


def _check_rejected_list(v: Any) -> None:
    if v is not None and not isinstance(v, list):
        raise InputTypeError(f"rejected_tool_names must be a list to append to, got {type(v).__name__}")


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

    def announced(self, e: ToolCallsEvent, at_end: bool, dropped: int = 0) -> None:
        """R16.5: a block whose calls went out as they were announced: only counted here
        (`dropped`: its calls that tool_choice or parallel_tool_calls left out)."""
        self.rejected.update(dict.fromkeys(e.rejected_tool_names))
        st = self.stats
        st["blocks"] += 1
        if e.repaired or self.repaired(e.raw, at_end):
            st["repaired_blocks"] += 1
        st["calls"] += max(0, len(e.calls) - dropped)
        st["rejected_calls"] += len(e.rejected_tool_names)

    def policy(self, e: ToolCallsEvent, at_end: bool, already: int = 0) -> tuple[ToolCall, ...]:
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
        if e.repaired or self.repaired(e.raw, at_end):
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

    def repaired(self, raw: str, at_end: bool) -> bool:
        """Whether the sieve had to repair the block whose source is `raw` (`at_end`: it came
        out when the sieve was flushed): a token section without its section end (D26), a run
        of bare invokes without its opening wrapper (R3, D6), or a block that is no call when
        its source is fed alone (an unclosed CDATA completed at the end of the output, D8; a
        block that broke after a call was announced, D37)."""
        if not raw or raw[0] not in OPEN_ANGLES:
            return False  # a JSON call (R9)
        if isinstance(match_marker(raw, 0, True), tuple):  # a token section (R14.4, R14.5)
            end = match_marker(raw, raw.rfind("<"), True)  # a section ends at its end marker
            return not (isinstance(end, tuple) and end[0] == SECTION_END and end[1] == len(raw))
        tag = match_tag(raw, 0, True, KEYWORDS_ALL)
        if isinstance(tag, Tag) and tag.local == INVOKE:
            return True
        if not at_end and not self.stream_arguments:
            return False  # a block that closed as it arrived is complete as written (but D37)
        alone = Sieve(json_tool_calls=self.json_tool_calls, formats=self.formats, reasoning="off")
        return not any(isinstance(e, ToolCallsEvent) for e in alone.feed(raw))

    def resolve(self, name: str) -> str:
        """D22: a name as the gateway hands it out (the declared spelling when it resolves)."""
        r = apply_policy((ToolCall(name, {}),), self.tool_names, "keep")
        return r.calls[0].name

    def released(self, e: TextEvent) -> None:
        if e.note == "capture_limit":
            self.stats["capture_limit_releases"] += 1


_MAX_SAFE_INDEX: Final = 2**53 - 1  # beyond it JavaScript cannot count on
_FAST = True  # ChatCompletionStreamRewriter.feed's fast path (a test turns it off to compare)


class _Choice:
    __slots__ = ("dropped", "emitted", "native", "next_index", "sieve", "streamed", "taken")

    def __init__(self) -> None:
        self.sieve: Sieve | None = None
        self.streamed: dict[int, int] = {}  # R16.5: the sieve's call index -> output index (-1: dropped)
        self.dropped = 0  # R16.5: calls announced and dropped since the last block
        self.next_index = 0  # above every index taken so far: where sieved calls go
        self.emitted = False
        self.native: dict[int, int] = {}  # upstream tool_calls index -> output index
        self.taken: set[int] = set()

    def take(self, start: int, count: int) -> None:
        """Sieved calls took `count` indices from `start` (= next_index)."""
        self.taken.update(range(start, start + count))
        self.next_index = max(self.next_index, start + count)

    def map_native(self, calls: list[Any]) -> list[Any]:
        """Upstream's own `tool_calls` deltas with indices that never collide: an index keeps its
        value unless another call already took it (then it moves to the next free one, for all of
        its deltas). Indices that are not integers in 0..2**53-1 pass as they are. The list itself
        when nothing changed."""
        out: list[Any] | None = None
        for k, tc in enumerate(calls):
            i = tc.get("index") if isinstance(tc, dict) else None
            if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i <= _MAX_SAFE_INDEX:
                continue
            j = self.native.get(i)
            if j is None:
                j = i if i not in self.taken else self.next_index
                self.native[i] = j
                self.taken.add(j)
                self.next_index = max(self.next_index, j + 1)
            if j != i:
                out = list(calls) if out is None else out
                out[k] = {**tc, "index": j}
        return calls if out is None else out


def _renamed(c: ToolCall, name: str) -> ToolCall:
    if isinstance(c, UnparsedCall):
        return UnparsedCall(name, c.raw_arguments)
    return ToolCall(name, c.input, c.id)


def _extend(deltas: list[dict[str, Any]], more: list[dict[str, Any]]) -> None:
    """Add tool_calls deltas; argument fragments of one call in a row become one fragment."""
    for d in more:
        last = deltas[-1] if deltas else None
        if last is not None and "id" not in d and "id" not in last and last["index"] == d["index"]:
            last["function"]["arguments"] += d["function"]["arguments"]
        else:
            deltas.append(d)


_MISSING: Final = object()
_PLAIN_CHOICE: Final = frozenset(("index", "delta"))


def _envelope(chunk: dict[str, Any]) -> dict[str, Any]:
    """Every top-level field of a chunk but `choices`."""
    return {k: v for k, v in chunk.items() if k != "choices"}


def _empty(v: Any) -> bool:
    return v is None or ((type(v) is str or type(v) is list or type(v) is dict) and not v)


def _carries(choice: Any) -> bool:
    """Whether an output choice carries something (see the module docstring); a choice without
    a delta object passes as it is."""
    if not isinstance(choice, dict) or not isinstance(choice.get("delta"), dict):
        return True
    for k, v in choice.items():
        if k == "delta":
            if any(not _empty(x) for x in v.values()):
                return True
        elif k != "index" and not _empty(v):
            return True
    return False


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


class ChatCompletionStreamRewriter:
    """The streaming gateway as an object: `feed(chunk)` returns the output chunks for one input
    `chat.completion.chunk` dict, `finish()` the chunks still held at the end of the stream.
    See the module docstring for the rules."""

    def __init__(
        self,
        *,
        tools: Sequence[Any] | None = None,
        tool_names: Iterable[str] | None = None,
        unknown_tools: UnknownToolsPolicy = "keep",
        id_factory: IdFactory | None = None,
        json_tool_calls: bool = False,
        formats: Iterable[str] | None = None,
        reasoning: ReasoningMode | None = None,
        stream_arguments: bool = False,
        tool_choice: Any = None,
        parallel_tool_calls: bool | None = None,
        preset: str | None = None,
    ) -> None:
        self._opts = _Options(
            tools,
            tool_names,
            unknown_tools,
            id_factory,
            json_tool_calls,
            formats,
            reasoning,
            stream_arguments,
            tool_choice,
            parallel_tool_calls,
            preset,
        )
        self._choices: dict[int, _Choice] = {}
        self._last: dict[str, Any] | None = None  # the last chunk with choices: its envelope
        self._count = 0
        self._finished = False

    @property
    def rejected_tool_names(self) -> list[str]:
        """Names of calls dropped by `unknown_tools="reject"` so far, once each, in order."""
        return list(self._opts.rejected)

    @property
    def stats(self) -> dict[str, int]:
        """Counts so far: `blocks` (tool-call blocks recognized), `calls` (calls emitted),
        `rejected_calls` (dropped by the reject policy), `capture_limit_releases` (blocks longer
        than `max_capture_chars`, released as text), `repaired_blocks` (blocks the sieve had to
        repair: a missing opening wrapper, R3; a token section without its end, D26; a block
        completed because the output ended, D8 and D37)."""
        return dict(self._opts.stats)

    def _pieces(self, st: _Choice, events: list[Event], end_from: int) -> list[dict[str, Any]]:
        """The deltas for a choice's events; those from `end_from` on came from a flush."""
        out: list[dict[str, Any]] = []
        for k, e in enumerate(events):
            if self._opts.calls_off and isinstance(e, ToolCallsEvent):
                e = TextEvent(e.raw)  # tool_choice "none": the markup is the model's text
            if isinstance(e, TextEvent):
                if e.note is not None:
                    self._opts.released(e)
                if not e.text:
                    continue
                if out and "content" in out[-1]:
                    out[-1]["content"] += e.text
                else:
                    out.append({"content": e.text})
                continue
            if isinstance(e, ReasoningEvent):
                if out and "reasoning_content" in out[-1]:
                    out[-1]["reasoning_content"] += e.text
                else:
                    out.append({"reasoning_content": e.text})
                continue
            if not isinstance(e, ToolCallsEvent):
                d = self._streamed(st, e)
                if d is None:
                    continue
                deltas = [d]
            elif self._opts.stream_arguments:
                self._opts.announced(e, k >= end_from, st.dropped)
                st.dropped = 0
                continue
            else:
                calls = self._opts.policy(e, k >= end_from, len(st.taken))
                if not calls:
                    continue
                deltas = to_openai_stream_deltas(
                    calls, tools=self._opts.tools, id_factory=self._opts.id_factory, start_index=st.next_index
                )
                st.take(st.next_index, len(deltas))
            st.emitted = True
            if out and "tool_calls" in out[-1]:
                _extend(out[-1]["tool_calls"], deltas)
            else:
                out.append({"tool_calls": deltas})
        return out

    def _streamed(self, st: _Choice, e: ToolCallStartEvent | ToolCallArgumentsEvent) -> dict[str, Any] | None:
        """R16.5: a call's first delta (index, id, type, name, empty arguments), then its
        argument fragments, as OpenAI's API streams them; None for a call tool_choice or
        parallel_tool_calls leaves out."""
        if isinstance(e, ToolCallArgumentsEvent):
            j = st.streamed[e.index]
            return None if j < 0 else {"index": j, "function": {"arguments": e.delta}}
        name = self._opts.chosen(self._opts.resolve(e.name))
        if name is None or (self._opts.single and st.taken):
            st.streamed[e.index] = -1
            st.dropped += 1
            return None
        index = st.next_index
        st.streamed[e.index] = index
        st.take(index, 1)
        return {
            "index": index,
            "id": _next_id(self._opts.id_factory),
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }

    def _finish_reason(self, st: _Choice, reason: Any) -> Any:
        return "tool_calls" if reason == "stop" and st.emitted else reason

    @staticmethod
    def _extra(envelope: dict[str, Any], index: int, delta: dict[str, Any], finish: Any) -> dict[str, Any]:
        out = dict(envelope)
        out["choices"] = [{"index": index, "delta": delta, "finish_reason": finish}]
        return out

    def feed(self, chunk: Any) -> list[dict[str, Any]]:
        """The output chunks for one input chunk, in order."""
        if self._finished:
            raise OpenAIFormatError("feed() after finish()")
        self._count += 1
        # The common chunk, decided here: one choice whose delta carries content for a sieve
        # already open, no upstream tool_calls, no finish, and what the sieve releases is at most
        # one plain piece of text. It gives what _feed gives (test_gateway_fast_paths.py).
        if type(chunk) is dict and _FAST:
            choices = chunk.get("choices")
            if type(choices) is list and len(choices) == 1:
                choice = choices[0]
                if type(choice) is dict and choice.get("finish_reason") is None:
                    delta = choice.get("delta")
                    idx = choice.get("index", 0)
                    if type(delta) is dict and type(idx) is int:
                        content = delta.get("content")
                        st = self._choices.get(idx)
                        if (
                            type(content) is str
                            and content
                            and st is not None
                            and st.sieve is not None
                            and delta.get("tool_calls") is None
                        ):
                            events = st.sieve.feed(content)
                            if not events:  # held by the sieve: a chunk of nothing is not written
                                if (
                                    len(delta) == 1
                                    and _empty(chunk.get("usage"))
                                    and all(k in _PLAIN_CHOICE or _empty(v) for k, v in choice.items())
                                ):
                                    self._last = chunk
                                    return []
                                return self._feed(chunk, events)
                            e = events[0]
                            if len(events) != 1 or type(e) is not TextEvent or e.note is not None:
                                return self._feed(chunk, events)
                            content = e.text
                            self._last = chunk
                            new_delta = dict(delta)
                            new_delta["content"] = content
                            new_choice = dict(choice)
                            new_choice["delta"] = new_delta
                            new_choice["finish_reason"] = None
                            main = dict(chunk)
                            main["choices"] = [new_choice]
                            return [main]
        return self._feed(chunk, None)

    def _feed(self, chunk: Any, fed: list[Event] | None) -> list[dict[str, Any]]:
        """feed() in general; `fed`: the events the sieve of the chunk's only choice already
        gave for its content (from feed's fast path)."""
        n = self._count  # `chunk N` in error messages
        if type(chunk) is not dict:
            chunk = as_json_object(chunk)
            if not isinstance(chunk, dict):
                raise OpenAIFormatError(f"chunk {n} is a {type(chunk).__name__}, not a JSON object")
        choices = chunk.get("choices", _MISSING)
        if choices is _MISSING:
            return [chunk]
        if type(choices) is not list and not isinstance(choices, list):
            raise OpenAIFormatError(f"chunk {n}: choices must be a list, got {type(choices).__name__}")
        if not choices:
            return [chunk]
        self._last = chunk
        envelope: dict[str, Any] | None = None
        out_choices: list[Any] = []
        extras: list[dict[str, Any]] = []
        changed = False  # a choice was rebuilt (extras come only with a rebuilt choice)
        for pos, choice in enumerate(choices):
            if not isinstance(choice, dict):
                kind = type(choice).__name__
                raise OpenAIFormatError(f"chunk {n}: choices[{pos}] is a {kind}, not an object")
            idx = _index_of(choice, pos, n)
            delta = choice.get("delta")
            if delta is not None and not isinstance(delta, dict):
                raise OpenAIFormatError(f"chunk {n}: choices[{pos}].delta must be an object")
            content = delta.get("content") if delta is not None else None
            if content is not None and not isinstance(content, str):
                raise OpenAIFormatError(
                    f"chunk {n}: choices[{pos}].delta.content must be a string, got {type(content).__name__}"
                )
            st = self._choices.get(idx)
            if st is None:
                st = self._choices[idx] = _Choice()
            upstream_calls = delta.get("tool_calls") if delta is not None else None
            native = st.map_native(upstream_calls) if isinstance(upstream_calls, list) else upstream_calls
            events: list[Event] = []
            if fed is not None:
                events += fed
            elif content:
                if st.sieve is None:
                    st.sieve = self._opts.sieve()
                    st.streamed = {}
                events += st.sieve.feed(content)
            finish = choice.get("finish_reason")
            end_from = len(events)
            if finish is not None and st.sieve is not None:
                events += st.sieve.flush()
                st.sieve = None
            pieces = self._pieces(st, events, end_from)
            if native is not None and not isinstance(native, list) and any("tool_calls" in p for p in pieces):
                raise OpenAIFormatError(
                    f"chunk {n}: choices[{pos}].delta.tool_calls must be a list to add calls to"
                )
            if finish is not None:
                finish = self._finish_reason(st, finish)
            remapped = native is not upstream_calls
            if not content and not pieces and not remapped and finish == choice.get("finish_reason"):
                out_choices.append(choice)
                continue
            changed = True
            new_choice = dict(choice)
            if content or pieces or remapped:
                new_delta = dict(delta) if delta is not None else {}
                if remapped:
                    new_delta["tool_calls"] = native
                if content:  # held by the sieve, unless a piece says otherwise
                    new_delta["content"] = "" if not _empty(new_delta.get("role")) else None
                if pieces:
                    first = pieces[0]
                    if "content" in first:
                        new_delta["content"] = first["content"]
                    elif "reasoning_content" in first:
                        if "content" in new_delta:
                            new_delta["content"] = None
                        before = new_delta.get("reasoning_content")
                        text = first["reasoning_content"]
                        new_delta["reasoning_content"] = before + text if isinstance(before, str) else text
                    else:
                        if "content" in new_delta:
                            new_delta["content"] = None
                        mine = first["tool_calls"]
                        new_delta["tool_calls"] = [*native, *mine] if native is not None else mine
                new_choice["delta"] = new_delta
            rest = pieces[1:]
            new_choice["finish_reason"] = None if rest else finish
            out_choices.append(new_choice)
            if rest and envelope is None:
                envelope = _envelope(chunk)
            for i, piece in enumerate(rest):
                extras.append(self._extra(envelope, idx, piece, finish if i == len(rest) - 1 else None))  # type: ignore[arg-type]
        if not extras and _empty(chunk.get("usage")) and not any(_carries(c) for c in out_choices):
            return []  # a chunk of nothing is not written (empty deltas, held content)
        if not changed:
            return [chunk]
        main = dict(chunk)
        main["choices"] = out_choices
        if not extras:
            return [main]
        if main.get("usage") is not None:
            extras[-1]["usage"] = main["usage"]
            main["usage"] = None
            for e in extras[:-1]:
                e["usage"] = None
        return [main, *extras]

    def finish(self) -> list[dict[str, Any]]:
        """End of stream: flush the choices that never finished; their held text or calls come out
        in chunks with the envelope of the last chunk that had choices."""
        if self._finished:
            return []
        self._finished = True
        out: list[dict[str, Any]] = []
        envelope = _envelope(self._last) if self._last is not None else {}
        if "usage" in envelope:
            envelope["usage"] = None
        for idx, st in self._choices.items():
            if st.sieve is None:
                continue
            events = st.sieve.flush()
            st.sieve = None
            for piece in self._pieces(st, events, 0):
                out.append(self._extra(envelope, idx, piece, None))
        return out


def rewrite_chat_completion_stream(
    chunks: Iterable[Any],
    *,
    tools: Sequence[Any] | None = None,
    tool_names: Iterable[str] | None = None,
    unknown_tools: UnknownToolsPolicy = "keep",
    id_factory: IdFactory | None = None,
    rejected_tool_names: list[str] | None = None,
    json_tool_calls: bool = False,
    formats: Iterable[str] | None = None,
    reasoning: ReasoningMode | None = None,
    stream_arguments: bool = False,
    tool_choice: Any = None,
    parallel_tool_calls: bool | None = None,
    preset: str | None = None,
) -> Iterator[Any]:
    """Rewrite a stream of OpenAI `chat.completion.chunk` dicts (as parsed from SSE `data:` lines):
    DSML markup in `delta.content` becomes `delta.tool_calls` (see the module docstring;
    `tool_choice` and `parallel_tool_calls` as the request gave them). Names rejected by
    `unknown_tools="reject"` are appended to `rejected_tool_names` when given. SDK chunk objects
    (`ChatCompletionChunk`) in give objects of their class out; dicts give dicts."""
    rw = ChatCompletionStreamRewriter(
        tools=tools,
        tool_names=tool_names,
        unknown_tools=unknown_tools,
        id_factory=id_factory,
        json_tool_calls=json_tool_calls,
        formats=formats,
        reasoning=reasoning,
        stream_arguments=stream_arguments,
        tool_choice=tool_choice,
        parallel_tool_calls=parallel_tool_calls,
        preset=preset,
    )
    _check_rejected_list(rejected_tool_names)
    kind: Any = None  # the SDK class the chunks come as (None: dicts)
    try:
        for chunk in check_iterable(chunks, "chunks"):
            kind = _sdk_type(chunk) or kind
            for out in rw.feed(chunk):
                yield _as_sdk(kind, out)
        for out in rw.finish():
            yield _as_sdk(kind, out)
    finally:
        if rejected_tool_names is not None:
            for n in rw.rejected_tool_names:
                if n not in rejected_tool_names:
                    rejected_tool_names.append(n)


async def arewrite_chat_completion_stream(
    chunks: AsyncIterable[Any] | Iterable[Any],
    *,
    tools: Sequence[Any] | None = None,
    tool_names: Iterable[str] | None = None,
    unknown_tools: UnknownToolsPolicy = "keep",
    id_factory: IdFactory | None = None,
    rejected_tool_names: list[str] | None = None,
    json_tool_calls: bool = False,
    formats: Iterable[str] | None = None,
    reasoning: ReasoningMode | None = None,
    stream_arguments: bool = False,
    tool_choice: Any = None,
    parallel_tool_calls: bool | None = None,
    preset: str | None = None,
) -> AsyncIterator[Any]:
    """`rewrite_chat_completion_stream` for `async for`: the chunks (dicts or SDK chunk objects)
    may come from an async iterable, such as the `openai` SDK's `AsyncStream`; SDK objects in give
    SDK objects out."""
    rw = ChatCompletionStreamRewriter(
        tools=tools,
        tool_names=tool_names,
        unknown_tools=unknown_tools,
        id_factory=id_factory,
        json_tool_calls=json_tool_calls,
        formats=formats,
        reasoning=reasoning,
        stream_arguments=stream_arguments,
        tool_choice=tool_choice,
        parallel_tool_calls=parallel_tool_calls,
        preset=preset,
    )
    _check_rejected_list(rejected_tool_names)
    kind: Any = None  # the SDK class the chunks come as (None: dicts)
    try:
        async for chunk in aiter_any(chunks, "chunks"):
            kind = _sdk_type(chunk) or kind
            for out in rw.feed(chunk):
                yield _as_sdk(kind, out)
        for out in rw.finish():
            yield _as_sdk(kind, out)
    finally:
        if rejected_tool_names is not None:
            for n in rw.rejected_tool_names:
                if n not in rejected_tool_names:
                    rejected_tool_names.append(n)


def rewrite_chat_completion(
    response: Any,
    *,
    tools: Sequence[Any] | None = None,
    tool_names: Iterable[str] | None = None,
    unknown_tools: UnknownToolsPolicy = "keep",
    id_factory: IdFactory | None = None,
    rejected_tool_names: list[str] | None = None,
    json_tool_calls: bool = False,
    formats: Iterable[str] | None = None,
    stats: dict[str, int] | None = None,
    reasoning: ReasoningMode | None = None,
    tool_choice: Any = None,
    parallel_tool_calls: bool | None = None,
    preset: str | None = None,
) -> Any:
    """Rewrite a non-streaming OpenAI `chat.completion` dict: DSML markup in `message.content`
    becomes `message.tool_calls` (see the module docstring; `tool_choice` and
    `parallel_tool_calls` as the request gave them). The input is not modified; a response
    without `choices` is returned as it is. An SDK object (`ChatCompletion`) gives an object of
    its type, a dict a dict. `stats`, when given, is updated with the counts of
    `ChatCompletionStreamRewriter.stats`."""
    opts = _Options(
        tools,
        tool_names,
        unknown_tools,
        id_factory,
        json_tool_calls,
        formats,
        reasoning,
        False,
        tool_choice,
        parallel_tool_calls,
        preset,
    )
    _check_rejected_list(rejected_tool_names)
    try:
        data = as_json_object(response)
        out = _rewrite_response(data, opts)
        if data is response:
            return out
        if out is data:
            return response  # nothing changed: the SDK object itself
        validate = getattr(type(response), "model_validate", None)
        return validate(out) if callable(validate) else out  # an SDK object in, one of its type out
    finally:
        if stats is not None:
            stats.update(opts.stats)
        if rejected_tool_names is not None:
            for n in opts.rejected:
                if n not in rejected_tool_names:
                    rejected_tool_names.append(n)


def _rewrite_response(response: Any, opts: _Options) -> Any:
    """The rewritten response (`response` itself when no choice changed)."""
    if not isinstance(response, dict):
        raise OpenAIFormatError(f"the response is a {type(response).__name__}, not a JSON object")
    if "choices" not in response:
        return response
    choices = response["choices"]
    if not isinstance(choices, list):
        raise OpenAIFormatError(f"choices must be a list, got {type(choices).__name__}")
    out_choices: list[Any] = []
    for pos, choice in enumerate(choices):
        if not isinstance(choice, dict):
            raise OpenAIFormatError(f"choices[{pos}] is a {type(choice).__name__}, not an object")
        _index_of(choice, pos, None)
        message = choice.get("message")
        if message is None:
            out_choices.append(choice)
            continue
        if not isinstance(message, dict):
            raise OpenAIFormatError(f"choices[{pos}].message must be an object")
        content = message.get("content")
        if content is None:
            out_choices.append(choice)
            continue
        if not isinstance(content, str):
            raise OpenAIFormatError(
                f"choices[{pos}].message.content must be a string, got {type(content).__name__}"
            )
        sieve = opts.sieve()
        events = sieve.feed(content)
        end_from = len(events)
        events += sieve.flush()
        for e in events:
            if isinstance(e, TextEvent) and e.note is not None:
                opts.released(e)
        text = "".join(e.text for e in events if isinstance(e, TextEvent))
        thought = "".join(e.text for e in events if isinstance(e, ReasoningEvent))
        if opts.calls_off:  # tool_choice "none": the markup is the model's text
            text = "".join(e.source for e in events if isinstance(e, TextEvent | ToolCallsEvent))
        upstream = message.get("tool_calls")
        already = len(upstream) if isinstance(upstream, list) else 0
        calls: list[ToolCall] = []
        for k, e in enumerate(events):
            if isinstance(e, ToolCallsEvent) and not opts.calls_off:
                calls += opts.policy(e, k >= end_from, already + len(calls))
        if not calls and text == content:
            out_choices.append(choice)
            continue
        new_message = dict(message)
        new_message["content"] = text if (text or not calls) else None
        if thought:
            before = message.get("reasoning_content")
            new_message["reasoning_content"] = before + thought if isinstance(before, str) else thought
        if calls:
            new_calls = to_openai_tool_calls(calls, tools=opts.tools, id_factory=opts.id_factory)
            if upstream is not None and not isinstance(upstream, list):
                raise OpenAIFormatError(f"choices[{pos}].message.tool_calls must be a list to add calls to")
            new_message["tool_calls"] = [*upstream, *new_calls] if upstream is not None else new_calls
        new_choice = dict(choice)
        new_choice["message"] = new_message
        if calls and choice.get("finish_reason") == "stop":
            new_choice["finish_reason"] = "tool_calls"
        out_choices.append(new_choice)
    if all(a is b for a, b in zip(out_choices, choices, strict=True)):
        return response
    out = dict(response)
    out["choices"] = out_choices
    return out


__all__ = [
    "ChatCompletionStreamRewriter",
    "IdFactory",
    "OpenAIFormatError",
    "arewrite_chat_completion_stream",
    "as_json_object",
    "new_call_id",
    "rewrite_chat_completion",
    "rewrite_chat_completion_stream",
    "to_openai_stream_deltas",
    "to_openai_tool_calls",
]
