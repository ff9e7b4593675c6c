"""Function fixtures (`{"call": {"function", "args"}, "expected": {"result" | "error"}}`, rules
R10-R13): run in-process through the driver's `call` dispatch (the one mapping from the camelCase
fixture functions to the Python API) and through the JSONL driver itself."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from conftest import FIXTURES, load
from fixture_support import describe, first_difference

import callsieve
from callsieve import driver
from callsieve.driver import call_function
from callsieve.jsontext import jsonable

FOLDERS = ("r10-names", "r11-roles", "r12-schema", "r13-openai", "r13-request")
FILES = sorted(p for p in FIXTURES.rglob("*.json") if p.name != "schema.json" and "call" in load(p))
IDS = [str(p.relative_to(FIXTURES)) for p in FILES]


def test_there_are_enough_function_fixtures() -> None:
    for folder in FOLDERS:
        assert len([p for p in FILES if p.parent.name == folder]) >= 8, folder
    rules = {load(p)["rule"].split(".")[0] for p in FILES}
    assert {"R10", "R11", "R12", "R13"} <= rules


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_function_fixture(path: Path) -> None:
    case = load(path)
    fn, args = case["call"]["function"], case["call"]["args"]
    want = case["expected"]
    if "error" in want:
        # the fixture names one of callsieve's typed errors (and no other exception passes)
        with pytest.raises(getattr(callsieve, want["error"])) as info:
            call_function(fn, args)
        assert type(info.value).__name__ == want["error"]
        return
    # The input must not be modified by the call.
    before = json.dumps(args, sort_keys=True)
    got = jsonable(call_function(fn, args))
    assert json.dumps(args, sort_keys=True) == before, "the call modified its arguments"
    d = first_difference(want["result"], got)
    assert d is None, describe(d, want["result"], got)


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_function_fixture_through_the_driver(path: Path) -> None:
    case = load(path)
    req = {"id": "x", "op": "call", **case["call"]}
    out = StringIO()
    driver.serve(StringIO(json.dumps(req, ensure_ascii=False) + "\n"), out)
    resp = json.loads(out.getvalue())
    if "error" in case["expected"]:
        assert resp.get("error", {}).get("type") == case["expected"]["error"], resp
        return
    assert "result" in resp, resp
    d = first_difference(case["expected"]["result"], resp["result"])
    assert d is None, describe(d, case["expected"]["result"], resp["result"])
