"""The streamed answer (`_SSEResponse`): the upstream's SSE events read as they come, each rewritten
by the stream rewriter and written at once, with the gateway's own keep-alives, backpressure, the
upstream request cancelled when the client leaves, and a visible end for a stream that breaks
(callsieve.server's docstring, Streams)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterable, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

import httpx
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from .chunks import ChatCompletionStreamRewriter
from .errors import OpenAIFormatError, SSEFormatError
from .jsontext import json_text
from .metrics import _Outcome
from .sse import DONE, SSEComment, SSEEvent, SSEParser, sse_event
from .strings import json_trim
from .upstream import Body as UpstreamBody

if TYPE_CHECKING:
    from .gateway import _Gateway

log = logging.getLogger("callsieve.server")

_KEEPALIVE: Final = b": keep-alive\n\n"
_DONE_BYTES: Final = b"data: [DONE]\n\n"
_chunk_bytes: Final = sse_event  # `data: <json_text(chunk)>\n\n`, at json.dumps speed when it can
_MAX_INDEX: Final = 2**53 - 1


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


def _error_event(message: str, type_: str) -> bytes:
    body = {"error": {"message": message, "type": type_, "param": None, "code": None}}
    return b"data: " + json_text(body).encode("utf-8") + b"\n\n"


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
