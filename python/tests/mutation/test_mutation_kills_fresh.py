"""Tests that tell the code apart from the mutants that survived the full runs of 2026-12-06
(names, schema, reasoning, shell, values): as in test_mutation_kills.py, each expectation comes
from the rules or the documented API, not from the implementation's output."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import fixture_files, load
from fixture_support import options
from sieve_support import event_types_hold

from callsieve import Sieve, ToolCall, coalesce, parse
from callsieve.events import ToolCallsEvent
from callsieve.names import DeclaredNames, apply_policy, resolve_name, resolve_tool_name
from callsieve.schema import _schema_types, keeps_text, property_schema, typed_value
from callsieve.shell import MORE, NO, match_cdata_open

# ---- names (R10.1, R10.2) ----------------------------------------------------------------------


def test_a_tie_of_three_is_still_a_tie() -> None:
    # Three declared names share a case-folded key: a tie at that level is no match (R10.1), however
    # many names tie.
    assert resolve_tool_name("aB", ["ab", "AB", "Ab"]) is None
    assert resolve_tool_name("x.aB", ["ab", "AB", "Ab"]) is None
    assert resolve_tool_name("a-b", ["a_b", "a__b", "A_B"]) is None


def test_what_folds_and_what_separates_in_loose_keys() -> None:
    # The cases of Node's mutation-kills-fresh.test.js (its mutants of 2026-12-06), here too.
    assert resolve_tool_name("Աx", ["աx"]) is None  # Armenian capitals are not folded
    assert resolve_tool_name("İx", ["i\u0307x"]) is None  # a letter that lower-cases to two stays
    assert resolve_tool_name("get·weather", ["get_weather"]) == "get_weather"
    assert resolve_tool_name("get、weather", ["get_weather"]) == "get_weather"
    assert resolve_tool_name("A.B", ["a.b", "b"]) == "a.b"  # found whole: the tail is not tried


def test_a_resolved_call_keeps_its_id() -> None:
    calls = [ToolCall("GET_WEATHER", {"city": "Paris"}, "call_1"), ToolCall("other", {}, "call_2")]
    result = apply_policy(calls, ["get_weather"])
    assert [(c.name, c.input, c.id) for c in result.calls] == [
        ("get_weather", {"city": "Paris"}, "call_1"),
        ("other", {}, "call_2"),
    ]


def test_resolve_name_uses_the_given_tables() -> None:
    # A DeclaredNames given to resolve_name builds its tables once and counts its work (the
    # documented debug counter): its 3 x 11 declared characters, then the 2 x 11 of the name.
    names = DeclaredNames(["get_weather"])
    assert resolve_name("GET_WEATHER", names) == "get_weather"
    assert names.work == 3 * 11 + 2 * 11


# ---- schema: raw-text values typed by the schema (R17.9) -----------------------------------------
# (schema, raw text, expected (typed?, value)); parity/node/test/mutation/mutation-kills-fresh.test.js holds
# the same table for Node's typedValue.
TYPED = [
    (None, "1", (False, None)),  # no schema object: nothing usable
    (True, "1", (False, None)),
    ({"description": "d"}, "1", (False, None)),  # no type, not a string schema
    ({"enum": ["a", "b"]}, " a ", (True, " a ")),  # no type, a string schema: the text as written
    ({"type": ["integer", "string"]}, "42", (True, "42")),  # string allowed: the text stays
    ({"type": "boolean"}, "True", (True, True)),
    ({"type": "boolean"}, "true", (True, True)),
    ({"type": "boolean"}, " False ", (True, False)),
    ({"type": "boolean"}, "false", (True, False)),
    ({"type": "boolean"}, "TRUE", (False, None)),
    ({"type": ["boolean", "integer"]}, "5", (True, 5)),
    ({"type": ["integer", "boolean"]}, "True", (True, True)),  # not JSON for integer: next type
    ({"type": ["integer", "boolean"]}, "true", (True, True)),  # JSON, but not a number: next type
    ({"type": "number"}, "1.5", (True, 1.5)),
    ({"type": "number"}, "2", (True, 2)),
    ({"type": "integer"}, "2.0", (True, 2)),
    ({"type": "integer"}, "200.0", (True, 200)),
    ({"type": "integer"}, "2.5", (False, None)),
    ({"type": "integer"}, "9007199254740992.0", (False, None)),  # a float from 2**53 on: no integer
    ({"type": "integer"}, '"5"', (False, None)),  # a JSON string is no number
    ({"type": "integer"}, "null", (False, None)),  # null not allowed
    ({"type": "object"}, "5.5", (False, None)),
    ({"type": "array"}, "5.5", (False, None)),
    ({"type": "object"}, '{"a": 1}', (True, {"a": 1})),
    ({"type": "array"}, "[1]", (True, [1])),
    ({"type": ["integer", "null"]}, "null", (True, None)),
    ({"type": ["integer", "null"]}, "None", (True, None)),
    ({"type": ["integer", "null"]}, "x", (False, None)),
    ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, "7", (True, 7)),
    ({"oneOf": [{"type": "integer"}, {"type": "null"}]}, "None", (True, None)),
    ({"anyOf": [{"type": "integer"}, {"type": ["integer", "string"]}]}, "7", (True, "7")),
    ({"anyOf": [None, {"type": "number"}]}, "1", (True, 1)),  # a branch that is no schema: skipped
    # A value of another JSON type than the schema's is no match (Node's mutants of 2026-12-06).
    ({"type": "integer"}, "true", (False, None)),
    ({"type": "boolean"}, "5", (False, None)),
    ({"type": "integer"}, '{"a": 1}', (False, None)),
    ({"type": "integer"}, "[1]", (False, None)),
    ({"type": "number"}, '"5"', (False, None)),
    ({"type": "number"}, "true", (False, None)),
    # R17.9: only a container converts for object and array, a bare number stays the string
    ({"type": "object"}, "5", (False, None)),
    ({"type": "array"}, "7", (False, None)),
    ({"type": ["object", "null"]}, "5", (False, None)),
    ({"type": ["object", "integer"]}, "5", (True, 5)),
    ({"type": ["array", "object"]}, '{"a": 1}', (True, {"a": 1})),
    # D65: an integer beyond 2**53 - 1 stays the string (JavaScript cannot hold it exactly)
    ({"type": "integer"}, "12345678901234567890", (False, None)),
    ({"type": "integer"}, "9007199254740992", (False, None)),
    ({"type": "integer"}, "-9007199254740992", (False, None)),
    ({"type": "integer"}, "9007199254740991", (True, 9007199254740991)),
    ({"type": "integer"}, "-9007199254740991", (True, -9007199254740991)),
    ({"type": "number"}, "12345678901234567890", (True, 1.2345678901234567e19)),
]


@pytest.mark.parametrize(("schema", "raw", "want"), TYPED)
def test_typed_value(schema: Any, raw: str, want: tuple[bool, Any]) -> None:
    got = typed_value(schema, raw)
    assert got == want and type(got[1]) is type(want[1])


def test_keeps_text_when_a_string_is_allowed_or_nothing_usable_is_said() -> None:
    # R16, R17.9: only then can a raw-text value stream before it ends
    assert keeps_text(None) and keeps_text("string") and keeps_text({})
    assert keeps_text({"type": "string"})
    assert keeps_text({"type": ["integer", "string"]})
    assert keeps_text({"anyOf": [{"type": "integer"}, {"type": "string"}]})
    assert not keeps_text({"type": "integer"})
    assert not keeps_text({"type": ["object", "null"]})


def test_schema_types_of_branches() -> None:
    assert _schema_types({"anyOf": [{"type": "integer"}, {"type": ["integer", "string"]}]}) == [
        "integer",
        "string",
    ]
    assert _schema_types({"oneOf": [{"type": "integer"}, {"type": "null"}]}) == ["integer", "null"]
    assert _schema_types({"anyOf": [{"type": "integer"}], "oneOf": [{"type": "boolean"}]}) == [
        "integer",
        "boolean",
    ]
    assert _schema_types({"anyOf": [1, {"type": "number"}]}) == ["number"]


def test_property_schema_falls_back_to_additional_properties() -> None:
    integer = {"type": "integer"}
    assert property_schema({"properties": {}, "additionalProperties": integer}, "k") == integer
    assert property_schema({"additionalProperties": integer}, "k") == integer
    assert property_schema({"additionalProperties": True}, "k") is None
    assert property_schema(
        {"properties": {"k": {"type": "string"}}, "additionalProperties": integer}, "k"
    ) == {"type": "string"}


def test_typed_values_in_a_call() -> None:
    # The same rules through parse: a Qwen3-Coder value (a string without a schema entry).
    tools = [
        {
            "type": "function",
            "function": {
                "name": "f",
                "parameters": {
                    "type": "object",
                    "properties": {"n": {"type": ["integer", "null"]}, "s": {"type": ["integer", "string"]}},
                    "additionalProperties": {"type": "boolean"},
                },
            },
        }
    ]
    text = (
        "<tool_call>\n<function=f>\n<parameter=n>\nNone\n</parameter>\n<parameter=s>\n42\n</parameter>\n"
        "<parameter=b>\nTrue\n</parameter>\n</function>\n</tool_call>"
    )
    [call] = parse(text, tools=tools, formats=["qwen3_coder"]).calls
    assert call.input == {"n": None, "s": "42", "b": True}


# ---- shell: a drifted CDATA opener cut by the end of the input (R5.5) ----------------------------


def test_a_cut_drifted_cdata_opener_waits_for_more() -> None:
    # `<！` (a fullwidth `!`) at the very end may still become `<！[CDATA[`: MORE until the input
    # ends (then NO); a window with no `[` that is not cut is NO at once.
    assert match_cdata_open("<！", 0, False) == MORE
    assert match_cdata_open("x<！", 1, False) == MORE
    assert match_cdata_open("<！", 0, True) == NO
    assert match_cdata_open("<！ no bracket in this window at all", 0, False) == NO
    assert match_cdata_open("<！[ＣＤＡＴＡ[x", 0, False) == 9


# ---- prose: open code spans meet the R17 formats (D1, R5.2; the full runs of 2026-12-07) ---------
# The twins of Node's prose tests in mutation-kills-fresh.test.js: what each feed() returns, and the
# coalesced events fed whole, one character at a time and cut at a given point.


def _feeds(opts: dict[str, Any], chunks: list[str]) -> list[list[dict[str, Any]]]:
    sieve = Sieve(**opts)
    out = [sieve.feed(c) for c in chunks] + [sieve.flush()]
    return [[{k: v for k, v in e.to_dict().items() if k != "raw"} for e in coalesce(evs)] for evs in out]


def _events(opts: dict[str, Any], doc: str, cuts: tuple[int, ...] = ()) -> list[dict[str, Any]]:
    splits = [[doc], list(doc), *([doc[:k], doc[k:]] for k in cuts)]
    first: list[dict[str, Any]] | None = None
    for chunks in splits:
        sieve = Sieve(**opts)
        evs = [e for c in chunks for e in sieve.feed(c)] + sieve.flush()
        got = [{k: v for k, v in e.to_dict().items() if k != "raw"} for e in coalesce(evs)]
        if first is None:
            first = got
        assert got == first, chunks[:3]
    assert first is not None
    return first


SPAN_HERMES = 'a `b\n<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call> c` d'
SPAN_MISTRAL = 'a `b\n[TOOL_CALLS]f[ARGS]{"x":1} c` d'


@pytest.mark.parametrize(
    ("preset", "doc", "marker", "fmt"),
    [("qwen3", SPAN_HERMES, "<tool_call>", "hermes"), ("mistral", SPAN_MISTRAL, "[TOOL_CALLS]", "mistral")],
)
def test_a_block_at_a_line_start_ends_an_open_span_at_once(
    preset: str, doc: str, marker: str, fmt: str
) -> None:
    want = [
        {"type": "text", "text": "a `b\n"},
        {"type": "tool_calls", "calls": [{"name": "f", "input": {"x": 1}}], "format": fmt},
        {"type": "text", "text": " c` d"},
    ]
    assert _events({"preset": preset}, doc, (doc.index(marker) + 4,)) == want
    assert _feeds({"preset": preset}, [doc]) == [want, []]  # feed() returns the call, before flush()


def test_a_bracket_at_a_line_start_of_a_span_ends_nothing() -> None:
    other = 'a `b\n[x] [TOOL_CALLS]f[ARGS]{"x":1} c` d'
    assert _events({"preset": "mistral"}, other) == [{"type": "text", "text": other}]
    off = 'a `b\n[TOOL_CALLS] <tool_call>{"name": "f", "arguments": {}}</tool_call> c` d'
    assert _events({"preset": "qwen3"}, off) == [{"type": "text", "text": off}]


def test_a_bracket_inside_a_span_is_held_only_for_a_bare_list() -> None:
    closed = "a `b [f(x=1)] c` d"
    assert _feeds({"preset": "llama4"}, [closed]) == [[{"type": "text", "text": closed}], []]
    assert _feeds({"preset": "llama4"}, ["a `bcd"]) == [[{"type": "text", "text": "a `bcd"}], []]
    closed = 'a `b [TOOL_CALLS]f[ARGS]{"x":1} c` d'
    assert _feeds({"preset": "mistral"}, [closed]) == [[{"type": "text", "text": closed}], []]


def test_without_mistral_a_marker_inside_a_span_holds_nothing() -> None:
    # Held from the marker, the span would pass the limit (80) and be literal: its closer would
    # open a new span over the block after it.
    doc = "a `[TOOL_CALLS] " + "x" * 100 + '` <tool_call>{"name": "f", "arguments": {}}</tool_call> ` e'
    assert _events({"preset": "qwen3", "max_capture_chars": 80}, doc) == [
        {"type": "text", "text": "a `[TOOL_CALLS] " + "x" * 100 + "` "},
        {"type": "tool_calls", "calls": [{"name": "f", "input": {}}], "format": "hermes"},
        {"type": "text", "text": " ` e"},
    ]


# ---- dsml: the repairs a block reports (D8, D58; the full run of 2026-12-07) ------------------------
# Each block's `repaired` names the decisions applied to it, once each. After an unclosed CDATA
# (D8) the rest of the input is read by the loose rule: a later CDATA with its `]]>` is not a
# repair, one without it is. parity/node/test/mutation/mutation-kills-fresh.test.js has this table.


def _block(value: str) -> str:
    return (
        '<|DSML|tool_calls><|DSML|invoke name="f"><|DSML|parameter name="p">'
        + value
        + "</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>"
    )


# (preset, stream_arguments, document, each block's `repaired`): the one table of repairs, the
# families' rows below.
REPAIRS: list[tuple[str | None, bool, str, list[tuple[str, ...]]]] = [
    (None, False, _block("<![CDATA[a") + " then " + _block("<![CDATA[b]]>"), [("D8",), ()]),
    (None, False, _block("<![CDATA[a") + " then " + _block("<![CDATA[b"), [("D8",), ("D8",)]),
    (None, False, _block("<![CDATA[x <![CDATA[y]]>"), [("D8",)]),  # the `]]>` closes the inner one only (D7)
    (
        None,
        False,
        '<|DSML|tool_calls><|DSML|invoke name="f"><|DSML|parameter name="p"><![CDATA[a</|DSML|parameter>'
        '<|DSML|parameter name="q"><![CDATA[b</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>',
        [("D8",)],  # two values repaired, one decision
    ),
]


def test_past_the_limit_a_block_keeps_no_more_malformed_calls() -> None:
    # D43: past the capture limit only "there was one" matters: 2,000 malformed invokes (a stray
    # closer each) leave the block's list as it was at the limit, not 2,000 entries long.
    s = Sieve(max_capture_chars=1000)
    s.feed("<｜DSML｜function_calls>")
    for _ in range(2000):
        s.feed('<｜DSML｜invoke name="a"></｜DSML｜parameter></｜DSML｜invoke>')
    bad = s._scanner.cap.bad
    assert bad is not None and 0 < len(bad) <= 1000 // 50
    assert all(e.type == "text" for e in s.flush())  # the block was released as text


# ---- scanner: the families' blocks and the capture limit (D43, D37; the full run of 2026-12-07) ----
# A block longer than max_capture_chars is released as text with the note (JSON in prose is plain
# text: it was never a block); once its call is announced (stream_arguments) the limit stops
# applying and the call streams whole. Whole, by characters and in chunks of 7.
_X = "x" * 100
LIMITED = [
    ("qwen3", '<tool_call>{"name": "write", "arguments": {"text": "' + _X + '"}}</tool_call>', "hermes"),
    (
        "glm-4.5",
        "<tool_call>write\n<arg_key>text</arg_key>\n<arg_value>" + _X + "</arg_value>\n</tool_call>",
        "glm",
    ),
    ("llama3", '{"name": "write", "parameters": {"text": "' + _X + '"}}', "llama_json"),
    (
        "kimi-k2",  # announced only at its argument marker, past the limit: text in both modes
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0<|tool_call_argument_begin|>"
        '{"text": "' + _X + '"}<|tool_call_end|><|tool_calls_section_end|>',
        "",
    ),
]


@pytest.mark.parametrize(("preset", "block", "fmt"), LIMITED)
def test_a_family_block_past_the_limit(preset: str, block: str, fmt: str) -> None:
    doc = "a " + block + " b"
    note = {} if fmt == "llama_json" else {"note": "capture_limit"}
    want = {
        False: [{"type": "text", "text": doc, **note}],
        True: [
            {"type": "text", "text": "a "},
            {"type": "tool_call_start", "index": 0, "name": "write"},
            {"type": "tool_call_arguments", "index": 0, "delta": '{"text":"' + _X + '"}'},
            {"type": "tool_calls", "calls": [{"name": "write", "input": {"text": _X}}], "format": fmt},
            {"type": "text", "text": " b"},
        ]
        if fmt
        else [{"type": "text", "text": doc, "note": "capture_limit"}],
    }
    for stream in (False, True):
        for size in (1, 7, len(doc)):
            s = Sieve(preset=preset, max_capture_chars=40, stream_arguments=stream)
            events = [e for i in range(0, len(doc), size) for e in s.feed(doc[i : i + size])]
            events += s.flush()
            assert [e.to_dict() for e in coalesce(events)] == want[stream], (stream, size)


# The families' repairs (D58): D44 a block the end of the output cut that its grammar can still
# read, D37 a block that broke after its call was announced, D26 a token section without its end.
# Node's twin table is in parity/node/test/mutation/mutation-kills-fresh.test.js.
REPAIRS += [
    ("qwen3", False, '<tool_call>{"name": "f", "arguments": {"x": 1}}', [("D44",)]),
    ("qwen3", True, '<tool_call>{"name": "f", "arguments": {"x": 1}} trailing</tool_call> after', [("D37",)]),
    ("qwen3", False, '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>', [()]),
    ("llama3", True, '{"name": "f", "parameters": {"x": "abc', [("D37",)]),
    ("llama3", True, '{"name": "f", "parameters": {"x": 1}}', [()]),
    (
        "deepseek-v3",
        False,
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>",
        [("D26",)],
    ),
    (
        "deepseek-v3",  # the end-of-sentence token ends the section: as the end of the output
        False,
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜end▁of▁sentence｜>",
        [("D26",)],
    ),
    ("glm-4.5", True, "<tool_call>f\n<arg_key>x</arg_key>\n<arg_value>1", [("D44",)]),
    (
        "qwen3-coder",
        False,
        "<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>",
        [("D44",)],
    ),
    (
        "qwen3-coder",
        True,
        "<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\nstray\n</function>\n</tool_call>",
        [("D37",)],
    ),
]


@pytest.mark.parametrize(("preset", "stream", "doc", "want"), REPAIRS)
def test_a_block_names_each_repair_once(
    preset: str | None, stream: bool, doc: str, want: list[tuple[str, ...]]
) -> None:
    for size in (1, len(doc)):
        s = Sieve(preset=preset, stream_arguments=stream)
        events = [e for i in range(0, len(doc), size) for e in s.feed(doc[i : i + size])]
        events += s.flush()
        assert [e.repaired for e in events if e.type == "tool_calls"] == want, size


LONG = "x" * 2000
LONG_VALUES = {
    "qwen3": '<tool_call>{"name": "get", "arguments": {"a": "%s"}}</tool_call>',
    "qwen3-coder": "<tool_call><function=get><parameter=a>%s</parameter></function></tool_call>",
    "glm-4.5": "<tool_call>get<arg_key>a</arg_key><arg_value>%s</arg_value></tool_call>",
    "minimax-m2": '<minimax:tool_call><invoke name="get"><parameter name="a">%s</parameter></invoke>'
    "</minimax:tool_call>",
    "kimi-k2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.get:0<|tool_call_argument_begin|>"
    '{"a": "%s"}<|tool_call_end|><|tool_calls_section_end|>',
    "llama4": "<|python_start|>[get(a='%s')]<|python_end|>",
    "llama3": 'x {"name": "get", "parameters": {"a": "%s"}} y',
}


@pytest.mark.parametrize("preset", sorted(LONG_VALUES))
@pytest.mark.parametrize("stream", [False, True])
def test_a_block_fed_by_characters_costs_about_the_work_of_it_whole(preset: str, stream: bool) -> None:
    # A tap's work is added to the counter once: a count carried from one chunk to the next would
    # grow with the number of chunks (here 2,000 characters of one value, fed one at a time).
    doc = LONG_VALUES[preset] % LONG
    work = []
    for size in (len(doc), 1):
        s = Sieve(preset=preset, stream_arguments=stream)
        events = [e for i in range(0, len(doc), size) for e in s.feed(doc[i : i + size])] + s.flush()
        assert [c.input for e in events if e.type == "tool_calls" for c in e.calls] == [{"a": LONG}]
        work.append(s.work)
    assert work[1] <= work[0] + len(doc) // 4, work


PADDED = [
    ("glm-4.5", "<tool_call>get" + " " * 2000 + "<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>"),
    (
        "qwen3-coder",
        "<tool_call>" + " " * 2000 + "<function=get><parameter=a>1</parameter></function></tool_call>",
    ),
    ("qwen3", "<tool_call>" + " " * 2000 + '{"name": "get", "arguments": {"a": 1}}</tool_call>'),
]


@pytest.mark.parametrize(("preset", "doc"), PADDED)
def test_the_work_of_a_padded_block_counts_its_body(preset: str, doc: str) -> None:
    # The body is read again when the block ends (its grammar): work counts it, blanks and all.
    for size in (1, len(doc)):
        s = Sieve(preset=preset)
        events = [e for i in range(0, len(doc), size) for e in s.feed(doc[i : i + size])] + s.flush()
        assert [list(c.input) for e in events if e.type == "tool_calls" for c in e.calls] == [["a"]]
        assert s.work >= len(doc), (size, s.work)


def test_the_work_counter_counts_every_character_at_least_once() -> None:
    # `work` (the documented debug counter) counts the characters exposed to the scanner and its
    # taps: every character of the input at least once, whatever the family and the chunking.
    docs = [(p, st, d, 8 * 1024 * 1024) for p, st, d, _ in REPAIRS]
    docs += [(p, st, "a " + b + " b", 40) for p, b, _ in LIMITED for st in (False, True)]
    for preset, stream, doc, limit in docs:
        for size in (1, len(doc)):
            s = Sieve(preset=preset, stream_arguments=stream, max_capture_chars=limit)
            for i in range(0, len(doc), size):
                s.feed(doc[i : i + size])
            s.flush()
            assert s.work >= len(doc), (preset, stream, size, doc)


def test_every_tool_calls_event_has_the_types_it_declares() -> None:
    # An event's fields are what the dataclass says (tuples, strings), on every path a block can
    # end by, whatever the chunks: every fixture input with and without stream_arguments, whole
    # and one character at a time (a None in place of an empty tuple shows only here: to_dict
    # leaves empty fields out).
    for path in fixture_files():
        case = load(path)
        text, opts = case["input"], dict(options(case))
        for stream in (False, True):
            opts["stream_arguments"] = stream
            for size in (len(text) or 1, 1):
                s = Sieve(**opts)
                events = [e for i in range(0, len(text), size) for e in s.feed(text[i : i + size])]
                for e in events + s.flush():
                    if isinstance(e, ToolCallsEvent):
                        assert event_types_hold(e), (path.name, stream, size, e)
