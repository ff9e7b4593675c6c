"""LangChain integration (`pip install 'callsieve[langchain]'`): a chat model wrapper whose
messages carry the tool calls that the wrapped model wrote as markup in its `content`.

    from callsieve.langchain import with_callsieve

    model = with_callsieve(chat_model).bind_tools([read_file])
    model.invoke("...")               # AIMessage: content without markup, tool_calls
    for chunk in model.stream("..."):  # AIMessageChunks whose tool_call_chunks add up
        ...

How it works, and why:

- `CallsieveChatModel` is a `BaseChatModel`, so invoke / stream / astream / batch, callbacks
  and `with_structured_output` work as for any chat model; it calls the wrapped model's
  public `invoke` / `stream` (a run of its own, without the caller's callbacks, which would see
  its raw markup), then sieves the message.
- Each text stream (a `str` content, or the text blocks of one `index` in list content) has its
  own `Sieve`: what is text and what is a call does not depend on the chunking, and no markup
  reaches `content`. Each input chunk gives one output chunk with the same metadata and usage
  (so adding chunks counts them once); the chunk marked `chunk_position="last"`, or a chunk
  after the end, carries what the sieves held back.
- A call is one `tool_call_chunk` with the whole JSON arguments and its own `index`, so
  `chunk1 + chunk2 + ...` merges it with nothing else. Native tool-call chunks pass through;
  their index is moved only if one of ours took it.
- A reasoning region (`<think>`, R15) goes to `additional_kwargs["reasoning_content"]`, where
  LangChain's DeepSeek / Ollama / Groq models put reasoning and where chunks add it up.
- Declared tools (names resolved, inputs shaped by their schemas, `unknown_tools="reject"`)
  are `tools` / `tool_names`, or the tools given to `bind_tools`, which also binds them on the
  wrapped model when it supports native tools.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from .errors import MissingDependencyError

try:
    from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
    from langchain_core.language_models import BaseChatModel, LanguageModelInput
    from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
    from langchain_core.messages.tool import ToolCallChunk, tool_call, tool_call_chunk
    from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
    from langchain_core.runnables import Runnable, RunnableConfig
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from pydantic import ConfigDict
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise MissingDependencyError(
        f"callsieve.langchain needs langchain-core: pip install 'callsieve[langchain]' ({exc})"
    ) from exc

from .events import ReasoningEvent, TextEvent, ToolCall, ToolCallsEvent
from .openai import new_call_id
from .sieve import DEFAULT_MAX_CAPTURE, Sieve

_STR = object()  # the sieve key of `str` content (list blocks are keyed by their `index`)


class CallsieveChatModel(BaseChatModel):
    """A chat model around `model` whose messages have the calls written as markup in `content`
    as `tool_calls` (invoke) or `tool_call_chunks` (stream), and `content` without them.

    Options are the Sieve's: `tools` (OpenAI-style definitions or anything `bind_tools`
    takes), `tool_names`, `unknown_tools` ("keep" or "reject"), `formats`, `json_tool_calls`,
    `max_capture_chars`, `preset` (a model family, R19: its formats and reasoning unless given),
    `reasoning` ("auto", "open" or "off": a `<think>` region goes to
    `additional_kwargs["reasoning_content"]`, or stays text with "off"). `id_factory` makes the
    call ids (default `call_` + 24 hex digits); `bind_native_tools=False` keeps `bind_tools` from
    binding the tools on `model`.
    """

    # A misspelt option is an error, not silently ignored (pydantic's default).
    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    model: Runnable[Any, Any]
    tools: list[Any] | None = None
    tool_names: list[str] | None = None
    unknown_tools: str = "keep"
    formats: list[str] | None = None
    json_tool_calls: bool = False
    max_capture_chars: int = DEFAULT_MAX_CAPTURE
    reasoning: str | None = None
    preset: str | None = None
    id_factory: Callable[[], str] | None = None
    bind_native_tools: bool = True

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        # Bad options raise here (OptionsError, InputTypeError, not wrapped by pydantic), not mid-stream.
        self.new_sieve()

    @property
    def _llm_type(self) -> str:
        return "callsieve"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        inner = getattr(self.model, "_llm_type", type(self.model).__name__)
        return {"model": inner, "unknown_tools": self.unknown_tools, "formats": self.formats}

    def new_sieve(self) -> Sieve:
        return Sieve(
            tool_names=self.tool_names,
            tools=self.tools,
            unknown_tools=self.unknown_tools,
            json_tool_calls=self.json_tool_calls,
            max_capture_chars=self.max_capture_chars,
            formats=self.formats,
            reasoning=self.reasoning,  # type: ignore[arg-type]  # checked by the Sieve (OptionsError)
            preset=self.preset,
        )

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """A copy that declares `tools` (LangChain tools, functions, Pydantic classes or dicts,
        as OpenAI definitions) and, unless `bind_native_tools=False`, binds them on the wrapped
        model too when it has native tools."""
        declared = [convert_to_openai_tool(t) for t in tools]
        inner = self.model
        if self.bind_native_tools and hasattr(inner, "bind_tools"):
            extra = kwargs if tool_choice is None else {**kwargs, "tool_choice": tool_choice}
            # A model without native tools raises NotImplementedError: the markup is the only way.
            with contextlib.suppress(NotImplementedError):
                inner = inner.bind_tools(tools, **extra)
        return self.model_copy(update={"model": inner, "tools": declared})

    # ---- whole messages ---------------------------------------------------------------------

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return _result(_Run(self).message(self.model.invoke(messages, _isolated(), stop=stop, **kwargs)))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = await self.model.ainvoke(messages, _isolated(), stop=stop, **kwargs)
        return _result(_Run(self).message(message))

    # ---- streams ----------------------------------------------------------------------------

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        # BaseChatModel.stream reports each chunk to the callbacks (on_llm_new_token).
        run = _Run(self)
        for item in self.model.stream(messages, _isolated(), stop=stop, **kwargs):
            yield from map(_generation_chunk, run.chunk(item))
        yield from map(_generation_chunk, run.end())

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        run = _Run(self)
        async for item in self.model.astream(messages, _isolated(), stop=stop, **kwargs):
            for m in run.chunk(item):
                yield _generation_chunk(m)
        for m in run.end():
            yield _generation_chunk(m)


def with_callsieve(model: Runnable[Any, Any], **options: Any) -> CallsieveChatModel:
    """`CallsieveChatModel(model=model, **options)`."""
    return CallsieveChatModel(model=model, **options)


def _isolated() -> RunnableConfig:
    # No callbacks inherited by the wrapped model's run: handlers that stream tokens to a user
    # (LangGraph's "messages" mode, on_llm_new_token) would get its raw markup. The wrapper's
    # own run reports the sieved chunks; the wrapped model keeps its own `callbacks`.
    return {"callbacks": []}


def _result(message: BaseMessage) -> ChatResult:
    return ChatResult(generations=[ChatGeneration(message=message)])


def _generation_chunk(message: AIMessageChunk) -> ChatGenerationChunk:
    return ChatGenerationChunk(message=message)


def _is_text_block(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)


class _Found:
    """What the sieves found in one message or chunk besides its text: calls and reasoning."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []
        self.reasoning: list[str] = []

    def extra_kwargs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """`kwargs` with the reasoning appended to `reasoning_content` (a copy; `kwargs` when none):
        where LangChain's DeepSeek, Ollama or Groq models put reasoning, and chunks add it up."""
        thought = "".join(self.reasoning)
        if not thought:
            return kwargs
        before = kwargs.get("reasoning_content")
        return {**kwargs, "reasoning_content": before + thought if isinstance(before, str) else thought}


class _Run:
    """One model call: a sieve per text stream, the tool-call indexes taken, the ids."""

    def __init__(self, owner: CallsieveChatModel) -> None:
        self.owner = owner
        self.sieves: dict[Any, Sieve] = {}
        self.taken: set[int] = set()
        self.native: dict[int, int] = {}
        self.new_id = owner.id_factory or new_call_id

    def sieve(self, key: Any) -> Sieve:
        s = self.sieves.get(key)
        if s is None:
            s = self.sieves[key] = self.owner.new_sieve()
        return s

    def feed(self, key: Any, text: str, found: _Found) -> str:
        return self.take(self.sieve(key).feed(text), found)

    def take(self, events: list[Any], found: _Found) -> str:
        """The text of `events`; their calls and reasoning go to `found`. Other event types (later
        Sieve versions) are not text: left out, never leaked."""
        out: list[str] = []
        for e in events:
            if isinstance(e, TextEvent):
                out.append(e.text)
            elif isinstance(e, ToolCallsEvent):
                found.calls.extend(e.calls)
            elif isinstance(e, ReasoningEvent):
                found.reasoning.append(e.text)
        return "".join(out)

    def flush(self, found: _Found) -> dict[Any, str]:
        """What every sieve held, by key; the sieves are done (a later chunk starts new ones)."""
        held = {key: self.take(s.flush(), found) for key, s in self.sieves.items()}
        self.sieves = {}
        return held

    def next_index(self) -> int:
        i = 0
        while i in self.taken:
            i += 1
        self.taken.add(i)
        return i

    def native_index(self, index: int) -> int:
        if index not in self.native:
            self.native[index] = index if index not in self.taken else self.next_index()
            self.taken.add(self.native[index])
        return self.native[index]

    # ---- whole messages

    def message(self, message: Any) -> BaseMessage:
        if isinstance(message, AIMessageChunk):
            return self.chunk(message, last=True)[0]
        if not isinstance(message, AIMessage):
            return message  # type: ignore[no-any-return]
        found = _Found()
        content: str | list[Any]
        if isinstance(message.content, str):
            content = self.feed(_STR, message.content, found)
            content += "".join(self.flush(found).values())
        else:
            content = [self.whole_block(b, found) for b in message.content]
        if not found.calls and not found.reasoning and content == message.content:
            return message
        made = [tool_call(name=c.name, args=c.input, id=c.id or self.new_id()) for c in found.calls]
        return message.model_copy(
            update={
                "content": content,
                "tool_calls": [*message.tool_calls, *made],
                "additional_kwargs": found.extra_kwargs(message.additional_kwargs),
            }
        )

    def whole_block(self, block: Any, found: _Found) -> Any:
        if not _is_text_block(block):
            return block
        sieve = self.owner.new_sieve()
        text = self.take(sieve.feed(block["text"]) + sieve.flush(), found)
        return block if text == block["text"] else {**block, "text": text}

    # ---- streams

    def chunk(self, item: Any, *, last: bool = False) -> list[AIMessageChunk]:
        """The output chunk for one chunk of the wrapped model's stream."""
        if not isinstance(item, AIMessageChunk):
            if not isinstance(item, AIMessage):
                raise TypeError(f"the wrapped model streamed {type(item).__name__}, not AIMessageChunk")
            # A model that does not stream yields its whole message: a last chunk.
            item = _as_chunk(item)
            last = True
        last = last or item.chunk_position == "last"
        found = _Found()
        content: str | list[Any]
        if isinstance(item.content, str):
            content = self.feed(_STR, item.content, found)
            if last:
                content += "".join(self.flush(found).values())
        else:
            content = [self.stream_block(b, found) for b in item.content]
            if last:
                content += _held_blocks(self.flush(found))
        native = [self.renumbered(c) for c in item.tool_call_chunks]
        chunks = native + [self.call_chunk(c) for c in found.calls]
        return [_rebuilt(item, content, chunks, found.extra_kwargs(item.additional_kwargs))]

    def stream_block(self, block: Any, found: _Found) -> Any:
        if not _is_text_block(block):
            return block
        return {**block, "text": self.feed(block.get("index"), block["text"], found)}

    def end(self) -> list[AIMessageChunk]:
        """After the wrapped stream: what the sieves still hold (none when a last chunk came)."""
        if not self.sieves:
            return []
        found = _Found()
        held = self.flush(found)
        text = "".join(held.values())
        if not text and not found.calls and not found.reasoning:
            return []
        content: str | list[Any] = text if _STR in held else _held_blocks(held)
        return [
            AIMessageChunk(
                content=content,
                tool_call_chunks=[self.call_chunk(c) for c in found.calls],
                additional_kwargs=found.extra_kwargs({}),
            )
        ]

    def call_chunk(self, call: ToolCall) -> ToolCallChunk:
        # Python's JSON text, not JavaScript's (json_text): LangChain reads the chunks' args back
        # with json.loads, and only Python's writes every float so that it reads back the same
        # (12345678901234567890 read as a float; 1e400 as inf), as `invoke` hands them over.
        args = json.dumps(call.input, ensure_ascii=False, separators=(",", ":"))
        # the call's own id where the model wrote one (D63, as the OpenAI layer), else a new one
        cid = call.id or self.new_id()
        return tool_call_chunk(name=call.name, args=args, id=cid, index=self.next_index())

    def renumbered(self, c: ToolCallChunk) -> ToolCallChunk:
        index = c.get("index")
        if index is None:
            return c
        moved = self.native_index(index)
        return (
            c
            if moved == index
            else tool_call_chunk(name=c.get("name"), args=c.get("args"), id=c.get("id"), index=moved)
        )


def _held_blocks(held: dict[Any, str]) -> list[Any]:
    """Text blocks for what the sieves of list content held back, with their `index`."""
    out: list[Any] = []
    for key, text in held.items():
        if text:
            out.append(
                {"type": "text", "text": text}
                if key is None or key is _STR
                else {"type": "text", "text": text, "index": key}
            )
    return out


# The fields an output chunk takes from its input chunk; tool calls are derived again.
_DERIVED = frozenset({"content", "tool_calls", "invalid_tool_calls", "tool_call_chunks", "type"})


def _rebuilt(
    item: AIMessageChunk, content: str | list[Any], chunks: list[ToolCallChunk], kwargs: dict[str, Any]
) -> AIMessageChunk:
    if content == item.content and chunks == item.tool_call_chunks and kwargs is item.additional_kwargs:
        return item
    keep = {k: getattr(item, k) for k in type(item).model_fields if k not in _DERIVED}
    keep["additional_kwargs"] = kwargs
    return AIMessageChunk(content=content, tool_call_chunks=chunks, **keep)


def _as_chunk(message: AIMessage) -> AIMessageChunk:
    keep = {k: getattr(message, k) for k in AIMessage.model_fields if k not in _DERIVED}
    return AIMessageChunk(
        content=message.content,
        tool_calls=message.tool_calls,
        invalid_tool_calls=message.invalid_tool_calls,
        chunk_position="last",
        **keep,
    )


__all__ = ["CallsieveChatModel", "with_callsieve"]
