"""setup.py's list of compiled modules, read by test_compiled.py and test_packaging.py."""

from __future__ import annotations

import ast

from conftest import ROOT


def compiled_modules() -> tuple[str, ...]:
    """setup.py's COMPILED, read without running setup()."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMPILED":
            value = ast.literal_eval(node.value)
            assert isinstance(value, tuple)
            return tuple(str(v) for v in value)
    raise AssertionError("setup.py defines no COMPILED")
