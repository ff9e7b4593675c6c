"""Function fixtures (`{"call": {"function", "args"}, "expected": {"result" | "error"}}`, rules
R10-R13) run through the Python functions directly, and through the driver when it knows the
`call` op."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import FIXTURES, load
from fixture_support import describe, first_difference

from toolsieve import ToolCall
from toolsieve.driver import jsonable
from toolsieve.names import apply_policy, resolve_tool_name
from toolsieve.openai import (
    rewrite_chat_completion,
    rewrite_chat_completion_stream,
    to_openai_stream_deltas,
    to_openai_tool_calls,
)
from toolsieve.prompt import build_tool_instructions
from toolsieve.roles import normalize_role
from toolsieve.schema import normalize_input

FOLDERS = ("r10-names", "r11-roles", "r12-schema", "r13-openai")
FILES = sorted(p for p in FIXTURES.rglob("*.json") if p.name != "schema.json" and "call" in load(p))
IDS = [str(p.relative_to(FIXTURES)) for p in FILES]
PROPOSED_SCHEMA = Path("/tmp/proposed/schema.json")


def _ids() -> Callable[[], str]:
    """Fixture ids: call_1, call_2, ... counting from 1 in each request."""
    counter = itertools.count(1)
    return lambda: f"call_{next(counter)}"


def _calls(v: Any) -> list[ToolCall]:
    return [ToolCall(c["name"], c["input"]) for c in v]


def _opts(args: list[Any], i: int, known: set[str]) -> dict[str, Any]:
    o = args[i] if len(args) > i and args[i] is not None else {}
    assert isinstance(o, dict), "options must be an object"
    assert set(o) <= known, f"unknown option(s): {sorted(set(o) - known)}"
    return o


REWRITE_OPTIONS = {"tools", "toolNames", "unknownTools"}


def call(function: str, args: list[Any]) -> Any:
    """The camelCase fixture functions on the Python API; the result as JSON-like data."""
    if function == "resolveToolName":
        return resolve_tool_name(args[0], args[1])
    if function == "applyPolicy":
        return apply_policy(_calls(args[0]), args[1], *args[2:3]).to_dict()
    if function == "normalizeRole":
        return normalize_role(args[0])
    if function == "normalizeInput":
        return normalize_input(args[0], args[1], args[2])
    if function == "toOpenAIToolCalls":
        o = _opts(args, 1, {"tools"})
        return to_openai_tool_calls(_calls(args[0]), tools=o.get("tools"), id_factory=_ids())
    if function == "toOpenAIStreamDeltas":
        o = _opts(args, 1, {"tools", "startIndex"})
        return to_openai_stream_deltas(
            _calls(args[0]), tools=o.get("tools"), id_factory=_ids(), start_index=o.get("startIndex", 0)
        )
    if function == "buildToolInstructions":
        return build_tool_instructions(args[0])
    if function in ("rewriteChatCompletion", "rewriteChatCompletionStream"):
        o = _opts(args, 1, REWRITE_OPTIONS)
        kw: dict[str, Any] = {
            "tools": o.get("tools"),
            "tool_names": o.get("toolNames"),
            "unknown_tools": o.get("unknownTools", "keep"),
            "id_factory": _ids(),
        }
        if function == "rewriteChatCompletion":
            return rewrite_chat_completion(args[0], **kw)
        return list(rewrite_chat_completion_stream(args[0], **kw))
    raise AssertionError(f"unknown fixture function {function!r}")


def test_there_are_enough_function_fixtures() -> None:
    for folder in FOLDERS:
        assert len([p for p in FILES if p.parent.name == folder]) >= 8, folder
    rules = {load(p)["rule"].split(".")[0] for p in FILES}
    assert {"R10", "R11", "R12", "R13"} <= rules


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_function_fixture(path: Path) -> None:
    case = load(path)
    fn, args = case["call"]["function"], case["call"]["args"]
    want = case["expected"]
    if "error" in want:
        with pytest.raises(Exception) as info:
            call(fn, args)
        assert type(info.value).__name__ == want["error"]
        return
    # The input must not be modified by the call.
    before = json.dumps(args, sort_keys=True)
    got = jsonable(call(fn, args))
    assert json.dumps(args, sort_keys=True) == before, "the call modified its arguments"
    d = first_difference(want["result"], got)
    assert d is None, describe(d, want["result"], got)


@pytest.mark.skipif(not PROPOSED_SCHEMA.exists(), reason="the proposed schema is not in /tmp/proposed")
@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_function_fixture_is_valid_under_the_proposed_schema(path: Path) -> None:
    schema = json.loads(PROPOSED_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(load(path))


def _driver_has_call_op() -> bool:
    from toolsieve import driver

    try:
        driver.handle({"op": "call", "function": "normalizeRole", "args": ["developer"]})
    except Exception:
        return False
    return True


@pytest.mark.skipif(not _driver_has_call_op(), reason="driver.py has no 'call' op yet")
@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_function_fixture_through_the_driver(path: Path) -> None:
    from io import StringIO

    from toolsieve import driver

    case = load(path)
    req = {"id": "x", "op": "call", **case["call"]}
    out = StringIO()
    driver.serve(StringIO(json.dumps(req, ensure_ascii=False) + "\n"), out)
    resp = json.loads(out.getvalue())
    if "error" in case["expected"]:
        assert resp.get("error", {}).get("type") == case["expected"]["error"], resp
        return
    assert "result" in resp, resp
    d = first_difference(case["expected"]["result"], resp["result"])
    assert d is None, describe(d, case["expected"]["result"], resp["result"])
