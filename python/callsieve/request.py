"""The request side of the gateway's `prompt` mode: an OpenAI chat-completion request for an
upstream without native tools. `prepare_prompt_request(body)` returns the body to send upstream;
the response then goes through the rewriters of `openai` as in `passthrough` mode (unless
`tool_choice` is `"none"`: see `rewrites_response`). In both modes `response_options(body)` gives
the rewriters the request's `tool_choice` and `parallel_tool_calls`.

Decisions:

- The input is not modified; the result is a new dict with every field of the body except
  `tools`, `tool_choice` and `parallel_tool_calls` (an upstream without native tools may reject
  them). A body that is not an object, `messages` that is not a list, a message that is not an
  object, or `tools` that is not a list raise `OpenAIFormatError`.
- Roles are normalized (R11, `normalize_role`): `developer` → `system`, `function` → `tool`, the
  unknown → `user`.
- Instructions: when `tools` names at least one tool and `tool_choice` is not `"none"`, the text of
  `build_tool_instructions(tools)` goes into the system message: appended (after a blank line) to
  the first message when it is a system message with string content (or as a last text part when
  its content is a list of parts), else as a new system message at the start. `tool_choice`
  `"required"` adds the line `You must call at least one tool in your reply.`; a named function
  (`{"type": "function", "function": {"name": N}}`) adds `You must call the tool N in your reply.`
  `"auto"`, null or anything else adds nothing.
- History: an assistant message's `tool_calls` (and legacy `function_call`) become one DSML block
  (R1.1 form, the form the instructions teach) appended to its text content after a blank line;
  the keys are removed. Each call is an invoke of `function.name`; its `arguments` text, when it is
  a JSON object, gives one parameter per key (in JavaScript property order): strings in CDATA
  (a `]]>` inside is split across two CDATA sections), other values as JSON text (in CDATA when
  it holds `<` or `&`). Arguments that are not a JSON object go in as the invoke's body, in CDATA.
  Names are written in double quotes, or single quotes when they hold `"`.
- A `tool` message (after R11) becomes a `user` message whose text is
  `Result of NAME (id ID):` + newline + its content (text parts joined), NAME being the name of the
  call with that `tool_call_id` in the history (else the message's `name`, else `a tool`), and
  ` (id ID)` left out without an id. Consecutive tool messages become one user message, their
  texts separated by a blank line.
- Content that is null or missing counts as the empty string where text is added to it.
"""

from __future__ import annotations

from typing import Any, Final

from .errors import OpenAIFormatError, OptionsError
from .jsontext import js_keys, json_text
from .openai import check_parallel_tool_calls, check_tool_choice
from .prompt import build_tool_instructions
from .roles import normalize_role
from .schema import tool_name
from .strings import json_trim
from .values import json_value

_DROPPED: Final = ("tools", "tool_choice", "parallel_tool_calls")
REQUIRED_LINE: Final = "You must call at least one tool in your reply."


def _named_choice(choice: Any) -> str | None:
    if isinstance(choice, dict) and choice.get("type") == "function":
        fn = choice.get("function")
        if isinstance(fn, dict) and isinstance(fn.get("name"), str) and fn["name"]:
            return str(fn["name"])
    return None


def _choice_line(choice: Any) -> str:
    if choice == "required":
        return REQUIRED_LINE
    name = _named_choice(choice)
    return f"You must call the tool {name} in your reply." if name is not None else ""


def rewrites_response(body: Any) -> bool:
    """Whether the response to `body` should go through the rewriters: not when the request said
    `tool_choice: "none"` (the model was told nothing about tools)."""
    return not (isinstance(body, dict) and body.get("tool_choice") == "none")


def response_options(body: Any) -> dict[str, Any]:
    """The options of the response rewriters that the request decides, as keyword arguments of
    `rewrite_chat_completion` / `ChatCompletionStreamRewriter`: `tool_choice` and
    `parallel_tool_calls` (None when the request leaves them out), so that the answer honors
    them as OpenAI defines them (see `callsieve.openai`). Raises OpenAIFormatError for a body that
    is not an object or for values OpenAI does not accept (a gateway answers 400)."""
    if not isinstance(body, dict):
        raise OpenAIFormatError(f"the request is a {type(body).__name__}, not a JSON object")
    choice = body.get("tool_choice")
    parallel = body.get("parallel_tool_calls")
    try:
        check_tool_choice(choice)
        check_parallel_tool_calls(parallel)
    except OptionsError as exc:
        raise OpenAIFormatError(str(exc)) from None
    return {"tool_choice": choice, "parallel_tool_calls": parallel}


def _text_of(content: Any) -> str:
    """The text of a message content: a string, or the `text` of its text parts, joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _attr(v: str) -> str:
    return f"'{v}'" if '"' in v else f'"{v}"'


def _cdata(s: str) -> str:
    return "<![CDATA[" + s.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def _value(v: Any) -> str:
    if isinstance(v, str):
        return _cdata(v)
    text = json_text(v)
    return _cdata(text) if ("<" in text or "&" in text) else text


def _invoke(call: Any) -> list[str]:
    fn = call.get("function") if isinstance(call, dict) else None
    if not isinstance(fn, dict):
        fn = {}
    raw_name = fn.get("name")
    name = raw_name if isinstance(raw_name, str) else ""
    args = fn.get("arguments")
    lines = [f"<|DSML|invoke name={_attr(name)}>"]
    ok, obj = json_value(args) if isinstance(args, str) else (True, args if isinstance(args, dict) else {})
    if ok and isinstance(obj, dict):
        for k, v in js_keys(obj):
            lines.append(f"<|DSML|parameter name={_attr(k)}>{_value(v)}</|DSML|parameter>")
    elif isinstance(args, str) and json_trim(args):
        lines.append(_cdata(args))
    lines.append("</|DSML|invoke>")
    return lines


def _block(calls: list[Any]) -> str:
    lines = ["<|DSML|tool_calls>"]
    for c in calls:
        lines += _invoke(c)
    lines.append("</|DSML|tool_calls>")
    return "\n".join(lines)


def _join(a: str, b: str) -> str:
    return f"{a}\n\n{b}" if a else b


def _assistant(msg: dict[str, Any]) -> dict[str, Any]:
    calls = msg.get("tool_calls")
    calls = list(calls) if isinstance(calls, list) else []
    legacy = msg.get("function_call")
    if isinstance(legacy, dict):
        calls.append({"type": "function", "function": legacy})
    out = {k: v for k, v in msg.items() if k not in ("tool_calls", "function_call")}
    out["role"] = "assistant"
    if calls:
        out["content"] = _join(_text_of(msg.get("content")), _block(calls))
    return out


def _call_names(messages: list[Any]) -> dict[str, str]:
    names: dict[str, str] = {}
    for m in messages:
        if isinstance(m, dict) and isinstance(m.get("tool_calls"), list):
            for c in m["tool_calls"]:
                if isinstance(c, dict) and isinstance(c.get("id"), str):
                    fn = c.get("function")
                    if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                        names.setdefault(c["id"], fn["name"])
    return names


def _tool_text(msg: dict[str, Any], names: dict[str, str]) -> str:
    cid = msg.get("tool_call_id")
    cid = cid if isinstance(cid, str) and cid else None
    name = names.get(cid) if cid is not None else None
    if name is None:
        n = msg.get("name")
        name = n if isinstance(n, str) and n else "a tool"
    head = f"Result of {name}" + (f" (id {cid})" if cid is not None else "") + ":"
    return head + "\n" + _text_of(msg.get("content"))


def _with_instructions(messages: list[Any], text: str) -> list[Any]:
    first = messages[0] if messages else None
    if isinstance(first, dict) and first.get("role") == "system":
        content = first.get("content")
        if isinstance(content, list):
            new = {**first, "content": [*content, {"type": "text", "text": text}]}
        else:
            new = {**first, "content": _join(_text_of(content), text)}
        return [new, *messages[1:]]
    return [{"role": "system", "content": text}, *messages]


def prepare_prompt_request(body: Any) -> dict[str, Any]:
    """The request to send to an upstream without native tools (see the module docstring)."""
    if not isinstance(body, dict):
        raise OpenAIFormatError(f"the request is a {type(body).__name__}, not a JSON object")
    messages = body.get("messages", [])
    if not isinstance(messages, list):
        raise OpenAIFormatError(f"messages must be a list, got {type(messages).__name__}")
    tools = body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise OpenAIFormatError(f"tools must be a list, got {type(tools).__name__}")
    names = _call_names(messages)
    out_messages: list[Any] = []
    results: list[str] | None = None  # the texts of the current run of tool messages
    for pos, msg in enumerate(messages):
        if not isinstance(msg, dict):
            raise OpenAIFormatError(f"messages[{pos}] is a {type(msg).__name__}, not an object")
        role = normalize_role(msg.get("role"))
        if role == "tool":
            text = _tool_text(msg, names)
            if results is None:
                results = [text]
                out_messages.append({"role": "user", "content": ""})
            else:
                results.append(text)
            out_messages[-1]["content"] = "\n\n".join(results)
            continue
        results = None
        if role == "assistant":
            out_messages.append(_assistant(msg))
        else:
            out_messages.append({**msg, "role": role})
    choice = body.get("tool_choice")
    if choice != "none" and any(tool_name(t) for t in tools or []):
        text = build_tool_instructions(tools)
        line = _choice_line(choice)
        if line:
            text = f"{text}\n\n{line}"
        out_messages = _with_instructions(out_messages, text)
    out = {k: v for k, v in body.items() if k not in _DROPPED}
    if "messages" in body or out_messages:
        out["messages"] = out_messages
    return out


__all__ = ["prepare_prompt_request", "response_options", "rewrites_response"]
