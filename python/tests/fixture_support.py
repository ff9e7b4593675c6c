"""Shared helpers for running fixtures: chunkings, comparison with the first differing path."""

from __future__ import annotations

import json
import random
from typing import Any

from toolsieve import Sieve, coalesce, parse
from toolsieve.driver import jsonable


def random_chunks(text: str, seed: int, lo: int = 1, hi: int = 10) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    i = 0
    while i < len(text):
        n = rng.randint(lo, hi)
        out.append(text[i : i + n])
        i += n
    return out


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
    return {"tool_names": opts.get("toolNames"), "json_tool_calls": opts.get("jsonToolCalls", False)}


def run_parse(case: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = jsonable(parse(case["input"], **options(case)).to_dict())
    return result


def run_stream(case: dict[str, Any], chunks: list[str]) -> tuple[list[dict[str, Any]], str]:
    sieve = Sieve(**options(case))
    events = [e for c in chunks for e in sieve.feed(c)] + sieve.flush()
    raw = "".join(e.text if e.type == "text" else e.raw for e in events)
    return [jsonable(e.to_dict()) for e in coalesce(events)], raw


def first_difference(want: Any, got: Any, path: str = "$") -> str | None:
    """The JSON path of the first difference between two JSON values, or None."""
    if isinstance(want, dict) and isinstance(got, dict):
        for k in list(want) + [k for k in got if k not in want]:
            if k not in got or k not in want:
                return f"{path}.{k}"
            d = first_difference(want[k], got[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(want, list) and isinstance(got, list):
        for i, (a, b) in enumerate(zip(want, got, strict=False)):
            d = first_difference(a, b, f"{path}[{i}]")
            if d:
                return d
        return None if len(want) == len(got) else f"{path}.length"
    if type(want) is not type(got) or want != got:
        return path
    return None


def describe(path: str, want: Any, got: Any) -> str:
    def show(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False)[:600]

    return f"first difference at {path}\n  want: {show(want)}\n  got:  {show(got)}"
