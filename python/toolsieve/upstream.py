"""The gateway's upstream connections: an httpcore network backend on asyncio's own transports.

httpcore's default backend runs every read through anyio: a cancel scope for its timeout, a
lookup of the running async library, and, for each pooled connection on each request, a poll of
its socket. Under W11 (200 streams of small events) that was a sixth of the server's CPU per
event. This backend keeps what a read needs: a protocol that buffers what arrived, a future to
wait on, and a timer only when a timeout is set. A connection's readiness (`is_readable`, which
the pool asks to find a keep-alive connection the server closed) is the protocol's own state, no
system call. Backpressure is kept: past `HIGH_WATER` bytes not yet read, the socket stops
reading, so a slow client slows the upstream as before.

Plugged in with `client()`: an `httpx.AsyncClient` like httpx's own, whose pool uses this backend.
Proxies (`trust_env` is off in the gateway) and HTTP/2 are not supported by it; `client()`
falls back to httpx's default transport when the installed httpx lays its pool out otherwise.
"""

from __future__ import annotations

import asyncio
import collections
import ssl
from collections.abc import Iterable
from typing import Any, Final

import httpcore
import httpx

HIGH_WATER: Final = 256 * 1024  # unread bytes past which the socket stops reading
LOW_WATER: Final = 64 * 1024  # and resumes below


class _Protocol(asyncio.Protocol):
    """What arrived and not yet read, end of input, and the waiters of one connection."""

    def __init__(self) -> None:
        self.transport: Any = None
        self.chunks: collections.deque[bytes] = collections.deque()
        self.size = 0
        self.eof = False
        self.error: BaseException | None = None
        self.reader: asyncio.Future[None] | None = None
        self.writer: asyncio.Future[None] | None = None
        self.read_paused = False
        self.write_paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)
        if self.size > HIGH_WATER and not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()
        _wake(self.reader)

    def eof_received(self) -> bool:
        self.eof = True
        _wake(self.reader)
        return False  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        _wake(self.reader)
        _wake(self.writer)

    def pause_writing(self) -> None:
        self.write_paused = True

    def resume_writing(self) -> None:
        self.write_paused = False
        _wake(self.writer)


def _wake(fut: asyncio.Future[None] | None) -> None:
    if fut is not None and not fut.done():
        fut.set_result(None)


def _expire(fut: asyncio.Future[None], error: type[Exception], message: str) -> None:
    if not fut.done():
        fut.set_exception(error(message))


_EXTRA: Final = {
    "ssl_object": "ssl_object",
    "client_addr": "sockname",
    "server_addr": "peername",
    "socket": "socket",
}


class _Stream(httpcore.AsyncNetworkStream):
    """One connection; its transport is the protocol's (the TLS one after `start_tls`)."""

    def __init__(self, protocol: _Protocol) -> None:
        self._protocol = protocol
        self._loop = asyncio.get_running_loop()

    async def _wait(self, which: str, timeout: float | None, error: type[Exception], message: str) -> None:
        fut: asyncio.Future[None] = self._loop.create_future()
        setattr(self._protocol, which, fut)
        timer = None if timeout is None else self._loop.call_later(timeout, _expire, fut, error, message)
        try:
            await fut
        finally:
            setattr(self._protocol, which, None)
            if timer is not None:
                timer.cancel()

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        p = self._protocol
        while not p.chunks:
            if p.eof:
                if p.error is not None:
                    raise httpcore.ReadError(str(p.error) or type(p.error).__name__)
                return b""
            await self._wait("reader", timeout, httpcore.ReadTimeout, "upstream read timed out")
        data = p.chunks.popleft()
        if len(data) > max_bytes:
            p.chunks.appendleft(data[max_bytes:])
            data = data[:max_bytes]
        p.size -= len(data)
        if p.read_paused and p.size <= LOW_WATER:
            p.read_paused = False
            p.transport.resume_reading()
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        p = self._protocol
        if p.eof or p.transport.is_closing():
            raise httpcore.WriteError("the upstream connection is closed")
        p.transport.write(buffer)
        while p.write_paused and not p.eof:
            await self._wait("writer", timeout, httpcore.WriteTimeout, "upstream write timed out")

    async def aclose(self) -> None:
        self._protocol.transport.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        p = self._protocol
        try:
            transport = await asyncio.wait_for(
                self._loop.start_tls(p.transport, p, ssl_context, server_hostname=server_hostname), timeout
            )
        except TimeoutError:
            p.transport.close()
            raise httpcore.ConnectTimeout("TLS handshake timed out") from None
        except (OSError, ssl.SSLError) as exc:
            p.transport.close()
            raise httpcore.ConnectError(str(exc)) from exc
        p.transport = transport  # start_tls does not call connection_made again
        return _Stream(p)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # data or end of input on an idle connection: it expired
            return self._protocol.eof or bool(self._protocol.chunks)
        key = _EXTRA.get(info)
        return None if key is None else self._protocol.transport.get_extra_info(key)


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend interface on asyncio transports (see the module docstring)."""

    async def _connect(self, make: Any, timeout: float | None, options: Any) -> _Stream:
        try:
            transport, protocol = await asyncio.wait_for(make(), timeout)
        except TimeoutError:
            raise httpcore.ConnectTimeout("connecting to the upstream timed out") from None
        except OSError as exc:
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        sock = transport.get_extra_info("socket")
        for option in options or ():
            sock.setsockopt(*option)
        return _Stream(protocol)

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        local = None if local_address is None else (local_address, 0)
        return await self._connect(
            lambda: loop.create_connection(_Protocol, host, port, local_addr=local), timeout, socket_options
        )

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        return await self._connect(
            lambda: loop.create_unix_connection(_Protocol, path), timeout, socket_options
        )

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


SHARDS: Final = 8  # connection pools per client (see client())


class _Shards(httpx.AsyncBaseTransport):
    """Requests spread round-robin over several transports. httpcore's pool does work quadratic in
    its open connections on each request (it counts them once per idle one): at 200 streams that
    was a tenth of the server's CPU; over 8 pools it is a 64th of that."""

    def __init__(self, transports: list[httpx.AsyncHTTPTransport]) -> None:
        self._transports = transports
        self._next = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        i = self._next
        self._next = (i + 1) % len(self._transports)
        return await self._transports[i].handle_async_request(request)

    async def aclose(self) -> None:
        for t in self._transports:
            await t.aclose()


def _transport(limits: httpx.Limits, ssl_context: ssl.SSLContext) -> httpx.AsyncHTTPTransport:
    transport = httpx.AsyncHTTPTransport(verify=ssl_context, limits=limits, trust_env=False)
    if isinstance(getattr(transport, "_pool", None), httpcore.AsyncConnectionPool):
        transport._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=AsyncioBackend(),
        )
    return transport


def client(timeout: httpx.Timeout, limits: httpx.Limits, shards: int = SHARDS) -> httpx.AsyncClient:
    """An `httpx.AsyncClient` for the upstream: `shards` connection pools using `AsyncioBackend`,
    each with `limits`."""
    ctx = httpx.create_ssl_context(trust_env=False)  # one for all: each loads the CA bundle
    transport: httpx.AsyncBaseTransport = (
        _transport(limits, ctx) if shards == 1 else _Shards([_transport(limits, ctx) for _ in range(shards)])
    )
    return httpx.AsyncClient(timeout=timeout, transport=transport, trust_env=False)


__all__ = ["AsyncioBackend", "client"]
