"""Tests that tell the code apart from its mutants (issue 17): what fixtures cannot say because it is
an option, a Python-only path or a library function. Each expectation comes from the rules or the
documented API, not from the implementation's output. parity/node/test/mutation/mutation-kills.test.js is the
Node twin."""

from __future__ import annotations

from typing import Any

import pytest

from callsieve import InputTypeError, OptionsError, Sieve, TextEvent, ToolCallsEvent, coalesce, parse
from callsieve.schema import normalize_input, normalize_value
from callsieve.sse import iter_sse_events

BLOCK = (
    '<|DSML|tool_calls><|DSML|invoke name="f"><|DSML|parameter name="a">1</|DSML|parameter>'
    "</|DSML|invoke></|DSML|tool_calls>"
)


def stream(text: str, size: int, **options: Any) -> list[Any]:
    s = Sieve(**options)
    events = []
    for i in range(0, len(text), size):
        events += s.feed(text[i : i + size])
    return coalesce(events + s.flush())


# ---- max_capture_chars: a block of exactly the limit is not past it ---------------------------


@pytest.mark.parametrize("size", [1, 3, len(BLOCK) + 4])
def test_block_exactly_at_the_capture_limit_is_a_call(size: int) -> None:
    text = "x " + BLOCK + " y"
    out = stream(text, size, max_capture_chars=len(BLOCK))
    assert [type(e) for e in out] == [TextEvent, ToolCallsEvent, TextEvent]
    assert [c.name for c in out[1].calls] == ["f"]
    assert parse(text, max_capture_chars=len(BLOCK)).calls[0].input == {"a": 1}


def test_block_one_past_the_capture_limit_is_text() -> None:
    out = stream("x " + BLOCK + " y", 1, max_capture_chars=len(BLOCK) - 1)
    assert not any(isinstance(e, ToolCallsEvent) for e in out)


def test_block_far_past_the_capture_limit_is_text_with_a_note() -> None:
    out = stream("x " + BLOCK + " y", 1, max_capture_chars=len(BLOCK) // 2)
    assert not any(isinstance(e, ToolCallsEvent) for e in out)
    assert any(isinstance(e, TextEvent) and e.note == "capture_limit" for e in out)


def test_capture_limit_must_be_a_positive_int() -> None:
    assert parse(BLOCK, max_capture_chars=1 * len(BLOCK)).calls
    with pytest.raises(OptionsError, match="at least 1"):
        Sieve(max_capture_chars=0)
    with pytest.raises(InputTypeError, match="must be an int"):
        Sieve(max_capture_chars=1.0)  # type: ignore[arg-type]


# ---- values: numbers are doubles (R6.3) ----------------------------------------------------------


def test_sixteen_digit_integer_is_the_nearest_double() -> None:
    block = BLOCK.replace(">1<", ">9999999999999999<")
    v = parse(block).calls[0].input["a"]
    assert v == 10**16 and v != 9999999999999999
    exact = parse(BLOCK.replace(">1<", ">1234567890123456<")).calls[0].input["a"]
    assert exact == 1234567890123456 and isinstance(exact, int)


# ---- schema: the text of a value that is not JSON (R12 never raises) -----------------------------


class _Odd:
    def __str__(self) -> str:
        return "odd value"


def test_string_schema_writes_a_non_json_value_as_its_text() -> None:
    assert normalize_value(_Odd(), {"type": "string"}) == "odd value"
    cyclic: list[Any] = [1]
    cyclic.append(cyclic)
    assert normalize_value(cyclic, {"type": "string"}) == str(cyclic)
    tools = [{"name": "t", "input_schema": {"type": "object", "properties": {"p": {"type": "string"}}}}]
    assert normalize_input("t", {"p": _Odd()}, tools) == {"p": "odd value"}


def test_schema_lookup_prefers_the_exact_name_over_an_earlier_case_variant() -> None:
    tools = [
        {"name": "Ab", "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}},
        {"name": "aB", "input_schema": {"type": "object", "properties": {"x": {"type": "integer"}}}},
    ]
    assert normalize_input("aB", {"x": 1}, tools) == {"x": 1}
    assert normalize_input("Ab", {"x": 1}, tools) == {"x": "1"}
    assert normalize_input(" ab ", {"x": 1}, tools) == {"x": "1"}


# ---- sse: retry takes ASCII digits only ------------------------------------------------------------


def test_sse_retry_with_non_ascii_digits_is_ignored() -> None:
    # U+0661 U+0662 are Arabic-Indic digits: str.isdigit() is true for them, the SSE rule is not.
    data = "retry: 1500\n\nretry: \u0661\u0662\ndata: a\n\nretry: 2\u0663\ndata: b\n\n".encode()
    events = list(iter_sse_events([data]))
    assert [(e.data, e.retry) for e in events] == [("a", 1500), ("b", 1500)]


# ---- shell: the fold table (R2.3, R2.4) ------------------------------------------------------------
# The table is built once at import; calling the builder here is what lets a mutation tool see a
# changed table (mutmut activates a mutant only inside calls made by the tests).


def test_fold_table_folds_what_r2_says_and_nothing_else() -> None:
    from callsieve.shell import _build_fold

    t = _build_fold()
    for c in range(ord("A"), ord("Z") + 1):
        assert t[c] == chr(c).lower()
    for c in range(0xFF01, 0xFF5F):  # fullwidth ASCII, letters to lower case
        assert t[c] == chr(c - 0xFEE0).lower()
    assert 0xFF00 not in t and 0xFF5F not in t
    controls = [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F]
    zero_width = [0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2060, 0xFEFF, 0x00AD]
    for c in controls + zero_width:
        assert c in t and t[c] is None, hex(c)
    for c in (0x09, 0x0A, 0x0D, 0x20):  # ASCII whitespace is structure, not noise
        assert c not in t
    for c in [0x0085, 0x00A0, 0x1680, 0x202F, 0x205F, 0x3000, 0x2581, 0x2402, *range(0x2000, 0x200B)]:
        assert t[c] == " ", hex(c)
    for chars, to in (("‐‑‒–—―−﹣", "-"), ("﹍﹎﹏", "_"), ("“”„‟″", '"'), ("‘’‚‛′", "'")):
        for ch in chars:
            assert t[ord(ch)] == to, ch
    assert (t[ord("〈")], t[ord("〉")], t[ord("《")], t[ord("》")]) == ("<", ">", "<", ">")
    # R2.4's examples of confusable letters, Cyrillic and Greek, small and capital
    for ch, to in (("о", "o"), ("е", "e"), ("а", "a"), ("Ѕ", "s"), ("Μ", "m"), ("ο", "o"), ("С", "c")):
        assert t[ord(ch)] == to, ch
    # every entry maps to nothing, one ASCII character, or a space: folding never grows a span
    assert all(v is None or (len(v) == 1 and v.isascii()) for v in t.values())
    # no ASCII letter, digit or structural character other than A-Z folds
    for c in range(0x20, 0x7F):
        if not ("A" <= chr(c) <= "Z"):
            assert c not in t, chr(c)


# The confusables folded back to ASCII (R2.4 names some: о е а Ѕ Μ). This list is the contract of
# which homoglyphs a shell may use; Node's shell.js holds the same.
CONFUSABLES = {
    "a": "аαА",
    "b": "ВΒв",
    "c": "сСϲ",
    "d": "ԁ",
    "e": "еЕεΕ",
    "h": "һНΗ",
    "i": "іІιΙ",
    "j": "јЈ",
    "k": "кКκΚ",
    "l": "ӏ",
    "m": "мМΜ",
    "n": "ΝпП",
    "o": "оОοΟ",
    "p": "рРρΡ",
    "s": "ѕЅ",
    "t": "тТτΤ",
    "u": "υ",
    "v": "ν",
    "x": "хХχΧ",
    "y": "уУγΥ",
    "z": "Ζ",
}


def test_fold_table_folds_each_listed_confusable() -> None:
    from callsieve.shell import _build_fold

    t = _build_fold()
    for letter, variants in CONFUSABLES.items():
        for v in variants:
            assert t[ord(v)] == letter, v
    non_ascii_letters = {chr(c) for c, v in t.items() if c > 0x7F and v is not None and v.isalpha()}
    fullwidth = {chr(c) for c in range(0xFF01, 0xFF5F)}
    assert non_ascii_letters - fullwidth == set("".join(CONFUSABLES.values()))
    assert len(t) == 261  # the same size as Node's FOLD


# ---- names: the namespace level of the funnel (R10.1, D16; see the names module docstring) --------


def test_namespace_level_beats_the_loose_level() -> None:
    from callsieve.names import resolve_tool_name

    # ".Search": a dot at index 0 still has a part after it; its case-insensitive match wins over
    # the earlier loose match "se-arch"
    assert resolve_tool_name(".Search", ["se-arch", "search"]) == "search"
    # "mcp.": nothing after the last dot, so there is no namespace part (a blank declared name
    # must not match an empty part); the loose level finds "mcp"
    assert resolve_tool_name("mcp.", ["  ", "mcp"]) == "mcp"
    # the part compares exactly with the trimmed declared name before any case-insensitive match
    assert resolve_tool_name("mcp.search", ["SEARCH", " search "]) == " search "
    # and ignoring case with the trimmed declared name before the loose level
    assert resolve_tool_name("mcp.search", ["se-arch", " Search "]) == " Search "


def test_misuse_messages_name_the_option_and_what_was_given() -> None:
    from callsieve.names import apply_policy, resolve_tool_name

    with pytest.raises(OptionsError, match=r"^unknown_tools must be 'keep' or 'reject', got 'maybe'$"):
        apply_policy([], ["a"], "maybe")  # type: ignore[arg-type]
    with pytest.raises(InputTypeError, match=r"^calls must be an iterable, got int$"):
        apply_policy(5, ["a"])  # type: ignore[arg-type]
    with pytest.raises(InputTypeError, match=r"^calls must be ToolCall objects, got int$"):
        apply_policy([5], ["a"])  # type: ignore[list-item]
    with pytest.raises(InputTypeError, match=r"^tool_names must be a list of strings, not a single string$"):
        resolve_tool_name("x", "abc")
    with pytest.raises(InputTypeError, match=r"^tool_names must be a list of strings, got int$"):
        resolve_tool_name("x", 5)  # type: ignore[arg-type]
    with pytest.raises(InputTypeError, match=r"^tool_names must hold strings, got int$"):
        resolve_tool_name("x", [5])  # type: ignore[list-item]


# ---- R9.2: a chat message envelope is not a call, whatever its key order ---------------------------


def test_envelope_starting_with_role_is_text() -> None:
    text = 'Msg {"role": "assistant", "tool_calls": [{"name": "ls", "input": {}}]} end.'
    assert parse(text, json_tool_calls=True).calls == ()


# ---- values: numeric references at the edges of the character range (D13) -------------------------


def test_numeric_references_at_the_edges_of_the_character_range() -> None:
    value = "&#x10FFFF;|&#1114111;|&#x110000;|&#xD7FF;|&#xD800;|&#xDFFF;|&#xE000;"
    block = BLOCK.replace(">1<", f">{value}<")
    got = parse(block).calls[0].input["a"]
    assert got == "\U0010ffff|\U0010ffff|&#x110000;|\ud7ff|&#xD800;|&#xDFFF;|\ue000"


def test_tool_schemas_maps_each_name_to_its_first_schema() -> None:
    from callsieve.schema import tool_schemas

    tools = [
        {"name": "a", "input_schema": {"type": "object"}},
        {"name": "b"},
        {"name": "a", "input_schema": {"x": 1}},
    ]
    assert tool_schemas(tools) == {"a": {"type": "object"}}


# ---- values: collecting parameters into the input object (R6.6) ------------------------------------


def test_invoke_input_turns_a_repeated_name_into_an_array_in_order() -> None:
    from callsieve.values import invoke_input

    params = [("a", 1), ("b", "x"), ("a", [2]), ("a", None), ("c", {"k": 1})]
    assert invoke_input(params) == {"a": [1, [2], None], "b": "x", "c": {"k": 1}}
    assert invoke_input([]) == {}
    # a value that is itself a list is one value, not the start of the array
    assert invoke_input([("a", [1, 2])]) == {"a": [1, 2]}


# ---- schema: nothing to normalize, nothing copied --------------------------------------------------


def test_a_value_the_schema_does_not_describe_is_returned_as_is() -> None:
    value = {"a": 1, "b": [2]}
    for schema in ({"additionalProperties": True}, {"type": "object"}, {"properties": None}):
        out = normalize_value(value, schema)
        assert out is value and out == {"a": 1, "b": [2]}


# ---- arguments: a literal opening is ruled out by its blanks as R6.2 trims them (D10) ---------------


def test_literal_opening_trims_only_javascript_whitespace() -> None:
    from callsieve.arguments import Tap, ValueTap

    # U+001C and U+0085 are whitespace to Python's str.strip but not to D10: "t\x1c" can never
    # be `true`, so it streams at once
    for s in ("t\x1c", "n\x85"):
        tap = ValueTap("x", None)
        assert (tap.text(s), tap.state) == (s, Tap.STREAM)
    # U+FEFF is D10 whitespace: "tr" + a trailing U+FEFF may still be `true` (trimmed), so it waits
    tap = ValueTap("x", None)
    assert (tap.text("tr\ufeff"), tap.state) == ("", Tap.DECIDE)
    assert (tap.text("ue"), tap.state) == ("tr\ufeffue", Tap.STREAM)


# ---- arguments: what the value tap lets out, step by step (R16, D31-D37) -------------------------
# Each step is one call: ("t", text), ("open", ""), ("c", CDATA content), ("close", "").


def _tap_steps(name: str, string: str | None, calls: list[tuple[str, str]]) -> tuple[list[str], str]:
    from tap_support import steps  # (the step driver of the tap's own tests)

    from callsieve.arguments import ValueTap

    tap = ValueTap(name, string)
    return steps(tap, *calls), tap.state.name


@pytest.mark.parametrize(
    ("string", "calls", "want", "state"),
    [
        # D10 blanks, not Python's: U+FEFF is blank text before a CDATA value (R6.1), U+001C is not
        (None, [("t", "\ufeff"), ("open", ""), ("c", "abc")], ["", "", "abc"], "STREAM"),
        (None, [("t", "\x1c")], ["\x1c"], "STREAM"),
        (None, [("t", "\ufeff1")], [""], "DECIDE"),  # a number may follow the trimmed blank
        (None, [("t", "\x1cx")], ["\x1cx"], "STREAM"),
        (None, [("t", "a\x1c")], ["a\x1c"], "STREAM"),
        (None, [("t", "a\ufeff"), ("t", "b")], ["a", "\ufeffb"], "STREAM"),  # a trailing blank waits
        # blank text after a CDATA joins it when more follows (R6.2), piece by piece
        (
            None,
            [("open", ""), ("c", "abc"), ("close", ""), ("t", " "), ("t", " "), ("t", "x")],
            ["", "abc", "", "", "", "  x"],
            "STREAM",
        ),
        (
            None,
            [
                ("open", ""),
                ("c", "a"),
                ("close", ""),
                ("t", "x"),
                ("open", ""),
                ("c", "b"),
                ("close", ""),
                ("t", " "),
                ("t", "y"),
            ],
            ["", "a", "", "x", "", "b", "", "", " y"],
            "STREAM",
        ),
        (
            None,
            [
                ("open", ""),
                ("c", "a"),
                ("close", ""),
                ("t", " "),
                ("t", " "),
                ("open", ""),
                ("c", "&amp;"),
                ("close", ""),
                ("t", " "),
                ("t", "z"),
            ],
            ["", "a", "", "", "", "", "  &amp;", "", "", " z"],
            "STREAM",
        ),
        # a partial entity cut by a CDATA is text as written (D13); the next text starts afresh
        (
            None,
            [("t", "a &"), ("open", ""), ("c", "z"), ("close", ""), ("t", "q")],
            ["a", " &", "z", "", "q"],
            "STREAM",
        ),
        # CDATA content is never decoded (R6.1, R6.2), not even when it decides the reading
        (None, [("open", ""), ("c", "&amp; x")], ["", "&amp; x"], "STREAM"),
        (None, [("open", ""), ("c", "t&amp;")], ["", "t&amp;"], "STREAM"),
        # an `&` further back than an entity can reach is no partial entity: nothing is held for it
        (None, [("t", "x & " + "b" * 20)], ["x & " + "b" * 20], "STREAM"),
        # an opening decided over several CDATA pieces is still never decoded
        (None, [("open", ""), ("c", "t"), ("c", "&amp;")], ["", "", "t&amp;"], "STREAM"),
        (None, [("open", ""), ("c", "1"), ("c", "x&amp;")], ["", "", "1x&amp;"], "STREAM"),
        # a literal opening followed by a character that only Python calls blank is ruled out
        (None, [("t", "t"), ("t", "\x1c")], ["", "t\x1c"], "STREAM"),
        # digits, a blank, a digit: no number has a blank inside (R6.3), the text streams
        (None, [("t", "1"), ("t", " 2")], ["", "1 2"], "STREAM"),
        # string="true" (D24): text after a CDATA inside the value is kept as it comes
        (
            "true",
            [("t", "abc"), ("open", ""), ("c", "d"), ("close", ""), ("t", "e")],
            ["abc", "", "d", "", "e"],
            "STREAM",
        ),
    ],
)
def test_value_tap_steps(
    string: str | None, calls: list[tuple[str, str]], want: list[str], state: str
) -> None:
    assert _tap_steps("x", string, calls) == (want, state)


# ---- values: entities of a long text are decoded block by block, none cut (D13) ------------------


def test_entities_of_a_long_text_are_decoded_across_block_boundaries() -> None:
    from callsieve.values import decode_entities

    b = 1 << 16
    for d in range(12):  # a ten-character reference starting d characters before a block ends
        s = "x" * (b - d) + "&#1114111;" + "&amp;" * 3 + "z" * (b + 5)
        assert decode_entities(s) == "x" * (b - d) + "\U0010ffff" + "&&&" + "z" * (b + 5), d
    assert decode_entities("&lt;b&gt;" * 20000) == "<b>" * 20000  # 180,000 characters
    tail = "y" * (b + 3) + "&amp"
    assert decode_entities(tail) == tail  # an `&` without its `;` stays as written
    assert decode_entities("&amp;" + "a" * b) == "&" + "a" * b


# ---- reasoning: misuse messages name the option and what was given (R15) -----------------------------


def test_reasoning_misuse_messages() -> None:
    from callsieve.reasoning import check_reasoning

    with pytest.raises(InputTypeError, match=r"^reasoning must be a string, got int$"):
        check_reasoning(5)
    with pytest.raises(OptionsError, match=r"^unknown reasoning mode 'maybe'; known: off, auto, open$"):
        check_reasoning("maybe")


# ---- values: one object between JS blanks is no object list (D9) ---------------------------------


def test_one_object_between_non_breaking_spaces_is_no_object_list() -> None:
    from callsieve.values import literal

    # not JSON (U+00A0 is no JSON blank), and one object is no list: the text as written
    assert literal("x", '\u00a0{"a":1}\u00a0') == '\u00a0{"a":1}\u00a0'
    assert literal("x", '\u00a0{"a":1},{"b":2}\u00a0') == [{"a": 1}, {"b": 2}]


def test_adjacent_cdata_sections_as_written_join() -> None:
    from callsieve.values import param_value

    # D24 with string="true": CDATA sections between blanks are unwrapped and joined
    assert param_value("x", [("cdata", "a"), ("cdata", "b")], "true") == "ab"
    assert param_value("x", [("cdata", "a"), ("text", " "), ("cdata", "b")], "true") == "ab"
