"""The ASGI application (`create_app`): the gateway's routes on Starlette, behind `_Edge`, what every
request goes through first (its id, CORS, the client's key), with OpenAI-shaped errors for what
no route answers (callsieve.server's docstring)."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any, Final

import httpx
from prometheus_client import CONTENT_TYPE_LATEST as PROM_CONTENT_TYPE
from prometheus_client import generate_latest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .config import DEFAULT_MAX_BODY_BYTES, GatewayConfig
from .gateway import _REQUEST_ID, _error, _Gateway
from .names import UnknownToolsPolicy

log = logging.getLogger("callsieve.server")

# the OpenAI API's paths: only these need a client key (health, readiness and metrics do not)
_API_PATHS: Final = frozenset({"/v1/chat/completions", "/chat/completions", "/v1/models", "/models"})
_MAX_REQUEST_ID: Final = 200


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


__all__ = ["create_app"]
