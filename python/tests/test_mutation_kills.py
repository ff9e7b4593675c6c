"""Tests that tell the code apart from its mutants (issue 17): what fixtures cannot say because it is
an option, a Python-only path or a library function. Each expectation comes from the rules or the
documented API, not from the implementation's output. parity/node/test/mutation-kills.test.js is the
Node twin."""

from __future__ import annotations

from typing import Any

import pytest

from toolsieve import InputTypeError, OptionsError, Sieve, TextEvent, ToolCallsEvent, coalesce, parse
from toolsieve.schema import normalize_input, normalize_value
from toolsieve.sse import iter_sse_events

BLOCK = (
    '<|DSML|tool_calls><|DSML|invoke name="f"><|DSML|parameter name="a">1</|DSML|parameter>'
    "</|DSML|invoke></|DSML|tool_calls>"
)


def stream(text: str, size: int, **options: Any) -> list[Any]:
    s = Sieve(**options)
    events = []
    for i in range(0, len(text), size):
        events += s.feed(text[i : i + size])
    return coalesce(events + s.flush())


# ---- max_capture_chars: a block of exactly the limit is not past it ---------------------------


@pytest.mark.parametrize("size", [1, 3, len(BLOCK) + 4])
def test_block_exactly_at_the_capture_limit_is_a_call(size: int) -> None:
    text = "x " + BLOCK + " y"
    out = stream(text, size, max_capture_chars=len(BLOCK))
    assert [type(e) for e in out] == [TextEvent, ToolCallsEvent, TextEvent]
    assert [c.name for c in out[1].calls] == ["f"]
    assert parse(text, max_capture_chars=len(BLOCK)).calls[0].input == {"a": 1}


@pytest.mark.xfail(
    strict=True,
    reason="bug: the closing wrapper tag is not counted against max_capture_chars (the limit is "
    "checked before each step), so a block up to len('</|DSML|tool_calls>') characters past the "
    "limit is still a call; README says a block that grows past the limit is text",
)
def test_block_one_past_the_capture_limit_is_text() -> None:
    out = stream("x " + BLOCK + " y", 1, max_capture_chars=len(BLOCK) - 1)
    assert not any(isinstance(e, ToolCallsEvent) for e in out)


def test_block_far_past_the_capture_limit_is_text_with_a_note() -> None:
    out = stream("x " + BLOCK + " y", 1, max_capture_chars=len(BLOCK) // 2)
    assert not any(isinstance(e, ToolCallsEvent) for e in out)
    assert any(isinstance(e, TextEvent) and e.note == "capture_limit" for e in out)


def test_capture_limit_must_be_a_positive_int() -> None:
    assert parse(BLOCK, max_capture_chars=1 * len(BLOCK)).calls
    with pytest.raises(OptionsError, match="at least 1"):
        Sieve(max_capture_chars=0)
    with pytest.raises(InputTypeError, match="must be an int"):
        Sieve(max_capture_chars=1.0)  # type: ignore[arg-type]


# ---- values: numbers are doubles (R6.3) ----------------------------------------------------------


def test_sixteen_digit_integer_is_the_nearest_double() -> None:
    block = BLOCK.replace(">1<", ">9999999999999999<")
    v = parse(block).calls[0].input["a"]
    assert v == 10**16 and v != 9999999999999999
    exact = parse(BLOCK.replace(">1<", ">1234567890123456<")).calls[0].input["a"]
    assert exact == 1234567890123456 and isinstance(exact, int)


# ---- schema: the text of a value that is not JSON (R12 never raises) -----------------------------


class _Odd:
    def __str__(self) -> str:
        return "odd value"


def test_string_schema_writes_a_non_json_value_as_its_text() -> None:
    assert normalize_value(_Odd(), {"type": "string"}) == "odd value"
    cyclic: list[Any] = [1]
    cyclic.append(cyclic)
    assert normalize_value(cyclic, {"type": "string"}) == str(cyclic)
    tools = [{"name": "t", "input_schema": {"type": "object", "properties": {"p": {"type": "string"}}}}]
    assert normalize_input("t", {"p": _Odd()}, tools) == {"p": "odd value"}


def test_schema_lookup_prefers_the_exact_name_over_an_earlier_case_variant() -> None:
    tools = [
        {"name": "Ab", "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}},
        {"name": "aB", "input_schema": {"type": "object", "properties": {"x": {"type": "integer"}}}},
    ]
    assert normalize_input("aB", {"x": 1}, tools) == {"x": 1}
    assert normalize_input("Ab", {"x": 1}, tools) == {"x": "1"}
    assert normalize_input(" ab ", {"x": 1}, tools) == {"x": "1"}


# ---- sse: retry takes ASCII digits only ------------------------------------------------------------


def test_sse_retry_with_non_ascii_digits_is_ignored() -> None:
    # U+0661 U+0662 are Arabic-Indic digits: str.isdigit() is true for them, the SSE rule is not.
    data = "retry: 1500\n\nretry: \u0661\u0662\ndata: a\n\nretry: 2\u0663\ndata: b\n\n".encode()
    events = list(iter_sse_events([data]))
    assert [(e.data, e.retry) for e in events] == [("a", 1500), ("b", 1500)]
