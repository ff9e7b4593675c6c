"""Tests that kill the scanner's surviving mutants (issue 17): what each fast path decides,
pinned, so that a mutant that narrows or widens it fails (a narrower one changes no event, only
the speed; the table is the speed path's specification).

`_prose_skip` builds the prose regex at import, where mutmut's trampoline cannot reach it: these
tests build it afresh, as the Sieve's own tests hold the built one to the steps (test_fast_paths).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from sieve_support import scanner_work

from callsieve import Sieve, coalesce, prose, scanner
from callsieve.shell import MORE, NO

LONG = "b" * 61  # a prose tag head is at most 64 characters with its `<` and first letter

# (text, end of decided prose without JSON calls, with JSON calls)
PROSE_ENDS = [
    ("hello world", 11, 11),
    ("a`b", 1, 1),  # a backtick may open inline code
    ("x<y", 1, 1),  # a tag head not ended yet
    ("a < b and c > d", 15, 15),  # a blank head that has ended is no tag
    ("a < b", 2, 2),  # ... but not before it ends
    ("<< shifts >>x", 13, 13),
    ('<div class="n">t', 16, 16),  # prose HTML
    ("</span>t", 8, 8),
    ("<DIV>x", 6, 6),
    ("<pre>x", 0, 0),  # <pre> opens an ignored region (D41)
    ("<PRE>", 0, 0),
    ("</pre>", 0, 0),
    ("<invoke name=x>", 0, 0),  # a keyword: the recognizers decide
    ("<tool_calls>", 0, 0),
    ("<a invoke>", 0, 0),
    ("<div data-function=1>", 0, 0),
    ("<Parameter>", 0, 0),
    ("<|DSML|x>", 0, 0),  # markers
    ("<!-- c -->", 0, 0),  # comments (D40)
    ("<1a>", 4, 4),
    ("<_a>", 0, 0),  # a head starts with a letter or a digit
    ("<a", 0, 0),
    ("<a\n", 2, 2),  # ended by the newline, which is not itself consumed by the tag
    ("a\nb", 3, 3),
    ("a\n b", 1, 1),  # a line start with an indent: the steps decide
    ("a\n\tb", 1, 1),
    ("a\n`b", 1, 1),
    ("a\n~b", 1, 1),
    ("a\n<b", 1, 1),
    ("a\n{b", 1, 1),
    ("a\n\rb", 1, 1),
    ("a\n\nb", 1, 1),
    ("{x}", 3, 0),  # `{` may open a JSON call
    ("a{b", 3, 1),
    ("x＜y", 1, 1),  # fullwidth and CJK angles
    ("x〈y", 1, 1),
    ("x《y", 1, 1),
    ("<a" + LONG + ">", 64, 64),
    ("<a" + LONG + "b>", 65, 65),
    ("<a" + LONG + "bb>", 0, 0),  # past 64 characters of head
    ("<" + "b" * 64 + " tool>", 0, 0),
    ("< x>", 4, 4),
    ("<<<<<<<< x>", 11, 11),  # up to 8 angles before a blank head
    ("<<<<<<<<< x>", 12, 12),  # no tag starts at the first of 9 angles (shell.NO_TAG_ANGLES), then 8
    ("<｜DSML｜<｜DSML｜x", 7, 7),  # a head that ends at an angle starts no tag; the last is cut
    ("<invoke<invoke", 7, 7),  # a keyword right before the angle: no tag either
    ("<invoke|<", 0, 0),  # (`invoke|` is a tag, R2.6)
    ("</</x>", 6, 6),  # D15: `</<x>` is no tag, `</x>` is prose HTML
    ("</</tool_calls>", 0, 0),
    ("<pre<", 0, 0),
    ("<\tx>", 4, 4),
    ("< " + "x" * 63 + ">", 66, 66),  # a blank head ends within 64 characters
    ("< " + "x" * 64 + ">", 0, 0),
    ("<a\x01>", 0, 0),  # no control character in a prose head
    ("<a|b>", 0, 0),  # no bar (markers) ...
    ("<a!b>", 0, 0),  # ... and no `!` (comments, CDATA drift)
    ("<ab\tcd>", 7, 7),
    ("<b>invoke</b>", 13, 13),
    ("<b>Invoke</b>", 13, 13),
    ("<pREx>", 0, 0),  # any head starting `pre`: the steps tell `<pre>` from `<prefix>`
    ("<pre", 0, 0),
    ("</prex>", 0, 0),
    ("<p>re", 5, 5),
    ("<xpre>", 6, 6),
]


@pytest.mark.parametrize(("text", "plain", "json"), PROSE_ENDS)
def test_prose_skip_decides_exactly_this(text: str, plain: int, json: int) -> None:
    m_plain = prose._prose_skip(False).match(text)
    m_json = prose._prose_skip(True).match(text)
    assert m_plain is not None and m_json is not None
    assert (m_plain.end(), m_json.end()) == (plain, json)


def test_the_built_prose_regexes_are_the_builders() -> None:
    assert prose._PROSE.pattern == prose._prose_skip(False).pattern
    assert prose._PROSE_JSON.pattern == prose._prose_skip(True).pattern


def _fed(chunks: list[str]) -> list[list[str]]:
    """The text each feed (then the flush) released: when a decision is made, not only what."""
    s = Sieve()
    out = [["".join(e.source for e in s.feed(c))] for c in chunks]
    return [*out, ["".join(e.source for e in s.flush())]]


def test_a_fence_line_ends_a_pending_paragraph_as_soon_as_its_run_is_three() -> None:
    # FenceLine.opens_at: a run of three is a fence whatever follows; fewer, cut by the end of
    # the chunk, waits for the next character; a character other than the run's decides "no".
    assert _fed(["`a\n```", "\ncode\n"]) == [["`a\n```"], ["\ncode\n"], [""]]
    assert _fed(["`a\n~~~", "\ncode\n"]) == [["`a\n~~~"], ["\ncode\n"], [""]]
    assert _fed(["`a\n``", "`\ncode\n"]) == [["`a\n"], ["```\ncode\n"], [""]]
    assert _fed(["`a\n``", "x\ncode\n"]) == [["`a\n"], [""], ["``x\ncode\n"]]


# ---- token sections and the capture limit (R14.4, D43) ----------------------------------------

CALL = '<｜tool▁call▁begin｜>read<｜tool▁sep｜>{{"path": "{}"}}<｜tool▁call▁end｜>'
SECTION = "<｜tool▁calls▁begin｜>" + CALL.format("a") + CALL.format("b") + "<｜tool▁calls▁end｜>"
SIZES = (1, 2, 3, 7, 16, 10_000)


def _run(text: str, limit: int, size: int) -> list[dict[str, Any]]:
    s = Sieve(max_capture_chars=limit)
    events = [e for i in range(0, len(text), size) for e in s.feed(text[i : i + size])] + s.flush()
    assert "".join(e.source for e in events) == text
    return [e.to_dict() for e in coalesce(events)]


@pytest.mark.parametrize("size", SIZES)
def test_a_token_section_of_exactly_the_limit_is_kept(size: int) -> None:
    out = _run("x " + SECTION + " y", len(SECTION), size)
    assert [e["type"] for e in out] == ["text", "tool_calls", "text"]
    assert [c["input"] for c in out[1]["calls"]] == [{"path": "a"}, {"path": "b"}]


@pytest.mark.parametrize("size", SIZES)
def test_a_token_section_one_past_the_limit_is_text_with_a_note(size: int) -> None:
    text = "x " + SECTION + " y"
    # (coalesced: the text before the section joins the released one, which carries the note)
    assert _run(text, len(SECTION) - 1, size) == [{"type": "text", "text": text, "note": "capture_limit"}]


@pytest.mark.parametrize("size", SIZES)
def test_a_long_section_is_released_as_it_goes_and_a_later_block_still_counts(size: int) -> None:
    long = "<｜tool▁calls▁begin｜>" + "".join(CALL.format(i) for i in range(40)) + "<｜tool▁calls▁end｜>"
    later = '\n<|DSML|tool_calls><|DSML|invoke name="ok"></|DSML|invoke></|DSML|tool_calls>'
    out = _run(long + later, 500, size)
    assert out[0]["type"] == "text" and out[0].get("note") == "capture_limit"
    calls = [c["name"] for e in out if e["type"] == "tool_calls" for c in e["calls"]]
    assert calls == ["ok"]
    assert _run(long + later, 500, size) == _run(long + later, 500, 10_000)


def test_a_fence_releases_its_lines_as_they_come() -> None:
    # A fenced block is text whatever it holds: every line of it goes out in the feed it came in.
    assert _fed(["```\na\nb\nc", "\n```\nz"]) == [["```\na\nb\nc"], ["\n```\nz"], [""]]
    assert _fed(["x\n```py\nline one\nline two\n", "```\nafter"]) == [
        ["x\n```py\nline one\nline two\n"],
        ["```\nafter"],
        [""],
    ]


# Past the limit inside an invoke: the rest of the block is still parsed (so its content is not
# read as prose) but kept as nothing more than "there was one" (D43); none of it may raise.
PAST_IN_INVOKE = [
    '<invoke name="op"><｜L｜Parameter name="0">2]</｜DSML｜Parameter><parameter name="n"g="">',  # (shrunk)
    '<invoke name="op"><parameter name="a">' + "x" * 80 + '</parameter><parameter name="b">y',
    '<|DSML|tool_calls><|DSML|invoke name="op">{"a": "' + "x" * 80 + '"}</|DSML|invoke>',
]


@pytest.mark.parametrize("text", PAST_IN_INVOKE)
@pytest.mark.parametrize("size", SIZES)
def test_past_the_limit_inside_an_invoke_all_is_text_with_a_note(text: str, size: int) -> None:
    out = _run(text, 60, size)
    assert out == [{"type": "text", "text": text, "note": "capture_limit"}]


# ---- the full run (issue 17): JSON candidates, the work counter, breaks in a CDATA -----------


def _fed_with(chunks: list[str], **opts: Any) -> list[list[str]]:
    """As _fed, with Sieve options."""
    s = Sieve(**opts)
    out = [["".join(e.source for e in s.feed(c))] for c in chunks]
    return [*out, ["".join(e.source for e in s.flush())]]


def _events(text: str, size: int = 1 << 20, **opts: Any) -> list[dict[str, Any]]:
    s = Sieve(**opts)
    events = [e for i in range(0, len(text), size) for e in s.feed(text[i : i + size])] + s.flush()
    assert "".join(e.source for e in events) == text
    return [e.to_dict() for e in coalesce(events)]


JSON = {"json_tool_calls": True}


def test_a_json_call_counts_its_text_once_more() -> None:
    """The scanner's work for a JSON call (R9): the characters fed (34, or 21 + 13: the part of
    the candidate held after the first chunk is not looked at again), and the call's text (30)
    once more when it is decoded. Pinned exactly (issue 41: the mutants of that increment were
    listed as checked by test_hostile.py only, outside the mutation selection)."""
    call = '{"name": "a", "arguments": {}}'
    assert scanner_work(["x " + call + " y"], **JSON) == 34 + 30
    assert scanner_work(["x " + call[:19], call[19:] + " y"], **JSON) == 21 + 13 + 30
    assert scanner_work([call], **JSON) == 30 + 30


def test_a_brace_that_starts_no_json_call_is_text_at_once() -> None:
    assert _fed_with(["a{b", "c"], **JSON) == [["a{b"], ["c"], [""]]
    assert _fed_with(['a{"na', 'x"'], **JSON) == [["a"], ['{"nax"'], [""]]  # a first key may follow


def test_after_a_json_candidate_that_is_no_call_the_chunk_goes_on() -> None:
    assert _fed_with(['{"content": "hi"} after', " more"], **JSON) == [
        ['{"content": "hi"} after'],
        [" more"],
        [""],
    ]


def test_after_a_json_candidate_that_is_no_call_the_line_goes_on() -> None:
    # Mid-line: three backticks open an inline span there, not a fence, so the wrapper after the
    # paragraph's end is a block.
    text = 'x {"content": "hi"}```\n<tool_calls><invoke name="f"></invoke></tool_calls>\n'
    assert [e["type"] for e in _events(text, **JSON)] == ["text", "tool_calls", "text"]


def test_a_json_candidate_is_measured_from_its_own_start() -> None:
    call = '{"name": "f", "input": {"a": 1}}'
    out = _events("p" * 100 + " " + call, max_capture_chars=40, **JSON)
    assert [e["type"] for e in out] == ["text", "tool_calls"]
    long = '{"name": "f", "input": {"a": "' + "x" * 50 + '"}}'  # longer than the limit: text
    assert _events(long, max_capture_chars=20, **JSON) == [{"type": "text", "text": long}]


def test_a_json_candidate_past_the_limit_goes_out_in_the_feed_that_took_it_past() -> None:
    first = '{"name": "ab\\c'  # a backslash and the character it escapes end the chunk
    limit = first.index("\\") + 1
    assert _fed_with([first, 'd"}'], max_capture_chars=limit, **JSON) == [[first], ['d"}'], [""]]


def test_a_pending_span_rescan_is_counted() -> None:
    # The held part (from the wrapper, or from the second run, to the paragraph's end) is read
    # again as TEXT.
    assert scanner_work(["`a <tool_calls> b\n\nc"]) == 20 + len("<tool_calls> b\n")
    assert scanner_work(["`a ``b\n\nc"]) == 9 + len("``b\n")
    assert scanner_work(["`a b\n\nc"]) == 7  # nothing held


CDATA_OPEN = '<|DSML|tool_calls><|DSML|invoke name="f"><|DSML|parameter name="a"><![CDATA['


def test_a_break_inside_a_cdata_keeps_its_content_as_written() -> None:
    # R16.3: the input ends inside the CDATA of an announced call; the value is the CDATA's.
    for content, value in (("  a &amp; b  ", "  a &amp; b  "), ("\n a\n", "\n a\n")):
        out = _events(CDATA_OPEN + content, stream_arguments=True)
        assert out[-1] == {
            "type": "tool_calls",
            "calls": [{"name": "f", "input": {"a": value}}],
            "format": "dsml",
        }


def test_a_break_counts_the_body_it_decodes() -> None:
    # The chunk (72 characters), the tap's look at the body (10) and the body decoded at the break (5).
    head = '<|DSML|tool_calls><|DSML|invoke name="f"><|DSML|parameter name="a">'
    assert len(head + "hello") == 72
    assert scanner_work([head + "hello"], stream_arguments=True) == 72 + 10 + 5
    assert scanner_work([CDATA_OPEN + "hello"], stream_arguments=True) == 81 + 10 + 5


# ---- after the loose-CDATA repair (R5.6, D8): every later CDATA read by its rule -------------

REPAIRED = '<tool_calls><invoke name="n"><parameter name="a"><![CDATA[one</parameter>'


@pytest.mark.parametrize("rest", ["two", "two <", "two <b <c"])
def test_a_later_cdata_the_input_ends_in_makes_the_block_text(rest: str) -> None:
    text = "X" + REPAIRED + '<parameter name="b"><![CDATA[' + rest
    assert _events(text) == [{"type": "text", "text": text}]


def test_a_later_cdata_the_input_ends_in_is_the_value_of_an_announced_call() -> None:
    # The bare invoke is repaired (so the rule applies from there); the next block's call is
    # announced, and its CDATA, cut by the end of input, is read by the rule (R16.3).
    text = (
        '<invoke name="n"><parameter name="a"><![CDATA[one</parameter></invoke>\n'
        '<tool_calls><invoke name="m"><parameter name="b"><![CDATA[two'
    )
    out = _events(text, stream_arguments=True)
    assert out[-1] == {
        "type": "tool_calls",
        "calls": [{"name": "m", "input": {"b": "two"}}],
        "format": "dsml",
    }


def test_a_later_cdata_keeps_the_angles_in_it() -> None:
    text = REPAIRED + '<parameter name="b"><![CDATA[a<b<c</parameter></invoke></tool_calls>'
    out = _events(text)
    call = {"name": "n", "input": {"a": "one", "b": "a<b<c"}}
    assert out == [{"type": "tool_calls", "calls": [call], "format": "dsml"}]


def test_the_repair_reads_the_rest_once() -> None:
    # One repair: the content after the first CDATA's opener (`one</parameter>...two`) is
    # exposed again once, and the value `one` is decoded; the second unclosed CDATA, read by the
    # rule, makes the block text with no second repair.
    text = "X" + REPAIRED + '<parameter name="b"><![CDATA[two'
    content = text[text.index("one") :]
    assert scanner_work([text]) == len(text) + len(content) + len("one")


def test_the_repair_is_made_once_for_the_whole_input() -> None:
    # Two blocks with an unclosed CDATA each: the first repair sets the rule for the rest (the
    # content from `first` is exposed again once); the second CDATA is read by it, not repaired.
    text = (
        '<tool_calls><invoke name="note"><parameter name="text"><![CDATA[first</parameter></invoke>'
        "</tool_calls>\nand\n"
        '<tool_calls><invoke name="note"><parameter name="text"><![CDATA[second</parameter></invoke>'
        "</tool_calls>"
    )
    assert [e["type"] for e in _events(text)] == ["tool_calls", "text", "tool_calls"]
    content = text[text.index("first") :]
    assert scanner_work([text]) == len(text) + len(content) + len("first") + len("second")


def test_after_a_token_section_the_chunk_goes_on() -> None:
    section = "<｜tool▁calls▁begin｜>" + CALL.format("a") + "<｜tool▁calls▁end｜>"
    assert _fed(["Sure.\n" + section + "\nOK.", " more"]) == [
        ["Sure.\n" + section + "\nOK."],
        [" more"],
        [""],
    ]


# Past the limit a block is still parsed by its rules (D43), so where it fails, and so where
# TEXT resumes, is where it would fail under the limit: a JSON body in progress stays one.
X30 = "x" * 30


def test_past_the_limit_a_json_body_then_a_parameter_ends_the_block_there() -> None:
    text = (
        f'<tool_calls><invoke name="f">{{"a": "{X30}"}} <parameter name="p">x</parameter></invoke>'
        '<invoke name="g"></invoke></tool_calls>'
    )
    out = _events(text, max_capture_chars=40)
    assert [e["type"] for e in out] == ["text", "tool_calls"]
    assert out[1]["calls"] == [{"name": "g", "input": {}}]


def test_past_the_limit_parameters_after_parameters_do_not_end_the_block() -> None:
    text = (
        f'<tool_calls><invoke name="f"><parameter name="p">{X30}{X30}</parameter>'
        '<parameter name="q">y</parameter></invoke><invoke name="g"></invoke></tool_calls>'
    )
    assert _events(text, max_capture_chars=40) == [{"type": "text", "text": text, "note": "capture_limit"}]


@pytest.mark.parametrize("opener", ["<tool_calls>", "<｜tool▁calls▁begin｜>"])
def test_past_the_limit_the_line_state_is_kept_across_releases(opener: str) -> None:
    # Released feed by feed (a newline, a space, a space), the block then fails at a fence run:
    # the line it leaves is a line start with two spaces of indent, so the run opens a fence and
    # its lines go out as they come (an inline span would hold `` cd to the paragraph's end).
    chunks = [opener + "\n", " ", " ", "```\nab `` cd", "\n\nx"]
    assert _fed_with(chunks, max_capture_chars=5) == [[c] for c in chunks] + [[""]]


SEP_OPEN = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>"  # 52 characters
SEP_CLOSE = "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"


def test_a_section_body_chunk_past_the_limit_is_released_in_its_feed() -> None:
    chunks = [SEP_OPEN, '{"a": "xxxx', "yyyy", 'zzzz"}' + SEP_CLOSE]
    assert _fed_with(chunks, max_capture_chars=60) == [
        [""],
        [SEP_OPEN + chunks[1]],
        *[[c] for c in chunks[2:]],
        [""],
    ]


def test_a_section_past_the_limit_decodes_no_call() -> None:
    # Past the limit the section is text: its calls are not decoded (only the chunk is counted).
    text = SEP_OPEN + '{"a": "xxxxyyyyzzzz"}' + SEP_CLOSE
    assert _events(text, max_capture_chars=60) == [{"type": "text", "text": text, "note": "capture_limit"}]
    assert scanner_work([text], max_capture_chars=60) == len(text)


def test_a_marker_cut_by_a_chunk_after_an_angle_in_a_body() -> None:
    # The body ends `{}<`; the next chunk starts a marker the one after completes. The first `<`
    # is body as soon as the second follows it: each feed counts its chunk and what the last one
    # held (55, then 1 + 8, then 8 + 9, then 21), and nothing more. The call (`{}<` is no JSON)
    # is malformed and the section still a block (D55): it comes out whole at its end.
    chunks = [SEP_OPEN + "{}<", "<｜tool▁c", "all▁end｜>", "<｜tool▁calls▁end｜>"]
    whole = SEP_OPEN + "{}<<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    assert _fed(chunks) == [[""], [""], [""], [whole], [""]]
    assert scanner_work(chunks) == 102


def test_a_section_is_measured_from_its_own_start() -> None:
    section = "<｜tool▁calls▁begin｜>" + CALL.format("a") + "<｜tool▁calls▁end｜>"
    out = _events("p" * 100 + " " + section, max_capture_chars=len(section))
    assert [e["type"] for e in out] == ["text", "tool_calls"]


def test_a_section_past_the_limit_at_its_end_marker_is_one_released_text() -> None:
    # The section reaches the limit exactly where its end marker starts: it is over only with
    # the marker, and all of it goes out as one text with the note.
    end = "<｜tool▁calls▁end｜>"
    section = "<｜tool▁calls▁begin｜>" + CALL.format("a") + end
    s = Sieve(max_capture_chars=len(section) - len(end))
    assert [e.to_dict() for e in s.feed("x " + section + " y")] == [
        {"type": "text", "text": "x "},
        {"type": "text", "text": section, "note": "capture_limit"},
        {"type": "text", "text": " y"},
    ]


def test_between_calls_a_character_other_than_an_angle_decides_at_once() -> None:
    assert _fed(["a <｜tool▁calls▁begin｜> ", "b", "c"]) == [
        ["a "],
        ["<｜tool▁calls▁begin｜> b"],
        ["c"],
        [""],
    ]


@pytest.mark.parametrize(
    "text",
    [
        "x <｜tool▁calls▁begin｜><",
        "x <｜tool▁calls▁begin｜><｜tool▁c",
        "x <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<",
        "x <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁s",
    ],
)
def test_a_section_cut_inside_a_marker_is_text_at_the_end(text: str) -> None:
    assert _events(text) == [{"type": "text", "text": text}]


@pytest.mark.parametrize(
    ("text", "kept"), [("a <<｜end▁of▁sentence｜> b", "a < b"), ("a ＜<｜end▁of▁sentence｜> b", "a ＜ b")]
)
def test_an_end_of_sentence_token_after_open_angles_is_dropped(text: str, kept: str) -> None:
    # R14.6: the angles before it start no tag, and the last `<` starts the token.
    s = Sieve()
    assert "".join(e.to_dict().get("text", "") for e in coalesce(s.feed(text) + s.flush())) == kept


def test_open_angles_at_the_end_of_input_are_text() -> None:
    assert _events("x <<") == [{"type": "text", "text": "x <<"}]


# ---- RUN and the rescan index of a literal inline span (D1) ------------------------------------

BLOCK = '<tool_calls><invoke name="f"></invoke></tool_calls>'


def test_a_short_tilde_run_leaves_the_line_mid_line() -> None:
    # `~~` opens nothing; the `~~~` after it on the same line is no fence, so the block is a call.
    assert [e["type"] for e in _events("~~ ~~~\n" + BLOCK + "\n")] == ["text", "tool_calls", "text"]


def test_the_rescan_of_a_literal_span_jumps_over_the_spans_it_indexed() -> None:
    # The opener `a is literal (the paragraph ends with no closing single backtick); the
    # rescan finds `` ... `` a code span (text), and what follows it is scanned again.
    assert [e["type"] for e in _events("p `a `` " + BLOCK + " `` b\n\nx")] == ["text"]
    assert _events("p `a `` y `` " + BLOCK + "\n\nx") == [
        {"type": "text", "text": "p `a `` y `` "},
        {"type": "tool_calls", "calls": [{"name": "f", "input": {}}], "format": "dsml"},
        {"type": "text", "text": "\n\nx"},
    ]
    assert _events("p `a ``x`` b\n\nc") == [{"type": "text", "text": "p `a ``x`` b\n\nc"}]


def test_a_run_cut_by_a_chunk_and_held_past_the_limit_is_not_in_the_index() -> None:
    # The second `` is read to the end of the chunk when the span's hold passes the limit; the
    # span is literal, and in the rescan the run is ``` with the next chunk's backtick, a length
    # the index (of the runs the hold saw complete) does not have.
    assert _fed_with(["`a ``xxxxxxxx``", "`b"], max_capture_chars=10) == [["`a ``xxxxxxxx``"], ["`b"], [""]]


# ---- PENDING (an open inline span, D1): what it decides, it decides in the chunk it came in ----

SECTION_ONE = (
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
)
PENDING_DECIDES = [
    (["`a ``xxxxxxxx yy", "z"], {"max_capture_chars": 5}),  # held past the limit: literal
    (["`a <tool_calls>\n\nb", "c"], {}),  # a blank line
    (["`a\n<pre>\nx", "y"], {}),  # a `<pre>` line
    (["`a\n" + SECTION_ONE + " b", "c"], {}),  # a token section at a line start
    (["`a\n" + BLOCK + " b", "c"], {}),  # a wrapper at a line start
    (["`a <｜end▁of▁sentence｜> b` c", "d"], {}),  # a marker held, then the closing run
]


@pytest.mark.parametrize(("chunks", "opts"), PENDING_DECIDES)
def test_pending_goes_on_in_the_chunk_after_it_decides(chunks: list[str], opts: dict[str, Any]) -> None:
    assert _fed_with(chunks, **opts) == [[c] for c in chunks] + [[""]]


def test_a_span_hold_is_measured_from_its_own_start() -> None:
    # The span holds from the wrapper: 52 characters, within the limit, and it closes: text.
    text = "p" * 100 + " `a " + BLOCK + "` z"
    assert [e["type"] for e in _events(text, max_capture_chars=60)] == ["text"]
    # ... and at the limit exactly (the wrapper to the closing run, which the hold takes in): text.
    assert [e["type"] for e in _events("`a " + BLOCK + "` z", max_capture_chars=len(BLOCK) + 1)] == ["text"]
    assert [e["type"] for e in _events("`a " + BLOCK + "` z", max_capture_chars=len(BLOCK))] == [
        "text",
        "tool_calls",
        "text",
    ]


@pytest.mark.parametrize(
    "chunks",
    [
        ["`a\n\t" + BLOCK + " b", "c"],  # a tab is indent: the wrapper starts the line
        ["`a {b", "c"],  # without JSON calls a brace is text
    ],
)
def test_pending_decides_these_in_their_chunk(chunks: list[str]) -> None:
    assert _fed_with(chunks) == [[c] for c in chunks] + [[""]]


def test_an_indent_of_four_is_no_fence_line_in_a_span() -> None:
    assert [e["type"] for e in _events("`a\n    ```\n" + BLOCK + "\n")] == ["text", "tool_calls", "text"]


def test_an_indent_of_three_before_pre_ends_the_paragraph() -> None:
    text = "`a\n   <pre>\n" + BLOCK + "\n</pre>"
    assert _events(text) == [{"type": "text", "text": text}]


@pytest.mark.parametrize(
    "text",
    ["`a\n``", "`a\n<pr", "`a\n<｜tool▁calls▁be", "`a\n<tool_ca", "`a <｜end▁of", "`a <!-", "`a <tool_ca"],
)
def test_a_span_cut_by_the_end_of_input_is_text(text: str) -> None:
    assert _events(text) == [{"type": "text", "text": text}]


@pytest.mark.parametrize("end", ["\n\nc", "\n```\nc", "\n<pre>\nc", "\n" + SECTION_ONE, "\n" + BLOCK])
def test_a_literal_span_indexes_its_runs_to_the_paragraph_end(end: str) -> None:
    out = _events("`a ``b" + end)
    assert out[0]["type"] == "text" and out[0]["text"].startswith("`a ``b\n")


PENDING_HOLDS = [
    # a comment at a line start: held (it hides what follows if the span is literal)
    (["`a\n<!-- x -->", " b"], {}, [["`a\n"], [""], ["<!-- x --> b"]]),
    # an end-of-sentence token at a line start: held (and dropped when the span is literal)
    (["`a\n<｜end▁of▁sentence｜> b", "c"], {}, [["`a\n"], [""], [" bc"]]),
    (["`a b", "c"], JSON, [["`a b"], ["c"], [""]]),  # with JSON calls only a brace is held
    (["`a <pre> x", " y\n\nz"], {}, [["`a <pre> x"], [" y\n\nz"], [""]]),  # `<pre>` in a line: a mention
]


@pytest.mark.parametrize(("chunks", "opts", "released"), PENDING_HOLDS)
def test_pending_holds_from_here(chunks: list[str], opts: dict[str, Any], released: list[list[str]]) -> None:
    assert _fed_with(chunks, **opts) == released


@pytest.mark.parametrize(
    ("tag", "held"),
    [
        ('<invoke name="f">', True),  # a named invoke may start a block missing its wrapper (R3)
        ('<parameter name="p">', False),
        ("</invoke>", False),
        ("<invoke>", False),
        ('<invoke name="f"/>', False),
    ],
)
def test_pending_holds_from_a_named_invoke_only(tag: str, held: bool) -> None:
    first = "`a " if held else "`a " + tag + " b"
    assert _fed_with(["`a " + tag + " b", "c"])[0] == [first]


def test_after_a_closing_run_the_line_goes_on() -> None:
    assert [e["type"] for e in _events("`a` ~~~\n" + BLOCK + "\n")] == ["text", "tool_calls", "text"]


# ---- a block that fails: the capture limit, and the line state TEXT resumes with -----------------


def test_a_failed_block_or_section_is_measured_from_its_own_start() -> None:
    for opener in ("<tool_calls>", "<｜tool▁calls▁begin｜>"):
        text = "p" * 100 + opener + " x"
        assert _events(text, max_capture_chars=60) == [{"type": "text", "text": text}]


def test_a_block_that_fails_at_the_limit_exactly_is_within_it() -> None:
    assert _events("<tool_calls>x", max_capture_chars=12) == [{"type": "text", "text": "<tool_calls>x"}]
    assert _events("<tool_calls>x", max_capture_chars=11) == [
        {"type": "text", "text": "<tool_calls>x", "note": "capture_limit"}
    ]


@pytest.mark.parametrize(
    ("blanks", "fence"),
    [("\n", True), ("\n\n  ", True), ("\n   ", True), ("\n    ", False), ("\n\t", False), ("\n \t", False)],
)
def test_after_a_failed_block_a_fence_run_opens_a_fence_at_a_line_start(blanks: str, fence: bool) -> None:
    # The block fails at the run; the blanks before it decide whether it starts a line (D2).
    text = "<tool_calls>" + blanks + "```\n" + BLOCK + "\n```\n"
    kinds = ["text"] if fence else ["text", "tool_calls", "text"]
    assert [e["type"] for e in _events(text)] == kinds


def test_past_the_limit_a_newline_released_last_is_the_line_start() -> None:
    chunks = ["<tool_calls>\n", " ", " ", " ", "```\nab `` cd", "\n\nx"]
    assert _fed_with(chunks, max_capture_chars=5) == [[c] for c in chunks] + [[""]]


def test_at_an_indent_of_four_a_fence_run_and_pre_are_inside_the_span() -> None:
    # The run is held (it may be the span's business) and the span goes on past `<pre>`, to its
    # closing backtick: the block after it is a call in the same chunk.
    assert _fed(["`a\n    ```", "\nb"]) == [["`a\n    "], [""], ["```\nb"]]
    assert _fed(["`a\n    <pre> ` " + BLOCK, " z"]) == [["`a\n    <pre> ` " + BLOCK], [" z"], [""]]


def test_a_json_call_in_a_literal_span_is_a_call() -> None:
    out = _events('`a {"name": "f", "input": {}}\n\nb', **JSON)
    assert [e["type"] for e in out] == ["text", "tool_calls", "text"]


@pytest.mark.parametrize("sizes", [[5000], [4096], [100] * 70, [1] * 300 + [4100, 3]])
def test_a_long_block_fed_in_pieces_keeps_its_source(sizes: list[int]) -> None:
    # The block's source is kept in chunk-sized pieces (_Text): big ones alone, small ones joined.
    head = '<tool_calls><invoke name="f"><parameter name="p">'
    body = "".join(chr(ord("a") + i % 26) * n for i, n in enumerate(sizes))
    chunks = [head, *[body[sum(sizes[:i]) : sum(sizes[: i + 1])] for i in range(len(sizes))]]
    chunks.append("</parameter></invoke></tool_calls>")
    s = Sieve()
    events = [e for c in chunks for e in s.feed(c)] + s.flush()
    assert [(e.to_dict()["type"], e.source) for e in events] == [("tool_calls", "".join(chunks))]


def test_a_run_where_a_span_went_literal_at_the_limit_opens_a_span() -> None:
    # The hold from `` passes the limit just as the next `` starts: the span is literal there,
    # and that run is past what was indexed, so it opens a span of its own, which closes: text.
    text = "`a ``" + "y" * 62 + "``" + BLOCK + "`` z"
    assert _events(text, max_capture_chars=60) == [{"type": "text", "text": text}]


# ---- inside a block: the feed's fast path, end-of-sentence tokens, invokes and parameter bodies ----

P_OPEN = '<tool_calls><invoke name="f"><parameter name="p">'
P_CLOSE = "</parameter></invoke></tool_calls>"


def test_in_a_cdata_the_feed_does_not_wait_at_a_tag_start() -> None:
    # (_cap_waits is for tags between tags and in a body: in a CDATA the steps take everything.)
    chunks = [P_OPEN + "<![CDATA[a", "<|DSML|param", "eter", "]]>" + P_CLOSE]
    # Each feed counts its chunk only (nothing held back), and the value is decoded once.
    assert scanner_work(chunks) == sum(map(len, chunks)) + len("a<|DSML|parameter")


def test_a_tag_decided_no_in_a_block_fails_it_in_its_feed() -> None:
    for cut in ("<a\n", "<" + "a" * 80):
        assert _fed(["<tool_calls>", cut, "c"]) == [[""], ["<tool_calls>" + cut], ["c"], [""]]


@pytest.mark.parametrize(
    "text",
    [
        P_OPEN + "a<｜end▁of▁sentence｜>b" + P_CLOSE,  # in a value it ends the block (D27)
        '<tool_calls><invoke name="f">{"a": 1}<｜end▁of▁sentence｜></invoke></tool_calls>',  # a JSON body
    ],
)
def test_an_end_of_sentence_token_inside_a_block_makes_it_text(text: str) -> None:
    s = Sieve()
    out = [e.to_dict() for e in coalesce(s.feed(text) + s.flush())]
    assert out == [{"type": "text", "text": text.replace("<｜end▁of▁sentence｜>", "")}]


def test_a_section_opener_in_a_value_is_part_of_it() -> None:
    text = P_OPEN + "a<｜tool▁calls▁begin｜>b" + P_CLOSE
    assert _events(text) == [
        {
            "type": "tool_calls",
            "calls": [{"name": "f", "input": {"p": "a<｜tool▁calls▁begin｜>b"}}],
            "format": "dsml",
        }
    ]


@pytest.mark.parametrize(
    "text",
    [
        "<tool_calls><｜end▁of",
        '<tool_calls><invoke name="f"><｜end▁of',
        '<tool_calls><invoke name="f"><parame',
        P_OPEN + "a<｜end▁of",
        P_OPEN + "a</para",
        P_OPEN + "a <b",
        P_OPEN + "a <![CD",
    ],
)
def test_a_block_cut_by_the_end_of_input_is_text(text: str) -> None:
    assert _events(text) == [{"type": "text", "text": text}]


@pytest.mark.parametrize(
    "text",
    [
        '<tool_calls><invoke name="f"><invoke name="g">x</parameter></invoke></tool_calls>',
        '<tool_calls><invoke name="f"><parameter>x</parameter></invoke></tool_calls>',
        '<tool_calls><invoke name="f">{"a": 1}<parameter name="p">x</parameter></invoke></tool_calls>',
        P_OPEN + 'a<invoke name="g">b' + P_CLOSE,
    ],
)
def test_what_no_block_holds_fails_it(text: str) -> None:
    assert [e["type"] for e in _events(text)] != ["tool_calls"]


def test_an_angle_in_a_json_body_is_part_of_it() -> None:
    text = '<tool_calls><invoke name="f">{"a": "<"}</invoke></tool_calls>'
    assert _events(text) == [
        {"type": "tool_calls", "calls": [{"name": "f", "input": {"a": "<"}}], "format": "dsml"}
    ]


def test_past_the_limit_an_invoke_with_a_json_body_still_closes() -> None:
    text = f'<tool_calls><invoke name="f">{{"a": "{X30}"}}</invoke><invoke name="g"></invoke></tool_calls>'
    assert _events(text, max_capture_chars=40) == [{"type": "text", "text": text, "note": "capture_limit"}]


def test_a_closed_parameter_counts_its_body_once() -> None:
    text = P_OPEN + "hello" + P_CLOSE
    assert scanner_work([text]) == len(text) + len("hello")


def test_a_streamed_value_goes_out_when_its_parameter_closes() -> None:
    out = _events(P_OPEN + "hello" + P_CLOSE, stream_arguments=True)
    deltas = "".join(e.get("delta", "") for e in out if e["type"] == "tool_call_arguments")
    assert deltas == '{"p":"hello"}'
    out = _events(P_OPEN + "a<![CDATA[b]]>" + P_CLOSE, stream_arguments=True)
    assert (
        out[-1] == {"type": "tool_calls", "calls": [{"name": "f", "input": {"p": "a<![CDATA[b]]>"}}]} or out
    )


# ---- CDATA in a value: fences inside it, its closer and what follows (R5.3, D7) -----------------
# Found by a mutant-hunting run over generated CDATA values; each case pins, for the input fed
# whole, one character at a time and in chunks of 1 to 6 characters, the coalesced event types,
# Sieve.work, and a digest of every feed's events (what is decided, and when). A change here means
# that some feed's events changed: re-derive with _feeds_digest after checking the change is meant.


def _chunkings(text: str) -> list[list[str]]:
    cyc, i, k = [], 0, 0
    while i < len(text):
        cyc.append(text[i : i + 1 + k % 6])
        i, k = i + 1 + k % 6, k + 1
    return [[text], list(text), cyc]


def _feeds_digest(text: str, opts: dict[str, Any]) -> tuple[list[str], list[int], str]:
    works, feeds_all = [], []
    for chunks in _chunkings(text):
        s = Sieve(**opts)
        feeds = [[e.to_dict() for e in s.feed(c)] for c in chunks] + [[e.to_dict() for e in s.flush()]]
        works.append(s.work)
        feeds_all.append(feeds)
    blob = json.dumps(feeds_all, sort_keys=True, ensure_ascii=False, default=repr).encode()
    s = Sieve(**opts)
    types = [e.to_dict()["type"] for e in coalesce(s.feed(text) + s.flush())]
    return types, works, hashlib.sha256(blob).hexdigest()[:16]


CDATA_CASES = [
    (
        P_OPEN + "<![CDATA[]]>\n````\n```\n<```]]>x",
        {"max_capture_chars": 3},
        ["text"],
        [158, 519, 233],
        "51fa01df770ed9f1",
    ),
    (
        P_OPEN + "<![CDATA[\n```\n````]]>\n</tool_calls>\r\n]]> \n  ",
        {"json_tool_calls": True},
        ["text"],
        [186, 607, 259],
        "15b35ece8e20b159",
    ),
    (
        P_OPEN + "<![CDATA[\n\n```\n\n   ```]]>",
        {"max_capture_chars": 60},
        ["text"],
        [148, 521, 233],
        "afb3fd13825bc01d",
    ),
    (
        P_OPEN + "<![CDATA[```\n~~~~\n\n\n```\n]\r\n",
        {"json_tool_calls": True},
        ["text"],
        [170, 530, 249],
        "0319a53dd964eb48",
    ),
    (
        P_OPEN + "<![CDATA[\n```\n```` \t```",
        {"stream_arguments": True},
        ["tool_call_start", "tool_call_arguments", "tool_calls"],
        [158, 519, 241],
        "d5769c4fd14a7004",
    ),
    (
        P_OPEN + "<![CDATA[\n]]>",
        {"max_capture_chars": 59},
        ["text"],
        [124, 497, 216],
        "b9027103489550d1",
    ),
    (
        P_OPEN + "<![CDATA[x]]",
        {},
        ["text"],
        [125, 496, 218],
        "a904914368954594",
    ),
    (
        P_OPEN + "<![CDATA[]]",
        {"max_capture_chars": 20},
        ["text"],
        [120, 492, 214],
        "c40561c3e6aec0ab",
    ),
    (
        P_OPEN + "<![CDATA[x\r\n ]]> \n  \n```\n   ]]>",
        {"stream_arguments": True},
        ["tool_call_start", "tool_call_arguments", "tool_calls"],
        [220, 587, 298],
        "7cfdbf94a0f8b4a5",
    ),
    (
        P_OPEN + "<![CDATA[]]> \n   ~~~\n~~~~\n\n   \t",
        {},
        ["text"],
        [182, 547, 259],
        "60abdcc3e9e9d42c",
    ),
    (
        P_OPEN + "<![CDATA[\t]]>\n<",
        {},
        ["text"],
        [134, 504, 224],
        "50e68135a1868bae",
    ),
    (
        P_OPEN + "<![CDATA[]]> \n  ]]>",
        {"max_capture_chars": 6},
        ["text"],
        [136, 505, 223],
        "06e457ef46b9ae53",
    ),
    (
        P_OPEN + "<![CDATA[\n```\nx\n```\nXyz]]>" + P_CLOSE,
        {},
        ["tool_calls"],
        [232, 740, 345],
        "48c78f172d46bd1e",
    ),
    (
        P_OPEN + "<![CDATA[a<![CDATA[b<![CDATA[c]]>d]]></parameter>x]]>" + P_CLOSE,
        {},
        ["tool_calls"],
        [313, 870, 406],
        "1d8f2c933e354fb8",
    ),
    (
        P_OPEN + "<![CDATA[a]]>X" + P_CLOSE,
        {},
        ["tool_calls"],
        [238, 578, 297],
        "7042216ce070f319",
    ),
    (
        P_OPEN + "<![CDATA[a]]> X" + P_CLOSE,
        {},
        ["tool_calls"],
        [242, 581, 298],
        "4a42b913d729b2fb",
    ),
    (
        P_OPEN + "<![CDATA[a]]>\n\t```x]]>" + P_CLOSE,
        {},
        ["tool_calls"],
        [220, 732, 302],
        "3428e727fccfc170",
    ),
    (
        P_OPEN + "<![CDATA[a]]>  ```x]]>" + P_CLOSE,
        {},
        ["tool_calls"],
        [220, 732, 302],
        "8482d1c2fcf6c3cc",
    ),
    (
        P_OPEN + "<![CDATA[a]]>b<![CDATA[c]]>" + P_CLOSE,
        {"stream_arguments": True},
        ["tool_call_start", "tool_call_arguments", "tool_calls"],
        [325, 691, 379],
        "559c9598030e649f",
    ),
]


@pytest.mark.parametrize(("text", "opts", "types", "works", "digest"), CDATA_CASES)
def test_cdata_values_feed_by_feed(
    text: str, opts: dict[str, Any], types: list[str], works: list[int], digest: str
) -> None:
    assert _feeds_digest(text, opts) == (types, works, digest)


# ---- the rest of the full run (issue 17): ignored regions, the feed's fast paths, tokens ---------

# match_region at an open angle: (kind, end of the opener), MORE or NO. A comment's opener ends
# after `<!` (its closer may overlap it, `<!-->`); `<pre>` only at a line start (bol); a cut
# prefix waits unless the input has ended.
REGIONS = [
    (("<!-- x", 0, False, False), ("comment", 2)),
    (("a<!--", 1, True, False), ("comment", 3)),
    (("<!--<b", 4, False, False), NO),
    (("<!-->", 0, True, False), ("comment", 2)),
    (("<b", 0, False, False), NO),
    (("<!-", 0, False, False), MORE),
    (("<!", 0, True, False), NO),
    (("a<!-", 1, False, False), MORE),
    (("<![CDATA[x", 0, False, False), ("cdata", 9)),
    (("a<![CDATA[x", 1, True, False), ("cdata", 10)),
    (("<![CDA", 0, True, False), NO),
    (("<![CDA", 0, False, False), MORE),
    (("<pre>", 0, False, True), ("pre", 4)),
    (("a<pre>", 1, False, True), ("pre", 5)),
    (("<PRE\tx", 0, True, True), ("pre", 4)),
    (("<pre>", 0, False, False), NO),  # not at a line start
    (("<b", 0, False, True), NO),
    (("<b", 0, True, True), NO),
    (("<abc", 0, False, True), NO),
    (("<abc", 0, True, True), NO),
    (("<pre", 0, True, True), ("pre", 4)),  # `<pre` that the input ends with
    (("x<pre", 1, True, True), ("pre", 5)),
    (("<pre", 0, True, False), NO),
    (("<prex", 0, True, True), NO),
    (("<pr", 0, False, True), MORE),
    (("a<pr", 1, False, True), MORE),
    (("<pr", 0, True, True), NO),
]


@pytest.mark.parametrize(("args", "want"), REGIONS)
def test_match_region_decides_exactly_this(args: tuple[str, int, bool, bool], want: object) -> None:
    assert scanner.match_region(*args) == want


def test_an_indent_then_prose_is_text_as_written() -> None:
    # (with reasoning off the first chunk reaches the scanner whole: its line-start steps run
    # before any prose skip of that feed)
    assert _events(" a", reasoning="off") == [{"type": "text", "text": " a"}]
    assert _events("   a <b> c", reasoning="off") == [{"type": "text", "text": "   a <b> c"}]


def test_after_prose_a_comment_in_the_same_chunk_is_released_with_it() -> None:
    # R8.3: only a cut prose tag head waits at the end of a chunk; a comment that closes in the
    # chunk is decided there.
    assert _fed(["a<!-- c --> b"]) == [["a<!-- c --> b"], [""]]
    assert _fed(["a<b", "> c"]) == [["a"], ["<b> c"], [""]]


def test_a_token_section_end_at_a_chunk_start_ends_it_in_that_feed() -> None:
    head = "<｜tool▁calls▁begin｜>" + CALL.format("a")
    s = Sieve()
    assert s.feed(head) == []
    out = [e.to_dict() for e in s.feed("<｜tool▁calls▁end｜>x")]
    assert out == [
        {"type": "tool_calls", "calls": [{"name": "read", "input": {"path": "a"}}], "format": "tokens"},
        {"type": "text", "text": "x"},
    ]


def test_in_a_fence_a_cut_tag_is_text_at_once() -> None:
    # A fence's lines are text whatever they hold (R5.1): nothing in one waits for more.
    assert _fed(["```\n", "<tool_ca", "x\n```\n"]) == [["```\n"], ["<tool_ca"], ["x\n```\n"], [""]]
    assert _fed(["```\n", "<|DSML|inv", "oke\n```\n"]) == [["```\n"], ["<|DSML|inv"], ["oke\n```\n"], [""]]


def test_a_dropped_end_of_sentence_token_does_not_start_a_line() -> None:
    # Mid-line (after `x `) a run of three backticks opens an inline span, not a fence (R5.1),
    # with or without the dropped token (R14.6) before it: the block after it is a call.
    for text in ("x ```\n" + BLOCK + "\n", "x <｜end▁of▁sentence｜>```\n" + BLOCK + "\n"):
        s = Sieve()
        kinds = [e.to_dict()["type"] for e in coalesce(s.feed(text) + s.flush())]
        assert kinds == ["text", "tool_calls", "text"]


def test_after_a_dropped_end_of_sentence_token_the_chunk_goes_on() -> None:
    assert _fed(["a<｜end▁of▁sentence｜>b", "c"]) == [["ab"], ["c"], [""]]


def test_after_a_token_section_in_the_chunk_the_chunk_goes_on() -> None:
    section = "<｜tool▁calls▁begin｜>" + CALL.format("a") + "<｜tool▁calls▁end｜>"
    s = Sieve()
    first = [e.to_dict() for e in s.feed("x" + section + "y")]
    assert first == [
        {"type": "text", "text": "x"},
        {"type": "tool_calls", "calls": [{"name": "read", "input": {"path": "a"}}], "format": "tokens"},
        {"type": "text", "text": "y"},
    ]


def _streamed(chunks: list[str]) -> tuple[str, list[dict[str, Any]]]:
    """The argument deltas joined, and the calls, of `chunks` fed with stream_arguments."""
    s = Sieve(stream_arguments=True)
    out = [e.to_dict() for c in chunks for e in s.feed(c)] + [e.to_dict() for e in s.flush()]
    deltas = "".join(e["delta"] for e in out if e["type"] == "tool_call_arguments")
    calls = [c for e in out if e["type"] == "tool_calls" for c in e["calls"]]
    return deltas, calls


def test_text_after_a_closed_cdata_streams_in_order() -> None:
    # R16: the deltas of a call join to its arguments; after a CDATA that closed (a closing tag
    # follows its `]]>`, here `</x>`, which is no tag of a block) the body goes on as text.
    chunks = [P_OPEN + "<![CDATA[a]]></x>b", "c", P_CLOSE]
    deltas, calls = _streamed(chunks)
    assert calls == [{"name": "f", "input": {"p": "a</x>bc"}}]
    assert json.loads(deltas) == {"p": "a</x>bc"}


@pytest.mark.parametrize(
    "text",
    [
        '<parameter name="f"></invoke></tool_calls>',  # only a named invoke may open a repaired block (R3)
        '<invoke name="f"/></invoke></tool_calls>',
        "</invoke></invoke></tool_calls>",
    ],
)
def test_no_repaired_block_opens_at_anything_but_a_named_invoke(text: str) -> None:
    assert _events(text) == [{"type": "text", "text": text}]


@pytest.mark.parametrize("mention", ["</invoke>", "<!-- c -->", "<![CDATA[c]]>", "<b>", "</invoke> y"])
def test_after_a_tag_or_region_in_prose_the_line_goes_on(mention: str) -> None:
    # Mid-line, after a tag or region that is text, a run of three backticks opens an inline
    # span (R5.1): the block after it is a call.
    kinds = [e["type"] for e in _events("x " + mention + "```\n" + BLOCK + "\n")]
    assert kinds == ["text", "tool_calls", "text"]


@pytest.mark.parametrize(
    "mention", ["</invoke>", "<invoke>", "<!-- c -->", "<![CDATA[c]]>", "<tool_ca x>", "<<b>", "＜b＞"]
)
def test_after_a_tag_or_region_in_prose_the_chunk_goes_on(mention: str) -> None:
    text = "a " + mention + " b " + mention + " c"
    assert _fed([text, "d"]) == [[text], ["d"], [""]]


@pytest.mark.parametrize("block", [BLOCK, '<invoke name="f"></invoke></tool_calls>'])
def test_a_block_in_the_chunk_is_decided_in_its_feed(block: str) -> None:
    assert _fed(["a " + block + " z", "y"]) == [["a " + block + " z"], ["y"], [""]]


def test_in_a_capture_a_tag_no_format_in_use_names_is_decided_in_its_feed() -> None:
    # With function_calls alone `tool_calls` is no keyword (R14.9): the tag fails the block as
    # soon as its head has ended, and what was captured is text in that feed (R8.3).
    chunks = ["<｜DSML｜function_calls>", '<tool_calls a="x', '">y']
    assert _fed_with(chunks, formats=["function_calls"]) == [[""], [chunks[0] + chunks[1]], [chunks[2]], [""]]


def test_a_literal_entity_before_a_cdata_streams_in_order() -> None:
    # `&amp` with no `;` is text as written; the CDATA opener after it ends it (R6, R16).
    deltas, calls = _streamed([P_OPEN + "a &amp<![CDATA[b]]>" + P_CLOSE])
    assert calls == [{"name": "f", "input": {"p": "a &ampb"}}]
    assert json.loads(deltas) == {"p": "a &ampb"}


def test_a_streamed_parameter_counts_the_taps_look_when_it_closes() -> None:
    # The chunk, the tap's look at the body (10) and the body decoded at the close (5).
    text = P_OPEN + "hello" + P_CLOSE
    assert scanner_work([text], stream_arguments=True) == len(text) + 10 + 5
    assert scanner_work([P_OPEN, "hello", P_CLOSE], stream_arguments=True) == len(text) + 10 + 5


@pytest.mark.parametrize("rest", ["x<!", "x<![CD", "a<!x<!y b", "a<!x <!y</parameter>", "\n```\n<!x<!y"])
def test_a_cdata_the_input_ends_in_is_text_with_its_angles(rest: str) -> None:
    # An opener cut by the end of input, or `<!` that opens nothing, is content: the block the
    # input ends in is text (R8.5; no repair applies), nothing lost (R8.2).
    text = P_OPEN + "<![CDATA[" + rest
    for size in (len(text), 1, 3):
        assert _events(text, size) == [{"type": "text", "text": text}]


@pytest.mark.parametrize(
    ("text", "opts"),
    [("a <b", {}), ("a <", {}), ("a <tool_ca", {}), ("a\n<pr", {}), ('a {"na', JSON), ("a {", JSON)],
)
def test_prose_cut_by_the_end_of_input_is_text(text: str, opts: dict[str, Any]) -> None:
    for size in (len(text), 1):
        assert _events(text, size, **opts) == [{"type": "text", "text": text}]


@pytest.mark.parametrize("text", ["a\n  Xb", "a\n Xb\n  Yc", "a\n   `b`"])
def test_an_indented_line_is_text_as_written(text: str) -> None:
    assert _events(text) == [{"type": "text", "text": text}]


@pytest.mark.parametrize("opener", ["<tool_calls>", "<｜tool▁calls▁begin｜>"])
def test_a_block_at_the_limit_at_a_chunk_end_is_within_it(opener: str) -> None:
    # At the end of a chunk a block of exactly max_capture characters is not past the limit. (A `<`
    # that starts nothing ends both; a letter would begin a call head after a section opener, D61.)
    text = opener + "<x"
    assert _events(text, len(opener), max_capture_chars=len(opener)) == [{"type": "text", "text": text}]


def test_the_limit_at_a_chunk_end_is_the_open_sections_own() -> None:
    # A long prose and a block before do not count towards a token section's limit (D43).
    section = "<｜tool▁calls▁begin｜>" + CALL.format("a") + "<｜tool▁calls▁end｜>"
    chunks = ["<tool_calls>x " + "p" * 300 + section[:30], section[30:]]
    s = Sieve(max_capture_chars=200)
    out = [e.to_dict() for e in coalesce([e for c in chunks for e in s.feed(c)] + s.flush())]
    assert [e["type"] for e in out] == ["text", "tool_calls"]
    assert "note" not in out[0]


def test_the_tag_a_block_fails_at_is_read_again_as_in_prose() -> None:
    # A block fails at a structure no block has (D5) and TEXT resumes at that tag: a named
    # invoke there may open a block missing its wrapper (R3); a self-closing one may not.
    text = '<tool_calls><invoke name="f"><invoke name="g"></invoke></tool_calls>'
    assert _events(text) == [
        {"type": "text", "text": '<tool_calls><invoke name="f">'},
        {"type": "tool_calls", "calls": [{"name": "g", "input": {}}], "format": "dsml"},
    ]
    text = '<tool_calls><invoke name="f"/></invoke></tool_calls>'
    assert _events(text) == [{"type": "text", "text": text}]
    for size in (1, 5):
        assert _events(text, size) == [{"type": "text", "text": text}]


def test_in_a_rescan_a_span_at_a_line_start_closes_at_its_own_run() -> None:
    # `` and ``` never close in the paragraph (literal, D1); on the next line `x` is a span of
    # its own, so the block after it is outside every span: a call.
    text = "``a ```b\n`x` " + BLOCK + " `y`\n\nz"
    assert [e["type"] for e in _events(text)] == ["text", "tool_calls", "text"]


def test_a_block_that_passes_the_limit_before_a_cut_tag_is_released_in_that_feed() -> None:
    # The steps stop at a tag the chunk cuts (`</para`); what they took before it passed the
    # limit, so it goes out now (R8.3, D43), not with the next chunk.
    chunks = [P_OPEN + "a" * 50 + "</para", "meter>" + P_CLOSE[len("</parameter>") :]]
    out = _fed_with(chunks, max_capture_chars=60)
    assert out[0] == [P_OPEN + "a" * 50]
    assert out[1:] == [["</parameter></invoke></tool_calls>"], [""]]


def test_a_section_that_passes_the_limit_before_a_cut_marker_is_released_in_that_feed() -> None:
    body = '{"a": "' + "x" * 40 + '"}'
    chunks = [SEP_OPEN + body + "<｜tool▁call▁e", "nd｜><｜tool▁calls▁end｜>"]
    out = _fed_with(chunks, max_capture_chars=60)
    assert out[0] == [SEP_OPEN + body]
    assert out[1:] == [["<｜tool▁call▁end｜><｜tool▁calls▁end｜>"], [""]]


def test_a_json_candidate_cut_at_a_backslash_is_measured_from_its_own_start() -> None:
    # The chunk ends at a backslash in a string: the steps stop there. The candidate is within
    # the limit (the prose before it does not count): the call completes with the next chunk.
    chunks = ["p" * 100 + ' {"name": "f", "input": {"a": "x\\', 'n"}}']
    out = _events_chunks(chunks, max_capture_chars=60, **JSON)
    assert [e["type"] for e in out] == ["text", "tool_calls"]
    # Past the limit at that backslash: text, released in that feed.
    first = '{"name": "f", "input": {"a": "' + "x" * 40 + "\\"
    assert _fed_with([first, 'n"}}'], max_capture_chars=40, **JSON)[0] == [first]


def _events_chunks(chunks: list[str], **opts: Any) -> list[dict[str, Any]]:
    s = Sieve(**opts)
    events = [e for c in chunks for e in s.feed(c)] + s.flush()
    assert "".join(e.source for e in events) == "".join(chunks)
    return [e.to_dict() for e in coalesce(events)]


def test_in_a_cdata_a_run_after_a_closing_run_on_its_line_closes_no_fence() -> None:
    # "``` ```" is no closing fence line (only blanks may follow the run, D2): the fence in the
    # CDATA stays open, its `]]>` is part of the example (R5.3) and the CDATA, still open, holds
    # the block to the end of input (where the repair reads it, R5.6).
    text = P_OPEN + "<![CDATA[\n```\nx\n``` ```\n]]>y]]>" + P_CLOSE
    assert _fed([text]) == [[""], [text]]


def test_in_a_cdata_a_run_after_a_short_run_on_its_line_opens_no_fence() -> None:
    # "`` ```": the second run is mid-line, so no fence opens (D2) and the `]]>` closes the
    # CDATA: the block is a call, decided in its feed.
    text = P_OPEN + "<![CDATA[\n`` ```\n]]>" + P_CLOSE
    assert _fed([text]) == [[text], [""]]


def test_three_spaces_then_a_run_at_the_start_of_input_open_a_fence() -> None:
    text = "   ```\n" + BLOCK + "\n```\n"
    assert _events(text, reasoning="off") == [{"type": "text", "text": text}]


# ---- the scanner's first state (issue 17, the __init__ mutants) ------------------------------------


def _scanned(sc: scanner.Scanner, text: str) -> list[str]:
    return [type(e).__name__ for e in sc.feed(text) + sc.finish()]


def test_a_scanner_made_without_options_reads_no_json_call() -> None:
    # R9: JSON tool calls in prose are an option, off unless asked for.
    call = '{"name": "f", "input": {}}'
    assert _scanned(scanner.Scanner(), call) == ["TextEvent"]
    assert _scanned(scanner.Scanner(json_calls=True), call) == ["ToolCallsEvent"]


def test_a_scanner_made_without_options_announces_no_call() -> None:
    # R16: calls are announced and their values streamed only with stream_arguments.
    text = P_OPEN + "x" + P_CLOSE
    assert _scanned(scanner.Scanner(), text) == ["ToolCallsEvent"]
    streamed = _scanned(scanner.Scanner(stream_arguments=True), text)
    assert streamed == ["CallBegun", "ValueChars", "ParamDone", "CallDone", "ToolCallsEvent"]


def test_a_scanner_finished_unfed_gives_no_event() -> None:
    assert scanner.Scanner().finish() == []
    assert Sieve().flush() == []


def test_no_tool_call_syntax_seen_is_false_not_only_falsy() -> None:
    s = Sieve()
    s.feed("hello <b>world</b>")
    assert s.saw_tool_call_syntax is False
    s.flush()
    assert s.saw_tool_call_syntax is False


def test_a_pre_tag_one_character_into_the_input_hides_nothing() -> None:
    # D41: `<pre>` is an ignored region only where it starts a line; after `a` at the start of
    # the input it is a mention, so the block after it is a call.
    assert [e["type"] for e in _events("a<pre>" + BLOCK)] == ["text", "tool_calls"]
    assert [e["type"] for e in _events("<pre>" + BLOCK)] == ["text"]


# ---- the steps changed since the second run: _skip in a block, a JSON candidate at the limit ------

EOS = "<｜end▁of▁sentence｜>"


@pytest.mark.parametrize(
    "text",
    [
        P_OPEN + "a<" + EOS + "b" + P_CLOSE,  # a stray angle before the token in a value
        P_OPEN + "a<<<" + EOS + "b" + P_CLOSE,
        P_OPEN + "a＜" + EOS + "b" + P_CLOSE,  # a fullwidth one
        '<tool_calls><invoke name="f">{"a": "<' + EOS + '"}</invoke></tool_calls>',  # a JSON body
    ],
)
def test_an_end_of_sentence_token_after_stray_angles_in_a_block_ends_it(text: str) -> None:
    # R14.6 / D27: the output ended inside the block, so it is text (less the token); the angles
    # before the token start no tag, and skipping them must not skip the token's own `<`.
    s = Sieve()
    events = [e.to_dict() for e in coalesce(s.feed(text) + s.flush())]
    assert events == [{"type": "text", "text": text.replace(EOS, "")}]


def test_stray_angles_at_the_end_of_an_unclosed_value_are_text() -> None:
    text = P_OPEN + "a<<"
    assert _events(text) == [{"type": "text", "text": text}]


def test_a_json_candidate_past_the_limit_inside_a_string_resumes_text_at_the_limit() -> None:
    # D43: the candidate reaches the limit inside a string: it is text, decided there, and TEXT
    # reads on from there (the block after it is a call), in every chunking.
    head = '{"name": "f", "input": {"a": "' + "x" * 30
    text = head + BLOCK + '"}}'
    opts = {"json_tool_calls": True, "max_capture_chars": 55}
    whole = _events(text, **opts)
    assert [e["type"] for e in whole] == ["text", "tool_calls", "text"]
    assert whole[0]["text"] == head
    assert _events(text, size=1, **opts) == whole
    assert _events(text, size=7, **opts) == whole


def test_a_json_candidate_reads_an_escape_whole_when_the_chunk_holds_it() -> None:
    # A backslash and the character after it, both in the chunk, are taken in one step: the
    # next feed sees only its own chunk (a wait at the backslash would expose `\n` twice).
    first = '{"name": "f", "input": {"a": "\\n'
    assert scanner_work([first, '"}}'], **JSON) == 2 * len(first + '"}}')


def test_in_a_literal_inline_span_a_comment_after_a_stray_angle_still_hides_a_block() -> None:
    # D1 / D41: the span never closes, so its opener is literal and its content is read again as
    # prose; the comment there (after a stray `<`) is an ignored region, so the block inside it
    # is text, as it is outside any span.
    text = "`a <<!-- " + BLOCK + " -->\n\nb"
    assert _events(text) == [{"type": "text", "text": text}]
    assert _events("a <<!-- " + BLOCK + " -->") == [{"type": "text", "text": "a <<!-- " + BLOCK + " -->"}]
