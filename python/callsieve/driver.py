"""The JSONL driver of docs/DRIVER.md: `python -m callsieve.driver`.

One request per input line, one response per request, in order; a bad request gets an error
response and the driver goes on. Ops: `parse`, `stream`, and `call` (one library function by its
camelCase name with JSON `args`: the function fixtures of R10-R13; tool-call ids are call_1,
call_2, ... counting from 1 in each request).
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable, Set
from typing import Any, TextIO

from .errors import BadRequest, CallsieveError
from .events import ToolCall
from .jsontext import dumps, jsonable, number_int
from .names import apply_policy, resolve_tool_name
from .openai import (
    rewrite_chat_completion,
    rewrite_chat_completion_stream,
    to_openai_stream_deltas,
    to_openai_tool_calls,
)
from .prompt import build_tool_instructions
from .request import prepare_prompt_request
from .roles import normalize_role
from .schema import normalize_input
from .sieve import Sieve, coalesce, parse

KNOWN_OPTIONS = frozenset(
    {
        "toolNames",
        "tools",
        "unknownTools",
        "jsonToolCalls",
        "formats",
        "reasoning",
        "streamArguments",
        "preset",
    }
)


def _options(req: dict[str, Any]) -> dict[str, Any]:
    if req.get("options") is None:
        return {}
    opts = _options_arg(req["options"], KNOWN_OPTIONS)
    names = opts.get("toolNames")
    if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
        raise BadRequest("toolNames must be a list of strings")
    tools = opts.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise BadRequest("tools must be a list of tool definitions")
    policy = opts.get("unknownTools", "keep")
    if not isinstance(policy, str):
        raise BadRequest("unknownTools must be a string")
    json_calls = opts.get("jsonToolCalls", False)
    if not isinstance(json_calls, bool):
        raise BadRequest("jsonToolCalls must be a boolean")
    formats = opts.get("formats")
    if formats is not None and (
        not isinstance(formats, list) or not all(isinstance(f, str) for f in formats)
    ):
        raise BadRequest("formats must be a list of strings")
    out = {
        "tool_names": names,
        "tools": tools,
        "unknown_tools": policy,
        "json_tool_calls": json_calls,
        "formats": formats,
    }
    if "streamArguments" in opts:
        if not isinstance(opts["streamArguments"], bool):
            raise BadRequest("streamArguments must be a boolean")
        out["stream_arguments"] = opts["streamArguments"]
    if "reasoning" in opts:
        if not isinstance(opts["reasoning"], str):
            raise BadRequest("reasoning must be a string")
        out["reasoning"] = opts["reasoning"]
    if "preset" in opts:
        if not isinstance(opts["preset"], str):
            raise BadRequest("preset must be a string")
        out["preset"] = opts["preset"]
    return out


def _args(args: list[Any], lo: int, hi: int) -> list[Any]:
    if not lo <= len(args) <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        raise BadRequest(f"expected {want} argument(s), got {len(args)}")
    return args + [None] * (hi - len(args))


def _calls_arg(v: Any) -> list[ToolCall]:
    if not isinstance(v, list):
        raise BadRequest("calls must be a list")
    out = []
    for c in v:
        if not (isinstance(c, dict) and isinstance(c.get("name"), str) and isinstance(c.get("input"), dict)):
            raise BadRequest("each call must be {name: string, input: object}")
        out.append(ToolCall(c["name"], c["input"]))
    return out


def _options_arg(v: Any, known: Set[str]) -> dict[str, Any]:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise BadRequest("options must be an object")
    unknown = sorted(set(v) - known)
    if unknown:
        raise BadRequest(f"unknown option(s): {', '.join(unknown)}")
    return v


def _ids() -> Callable[[], str]:
    """Deterministic tool-call ids for the protocol: call_1, call_2, ... in each request."""
    counter = itertools.count(1)
    return lambda: f"call_{next(counter)}"


_REWRITE_OPTIONS = {
    "tools",
    "toolNames",
    "unknownTools",
    "jsonToolCalls",
    "formats",
    "reasoning",
    "streamArguments",
    "toolChoice",
    "parallelToolCalls",
    "preset",
}


def call_function(function: Any, args: Any) -> Any:
    """The `call` op: one library function by its camelCase name, with JSON arguments."""
    if not isinstance(args, list):
        raise BadRequest("call needs 'args', a list")
    if function == "resolveToolName":
        name, names = _args(args, 2, 2)
        return resolve_tool_name(name, names)
    if function == "applyPolicy":
        calls, names, policy = _args(args, 2, 3)
        return apply_policy(_calls_arg(calls), names, "keep" if policy is None else policy).to_dict()
    if function == "normalizeRole":
        (role,) = _args(args, 1, 1)
        return normalize_role(role)
    if function == "normalizeInput":
        name, input_, tools = _args(args, 3, 3)
        if not isinstance(input_, dict):
            raise BadRequest("input must be an object")
        return normalize_input(name, input_, tools)
    if function == "toOpenAIToolCalls":
        calls, opts = _args(args, 1, 2)
        o = _options_arg(opts, {"tools"})
        return to_openai_tool_calls(_calls_arg(calls), tools=o.get("tools"), id_factory=_ids())
    if function == "toOpenAIStreamDeltas":
        calls, opts = _args(args, 1, 2)
        o = _options_arg(opts, {"tools", "startIndex"})
        start = o.get("startIndex", 0)
        if isinstance(start, bool) or not isinstance(start, int):
            raise BadRequest("startIndex must be an integer")
        return to_openai_stream_deltas(
            _calls_arg(calls), tools=o.get("tools"), id_factory=_ids(), start_index=start
        )
    if function == "buildToolInstructions":
        (tools,) = _args(args, 1, 1)
        return build_tool_instructions(tools)
    if function == "preparePromptRequest":
        (body,) = _args(args, 1, 1)
        return prepare_prompt_request(body)
    if function in ("rewriteChatCompletion", "rewriteChatCompletionStream"):
        data, opts = _args(args, 1, 2)
        o = _options_arg(opts, _REWRITE_OPTIONS)
        kw: dict[str, Any] = {
            "tools": o.get("tools"),
            "tool_names": o.get("toolNames"),
            "unknown_tools": o.get("unknownTools", "keep"),
            "json_tool_calls": o.get("jsonToolCalls", False),
            "formats": o.get("formats"),
            "reasoning": o.get("reasoning"),
            "id_factory": _ids(),
            "tool_choice": o.get("toolChoice"),
            "parallel_tool_calls": o.get("parallelToolCalls"),
            "preset": o.get("preset"),
        }
        if function == "rewriteChatCompletion":
            if "streamArguments" in o:
                raise BadRequest("streamArguments is an option of rewriteChatCompletionStream")
            return rewrite_chat_completion(data, **kw)
        kw["stream_arguments"] = o.get("streamArguments", False)
        if not isinstance(data, list):
            raise BadRequest("rewriteChatCompletionStream needs a list of chunks")
        return list(rewrite_chat_completion_stream(data, **kw))
    raise BadRequest(f"unknown function {function!r}")


def handle(req: Any) -> Any:
    if not isinstance(req, dict):
        raise BadRequest("request must be a JSON object")
    op = req.get("op")
    kw = _options(req)
    if op == "parse":
        text = req.get("text")
        if not isinstance(text, str):
            raise BadRequest("parse needs a string 'text'")
        return parse(text, **kw).to_dict()
    if op == "stream":
        chunks = req.get("chunks")
        if not isinstance(chunks, list) or not all(isinstance(c, str) for c in chunks):
            raise BadRequest("stream needs 'chunks', a list of strings")
        sieve = Sieve(**kw)
        events = [e for c in chunks for e in sieve.feed(c)]
        events += sieve.flush()
        return {"events": [e.to_dict() for e in coalesce(events)]}
    if op == "call":
        return call_function(req.get("function"), req.get("args"))
    raise BadRequest("op must be parse, stream or call")


def serve(inp: TextIO, out: TextIO) -> None:
    for line in inp:
        if not line.strip():
            continue
        rid: Any = None
        try:
            req = json.loads(line, parse_int=number_int)  # numbers as JavaScript reads them
            if isinstance(req, dict):
                rid = req.get("id")
            resp: dict[str, Any] = {"id": rid, "result": jsonable(handle(req))}
        except json.JSONDecodeError as exc:
            resp = {"id": rid, "error": {"type": "BadRequest", "message": f"invalid JSON: {exc}"}}
        except BadRequest as exc:
            resp = {"id": rid, "error": {"type": "BadRequest", "message": str(exc)}}
        except CallsieveError as exc:
            resp = {"id": rid, "error": {"type": type(exc).__name__, "message": str(exc)}}
        except Exception as exc:  # the driver never stops on one request
            resp = {"id": rid, "error": {"type": "InternalError", "message": repr(exc)}}
        out.write(dumps(resp) + "\n")
        out.flush()


def main() -> None:
    sys.stdin.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    sys.stdout.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    serve(sys.stdin, sys.stdout)


if __name__ == "__main__":
    main()
