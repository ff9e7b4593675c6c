#!/usr/bin/env python3
"""Fail unless CHANGELOG.md has a section for the version in pyproject.toml, with entries."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    m = re.search(rf"^## \[?{re.escape(version)}\]?.*?$(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m or not re.search(r"^- ", m.group(1), re.M):
        print(f"CHANGELOG.md has no entries for version {version}", file=sys.stderr)
        return 1
    print(f"CHANGELOG.md: version {version} documented")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
