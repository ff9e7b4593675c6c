"""Every fixture through parse() and through the Sieve under every chunking (R8.6)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import FIXTURES, all_fixture_files, fixture_files, load
from docs import kept
from fixture_support import chunkings, describe, first_difference, run_parse, run_stream

FILES = fixture_files()
IDS = [str(p.relative_to(FIXTURES)) for p in FILES]
ALL = all_fixture_files()
ALL_IDS = [str(p.relative_to(FIXTURES)) for p in ALL]
SCHEMA = json.loads((FIXTURES / "schema.json").read_text(encoding="utf-8"))


def expected_parse(case: dict[str, Any]) -> dict[str, Any]:
    """The fixture's `parse`, with the defaults, and `text`: the text of its coalesced events."""
    want = {"rejectedByPolicy": False, "rejectedToolNames": []}
    want.update(case["expected"]["parse"])
    want["text"] = "".join(e["text"] for e in case["expected"]["events"] if e["type"] == "text")
    return want


def test_there_are_enough_fixtures() -> None:
    assert len(FILES) >= 150


@pytest.mark.parametrize("path", ALL, ids=ALL_IDS)
def test_fixture_is_schema_valid(path: Path) -> None:
    case = load(path)
    jsonschema.Draft202012Validator(SCHEMA).validate(case)
    if "input" not in case:
        return
    if "chunks" in case:
        assert "".join(case["chunks"]) == case["input"], "chunks must join to input"
    calls = [c for e in case["expected"]["events"] if e["type"] == "tool_calls" for c in e["calls"]]
    assert calls == case["expected"]["parse"]["calls"], "event calls must equal parse calls"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_fixture_parse(path: Path) -> None:
    case = load(path)
    got = run_parse(case)
    want = expected_parse(case)
    d = first_difference(want, got)
    assert d is None, describe(d, want, got)


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_fixture_stream_every_chunking(path: Path) -> None:
    case = load(path)
    want = case["expected"]["events"]
    for name, chunks in chunkings(case).items():
        got, raw = run_stream(case, chunks)
        assert kept(raw, case["input"]), f"[{name}] text + raw does not reproduce the input (R8.2, D29)"
        d = first_difference(want, got)
        assert d is None, f"[{name}] chunks={json.dumps(chunks, ensure_ascii=False)[:800]}\n" + describe(
            d, want, got
        )
