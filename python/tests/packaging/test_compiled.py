"""The mypyc-compiled build (setup.py), the default wherever a C compiler works (the build backend,
python/callsieve_build.py, decides): which build a run tests, and the build's own wiring.
scripts/test runs the whole suite a second time against the compiled wheel (scripts/build/build_compiled)
with CALLSIEVE_EXPECT_COMPILED=1, so a run can never test the pure package while it claims to test
the compiled one, or the reverse. test_packaging.py builds the wheels themselves."""

from __future__ import annotations

import importlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

import pytest
from compiled_support import compiled_modules

import callsieve

ROOT = Path(__file__).resolve().parents[3]
EXPECT = os.environ.get("CALLSIEVE_EXPECT_COMPILED", "") == "1"


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


def build_backend() -> ModuleType:
    """python/callsieve_build.py, the in-tree PEP 517 backend."""
    sys.path.insert(0, str(ROOT / "python"))
    try:
        return importlib.import_module("callsieve_build")
    finally:
        sys.path.remove(str(ROOT / "python"))


def test_backend_asks_for_mypy_when_it_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = build_backend()
    pin = re.search(r"^mypy==\S+", (ROOT / "requirements-dev.txt").read_text(encoding="utf-8"), re.M)
    assert pin and pin.group(0) == backend.MYPY  # the compiler the tests run against
    monkeypatch.setattr(backend, "c_compiler_problem", lambda: None)  # a compiler works
    monkeypatch.delenv("CALLSIEVE_COMPILE", raising=False)
    assert backend.MYPY in backend.get_requires_for_build_wheel()  # the default: compiled
    for value, mypy in (("auto", True), ("1", True), ("0", False)):
        monkeypatch.setenv("CALLSIEVE_COMPILE", value)
        assert (backend.MYPY in backend.get_requires_for_build_wheel()) is mypy, value
    monkeypatch.setenv("CALLSIEVE_COMPILE", "yes")
    with pytest.raises(ValueError, match="CALLSIEVE_COMPILE"):
        backend.get_requires_for_build_wheel()


def test_backend_builds_pure_without_a_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = build_backend()
    monkeypatch.setattr(backend, "c_compiler_problem", lambda: "CompileError: no cc")
    monkeypatch.delenv("CALLSIEVE_COMPILE", raising=False)
    assert backend.MYPY not in backend.get_requires_for_build_wheel()
    compile_it, message = backend.decide()
    assert not compile_it
    assert message.startswith("callsieve: no working C compiler (CompileError: no cc); building pure Python")
    monkeypatch.setenv("CALLSIEVE_COMPILE", "1")  # a release build: never pure by accident
    with pytest.raises(backend.CompileRequiredError, match="CALLSIEVE_COMPILE=1 but no working C compiler"):
        backend.get_requires_for_build_wheel()


@pytest.mark.skipif(os.name == "nt", reason="MSVC is not chosen through CC")
def test_the_compiler_check_compiles_against_python_h(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = build_backend()
    cc = shlex.split(str(sysconfig.get_config_var("CC") or "cc"))[0]
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc}) on this machine")
    assert backend.c_compiler_problem() is None
    monkeypatch.setenv("CC", str(ROOT / "no-such-compiler"))
    problem = backend.c_compiler_problem()
    assert problem is not None and "no-such-compiler" in problem and "\n" not in problem


def test_version_says_which_build() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "callsieve", "--version"], capture_output=True, text=True, check=True
    ).stdout
    build = "mypyc-compiled" if EXPECT else "pure Python"
    assert out.strip() == f"callsieve {callsieve.__version__} ({build})"
