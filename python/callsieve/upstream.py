"""The gateway's upstream connections: an httpx transport of its own, HTTP/1.1 on asyncio's
transports with httptools' parser (the C parser uvicorn uses, in the server extra).

httpx's default transport is httpcore: h11 parses every chunk of a streamed body in Python, each
read goes through anyio (a cancel scope, the running async library looked up again), and the pool
does work quadratic in its open connections on each request. Under W11 (200 streams of small
events) httpcore, h11 and anyio were a third of the server's CPU besides the socket writes, the
same as the sieve and the JSON of every chunk together. This transport keeps what a streamed
answer needs: one protocol per connection that parses what arrives as it arrives, a future to wait
on, a timer only while waiting, and a list of idle keep-alive connections per origin.

- Timeouts come from the request (`httpx.Timeout` of the client): connect, read (per wait for
  data), write. They raise httpx's `ConnectTimeout`, `ReadTimeout`, `WriteTimeout`; a refused
  connection is `ConnectError`, a reset `ReadError`, a malformed answer or one cut off before its
  end `RemoteProtocolError` (so is a head past `_Connection.MAX_HEAD`), a CR or LF inside a
  request header `LocalProtocolError`. httpx's client API is unchanged.
- Backpressure: past `HIGH_WATER` bytes received and not yet read, the socket stops reading, so
  a slow client slows the upstream.
- Keep-alive: a connection goes back to its origin's idle list when its answer was received to
  the end and both sides allow it (idle ones past `KEEPALIVE_EXPIRY` are closed); one closed by
  the server while idle is dropped (its protocol knows, no system call). A request on a reused
  connection that ends before any byte of an answer is sent once more on a new connection (the
  server closed it as the request left), unless its body was streamed (it cannot be sent twice).
  Bytes past the answer's end (a second answer) close the connection; trailers after a chunked
  body are dropped, as httpcore does.
- Closing an answer before its end closes its connection: the upstream sees the client leave. A
  connection given up (a timeout, a cancel) is aborted: the rest of its request is not sent. A
  whole answer that closes the connection ends the sending of a request body (RFC 9112 9.5).
- Not supported: proxies (`trust_env` is off in the gateway), HTTP/2, HEAD requests, upgrades.
"""

from __future__ import annotations

import asyncio
import collections
import math
import ssl
import time
from collections.abc import AsyncIterator
from typing import Any, Final

import httptools
import httpx

HIGH_WATER: Final = 256 * 1024  # unread bytes past which the socket stops reading (until read)
KEEPALIVE_EXPIRY: Final = 5.0  # seconds an idle connection is kept


class _Connection(asyncio.Protocol):
    """One HTTP/1.1 connection: the answer being parsed, what arrived of its body and not yet read,
    and the task waiting for more."""

    MAX_HEAD: Final = 100 * 1024  # bytes of an answer's head (as httpcore's h11 limit)

    def __init__(self) -> None:
        self.transport: Any = None
        self.closed = False  # the connection is gone (either side)
        self.error: BaseException | None = None
        self.waiter: asyncio.Future[None] | None = None  # a read or a paused write waiting
        self.write_paused = False
        self.read_paused = False
        self.idle_since = 0.0
        self.timer: asyncio.TimerHandle | None = None
        self.deadline = 0.0
        self.expiry: tuple[type[httpx.TransportError], str] = (httpx.ReadTimeout, "")
        self._reset()

    def _reset(self) -> None:
        """Ready for the next answer (a new connection, or one back in the pool)."""
        self.parser = httptools.HttpResponseParser(self)
        self.status = 0
        self.version = b"HTTP/1.1"
        self.reason = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.headers_done = False
        self.head_size = 0
        self.complete = False
        self.keep_alive = False
        self.got_bytes = False
        self.framed = False  # content-length or chunked: the end is known without EOF
        self.chunks: collections.deque[bytes] = collections.deque()
        self.size = 0
        if self.read_paused:  # an answer closed unread past HIGH_WATER: the next one must be read
            self.read_paused = False
            self.transport.resume_reading()

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.got_bytes = True
        try:
            self.parser.feed_data(data)
            if not self.headers_done:  # all of it was head (httptools holds what it parsed)
                self.head_size += len(data)
                if self.head_size > self.MAX_HEAD:
                    raise httptools.HttpParserError(f"the head is longer than {self.MAX_HEAD} bytes")
        except httptools.HttpParserError as exc:
            if self.error is None:
                self.error = httpx.RemoteProtocolError(f"malformed upstream answer: {exc}")
            self.transport.abort()
        _wake(self.waiter)

    def eof_received(self) -> bool:
        return False  # the transport closes itself; connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.error is None and exc is not None:
            self.error = httpx.ReadError(str(exc) or type(exc).__name__)
        if self.headers_done and not self.complete and not self.framed and self.error is None:
            self.complete = True  # a body without a length ends with the connection
        _wake(self.waiter)

    def pause_writing(self) -> None:
        self.write_paused = True

    def resume_writing(self) -> None:
        self.write_paused = False
        _wake(self.waiter)

    # httptools callbacks
    def on_message_begin(self) -> None:
        if self.headers_done:  # bytes after the answer, before the next request: not used again
            self.error = httpx.RemoteProtocolError("the upstream sent more than its answer")
            raise self.error  # stops the parser (data_received closes the connection)

    def on_status(self, status: bytes) -> None:
        self.reason += status

    def on_header(self, name: bytes, value: bytes) -> None:
        if self.headers_done:
            return  # a trailer after a chunked body: not a header of the answer
        value = value.strip(b" \t")  # (httptools keeps the whitespace after a value)
        self.headers.append((name, value))
        low = name.lower()
        if low == b"content-length" or (low == b"transfer-encoding" and b"chunked" in value.lower()):
            self.framed = True

    def on_headers_complete(self) -> None:
        self.status = self.parser.get_status_code()
        if 100 <= self.status < 200:  # an interim answer (100 Continue): wait for the real one
            self.reason, self.headers, self.framed, self.head_size = b"", [], False, 0
            return
        self.headers_done = True
        self.version = b"HTTP/" + self.parser.get_http_version().encode("ascii")

    def on_body(self, body: bytes) -> None:
        self.chunks.append(body)
        self.size += len(body)
        if self.size > HIGH_WATER and not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()

    def on_message_complete(self) -> None:
        if self.headers_done:
            self.complete = True
            self.keep_alive = self.parser.should_keep_alive()  # read now: the parser resets after

    # used by the transport
    async def wait(self, timeout: float | None, error: type[httpx.TransportError], message: str) -> None:
        """Until something arrives, a paused write may go on, or the connection ends; `error`
        after `timeout` seconds (None: no limit). One timer per connection, moved on lazily: a
        stream of small events arms no timer per event."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self.waiter = fut
        self.deadline = math.inf if timeout is None else loop.time() + timeout
        if timeout is not None:
            self.expiry = (error, message)
            if self.timer is None or self.timer.when() > self.deadline:  # (a shorter limit)
                if self.timer is not None:
                    self.timer.cancel()
                self.timer = loop.call_at(self.deadline, self._on_timer)
        try:
            await fut
        finally:
            self.waiter = None

    def _on_timer(self) -> None:
        self.timer = None
        if self.waiter is None or self.closed or self.deadline == math.inf:
            return  # nothing waits with a limit: the next wait that has one arms a timer again
        loop = asyncio.get_running_loop()
        if loop.time() >= self.deadline:
            _expire(self.waiter, *self.expiry)
        else:
            self.timer = loop.call_at(self.deadline, self._on_timer)

    def take(self) -> bytes:
        """What arrived of the body, all of it (the caller checked there is some); a socket
        paused past HIGH_WATER reads again."""
        data = b"".join(self.chunks) if len(self.chunks) > 1 else self.chunks[0]
        self.chunks.clear()
        self.size = 0
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()
        return data

    def refused_body(self) -> bool:
        """A whole answer came that closes the connection: the server reads no more of the request
        (RFC 9112 9.5: stop sending it; the connection is not used again)."""
        return self.complete and not self.keep_alive

    def reusable(self) -> bool:
        return self.complete and self.keep_alive and not self.closed and self.error is None


def _wake(fut: asyncio.Future[None] | None) -> None:
    if fut is not None and not fut.done():
        fut.set_result(None)


def _expire(fut: asyncio.Future[None], error: type[Exception], message: str) -> None:
    if not fut.done():
        fut.set_exception(error(message))


class Body(httpx.AsyncByteStream):
    """An answer's body as it arrives; at its end the connection goes back to the pool."""

    def __init__(self, pool: Transport, key: tuple[str, str, int], conn: _Connection, timeout: float | None):
        self._pool = pool
        self._key = key
        self._conn: _Connection | None = conn
        self._timeout = timeout

    async def __aiter__(self) -> AsyncIterator[bytes]:
        conn = self._conn
        while conn is not None:
            if conn.chunks:
                yield conn.take()
            elif conn.complete:
                break
            elif conn.error is not None:
                raise conn.error
            elif conn.closed:
                raise httpx.RemoteProtocolError("the upstream closed the connection before the answer's end")
            else:
                await conn.wait(self._timeout, httpx.ReadTimeout, "upstream read timed out")
        await self.aclose()

    async def aclose(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            self._pool._release(self._key, conn)


class Transport(httpx.AsyncBaseTransport):
    """HTTP/1.1 to any number of origins, keep-alive connections kept per origin (see the module
    docstring). `max_idle` caps the idle connections kept per origin."""

    def __init__(self, ssl_context: ssl.SSLContext | None = None, max_idle: int = 1024) -> None:
        self._ssl = ssl_context if ssl_context is not None else httpx.create_ssl_context(trust_env=False)
        self._max_idle = max_idle
        self._idle: dict[tuple[str, str, int], collections.deque[_Connection]] = {}  # oldest first
        self._active: set[_Connection] = set()
        self.opened = 0  # connections made (tests and benchmarks read it)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if url.scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(
                f"the upstream transport speaks http and https, not {url.scheme!r}"
            )
        port = url.port or (443 if url.scheme == "https" else 80)
        key = (url.scheme, url.host, port)
        if request.method == "HEAD":
            raise httpx.UnsupportedProtocol("the upstream transport does not send HEAD requests")
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        head = _head(request)
        body = request.content if _has_content(request) else None
        for attempt in (0, 1):
            conn, reused = self._idle_connection(key) if attempt == 0 else None, True
            if conn is None:
                conn, reused = await self._connect(key, timeouts.get("connect")), False
            self._active.add(conn)
            try:
                await self._send(conn, request, head, body, timeouts.get("write"))
                while not conn.headers_done:
                    if conn.error is not None:
                        raise conn.error
                    if conn.closed:
                        raise httpx.RemoteProtocolError(
                            "the upstream closed the connection without an answer"
                        )
                    await conn.wait(timeouts.get("read"), httpx.ReadTimeout, "upstream read timed out")
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError):
                self._discard(conn)
                if reused and attempt == 0 and not conn.got_bytes and body is not None:
                    continue  # closed by the server while the request was on its way (a
                    # streamed body was taken by this attempt: it cannot be sent again)
                raise
            except BaseException:
                self._discard(conn)
                raise
            return httpx.Response(
                conn.status,
                headers=conn.headers,
                stream=Body(self, key, conn, timeouts.get("read")),
                extensions={"http_version": conn.version, "reason_phrase": conn.reason.strip()},
            )
        raise AssertionError("unreachable")  # pragma: no cover

    def _idle_connection(self, key: tuple[str, str, int]) -> _Connection | None:
        idle = self._idle.get(key)
        now = time.monotonic()
        while idle:
            conn = idle.pop()
            if not conn.closed and not conn.got_bytes and now - conn.idle_since < KEEPALIVE_EXPIRY:
                return conn
            conn.transport.close()
        return None

    async def _connect(self, key: tuple[str, str, int], timeout: float | None) -> _Connection:
        scheme, host, port = key
        loop = asyncio.get_running_loop()
        tls = self._ssl if scheme == "https" else None
        try:
            made = loop.create_connection(
                _Connection, host, port, ssl=tls, server_hostname=host if tls else None
            )
            _, conn = await asyncio.wait_for(made, timeout)
        except TimeoutError:
            raise httpx.ConnectTimeout("connecting to the upstream timed out") from None
        except (OSError, ssl.SSLError) as exc:
            raise httpx.ConnectError(str(exc) or type(exc).__name__) from exc
        self.opened += 1
        return conn

    async def _send(
        self,
        conn: _Connection,
        request: httpx.Request,
        head: bytes,
        body: bytes | None,
        timeout: float | None,
    ) -> None:
        if conn.closed:
            raise httpx.WriteError("the upstream connection is closed")
        conn.transport.write(head + body if body is not None else head)
        if body is None:  # a streamed request body
            chunked = request.headers.get("transfer-encoding", "").lower() == "chunked"
            async for part in request.stream:  # type: ignore[union-attr]
                if conn.closed or conn.refused_body():  # (an answer may have come): no more to send
                    break
                if part:
                    conn.transport.write(b"%x\r\n%s\r\n" % (len(part), part) if chunked else part)
                    await self._drain(conn, timeout)
            else:
                if chunked:
                    conn.transport.write(b"0\r\n\r\n")
        await self._drain(conn, timeout)

    @staticmethod
    async def _drain(conn: _Connection, timeout: float | None) -> None:
        while conn.write_paused and not conn.closed and not conn.refused_body():
            await conn.wait(timeout, httpx.WriteTimeout, "upstream write timed out")
        if conn.closed and conn.error is not None and not conn.got_bytes:
            raise httpx.WriteError(str(conn.error))

    def _release(self, key: tuple[str, str, int], conn: _Connection) -> None:
        self._active.discard(conn)
        if conn.reusable():
            idle = self._idle.setdefault(key, collections.deque())
            now = time.monotonic()
            while idle and (idle[0].closed or now - idle[0].idle_since >= KEEPALIVE_EXPIRY):
                idle.popleft().transport.close()  # expired under newer ones that are in use
            if len(idle) < self._max_idle:
                conn._reset()
                conn.idle_since = now
                idle.append(conn)
                return
        conn.transport.abort()

    def _discard(self, conn: _Connection) -> None:
        """Closes at once: what of the request was not sent yet is dropped, not sent on after the
        request was given up (`close()` would send it all first, for as long as that takes)."""
        self._active.discard(conn)
        conn.transport.abort()

    async def aclose(self) -> None:
        for conns in self._idle.values():
            for conn in conns:
                conn.transport.close()
        self._idle.clear()
        for conn in list(self._active):
            if conn.error is None:  # a body that ends with the connection is cut off, not ended
                conn.error = httpx.ReadError("the upstream transport was closed")
            conn.transport.abort()
        self._active.clear()


def _has_content(request: httpx.Request) -> bool:
    try:
        request.content  # noqa: B018 - raises for a body not read yet
    except httpx.RequestNotRead:
        return False
    return True


def _head(request: httpx.Request) -> bytes:
    """The request line and headers, as httpx's request carries them (Host included). A CR, LF or
    NUL inside one (a header or a request more on the wire) is refused, as h11 refuses it."""
    lines = [b"%s %s HTTP/1.1\r\n" % (request.method.encode("ascii"), request.url.raw_path)]
    lines += [b"%s: %s\r\n" % (k, v) for k, v in request.headers.raw]
    lines.append(b"\r\n")
    head = b"".join(lines)
    if not head.count(b"\r") == head.count(b"\n") == len(lines) or b"\0" in head:
        raise httpx.LocalProtocolError("a line break or NUL inside the request line or a header")
    return head


def client(timeout: httpx.Timeout, max_idle: int = 1024) -> httpx.AsyncClient:
    """An `httpx.AsyncClient` for the upstream on `Transport` (one CA bundle load for all)."""
    return httpx.AsyncClient(timeout=timeout, transport=Transport(max_idle=max_idle), trust_env=False)


__all__ = ["HIGH_WATER", "Body", "Transport", "client"]
