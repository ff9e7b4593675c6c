"""The compiled build: a wheel compiles the scanner and its helpers with mypyc (C extensions beside
the same .py files, which Python then imports first) whenever a C compiler works, and is pure
Python otherwise; python/callsieve_build.py (the build backend) decides, and `CALLSIEVE_COMPILE=0`
/ `=1` choose pure / compiled. The pure package is the reference, and what Pyodide runs.
Everything else is in pyproject.toml."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent / "python"))
import callsieve_build  # the build backend, beside the package

# The modules the per-chunk work runs in (blocks, harmony, mistral, pylist: the R17 formats' bodies; formats:
# the rows the scanner reads per block). Not sieve.py: its public methods check their argument
# types themselves (InputTypeError), which mypyc's own boundary checks would pre-empt.
COMPILED = (
    "scanner",
    "scanbase",
    "fences",
    "prose",
    "dsml",
    "sections",
    "strings",
    "values",
    "shell",
    "arguments",
    "reasoning",
    "blocks",
    "blocktap",
    "tagtaps",
    "jsontaps",
    "formats",
    "harmony",
    "mistral",
    "pylist",
)

ext_modules: list[Any] = []
# Only a wheel decides (the backend names the step; `python setup.py …` run by hand is a wheel
# too): the sdist, an editable install, the metadata and the requirements query stay pure.
if os.environ.get(callsieve_build.STEP, "wheel") == "wheel":
    compile_it, message = callsieve_build.decide()
    if compile_it:
        try:
            from mypyc.build import mypycify
        except ImportError:  # a build without isolation, in an environment without mypy
            if callsieve_build.mode() == "compiled":
                raise
            compile_it = False
            message = "callsieve: mypy (mypyc) is not installed; building pure Python"
    print(message, file=sys.stderr, flush=True)
    if compile_it:
        ext_modules = mypycify(
            [f"python/callsieve/{m}.py" for m in COMPILED], opt_level="3", group_name="callsieve"
        )

setup(ext_modules=ext_modules)
