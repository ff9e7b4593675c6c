"""Node's long mutation runs go a slice at a time (scripts/mutation/mutate.py --lines), each slice's
result kept in parity/mutation-slices/: the kept slices add up to one run of their module's
current source, a slice run again replaces the one it overlaps, and a changed source starts afresh.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPTS = ROOT / "scripts" / "mutation"


def _mutate() -> ModuleType:
    sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location("mutation_mutate", SCRIPTS / "mutate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation_mutate"] = module  # (its dataclasses look themselves up there)
    spec.loader.exec_module(module)
    return module


mutate = _mutate()


def _score(total: int, detected: int, survivors: int) -> object:
    s = mutate.ModuleScore(total=total, detected=detected)
    s.survivors = [{"module": "names", "line": 1, "text": "x", "change": f"c{i}"} for i in range(survivors)]
    return s


def test_slices_add_up_and_a_slice_run_again_replaces_its_overlap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mutate, "SLICES", tmp_path)
    mutate.keep_slice("names", [(1, 50)], _score(10, 9, 1), 1.0)
    mutate.keep_slice("names", [(51, 90), (95, 99)], _score(20, 18, 2), 2.0)
    mutate.keep_slice("names", [(40, 60)], _score(7, 7, 0), 1.0)  # overlaps both: they go
    mutate.keep_slice("names", [(1, 39)], _score(8, 8, 0), 1.0)
    scores, spans = mutate.score_slices("names")
    assert spans == [(1, 39), (40, 60)]
    s = scores["names"]
    assert (s.total, s.detected, len(s.survivors)) == (15, 15, 0)
    kept = json.loads((tmp_path / "node-names.json").read_text(encoding="utf-8"))
    assert kept["source"] == mutate.source_digest("names")
    assert [x["lines"] for x in kept["slices"]] == [[[1, 39]], [[40, 60]]]


def test_slices_of_another_source_are_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mutate, "SLICES", tmp_path)
    mutate.keep_slice("names", [(1, 50)], _score(10, 9, 1), 1.0)
    data = json.loads((tmp_path / "node-names.json").read_text(encoding="utf-8"))
    data["source"] = "0" * 16
    (tmp_path / "node-names.json").write_text(json.dumps(data), encoding="utf-8")
    scores, spans = mutate.score_slices("names")
    assert spans == [] and scores["names"].total == 0


def test_compress_names_runs_of_lines() -> None:
    assert mutate.compress([1, 2, 3, 7, 8, 10]) == "1-3, 7-8, 10-10"
    assert mutate.compress([]) == ""
