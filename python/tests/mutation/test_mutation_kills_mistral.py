"""Tests that tell mistral.py (Mistral's `[TOOL_CALLS]`, R17.7, D56) apart from its mutants that
survived the mutation run: the head between the marker and the JSON (its blanks, its brackets, its
256 characters, `[CALL_ID]` and `[ARGS]`), the JSON's strings, the capture limit counted from the
JSON's first character, streamed calls that break or that the final reading does not confirm, what
each feed releases, and the scanner's work. Node's twin:
parity/node/test/mutation/mutation-kills-mistral.test.js."""

from __future__ import annotations

from typing import Any

from sieve_support import released, run, scanner_work

from callsieve import Sieve, coalesce
from callsieve.events import ToolCallsEvent

M: dict[str, Any] = {"preset": "mistral"}
S: dict[str, Any] = {"preset": "mistral", "stream_arguments": True}


def events(chunks: list[str], **opts: Any) -> list[dict[str, Any]]:
    """The coalesced events of a run, as dicts, a block's raw and repairs put in."""
    got = run(chunks, **opts)
    assert "".join(e.source for e in got) == "".join(chunks)  # R8.2: nothing lost
    out = []
    for e in coalesce(got):
        d = e.to_dict()
        if isinstance(e, ToolCallsEvent):
            d["raw"] = e.raw
            d["repaired"] = list(e.repaired)
        out.append(d)
    return out


def text(s: str, note: str | None = None) -> dict[str, Any]:
    return {"type": "text", "text": s} if note is None else {"type": "text", "text": s, "note": note}


def block(raw: str, calls: list[dict[str, Any]], *bad: dict[str, Any], d37: bool = False) -> dict[str, Any]:
    d: dict[str, Any] = {"type": "tool_calls", "calls": calls, "format": "mistral"}
    if bad:
        d["malformed"] = list(bad)
    d["raw"] = raw
    d["repaired"] = ["D37"] if d37 else []
    return d


def call(name: str, args: dict[str, Any], call_id: str | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {"name": name, "input": args}
    if call_id is not None:
        d["id"] = call_id
    return d


def ways(doc: str) -> list[list[str]]:
    """The document fed whole, one character at a time, and in every two-chunk split."""
    return [[doc], list(doc)] + [[doc[:k], doc[k:]] for k in range(1, len(doc))]


def saw(chunks: list[str], **opts: Any) -> bool:
    s = Sieve(**opts)
    for c in chunks:
        s.feed(c)
    s.flush()
    return s.saw_tool_call_syntax


# ---- the v11 form and its head ------------------------------------------------------------------

V11 = 'see [TOOL_CALLS]get_weather[CALL_ID]c1[ARGS] \t{"city": "Oslo"} done'
V11_RAW = '[TOOL_CALLS]get_weather[CALL_ID]c1[ARGS] \t{"city": "Oslo"}'
V11_CALL = call("get_weather", {"city": "Oslo"}, "c1")


def test_a_v11_call_with_an_id_and_blanks_before_its_object() -> None:
    """R17.7, D56: NAME[CALL_ID]ID[ARGS] blanks {json} is one call wherever the chunks end."""
    want = [text("see "), block(V11_RAW, [V11_CALL]), text(" done")]
    for chunks in ways(V11):
        assert events(chunks, **M) == want, chunks[:2]
        assert saw(chunks, **M)


def test_a_streamed_v11_call_that_its_reading_confirms_is_no_repair() -> None:
    """R16: a v11 call announced at its `{` and confirmed at its end is a plain event (no D37)."""
    start = {"type": "tool_call_start", "index": 0, "name": "get_weather", "id": "c1"}
    args = {"type": "tool_call_arguments", "index": 0, "delta": '{"city":"Oslo"}'}
    for chunks in ways(V11):
        got = events(chunks, **S)
        deltas = "".join(e["delta"] for e in got if e["type"] == "tool_call_arguments")
        assert deltas == args["delta"], chunks[:2]
        got = [e for e in got if e["type"] != "tool_call_arguments"]
        assert got == [text("see "), start, block(V11_RAW, [V11_CALL]), text(" done")], chunks[:2]


def test_the_work_of_a_mistral_block() -> None:
    """The scanner's work: each character fed once, and a block's JSON once more when it ends."""
    assert scanner_work([V11], **M) == len(V11) + len('{"city": "Oslo"}')
    doc = '[TOOL_CALLS] [{"name": "f", "arguments": {}}] x'
    assert scanner_work([doc], **M) == len(doc) + len('[{"name": "f", "arguments": {}}]')
    # a cut `[AR` after the marker: the JSON form's value (cut, so text), read once more
    assert scanner_work(["[TOOL_CALLS][AR"], **M) == len("[TOOL_CALLS][AR") + 3
    assert scanner_work(["[TOOL_CALLS] [AR"], **S) == len("[TOOL_CALLS] [AR") + 3


def test_a_bracket_that_is_no_tag_after_a_name_stays_in_the_name() -> None:
    """R17.7: past a name's first character a `[` that is no tag is part of the head, not an array."""
    doc = '[TOOL_CALLS]get[x] [ARGS]{"a": 1}'
    bad = {"raw": 'get[x] [ARGS]{"a": 1}', "reason": "invalid name", "name": "get[x]"}
    for chunks in ways(doc):
        assert events(chunks, **M) == [block(doc, [], bad)], chunks[:2]


def test_tabs_and_spaces_before_the_array_keep_the_head_blank() -> None:
    """R17.7: blanks (a tab too) between the marker and the JSON form's array are its head."""
    for lead in ("\t", " \t "):
        raw = "[TOOL_CALLS]" + lead + '[{"name": "f", "arguments": {"x": 1}}]'
        want = [block(raw, [call("f", {"x": 1})]), text(" ok")]
        for chunks in ways(raw + " ok"):
            assert events(chunks, **M) == want, chunks[:2]


def test_an_object_after_a_name_without_args_is_text() -> None:
    """R17.7: `NAME{...}` without `[ARGS]` is no call; the head waits for its end, then is text."""
    doc = '[TOOL_CALLS]get{"a": 1} ok'
    for chunks in ways(doc):
        assert events(chunks, **M) == [text(doc)], chunks[:2]
        assert not saw(chunks, **M)
    assert released([doc], **M) == ["", doc]


def test_a_character_that_is_no_blank_after_args_is_text() -> None:
    """D56: after `[ARGS]` only blanks may come before the object; anything else fails the head."""
    for doc in ("[TOOL_CALLS]get[ARGS]X{} ok", "[TOOL_CALLS]get[ARGS] x{} ok"):
        for chunks in ways(doc):
            assert events(chunks, **M) == [text(doc)], chunks[:2]
        assert released([doc], **M) == [doc, ""]


def test_names_and_ids_read_around_call_id_and_args() -> None:
    """R17.7: a head that starts with a tag has no name; the id runs from the first `[CALL_ID]`."""
    cases = [
        ("[TOOL_CALLS][ARGS]{}", [], {"raw": "[ARGS]{}", "reason": "invalid name"}),
        ("[TOOL_CALLS][CALL_ID]x[ARGS]{}", [], {"raw": "[CALL_ID]x[ARGS]{}", "reason": "invalid name"}),
        ("[TOOL_CALLS]get[CALL_ID]a[CALL_ID]b[ARGS]{}", [call("get", {}, "a[CALL_ID]b")], None),
    ]
    for raw, calls, bad in cases:
        want = [block(raw, calls, *([bad] if bad else [])), text(" ok")]
        for chunks in ways(raw + " ok"):
            assert events(chunks, **M) == want, chunks[:2]


def test_the_head_holds_256_characters_with_the_blanks_after_args() -> None:
    """D56: name, `[ARGS]` and the blanks after it are at most 256 characters; one more is text."""
    for name_len in (3, 200, 240, 245):
        room = 256 - name_len - len("[ARGS]")
        for blanks, fits in ((room, True), (room + 1, False)):
            head = "g" * name_len + "[ARGS]" + " " * blanks
            doc = "[TOOL_CALLS]" + head + "{} ok"
            want = [block(doc[:-3], [call("g" * name_len, {})]), text(" ok")] if fits else [text(doc)]
            for chunks in ([doc], list(doc), [doc[: 12 + name_len + 3], doc[12 + name_len + 3 :]]):
                assert events(chunks, **M) == want, (name_len, blanks, len(chunks))


def test_blanks_after_args_count_from_the_head_not_from_the_chunk() -> None:
    """D56: where the marker stands in the chunk does not change how many blanks fit after `[ARGS]`."""
    for before in ("", "x" * 120, "x" * 250):
        doc = before + "[TOOL_CALLS]get[ARGS]   {} ok"
        want = [text(before)] if before else []
        want += [block("[TOOL_CALLS]get[ARGS]   {}", [call("get", {})]), text(" ok")]
        for chunks in ([doc], [before, doc[len(before) :]] if before else [doc]):
            assert events(chunks, **M) == want


def test_a_bracket_that_is_no_tag_is_decided_in_its_feed() -> None:
    """R8.3: a `[` that can start no `[ARGS]` / `[CALL_ID]` does not hold the head back."""
    assert released(["[TOOL_CALLS]get[x]\n", "more"], **M) == ["[TOOL_CALLS]get[x]\n", "more", ""]
    assert released(["[TOOL_CALLS]get[x", "\nmore"], **M) == ["", "[TOOL_CALLS]get[x\nmore", ""]
    assert released(["[TOOL_CALLS]get[ARGx", "\n"], **M) == ["", "[TOOL_CALLS]get[ARGx\n", ""]
    # a `[` that may still start a tag waits
    assert released(["[TOOL_CALLS]get[ARG", "S]{}"], **M) == ["", "[TOOL_CALLS]get[ARGS]{}", ""]


# ---- the JSON ------------------------------------------------------------------------------------


def test_an_escaped_quote_first_in_the_first_string() -> None:
    """R17.7: a backslash as a JSON string's first character escapes the quote after it."""
    raw = '[TOOL_CALLS]get[ARGS]{"\\"}": 1}'
    want = [block(raw, [call("get", {'"}': 1})]), text(" ok")]
    for chunks in ways(raw + " ok"):
        assert events(chunks, **M) == want, chunks[:2]


def test_an_empty_array_is_text_released_with_what_follows() -> None:
    """D46: `[TOOL_CALLS][]` is text, and the text after it goes out in the same feed."""
    doc = "[TOOL_CALLS][] ok"
    assert released([doc], **M) == [doc, ""]
    assert released(["[TOOL_CALLS][", "] ok"], **M) == ["", "[TOOL_CALLS][] ok", ""]
    assert events([doc], **M) == [text(doc)]


# ---- the capture limit ---------------------------------------------------------------------------


def test_a_json_value_of_exactly_the_capture_limit_is_read() -> None:
    """D43: the limit counts the JSON value from its first character; one character more is text."""
    v11 = '[TOOL_CALLS]get[ARGS]{"a": 1}'
    arr = '[TOOL_CALLS][{"name": "f", "arguments": {}}]'
    for raw, size, calls in ((v11, 8, [call("get", {"a": 1})]), (arr, 32, [call("f", {})])):
        for chunks in ways(raw + " ok"):
            assert events(chunks, **M, max_capture_chars=size) == [block(raw, calls), text(" ok")]
            got = events(chunks, **M, max_capture_chars=size - 1)
            assert "".join(e["text"] for e in got) == raw + " ok", chunks[:2]
            assert any(e.get("note") == "capture_limit" for e in got), chunks[:2]


def test_a_block_past_the_capture_limit_is_text_with_a_note_as_it_goes() -> None:
    """D43: past the limit the block so far is text noted capture_limit, the rest plain text."""
    doc = '[TOOL_CALLS]get[ARGS]{"city": "Oslo"} ok'
    opts = {**M, "max_capture_chars": 5}
    # (fed whole, the block is read to its end before the limit applies; by characters, to `{"city`)
    for chunks, so_far in (([doc], '{"city": "Oslo"}'), (list(doc), '{"city')):
        got = [e.to_dict() for e in run(chunks, **opts)]
        noted = [e for e in got if "note" in e]
        assert noted == [text("[TOOL_CALLS]get[ARGS]" + so_far, "capture_limit")], len(chunks)
        assert "".join(e["text"] for e in got) == doc
        assert not saw(chunks, **opts)
    assert released([doc], **opts) == [doc, ""]
    assert released([doc[:30], doc[30:]], **opts) == [doc[:30], doc[30:], ""]
    assert released([doc[:34], doc[34:]], **opts) == [doc[:34], doc[34:], ""]


# ---- streamed calls ------------------------------------------------------------------------------


def test_a_repeated_key_ends_a_streamed_call_and_the_rest_is_text() -> None:
    """R16.3, D37: a repeated key keeps the announced call as read; the rest of the JSON is text."""
    doc = '[TOOL_CALLS]get[ARGS]{"a": 1, "a": 2} ok'
    kept = block('[TOOL_CALLS]get[ARGS]{"a": 1, ', [call("get", {"a": 1})], d37=True)
    for chunks in ways(doc):
        got = [e for e in events(chunks, **S) if e["type"] not in ("tool_call_start", "tool_call_arguments")]
        assert got == [kept, text('"a": 2} ok')], chunks[:2]
    assert released([doc], **S) == [doc, ""]


def test_a_streamed_call_nested_past_the_depth_limit_is_kept_as_announced() -> None:
    """R16.3, D21: arguments one level too deep for the final reading keep the announced call whole."""
    deep = '{"a": ' + "[" * 200 + "]" * 200 + "}"
    raw = "[TOOL_CALLS]get[ARGS]" + deep
    doc = raw + " ok"
    nested: Any = []
    for _ in range(199):
        nested = [nested]
    want = [block(raw, [call("get", {"a": nested})], d37=True), text(" ok")]
    for chunks in ([doc], list(doc), [doc[:30], doc[30:]], [raw, " ok"]):
        got = [e for e in events(chunks, **S) if e["type"] not in ("tool_call_start", "tool_call_arguments")]
        assert got == want, len(chunks)
    assert released([doc], **S)[-1] == ""
    # without streaming the same block is reported: its arguments are too deep to be JSON (D21)
    assert events([doc], **M)[0]["malformed"][0]["reason"] == "arguments are not a JSON object"
