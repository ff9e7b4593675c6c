"""The streaming rewriter: a stream of OpenAI `chat.completion.chunk`s whose `delta.content` carries
tool-call markup, rewritten chunk by chunk into native `delta.tool_calls`
(`ChatCompletionStreamRewriter`, `rewrite_chat_completion_stream` and its async twin). One sieve
per choice; the rules (which chunks are written, extra chunks, indices, finish reasons, R16.5's
streamed arguments) are in callsieve.openai's docstring."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Sequence
from typing import Any, Final

from .errors import OpenAIFormatError, check_iterable
from .events import (
    Event,
    ReasoningEvent,
    TextEvent,
    ToolCallArgumentsEvent,
    ToolCallsEvent,
    ToolCallStartEvent,
)
from .names import UnknownToolsPolicy
from .policy import _check_rejected_list, _index_of, _Options
from .reasoning import ReasoningMode
from .sdk import _as_sdk, _sdk_type, as_json_object
from .sieve import Sieve
from .sse import aiter_any
from .toolcalls import IdFactory, _next_id, to_openai_stream_deltas

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
        than `max_capture_chars`, released as text), `repaired_blocks` (blocks whose event lists
        a repair, D58: a missing opening wrapper, R3; an unclosed CDATA, D8; a token section
        without its end, D26; a block broken after a call was announced, D37; a block of an
        R17 format cut by the end of the output, D44)."""
        return dict(self._opts.stats)

    def _pieces(self, st: _Choice, events: list[Event]) -> list[dict[str, Any]]:
        """The deltas for a choice's events."""
        out: list[dict[str, Any]] = []
        for e in events:
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
                self._opts.announced(e, st.dropped)
                st.dropped = 0
                continue
            else:
                calls = self._opts.policy(e, len(st.taken))
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
            "id": e.id or _next_id(self._opts.id_factory),  # D63: the call's own id when announced with it
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
            if finish is not None and st.sieve is not None:
                events += st.sieve.flush()
                st.sieve = None
            pieces = self._pieces(st, events)
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
            for piece in self._pieces(st, events):
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


__all__ = [
    "ChatCompletionStreamRewriter",
    "arewrite_chat_completion_stream",
    "rewrite_chat_completion_stream",
]
