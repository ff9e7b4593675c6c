"""Tests that tell pylist.py (bare pythonic call lists, R17.8, D64) and sections.py (DeepSeek token
sections, R14.4-R14.5) apart from their mutants that survived the mutation run: the head's limit and
its states, strings and brackets of the list, the capture limit counted from the `[`, what each feed
releases, the scanner's work, and the names and fences of a section's calls. Each expectation comes
from the rules (R8.2 nothing lost, R8.3 release as soon as decided and the limit, R8.6 chunking
invariance, D43, D55, D64), not from the implementation's output. Node's twin:
parity/node/test/mutation/mutation-kills-pylist-sections.test.js."""

from __future__ import annotations

from typing import Any

from sieve_support import released, run, scanner_work

from callsieve import coalesce
from callsieve.events import ToolCallsEvent

LLAMA4: dict[str, Any] = {"preset": "llama4"}
V3: dict[str, Any] = {"preset": "deepseek-v3"}


def events(chunks: list[str], **opts: Any) -> list[dict[str, Any]]:
    """The coalesced events of a run, as dicts, a block's raw put in (no loss is part of the check)."""
    out = []
    for e in coalesce(run(chunks, **opts)):
        d = e.to_dict()
        if isinstance(e, ToolCallsEvent):
            d["raw"] = e.raw
        out.append(d)
    return out


def text(s: str) -> dict[str, Any]:
    return {"type": "text", "text": s}


def pythonic(raw: str, *calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "tool_calls",
        "calls": [{"name": n, "input": i} for n, i in calls],
        "raw": raw,
        "format": "pythonic",
    }


def ways(doc: str) -> list[list[str]]:
    """The document fed whole and one character at a time."""
    return [[doc], list(doc)]


# ---- pylist.py: the head ------------------------------------------------------------------------


def test_a_bare_list_head_holds_256_characters_wherever_the_chunks_end() -> None:
    """D64: a head's `(` may be its 256th character, not its 257th, wherever a chunk ends."""
    # (the head is counted from its `[`, prose before it in the same chunk, the rest anywhere)
    prefix = "see "
    fits = "[" + "a" * 254 + "(x=1)]"
    over = "[" + "a" * 255 + "(x=1)]"
    want_fits = [text(prefix), pythonic(fits, ("a" * 254, {"x": 1}))]
    want_over = [text(prefix + over)]
    for doc, want in ((prefix + fits, want_fits), (prefix + over, want_over)):
        assert events([doc], **LLAMA4) == want
        for k in range(1, len(doc)):
            assert events([doc[:k], doc[k:]], **LLAMA4) == want, k


def test_a_bare_list_head_reads_tabs_digits_and_dotted_names() -> None:
    """D64: tabs are blanks around the name, digits may follow its first letter, dots join names."""
    cases = [
        ("[\tget\t(a=1)]", [pythonic("[\tget\t(a=1)]", ("get", {"a": 1}))]),
        ("[get2(a=1)] ok", [pythonic("[get2(a=1)]", ("get2", {"a": 1})), text(" ok")]),
        ("[a.b2.c(x=1)]", [pythonic("[a.b2.c(x=1)]", ("a.b2.c", {"x": 1}))]),
    ]
    for doc, want in cases:
        for chunks in ways(doc):
            assert events(chunks, **LLAMA4) == want, chunks[:2]


def test_a_head_fails_at_its_first_character_that_is_no_head_and_prose_resumes_there() -> None:
    """D64: a head fails at a hyphen or a blank after a dot; prose resumes there, and a later list is read."""
    inner = pythonic("[h(y=1)]", ("h", {"y": 1}))
    cases = [
        ("[f-g(x=[h(y=1)])]", [text("[f-g(x="), inner, text(")]")]),
        ("[a. b(x=[h(y=1)])]", [text("[a. b(x="), inner, text(")]")]),
        ("[a.-[h(y=1)]", [text("[a.-"), inner]),
    ]
    for doc, want in cases:
        for chunks in ways(doc):
            assert events(chunks, **LLAMA4) == want, chunks[:2]


def test_a_failed_head_is_released_by_the_feed_that_decides_it() -> None:
    """R8.3: a head that fails is given back by the feed of the character that fails it."""
    doc = "[a. b(x=1)]"
    assert released(list(doc), **LLAMA4) == ["", "", "", "[a. ", *doc[4:], ""]
    doc = "[f-g(x=1)]"
    assert released(list(doc), **LLAMA4) == ["", "", "[f-", *doc[3:], ""]
    doc = "[1f(x=1)]"
    assert released(list(doc), **LLAMA4) == ["", "[1", *doc[2:], ""]


# ---- pylist.py: the list ------------------------------------------------------------------------


def test_quotes_and_backslashes_inside_a_bare_list() -> None:
    """R17.8: strings in either quote hide brackets, and a backslash escapes exactly one character."""
    # (an empty string, an escaped backslash before the closing quote, an escaped quote)
    cases = [
        ('[f(a="")]', [pythonic('[f(a="")]', ("f", {"a": ""}))]),
        ('[f(a="\\\\")] x', [pythonic('[f(a="\\\\")]', ("f", {"a": "\\"})), text(" x")]),
        (
            '[f(a=\'\\\\\'), g(b="\\"]")]',
            [pythonic('[f(a=\'\\\\\'), g(b="\\"]")]', ("f", {"a": "\\"}), ("g", {"b": '"]'}))],
        ),
        ("[f(a='x\\'y')]", [pythonic("[f(a='x\\'y')]", ("f", {"a": "x'y"}))]),
    ]
    for doc, want in cases:
        for chunks in ways(doc):
            assert events(chunks, **LLAMA4) == want, chunks[:2]
        for k in range(1, len(doc)):
            assert events([doc[:k], doc[k:]], **LLAMA4) == want, k


def test_the_capture_limit_of_a_bare_list_counts_from_its_bracket() -> None:
    """D43: a list of exactly max_capture_chars is read wherever its `[` stands; one more is text."""
    opts = {**LLAMA4, "max_capture_chars": 8}
    fits = "ab [f(x=1)] cd"
    want = [text("ab "), pythonic("[f(x=1)]", ("f", {"x": 1})), text(" cd")]
    for chunks in ([fits], list(fits), [fits[:4], fits[4:]]):
        assert events(chunks, **opts) == want, chunks[:2]
    for over in ("[f(x=12)]", "ab [f(x=12)] cd"):
        for chunks in ways(over):
            assert events(chunks, **opts) == [text(over)], chunks[:2]


def test_past_the_limit_prose_resumes_at_the_limit() -> None:
    """D43: a list is text up to the limit, in a string or not, and a list opening past it is read."""
    cases = [
        (12, '[f(a="xxxxxx [g(b=1)] ")]', '[f(a="xxxxxx ', "[g(b=1)]", ("g", {"b": 1}), ' ")]'),
        (8, "[f(x=1, y=[g(z=1)])]", "[f(x=1, y=", "[g(z=1)]", ("g", {"z": 1}), ")]"),
    ]
    for limit, doc, before, raw, call, after in cases:
        want = [text(before), pythonic(raw, call), text(after)]
        for chunks in ways(doc):
            assert events(chunks, **LLAMA4, max_capture_chars=limit) == want, chunks[:2]


def test_a_bare_list_that_reaches_the_limit_is_released_by_that_feed() -> None:
    """R8.3, D43: a list that reaches the limit unclosed is text at once, not held to the flush."""
    opts = {**LLAMA4, "max_capture_chars": 5}
    doc = "[f(a=12345)] tail"
    assert released([doc], **opts) == [doc, ""]
    assert released(list(doc), **opts) == ["", "", "", "", "[f(a=", *doc[5:], ""]


def test_the_work_of_a_bare_list() -> None:
    """The scanner's work: each character fed once, and a closed list once more by its grammar."""
    # (pinned exactly, as for the other families; a list that reads as no calls is read too)
    assert scanner_work(["ab [f(x=1)] cd"], **LLAMA4) == 14 + 8
    assert scanner_work(["ab [f(x)] cd"], **LLAMA4) == 12 + 6
    assert scanner_work(["[f(x=1)][g()]"], **LLAMA4) == 13 + 8 + 5


# ---- sections.py --------------------------------------------------------------------------------

BEGIN, END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CALL, CALL_END, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def section(head: str, body: str) -> str:
    return BEGIN + CALL + head + SEP + body + CALL_END + END


def tokens(calls: list[tuple[str, dict[str, Any]]], *malformed: dict[str, str]) -> dict[str, Any]:
    """A section's event, raw left out (each case checks no loss apart)."""
    d: dict[str, Any] = {
        "type": "tool_calls",
        "calls": [{"name": n, "input": i} for n, i in calls],
        "format": "tokens",
    }
    if malformed:
        d["malformed"] = list(malformed)
    return d


def section_events(doc: str) -> list[list[dict[str, Any]]]:
    """The coalesced events fed whole and one character at a time, raw dropped once no loss holds."""
    out = []
    for chunks in ways(doc):
        got = run(chunks, **V3)
        assert "".join(e.source for e in got) == doc
        dicts = [e.to_dict() for e in coalesce(got)]
        for d in dicts:
            d.pop("raw", None)
        out.append(dicts)
    return out


def test_a_carriage_return_in_a_call_name_leaves_the_call_without_a_name() -> None:
    """D55: a call name holding a carriage return is no name, in V3.1 heads and V3 / R1 bodies."""
    v31 = section("get\rx", "{}")
    v3 = section("function", "get\rx\n```json\n{}\n```")
    for doc, raw in ((v31, "get\rx" + SEP + "{}"), (v3, "function" + SEP + "get\rx\n```json\n{}\n```")):
        want = [tokens([], {"raw": raw, "reason": "no name"})]
        assert section_events(doc) == [want, want]


def test_a_v3_body_that_opens_with_a_brace_is_named_by_its_head() -> None:
    """D55: a refused V3 call is named `function` if its body opens with `{`, else by its first line."""
    cases = [
        ("{bad", "function"),
        ("x", "x"),
        ("x\n```json\n[1]\n```", "x"),
    ]
    for body, name in cases:
        raw = "function" + SEP + body
        want = [tokens([], {"raw": raw, "reason": "arguments are not a JSON object", "name": name})]
        assert section_events(section("function", body)) == [want, want], body


def test_v3_arguments_are_one_whole_fenced_block() -> None:
    """R14.5: V3 / R1 arguments are one fenced block (```JSON too) ending the body, or malformed."""
    # (the closer may follow the object on its line; text after the object or the fence is not a fence)
    good = [
        'get\n```JSON\n{"a": 1}\n```',
        'get\n```json\n{"a": 1}```',
        'get\n```\n{"a": 1}\n```',
    ]
    for body in good:
        want = [tokens([("get", {"a": 1})])]
        assert section_events(section("function", body)) == [want, want], body
    for body in ('get\n```json\n{"a": 1}\nabc', 'get\n```json\n{"a": 1}\n``` x'):
        raw = "function" + SEP + body
        bad = {"raw": raw, "reason": "arguments are not a JSON object", "name": "get"}
        want = [tokens([], bad)]
        assert section_events(section("function", body)) == [want, want], body


# ---- added with Node's twin: the head's letters and digits, its states, escaped line breaks -----


def test_a_head_name_holds_the_ends_of_its_ranges() -> None:
    """D64: a head's name may hold A-Z, a-z, _ and (after its first character) 0-9, the ends included."""
    for name in ("Az", "Za", "z0", "a9Z", "_", "A_Z0z9"):
        doc = "[" + name + "(x=1)]"
        want = [pythonic(doc, (name, {"x": 1}))]
        for chunks in ways(doc):
            assert events(chunks, **LLAMA4) == want, doc


def test_a_character_just_outside_the_name_ranges_fails_the_head() -> None:
    """D64: a character just outside the name ranges fails the head there, and a list after it is read."""
    inner = pythonic("[g(y=1)]", ("g", {"y": 1}))
    for c in "^:@`{/":
        doc = "[f" + c + "[g(y=1)]"
        for chunks in ways(doc):
            assert events(chunks, **LLAMA4) == [text("[f" + c), inner], doc
    for c in "@^`~/:":
        doc = "[f" + c + "(x=1)]"
        assert released(list(doc), **LLAMA4) == ["", "", "[f" + c, *doc[3:], ""], doc
    for c in "{[":
        doc = "[f" + c + "(x=1)]"
        assert released(list(doc), **LLAMA4) == ["", "", "[f", c + "(", *doc[4:], ""], doc


def test_a_paren_before_a_name_or_after_a_dot_or_a_second_name_fails_the_head() -> None:
    """D64: a `(` before any name, after a dot, or a name after blanks fails the head; prose resumes there."""
    inner = pythonic("[g(y=1)]", ("g", {"y": 1}))
    cases = [
        ("[get x(a=[g(y=1)])]", "[get x(a="),
        ("[(a=[g(y=1)])]", "[(a="),
        ("[.f(a=[g(y=1)])]", "[.f(a="),
        ("[a.(b=[g(y=1)])]", "[a.(b="),
    ]
    for doc, before in cases:
        for chunks in ways(doc):
            assert events(chunks, **LLAMA4) == [text(before), inner, text(")]")], doc


def test_an_escaped_carriage_return_in_a_bare_list_string_is_text() -> None:
    """R17.8: an escaped carriage return in a string of a bare list is text, and prose resumes at it."""
    doc = "[note(text='one\\\rtwo')]"
    for chunks in ways(doc):
        assert events(chunks, **LLAMA4) == [text(doc)], doc
    inner = pythonic("[g(y=1)]", ("g", {"y": 1}))
    for q in "'\"":
        doc = "[note(text=" + q + "one\\\r[g(y=1)]" + q + ")]"
        want = [text("[note(text=" + q + "one\\\r"), inner, text(q + ")]")]
        for chunks in ways(doc):
            assert events(chunks, **LLAMA4) == want, doc


def test_prose_resumes_after_a_closed_list_that_reads_as_no_calls() -> None:
    """D64: after a closed list that reads as no calls, prose resumes and a later list is read."""
    inner = pythonic("[g(y=1)]", ("g", {"y": 1}))
    for doc, before in (("[f(x)] and [g(y=1)]", "[f(x)] and "), ("[f(x)]\n[g(y=1)]", "[f(x)]\n")):
        for chunks in ways(doc):
            assert events(chunks, **LLAMA4) == [text(before), inner], doc


def test_only_the_head_function_reads_a_v3_body_and_its_fence_needs_an_opener() -> None:
    """R14.5, D55: only the head `function` reads a V3 body; its fence needs an opener and json or no info."""
    cases = [
        ("get", "x\n```json\n{}\n```", "get"),
        ("function", 'get\nxyz\n{"a": 1}\n```', "get"),
        ("function", 'get\n```python\n{"a": 1}\n```', "get"),
        ("function", 'get\n```js\n{"a": 1}\n```', "get"),
    ]
    for head, body, name in cases:
        raw = head + SEP + body
        bad = {"raw": raw, "reason": "arguments are not a JSON object", "name": name}
        want = [tokens([], bad)]
        assert section_events(section(head, body)) == [want, want], body
