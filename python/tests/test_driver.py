"""The JSONL driver (DRIVER.md): order, errors that never stop it, JSON it always can write."""

from __future__ import annotations

import io
import json

from toolsieve.driver import serve


def run(*lines: str) -> list[dict[str, object]]:
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
