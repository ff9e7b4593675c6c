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
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import gc
import hashlib
import hmac
import json
import logging
import os
import re
import time
import uuid
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

try:
    import httpx
    from prometheus_client import CONTENT_TYPE_LATEST as PROM_CONTENT_TYPE
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route
    from starlette.types import ASGIApp, Message, Receive, Scope, Send
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"callsieve.server needs the server extra: pip install 'callsieve[server]' ({exc})"
    ) from exc

from . import __version__
from .errors import CallsieveError, OpenAIFormatError, OptionsError, SSEFormatError
from .formats import PRESETS, check_preset
from .jsontext import json_text
from .names import UnknownToolsPolicy
from .openai import ChatCompletionStreamRewriter, rewrite_chat_completion
from .reasoning import ReasoningMode, check_reasoning
from .request import prepare_prompt_request, response_options
from .sieve import check_formats
from .sse import DONE, SSEComment, SSEEvent, SSEParser, sse_event
from .strings import json_trim
from .upstream import Body as UpstreamBody
from .upstream import Transport as UpstreamTransport

log = logging.getLogger("callsieve.server")

MODES: Final = ("passthrough", "prompt")
POLICIES: Final = ("keep", "reject")
_KEEPALIVE: Final = b": keep-alive\n\n"
_DONE_BYTES: Final = b"data: [DONE]\n\n"
_USER_AGENT: Final = f"callsieve/{__version__}"
WORKER_CONFIG_ENV: Final = "CALLSIEVE_WORKER_CONFIG"  # `callsieve serve --workers N` to its workers
WORKER_LOG_LEVEL_ENV: Final = "CALLSIEVE_WORKER_LOG_LEVEL"
WORKER_LOG_FORMAT_ENV: Final = "CALLSIEVE_WORKER_LOG_FORMAT"
YOUNG_GC_THRESHOLD: Final = 10_000  # settle_gc: allocations before a young collection, at least
DEFAULT_MAX_BODY_BYTES: Final = 16 * 1024 * 1024
LOG_FORMATS: Final = ("text", "json")
LOG_LEVELS: Final = ("debug", "info", "warning", "error")
# not relayed from an upstream answer: hop-by-hop, or the gateway's own (server, date, request id)
_HOP_HEADERS: Final = frozenset(
    {
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "content-encoding",
        "server",
        "date",
        "x-request-id",
    }
)
# the OpenAI API's paths: only these need a client key (health, readiness and metrics do not)
_API_PATHS: Final = frozenset({"/v1/chat/completions", "/chat/completions", "/v1/models", "/models"})
_REQUEST_ID: Final = "callsieve.request_id"  # the scope key of a request's id
_MAX_REQUEST_ID: Final = 200
_MAX_INDEX: Final = 2**53 - 1


@dataclass
class GatewayConfig:
    """The settings of one gateway (the flags of `callsieve serve`)."""

    upstream: str
    api_keys: list[str] | None = None  # keys clients must present (`Authorization: Bearer KEY`)
    upstream_api_key: str | None = None  # the key sent upstream (None: no Authorization upstream)
    forward_client_key: bool = False  # without upstream_api_key: send the client's Authorization up
    mode: str = "passthrough"
    unknown_tools: UnknownToolsPolicy = "keep"
    timeout: float = 600.0  # upstream silence (seconds) that ends a request
    connect_timeout: float = 10.0
    keepalive: float = 15.0  # client-side silence (seconds) after which `: keep-alive` is written
    formats: list[str] | None = None  # R14.9: the markup formats recognized (None: the preset's, else all)
    reasoning: ReasoningMode | None = None  # R15: where reasoning may be (None: the preset's, else auto)
    preset: str | None = None  # R19: the preset of a request that preset_map does not choose one for
    preset_map: list[tuple[str, str]] | None = None  # (pattern, preset): by the request's model id
    stream_arguments: bool = False  # R16.5: stream each call's arguments as they arrive
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES  # a longer request body is a 413
    cors_origins: list[str] | None = None  # origins browsers may call from ("*": any)

    def __post_init__(self) -> None:
        try:
            check_formats(self.formats)
            if self.reasoning is not None:
                check_reasoning(self.reasoning)
            check_preset(self.preset)
            if self.preset_map is not None:
                self.preset_map = [_preset_entry(e) for e in self.preset_map]
        except CallsieveError as exc:
            raise ValueError(str(exc)) from None
        if not isinstance(self.stream_arguments, bool):
            raise ValueError(f"stream_arguments must be a bool, got {self.stream_arguments!r}")
        if not isinstance(self.upstream, str) or not self.upstream.startswith(("http://", "https://")):
            raise ValueError(f"upstream must be an http(s) URL, got {self.upstream!r}")
        self.upstream = self.upstream.rstrip("/")
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.unknown_tools not in POLICIES:
            raise ValueError(
                f"unknown_tools must be one of {', '.join(POLICIES)}, got {self.unknown_tools!r}"
            )
        if self.api_keys is not None:
            if isinstance(self.api_keys, str) or not all(
                isinstance(k, str) and k.strip() == k and k for k in self.api_keys
            ):
                raise ValueError("api_keys must be a list of non-empty keys without surrounding blanks")
            self.api_keys = list(self.api_keys)
        if self.upstream_api_key is not None and not isinstance(self.upstream_api_key, str):
            raise ValueError(f"upstream_api_key must be a string, got {self.upstream_api_key!r}")
        if not isinstance(self.forward_client_key, bool):
            raise ValueError(f"forward_client_key must be a bool, got {self.forward_client_key!r}")
        m = self.max_body_bytes
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise ValueError(f"max_body_bytes must be a positive whole number, got {m!r}")
        if self.cors_origins is not None:
            if isinstance(self.cors_origins, str) or not all(
                isinstance(o, str) and o for o in self.cors_origins
            ):
                raise ValueError(f"cors_origins must be a list of origins, got {self.cors_origins!r}")
            self.cors_origins = [o.rstrip("/") for o in self.cors_origins]
        for name in ("timeout", "connect_timeout", "keepalive"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not v > 0:
                raise ValueError(f"{name} must be a positive number of seconds, got {v!r}")


@dataclass
class _Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        r = self.registry
        self.requests = Counter("callsieve_requests", "Requests answered", ["endpoint", "status"], registry=r)
        self.duration = Histogram(
            "callsieve_request_duration_seconds", "Time from request to the end of the answer",
            ["endpoint"], registry=r,
        )  # fmt: skip
        self.blocks = Counter("callsieve_blocks", "Tool-call blocks recognized", registry=r)
        self.calls = Counter("callsieve_tool_calls", "Tool calls emitted", registry=r)
        self.rejected = Counter(
            "callsieve_rejected_calls", "Calls dropped by unknown_tools=reject", registry=r
        )
        self.capture = Counter(
            "callsieve_capture_limit_releases", "Blocks released as text at max_capture_chars", registry=r
        )
        self.repaired = Counter(
            "callsieve_repaired_blocks", "Blocks the sieve had to repair (R3, D8, D26, D37)", registry=r
        )
        self.upstream_errors = Counter("callsieve_upstream_errors", "Upstream failures", ["kind"], registry=r)
        self.disconnects = Counter("callsieve_client_disconnects", "Clients that left mid-stream", registry=r)
        self.active = Gauge("callsieve_active_streams", "Streams in progress", registry=r)
        self.presets = Counter(
            "callsieve_preset_requests",
            "Chat requests by the preset chosen (-: none)",
            ["preset"],
            registry=r,
        )


def _preset_entry(entry: Any) -> tuple[str, str]:
    """One entry of `preset_map`: a (pattern, preset) pair (a list of two from JSON too), checked."""
    if isinstance(entry, str) or not isinstance(entry, tuple | list) or len(entry) != 2:
        raise OptionsError(f"preset_map entries are (pattern, preset) pairs, got {entry!r}")
    pattern, name = entry
    if not isinstance(pattern, str) or not pattern:
        raise OptionsError(f"a preset_map pattern must be a non-empty string, got {pattern!r}")
    check_preset(name)
    return (pattern, name)


def _preset_pattern(pattern: str) -> re.Pattern[str]:
    """A `preset_map` pattern as `fnmatch` reads it (`*`, `?`, `[seq]`, `[!seq]`), without regard
    to case: matched with `.fullmatch(model.lower())`. fnmatch's regexes match in linear time."""
    return re.compile(fnmatch.translate(pattern.lower()))


def _choose_preset(
    model: Any, patterns: list[tuple[re.Pattern[str], str]], default: str | None
) -> str | None:
    """The preset of a request (R19.2): that of the first pattern its `model` id matches, else
    `default` (a `model` that is not a string matches no pattern)."""
    if isinstance(model, str):
        key = model.lower()
        for pattern, name in patterns:
            if pattern.fullmatch(key):
                return name
    return default


def _error(status: int, message: str, type_: str, code: str | None = None) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": type_, "param": None, "code": code}}, status)


def _relayed(up: httpx.Response) -> dict[str, str]:
    """The upstream answer's headers a client gets: not the hop-by-hop ones, nor `server` and
    `date` (the gateway writes its own); the upstream's `x-request-id` as `x-upstream-request-id`."""
    out = {k: v for k, v in up.headers.items() if k.lower() not in _HOP_HEADERS}
    if "x-request-id" in up.headers:
        out["x-upstream-request-id"] = up.headers["x-request-id"]
    return out


def _check_indexes(value: Any) -> None:
    """Raises OpenAIFormatError when an upstream answer's `choices[i].index` is not a whole number
    from 0 to 2**53 - 1 (the Node gateway's rule too: `1e300` is an error in both)."""
    choices = value.get("choices") if isinstance(value, dict) else None
    if not isinstance(choices, list):
        return
    for i, c in enumerate(choices):
        if isinstance(c, dict) and "index" in c:
            x = c["index"]
            if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= _MAX_INDEX:
                raise OpenAIFormatError(
                    f"choices[{i}].index must be a whole number from 0 to {_MAX_INDEX}, got {json.dumps(x)}"
                )


def _too_large(limit: int) -> JSONResponse:
    return _error(
        413, f"the request body is longer than {limit} bytes", "invalid_request_error", "request_too_large"
    )


def _media_type(value: str) -> str:
    """`Text/Event-Stream; charset=UTF-8` -> `text/event-stream` (media types ignore case, RFC 9110)."""
    return value.split(";", 1)[0].strip().lower()


async def _disconnected(receive: Receive) -> None:
    """Returns when the client has gone (called once the request body was read)."""
    while True:
        msg = await receive()
        if msg["type"] == "http.disconnect":
            return


def _error_event(message: str, type_: str) -> bytes:
    body = {"error": {"message": message, "type": type_, "param": None, "code": None}}
    return b"data: " + json_text(body).encode("utf-8") + b"\n\n"


@dataclass
class _Outcome:
    """What one request did, for the log line and the metrics."""

    stream: bool = False
    stats: dict[str, int] = field(default_factory=dict)
    rejected: list[str] = field(default_factory=list)
    end: str = ""
    preset: str | None = None  # the preset chosen for the request (R19.2)


class _Gateway:
    def __init__(self, config: GatewayConfig, client: httpx.AsyncClient | None, registry: Any) -> None:
        self.config = config
        self._own_client = client is None
        timeout = httpx.Timeout(config.timeout, connect=config.connect_timeout)
        # Without a client given, requests go to our transport directly: httpx's client layers
        # (auth, redirects, a cookie jar that would carry one caller's upstream cookies to the
        # next) were a tenth of the cost of a request.
        self._transport = UpstreamTransport() if client is None else None
        self.client = client or httpx.AsyncClient(timeout=timeout, transport=self._transport, trust_env=False)
        self._timeout = timeout.as_dict()
        self.metrics = _Metrics(registry if registry is not None else CollectorRegistry())
        self._patterns = [(_preset_pattern(p), name) for p, name in config.preset_map or ()]
        self._options: dict[str | None, dict[str, Any]] = {}  # preset -> the rewriters' options

    def _sieve_options(self, preset: str | None) -> dict[str, Any]:
        """The rewriters' `formats`, `reasoning` and `preset`: the preset's, unless the config
        gives them (D52); without a preset, the config's or the library's defaults."""
        got = self._options.get(preset)
        if got is None:
            p = PRESETS[preset] if preset is not None else None
            cfg = self.config
            formats = cfg.formats if cfg.formats is not None or p is None else list(p.formats)
            reasoning = cfg.reasoning or (p.reasoning if p is not None else "auto")
            # (the rewriters take the preset's reasoning markers from it: <seed:think>, [THINK])
            got = self._options[preset] = {"formats": formats, "reasoning": reasoning, "preset": preset}
        return got

    async def aclose(self) -> None:
        if self._own_client:
            await self.client.aclose()

    def _headers(self, request: Request) -> dict[str, str]:
        h = {"accept": request.headers.get("accept", "application/json")}
        if self.config.upstream_api_key:
            h["authorization"] = f"Bearer {self.config.upstream_api_key}"
        elif self.config.forward_client_key and "authorization" in request.headers:
            h["authorization"] = request.headers["authorization"]
        for k in ("openai-organization", "openai-project"):
            if k in request.headers:
                h[k] = request.headers[k]
        rid = request.scope.get(_REQUEST_ID)
        if rid:
            h["x-request-id"] = rid
        return h

    def _finish(self, endpoint: str, request: Request, status: int, t0: float, out: _Outcome) -> None:
        request.scope["callsieve.logged"] = True
        dt = time.perf_counter() - t0
        m = self.metrics
        m.requests.labels(endpoint, str(status)).inc()
        m.duration.labels(endpoint).observe(dt)
        st = out.stats
        if endpoint == "chat":
            m.presets.labels(out.preset or "-").inc()
        if st:
            m.blocks.inc(st.get("blocks", 0))
            m.calls.inc(st.get("calls", 0))
            m.rejected.inc(st.get("rejected_calls", 0))
            m.capture.inc(st.get("capture_limit_releases", 0))
            m.repaired.inc(st.get("repaired_blocks", 0))
        rid = request.scope.get(_REQUEST_ID, "-")
        fields: dict[str, Any] = {
            "method": request.method,
            "path": request.url.path,
            "status": status,
            "duration": round(dt, 6),
            "stream": out.stream,
            "blocks": st.get("blocks", 0),
            "calls": st.get("calls", 0),
            "rejected": list(out.rejected),
            "repaired": st.get("repaired_blocks", 0),
            "capture_limit": st.get("capture_limit_releases", 0),
            "end": out.end or None,
            "preset": out.preset,
            "request_id": rid,
        }
        log.info(
            "%s %s %d %.3fs stream=%s blocks=%d calls=%d rejected=%s repaired=%d capture_limit=%d%s"
            " preset=%s request_id=%s",
            request.method,
            request.url.path,
            status,
            dt,
            "yes" if out.stream else "no",
            fields["blocks"],
            fields["calls"],
            ",".join(out.rejected) or "-",
            fields["repaired"],
            fields["capture_limit"],
            f" end={out.end}" if out.end else "",
            out.preset or "-",
            rid,
            extra={"fields": fields},
        )

    def _request(
        self,
        method: str,
        path: str,
        headers: dict[str, str],
        content: bytes | None = None,
        timeout: httpx.Timeout | None = None,
    ) -> httpx.Request:
        url = self.config.upstream + path
        if self._transport is None:
            if timeout is not None:
                return self.client.build_request(
                    method, url, content=content, headers=headers, timeout=timeout
                )
            return self.client.build_request(method, url, content=content, headers=headers)
        headers["user-agent"] = _USER_AGENT
        ext = {"timeout": self._timeout if timeout is None else timeout.as_dict()}
        return httpx.Request(method, url, headers=headers, content=content, extensions=ext)

    async def _send_upstream(self, req: httpx.Request) -> httpx.Response | JSONResponse:
        try:
            if self._transport is None:
                return await self.client.send(req, stream=True)
            up = await self._transport.handle_async_request(req)
            up.request = req
            return up
        except httpx.TimeoutException as exc:
            self.metrics.upstream_errors.labels("timeout").inc()
            return _error(504, f"upstream timed out: {type(exc).__name__}", "upstream_timeout")
        except httpx.HTTPError as exc:
            self.metrics.upstream_errors.labels("connect").inc()
            return _error(502, f"upstream unreachable: {type(exc).__name__}: {exc}", "upstream_error")

    async def _plain(self, up: httpx.Response) -> tuple[bytes, JSONResponse | None]:
        """The whole upstream body; a 504 response when the upstream went silent while sending it."""
        try:
            return await up.aread(), None
        except httpx.TimeoutException:
            self.metrics.upstream_errors.labels("timeout").inc()
            return b"", _error(504, "upstream timed out while sending its answer", "upstream_timeout")
        except httpx.HTTPError as exc:
            self.metrics.upstream_errors.labels("read").inc()
            return b"", _error(502, f"upstream answer cut off: {type(exc).__name__}", "upstream_error")
        finally:
            await up.aclose()

    @staticmethod
    def _passed(up: httpx.Response, body: bytes) -> Response:
        return Response(body, up.status_code, headers=_relayed(up))

    async def models(self, request: Request) -> Response:
        t0 = time.perf_counter()
        req = self._request("GET", "/models", self._headers(request))
        up = await self._send_upstream(req)
        if isinstance(up, JSONResponse):
            self._finish("models", request, up.status_code, t0, _Outcome())
            return up
        body, err = await self._plain(up)
        resp = err or self._passed(up, body)
        self._finish("models", request, resp.status_code, t0, _Outcome())
        return resp

    async def ready(self, request: Request) -> Response:
        """200 once the upstream answers `GET /models` (any status below 500: a 401 says it is
        there even when only the clients' keys open it), else 503."""
        cfg = self.config
        headers = {"accept": "application/json"}
        if cfg.upstream_api_key:
            headers["authorization"] = f"Bearer {cfg.upstream_api_key}"
        t = httpx.Timeout(min(cfg.timeout, 5.0), connect=min(cfg.connect_timeout, 5.0))
        up = await self._send_upstream(self._request("GET", "/models", headers, timeout=t))
        if isinstance(up, JSONResponse):
            return _error(503, "the upstream does not answer", "upstream_error", "upstream_not_ready")
        _, err = await self._plain(up)
        if err is not None or up.status_code >= 500:
            return _error(
                503,
                f"the upstream answers /models with {up.status_code}",
                "upstream_error",
                "upstream_not_ready",
            )
        return JSONResponse({"status": "ready"})

    async def _body(self, request: Request) -> bytes | JSONResponse:
        """The request body, or a 413 as soon as it is longer than max_body_bytes (from its
        Content-Length, or while it streams in: what came is not kept past the limit)."""
        limit = self.config.max_body_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            return _too_large(limit)
        parts: list[bytes] = []
        n = 0
        async for piece in request.stream():
            n += len(piece)
            if n > limit:
                return _too_large(limit)
            parts.append(piece)
        return b"".join(parts)

    async def chat(self, request: Request) -> Response:
        t0 = time.perf_counter()
        out = _Outcome()
        raw = await self._body(request)
        if isinstance(raw, JSONResponse):
            self._finish("chat", request, raw.status_code, t0, out)
            return raw
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            self._finish("chat", request, 400, t0, out)
            return _error(400, "the request body is not valid UTF-8", "invalid_request_error")
        try:
            body = json.loads(text)
        except (ValueError, RecursionError):
            resp: Response = _error(400, "the request body is not JSON", "invalid_request_error")
            self._finish("chat", request, 400, t0, out)
            return resp
        if not isinstance(body, dict):
            self._finish("chat", request, 400, t0, out)
            return _error(400, "the request body must be a JSON object", "invalid_request_error")
        tools = body.get("tools") if isinstance(body.get("tools"), list) else None
        out.preset = _choose_preset(body.get("model"), self._patterns, self.config.preset)
        try:
            # tool_choice and parallel_tool_calls, for the rewriters; tool_choice "none" goes
            # through them too, in prompt mode as well: its markup stays the model's text
            # (released verbatim), its reasoning comes out as in any other answer
            options = {**response_options(body), **self._sieve_options(out.preset)}
            if self.config.mode == "prompt":
                raw = json_text(prepare_prompt_request(body)).encode("utf-8")
        except OpenAIFormatError as exc:
            self._finish("chat", request, 400, t0, out)
            return _error(400, str(exc), "invalid_request_error")
        headers = self._headers(request)
        headers["content-type"] = "application/json"
        req = self._request("POST", "/chat/completions", headers, raw)
        # Until the answer starts, a client that leaves cancels the upstream request (F2): the
        # stream's own watcher takes over once it is under way.
        answer = asyncio.ensure_future(self._answer(request, req, tools, options, out, t0))
        left = asyncio.ensure_future(_disconnected(request.receive))
        try:
            await asyncio.wait([answer, left], return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not answer.done():
                answer.cancel()
            left.cancel()
            await asyncio.gather(answer, left, return_exceptions=True)
        if answer.cancelled():
            out.end = "client-left"
            self.metrics.disconnects.inc()
            self._finish("chat", request, 499, t0, out)
            return Response(status_code=499)
        return answer.result()

    async def _answer(
        self,
        request: Request,
        req: httpx.Request,
        tools: list[Any] | None,
        options: dict[str, Any],
        out: _Outcome,
        t0: float,
    ) -> Response:
        up = await self._send_upstream(req)
        if isinstance(up, JSONResponse):
            self._finish("chat", request, up.status_code, t0, out)
            return up
        ctype = _media_type(up.headers.get("content-type", ""))
        if up.status_code < 400 and ctype == "text/event-stream":
            out.stream = True
            rw = ChatCompletionStreamRewriter(
                tools=tools,
                unknown_tools=self.config.unknown_tools,
                stream_arguments=self.config.stream_arguments,
                **options,
            )

            def done(status: int) -> None:
                out.stats = rw.stats
                out.rejected = rw.rejected_tool_names
                self._finish("chat", request, status, t0, out)

            return _SSEResponse(self, up, rw, out, done)
        body_bytes, err = await self._plain(up)
        if err is not None:
            self._finish("chat", request, err.status_code, t0, out)
            return err
        if up.status_code >= 400 or ctype != "application/json":
            self._finish("chat", request, up.status_code, t0, out)
            return self._passed(up, body_bytes)
        try:
            data = json.loads(body_bytes)
            _check_indexes(data)
            rewritten = rewrite_chat_completion(
                data,
                tools=tools,
                unknown_tools=self.config.unknown_tools,
                rejected_tool_names=out.rejected,
                stats=out.stats,
                **options,
            )
        except (ValueError, RecursionError, OpenAIFormatError) as exc:
            self.metrics.upstream_errors.labels("format").inc()
            self._finish("chat", request, 502, t0, out)
            return _error(502, f"upstream answer cannot be read: {exc}", "upstream_error")
        self._finish("chat", request, up.status_code, t0, out)
        return Response(json_text(rewritten).encode("utf-8"), up.status_code, headers=_relayed(up))


class _SSEResponse(Response):
    """The streamed answer: rewrites upstream events as they come, writes its own keep-alives,
    and cancels the upstream request when the client leaves."""

    def __init__(
        self,
        gw: _Gateway,
        up: httpx.Response,
        rw: ChatCompletionStreamRewriter,
        out: _Outcome,
        done: Callable[[int], None],
    ) -> None:
        super().__init__(status_code=up.status_code, media_type="text/event-stream")
        self.headers["cache-control"] = "no-cache"
        self.headers["x-accel-buffering"] = "no"
        del self.headers["content-length"]
        self._gw = gw
        self._up = up
        self._rw = rw
        self._out = out
        self._done = done
        self._saw_done = False

    def _convert(self, items: list[SSEEvent | SSEComment], out: list[bytes]) -> None:
        """Append the bytes to write for parsed upstream events and comments to `out`."""
        rw = self._rw
        for item in items:
            if isinstance(item, SSEComment):
                out.append(item.raw + b"\n\n")
                continue
            data = json_trim(item.data)
            if not data:
                out.append(_KEEPALIVE)  # an empty data: keep-alive, as a comment
                continue
            if self._saw_done:
                raise SSEFormatError("an event comes after data: [DONE]")
            if data == DONE:
                self._saw_done = True
                out += [_chunk_bytes(c) for c in rw.finish()]
                out.append(_DONE_BYTES)
                continue
            try:
                value = json.loads(item.data)
            except (ValueError, RecursionError):
                raise SSEFormatError("an upstream event is not JSON") from None
            _check_indexes(value)
            out += [_chunk_bytes(c) for c in rw.feed(value)]

    async def _relay(self, write: Callable[[bytes], Awaitable[None]]) -> None:
        """Writes what each piece read from upstream completed, as one batch, so a fast upstream
        costs one write per read, not one per event. Backpressure: the next read waits until
        the client took this batch."""
        rw, out = self._rw, self._out
        parser = SSEParser(comments=True)
        try:
            # Without a content-encoding the raw body is the body, and our own transport's body
            # stream can be read directly: layers of generators less per event.
            body: AsyncIterable[bytes] = (
                self._up.aiter_bytes()
                if "content-encoding" in self._up.headers
                else self._up.stream
                if isinstance(self._up.stream, UpstreamBody)
                else self._up.aiter_raw()
            )
            async for piece in body:
                batch: list[bytes] = []
                try:
                    self._convert(parser.feed(piece), batch)
                finally:
                    if batch:
                        await write(b"".join(batch))
            batch = []
            self._convert(parser.finish(), batch)
            if not self._saw_done:
                out.end = "cut"
                batch += [_chunk_bytes(c) for c in rw.finish()]
            else:
                out.end = "done"
            if batch:
                await write(b"".join(batch))
        except httpx.TimeoutException:
            out.end = "timeout"
            self._gw.metrics.upstream_errors.labels("timeout").inc()
            await write(
                _error_event(
                    f"upstream silent for more than {self._gw.config.timeout:g} s", "upstream_timeout"
                )
            )
        except httpx.HTTPError as exc:
            out.end = "cut"
            self._gw.metrics.upstream_errors.labels("read").inc()
            log.warning("upstream stream broke: %s: %s", type(exc).__name__, exc)
            tail = [_chunk_bytes(c) for c in rw.finish()]
            if tail:
                await write(b"".join(tail))
        except (SSEFormatError, OpenAIFormatError) as exc:
            out.end = "bad-upstream"
            self._gw.metrics.upstream_errors.labels("format").inc()
            await write(_error_event(f"upstream stream cannot be read: {exc}", "upstream_error"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        gw = self._gw
        gw.metrics.active.inc()
        lock = asyncio.Lock()  # the pump and the keep-alive both write
        last = [time.monotonic()]

        async def write(data: bytes) -> None:
            async with lock:
                await send({"type": "http.response.body", "body": data, "more_body": True})
                last[0] = time.monotonic()

        async def pump() -> None:
            await send(
                {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
            )
            await self._relay(write)
            async with lock:
                await send({"type": "http.response.body", "body": b"", "more_body": False})

        async def keepalive() -> None:
            every = gw.config.keepalive
            while True:
                await asyncio.sleep(max(0.01, every - (time.monotonic() - last[0])))
                if time.monotonic() - last[0] >= every and not lock.locked():
                    await write(_KEEPALIVE)

        async def watch() -> None:
            while True:
                msg = await receive()
                if msg["type"] == "http.disconnect":
                    return

        tasks = [asyncio.ensure_future(c) for c in (pump(), watch(), keepalive())]
        pumper, _watcher, _keeper = tasks
        status = self.status_code
        try:
            finished, _ = await asyncio.wait([pumper, _watcher], return_when=asyncio.FIRST_COMPLETED)
            # uvicorn reports http.disconnect once the response is complete: only a pump that did
            # not finish cleanly means the client left.
            if not (pumper in finished and pumper.exception() is None):
                if pumper in finished and not isinstance(pumper.exception(), OSError):
                    log.error("the stream failed", exc_info=pumper.exception())
                self._out.end = "client-left"
                gw.metrics.disconnects.inc()
                status = 499
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            with contextlib.suppress(Exception):
                await self._up.aclose()  # closes the upstream connection: the upstream sees the cancel
            gw.metrics.active.dec()
            self._done(status)


_chunk_bytes: Final = sse_event  # `data: <json_text(chunk)>\n\n`, at json.dumps speed when it can


_ALLOW_HEADERS: Final = (
    "authorization, content-type, x-request-id, openai-organization, openai-project, "
    "x-stainless-arch, x-stainless-lang, x-stainless-os, x-stainless-package-version, "
    "x-stainless-retry-count, x-stainless-runtime, x-stainless-runtime-version, x-stainless-timeout"
)


def _request_id(value: str | None) -> str:
    """The client's `X-Request-ID` when it is a short run of visible ASCII, else a new one."""
    if value and len(value) <= _MAX_REQUEST_ID and all("!" <= c <= "~" for c in value):
        return value
    return uuid.uuid4().hex


def _key_digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


class _Edge:
    """What every request goes through before its route: its id (`X-Request-ID`, taken or made,
    echoed and logged), CORS (preflights answered, headers added), the client's key on the API
    paths (401), and a log line for what no route logged (404, 405, 401, probes at debug)."""

    def __init__(self, app: ASGIApp, config: GatewayConfig) -> None:
        self.app = app
        self.keys = [_key_digest(k) for k in config.api_keys or ()]
        origins = config.cors_origins or []
        self.any_origin = "*" in origins
        self.origins = frozenset(origins)
        self.cors = bool(origins)

    def _allowed(self, origin: str) -> bool:
        return self.any_origin or origin.rstrip("/") in self.origins

    def _authorized(self, auth: str) -> bool:
        scheme, _, token = auth.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return False
        digest = _key_digest(token.strip())
        ok = False
        for k in self.keys:  # every key compared, in constant time each
            ok |= hmac.compare_digest(digest, k)
        return ok

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        rid = _request_id(headers.get("x-request-id"))
        scope[_REQUEST_ID] = rid
        extra: list[tuple[bytes, bytes]] = [(b"x-request-id", rid.encode("latin-1"))]
        origin = headers.get("origin")
        if self.cors and origin is not None and self._allowed(origin):
            extra += [
                (b"access-control-allow-origin", b"*" if self.any_origin else origin.encode("latin-1")),
                (b"access-control-expose-headers", b"x-request-id"),
            ]
            if not self.any_origin:
                extra.append((b"vary", b"origin"))
        status = [0]

        async def send_with(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                own = {k for k, _ in extra}
                message["headers"] = [
                    (k, v) for k, v in message.get("headers", []) if k.lower() not in own
                ] + extra
            await send(message)

        method, path = scope["method"], scope["path"]
        response: Response | None = None
        if method == "OPTIONS" and self.cors and "access-control-request-method" in headers:
            if origin is None or not self._allowed(origin):
                response = _error(403, f"origin {origin!r} is not allowed", "invalid_request_error")
            else:
                response = Response(
                    status_code=204,
                    headers={
                        "access-control-allow-methods": "GET, POST, OPTIONS",
                        "access-control-allow-headers": headers.get(
                            "access-control-request-headers", _ALLOW_HEADERS
                        ),
                        "access-control-max-age": "600",
                    },
                )
        elif self.keys and path in _API_PATHS and not self._authorized(headers.get("authorization", "")):
            given = "authorization" in headers
            response = _error(
                401,
                "Incorrect API key provided." if given else "You didn't provide an API key.",
                "invalid_request_error",
                "invalid_api_key",
            )
            response.headers["www-authenticate"] = "Bearer"
        if response is not None:
            await response(scope, receive, send_with)
        else:
            await self.app(scope, receive, send_with)
        if not scope.get("callsieve.logged"):
            dt = time.perf_counter() - t0
            level = logging.INFO if status[0] >= 400 else logging.DEBUG
            log.log(
                level,
                "%s %s %d %.3fs request_id=%s",
                method,
                path,
                status[0],
                dt,
                rid,
                extra={
                    "fields": {
                        "method": method,
                        "path": path,
                        "status": status[0],
                        "duration": round(dt, 6),
                        "request_id": rid,
                    }
                },
            )


async def _http_error(request: Request, exc: Exception) -> Response:
    """404, 405 and the other HTTP errors of the router, in the OpenAI API's error shape."""
    assert isinstance(exc, HTTPException)
    code = exc.status_code
    if code == 404:
        message = f"no route for {request.method} {request.url.path}"
    elif code == 405:
        message = f"{request.method} is not allowed on {request.url.path}"
    else:
        message = exc.detail
    resp = _error(code, message, "invalid_request_error")
    for k, v in (exc.headers or {}).items():
        resp.headers[k] = v
    return resp


async def _server_error(request: Request, exc: Exception) -> Response:
    return _error(500, f"internal error: {type(exc).__name__}", "server_error")


def create_app(
    upstream: str | GatewayConfig,
    *,
    api_keys: list[str] | None = None,
    upstream_api_key: str | None = None,
    forward_client_key: bool = False,
    mode: str = "passthrough",
    unknown_tools: UnknownToolsPolicy = "keep",
    timeout: float = 600.0,
    connect_timeout: float = 10.0,
    keepalive: float = 15.0,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    cors_origins: list[str] | None = None,
    client: httpx.AsyncClient | None = None,
    registry: Any = None,
) -> Starlette:
    """The gateway as a Starlette application (see the module docstring). `upstream` is the base
    URL of an OpenAI-compatible API (`https://api.example.com/v1`) or a `GatewayConfig`. `client`:
    an `httpx.AsyncClient` to use (else one is made and closed with the app); `registry`: the
    prometheus_client registry for `/metrics` (else a new one per app)."""
    config = (
        upstream
        if isinstance(upstream, GatewayConfig)
        else GatewayConfig(
            upstream=upstream,
            api_keys=api_keys,
            upstream_api_key=upstream_api_key,
            forward_client_key=forward_client_key,
            mode=mode,
            unknown_tools=unknown_tools,
            timeout=timeout,
            connect_timeout=connect_timeout,
            keepalive=keepalive,
            max_body_bytes=max_body_bytes,
            cors_origins=cors_origins,
        )
    )
    gw = _Gateway(config, client, registry)

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def metrics(request: Request) -> Response:
        return Response(generate_latest(gw.metrics.registry), media_type=PROM_CONTENT_TYPE)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await gw.aclose()

    routes = [
        Route("/v1/chat/completions", gw.chat, methods=["POST"]),
        Route("/chat/completions", gw.chat, methods=["POST"]),
        Route("/v1/models", gw.models, methods=["GET"]),
        Route("/models", gw.models, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
        Route("/healthz", health, methods=["GET"]),
        Route("/ready", gw.ready, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: _http_error, Exception: _server_error},
        middleware=[Middleware(_Edge, config=config)],
    )
    app.state.gateway = gw
    return app


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
