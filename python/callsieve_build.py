"""PEP 517 build backend: setuptools's, plus mypy (for mypyc) when CALLSIEVE_COMPILE=1 asks for
the compiled build (setup.py). A plain build needs setuptools only, as before."""

from __future__ import annotations

import os
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401  (the hooks this backend passes through)
    build_editable,
    build_sdist,
    build_wheel,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

MYPY = "mypy==2.4.1"  # = requirements-dev.txt's pin: the compiler the tests run against


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    # setuptools runs setup.py to answer; mypy is not installed yet, so setup.py must not ask
    # for mypyc then (CALLSIEVE_REQUIREMENTS_ONLY, this hook's alone).
    os.environ["CALLSIEVE_REQUIREMENTS_ONLY"] = "1"
    try:
        requires: list[str] = _setuptools.get_requires_for_build_wheel(config_settings)
    finally:
        del os.environ["CALLSIEVE_REQUIREMENTS_ONLY"]
    if os.environ.get("CALLSIEVE_COMPILE", "") == "1":
        requires.append(MYPY)
    return requires
