"""The `callsieve` command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

EXAMPLE = ROOT / "examples" / "deepseek-reply.txt"


def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "callsieve", *args], input=stdin, capture_output=True, timeout=60
    )


def test_parse_file() -> None:
    p = run("parse", str(EXAMPLE))
    assert p.returncode == 0, p.stderr
    result = json.loads(p.stdout)
    assert [c["name"] for c in result["calls"]] == ["list_dir", "write_file"]
    assert result["sawToolCallSyntax"] is True


def test_stream_stdin_one_event_per_line() -> None:
    text = EXAMPLE.read_bytes()
    p = run("stream", "--chunk-size", "5", stdin=text)
    assert p.returncode == 0, p.stderr
    events = [json.loads(line) for line in p.stdout.decode().splitlines()]
    joined = "".join(e["text"] for e in events if e["type"] == "text")
    assert next(e for e in events if e["type"] == "tool_calls")["calls"][0]["name"] == "list_dir"
    assert "```xml" in joined and '<|DSML|invoke name="list_dir"' not in joined


def test_stream_dash_means_stdin_and_tools_flag() -> None:
    p = run(
        "stream",
        "-",
        "--tools",
        "x,y",
        "--raw",
        stdin=b'a <tool_calls><invoke name="x"></invoke></tool_calls>',
    )
    lines = [json.loads(x) for x in p.stdout.decode().splitlines()]
    assert lines[1]["raw"] == '<tool_calls><invoke name="x"></invoke></tool_calls>'


def test_unreadable_file_exits_2(tmp_path: Path) -> None:
    p = run("parse", str(tmp_path / "missing.txt"))
    assert p.returncode == 2
    assert b"cannot read" in p.stderr and b"Traceback" not in p.stderr


def test_bad_flag_exits_2() -> None:
    p = run("stream", "--chunk-size", "0")
    assert p.returncode == 2
    assert b"chunk-size" in p.stderr
    assert run("parse", "--bogus").returncode == 2
    assert run().returncode == 2


def test_invalid_utf8_exits_1_without_traceback(tmp_path: Path) -> None:
    f = tmp_path / "bad.txt"
    f.write_bytes(b"ok \xff\xfe bad")
    p = run("parse", str(f))
    assert p.returncode == 1
    assert b"not valid UTF-8" in p.stderr and b"Traceback" not in p.stderr
    assert run("stream", stdin=b"\xc3").returncode == 1


def test_declared_tools_from_a_request_file(tmp_path: Path) -> None:
    tools = [
        {
            "type": "function",
            "function": {"name": "read_file", "parameters": {"properties": {"path": {"type": "string"}}}},
        }
    ]
    req = tmp_path / "request.json"
    req.write_text(json.dumps({"model": "m", "tools": tools}), encoding="utf-8")
    block = (
        '<|DSML|tool_calls><|DSML|invoke name="mcp.Read_File"><|DSML|parameter name="path">7'
        '</|DSML|parameter></|DSML|invoke><|DSML|invoke name="fly"></|DSML|invoke></|DSML|tool_calls>'
    )
    flags = ("--tools-file", str(req), "--unknown-tools", "reject")
    p = run("parse", *flags, stdin=("hi " + block).encode())
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == {
        "calls": [{"name": "read_file", "input": {"path": "7"}}],
        "sawToolCallSyntax": True,
        "rejectedByPolicy": False,
        "rejectedToolNames": ["fly"],
        "text": "hi ",  # the prose too (issue 40 item 6)
    }
    p = run("stream", *flags, "--chunk-size", "3", stdin=("hi " + block).encode())
    events = [json.loads(line) for line in p.stdout.decode().splitlines()]
    assert events[-1] == {
        "type": "tool_calls",
        "calls": [{"name": "read_file", "input": {"path": "7"}}],
        "rejectedToolNames": ["fly"],
        "format": "dsml",
    }


def test_json_calls_flag() -> None:
    p = run("parse", "--json-calls", stdin=b'Run {"name": "ls", "arguments": "{}"} now')
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["calls"] == [{"name": "ls", "input": {}}]


def test_help_is_plain_words_without_rule_codes() -> None:
    import re

    from callsieve.cli import build_parser

    parser = build_parser()
    subs = next(a for a in parser._actions if a.choices and isinstance(a.choices, dict))
    assert isinstance(subs.choices, dict)
    for text in [parser.format_help()] + [p.format_help() for p in subs.choices.values()]:
        assert not re.search(r"\b[RD][0-9]+\b", text), text


QWEN3_CODER = (
    b"<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/a.py\n</parameter>\n</function>\n</tool_call>"
)


def test_formats_lists_every_format_and_preset() -> None:
    from callsieve.formats import FORMATS, PRESETS, table

    p = run("formats")
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    for name in [*FORMATS, *PRESETS]:
        assert f"  {name} " in out, name
    p = run("formats", "--json")
    assert json.loads(p.stdout) == table()


def test_parse_reads_a_qwen3_coder_reply_and_a_preset_restricts() -> None:
    p = run("parse", "-", stdin=QWEN3_CODER)
    assert json.loads(p.stdout)["calls"] == [{"name": "read_file", "input": {"path": "src/a.py"}}]
    p = run("parse", "--preset", "kimi-k2", "-", stdin=QWEN3_CODER)  # not a Kimi-K2 block: text
    got = json.loads(p.stdout)
    assert got["calls"] == [] and got["text"] == QWEN3_CODER.decode()
    p = run("stream", "--preset", "gpt-oss", stdin=b"<|channel|>analysis<|message|>hm<|end|>")
    assert [json.loads(line) for line in p.stdout.splitlines()] == [{"type": "reasoning", "text": "hm"}]
    p = run("parse", "--preset", "nope", stdin=b"")
    assert p.returncode == 2 and b"nope" in p.stderr
