"""The optional compiled build: `CALLSIEVE_COMPILE=1` compiles the scanner and its helpers with
mypyc (C extensions beside the same .py files, which Python then imports first). Without it the
package is pure Python, the reference, and what Pyodide runs. Everything else is in pyproject.toml."""

from __future__ import annotations

import os

from setuptools import setup

# The modules the per-chunk work runs in. Not sieve.py: its public methods check their argument
# types themselves (InputTypeError), which mypyc's own boundary checks would pre-empt.
COMPILED = ("scanner", "sections", "strings", "values", "shell", "arguments", "reasoning")

ext_modules = []
# (CALLSIEVE_REQUIREMENTS_ONLY: the build backend is only asking what to install, mypy first)
if os.environ.get("CALLSIEVE_COMPILE", "") == "1" and "CALLSIEVE_REQUIREMENTS_ONLY" not in os.environ:
    from mypyc.build import mypycify

    ext_modules = mypycify(
        [f"python/callsieve/{m}.py" for m in COMPILED], opt_level="3", group_name="callsieve"
    )

setup(ext_modules=ext_modules)
