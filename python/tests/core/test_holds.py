"""Every hold is bounded (R8.3, issue 14): after an opener of each kind, a long run of input holds
at most max_capture_chars (plus a tag's lookahead), and the sieve's memory stays flat while it
goes on. The true 50 MB runs are `scripts/bench/memory.py --holds` (Node has the same table in
parity/node/test/core/holds.test.js)."""

from __future__ import annotations

import tracemalloc

import pytest

from callsieve import Event, Sieve, TextEvent, ToolCallsEvent

LIMIT = 1000
SLACK = 1100  # a pending tag's bounded lookahead (shell.MAX_TAG and its attribute value)
W = "<|DSML|tool_calls>"
INV = W + '<|DSML|invoke name="a">'
PAR = INV + '<|DSML|parameter name="p">'
SEC = "<｜tool▁calls▁begin｜>"

# construct -> (opener, filler unit repeated after it)
CONSTRUCTS: dict[str, tuple[str, str]] = {
    "inline code span": ("`x`` ", "word "),
    "inline code span holding a wrapper": ("`x <tool_calls> ", "word "),
    "tag: spaces after an attribute name": ('<tool_calls x="1" a', " "),
    "tag: attribute value": ('<|DSML|invoke name="', "a"),
    "wrapper interior": (W, "\n"),
    "invoke interior": (INV, " "),
    "parameter body": (PAR, "word "),
    "parameter body full of angles": (PAR, "a < b "),
    "nested item elements": (PAR, "<item>"),
    "CDATA": (PAR + "<![CDATA[", "code line\n"),
    "fenced closers inside a CDATA": (PAR + "<![CDATA[\n```\n", "]]></|DSML|parameter>\n"),
    "nested CDATA openers": (PAR + "<![CDATA[", "<![CDATA[ "),
    "blanks after a CDATA end": (PAR + "<![CDATA[x]]>", " "),
    "bare invoke (missing wrapper)": ('<invoke name="a">', " "),
    "parameters past the limit": (INV, '<|DSML|parameter name="p">1</|DSML|parameter>'),
    "invokes past the limit": (W, '<|DSML|invoke name="a"></|DSML|invoke>'),
    "malformed invokes past the limit": (
        "<｜DSML｜function_calls>",
        '<｜DSML｜invoke name="a"></｜DSML｜parameter></｜DSML｜invoke>',  # (a stray closer)
    ),
    "JSON invoke body": (INV + "{", '"k": 1, '),
    "native string parameter": (
        '<｜DSML｜function_calls><｜DSML｜invoke name="a"><｜DSML｜parameter name="p" string="true">',
        "a < b ",
    ),
    "fence": ("```\n", "word\n"),
    "token section between calls": (SEC, " "),
    "token call body": (SEC + "<｜tool▁call▁begin｜>f<｜tool▁sep｜>{", '"k": 1, '),
    "token calls past the limit": (SEC, "<｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>"),
    "JSON call in prose (R9)": ('{"tool_calls": [', '{"a": 1}, '),
    "JSON string in prose (R9)": ('{"name": "', "word "),
    "CDATA in prose": ("<![CDATA[", "<tool_calls> "),
    "HTML comment": ("<!--", "<tool_calls> "),
    "pre block": ("<pre>\n", "<tool_calls>\n"),
}


def out_len(events: list[Event]) -> int:
    return sum(
        len(e.text) if isinstance(e, TextEvent) else len(e.raw) if isinstance(e, ToolCallsEvent) else 0
        for e in events
    )


def run(opener: str, unit: str, total: int, size: int, trace: bool = False) -> tuple[int, int]:
    """Feed the opener, then `unit` repeated to `total` characters in chunks of `size`; return
    the most characters held after a feed, and (with `trace`) how much the memory traced grew
    from a third of the run to its end."""
    s = Sieve(max_capture_chars=LIMIT, json_tool_calls=True)
    fed = len(opener)
    emitted = out_len(s.feed(opener))
    filler = unit * (total // len(unit) + 1)
    held = 0
    early = -1
    if trace:
        tracemalloc.start()
    for i in range(0, total, size):
        if trace and early < 0 and i >= total // 3:
            early = tracemalloc.get_traced_memory()[0]
        chunk = filler[i : i + size]
        emitted += out_len(s.feed(chunk))
        fed += len(chunk)
        held = max(held, fed - emitted)
    grown = 0
    if trace:
        grown = tracemalloc.get_traced_memory()[0] - early
        tracemalloc.stop()
    emitted += out_len(s.flush())
    assert emitted == fed  # nothing lost
    return held, grown


@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_a_long_run_after_an_opener_holds_at_most_the_limit(name: str) -> None:
    opener, unit = CONSTRUCTS[name]
    for size in (1, 7, 4096):
        held, _ = run(opener, unit, 5_000 if size == 1 else 30_000, size)
        assert held <= LIMIT + SLACK, f"{name}: held {held} characters in chunks of {size}"


@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_memory_stays_flat_after_an_opener(name: str) -> None:
    """The last 200,000 of 300,000 characters after the opener leave no trace: what the sieve
    keeps is bounded by the limit, not by the input (before: calls and parameters past the limit
    were kept, 300 KB and more here; then a repeated parameter name, 35 KB)."""
    opener, unit = CONSTRUCTS[name]
    _, grown = run(opener, unit, 300_000, 4096, trace=True)
    assert grown <= 16 * 1024, f"{name}: grew by {grown} bytes"


@pytest.mark.parametrize("blank", [" ", "\t"])
def test_a_pre_opener_at_a_line_start_is_released_at_its_blank(blank: str) -> None:
    """`<pre` and a blank at a line start open a region (D41): decided there, not held to the
    end of the line as a tag head (Node released it there first)."""
    s = Sieve()
    got = [[e.text for e in s.feed(c) if isinstance(e, TextEvent)] for c in ["<", "p", "r", "e", blank, "x"]]
    assert got == [[], [], [], [], ["<pre" + blank], ["x"]]
    assert list(s.flush()) == []
