"""Shared helpers for running fixtures: chunkings, comparison with the first differing path."""

from __future__ import annotations

import json
import random
import sys
from typing import Any

from conftest import ROOT

from callsieve import Sieve, coalesce, parse
from callsieve.jsontext import jsonable

sys.path.insert(0, str(ROOT / "parity"))
import docs
from run import first_difference

__all__ = ["first_difference"]


def random_chunks(text: str, seed: int) -> list[str]:
    """Seeded random 1-10 character splits, the same ones the parity runner uses."""
    return docs.random_chunks(text, random.Random(seed))


def chunkings(case: dict[str, Any]) -> dict[str, list[str]]:
    text = case["input"]
    ways = {"whole": [text] if text else [], "chars": list(text)}
    for seed in range(3):
        ways[f"random{seed}"] = random_chunks(text, seed)
    if "chunks" in case:
        ways["fixture"] = case["chunks"]
    return ways


def options(case: dict[str, Any]) -> dict[str, Any]:
    opts = case.get("options", {})
    return {
        "tool_names": opts.get("toolNames"),
        "tools": opts.get("tools"),
        "unknown_tools": opts.get("unknownTools", "keep"),
        "json_tool_calls": opts.get("jsonToolCalls", False),
        "formats": opts.get("formats"),
        "reasoning": opts.get("reasoning"),
        "stream_arguments": opts.get("streamArguments", False),
        "preset": opts.get("preset"),
    }


def run_parse(case: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = jsonable(parse(case["input"], **options(case)).to_dict())
    return result


def run_stream(case: dict[str, Any], chunks: list[str]) -> tuple[list[dict[str, Any]], str]:
    sieve = Sieve(**options(case))
    events = [e for c in chunks for e in sieve.feed(c)] + sieve.flush()
    raw = "".join(e.source for e in events)
    return [jsonable(e.to_dict()) for e in coalesce(events)], raw


def describe(path: str, want: Any, got: Any) -> str:
    def show(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False)[:600]

    return f"first difference at {path}\n  want: {show(want)}\n  got:  {show(got)}"
