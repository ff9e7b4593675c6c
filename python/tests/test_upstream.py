"""The gateway's upstream network backend (toolsieve.upstream) against real local servers: reads,
backpressure, timeouts, a closed keep-alive connection, connection errors, TLS, and httpx on top."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

httpcore = pytest.importorskip("httpcore")
httpx = pytest.importorskip("httpx")

from toolsieve.upstream import HIGH_WATER, AsyncioBackend, client  # noqa: E402

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _serve(handler: Handler, ssl_context: ssl.SSLContext | None = None) -> tuple[Any, int]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0, ssl=ssl_context)
    return server, server.sockets[0].getsockname()[1]


def test_reads_what_the_server_writes_then_end_of_input() -> None:
    async def main() -> list[bytes]:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            w.write(b"hello " * 5)
            await w.drain()
            w.close()

        server, port = await _serve(handler)
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
        got = []
        while data := await stream.read(4, timeout=5):
            got.append(data)
        await stream.aclose()
        server.close()
        return got

    got = asyncio.run(main())
    assert b"".join(got) == b"hello " * 5
    assert max(map(len, got)) <= 4  # never more than asked for


def test_a_reader_that_does_not_read_stops_the_socket_reading() -> None:
    total = 16 * 1024 * 1024

    async def main() -> tuple[int, int]:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            block = b"x" * 65536
            for _ in range(total // len(block)):
                w.write(block)
                await w.drain()
            w.close()

        server, port = await _serve(handler)
        stream: Any = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
        await asyncio.sleep(0.5)  # the server writes as fast as it can, nobody reads
        held = stream._protocol.size
        n = 0
        while data := await stream.read(65536, timeout=5):
            n += len(data)
        server.close()
        return held, n

    held, n = asyncio.run(main())
    assert held <= HIGH_WATER + 4 * 65536  # bounded, not the 16 MB written
    assert n == total  # and nothing lost after it resumed


def test_a_silent_server_is_a_read_timeout() -> None:
    async def main() -> None:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await asyncio.sleep(5)

        server, port = await _serve(handler)
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
        with pytest.raises(httpcore.ReadTimeout):
            await stream.read(10, timeout=0.2)
        await stream.aclose()
        server.close()

    asyncio.run(main())


def test_an_idle_connection_the_server_closed_is_readable() -> None:
    async def main() -> tuple[bool, bool]:
        closed = asyncio.Event()

        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await asyncio.sleep(0.1)
            w.close()
            closed.set()

        server, port = await _serve(handler)
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
        before = stream.get_extra_info("is_readable")
        await closed.wait()
        await asyncio.sleep(0.1)
        after = stream.get_extra_info("is_readable")
        server.close()
        return before, after

    assert asyncio.run(main()) == (False, True)


def test_no_server_is_a_connect_error_and_the_addresses_are_known() -> None:
    async def main() -> None:
        server, port = await _serve(lambda r, w: asyncio.sleep(0))
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
        assert stream.get_extra_info("server_addr")[1] == port
        assert stream.get_extra_info("client_addr")[0] == "127.0.0.1"
        assert stream.get_extra_info("socket") is not None
        assert stream.get_extra_info("ssl_object") is None
        await stream.aclose()
        server.close()
        await server.wait_closed()
        with pytest.raises(httpcore.ConnectError):
            await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)

    asyncio.run(main())


def test_writing_to_a_closed_connection_is_a_write_error() -> None:
    async def main() -> None:
        server, port = await _serve(lambda r, w: asyncio.sleep(0))
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
        await stream.aclose()
        with pytest.raises(httpcore.WriteError):
            await stream.write(b"x")
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

    async def main() -> tuple[int, str]:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            await r.readuntil(b"\r\n\r\n")
            w.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            await w.drain()

        server, port = await _serve(handler, server_ctx)
        c = client(httpx.Timeout(5.0), httpx.Limits(), shards=1)
        # the pool's own SSL context is httpx's default: give it the test certificate
        pool: Any = c._transport._pool  # type: ignore[attr-defined]
        pool._ssl_context.load_verify_locations(cert)
        async with c:
            resp = await c.get(f"https://localhost:{port}/")
        server.close()
        return resp.status_code, resp.text

    assert asyncio.run(main()) == (200, "ok")


@pytest.mark.parametrize(("shards", "requests", "conns"), [(1, 3, 1), (8, 16, 8)])
def test_the_client_uses_the_backend_and_keeps_connections(shards: int, requests: int, conns: int) -> None:
    async def main() -> tuple[list[str], int]:
        opened = 0

        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            nonlocal opened
            opened += 1
            while True:
                try:
                    await r.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:
                    return
                w.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                    b"transfer-encoding: chunked\r\n\r\n"
                )
                for part in (b"data: 1\n\n", b"data: 2\n\n"):
                    w.write(b"%x\r\n%s\r\n" % (len(part), part))
                    await w.drain()
                w.write(b"0\r\n\r\n")
                await w.drain()

        server, port = await _serve(handler)
        c = client(httpx.Timeout(5.0), httpx.Limits(), shards=shards)
        t: Any = c._transport
        for pool_transport in [t] if shards == 1 else t._transports:
            assert isinstance(pool_transport._pool._network_backend, AsyncioBackend)
        bodies = []
        async with c:
            for _ in range(requests):
                async with c.stream("GET", f"http://127.0.0.1:{port}/") as resp:
                    bodies.append(b"".join([p async for p in resp.aiter_raw()]).decode())
        server.close()
        return bodies, opened

    bodies, made = asyncio.run(main())
    assert bodies == ["data: 1\n\ndata: 2\n\n"] * requests
    assert made == conns  # one keep-alive connection per pool, used again


def test_a_unix_socket_and_sleep(tmp_path: Path) -> None:
    path = str(tmp_path / "s")

    async def main() -> bytes:
        async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            w.write(await r.readexactly(4))
            await w.drain()
            w.close()

        server = await asyncio.start_unix_server(handler, path)
        backend = AsyncioBackend()
        stream = await backend.connect_unix_socket(path, timeout=5)
        await stream.write(b"ping", timeout=5)
        await backend.sleep(0.01)
        data = await stream.read(10, timeout=5)
        await stream.aclose()
        server.close()
        return data

    assert asyncio.run(main()) == b"ping"
