"""R16 for the block engine's families, step by step: what each chunk lets out (the fixtures pin
only joined results; these pin the timing). A call is announced in the chunk that makes its name
final, before its block closes, and a string value's characters leave with the chunk that brings
them, held back only by what may still change them."""

from __future__ import annotations

from typing import Any

import pytest

from callsieve import Sieve, coalesce
from callsieve.blocktap import HEAD_LIMIT, _Value

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {
                    "n": {"type": "integer"},
                    "s": {"type": "string"},
                    "o": {"type": ["string", "integer"]},
                },
            },
        },
    }
]


def steps(chunks: list[str], **kw: Any) -> list[list[tuple[Any, ...]]]:
    """Per chunk (and the flush), the R16 events: ("start", name) and ("args", delta)."""
    s = Sieve(stream_arguments=True, **kw)
    out = []
    for c in [*chunks, None]:
        events = s.feed(c) if c is not None else s.flush()
        got: list[tuple[Any, ...]] = []
        for e in events:
            if e.type == "tool_call_start":
                got.append(("start", e.name))
            elif e.type == "tool_call_arguments":
                if got and got[-1][0] == "args":
                    got[-1] = ("args", got[-1][1] + e.delta)
                else:
                    got.append(("args", e.delta))
            elif e.type == "tool_calls":
                got.append(("calls", len(e.calls)))
        out.append(got)
    return out


@pytest.mark.parametrize(
    ("chunks", "want"),
    [
        # Qwen3-Coder: the name is final at `>`; one line break at each end of a value is markup
        (
            [
                "<tool_call>\n<function=f",
                "x>\n<parameter=p>\n",
                "ab\n",
                "c\n",
                "</param",
                "eter>\n</function>\n</tool_call>",
            ],
            [
                [],
                [("start", "fx")],
                [("args", '{"p":"ab')],
                [("args", "\\nc")],
                [],
                [("args", '"}'), ("calls", 1)],
                [],
            ],
        ),
        # Seed-OSS: the same body in its own wrapper
        (
            ["<seed:tool_call><function=g>", "<parameter=p>x", "y</parameter></function></seed:tool_call>"],
            [[("start", "g")], [("args", '{"p":"x')], [("args", 'y"}'), ("calls", 1)], []],
        ),
        # GLM: announced at the first <arg_key>; a value streams once it cannot be JSON or a literal
        (
            ["<tool_call>f\n<arg_key>q</arg_key><arg_value>Tr", "ee", " house</arg_value></tool_call>"],
            [[("start", "f")], [("args", '{"q":"Tree')], [("args", ' house"}'), ("calls", 1)], []],
        ),
        (
            ["<tool_call>f<arg_key>q</arg_key><arg_value>12", "3</arg_value>", "</tool_call>"],
            [[("start", "f")], [("args", '{"q":123')], [("args", "}"), ("calls", 1)], []],
        ),
        # MiniMax: each invoke at its tag; a trimmed value holds its trailing blanks
        (
            [
                '<minimax:tool_call><invoke name="a"><parameter name="p">  x ',
                "y  ",
                "</parameter></invoke>",
                "</minimax:tool_call>",
            ],
            [[("start", "a"), ("args", '{"p":"x')], [("args", " y")], [("args", '"}')], [("calls", 1)], []],
        ),
        # Kimi-K2: at the argument marker; a partial escape waits for the rest of it
        (
            [
                "<|tool_calls_section_begin|><|tool_call_begin|>functions.k:0<|tool_call_argument_begin|>",
                '{"s": "a\\',
                'u00e9b"',
                ', "n": 1',
                "}<|tool_call_end|>",
                "<|tool_calls_section_end|>",
            ],
            [
                [("start", "k")],
                [("args", '{"s":"a')],
                [("args", 'éb"')],
                [],
                [("args", ',"n":1}')],
                [("calls", 1)],
                [],
            ],
        ),
        # Hermes: when the arguments object opens after the name
        (
            ['<tool_call>{"name": "h", "arguments": {', '"s": "x', 'y"}}', "</tool_call>"],
            [[("start", "h")], [("args", '{"s":"x')], [("args", 'y"}')], [("calls", 1)], []],
        ),
    ],
)
def test_calls_are_announced_and_values_stream_chunk_by_chunk(chunks: list[str], want: list[Any]) -> None:
    assert steps(chunks) == want


def test_harmony_and_mistral_calls_are_announced_before_their_end() -> None:
    got = steps(
        ["<|channel|>commentary to=functions.h<|message|>", '{"s": "x', 'y"}', "<|call|>"], preset="gpt-oss"
    )
    assert got == [
        [("start", "h")],
        [("args", '{"s":"x')],
        [("args", 'y"')],
        [("args", "}"), ("calls", 1)],
        [],
    ]
    got = steps(['[TOOL_CALLS]m[ARGS]{"s": "x', 'y"}', " t"], preset="mistral")
    assert got == [[("start", "m"), ("args", '{"s":"x')], [("args", 'y"}'), ("calls", 1)], [], []]


def test_a_schema_holds_a_typed_value_and_streams_a_string_one() -> None:
    got = steps(
        [
            "<tool_call>\n<function=f>\n<parameter=n>\n4",
            "2\n</parameter>\n<parameter=s>\n4",
            "2\n</parameter>\n",
            "</function></tool_call>",
        ],
        tools=TOOLS,
    )
    assert got == [
        [("start", "f")],
        [("args", '{"n":42,"s":"4')],
        [("args", '2"')],
        [("args", "}"), ("calls", 1)],
        [],
    ]


def test_a_string_among_the_schema_types_keeps_the_text() -> None:
    got = steps(["<tool_call>f<arg_key>o</arg_key><arg_value>1", "2</arg_value></tool_call>"], tools=TOOLS)
    assert got == [[("start", "f"), ("args", '{"o":"1')], [("args", '2"}'), ("calls", 1)], []]


def test_hermes_arguments_before_the_name_come_with_the_block() -> None:
    got = steps(['<tool_call>{"arguments": {"s": "x"},', ' "name": "h"}', "</tool_call>"])
    assert got == [[], [], [("start", "h"), ("args", '{"s":"x"}'), ("calls", 1)], []]


def test_llama_json_calls_stream_and_r9_json_calls_come_whole() -> None:
    """D38: under llama_json a JSON call is announced when its arguments object opens after its
    name; with R9's json_tool_calls option alone it still comes whole with its event."""
    chunks = ['Ok {"name": "f", "parameters": {', '"s": "ab', 'c", "n": 1', "}} done"]
    assert steps(chunks, preset="llama3") == [
        [("start", "f")],
        [("args", '{"s":"ab')],
        [("args", 'c"')],
        [("args", ',"n":1}'), ("calls", 1)],
        [],
    ]
    whole = [("start", "f"), ("args", '{"s":"abc","n":1}'), ("calls", 1)]
    assert steps(chunks, json_tool_calls=True) == [[], [], [], whole, []]


def test_a_broken_llama_json_call_ends_at_once_and_the_rest_of_its_json_is_text_as_it_comes() -> None:
    """R16.3, D37: a repeated key after the announcement ends the call there; the rest of the JSON
    value is text as it arrives, then prose resumes."""
    s = Sieve(stream_arguments=True, preset="llama3")
    first = s.feed('{"name": "f", "parameters": {"a": 1, "a": 2')
    kinds = [e.type for e in first]
    assert [k for i, k in enumerate(kinds) if k != "tool_call_arguments" or kinds[i - 1] != k] == [
        "tool_call_start",
        "tool_call_arguments",
        "tool_calls",
        "text",
    ]
    assert getattr(first[-1], "text", None) == '"a": 2'
    assert [(e.type, getattr(e, "text", "")) for e in s.feed('}} {"x": 1}')] == [("text", '}} {"x": 1}')]
    assert s.flush() == []


def test_a_break_ends_the_block_at_once_and_the_rest_is_text_as_it_comes() -> None:
    s = Sieve(stream_arguments=True)
    first = s.feed("<tool_call>\n<function=f>\n<parameter=p>\n1\n</parameter>\nstray")
    kinds = [e.type for e in first]
    assert [k for i, k in enumerate(kinds) if k != "tool_call_arguments" or kinds[i - 1] != k] == [
        "tool_call_start",
        "tool_call_arguments",
        "tool_calls",
        "text",
    ]
    assert getattr(first[-1], "text", None) == "stray"
    assert [(e.type, getattr(e, "text", "")) for e in s.feed(" words</tool_call>")] == [
        ("text", " words</tool_call>")
    ]


def test_a_minimax_head_too_long_to_decide_stops_announcing_and_the_block_still_reads() -> None:
    text = (
        '<minimax:tool_call><invoke name="a"></invoke><invoke'
        + " " * (HEAD_LIMIT + 8)
        + 'name="b"></invoke></minimax:tool_call>'
    )
    s = Sieve(stream_arguments=True)
    events = [e for c in text for e in s.feed(c)] + s.flush()
    assert [(e.type, getattr(e, "name", None)) for e in events if e.type != "tool_call_arguments"] == [
        ("tool_call_start", "a"),
        ("tool_call_start", "b"),
        ("tool_calls", None),
    ]


@pytest.mark.parametrize(
    ("how", "pieces", "want"),
    [
        (1, ["\r", "\nab\r", "\n", "c\n"], ["", "ab", "", "\r\nc"]),  # Qwen3-Coder line breaks
        (1, ["\rx"], ["\rx"]),
        (2, ["  ", " a ", " ", "b "], ["", "a", "", "  b"]),  # MiniMax: trimmed
        (3, [" Tr", "ue"], ["", ""]),  # GLM: a Python literal so far
        (3, [" Tr", "ue x"], ["", " True x"]),
        (3, ["\u00a0tr"], ["\u00a0tr"]),  # not JSON after a blank JSON does not allow
        (3, ["-1", "e5", "x"], ["", "", "-1e5x"]),
        (3, ['{"a"', "x"], ["", ""]),
    ],
)
def test_value_pieces(how: int, pieces: list[str], want: list[str]) -> None:
    v = _Value(how)
    assert [v.add(p) for p in pieces] == want


@pytest.mark.parametrize(("n", "announced"), [(256, True), (257, False)])
def test_a_name_of_256_astral_characters_is_announced_one_of_257_is_not(n: int, announced: bool) -> None:
    name = "\U0001f600" * n
    got = steps(
        [f"<tool_call>\n<function={name}>\n<parameter=p>\nx\n</parameter>\n</function>\n</tool_call>"]
    )
    assert any(e[0] == "start" for e in got[0]) is announced


@pytest.mark.parametrize(
    ("text", "options"),
    [
        (
            "<tool_call>\n<function=f>\n<parameter=p>\n"
            + "x" * 200
            + "\n</parameter>\n</function>\n</tool_call>",
            {},
        ),
        (
            '<|channel|>commentary to=functions.f<|message|>{"p": "' + "x" * 200 + '"}<|call|>',
            {"preset": "gpt-oss"},
        ),
        ('[TOOL_CALLS]f[ARGS]{"p": "' + "x" * 200 + '"} ', {"preset": "mistral"}),
        ('{"name": "f", "parameters": {"p": "' + "x" * 200 + '"}} ', {"preset": "llama3"}),
    ],
)
def test_the_capture_limit_stops_applying_once_a_call_is_announced(
    text: str, options: dict[str, Any]
) -> None:
    """D37, D62: an announced call streams past max_capture_chars instead of turning to text."""
    s = Sieve(stream_arguments=True, max_capture_chars=50, **options)
    events = [e for i in range(0, len(text), 16) for e in s.feed(text[i : i + 16])] + s.flush()
    calls = [c for e in events if e.type == "tool_calls" for c in getattr(e, "calls", ())]
    assert [c.input for c in calls] == [{"p": "x" * 200}]
    assert not any(getattr(e, "note", None) == "capture_limit" for e in events)


@pytest.mark.parametrize("limit", [40, 69, 70, 120])
def test_whether_a_call_is_announced_before_the_limit_does_not_depend_on_chunks(limit: int) -> None:
    """D43, D62: the tap reads to the limit before the block is released, so a call announced
    past it never is, whole or character by character."""
    text = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"a": "b"}<|tool_call_end|>\n<|tool_calls_section_end|>'
    )
    got = []
    for chunks in ([text], list(text)):
        s = Sieve(stream_arguments=True, max_capture_chars=limit)
        events = [e for c in chunks for e in s.feed(c)] + s.flush()
        got.append([e.to_dict() for e in coalesce(events)])
    assert got[0] == got[1]
    assert any(e["type"] == "tool_call_start" for e in got[0]) is (
        limit >= 70
    )  # (the body to the argument marker is 70 characters)
