"""The processes that serve the gateway (`callsieve serve`, and each worker of `--workers N`): their
logging (`configure_logging`, `JSONLogFormatter`), the GC settled once the app is up
(`settle_gc`), and a worker's app from the settings its parent passed in the environment
(`app_from_environ`)."""

from __future__ import annotations

import gc
import json
import logging
import os
import time
from typing import Any, Final

from starlette.applications import Starlette

from .app import create_app
from .config import LOG_FORMATS, LOG_LEVELS, GatewayConfig

WORKER_CONFIG_ENV: Final = "CALLSIEVE_WORKER_CONFIG"  # `callsieve serve --workers N` to its workers
WORKER_LOG_LEVEL_ENV: Final = "CALLSIEVE_WORKER_LOG_LEVEL"
WORKER_LOG_FORMAT_ENV: Final = "CALLSIEVE_WORKER_LOG_FORMAT"
YOUNG_GC_THRESHOLD: Final = 10_000  # settle_gc: allocations before a young collection, at least


class JSONLogFormatter(logging.Formatter):
    """`--log-format json`: one JSON object per line (`time`, `level`, `logger`, `message`, and
    the request's fields for a request line: method, path, status, duration, request_id, ...)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            out.update(fields)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


JSONLogFormatter.converter = time.gmtime


def configure_logging(level: str = "info", fmt: str = "text") -> None:
    """The logging of `callsieve serve` (and each of its workers): `level` one of LOG_LEVELS,
    `fmt` `text` or `json` (JSONLogFormatter), on the root logger, to stderr."""
    if level not in LOG_LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LOG_LEVELS)}, got {level!r}")
    if fmt not in LOG_FORMATS:
        raise ValueError(f"log format must be one of {', '.join(LOG_FORMATS)}, got {fmt!r}")
    handler = logging.StreamHandler()
    handler.setFormatter(
        JSONLogFormatter()
        if fmt == "json"
        else logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s")
    )
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    root.addHandler(handler)
    root.setLevel(level.upper())
    logging.getLogger("httpx").setLevel(logging.WARNING)  # callsieve.server logs each request once
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        lg = logging.getLogger(name)
        lg.handlers.clear()
        lg.propagate = True
        lg.setLevel(level.upper())


def settle_gc() -> None:
    """For a process that serves the gateway (`callsieve serve` and its workers), once started:
    what exists then (modules, the app) moves to the GC's permanent generation, so the full
    collections that the many short-lived objects of concurrent streams still set off look at
    the streams only (measured under W11: a full pass 29-46 ms of CPU -> 10 ms). callsieve's own
    objects free themselves by reference counting (python/tests/core/test_cycles.py), so the young
    generation may grow to YOUNG_GC_THRESHOLD allocations before a collection (at CPython's 700,
    one every few hundred events; W11, 13 s: 445 young, 41 middle and 3 full collections, 120 ms
    of pauses -> 33, 3 and 0, 36 ms); the older generations keep their thresholds. Not done by
    create_app: a process the gateway is mounted in decides its own GC."""
    gc.collect()
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_GC_THRESHOLD), middle, old)


def app_from_environ() -> Starlette:
    """The app of one worker of `callsieve serve --workers N`: its `GatewayConfig` comes as JSON in
    `$CALLSIEVE_WORKER_CONFIG` (uvicorn spawns the workers; they inherit the environment)."""
    configure_logging(
        os.environ.get(WORKER_LOG_LEVEL_ENV, "info"), os.environ.get(WORKER_LOG_FORMAT_ENV, "text")
    )
    app = create_app(GatewayConfig(**json.loads(os.environ[WORKER_CONFIG_ENV])))
    settle_gc()
    return app


__all__ = [
    "WORKER_CONFIG_ENV",
    "WORKER_LOG_FORMAT_ENV",
    "WORKER_LOG_LEVEL_ENV",
    "YOUNG_GC_THRESHOLD",
    "JSONLogFormatter",
    "app_from_environ",
    "configure_logging",
    "settle_gc",
]
