"""Tests that tell harmony.py (gpt-oss Harmony messages, R17.6) apart from its mutants that survived
the mutation run: the channel word of a header (the first `<|channel|>`, blanks before it), the
recipient (`to=` starting a word, at the header's start or after a marker, the first one), the
header's bound (its first newline, 256 characters, the feed that releases it), the tail of a body
held back for an end token, a call body exactly at the capture limit, streamed calls (R16.3: a body
cut where it ends or before, its raw, the end token, D37; a body that is no object; a blank body)
and the scanner's work. Each run is fed whole, one character at a time and in every split in two.
Node's twin: parity/node/test/mutation/mutation-kills-harmony.test.js."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import sieve_support
from sieve_support import event_types_hold, run

from callsieve import Sieve, coalesce
from callsieve.events import ToolCallsEvent

GPT_OSS: dict[str, Any] = {"preset": "gpt-oss"}
STREAM: dict[str, Any] = {"preset": "gpt-oss", "stream_arguments": True}


@contextmanager
def deadline(seconds: float = 5.0) -> Iterator[None]:
    """A run that does not end in time fails (a scan that stops advancing would hang the suite)."""

    def stop(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError("the run did not end: a loop that does not advance")

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def events(chunks: list[str], **opts: Any) -> list[dict[str, Any]]:
    """The coalesced events of a run, as dicts, a call's raw put in (no loss is part of the check)."""
    with deadline():
        got = coalesce(run(chunks, **opts))
    out = []
    for e in got:
        d = e.to_dict()
        if isinstance(e, ToolCallsEvent):
            assert event_types_hold(e)
            d["raw"] = e.raw
            if e.repaired:
                d["repaired"] = list(e.repaired)
        out.append(d)
    return out


def released(chunks: list[str], **opts: Any) -> list[str]:
    """What each feed (then the flush) gives back, as source text, within the deadline."""
    with deadline():
        return sieve_support.released(chunks, **opts)


def scanner_work(chunks: list[str], **opts: Any) -> int:
    """The scanner's work for a run, within the deadline."""
    with deadline():
        return sieve_support.scanner_work(chunks, **opts)


def saw(doc: str, **opts: Any) -> bool:
    with deadline():
        s = Sieve(**opts)
        s.feed(doc)
        s.flush()
    return s.saw_tool_call_syntax


def ways(doc: str) -> list[list[str]]:
    """The document whole, one character at a time, and split in two at every place."""
    return [[doc], list(doc)] + [[doc[:k], doc[k:]] for k in range(1, len(doc))]


def text(s: str) -> dict[str, Any]:
    return {"type": "text", "text": s}


def reasoning(s: str) -> dict[str, Any]:
    return {"type": "reasoning", "text": s}


def harmony(raw: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "tool_calls",
        "calls": [{"name": name, "input": args}],
        "format": "harmony",
        "raw": raw,
    }


def check(cases: list[tuple[str, list[dict[str, Any]]]], **opts: Any) -> None:
    for doc, want in cases:
        for chunks in ways(doc):
            assert events(chunks, **opts) == want, chunks[:2]


# ---- the channel ----------------------------------------------------------------------------


def test_the_channel_is_the_word_after_the_first_channel_marker_of_a_start_header() -> None:
    """R17.6: after `<|start|>`, the first `<|channel|>` names the channel, even right after it."""
    check(
        [
            (
                "<|start|>assistant<|channel|>analysis<|channel|>final<|message|>hmm<|end|>",
                [reasoning("hmm")],
            ),
            ("<|start|>assistant<|channel|>final<|channel|>analysis<|message|>ok<|end|>", [text("ok")]),
            ("<|start|><|channel|>analysis<|message|>think<|end|>ok", [reasoning("think"), text("ok")]),
        ],
        **GPT_OSS,
    )


def test_blanks_before_the_channel_word_are_skipped_one_or_many() -> None:
    """R17.6, D10: JavaScript's blanks (tab, ideographic space) before the channel word are skipped."""
    check(
        [
            ("<|channel|> analysis<|message|>a<|end|>", [reasoning("a")]),
            ("<|channel|>\t\u3000analysis<|message|>b<|end|>", [reasoning("b")]),
            ("<|start|>assistant<|channel|>   analysis<|message|>c", [reasoning("c")]),
        ],
        **GPT_OSS,
    )


def test_a_header_with_no_word_after_its_marker_or_its_to_is_content() -> None:
    """R17.6: an empty or blank channel, or a `to=` with nothing after it, is content, no call."""
    cases = [
        ("<|channel|><|message|>x<|end|>", [text("x")]),
        ("<|channel|>   <|message|>y<|end|>", [text("y")]),
        ("<|channel|>commentary to=<|message|>{}<|call|>", [text("{}")]),
        ("<|channel|>commentary to= \t<|message|>{}<|call|>", [text("{}")]),
    ]
    check(cases, **GPT_OSS)
    for doc, _ in cases:
        assert not saw(doc, **GPT_OSS)


# ---- the recipient --------------------------------------------------------------------------


def test_the_recipient_is_the_first_to_that_starts_a_word() -> None:
    """R17.6: `to=` inside a word is skipped; of several recipients the first one is called."""
    d1 = (
        '<|channel|>commentary xto=functions.z to=functions.get to=functions.other<|message|>{"a": 1}<|call|>'
    )
    d2 = "<|channel|>commentary to=functions.a to=functions.b<|message|>{}<|call|>"
    d3 = '<|channel|>commentary auto=functions.z <|constrain|>json<|message|>{"b": 2}<|call|>'
    check(
        [
            (d1, [harmony(d1, "get", {"a": 1})]),
            (d2, [harmony(d2, "a", {})]),
            (d3 + " ok", [text('{"b": 2} ok')]),
        ],
        **GPT_OSS,
    )
    assert saw(d1, **GPT_OSS)
    assert not saw(d3, **GPT_OSS)


def test_a_recipient_may_open_the_header_or_follow_a_marker() -> None:
    """R17.6: `to=` right after `<|channel|>` or `<|start|>` is the recipient, in either place."""
    d1 = '<|channel|>to=functions.f<|message|>{"x": 1}<|call|>'
    d2 = "<|start|>to=functions.f<|channel|>commentary<|message|>{}<|call|>"
    d3 = "<|start|>assistant<|channel|>to=functions.get<|message|>{}<|call|>"
    check(
        [(d1, [harmony(d1, "f", {"x": 1})]), (d2, [harmony(d2, "f", {})]), (d3, [harmony(d3, "get", {})])],
        **GPT_OSS,
    )


def test_to_after_a_letter_at_the_headers_second_character_is_no_recipient() -> None:
    """R17.6: `ato=functions.f` is a channel word, not a recipient: the body is content."""
    doc = "<|channel|>ato=functions.f<|message|>{}<|end|>"
    check([(doc, [text("{}")])], **GPT_OSS)
    assert not saw(doc, **GPT_OSS)


# ---- the capture limit ----------------------------------------------------------------------


def test_a_call_body_of_exactly_the_capture_limit_is_a_call() -> None:
    """D43: a held call body may be max_capture_chars long; one more and the message is text."""
    doc = '<|channel|>commentary to=functions.get<|message|>{"a":1}<|call|>'  # a body of 7
    check([(doc, [harmony(doc, "get", {"a": 1})])], preset="gpt-oss", max_capture_chars=7)
    over = [{**text(doc[: -len("<|call|>")]), "note": "capture_limit"}]
    check([(doc, over)], preset="gpt-oss", max_capture_chars=6)
    head = '<|channel|>commentary to=functions.get<|message|>{"a":'
    assert released([head, "1", "}<|call|>"], preset="gpt-oss", max_capture_chars=6) == [
        "",
        "",
        head + "1}",
        "",
    ]
    assert released([head, "1", "}<|call|>"], preset="gpt-oss", max_capture_chars=7) == ["", "", doc, ""]


# ---- a streamed call that stops being JSON (R16.3) ------------------------------------------


def test_a_streamed_call_cut_at_its_bodys_end_keeps_the_end_token_in_its_raw() -> None:
    """R16.3, D37: arguments cut where the body ends: the raw takes the end token, repaired D37."""
    doc = '<|channel|>commentary to=functions.get<|message|>{"a": <|call|>after'
    raw = doc[: -len("after")]
    want = [
        {"type": "tool_call_start", "index": 0, "name": "get"},
        {"type": "tool_call_arguments", "index": 0, "delta": "{}"},
        {**harmony(raw, "get", {}), "repaired": ["D37"]},
        text("after"),
    ]
    check([(doc, want)], **STREAM)
    assert released([doc[:50], doc[50:]], **STREAM) == ["", raw + "after", ""]


def test_a_streamed_call_cut_before_its_bodys_end_leaves_the_end_token_out() -> None:
    """R16.3, D37: text after the arguments ends the call there: the rest, not the token, is text."""
    doc = '<|channel|>commentary to=functions.get<|message|>{"a": 1} x<|call|>after'
    raw = '<|channel|>commentary to=functions.get<|message|>{"a": 1} '
    want = [
        {"type": "tool_call_start", "index": 0, "name": "get"},
        {"type": "tool_call_arguments", "index": 0, "delta": '{"a":1}'},
        {**harmony(raw, "get", {"a": 1}), "repaired": ["D37"]},
        text("xafter"),
    ]
    check([(doc, want)], **STREAM)


def test_a_streamed_call_cut_when_its_message_ends_leaves_the_end_token_out() -> None:
    """R16.3, D37: a number the end token cuts is not read: the call ends before it, the token dropped."""
    doc = '<|channel|>commentary to=functions.get<|message|>{"a": 1<|call|>after'
    raw = '<|channel|>commentary to=functions.get<|message|>{"a": '
    want = [
        {"type": "tool_call_start", "index": 0, "name": "get"},
        {"type": "tool_call_arguments", "index": 0, "delta": "{}"},
        {**harmony(raw, "get", {}), "repaired": ["D37"]},
        text("1after"),
    ]
    check([(doc, want)], **STREAM)
    assert released([doc[:55], doc[55:]], **STREAM) == ["", raw + "1after", ""]


def test_a_streamed_call_whole_at_its_end_is_not_repaired() -> None:
    """R16: arguments whole when the message ends: the raw takes the end token, nothing repaired."""
    doc = '<|channel|>commentary to=functions.get<|message|>{"a": 1}  <|call|>after'
    raw = doc[: -len("after")]
    want = [
        {"type": "tool_call_start", "index": 0, "name": "get"},
        {"type": "tool_call_arguments", "index": 0, "delta": '{"a":1}'},
        harmony(raw, "get", {"a": 1}),
        text("after"),
    ]
    check([(doc, want)], **STREAM)


def test_the_scanner_reads_each_character_once_and_a_call_body_once_more() -> None:
    """Linear work: a document fed whole costs its length, plus a held call body read as JSON."""
    call = '<|channel|>commentary xto=functions.z to=functions.get<|message|>{"a":1}<|call|>'
    assert scanner_work([call], **GPT_OSS) == len(call) + len('{"a":1}')
    prose = "hi <|channel|>analysis<|message|>think<|end|>ok"
    assert scanner_work([prose], **GPT_OSS) == len(prose)


# ---- the header's bound: a newline, 256 characters ------------------------------------------


def test_a_header_fails_at_its_first_newline_or_its_limit_and_text_resumes_there() -> None:
    """R17.6: a header fails at its first newline, or at 256 characters (a later newline is text)."""
    far = "<|channel|>" + "a" * 260 + "<|channel|>analysis<|message|>t<|end|>\nok"
    near = "<|channel|>x\n<|channel|>analysis<|message|>t<|end|>\nok"
    check(
        [
            (far, [text("<|channel|>" + "a" * 260), reasoning("t"), text("\nok")]),
            (near, [text("<|channel|>x\n"), reasoning("t"), text("\nok")]),
        ],
        **GPT_OSS,
    )


def test_a_header_past_its_limit_is_text_in_the_feed_that_shows_it() -> None:
    """R8.3: once a chunk holds 256 header characters and no `<|message|>` can follow, it is text."""
    doc = "<|channel|>" + "a" * 267  # 256 past the opener, then as many as `<|message|>` has
    assert released([doc, "b"], **GPT_OSS) == [doc, "b", ""]
    assert released([doc[:-1], "ab"], **GPT_OSS) == ["", doc + "b", ""]


# ---- a body's end token cut by a chunk, or after a stray `<|` -------------------------------


def test_a_body_holds_back_only_a_possible_end_token() -> None:
    """R8.3: `<` that start no marker are released; the tail that may begin one is held."""
    cases = [
        ("<|channel|>analysis<|message|>a<b<|call|>after", "a<b"),
        ("<|channel|>analysis<|message|>x<<|call|>after", "x<"),
    ]
    check([(doc, [reasoning(r), text("after")]) for doc, r in cases], **GPT_OSS)
    for doc, r in cases:
        cut = doc.index("ll|>")
        assert released([doc[:cut], doc[cut:]], **GPT_OSS) == [r, "after", ""]


def test_an_end_token_right_after_a_stray_bar_pair_ends_the_message() -> None:
    """R17.6: `<|` that begins no marker is content; an end token right after it still ends the body."""
    check([("<|channel|>analysis<|message|>hm<|<|end|>o", [reasoning("hm<|"), text("o")])], **GPT_OSS)


# ---- streamed calls: a body that is no JSON object, a blank body ----------------------------


def test_a_streamed_body_that_is_no_object_ends_the_call_at_once() -> None:
    """R16.3: a body whose first character is no `{` ends the announced call in that very feed."""
    head = "<|channel|>commentary to=functions.get<|message|>"
    chunks = [head + "hello", " world<|end|>ok"]
    want = [
        {"type": "tool_call_start", "index": 0, "name": "get"},
        {"type": "tool_call_arguments", "index": 0, "delta": "{}"},
        {**harmony(head, "get", {}), "repaired": ["D37"]},
        text("hello worldok"),
    ]
    assert events(chunks, **STREAM) == want
    check([("".join(chunks), want)], **STREAM)
    assert released(chunks, **STREAM) == [head + "hello", " worldok", ""]


def test_a_streamed_blank_body_is_empty_arguments_not_repaired() -> None:
    """R16, R17.6: a blank or empty body streams `{}` and is a whole call, nothing repaired."""
    head = "<|channel|>commentary to=functions.get<|message|>"
    for body in ("  ", "", "\n"):
        doc = head + body + "<|call|>"
        want = [
            {"type": "tool_call_start", "index": 0, "name": "get"},
            {"type": "tool_call_arguments", "index": 0, "delta": "{}"},
            harmony(doc, "get", {}),
        ]
        check([(doc, want)], **STREAM)
