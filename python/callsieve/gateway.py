"""The gateway's routes (`_Gateway`): chat completions (the request to upstream, in `prompt` mode
prepared first, and the answer through the rewriters), models (proxied) and readiness; the
upstream requests they make (httpx, on callsieve.upstream's transport), and the log line and
counters of each request (callsieve.server's docstring)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any, Final

import httpx
from prometheus_client import CollectorRegistry
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive

from . import __version__
from .chunks import ChatCompletionStreamRewriter
from .completion import rewrite_chat_completion
from .config import GatewayConfig, _choose_preset, _preset_pattern
from .errors import OpenAIFormatError
from .formats import PRESETS
from .jsontext import json_text
from .metrics import _Metrics, _Outcome
from .relay import _check_indexes, _SSEResponse
from .request import prepare_prompt_request, response_options
from .upstream import Transport as UpstreamTransport

log = logging.getLogger("callsieve.server")

_USER_AGENT: Final = f"callsieve/{__version__}"
_REQUEST_ID: Final = "callsieve.request_id"  # the scope key of a request's id
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


def _error(status: int, message: str, type_: str, code: str | None = None) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": type_, "param": None, "code": code}}, status)


def _relayed(up: httpx.Response) -> dict[str, str]:
    """The upstream answer's headers a client gets: not the hop-by-hop ones, nor `server` and
    `date` (the gateway writes its own); the upstream's `x-request-id` as `x-upstream-request-id`."""
    out = {k: v for k, v in up.headers.items() if k.lower() not in _HOP_HEADERS}
    if "x-request-id" in up.headers:
        out["x-upstream-request-id"] = up.headers["x-request-id"]
    return out


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
