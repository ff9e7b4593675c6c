"""More tests that tell the code apart from its mutants (issue 17), from the mutation runs of
2026-12-04 (names, schema, reasoning, shell, the scanner's `_skip`). As in test_mutation_kills.py,
each expectation comes from the rules or the documented API, not from the implementation's output."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from callsieve import InputTypeError, Sieve, TextEvent, ToolCallsEvent, coalesce, parse
from callsieve.openai import to_openai_tool_calls
from callsieve.schema import check_tools
from callsieve.shell import KEYWORDS_ALL, KEYWORDS_NATIVE, KEYWORDS_SEED, _match_general, match_tag

# ---- schema: a misuse message names the option and what was given (R12) --------------------------


@pytest.mark.parametrize(("tools", "given"), [({"name": "f"}, "dict"), ("f", "str"), (5, "int")])
def test_tools_that_are_not_a_list_name_their_type(tools: Any, given: str) -> None:
    want = f"^tools must be a list of tool definitions, got {given}$"
    with pytest.raises(InputTypeError, match=want):
        check_tools(tools)
    with pytest.raises(InputTypeError, match=want):
        Sieve(tools=tools)
    with pytest.raises(InputTypeError, match=want):
        to_openai_tool_calls((), tools=tools)
    assert check_tools(None) is None and check_tools(()) == ()


def whole_and_by_character(text: str, **options: Any) -> tuple[list[Any], list[Any]]:
    """The coalesced events of `text` fed whole and fed one character at a time (R8.6: the same)."""
    out = []
    for size in (len(text) or 1, 1):
        s = Sieve(**options)
        events = []
        for i in range(0, len(text), size):
            events += s.feed(text[i : i + size])
        out.append(coalesce(events + s.flush()))
    return out[0], out[1]


# ---- shell: a tag cut right after its `/` waits for the `>` (R8.6) -------------------------------


def test_self_closing_wrapper_cut_after_its_slash_waits() -> None:
    # A single-quoted attribute keeps the tag off the plain fast path: the attribute reader decides.
    text = 'x <tool_calls k=\'v\'/><invoke name="f"><parameter name="a">1</parameter></invoke></tool_calls> y'
    whole, by_char = whole_and_by_character(text)
    assert by_char == whole
    assert [type(e) for e in whole] == [TextEvent, ToolCallsEvent, TextEvent]
    assert whole[1].raw.startswith("<tool_calls k='v'/>")
    assert [(c.name, c.input) for c in whole[1].calls] == [("f", {"a": 1})]


# ---- shell: a tag ended by a broken terminator is decided at once (R2.6, R8.3) --------------------


@pytest.mark.parametrize("after", [".", "\n", '"'])
def test_tag_ended_by_a_separator_is_decided_before_more_input(after: str) -> None:
    # `|` is a broken terminator (R2.6): the tag ends there, whatever follows. A closing wrapper
    # outside a block is text, released as soon as it is decided (R8.3), and it is tool-call syntax.
    s = Sieve()
    assert coalesce(s.feed("a </tool_calls|" + after)) == [TextEvent("a </tool_calls|" + after)]
    assert s.saw_tool_call_syntax
    assert s.flush() == []


# ---- scanner: open angles that start nothing in an invoke body (the scanner's _skip) --------------


@pytest.mark.parametrize("run", ["<<", "<<<", "<<<<<<<<<<"])
def test_invoke_body_ending_in_open_angles_is_text_at_the_end(run: str) -> None:
    # R8.5: the input ends inside the block, which no repair completes: it is released as text.
    text = '<tool_calls><invoke name="f">{"a": 1}' + run
    whole, by_char = whole_and_by_character(text)
    assert whole == by_char == [TextEvent(text)]


def test_end_of_sentence_token_after_a_fullwidth_angle_in_an_invoke_body() -> None:
    # R14.6: the end-of-sentence token is not content; it ends the block, which becomes text, and
    # does not appear in it. The fullwidth angle before it starts nothing and stays text.
    text = 'x <|DSML|tool_calls><|DSML|invoke name="f">{"a": 1}＜<｜end▁of▁sentence｜> y'
    whole, by_char = whole_and_by_character(text)
    assert whole == by_char == [TextEvent('x <|DSML|tool_calls><|DSML|invoke name="f">{"a": 1}＜ y')]


# ---- shell: the plain fast path answers as the general recognizer, at any index -------------------
# (test_fast_paths.py holds it to that at length; it is outside the mutation test selection for its
# run time. These few shapes, at index 0 and after other text, are what its mutants change.)

PLAIN_SHAPES = [
    '<|DSML|invoke name="read_file">',
    '<｜DSML｜parameter name="content" string="true">',
    "</|dsml|TOOL_CALLS>",
    '<|DSML|invoke Name="x" name="y" other="z">',
    '<|DSML|invoke name="x" other="z" string="s">',
    '<|DSML|invoke name="x"|',
    "<|DSML|invoke" + " " * 60 + 'name="x">',
    "<|DSML|invoke" + " " * 45 + 'name="x">',
    "<tool_calls" + " " * 50 + ">",
    "<" + "x" * 70,
]


@pytest.mark.parametrize("lead", ["", "a b ", "=" * 70 + " ", "x" * 70 + " "])
def test_plain_fast_path_answers_as_the_general_recognizer(lead: str) -> None:
    for shape in PLAIN_SHAPES:
        for tail in ("", " rest", ">"):
            text = lead + shape + tail
            i = len(lead)
            for end in range(i + 1, len(text) + 1):
                s = text[:end]
                for kw, final in itertools.product(
                    (KEYWORDS_SEED, KEYWORDS_ALL, KEYWORDS_NATIVE), (False, True)
                ):
                    assert match_tag(s, i, final, kw) == _match_general(s, i, final, kw), (s, i, final)


# ---- shell: a closing tag with repeated angles cut by the end of the input is text (D15, R8.5) ----


@pytest.mark.parametrize("tail", ["</<", "</<<", "</<|DSML|param", "</<|DSML|parameter", "</<tool_calls x"])
def test_closing_tag_with_angles_after_its_slash_cut_by_the_end_is_text(tail: str) -> None:
    # Nothing is swallowed: what never became a tag stays text, at the end as anywhere.
    text = "a\n" + tail
    whole, by_char = whole_and_by_character(text)
    assert whole == by_char == [TextEvent(text)]


# ---- shell: an angle before a character that starts no CDATA opener is released at once (R8.3) ----


@pytest.mark.parametrize("tail", ['<"', "<=", "<'"])
def test_angle_before_a_quote_or_equals_at_the_end_of_a_feed_is_released(tail: str) -> None:
    # No tool tag, CDATA opener (R5.5) or region opener starts with these two characters.
    s = Sieve()
    assert coalesce(s.feed("a " + tail)) == [TextEvent("a " + tail)]
    assert s.flush() == []


# ---- shell: drifted CDATA openers in plain ASCII (R5.5) -------------------------------------------

VALUE_BLOCK = (
    '<|DSML|tool_calls><|DSML|invoke name="f"><|DSML|parameter name="a">{}'
    "</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>"
)


@pytest.mark.parametrize(
    "opener",
    [
        "<![cdata[",  # R5.5: `[CDATA[` in any letter case
        "<![CData[",
        "<!-[CDATA[",  # one to three drift characters
        "<、[CDATA[",
        "<!\x00\x01\x02[CDATA[",  # control characters are dropped in the candidate span (R2.4) ...
        "<!\u200b\u200b\u200b[CDATA[",  # ... as zero-width ones are
    ],
)
def test_drifted_cdata_opener_in_a_value(opener: str) -> None:
    out = parse(VALUE_BLOCK.format(opener + "1 < 2]]>"))
    assert [c.input for c in out.calls] == [{"a": "1 < 2"}]


def test_cdata_opener_candidate_span_is_bounded() -> None:
    # The opener is looked for in a bounded window (24 characters, as in the Node port): dropped
    # characters cannot stretch it further. 15 zero-width characters fit, 16 do not.
    fits = "<!" + "\u200b" * 15 + "[CDATA["
    assert [c.input for c in parse(VALUE_BLOCK.format(fits + "x]]>")).calls] == [{"a": "x"}]
    too_long = "<!" + "\u200b" * 16 + "[CDATA["
    assert [c.input for c in parse(VALUE_BLOCK.format(too_long + "x]]>")).calls] == [{"a": too_long + "x]]>"}]
