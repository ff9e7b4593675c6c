"""The gateway's upstream transport (callsieve.upstream) against real local servers, through httpx's
client: bodies of every framing, backpressure, timeouts, keep-alive and closed connections,
connection errors, malformed answers, streamed request bodies, TLS."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import ssl
import struct
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("httptools")

from callsieve.upstream import HIGH_WATER, Transport, client  # noqa: E402

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
OK_SSE = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


async def _serve(handler: Handler, ssl_context: ssl.SSLContext | None = None) -> tuple[Any, int]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0, ssl=ssl_context)
    return server, server.sockets[0].getsockname()[1]


async def _request(r: asyncio.StreamReader) -> bytes:
    """A request's head and its content-length body."""
    head = await r.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return head + (await r.readexactly(length) if length else b"")


def _client(timeout: float = 5.0) -> Any:  # an httpx.AsyncClient
    return client(httpx.Timeout(timeout))


async def _get(c: Any, port: int, method: str = "GET", **kw: Any) -> tuple[int, list[bytes]]:
    async with c.stream(method, f"http://127.0.0.1:{port}/x?y=1", **kw) as resp:
        return resp.status_code, [p async for p in resp.aiter_raw()]


@pytest.mark.parametrize(
    "answer",
    [
        OK_SSE + b"9\r\ndata: 1\n\n\r\n" + b"9\r\ndata: 2\n\n\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\ncontent-length: 18\r\n\r\ndata: 1\n\ndata: 2\n\n",
        b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\ndata: 1\n\ndata: 2\n\n",  # ends with the connection
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 18\r\n\r\ndata: 1\n\ndata: 2\n\n",
    ],
    ids=["chunked", "content-length", "until-close", "interim-100"],
)
def test_a_body_of_each_framing_is_read_whole_and_the_request_is_sent_as_built(answer: bytes) -> None:
    async def main() -> tuple[int, bytes, bytes, str]:
        seen = []

        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            seen.append(await _request(r))
            for i in range(0, len(answer), 7):  # in awkward splits
                w.write(answer[i : i + 7])
                await w.drain()
            if b"connection: close" in answer:
                w.close()

        server, port = await _serve(handler)
        c = _client()
        async with c, c.stream("POST", f"http://127.0.0.1:{port}/x?y=1", content=b'{"a": 1}') as resp:
            body = b"".join([p async for p in resp.aiter_raw()])
            reason = resp.reason_phrase
        server.close()
        return resp.status_code, body, seen[0], reason

    status, body, request, reason = asyncio.run(main())
    assert (status, body, reason) == (200, b"data: 1\n\ndata: 2\n\n", "OK")
    assert request.startswith(b"POST /x?y=1 HTTP/1.1\r\n")
    assert b"\r\nhost: 127.0.0.1:" in request.lower() and request.endswith(b'\r\n\r\n{"a": 1}')


def test_a_streamed_request_body_goes_chunked() -> None:
    async def main() -> bytes:
        got = []

        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await r.readuntil(b"\r\n\r\n")
            got.append(await r.readuntil(b"0\r\n\r\n"))
            w.write(b"HTTP/1.1 204 No Content\r\n\r\n")
            await w.drain()

        async def parts() -> AsyncIterator[bytes]:
            yield b"ab"
            yield b""
            yield b"cde"

        server, port = await _serve(handler)
        async with _client() as c:
            resp = await c.post(f"http://127.0.0.1:{port}/", content=parts())
        server.close()
        assert resp.status_code == 204
        return got[0]

    assert asyncio.run(main()) == b"2\r\nab\r\n3\r\ncde\r\n0\r\n\r\n"


def test_keep_alive_connections_are_used_again_and_an_early_close_closes_one() -> None:
    async def main() -> tuple[list[list[bytes]], int, int, bool]:
        opened = 0
        ended = asyncio.Event()

        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            nonlocal opened
            opened += 1
            while True:
                try:
                    head = await _request(r)
                except asyncio.IncompleteReadError:
                    ended.set()
                    return
                w.write(OK_SSE + b"9\r\ndata: 1\n\n\r\n")
                if b"/long" in head:
                    await asyncio.sleep(0.05)
                    continue  # never ends: the client closes it
                w.write(b"9\r\ndata: 2\n\n\r\n0\r\n\r\n")
                await w.drain()

        server, port = await _serve(handler)
        bodies = []
        async with _client() as c:
            t: Any = c._transport
            for _ in range(3):
                bodies.append((await _get(c, port))[1])
            before = t.opened
            async with c.stream("GET", f"http://127.0.0.1:{port}/long") as resp:
                async for _ in resp.aiter_raw():
                    break
            await asyncio.wait_for(ended.wait(), 5)  # the server saw the connection close
            bodies.append((await _get(c, port))[1])
        server.close()
        return bodies, before, opened, ended.is_set()

    bodies, before, opened, ended = asyncio.run(main())
    assert [b"".join(b) for b in bodies] == [b"data: 1\n\ndata: 2\n\n"] * 4
    assert before == 1 and opened == 2 and ended  # one connection for three; a new one after the cancel


def test_an_idle_connection_the_server_closed_is_not_used_and_a_request_it_drops_goes_once_more() -> None:
    async def main() -> tuple[list[int], int]:
        n = 0

        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            nonlocal n
            n += 1
            await _request(r)
            w.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            await w.drain()
            if n == 1:
                w.close()  # closes the idle keep-alive connection at once
                return
            if n == 2:
                await _request(r)  # reads the next request and drops it without an answer
                w.close()
                return
            await asyncio.sleep(1)

        server, port = await _serve(handler)
        statuses = []
        async with _client() as c:
            statuses.append((await c.get(f"http://127.0.0.1:{port}/")).status_code)
            await asyncio.sleep(0.1)  # the close arrived: that connection is not used again
            statuses.append((await c.get(f"http://127.0.0.1:{port}/")).status_code)
            statuses.append((await c.get(f"http://127.0.0.1:{port}/")).status_code)  # sent again
        server.close()
        return statuses, n

    assert asyncio.run(main()) == ([200, 200, 200], 3)


def test_a_reader_that_does_not_read_stops_the_socket_reading() -> None:
    total = 16 * 1024 * 1024

    async def main() -> tuple[int, int]:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await _request(r)
            w.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % total)
            block = b"x" * 65536
            for _ in range(total // len(block)):
                w.write(block)
                await w.drain()

        server, port = await _serve(handler)
        async with _client() as c:
            t: Any = c._transport
            async with c.stream("GET", f"http://127.0.0.1:{port}/") as resp:
                await asyncio.sleep(0.5)  # the server writes as fast as it can, nobody reads
                held = next(iter(t._active)).size
                n = 0
                async for part in resp.aiter_raw():
                    n += len(part)
        server.close()
        return held, n

    held, n = asyncio.run(main())
    assert held <= HIGH_WATER + 4 * 65536  # bounded, not the 16 MB written
    assert n == total  # and nothing lost after it resumed


@pytest.mark.parametrize("when", ["head", "body"])
def test_a_silent_server_is_a_read_timeout(when: str) -> None:
    async def main() -> None:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await _request(r)
            if when == "body":
                w.write(OK_SSE + b"9\r\ndata: 1\n\n\r\n")
                await w.drain()
            await asyncio.sleep(3)

        server, port = await _serve(handler)
        async with _client(timeout=0.2) as c:
            with pytest.raises(httpx.ReadTimeout):
                await _get(c, port)
        server.close()

    asyncio.run(main())


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (OK_SSE + b"9\r\ndata: 1\n\n\r\n", httpx.RemoteProtocolError),  # cut off inside the body
        (b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc", httpx.RemoteProtocolError),
        (b"HTTP/1.1 200 OK\r\nbad header\r\n\r\n", httpx.RemoteProtocolError),  # malformed
        (b"", httpx.RemoteProtocolError),  # closed without an answer
    ],
    ids=["chunked-cut", "length-cut", "malformed", "no-answer"],
)
def test_a_broken_answer_is_a_protocol_error(answer: bytes, error: type[Exception]) -> None:
    async def main() -> None:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await _request(r)
            w.write(answer)
            await w.drain()
            w.close()

        server, port = await _serve(handler)
        async with _client() as c:
            with pytest.raises(error):
                await _get(c, port)
        server.close()

    asyncio.run(main())


def test_no_server_is_a_connect_error_and_other_requests_are_refused() -> None:
    async def main() -> None:
        server, port = await _serve(lambda r, w: asyncio.sleep(0))
        server.close()
        await server.wait_closed()
        async with _client() as c:
            with pytest.raises(httpx.ConnectError):
                await c.get(f"http://127.0.0.1:{port}/")
            with pytest.raises(httpx.UnsupportedProtocol):
                await c.head(f"http://127.0.0.1:{port}/")
        t = Transport()
        with pytest.raises(httpx.UnsupportedProtocol):
            await t.handle_async_request(httpx.Request("GET", "ftp://127.0.0.1/"))
        await t.aclose()

    asyncio.run(main())


def test_a_connect_timeout() -> None:
    async def main() -> None:
        t = Transport()
        server, port = await _serve(lambda r, w: asyncio.sleep(0))
        # no time at all to connect: deterministic, unlike an address that never answers
        req = httpx.Request("GET", f"http://127.0.0.1:{port}/", extensions={"timeout": {"connect": 0}})
        with pytest.raises(httpx.ConnectTimeout):
            await t.handle_async_request(req)
        await t.aclose()
        server.close()

    asyncio.run(main())


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_tls_through_httpx(tmp_path: Path) -> None:
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
        check=True, capture_output=True,
    )  # fmt: skip
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)

    async def main() -> tuple[int, str, int]:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            while True:
                try:
                    await _request(r)
                except asyncio.IncompleteReadError:
                    return
                w.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                await w.drain()

        server, port = await _serve(handler, server_ctx)
        ctx = ssl.create_default_context()
        ctx.load_verify_locations(cert)
        async with httpx.AsyncClient(transport=Transport(ctx)) as c:
            await c.get(f"https://localhost:{port}/")
            resp = await c.get(f"https://localhost:{port}/")
            opened = c._transport.opened
        async with _client() as c:  # the default context does not trust the test certificate
            with pytest.raises(httpx.ConnectError):
                await c.get(f"https://localhost:{port}/")
        server.close()
        return resp.status_code, resp.text, opened

    assert asyncio.run(main()) == (200, "ok", 1)


def test_events_closer_than_the_read_timeout_never_time_out_and_silence_after_them_does() -> None:
    async def main() -> tuple[int, float]:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await _request(r)
            w.write(OK_SSE)
            for _ in range(8):  # 8 x 0.1 s: past the 0.25 s timeout several times over
                w.write(b"9\r\ndata: 1\n\n\r\n")
                await w.drain()
                await asyncio.sleep(0.1)
            await asyncio.sleep(3)

        server, port = await _serve(handler)
        n = 0
        loop = asyncio.get_running_loop()
        async with _client(timeout=0.25) as c:
            t0 = loop.time()
            with pytest.raises(httpx.ReadTimeout):
                async with c.stream("GET", f"http://127.0.0.1:{port}/") as resp:
                    async for _ in resp.aiter_raw():
                        n += 1
            took = loop.time() - t0
        server.close()
        return n, took

    n, took = asyncio.run(main())
    assert n == 8  # every event arrived, the timer moved on with them
    assert 0.7 + 0.2 <= took < 2.5  # the last event came at 0.7 s; one timeout later, the error


def test_a_reset_connection_is_a_read_error() -> None:
    async def main() -> None:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await _request(r)
            w.write(OK_SSE + b"9\r\ndata: 1\n\n\r\n")
            await w.drain()
            await asyncio.sleep(0.1)
            sock = w.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            w.transport.abort()  # RST, not FIN

        server, port = await _serve(handler)
        async with _client() as c:
            with pytest.raises(httpx.ReadError):
                await _get(c, port)
        server.close()

    asyncio.run(main())


def test_a_server_that_reads_nothing_is_a_write_timeout() -> None:
    async def main() -> None:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await asyncio.sleep(3)  # reads nothing: the request body fills the socket buffers

        server, port = await _serve(handler)
        async with _client(timeout=0.3) as c:
            with pytest.raises(httpx.WriteTimeout):
                await c.post(f"http://127.0.0.1:{port}/", content=b"x" * (64 * 1024 * 1024))
        server.close()

    asyncio.run(main())


def test_a_wait_without_a_limit_after_one_with_a_limit_does_not_time_out() -> None:
    # One timer per connection: the timer armed for a 0.1 s read must not expire the next
    # request's read, which has no limit, on the same kept-alive connection.
    async def main() -> tuple[int, int]:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            for delay in (0.0, 0.4):
                await _request(r)
                await asyncio.sleep(delay)
                w.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                await w.drain()

        server, port = await _serve(handler)
        t = Transport()
        url = f"http://127.0.0.1:{port}/"
        statuses = []
        for limit in (0.1, None):
            req = httpx.Request("GET", url, extensions={"timeout": {"read": limit}})
            resp = await t.handle_async_request(req)
            await resp.aread()
            statuses.append(resp.status_code)
        opened = t.opened
        await t.aclose()
        server.close()
        assert statuses == [200, 200]
        return opened, len(statuses)

    assert asyncio.run(main()) == (1, 2)


def test_an_answer_closed_unread_while_the_socket_was_paused_leaves_a_connection_that_reads() -> None:
    # HIGH_WATER + 1 bytes: the socket pauses on the last byte, when the answer is complete. Closed
    # unread, the connection goes back to the pool: it must read again, or the next answer on it
    # is never seen.
    size = HIGH_WATER + 1

    async def main() -> tuple[int, bytes, int]:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await _request(r)
            w.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (size, b"x" * size))
            await w.drain()
            await _request(r)
            w.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            await w.drain()
            await asyncio.sleep(3)

        server, port = await _serve(handler)
        async with _client(timeout=1.0) as c:
            t: Any = c._transport
            async with c.stream("GET", f"http://127.0.0.1:{port}/") as resp:
                conn = next(iter(t._active))
                for _ in range(500):
                    if conn.complete:
                        break
                    await asyncio.sleep(0.01)
                assert conn.complete and conn.read_paused and resp.status_code == 200
            again = await c.get(f"http://127.0.0.1:{port}/")
            opened = t.opened
        server.close()
        return again.status_code, again.content, opened

    assert asyncio.run(main()) == (200, b"ok", 1)


def test_a_streamed_request_body_is_not_sent_again_after_a_reused_connection_dropped_it() -> None:
    # The body of an async iterator was taken by the first attempt: it cannot be sent once more,
    # and the error is httpx's (not httpx.StreamConsumed, a RuntimeError the gateway does not catch).
    async def main() -> int:
        n = 0

        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            nonlocal n
            n += 1
            await _request(r)
            w.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            await w.drain()
            await r.readuntil(b"0\r\n\r\n")  # the streamed request, dropped without an answer
            w.close()

        async def parts() -> AsyncIterator[bytes]:
            yield b"abc"

        server, port = await _serve(handler)
        async with _client() as c:
            assert (await c.get(f"http://127.0.0.1:{port}/")).status_code == 200
            with pytest.raises(httpx.RemoteProtocolError):
                await c.post(f"http://127.0.0.1:{port}/", content=parts())
        server.close()
        return n

    assert asyncio.run(main()) == 1


@pytest.mark.parametrize(
    "answer",
    [
        # a second answer nobody asked for, in the same packet
        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-a: 1\r\n\r\nok"
        b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\nx-a: 2\r\n\r\nabc",
        # trailers after a chunked body are not headers of the answer
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nx-a: 1\r\n\r\n"
        b"2;ext=1\r\nok\r\n0\r\nx-a: 2\r\n\r\n",
    ],
    ids=["second-answer", "trailers"],
)
def test_bytes_after_the_answer_are_neither_its_headers_nor_its_body(answer: bytes) -> None:
    async def main() -> tuple[bytes, list[str], list[bytes], int]:
        n = 0

        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            nonlocal n
            n += 1
            while True:
                try:
                    await _request(r)
                except asyncio.IncompleteReadError:
                    return
                w.write(answer)  # at once: the whole answer reaches the client in one read
                await w.drain()

        server, port = await _serve(handler)
        async with _client() as c:
            resp = await c.get(f"http://127.0.0.1:{port}/")
            second = await c.get(f"http://127.0.0.1:{port}/")
        server.close()
        return resp.content, resp.headers.get_list("x-a"), [resp.content, second.content], n

    body, xa, bodies, n = asyncio.run(main())
    assert body == b"ok" and xa == ["1"] and bodies == [b"ok", b"ok"]
    if b"0\r\n" not in answer:
        assert n == 2  # a connection that sent more than its answer is not used again


def test_a_streamed_request_body_stops_when_the_server_answered_and_closed() -> None:
    # The server answers at once and closes: the rest of the request body is not taken from the
    # iterator (and written to a closed socket) before the answer is given.
    async def main() -> tuple[int, bytes, int]:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await r.readuntil(b"\r\n\r\n")
            w.write(b"HTTP/1.1 413 Payload Too Large\r\ncontent-length: 3\r\nconnection: close\r\n\r\nbig")
            await w.drain()
            w.close()

        taken = 0

        async def parts() -> AsyncIterator[bytes]:
            nonlocal taken
            for _ in range(200):
                taken += 1
                yield b"x" * 1024
                await asyncio.sleep(0.01)

        server, port = await _serve(handler)
        async with _client() as c:
            resp = await c.post(f"http://127.0.0.1:{port}/", content=parts())
        server.close()
        return resp.status_code, resp.content, taken

    status, body, taken = asyncio.run(main())
    assert (status, body) == (413, b"big") and taken < 100


@pytest.mark.parametrize("version", ["HTTP/1.0", "HTTP/1.1"])
def test_the_answer_s_http_version_is_the_one_the_server_sent(version: str) -> None:
    async def main() -> tuple[str, bytes]:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await _request(r)
            w.write(b"%s 200 OK\r\ncontent-length: 2\r\n\r\nok" % version.encode())
            await w.drain()
            w.close()

        server, port = await _serve(handler)
        async with _client() as c:
            resp = await c.get(f"http://127.0.0.1:{port}/")
        server.close()
        return resp.http_version, resp.content

    assert asyncio.run(main()) == (version, b"ok")


def test_an_idle_connection_past_its_expiry_is_closed_while_newer_ones_are_used() -> None:
    # Two connections go idle; the newer one is used again and again: the older one, idle past
    # KEEPALIVE_EXPIRY, is closed, not kept open for as long as the newer one is in use.
    async def main() -> tuple[int, int]:
        ended = asyncio.Event()

        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            while True:
                try:
                    await _request(r)
                except asyncio.IncompleteReadError:
                    ended.set()
                    return
                await asyncio.sleep(0.05)
                w.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                await w.drain()

        server, port = await _serve(handler)
        url = f"http://127.0.0.1:{port}/"
        async with _client() as c:
            t: Any = c._transport
            await asyncio.gather(c.get(url), c.get(url))  # two connections, both idle after
            (idle,) = t._idle.values()
            assert len(idle) == 2
            idle[0].idle_since -= 3600  # the older one: idle for an hour
            for _ in range(3):
                await c.get(url)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ended.wait(), 2)
            opened, left = t.opened, len(idle)
        server.close()
        assert ended.is_set()
        return opened, left

    assert asyncio.run(main()) == (2, 1)


@pytest.mark.parametrize(
    "headers",
    [{"x-a": "1\r\nx-injected: 1"}, {"x-a": "1\nx-injected: 1"}, {"x-a\r\nx-injected": "1"}, {"x-a": "1\0"}],
    ids=["crlf-value", "lf-value", "crlf-name", "nul-value"],
)
def test_a_header_that_would_split_the_request_is_refused_before_anything_is_sent(
    headers: dict[str, str],
) -> None:
    # as httpx's own transport (h11) refuses it: a line break in a header is a second header,
    # or a second request, on the wire
    async def main() -> int:
        n = 0

        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            nonlocal n
            n += 1
            await _request(r)
            w.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            await w.drain()

        server, port = await _serve(handler)
        async with _client() as c:
            with pytest.raises(httpx.LocalProtocolError):
                await c.get(f"http://127.0.0.1:{port}/", headers=headers)
            assert (await c.get(f"http://127.0.0.1:{port}/", headers={"x-a": "1 \t2"})).status_code == 200
        server.close()
        return n

    assert asyncio.run(main()) == 1


def test_a_request_a_reused_connection_dropped_goes_once_more_on_a_new_connection() -> None:
    # Two idle connections the server drops requests on (as a server does when its keep-alive
    # timer ends both together): the second attempt is on a new connection, not the other idle one.
    async def main() -> tuple[int, bytes, int]:
        n = 0

        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            nonlocal n
            n += 1
            await _request(r)
            await asyncio.sleep(0.05)
            w.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            await w.drain()
            if n <= 2:
                await _request(r)  # reads the next request and drops it without an answer
                w.close()

        server, port = await _serve(handler)
        url = f"http://127.0.0.1:{port}/"
        async with _client() as c:
            await asyncio.gather(c.get(url), c.get(url))  # two connections, both idle after
            resp = await c.get(url)
        server.close()
        return resp.status_code, resp.content, n

    assert asyncio.run(main()) == (200, b"ok", 3)


def test_a_request_given_up_on_a_write_timeout_is_not_sent_on_in_the_background() -> None:
    # After the WriteTimeout the rest of the request must not go on to the server (which would
    # then act on a request nobody waits for) and the connection must not stay open to send it.
    total = 64 * 1024 * 1024

    async def main() -> int:
        got: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await asyncio.sleep(1)  # reads nothing for a while: the client's write times out
            n = 0
            try:
                while part := await r.read(1 << 20):
                    n += len(part)
            except ConnectionError:
                pass
            got.set_result(n)

        server, port = await _serve(handler)
        async with _client(timeout=0.3) as c:
            with pytest.raises(httpx.WriteTimeout):
                await c.post(f"http://127.0.0.1:{port}/", content=b"x" * total)
            n = await asyncio.wait_for(got, 10)
        server.close()
        return n

    assert asyncio.run(main()) < total // 2  # what the socket buffers held, not the request


@pytest.mark.parametrize("streamed", [False, True], ids=["bytes", "streamed"])
def test_an_answer_that_closes_the_connection_ends_a_request_body_the_server_does_not_read(
    streamed: bool,
) -> None:
    # RFC 9112 9.5: a client that sees an answer saying the server closes the connection stops
    # sending the body. Here the server answers 413 and reads no more: the answer is the result,
    # not a WriteTimeout once the write limit has passed.
    total = 64 * 1024 * 1024

    async def main() -> tuple[int, bytes, float]:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await r.readuntil(b"\r\n\r\n")
            w.write(b"HTTP/1.1 413 Payload Too Large\r\ncontent-length: 3\r\nconnection: close\r\n\r\nbig")
            await w.drain()
            await asyncio.sleep(5)  # reads no more, keeps the connection open

        async def parts() -> AsyncIterator[bytes]:
            for _ in range(total // 65536):
                yield b"x" * 65536

        server, port = await _serve(handler)
        loop = asyncio.get_running_loop()
        async with _client(timeout=4.0) as c:
            t0 = loop.time()
            content: Any = parts() if streamed else b"x" * total
            resp = await c.post(f"http://127.0.0.1:{port}/", content=content)
            took = loop.time() - t0
        server.close()
        return resp.status_code, resp.content, took

    status, body, took = asyncio.run(main())
    assert (status, body) == (413, b"big") and took < 3.0, took


def test_closing_the_transport_under_a_body_that_ends_with_the_connection_is_an_error_not_its_end() -> None:
    # A body without a length ends when the server closes; the transport closed under it (the
    # gateway shutting down) cuts it off, which its reader must see as an error.
    async def main() -> tuple[list[bytes], type[BaseException] | None]:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await _request(r)
            w.write(b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\npart")
            await w.drain()
            await asyncio.sleep(3)

        server, port = await _serve(handler)
        got: list[bytes] = []
        error: type[BaseException] | None = None
        c = _client()
        try:
            async with c.stream("GET", f"http://127.0.0.1:{port}/") as resp:
                async for part in resp.aiter_raw():
                    got.append(part)
                    await c._transport.aclose()
        except httpx.HTTPError as exc:
            error = type(exc)
        server.close()
        return got, error

    assert asyncio.run(main()) == ([b"part"], httpx.ReadError)


def test_a_head_that_never_ends_is_a_protocol_error_not_memory_without_bound() -> None:
    # as httpcore's h11 limit: an answer's head past 100 KiB is refused while it comes
    async def main() -> tuple[type[BaseException], int]:
        sent = 0

        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            nonlocal sent
            await _request(r)
            w.write(b"HTTP/1.1 200 OK\r\nx-big: ")
            with contextlib.suppress(ConnectionError):
                for _ in range(64):  # 64 MiB of one header if nobody stops it
                    w.write(b"a" * (1 << 20))
                    await w.drain()
                    sent += 1
            await asyncio.sleep(3)

        server, port = await _serve(handler)
        async with _client(timeout=2.0) as c:
            with pytest.raises(httpx.HTTPError) as info:
                await c.get(f"http://127.0.0.1:{port}/")
        server.close()
        return info.type, sent

    error, sent = asyncio.run(main())
    assert error is httpx.RemoteProtocolError and sent < 64


def test_a_header_value_is_without_the_whitespace_around_it() -> None:
    # RFC 9110 5.5: the spaces and tabs around a field value are not part of it (h11 strips them)
    async def main() -> tuple[str, str, bytes]:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await _request(r)
            w.write(b"HTTP/1.1 200 OK\r\ncontent-type:  text/event-stream \t\r\n")
            w.write(b"x-a:\t\r\ncontent-length: 2 \r\n\r\nok")
            await w.drain()

        server, port = await _serve(handler)
        async with _client() as c:
            resp = await c.get(f"http://127.0.0.1:{port}/")
        server.close()
        return resp.headers["content-type"], resp.headers["x-a"], resp.content

    assert asyncio.run(main()) == ("text/event-stream", "", b"ok")
