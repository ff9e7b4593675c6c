"""The non-streaming rewriter: a whole OpenAI `chat.completion` whose `message.content` carries
tool-call markup, rewritten into native `message.tool_calls` (`rewrite_chat_completion`; the rules
are in callsieve.openai's docstring)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .errors import OpenAIFormatError
from .events import ReasoningEvent, TextEvent, ToolCall, ToolCallsEvent
from .names import UnknownToolsPolicy
from .policy import _check_rejected_list, _index_of, _Options
from .reasoning import ReasoningMode
from .sdk import as_json_object
from .toolcalls import IdFactory, to_openai_tool_calls


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
        events = sieve.feed(content) + sieve.flush()
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
        for e in events:
            if isinstance(e, ToolCallsEvent) and not opts.calls_off:
                calls += opts.policy(e, already + len(calls))
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


__all__ = ["rewrite_chat_completion"]
