"""The pieces of R15 and R16 step by step: what the reasoning gate and a value tap let out after
each input piece (the fixtures pin only joined results; these pin the timing, D31-D37)."""

from __future__ import annotations

import pytest
from tap_support import steps

from callsieve.arguments import Tap, ValueTap, is_index_key
from callsieve.reasoning import Phase, ReasoningGate, check_reasoning


@pytest.mark.parametrize(
    ("name", "string", "calls", "want", "state"),
    [
        # plain text: leading blanks dropped, a trailing blank run held (R6.2)
        ("x", None, [("t", "  hello "), ("t", "world")], ["hello", " world"], Tap.STREAM),
        # a partial entity is held until it ends; decoded when it does (D13)
        ("x", None, [("t", "a &am"), ("t", "p; b")], ["a", " & b"], Tap.STREAM),
        ("x", None, [("t", "a &"), ("open", ""), ("c", "z")], ["a", " &", "z"], Tap.STREAM),
        # opening characters that may be JSON wait until ruled out (R6.3)
        ("x", None, [("t", "12"), ("t", " Main")], ["", "12 Main"], Tap.STREAM),
        ("x", None, [("t", "-"), ("t", "1"), ("t", "x")], ["", "", "-1x"], Tap.STREAM),
        ("x", None, [("t", "tr"), ("t", "ue"), ("t", " x")], ["", "", "true x"], Tap.STREAM),
        ("x", None, [("t", "fa"), ("t", "ct")], ["", "fact"], Tap.STREAM),
        ("x", None, [("t", "n"), ("t", "o")], ["", "no"], Tap.STREAM),
        ("x", None, [("t", "null  ")], [""], Tap.DECIDE),
        ("x", None, [("t", '{"a"'), ("t", "zz")], ["", ""], Tap.DECIDE),
        ("x", None, [("t", "[1"), ("t", "x")], ["", ""], Tap.DECIDE),
        ("x", None, [("t", '"q'), ("t", "x")], ["", ""], Tap.DECIDE),
        ("x", None, [("t", "<b>x"), ("t", "y")], ["", ""], Tap.HOLD),
        ("x", None, [("t", "&lt;b"), ("t", "y")], ["", ""], Tap.HOLD),
        ("x", None, [("t", "1"), ("open", ""), ("c", "x")], ["", "", ""], Tap.HOLD),
        # blank text only: nothing yet
        ("x", None, [("t", "  "), ("t", "\n")], ["", ""], Tap.LEAD),
        # a CDATA value: streams when it starts with no blank; its trailing blanks wait
        (
            "x",
            None,
            [("open", ""), ("c", "abc"), ("c", "  "), ("c", "d")],
            ["", "abc", "", "  d"],
            Tap.STREAM,
        ),
        ("x", None, [("t", " "), ("open", ""), ("c", "abc ")], ["", "", "abc"], Tap.STREAM),
        ("x", None, [("open", ""), ("c", " abc")], ["", ""], Tap.HOLD),
        ("x", None, [("open", ""), ("c", "tr"), ("c", "ee")], ["", "", "tree"], Tap.STREAM),
        ("x", None, [("open", ""), ("c", "<div>")], ["", ""], Tap.HOLD),
        ("content", None, [("open", ""), ("c", "<div>")], ["", "<div>"], Tap.STREAM),
        ("x", None, [("open", ""), ("c", "ab"), ("close", "")], ["", "ab", ""], Tap.AFTER_CDATA),
        ("x", None, [("open", ""), ("c", "tr"), ("close", "")], ["", "", ""], Tap.HOLD),
        # after the CDATA: blank text waits (dropped if nothing follows), more content joins
        (
            "x",
            None,
            [("open", ""), ("c", "ab "), ("close", ""), ("t", " "), ("t", "&amp;c")],
            ["", "ab", "", "", "  &c"],
            Tap.STREAM,
        ),
        (
            "x",
            None,
            [("open", ""), ("c", "ab"), ("close", ""), ("t", "\n"), ("open", ""), ("c", "cd")],
            ["", "ab", "", "", "", "\ncd"],
            Tap.STREAM,
        ),
        (
            "x",
            None,
            [("open", ""), ("c", "ab "), ("close", ""), ("close", "")],
            ["", "ab", "", ""],
            Tap.AFTER_CDATA,
        ),
        # string="true": as written, no trimming, no decoding (R14.2, D24)
        ("x", "true", [("t", "  "), ("t", "a &lt; "), ("t", " ")], ["", "  a &lt; ", " "], Tap.STREAM),
        (
            "x",
            " TRUE ",
            [("open", ""), ("c", " a "), ("close", ""), ("t", "\n")],
            ["", " a ", "", ""],
            Tap.AFTER_CDATA,
        ),
        ("x", "true", [("t", "\n"), ("open", ""), ("c", "a")], ["", "", ""], Tap.HOLD),
        ("x", "true", [("open", ""), ("c", "a"), ("close", ""), ("t", "b")], ["", "a", "", ""], Tap.HOLD),
        ("x", "true", [("open", ""), ("c", "a"), ("close", ""), ("open", "")], ["", "a", "", ""], Tap.HOLD),
        ("x", "true", [("t", "a"), ("open", ""), ("c", " b ")], ["a", "", " b "], Tap.STREAM),
        # string="false": JSON or a trimmed string, known at the close
        ("x", "false", [("t", "abc"), ("open", ""), ("c", "d")], ["", "", ""], Tap.HOLD),
        ("x", "maybe", [("t", "abc")], ["abc"], Tap.STREAM),
    ],
)
def test_value_tap_lets_out_only_certain_characters(
    name: str, string: str | None, calls: list[tuple[str, str]], want: list[str], state: Tap
) -> None:
    tap = ValueTap(name, string)
    assert steps(tap, *calls) == want
    assert tap.state is state


@pytest.mark.parametrize(
    ("calls", "want", "works"),
    [
        # "lit": each non-blank piece joins the opening (1, 3, 5); ruled out, the opening goes to
        # STREAM (5) and is streamed (5); then streamed text (2)
        ([("t", "t"), ("t", "ru"), ("t", "ex"), ("t", "y ")], ["", "", "truex", "y"], [0, 1, 4, 19, 21]),
        # "num": each piece is looked at once (2, 1, 1), then as for "lit" (4 + 4), then 1
        ([("t", "12"), ("t", " "), ("t", "3"), ("t", "4")], ["", "", "12 3", "4"], [0, 2, 3, 12, 13]),
        # no JSON start: straight to STREAM (4 + 4); a held blank run (2) is joined back before
        # the next text: that text (1) and the held characters again (4)
        (
            [("t", "ab  "), ("t", " \n"), ("t", "c"), ("t", "d")],
            ["ab", "", "   \nc", "d"],
            [0, 8, 10, 15, 16],
        ),
    ],
)
def test_value_tap_counts_its_work_exactly(
    calls: list[tuple[str, str]], want: list[str], works: list[int]
) -> None:
    """ValueTap.work is observable (Sieve.work adds it): each count is pinned, not only bounded
    (issue 41: mutants of each increment survived tests that checked an upper bound)."""
    tap = ValueTap("x", None)
    got = [tap.work]
    for call in calls:
        assert steps(tap, call) == [want[len(got) - 1]]
        got.append(tap.work)
    assert got == works


def test_index_keys() -> None:
    assert [is_index_key(k) for k in ("0", "7", "4294967294", "4294967295", "01", "-1", "x", "")] == [
        True,
        True,
        True,
        False,
        False,
        False,
        False,
        False,
    ]


@pytest.mark.parametrize(
    ("mode", "chunks", "want", "phase"),
    [
        (
            "auto",
            ["<thi", "nk>ab", "c</th", "ink>d"],
            [[], [(True, "ab")], [(True, "c")], [(False, "d")]],
            Phase.DONE,
        ),
        ("auto", [" \n", "<think>", "x"], [[(False, " \n")], [], [(True, "x")]], Phase.INSIDE),
        ("auto", ["<thx"], [[(False, "<thx")]], Phase.DONE),
        ("auto", ["a<think>"], [[(False, "a<think>")]], Phase.DONE),
        ("auto", ["<think></think>", "<think>"], [[], [(False, "<think>")]], Phase.DONE),
        ("auto", ["<think>a</think>b</think>"], [[(True, "a"), (False, "b</think>")]], Phase.DONE),
        ("open", [" a", "</think>"], [[(True, " "), (True, "a")], []], Phase.DONE),
        ("open", ["\n<think>", "b"], [[(True, "\n")], [(True, "b")]], Phase.INSIDE),
        ("open", ["x<think>"], [[(True, "x<think>")]], Phase.INSIDE),
        ("open", ["<", "x"], [[], [(True, "<x")]], Phase.INSIDE),
        ("off", ["<think>a</think>"], [[(False, "<think>a</think>")]], Phase.DONE),
        ("auto", ["<think>a<", "/", "b"], [[(True, "a")], [], [(True, "</b")]], Phase.INSIDE),
    ],
)
def test_reasoning_gate_pieces(
    mode: str, chunks: list[str], want: list[list[tuple[bool, str]]], phase: Phase
) -> None:
    gate = ReasoningGate(check_reasoning(mode))
    assert [gate.feed(c) for c in chunks] == want
    assert gate.phase is phase


@pytest.mark.parametrize(
    ("mode", "chunks", "tail"),
    [
        ("auto", ["<thin"], [(False, "<thin")]),
        ("open", ["<thin"], [(True, "<thin")]),
        ("auto", ["<think>a</thi"], [(True, "</thi")]),
        ("auto", ["<think>a"], []),
        ("off", ["a"], []),
    ],
)
def test_reasoning_gate_finish_lets_out_what_it_held(
    mode: str, chunks: list[str], tail: list[tuple[bool, str]]
) -> None:
    gate = ReasoningGate(check_reasoning(mode))
    for c in chunks:
        gate.feed(c)
    assert gate.finish() == tail
    assert gate.finish() == []


def test_reasoning_gate_counts_work() -> None:
    gate = ReasoningGate("auto")
    gate.feed("<thi")
    gate.feed("nk>abc")
    assert gate.work == 4 + 10
    gate.feed("</think>")
    gate.feed("plain")  # done: content passes through uncounted (the scanner counts it)
    assert gate.work == 4 + 10 + 8
