"""The `formats` option (R14.9, D23) in the API, the driver and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from callsieve import InputTypeError, OptionsError, Sieve, TextEvent, parse
from callsieve.sieve import FORMATS

V31 = (
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>ls<｜tool▁sep｜>{"path": "."}'
    "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
)
NATIVE = (
    '<｜DSML｜function_calls><｜DSML｜invoke name="ls"><｜DSML｜parameter name="path" string="true">.'
    "</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>"
)
SEED = (
    '<|DSML|tool_calls><|DSML|invoke name="ls"><|DSML|parameter name="path">.</|DSML|parameter>'
    "</|DSML|invoke></|DSML|tool_calls>"
)
ALL = V31 + "\n" + NATIVE + "\n" + SEED


def names(formats: Any) -> list[str]:
    return [c.name + ":" + str(c.input["path"]) for c in parse(ALL, formats=formats).calls]


def test_default_recognizes_every_format() -> None:
    assert names(None) == ["ls:.", "ls:.", "ls:."]
    assert list(FORMATS) == [
        *("dsml", "function_calls", "tokens", "hermes", "qwen3_coder", "seed_oss", "glm"),
        *("minimax", "kimi_k2", "mistral", "llama_json", "pythonic", "harmony"),
    ]


@pytest.mark.parametrize(
    ("formats", "count"),
    [
        (["dsml"], 1),
        (["tokens"], 1),
        (["function_calls"], 1),
        (["dsml", "tokens"], 2),
        ([], 0),
        (("tokens",), 1),
    ],
)
def test_each_format_alone(formats: list[str], count: int) -> None:
    assert len(names(formats)) == count


def test_seed_dialect_keeps_end_of_sentence_token_as_text() -> None:
    text = "done<｜end▁of▁sentence｜>"
    assert parse(text).calls == ()
    s = Sieve(formats=["dsml"])
    assert "".join(e.text for e in s.feed(text) + s.flush() if e.type == "text") == text
    s = Sieve()
    assert "".join(e.text for e in s.feed(text) + s.flush() if e.type == "text") == "done"


@pytest.mark.parametrize("before", ["", "hi ", "x\n", "`a` ", "a\n\n", "<b>x</b>"])
@pytest.mark.parametrize("head", ["<ab", "<a\tb", "</a"])
def test_tokens_alone_hold_a_cut_prose_tag_head_wherever_it_is(before: str, head: str) -> None:
    """Under formats=["tokens"] too, a prose tag head cut by the end of the input so far waits for
    more, as after text, at the start of the input, after a line end or a code span (issue 41: the
    shortcut of scanner.py's _m_text for it was listed as never taken; here _text_tag alone would
    release it, and where the prose skip decides it waits)."""
    s = Sieve(formats=["tokens"])
    assert "".join(e.text for e in s.feed(before + head) if isinstance(e, TextEvent)) == before
    assert [e.text for e in s.flush() if isinstance(e, TextEvent)] == [head]


@pytest.mark.parametrize("bad", ["dsml", 3, [3], ["dsml", None], [["dsml"]], {"dsml": 1}])
def test_bad_type_is_input_type_error(bad: Any) -> None:
    with pytest.raises(InputTypeError):
        Sieve(formats=bad)


def test_unknown_format_is_options_error() -> None:
    with pytest.raises(OptionsError, match="unknown format 'xml'"):
        parse("x", formats=["xml"])


def driver(*requests: dict[str, Any]) -> list[dict[str, Any]]:
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in requests)
    out = subprocess.run(
        [sys.executable, "-m", "callsieve.driver"], input=lines.encode(), capture_output=True, check=True
    )
    return [json.loads(x) for x in out.stdout.decode().splitlines()]


def test_driver_formats_option() -> None:
    a, b, c = driver(
        {"id": "a", "op": "parse", "text": ALL, "options": {"formats": ["tokens"]}},
        {"id": "b", "op": "parse", "text": ALL, "options": {"formats": "tokens"}},
        {"id": "c", "op": "parse", "text": ALL, "options": {"formats": ["nope"]}},
    )
    assert len(a["result"]["calls"]) == 1
    assert b["error"]["type"] == "BadRequest"
    assert c["error"]["type"] == "OptionsError"


def cli(*args: str, stdin: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "callsieve", *args], input=stdin.encode(), capture_output=True, check=False
    )


def test_cli_formats_flag() -> None:
    r = cli("parse", "--formats", "dsml,function_calls", stdin=ALL)
    assert r.returncode == 0
    assert len(json.loads(r.stdout)["calls"]) == 2
    r = cli("parse", "--formats", "xml", stdin=ALL)
    assert r.returncode == 2
    assert b"unknown format" in r.stderr
