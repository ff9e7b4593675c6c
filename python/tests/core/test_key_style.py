"""Issue 40 item 6: one key style per kind of JSON output. callsieve's own JSON (`parse` and
`stream` on the command line, the driver protocol, `batch`'s own fields) is camelCase; the fields
of OpenAI-shaped records keep OpenAI's names (`tool_calls`, `reasoning_content`, ...); and
`parse` returns the prose (`text`)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from callsieve.batch import RESULT_FIELDS, RecordParser

CAMEL = re.compile(r"^[a-z]+(?:[A-Z][a-z0-9]*)*$")
OPENAI_NAMES = {"tool_calls", "reasoning_content"}  # the OpenAI message fields batch adds
TEXT = (
    "<think>plan</think>Sure.\n<|DSML|tool_calls>\n"
    '<|DSML|invoke name="ls"><|DSML|parameter name="path">.</|DSML|parameter></|DSML|invoke>\n'
    "</|DSML|tool_calls> bye"
)


def keys(v: Any) -> set[str]:
    if isinstance(v, dict):
        out = set(v)
        for x in v.values():
            out |= keys(x)
        return out
    if isinstance(v, list):
        return set().union(*(keys(x) for x in v)) if v else set()
    return set()


def run(*args: str) -> Any:
    p = subprocess.run(
        [sys.executable, "-m", "callsieve", *args], input=TEXT.encode(), capture_output=True, timeout=60
    )
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in p.stdout.decode().splitlines()]


def test_parse_and_stream_output_are_camel_case_and_parse_has_the_text() -> None:
    (result,) = run("parse", "--unknown-tools", "reject", "--tools", "ls,cat")
    assert result["text"] == "Sure.\n bye" and result["reasoning"] == "plan"
    assert {"sawToolCallSyntax", "rejectedByPolicy", "rejectedToolNames", "text"} <= set(result)
    events = run("stream", "--chunk-size", "5")
    for k in keys(result) | keys(events):
        assert CAMEL.match(k), k


def test_batch_fields_are_openai_names_or_camel_case(tmp_path: Path) -> None:
    record = RecordParser().record({"id": 1, "content": TEXT})
    assert set(RESULT_FIELDS) <= set(record)
    assert record["reasoning_content"] == "plan" and record["content"] == "Sure.\n bye"
    assert record["sawToolCallSyntax"] is True and record["error"] is None
    for k in keys(record):
        assert k in OPENAI_NAMES or CAMEL.match(k), k
