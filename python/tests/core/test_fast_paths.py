"""Speed paths (issue 15) give the answers of the general code they stand in front of.

`_match_plain` decides the tags models write with one regex; `_match_general` decides every
spelling. For every prefix of many tag-like strings (plain, mutated, cut anywhere), under each
keyword set and with `final` both ways, the fast path either declines (None) or agrees.
"""

from __future__ import annotations

import itertools
import random
import re

import docs
import pytest
from conftest import fixture_files, load
from fixture_support import options
from hypothesis import given, settings
from hypothesis import strategies as st

import callsieve
from callsieve import Sieve, prose, scanbase, scanner, sections, shell
from callsieve.formats import ALL_FORMATS, BLOCK_FORMATS
from callsieve.shell import (
    KEYWORDS_ALL,
    KEYWORDS_NATIVE,
    KEYWORDS_SEED,
    MORE,
    _match_general,
    _match_plain,
    match_tag,
)

KEYWORD_SETS = (KEYWORDS_SEED, KEYWORDS_ALL, KEYWORDS_NATIVE)

TAGS = [
    '<|DSML|invoke name="read_file">',
    '<|DSML|parameter name="path">',
    '<｜DSML｜parameter name="content" string="true">',
    "</|DSML|parameter>",
    "</｜DSML｜invoke>",
    "<|DSML|tool_calls>",
    "<｜DSML｜function_calls>",
    "</|dsml|TOOL_CALLS>",
    "<tool_calls>",
    "<toolcalls/>",
    '<invoke name="x"/>',
    '<parameter\n  name="a b"\r\n  string="false" >',
    '<|DSML|invoke Name="x" name="y" other="z">',
    '<|DSML|invoke name="x"string="y">',
    '<|DSML|invoke name="x" />',
    "<|DSML|invoke/>",
    '<|DSML|parameter name="“q”">',
    '<|DSML|parameter name="a>b">',
    "<|DSML|functioncalls>",
    "<|DSML|tool-calls>",
    '<|DSML|invoke name="x"|',
    '<|DSML|invoke name="x" !>',
    "<|DSML|invoke-x>",
    "<|DSML|invoke name=x>",
    "<|DSML|invoke name='x'>",
    "<|DSML|invoke " + "a" * 45 + '="x">',
    "<|DSML|invoke" + " " * 60 + 'name="x">',
    '<|DSML|invoke name="' + "v" * 600 + '">',
    "<" + "x" * 70,
    '<|DSML|invoke\x0bname="x">',
]


def check(s: str, i: int = 0) -> None:
    for kw, final in itertools.product(KEYWORD_SETS, (False, True)):
        fast = _match_plain(s, i, final, kw)
        general = _match_general(s, i, final, kw)
        assert fast is None or fast == general, (s, kw.pattern, final, fast, general)
        assert match_tag(s, i, final, kw) == general


def test_every_prefix_of_tag_like_strings() -> None:
    for tag in TAGS:
        for tail in ("", " rest", "\n", "<", ">"):
            text = tag + tail
            for end in range(1, len(text) + 1):
                check(text[:end])


def test_the_fast_path_decides_the_plain_tags() -> None:
    # It must not decline the common shapes (else it saves nothing): complete and cut.
    for tag in TAGS[:12]:
        assert _match_plain(tag, 0, False, KEYWORDS_ALL) is not None, tag
    assert _match_plain('<|DSML|invoke name="x', 0, False, KEYWORDS_ALL) is MORE


def test_random_mutations() -> None:
    rng = random.Random(15)
    alphabet = " \t\n\r<>/=\"'|｜“”＂-_:.!aAnmeiDSMLtoolcalsvkprg\x0b\u200b＞"
    for _ in range(4000):
        t = list(rng.choice(TAGS))
        for _ in range(rng.randint(1, 3)):
            op = rng.randrange(3)
            k = rng.randrange(len(t) + 1)
            if op == 0:
                t.insert(k, rng.choice(alphabet))
            elif op == 1 and k < len(t):
                del t[k]
            elif k < len(t):
                t[k] = rng.choice(alphabet)
        s = "".join(t)
        if s.startswith("<"):
            for end in range(1, len(s) + 1, rng.randint(1, 4)):
                check(s[:end])


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=' \t\n<>/="|｜“abcdeilmnoprstvkDSML_-', max_size=40))
def test_hypothesis(tail: str) -> None:
    for head in ("<", "</", "<|DSML|", "<|DSML|invoke", '<|DSML|parameter name="'):
        check(head + tail)


def _marker_reference(s: str, i: int, final: bool) -> tuple[str, int] | str:
    """match_marker as first written (a loop over the markers), the reference for its regex."""
    n = len(s)
    if i + 1 >= n:
        return "NO" if final else MORE
    if s[i + 1] not in sections.BARS:
        return "NO"
    w = s[i : i + sections.MAX_MARKER].replace("|", "｜")
    for marker, kind in sections._MARKERS:
        if w.startswith(marker):
            return kind, i + len(marker)
    if not final and i + len(w) == n and any(m.startswith(w) for m, _ in sections._MARKERS):
        return MORE
    return "NO"


def test_match_marker_against_its_first_form() -> None:
    rng = random.Random(10)
    markers = [m for m, _ in sections._MARKERS]
    alphabet = "<>|｜▁toolcalbegindsepfhr "
    for _ in range(3000):
        t = list(rng.choice(markers).replace("｜", rng.choice("｜|")))
        for _ in range(rng.randint(0, 2)):
            k = rng.randrange(len(t) + 1)
            if rng.random() < 0.5:
                t.insert(k, rng.choice(alphabet))
            elif k < len(t):
                del t[k]
        s = "".join(t) + rng.choice(["", "x", "<"])
        if not s.startswith("<"):
            continue
        for end in range(1, len(s) + 1):
            for final in (False, True):
                assert sections.match_marker(s[:end], 0, final) == _marker_reference(s[:end], 0, final), s[
                    :end
                ]


def test_match_cdata_open_plain_spelling() -> None:
    from callsieve import shell

    def general(s: str, final: bool) -> int | str:
        # the recognizer without its plain-spelling shortcut: fold the window, match, or a prefix
        if len(s) > 1 and s[1] in shell._NOT_CDATA_SEP:
            return "NO"
        window = s[:24]
        folded, idx = shell._fold_map(window)
        m = shell._CDATA_RE.match(folded)
        if m is not None:
            return idx[m.end() - 1] + 1
        if not final and len(window) == len(s) and shell._CDATA_PREFIX_RE.fullmatch(folded):
            return MORE
        return "NO"

    for tail in ("", "x", "\x00y", "]]>", "<![CDATA[", "\u200b[CDATA["):
        for opener in (
            "<![CDATA[",
            "<![cdata[",
            "<!![CDATA[",
            "<![CDATA",
            "<!-[CDATA[",
            "<|DSML|tool_calls>",
            "<|[CDATA[",
            "<|\x01[CDATA[",
            "<｜[ＣＤＡＴＡ[",
            "<::[CdAtA[",
        ):
            s = opener + tail
            for end in range(1, len(s) + 1):
                for final in (False, True):
                    assert shell.match_cdata_open(s[:end], 0, final) == general(s[:end], final), s[:end]


# ---- open angles that start no tag (shell.NO_TAG_ANGLES, NO_TAG_SO_FAR) ----------------------

NO_TAG_PIECES = [
    *("<｜DSML｜", "<|DSML|", "</", "<｜", "<", "＜", "〈", "《", "/", "／", "x", " ", "\t", "\n", "|", "｜"),
    *(
        "invoke",
        "tool_calls",
        "parameter",
        "function_calls",
        "tool-calls",
        "toolcalls",
        "TOOL_CALLS",
        "Invoke",
    ),
    *(
        "<pre ",
        "<pre",
        "pre",
        "PRE",
        "!",
        "！",
        "[",
        "［",
        "CDATA",
        "<![CDATA[",
        "]]>",
        ">",
        "=",
        '"',
        "name",
    ),
    *("<!--", "<｜tool▁calls▁begin｜>", "<｜end▁of▁sentence｜>", "<|start|>", "<|end|>", "<tool_call>"),
    *(
        "</tool_call>",
        "<|channel|>",
        "<|python_tag|>",
        "<minimax:tool_call>",
        "\u200b",
        "\x0b",
        "ｔ",
        "т",
        "Ｔ",
    ),
    *(
        "﹍",
        "—",
        "▁",
        "e",
        "tool",
        "_",
        "-",
        "calls",
        "call",
        "DSML",
        "K",
        "ſ",
        "<" * 9,
        "<" * 8,
        "\U0001f600",
    ),
    *("a" * 30, "b" * 70),
]


def _no_tag_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(NO_TAG_PIECES) for _ in range(rng.randint(1, 30))) for _ in range(count)]


def _prose_answers(s: str, p: int, final: bool) -> list[object]:
    """What each recognizer the prose steps try at an open angle says there (every format on)."""
    markers = scanbase.block_markers(ALL_FORMATS)
    out: list[object] = [
        scanbase.match_block_marker(markers, s, p, final),
        sections.match_marker(s, p, final),
        prose.match_region(s, p, final, False),
        prose.match_region(s, p, final, True),
    ]
    return out + [match_tag(s, p, final, kw) for kw in KEYWORD_SETS]


def test_no_tag_angles_are_no_for_every_prose_recognizer() -> None:
    """Wherever NO_TAG_ANGLES matches, every angle it takes starts nothing, whatever follows."""
    angles = re.compile(shell.NO_TAG_ANGLES)
    taken = 0
    for text in _no_tag_texts(3000, 17):
        for i, ch in enumerate(text):
            m = angles.match(text, i) if ch in shell.OPEN_ANGLES else None
            if m is None:
                continue
            for p in range(i, m.end()):
                taken += 1
                for final in (False, True):
                    assert set(map(str, _prose_answers(text, p, final))) == {"NO"}, (text, p, final)
    assert taken > 10000


def test_no_tag_so_far_waits_at_a_cut_head() -> None:
    """Wherever NO_TAG_SO_FAR matches (a head cut by the end of the input), match_tag waits and
    no other prose recognizer decides anything."""
    so_far = re.compile(shell.NO_TAG_SO_FAR)
    taken = 0
    for text in _no_tag_texts(1500, 18):
        for end in range(1, len(text) + 1):
            s = text[:end]
            for i in range(max(0, end - 80), end):
                if s[i] != "<" or not so_far.match(s, i):
                    continue
                taken += 1
                answers = _prose_answers(s, i, False)
                assert all(a in (MORE, "NO") for a in answers), (s, i, answers)
                assert all(a == MORE for a in answers[4:]), (s, i, answers)
    assert taken > 5000


def test_no_marker_fits_in_a_no_tag_head() -> None:
    """The argument behind both: every marker a prose recognizer knows holds a character no
    such head holds (its closing `>`)."""
    head = re.compile(shell.NO_TAG_HEAD)
    rows = [(r.opener, *r.also_opens, r.closer, *r.strays) for r in BLOCK_FORMATS]
    markers = [m for row in rows for m in row if m] + [m for m, _ in sections._MARKERS]
    for m in markers:
        assert m[0] == "<" and not all(head.fullmatch(c) for c in m[1:]), m


def test_no_tag_angles_take_the_hostile_prefixes() -> None:
    angles = re.compile(shell.NO_TAG_ANGLES)
    for run, taken in (
        *(
            ("<｜DSML｜", 3),
            ("<|DSML|", 3),
            ("<｜", 3),
            ("<invoke", 3),
            ("<｜tool▁call", 3),
            ("<tool_call", 3),
        ),
        ("</", 2),  # `</</…`: decided by the head after the next `</<`
    ):
        text = run * 3 + "<"
        got = [angles.match(text, k) is not None for k in range(0, len(text) - 1, len(run))]
        assert got == [True] * taken + [False] * (3 - taken), run


# ---- feed's fast paths: a chunk that only extends a tag or marker the steps wait on ---------

FEED_FAST_PATHS = ("_cap_waits", "_sec_waits")
_CUT_HEAD = scanner._CUT_HEAD


# These two replace the pure-Python scanner's methods; a compiled (mypyc) class has no such slots.
white_box = pytest.mark.skipif(callsieve.compiled, reason="patches the pure-Python scanner's methods")


def _feed_all(chunks: list[str], opts: dict[str, object], fast: bool) -> list[list[object]]:
    s = Sieve(**opts)  # type: ignore[arg-type]
    scanner._CUT_HEAD = _CUT_HEAD if fast else re.compile("(?!)")  # prose cut at a tag head
    if not fast:
        for name in FEED_FAST_PATHS:  # the steps decide every chunk
            setattr(s._scanner, name, lambda buf: False)
    sc = s._scanner
    out: list[list[object]] = []
    for c in chunks:  # the events, and where the steps stand: the same state, not only output
        out.append([*s.feed(c), sc.mode, sc.cap.level, sc.sec.stage, sc.base + sc.pos])
    out.append(list(s.flush()))
    scanner._CUT_HEAD = _CUT_HEAD
    out.append([s._scanner.work, s.saw_tool_call_syntax])
    return out


def _feed_docs() -> list[tuple[str, dict[str, object]]]:
    cases: list[tuple[str, dict[str, object]]] = []
    for p in fixture_files():
        case = load(p)
        cases.append((case["input"], options(case)))
    rng = random.Random(1515)
    w4 = "".join(
        f'<|DSML|invoke name="read_file">\n<|DSML|parameter name="path"><![CDATA[f{i}]]>'
        f'</|DSML|parameter>\n<｜DSML｜parameter name="n" string="false">{i}</｜DSML｜parameter>\n'
        f'<|DSML|parameter name="d"><!［CDATA［x{i}]]></|DSML|parameter>'
        "</|DSML|invoke>\n"
        for i in range(3)
    )
    w10 = "".join(f'<｜tool▁call▁begin｜>f{i}<｜tool▁sep｜>{{"a": {i}}}<｜tool▁call▁end｜>' for i in range(3))
    prose = (
        'When a < b and b > c, the <b>result</b> is 1. Use <div class="note"> or <span>x</span>;'
        " <br/> breaks. Arrows -> and <- or << shifts >> <3. <ul><li>one</li></ul>\n"
    )
    base = [
        prose + "x\n<|DSML|tool_calls>\n" + w4 + "</|DSML|tool_calls>\ny" + prose,
        "x<｜tool▁calls▁begin｜>" + w10 + "<｜tool▁calls▁end｜>y",
        "<｜tool▁calls▁begin｜>" + w10 + "<｜end▁of▁sentence｜>",
    ]
    alphabet = '<>/|｜▁!=" \n[]CDATtoolcalsbeginendsepvkDSML'
    for _ in range(300):
        t = list(rng.choice(base))
        for _ in range(rng.randint(0, 4)):
            k = rng.randrange(len(t) + 1)
            op = rng.randrange(3)
            if op == 0:
                t.insert(k, rng.choice(alphabet))
            elif k < len(t):
                if op == 1:
                    del t[k]
                else:
                    t[k] = rng.choice(alphabet)
        opts: dict[str, object] = {"stream_arguments": rng.random() < 0.3}
        if rng.random() < 0.3:
            opts["max_capture_chars"] = rng.randint(10, 120)
        cases.append(("".join(t), opts))
    for _ in range(200):
        cases.append((docs.document(rng), {}))
    return cases


@white_box
def test_feed_fast_paths_change_no_event() -> None:
    """With the feed fast paths on or off, every chunk gets the same events (not only the same
    coalesced result) and the work counter is the same."""
    rng = random.Random(7)
    runs = 0
    for text, opts in _feed_docs():
        if not text:
            continue
        for chunks in (
            [text[i : i + 8] for i in range(0, len(text), 8)],
            docs.random_chunks(text, rng),
            docs.random_chunks(text, rng, 1, 30),
        ):
            fast = _feed_all(chunks, opts, True)
            general = _feed_all(chunks, opts, False)
            assert fast == general, (text, chunks, opts)
            runs += 1
    assert runs > 1000


@white_box
def test_feed_fast_paths_are_taken() -> None:
    """They save something: on many small calls, most chunks that hold a tag or marker cut by
    the chunk's end take them."""
    for name, text in (
        ("_cap_waits", '<|DSML|tool_calls><|DSML|invoke name="read_file"><|DSML|parameter name="p">1'),
        ("_sec_waits", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>"),
    ):
        s = Sieve()
        taken = {"n": 0}
        original = getattr(s._scanner, name)

        def counted(buf: str, original: object = original, taken: dict[str, int] = taken) -> bool:
            r = original(buf)  # type: ignore[operator]
            taken["n"] += bool(r)
            return bool(r)

        setattr(s._scanner, name, counted)
        for i in range(0, len(text), 3):
            s.feed(text[i : i + 3])
        assert taken["n"] >= 8, (name, taken)


def test_after_every_feed_the_steps_have_nothing_to_do() -> None:
    """Whatever path a chunk took (the steps or a fast path of feed), the scanner is left where
    its steps would wait: one more step without new input does nothing."""
    rng = random.Random(8)
    for text, opts in _feed_docs():
        s = Sieve(**opts)  # type: ignore[arg-type]
        sc = s._scanner
        for chunk in docs.random_chunks(text, rng, 1, 12):
            s.feed(chunk)
            before = (sc.mode, sc.cap.level, sc.sec.stage, sc.base + sc.pos, len(sc.buf))
            assert scanner._STEPS[sc.mode](sc, False) is False, (text, chunk)
            after = (sc.mode, sc.cap.level, sc.sec.stage, sc.base + sc.pos, len(sc.buf))
            assert after == before and not sc.out and not sc._text, (text, chunk)


_NEVER = re.compile("(?!)")


def _fed_prose(text: str, size: int, opts: dict[str, object], reference: bool) -> list[object]:
    """Each feed's events (and where the steps stand), the prose skip and the cut-head shortcuts
    on, or reduced to runs of plain characters (`reference`: the steps decide every angle)."""
    s = Sieve(**opts)  # type: ignore[arg-type]
    sc = s._scanner
    saved = (prose._PLAIN_TAG_SO_FAR, scanner._CUT_HEAD)
    if reference:
        stops = "\n`<＜〈《" + ("{" if sc.json_calls else "") + ("\\[" if sc._brackets else "")
        sc._prose = re.compile(f"[^{stops}]*")
        prose._PLAIN_TAG_SO_FAR = scanner._CUT_HEAD = _NEVER  # type: ignore[misc]
    try:
        out: list[object] = [
            [*s.feed(text[i : i + size]), sc.mode, sc.base + sc.pos] for i in range(0, len(text), size)
        ]
        out += [list(s.flush()), sc.work]
    finally:
        prose._PLAIN_TAG_SO_FAR, scanner._CUT_HEAD = saved  # type: ignore[misc]
    return out


@white_box
def test_the_prose_skip_on_no_tag_angles_changes_no_event() -> None:
    """Runs of tag-like prefixes (and what they are mixed with) give, chunk by chunk, the events
    the steps give when the prose skip decides no angle (Node: fast-paths.test.js, prose skip)."""
    rng = random.Random(19)
    texts = _no_tag_texts(700, 19) + [
        run * 40 + tail
        for run in ("<｜DSML｜", "<|DSML|", "</", "<｜", "<invoke", "<｜tool▁call", "<", "<tool_calls")
        for tail in ("", " then text", '<|DSML|invoke name="f">', "\n<|DSML|tool_calls>", "<pre x>")
    ]
    for text in texts:
        opts: dict[str, object] = rng.choice([{}, {"json_tool_calls": True}, {"formats": ["dsml"]}])
        for size in (1, 3, 16, len(text)):
            assert _fed_prose(text, size, opts, False) == _fed_prose(text, size, opts, True), (
                text,
                size,
                opts,
            )


# ---- reasoning: feed's shortcuts for a chunk no closing marker can start in ---------------------


def test_partial_close_is_the_longest_proper_marker_prefix_ending_the_text() -> None:
    from callsieve.reasoning import _partial_close

    rng = random.Random(21)
    for close in ("</think>", "</seed:think>", "[/THINK]", "abab", "aab"):
        pieces = ["", "x", close[0], close, close + close[0], *(close[:k] for k in range(1, len(close)))]
        texts = {a + b + c for a in pieces for b in pieces for c in pieces}
        texts |= {"".join(rng.choice(close + "z") for _ in range(rng.randint(0, 12))) for _ in range(3000)}
        for s in texts:
            want = max(k for k in range(len(close)) if s.endswith(close[:k]))
            assert _partial_close(s, close) == want, (s, close)


def _thinking_texts(rng: random.Random) -> list[tuple[str, dict[str, object]]]:
    example = '<|DSML|tool_calls><|DSML|invoke name="rm"><|DSML|parameter name="p">x</|DSML|parameter>'
    body = f"a < b; </thin <div>x</div> ```xml\n{example}\n``` [/THI <|en <|channel|x <seed:th </"
    cases: list[tuple[str, dict[str, object]]] = [
        (f"<think>{body}</think>\nok {example}</|DSML|invoke></|DSML|tool_calls>", {}),
        (f" \n<think>{body}</thi", {}),
        (f"{body}</think>{body}", {"reasoning": "open"}),
        (f"<seed:think>{body}</seed:think>{body}", {"preset": "seed-oss"}),
        (f"[THINK]{body}[/THINK]{body}", {"preset": "mistral"}),
        (f"<think>{body}", {"reasoning": "open", "stream_arguments": True}),
        (
            f"<|channel|>analysis<|message|>{body}<|end|><|start|>assistant<|channel|>final<|message|>"
            f"{body}<|return|><|channel|>commentary to=functions.f <|constrain|>json<|message|>"
            '{"a": 1}<|call|><|channel|>analysis<|message|>' + body,
            {"preset": "gpt-oss"},
        ),
    ]
    out = list(cases)
    for text, opts in cases * 30:
        t = list(text)
        for _ in range(rng.randint(1, 4)):
            k = rng.randrange(len(t))
            t[k : k + rng.randint(0, 3)] = rng.choice(["<", "<|", "</", "[", "<|end|>", "</think>", "x", ""])
        out.append(("".join(t), opts))
    return out


def _fed_thinking(chunks: list[str], opts: dict[str, object], shortcuts: bool) -> list[object]:
    s = Sieve(**opts)  # type: ignore[arg-type]
    saved = scanner._HM_REASONING
    if not shortcuts:
        s._gate.lead = ""  # every chunk holds "": the gate decides it
        scanner._HM_REASONING = 99  # type: ignore[misc]  # no Harmony body streams from feed
    try:
        out: list[object] = [[*s.feed(c), s._gate.phase, s._gate.held, s.work] for c in chunks]
        out += [list(s.flush()), s.work]
    finally:
        scanner._HM_REASONING = saved  # type: ignore[misc]
    return out


@white_box
def test_the_reasoning_shortcuts_change_no_event() -> None:
    """Sieve.feed's chunk inside a reasoning region and the scanner's Harmony body chunk give, chunk
    by chunk, the events (and state and work) the gate and harmony._body give."""
    rng = random.Random(22)
    for text, opts in _thinking_texts(rng):
        for chunks in (docs.random_chunks(text, rng, 1, 6), docs.random_chunks(text, rng, 1, 30)):
            assert _fed_thinking(chunks, opts, True) == _fed_thinking(chunks, opts, False), (chunks, opts)
