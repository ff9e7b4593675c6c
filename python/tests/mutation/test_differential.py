"""scripts/mutation/differential.py, the check behind the behavioral reasons of listed survivors:
it tells a mutant that changes the output from one that does not, in both languages."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "mutation" / "differential.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args, "--docs", "4"], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(
    ("lang", "line", "old"),
    [("--python", "622", "if s:"), ("--node", "685", "if (s) this._text.push(s);")],
)
def test_differences_are_found_and_printed(lang: str, line: str, old: str) -> None:
    if lang == "--node" and shutil.which("node") is None:
        pytest.skip("node is not on PATH")
    new = "if False:" if lang == "--python" else "if (false) this._text.push(s);"
    r = run(lang, "scanbase", line, old, new)
    assert r.returncode == 1, r.stderr
    assert "difference: options" in r.stdout
    assert "runs," in r.stdout.splitlines()[-1]


@pytest.mark.parametrize(
    ("lang", "line", "old", "new"),
    [
        ("--python", "424", "more = False", "more = None"),
        ("--node", "484", "let more = false;", "let more = null;"),
    ],
)
def test_an_equivalent_mutant_gives_no_difference(lang: str, line: str, old: str, new: str) -> None:
    if lang == "--node" and shutil.which("node") is None:
        pytest.skip("node is not on PATH")
    r = run(lang, "scanbase", line, old, new)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().endswith("0 differences")


def test_a_line_without_the_text_is_refused() -> None:
    r = run("--python", "scanbase", "1", "no such text", "x")
    assert r.returncode != 0
    assert "holds 0 copies" in r.stderr
