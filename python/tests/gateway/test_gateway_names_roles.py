"""R10 name resolution and policy, R11 roles: unit tests beyond the fixtures."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import callsieve.names as names_module
from callsieve import ChatCompletionStreamRewriter, InputTypeError, OptionsError, Sieve, ToolCall
from callsieve.names import (
    DeclaredNames,
    PolicyResult,
    apply_policy,
    check_tool_names,
    declared_names,
    resolve_tool_name,
)
from callsieve.roles import ROLES, normalize_role
from callsieve.strings import JS_SPACE

NAMES = ["read_file", "write_file", "search_web"]


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("read_file", "read_file"),
        ("READ_FILE", "read_file"),
        (" read_file ", "read_file"),
        ("\u3000read_file\ufeff", "read_file"),  # D10 whitespace includes ideographic space and BOM
        ("mcp.search_web", "search_web"),
        ("tools.read_file", "read_file"),
        ("a.b.c.Write_File", "write_file"),
        ("search-web", "search_web"),
        ("Search Web", "search_web"),
        ("readFile", "read_file"),
        ("mcp.search-web", "search_web"),
        ("search_web.", "search_web"),  # nothing after the dot: no namespace level, loose matches
        ("search_web_v2", None),
        ("", None),
        (".", None),
        ("mcp.", None),
    ],
)
def test_resolve_tool_name_funnel(name: str, want: str | None) -> None:
    assert resolve_tool_name(name, NAMES) == want


def test_declared_spelling_is_returned_untrimmed() -> None:
    assert resolve_tool_name("read_file", [" read_file "]) == " read_file "


def test_stricter_level_wins_over_declaration_order() -> None:
    # loose match declared first, namespace match declared second: the namespace level wins
    assert resolve_tool_name("mcp.search_web", ["mcpsearchweb", "search_web"]) == "search_web"
    # case-insensitive beats namespace
    assert resolve_tool_name("mcp.x", ["x", "MCP.X"]) == "MCP.X"


def test_non_string_name_resolves_to_none() -> None:
    assert resolve_tool_name(None, NAMES) is None
    assert resolve_tool_name(3, NAMES) is None


def test_bad_tool_names_raise() -> None:
    with pytest.raises(InputTypeError):
        resolve_tool_name("a", "read_file")
    with pytest.raises(InputTypeError):
        resolve_tool_name("a", ["a", 3])  # type: ignore[list-item]


@given(st.text(max_size=20), st.lists(st.text(max_size=12), max_size=6))
def test_resolution_is_total_and_returns_a_declared_name(name: str, names: list[str]) -> None:
    got = resolve_tool_name(name, names)
    assert got is None or got in names
    if name in names:
        assert got == name
    if got is not None:  # resolving the resolved name again is exact and stable
        assert resolve_tool_name(got, names) == got


def _letters_digits(s: str) -> str:
    """The Unicode letters and digits of `s` (categories L*, N*), casefolded."""
    return "".join(c for c in s if unicodedata.category(c)[0] in "LN").casefold()


def _namespace_tail(name: str) -> str:
    t = name.strip(JS_SPACE)
    return t[t.rfind(".") + 1 :] if "." in t[:-1] else t


# Letters that fold, scripts without case, separators, symbols, lookalikes, whitespace.
_NAME_CHARS = st.sampled_from(list("aAbBfF_-.  ÄäİiıßſΣσςЖж読込削除消去１ＡａＦ－・★0\u3000\u2013"))
_NAMES = st.text(_NAME_CHARS, max_size=8)


@given(_NAMES, st.lists(_NAMES, max_size=5))
def test_no_name_resolves_to_a_tool_with_other_letters_or_digits(name: str, names: list[str]) -> None:
    got = resolve_tool_name(name, names)
    if got is not None:
        assert _letters_digits(got) in (_letters_digits(name), _letters_digits(_namespace_tail(name)))


@given(_NAMES, st.lists(_NAMES, max_size=5), st.randoms(use_true_random=False))
def test_resolution_does_not_depend_on_declaration_order(name: str, names: list[str], rnd: Any) -> None:
    """A tie is no match (D16), so no level can prefer the name declared first."""
    shuffled = list(names)
    rnd.shuffle(shuffled)
    assert resolve_tool_name(name, shuffled) == resolve_tool_name(name, names)


def test_ties_and_non_ascii_letters() -> None:
    assert resolve_tool_name("file-読込", ["file_削除", "file_読込"]) == "file_読込"
    assert resolve_tool_name("file_消去", ["file_削除", "file_読込"]) is None
    assert resolve_tool_name("READ_FILE", ["read_file", "Read_File"]) is None
    assert resolve_tool_name("READ_FILE", ["read_file", "read_file"]) == "read_file"
    assert resolve_tool_name("ЖУРНАЛ-чтение", ["журнал_чтение"]) == "журнал_чтение"
    assert resolve_tool_name("İd", ["i̇d"]) is None  # a fold that adds a character is not applied


def test_apply_policy_keep_and_reject() -> None:
    calls = [
        ToolCall("Read_File", {"p": 1}),
        ToolCall("fly", {}),
        ToolCall("fly", {"x": 1}),
        ToolCall("swim", {}),
    ]
    kept = apply_policy(calls, NAMES)
    assert [c.name for c in kept.calls] == ["read_file", "fly", "fly", "swim"]
    assert kept.calls[0].input is calls[0].input
    assert kept == PolicyResult(kept.calls, (), False)
    rej = apply_policy(calls, NAMES, "reject")
    assert [c.name for c in rej.calls] == ["read_file"]
    assert rej.rejected_tool_names == ("fly", "swim")
    assert rej.rejected_by_policy is False
    calls_out, names_out, all_rejected = apply_policy(calls[1:], NAMES, "reject")
    assert (calls_out, names_out, all_rejected) == ((), ("fly", "swim"), True)


def test_apply_policy_unchanged_objects_when_already_exact() -> None:
    c = ToolCall("read_file", {})
    assert apply_policy([c], NAMES).calls[0] is c


def test_apply_policy_without_names_is_identity() -> None:
    calls = (ToolCall("x", {}),)
    names: list[str] | tuple[str, ...] | None
    for names in (None, [], ()):
        assert apply_policy(calls, names, "reject") == PolicyResult(calls, (), False)


def test_apply_policy_misuse() -> None:
    with pytest.raises(OptionsError):
        apply_policy([], NAMES, "drop")  # type: ignore[arg-type]
    with pytest.raises(InputTypeError):
        apply_policy([{"name": "x", "input": {}}], NAMES)  # type: ignore[list-item]
    with pytest.raises(InputTypeError):
        apply_policy([], "read_file")


def test_policy_result_to_dict() -> None:
    r = apply_policy([ToolCall("fly", {})], NAMES, "reject")
    assert r.to_dict() == {"calls": [], "rejectedToolNames": ["fly"], "rejectedByPolicy": True}


# ---- issue 41 F1: resolution costs calls + declared characters, not calls x declared characters --

MANY = [f"tool_number_{i}_does_things" for i in range(200)]
MISSES = [f"other call {i}" for i in range(2000)]  # no namespace: trimmed, folded, loose: 3 x len


def test_declared_names_are_normalized_once_per_tool_set() -> None:
    names = check_tool_names(MANY)
    assert isinstance(names, DeclaredNames) and names == tuple(MANY)
    assert check_tool_names(names) is names and declared_names(names, None) is names
    r = apply_policy([ToolCall(n, {}) for n in MISSES], names, "reject")
    assert r.rejected_by_policy and len(r.rejected_tool_names) == len(MISSES)
    declared = 3 * sum(map(len, MANY))  # the tables, built once
    assert names.work == declared + 3 * sum(map(len, MISSES))
    # every level but exact: trim and fold the name (29 + 29), its tail (25), loose name, loose tail
    assert names.resolve("mcp.Tool-Number-7_does_things") == "tool_number_7_does_things"
    assert names.work == declared + 3 * sum(map(len, MISSES)) + 29 + 29 + 25 + 29 + 25
    assert names.resolve("tool_number_7_does_things") == "tool_number_7_does_things"  # exact: no work
    assert names.work == declared + 3 * sum(map(len, MISSES)) + 137


def test_loose_keys_are_computed_once_per_declared_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """The count of loose keys, which the code before the fix computed per call x declared name
    (400,000 here: 2,000 unmatched calls took 1.6 s against 200 tools)."""
    seen: list[str] = []
    loose = names_module._loose

    def counted(s: str) -> str:
        seen.append(s)
        return loose(s)

    monkeypatch.setattr(names_module, "_loose", counted)
    r = apply_policy([ToolCall(n, {}) for n in MISSES], MANY, "reject")
    assert len(r.rejected_tool_names) == len(MISSES)
    assert len(seen) == len(MANY) + len(MISSES)


def test_sieves_and_rewriters_resolve_against_one_table_per_tool_set() -> None:
    tools = [{"type": "function", "function": {"name": n, "parameters": {}}} for n in MANY]
    text = "<tool_calls>" + "".join(f'<invoke name="{n}"></invoke>' for n in MISSES) + "</tool_calls>"
    for stream_arguments in (False, True):
        s = Sieve(tools=tools, unknown_tools="reject", stream_arguments=stream_arguments)
        for i in range(0, len(text), 97):
            s.feed(text[i : i + 97])
        s.flush()
        assert len(s.rejected_tool_names) == len(MISSES)
        resolved = 2 if stream_arguments else 1  # (announced, then the block: R16)
        assert s.tool_names.work == 3 * sum(map(len, MANY)) + resolved * 3 * sum(map(len, MISSES))
    rw = ChatCompletionStreamRewriter(tools=tools, unknown_tools="reject", stream_arguments=True)
    opts = rw._opts
    assert opts.sieve().tool_names is opts.tool_names  # the choices of one request share the tables


@pytest.mark.parametrize(
    ("role", "want"),
    [
        ("developer", "system"),
        (" Developer ", "system"),
        ("SYSTEM", "system"),
        ("user", "user"),
        ("Assistant\n", "assistant"),
        ("tool", "tool"),
        ("function", "tool"),
        ("FUNCTION", "tool"),
        ("model", "user"),
        ("", "user"),
        (None, "user"),
        (0, "user"),
        (1.5, "user"),
        (b"system", "user"),
        (["system"], "user"),
        ("ｓｙｓｔｅｍ", "user"),  # fullwidth: not folded
        ("sуstem", "user"),  # Cyrillic у
    ],
)
def test_normalize_role(role: object, want: str) -> None:
    assert normalize_role(role) == want


@given(st.one_of(st.text(), st.none(), st.integers(), st.floats(), st.booleans(), st.binary()))
def test_normalize_role_is_total_and_controlled(role: object) -> None:
    assert normalize_role(role) in ROLES


@pytest.mark.parametrize("bad", [{"a": 1}, 5, "ls", ["ls", 1]])
def test_declared_names_must_be_a_list_of_strings(bad: object) -> None:
    with pytest.raises(InputTypeError):
        resolve_tool_name("A", bad)  # type: ignore[arg-type]


def test_driver_reads_big_integers_as_javascript_does() -> None:
    import io

    from callsieve.driver import serve

    out = io.StringIO()
    tools = [{"name": "t", "parameters": {"type": "object", "properties": {"n": {"type": "string"}}}}]
    req = {"id": 1, "op": "call", "function": "normalizeInput", "args": ["t", {"n": 0}, tools]}
    line = json.dumps(req).replace('"n": 0', '"n": 18446744073709551616')
    serve(io.StringIO(line + "\n"), out)
    assert json.loads(out.getvalue())["result"] == {"n": "18446744073709552000"}
