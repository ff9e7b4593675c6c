"""Fixtures the gateway server tests share (test_server.py, test_server_conventions.py): one
upstream per module and the gateways started against it, each once per (kind, upstream, flags).
Imported when first used, so that the folder's other tests run without the server extras."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


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
