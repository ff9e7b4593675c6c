"""An OpenAI-compatible gateway server (ASGI, Starlette) in front of an upstream that writes DSML
tool-call markup into `content`: `callsieve serve --upstream URL`, or `create_app(...)` to mount
in an existing ASGI application. Needs the `server` extra (`pip install 'callsieve[server]'`:
Starlette, uvicorn, httpx, httptools, prometheus_client); the rest of callsieve has no dependencies.

Endpoints:

- `POST /v1/chat/completions`, streaming and not. `passthrough` mode (default): the request body
  goes upstream byte for byte; `prompt` mode: through `prepare_prompt_request` (tools become DSML
  instructions, tool history becomes text). In both modes the answer's DSML (and every format the
  sieve knows) becomes native `tool_calls`, with the request's `tools` as declared names and
  schemas (R10, R12), under the request's `tool_choice` and `parallel_tool_calls`
  (`response_options`: a value OpenAI does not accept is a 400). `tool_choice: "none"` goes
  through the rewriter too, in both modes: its markup is released as the model's text, and its
  reasoning comes out as `reasoning_content` as in any other answer.
- Presets (R19): `preset_map` chooses the preset of a request from its `model` id, by shell-style
  patterns (`fnmatch`, case-insensitive, the first that matches), else `preset`, else none (the
  library's defaults). The preset gives the formats and the reasoning mode; an explicit `formats`
  or `reasoning` is used instead (D52).
- `GET /v1/models`: proxied (the upstream's `server` and `date` headers are not relayed).
  `GET /health` (and `/healthz`): `{"status": "ok"}`. `GET /ready`: 200 once the upstream answers
  `GET /models` below 500, else 503. `GET /metrics`: Prometheus text.

Clients: with `api_keys`, the API paths need `Authorization: Bearer KEY` with one of them (a 401
otherwise). Upstream: `upstream_api_key` is sent as `Authorization: Bearer KEY`; without it the
client's `Authorization` header goes upstream only with `forward_client_key`. Upstream errors
keep their status and body. A connection that cannot be made is a 502, an upstream that does not
answer within `timeout` a 504. Every error the gateway answers itself (400, 401, 403, 404, 405,
413, 500, 502, 503, 504) is OpenAI's error JSON (`{"error": {"message", "type", "param",
"code"}}`). A body longer than `max_body_bytes` is a 413 as soon as that is known (its
Content-Length, or while it streams in). `X-Request-ID` is taken or made, echoed, sent upstream and
logged; `cors_origins` answers browser preflights. docs/GATEWAY.md lists it all for users.

Streams: the upstream body is read as it comes and each event is rewritten and written at once.
SSE comments from upstream (`: keep-alive`) and empty `data:` keep-alives reach the client as
comments; when nothing was written for `keepalive` seconds (a block held back, a silent upstream)
the gateway writes `: keep-alive` itself. An upstream silent for `timeout` seconds ends the stream
visibly: an error event (`{"error": {..., "type": "upstream_timeout"}}`) and no `[DONE]`. A stream
cut off upstream ends without `[DONE]` too (what the sieve held is flushed first). A client that
disconnects cancels the upstream request at once (the watcher sees `http.disconnect`, the
upstream response is closed), also before the answer starts (issue 41 F2). Backpressure: one
event at a time between the upstream read and the client write, so a slow client slows the
upstream read; what a stream holds is bounded by the sieve's `max_capture_chars` (8 Mi characters
by default), except with `--stream-arguments`: once a call is announced the limit stops applying
(D37) and the call's value is kept whole for its final event, so a stream holds at most the
arguments of the call in progress, however long the model writes them (documented, not
bounded: set the upstream's `max_tokens` to bound it).

Logging: one line per request on the `callsieve.server` logger (method, path, status, duration,
stream, blocks, calls, rejected names, repaired blocks, capture-limit releases, how a stream
ended, the preset, request id; the same as fields of the record, `extra={"fields": ...}`, which
`JSONLogFormatter` writes); `/metrics` counts the same.

The server's modules, each named after what it does: `config` (GatewayConfig, presets by model id),
`app` (create_app: the ASGI app and the edge every request goes through), `gateway` (the routes and
their upstream requests), `relay` (the streamed answer), `metrics` (counters and what a request
did), `serve` (the processes of `callsieve serve`: logging, GC, workers). This module is their
public face: import from here.
"""

from __future__ import annotations

try:  # the server extra: a clear message when it is missing
    import httpx  # noqa: F401
    import prometheus_client  # noqa: F401
    import starlette  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"callsieve.server needs the server extra: pip install 'callsieve[server]' ({exc})"
    ) from exc

from .app import create_app
from .config import DEFAULT_MAX_BODY_BYTES, LOG_FORMATS, LOG_LEVELS, MODES, POLICIES, GatewayConfig
from .serve import WORKER_CONFIG_ENV as WORKER_CONFIG_ENV
from .serve import WORKER_LOG_FORMAT_ENV as WORKER_LOG_FORMAT_ENV
from .serve import WORKER_LOG_LEVEL_ENV as WORKER_LOG_LEVEL_ENV
from .serve import YOUNG_GC_THRESHOLD, JSONLogFormatter, app_from_environ, configure_logging, settle_gc

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "LOG_FORMATS",
    "LOG_LEVELS",
    "MODES",
    "POLICIES",
    "YOUNG_GC_THRESHOLD",
    "GatewayConfig",
    "JSONLogFormatter",
    "app_from_environ",
    "configure_logging",
    "create_app",
    "settle_gc",
]
