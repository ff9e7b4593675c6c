from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

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


# The gateway server tests' shared fixtures (gateway/test_server.py, gateway/test_server_conventions.py):
# one upstream per module and the gateways started against it, each once per (kind, upstream,
# flags). They import the server helpers when first used, so other tests need no server extras.
@pytest.fixture(scope="module")
def upstream() -> Iterator[Any]:
    from upstream import UpstreamServer

    with UpstreamServer() as up:
        yield up


@pytest.fixture(scope="module")
def gateways(upstream: Any) -> Iterator[Any]:
    from server_support import Gateway

    started: dict[tuple[str, str, tuple[str, ...]], Gateway] = {}

    def get(kind: str, *args: str, upstream_url: str | None = None) -> Gateway:
        key = (kind, upstream_url or upstream.url, args)
        if key not in started:
            started[key] = Gateway(kind, key[1], args)
        return started[key]

    yield get
    for g in started.values():
        g.close()
