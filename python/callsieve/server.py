"""An OpenAI-compatible gateway server (ASGI, Starlette) in front of an upstream that writes DSML
tool-call markup into `content`: `callsieve serve --upstream URL`, or `create_app(...)` to mount
in an existing ASGI application. Needs the `server` extra (`pip install 'callsieve[server]'`:
Starlette, uvicorn, httpx, httptools, prometheus_client); the rest of callsieve has no dependencies.

Endpoints:

- `POST /v1/chat/completions`, streaming and not. `passthrough` mode (default): the request body
  goes upstream byte for byte; `prompt` mode: through `prepare_prompt_request` (tools become DSML
  instructions, tool history becomes text) and, unless `tool_choice` is `"none"`, the answer is
  rewritten. The answer's DSML (and every format the sieve knows) becomes native `tool_calls`,
  with the request's `tools` as declared names and schemas (R10, R12).
- `GET /v1/models`: proxied. `GET /healthz`: `{"status": "ok"}`. `GET /metrics`: Prometheus text.

Upstream: `api_key` is sent as `Authorization: Bearer KEY`; without it the client's
`Authorization` header is forwarded. Upstream errors keep their status and body. A connection
that cannot be made is a 502, an upstream that does not answer within `timeout` a 504, both with
an OpenAI-style error JSON (`{"error": {"message", "type", "code"}}`).

Streams: the upstream body is read as it comes and each event is rewritten and written at once.
SSE comments from upstream (`: keep-alive`) and empty `data:` keep-alives reach the client as
comments; when nothing was written for `keepalive` seconds (a block held back, a silent upstream)
the gateway writes `: keep-alive` itself. An upstream silent for `timeout` seconds ends the stream
visibly: an error event (`{"error": {..., "type": "upstream_timeout"}}`) and no `[DONE]`. A stream
cut off upstream ends without `[DONE]` too (what the sieve held is flushed first). A client that
disconnects cancels the upstream request at once (the watcher sees `http.disconnect`, the
upstream response is closed). Backpressure: one event at a time between the upstream read and
the client write, so a slow client slows the upstream read; memory per stream stays bounded by
the sieve's `max_capture_chars`.

Logging: one line per request on the `callsieve.server` logger (method, path, status, duration,
stream, blocks, calls, rejected names, repaired blocks, capture-limit releases, how a stream
ended); `/metrics` counts the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

try:
    import httpx
    from prometheus_client import CONTENT_TYPE_LATEST as PROM_CONTENT_TYPE
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route
    from starlette.types import Receive, Scope, Send
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"callsieve.server needs the server extra: pip install 'callsieve[server]' ({exc})"
    ) from exc

from . import __version__
from .errors import CallsieveError, OpenAIFormatError, SSEFormatError
from .jsontext import json_text
from .names import UnknownToolsPolicy
from .openai import ChatCompletionStreamRewriter, rewrite_chat_completion
from .reasoning import ReasoningMode, check_reasoning
from .request import prepare_prompt_request, rewrites_response
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
YOUNG_GC_THRESHOLD: Final = 10_000  # settle_gc: allocations before a young collection, at least
_HOP_HEADERS: Final = frozenset(
    {"content-length", "transfer-encoding", "connection", "keep-alive", "content-encoding"}
)


@dataclass
class GatewayConfig:
    """The settings of one gateway (the flags of `callsieve serve`)."""

    upstream: str
    api_key: str | None = None
    mode: str = "passthrough"
    unknown_tools: UnknownToolsPolicy = "keep"
    timeout: float = 600.0  # upstream silence (seconds) that ends a request
    connect_timeout: float = 10.0
    keepalive: float = 15.0  # client-side silence (seconds) after which `: keep-alive` is written
    formats: list[str] | None = None  # R14.9: the markup formats recognized (None: all)
    reasoning: ReasoningMode = "auto"  # R15: where reasoning may be in the content
    stream_arguments: bool = False  # R16.5: stream each call's arguments as they arrive

    def __post_init__(self) -> None:
        try:
            check_formats(self.formats)
            check_reasoning(self.reasoning)
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


def _error(status: int, message: str, type_: str, code: str | None = None) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": type_, "param": None, "code": code}}, status)


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

    async def aclose(self) -> None:
        if self._own_client:
            await self.client.aclose()

    def _headers(self, request: Request) -> dict[str, str]:
        h = {"accept": request.headers.get("accept", "application/json")}
        if self.config.api_key:
            h["authorization"] = f"Bearer {self.config.api_key}"
        elif "authorization" in request.headers:
            h["authorization"] = request.headers["authorization"]
        for k in ("openai-organization", "openai-project"):
            if k in request.headers:
                h[k] = request.headers[k]
        return h

    def _finish(self, endpoint: str, request: Request, status: int, t0: float, out: _Outcome) -> None:
        dt = time.perf_counter() - t0
        m = self.metrics
        m.requests.labels(endpoint, str(status)).inc()
        m.duration.labels(endpoint).observe(dt)
        st = out.stats
        if st:
            m.blocks.inc(st.get("blocks", 0))
            m.calls.inc(st.get("calls", 0))
            m.rejected.inc(st.get("rejected_calls", 0))
            m.capture.inc(st.get("capture_limit_releases", 0))
            m.repaired.inc(st.get("repaired_blocks", 0))
        log.info(
            "%s %s %d %.3fs stream=%s blocks=%d calls=%d rejected=%s repaired=%d capture_limit=%d%s",
            request.method,
            request.url.path,
            status,
            dt,
            "yes" if out.stream else "no",
            st.get("blocks", 0),
            st.get("calls", 0),
            ",".join(out.rejected) or "-",
            st.get("repaired_blocks", 0),
            st.get("capture_limit_releases", 0),
            f" end={out.end}" if out.end else "",
        )

    def _request(
        self, method: str, path: str, headers: dict[str, str], content: bytes | None = None
    ) -> httpx.Request:
        url = self.config.upstream + path
        if self._transport is None:
            return self.client.build_request(method, url, content=content, headers=headers)
        headers["user-agent"] = _USER_AGENT
        return httpx.Request(
            method, url, headers=headers, content=content, extensions={"timeout": self._timeout}
        )

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
        headers = {k: v for k, v in up.headers.items() if k.lower() not in _HOP_HEADERS}
        return Response(body, up.status_code, headers=headers)

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

    async def chat(self, request: Request) -> Response:
        t0 = time.perf_counter()
        out = _Outcome()
        raw = await request.body()
        try:
            body = json.loads(raw)
        except (ValueError, RecursionError):
            resp: Response = _error(400, "the request body is not JSON", "invalid_request_error")
            self._finish("chat", request, 400, t0, out)
            return resp
        if not isinstance(body, dict):
            self._finish("chat", request, 400, t0, out)
            return _error(400, "the request body must be a JSON object", "invalid_request_error")
        tools = body.get("tools") if isinstance(body.get("tools"), list) else None
        rewrite = True
        if self.config.mode == "prompt":
            try:
                upstream_body = prepare_prompt_request(body)
            except OpenAIFormatError as exc:
                self._finish("chat", request, 400, t0, out)
                return _error(400, str(exc), "invalid_request_error")
            rewrite = rewrites_response(body)
            raw = json_text(upstream_body).encode("utf-8")
        headers = self._headers(request)
        headers["content-type"] = "application/json"
        req = self._request("POST", "/chat/completions", headers, raw)
        up = await self._send_upstream(req)
        if isinstance(up, JSONResponse):
            self._finish("chat", request, up.status_code, t0, out)
            return up
        ctype = up.headers.get("content-type", "")
        if up.status_code < 400 and ctype.startswith("text/event-stream"):
            out.stream = True
            rw = (
                ChatCompletionStreamRewriter(
                    tools=tools,
                    unknown_tools=self.config.unknown_tools,
                    formats=self.config.formats,
                    reasoning=self.config.reasoning,
                    stream_arguments=self.config.stream_arguments,
                )
                if rewrite
                else None
            )

            def done(status: int) -> None:
                if rw is not None:
                    out.stats = rw.stats
                    out.rejected = rw.rejected_tool_names
                self._finish("chat", request, status, t0, out)

            return _SSEResponse(self, up, rw, out, done)
        body_bytes, err = await self._plain(up)
        if err is not None:
            self._finish("chat", request, err.status_code, t0, out)
            return err
        if up.status_code >= 400 or not rewrite or not ctype.startswith("application/json"):
            self._finish("chat", request, up.status_code, t0, out)
            return self._passed(up, body_bytes)
        try:
            data = json.loads(body_bytes)
            rewritten = rewrite_chat_completion(
                data,
                tools=tools,
                unknown_tools=self.config.unknown_tools,
                rejected_tool_names=out.rejected,
                stats=out.stats,
                formats=self.config.formats,
                reasoning=self.config.reasoning,
            )
        except (ValueError, RecursionError, OpenAIFormatError) as exc:
            self.metrics.upstream_errors.labels("format").inc()
            self._finish("chat", request, 502, t0, out)
            return _error(502, f"upstream answer cannot be read: {exc}", "upstream_error")
        self._finish("chat", request, up.status_code, t0, out)
        headers = {k: v for k, v in up.headers.items() if k.lower() not in _HOP_HEADERS}
        return Response(json_text(rewritten).encode("utf-8"), up.status_code, headers=headers)


class _SSEResponse(Response):
    """The streamed answer: rewrites upstream events as they come, writes its own keep-alives,
    and cancels the upstream request when the client leaves."""

    def __init__(
        self,
        gw: _Gateway,
        up: httpx.Response,
        rw: ChatCompletionStreamRewriter | None,
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
                if rw is not None:
                    out += [_chunk_bytes(c) for c in rw.finish()]
                out.append(_DONE_BYTES)
                continue
            if rw is None:
                # as it came (an event of several data: lines keeps them)
                out.append(
                    b"".join(b"data: " + ln.encode("utf-8") + b"\n" for ln in item.data.split("\n")) + b"\n"
                )
                continue
            try:
                value = json.loads(item.data)
            except (ValueError, RecursionError):
                raise SSEFormatError("an upstream event is not JSON") from None
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
                if rw is not None:
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
            if rw is not None:
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


def create_app(
    upstream: str | GatewayConfig,
    *,
    api_key: str | None = None,
    mode: str = "passthrough",
    unknown_tools: UnknownToolsPolicy = "keep",
    timeout: float = 600.0,
    connect_timeout: float = 10.0,
    keepalive: float = 15.0,
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
            api_key=api_key,
            mode=mode,
            unknown_tools=unknown_tools,
            timeout=timeout,
            connect_timeout=connect_timeout,
            keepalive=keepalive,
        )
    )
    gw = _Gateway(config, client, registry)

    async def healthz(request: Request) -> Response:
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
        Route("/healthz", healthz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.gateway = gw
    return app


__all__ = [
    "MODES",
    "POLICIES",
    "YOUNG_GC_THRESHOLD",
    "GatewayConfig",
    "app_from_environ",
    "create_app",
    "settle_gc",
]


def settle_gc() -> None:
    """For a process that serves the gateway (`callsieve serve` and its workers), once started:
    what exists then (modules, the app) moves to the GC's permanent generation, so the full
    collections that the many short-lived objects of concurrent streams still set off look at
    the streams only (measured under W11: a full pass 29-46 ms of CPU -> 10 ms). callsieve's own
    objects free themselves by reference counting (python/tests/test_cycles.py), so the young
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
    logging.basicConfig(
        level=os.environ.get(WORKER_LOG_LEVEL_ENV, "info").upper(),
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)
    app = create_app(GatewayConfig(**json.loads(os.environ[WORKER_CONFIG_ENV])))
    settle_gc()
    return app
