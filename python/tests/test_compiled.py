"""The optional mypyc-compiled build (setup.py, `CALLSIEVE_COMPILE=1`): which build a run tests,
and the build's own wiring. scripts/test runs the whole suite a second time against the compiled
wheel (scripts/build_compiled) with CALLSIEVE_EXPECT_COMPILED=1, so a run can never test the pure
package while it claims to test the compiled one, or the reverse."""

from __future__ import annotations

import ast
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import callsieve

ROOT = Path(__file__).resolve().parents[2]
EXPECT = os.environ.get("CALLSIEVE_EXPECT_COMPILED", "") == "1"


def compiled_modules() -> tuple[str, ...]:
    """setup.py's COMPILED, read without running setup()."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMPILED":
            value = ast.literal_eval(node.value)
            assert isinstance(value, tuple)
            return tuple(str(v) for v in value)
    raise AssertionError("setup.py defines no COMPILED")


def test_the_build_under_test_is_the_one_asked_for() -> None:
    assert callsieve.compiled is EXPECT
    for name in compiled_modules():
        path = importlib.import_module(f"callsieve.{name}").__file__ or ""
        assert path.endswith(".py") is not EXPECT, path


def test_the_modules_not_compiled_stay_python() -> None:
    # sieve.py raises InputTypeError for a chunk of the wrong type; compiled, mypyc's boundary
    # check would raise a bare TypeError first.
    assert "sieve" not in compiled_modules()
    assert (callsieve.sieve.__file__ or "").endswith(".py")
    with pytest.raises(callsieve.InputTypeError):
        callsieve.Sieve().feed(b"bytes")  # type: ignore[arg-type]


def test_every_compiled_module_exists() -> None:
    # (setup.py names them by path; mypy --strict over python/ in scripts/test types them)
    for name in compiled_modules():
        assert (ROOT / "python" / "callsieve" / f"{name}.py").exists(), name


def test_backend_asks_for_mypy_only_for_the_compiled_build(monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(ROOT / "python"))
    try:
        backend = importlib.import_module("callsieve_build")
    finally:
        sys.path.remove(str(ROOT / "python"))
    pin = re.search(r"^mypy==\S+", (ROOT / "requirements-dev.txt").read_text(encoding="utf-8"), re.M)
    assert pin and pin.group(0) == backend.MYPY  # the compiler the tests run against
    monkeypatch.delenv("CALLSIEVE_COMPILE", raising=False)
    assert backend.MYPY not in backend.get_requires_for_build_wheel()
    monkeypatch.setenv("CALLSIEVE_COMPILE", "1")
    assert backend.MYPY in backend.get_requires_for_build_wheel()


def test_version_says_which_build() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "callsieve", "--version"], capture_output=True, text=True, check=True
    ).stdout
    build = "mypyc-compiled" if EXPECT else "pure Python"
    assert out.strip() == f"callsieve {callsieve.__version__} ({build})"
