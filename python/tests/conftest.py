from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
sys.path.insert(0, str(ROOT / "parity"))  # docs.py: the generator and the no-loss check (kept)


def all_fixture_files() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*.json") if p.name != "schema.json")


def fixture_files() -> list[Path]:
    """Sieve fixtures (an `input` run through parse and the stream); function fixtures have `call`."""
    return [p for p in all_fixture_files() if "input" in load(p)]


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data
