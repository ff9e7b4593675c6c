"""PEP 517 build backend: setuptools's, deciding whether a wheel is the mypyc-compiled build.

A wheel is compiled whenever it can be: a C compiler that builds against this Python's headers
(checked by compiling a tiny file that includes Python.h). Without one the wheel is pure Python
(`py3-none-any`) and the build says so; it never fails for want of a compiler. The backend then
adds the pinned mypy (mypyc) to the wheel's build requirements and setup.py compiles `COMPILED`.

CALLSIEVE_COMPILE chooses instead of the check:
  unset, "" or "auto"  compiled if a compiler works, else pure (the default)
  "0"                  pure Python (debugging; the pure wheel a release publishes beside the others)
  "1"                  compiled, or the build fails (release builds: never a pure wheel by accident)

The sdist is the pure source, and an editable install (`pip install -e .`) is pure Python: it
imports the .py files as they are edited, which compiled modules beside them would shadow. The
metadata hooks never compile either (the metadata is the same).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools

MYPY = "mypy==2.4.1"  # = requirements-dev.txt's pin: the compiler the tests run against
MODES = {"": "auto", "auto": "auto", "0": "pure", "1": "compiled"}
# Which build hook is running, for setup.py (run by setuptools in this process): "wheel" decides,
# anything else ("sdist", "editable", "metadata", "requirements") builds nothing compiled.
STEP = "CALLSIEVE_BUILD_STEP"


class CompileRequiredError(RuntimeError):
    """CALLSIEVE_COMPILE=1 and the compiled build cannot be made here."""


def mode() -> str:
    """'auto', 'pure' or 'compiled', from CALLSIEVE_COMPILE."""
    value = os.environ.get("CALLSIEVE_COMPILE", "").strip().lower()
    if value not in MODES:
        raise ValueError(f"CALLSIEVE_COMPILE={value!r}: use 1 (compiled), 0 (pure) or leave it unset (auto)")
    return MODES[value]


def c_compiler_problem() -> str | None:
    """None if a C compiler builds against this Python's headers, else why not (one line)."""
    try:
        # (setuptools, imported above, provides distutils on Python >= 3.12)
        import sysconfig
        from distutils import ccompiler
        from distutils import sysconfig as dist_sysconfig

        with tempfile.TemporaryDirectory(prefix="callsieve-cc-") as tmp:
            src = Path(tmp) / "probe.c"
            src.write_text("#include <Python.h>\nint callsieve_probe(void) { return 0; }\n", encoding="ascii")
            compiler = ccompiler.new_compiler()
            dist_sysconfig.customize_compiler(compiler)  # CC, CFLAGS, … as the extension build uses
            include = [sysconfig.get_path("include"), sysconfig.get_path("platinclude")]
            compiler.compile([str(src)], output_dir=tmp, include_dirs=sorted(set(include)))
    except Exception as exc:  # no compiler, no headers, no MSVC: whatever it is, build pure
        return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    return None


def decide() -> tuple[bool, str]:
    """Whether this wheel build compiles, and the one line that says which build it makes."""
    how = mode()
    if how == "pure":
        return False, "callsieve: building pure Python (CALLSIEVE_COMPILE=0)"
    problem = c_compiler_problem()
    if problem is None:
        return True, "callsieve: building the mypyc-compiled extensions (a C compiler is available)"
    if how == "compiled":
        raise CompileRequiredError(f"callsieve: CALLSIEVE_COMPILE=1 but no working C compiler ({problem})")
    return False, (
        f"callsieve: no working C compiler ({problem}); building pure Python "
        "(the same code, slower; CALLSIEVE_COMPILE=1 makes this an error)"
    )


def _as(step: str, hook: Any, *args: Any) -> Any:
    previous = os.environ.get(STEP)
    os.environ[STEP] = step
    try:
        return hook(*args)
    finally:
        if previous is None:
            del os.environ[STEP]
        else:
            os.environ[STEP] = previous


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    # setuptools runs setup.py to answer; mypy is not installed yet, so setup.py must not compile.
    requires: list[str] = _as("requirements", _setuptools.get_requires_for_build_wheel, config_settings)
    if decide()[0]:
        requires.append(MYPY)
    return requires


def get_requires_for_build_sdist(config_settings: dict[str, Any] | None = None) -> list[str]:
    requires: list[str] = _as("requirements", _setuptools.get_requires_for_build_sdist, config_settings)
    return requires


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    requires: list[str] = _as("requirements", _setuptools.get_requires_for_build_editable, config_settings)
    return requires


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: dict[str, Any] | None = None
) -> str:
    result: str = _as(
        "metadata", _setuptools.prepare_metadata_for_build_wheel, metadata_directory, config_settings
    )
    return result


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: dict[str, Any] | None = None
) -> str:
    result: str = _as(
        "metadata", _setuptools.prepare_metadata_for_build_editable, metadata_directory, config_settings
    )
    return result


def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    result: str = _as("wheel", _setuptools.build_wheel, wheel_directory, config_settings, metadata_directory)
    return result


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    print("callsieve: editable install, pure Python (the sources as they are edited)", file=sys.stderr)
    result: str = _as(
        "editable", _setuptools.build_editable, wheel_directory, config_settings, metadata_directory
    )
    return result


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    result: str = _as("sdist", _setuptools.build_sdist, sdist_directory, config_settings)
    return result
