"""A real OpenAI-compatible upstream for gateway tests: a threaded HTTP server on 127.0.0.1 that
streams a DSML reply in awkward splits, records every request, and records when a client (the
gateway) goes away in the middle of an answer.

The model name picks the behavior (so one server serves every test):

- `dsml` (or anything else): the reply `REPLY` cut every `chunk` characters (default 7),
  with SSE comments and an empty `data:` keep-alive in between; non-streaming: one response.
- `slow`: streams a chunk every 50 ms for 60 s; records a cancel when a write fails.
- `silent`: sends the headers and a first chunk, then nothing; records a cancel when the
  connection closes.
- `cut`: streams half the reply and closes the connection without `[DONE]`.
- `think`: `THINK` (reasoning with a draft call) and then `REPLY`, streamed as `dsml`.
- `repair`: `REPAIR` (the reply without its opening wrapper), streamed as `dsml` or whole.
- `error`: answers 429 with an OpenAI error body.
- `hang`: does not answer at all (no headers) for 60 s.
- `upper`: as `dsml`, with the media type in other cases (`TEXT/EVENT-STREAM`,
  `Application/JSON; Charset=UTF-8`).
- `bigindex`: as `dsml`, with `choices[0].index` written `1e300`.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

CODE = 'def f():\n    return "]]>" if x < 1 else {"a": 1}\n'
REPLY = (
    "好的，我先读一下文件。\n\n"
    "<|DSML|tool_calls>\n"
    '<|DSML|invoke name="read_file">\n'
    '<|DSML|parameter name="path">1</|DSML|parameter>\n'
    '<|DSML|parameter name="limit">20</|DSML|parameter>\n'
    "</|DSML|invoke>\n"
    '<|DSML|invoke name="mcp.write-file">\n'
    '<|DSML|parameter name="path"><![CDATA[src/f.py]]></|DSML|parameter>\n'
    f'<|DSML|parameter name="content"><![CDATA[{CODE}]]></|DSML|parameter>\n'
    "</|DSML|invoke>\n"
    "</|DSML|tool_calls>\n\n"
    "然后再写。"
)
CLEAN = "好的，我先读一下文件。\n\n\n\n然后再写。"
REPAIR = REPLY.replace("<|DSML|tool_calls>\n", "", 1)  # no opening wrapper: the sieve repairs it (R3)
THINK = '<think>Plan: <|DSML|tool_calls><|DSML|invoke name="rm"></|DSML|invoke></|DSML|tool_calls></think>'

WANT_CALLS = [
    ("read_file", {"path": "1", "limit": 20}),
    ("write_file", {"path": "src/f.py", "content": CODE}),
]
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "description": "Write a file.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    },
]
BASE = {
    "id": "chatcmpl-up",
    "object": "chat.completion.chunk",
    "created": 1700000000,
    "model": "deepseek-chat",
}


def sse(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n"


def chunk(content: str | None = None, finish: str | None = None, role: bool = False) -> dict[str, Any]:
    delta: dict[str, Any] = {}
    if role:
        delta["role"] = "assistant"
    if content is not None:
        delta["content"] = content
    return {**BASE, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def stream_bytes(text: str, size: int) -> Iterator[bytes]:
    """The reply as an upstream streams it, with comments and a keep-alive, in byte pieces that
    cut events (and UTF-8 characters) anywhere."""
    out = bytearray(sse(chunk("", role=True)))
    out += b": keep-alive\n\n"
    for i in range(0, len(text), size):
        out += sse(chunk(text[i : i + size]))
        if i == size * 3:
            out += b"data: \n\n"  # an empty keep-alive event
    out += sse(chunk(finish="stop"))
    out += sse(
        {**BASE, "choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 22, "total_tokens": 33}}
    )
    out += b"data: [DONE]\n\n"
    data = bytes(out)
    cuts = [5, 1, 13, 2, 29, 3]  # awkward: inside "data:", inside multi-byte characters
    i = k = 0
    while i < len(data):
        n = cuts[k % len(cuts)] * 17
        yield data[i : i + n]
        i += n
        k += 1


def response(text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-up",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "deepseek-chat",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 22, "total_tokens": 33},
    }


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    chunk_size: ClassVar[int] = 7
    requests: ClassVar[list[dict[str, Any]]] = []
    headers_seen: ClassVar[list[dict[str, str]]] = []
    cancels: ClassVar[list[tuple[str, float]]] = []  # (model, time the cancel was seen)
    lock: ClassVar[threading.Lock] = threading.Lock()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, status: int, obj: Any, ctype: str = "application/json") -> None:
        out = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def do_GET(self) -> None:
        if self.path.endswith("/models"):
            self._json(
                200,
                {"object": "list", "data": [{"id": "deepseek-chat", "object": "model", "owned_by": "up"}]},
            )
        else:
            self._json(404, {"error": {"message": "no such path", "type": "invalid_request_error"}})

    def _cancelled(self, model: str) -> None:
        with Upstream.lock:
            Upstream.cancels.append((model, time.monotonic()))

    def _start_stream(self, ctype: str = "text/event-stream") -> None:
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _wait_for_close(self, model: str, seconds: float) -> None:
        sock: socket.socket = self.connection
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            r, _, _ = select.select([sock], [], [], 0.02)
            if r:
                try:
                    data = sock.recv(1024)
                except OSError:
                    data = b""
                if not data:
                    self._cancelled(model)
                    return

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with Upstream.lock:
            Upstream.requests.append(body)
            Upstream.headers_seen.append({k.lower(): v for k, v in self.headers.items()})
        model = str(body.get("model", ""))
        if model == "error":
            self._json(429, {"error": {"message": "slow down", "type": "rate_limit", "code": "rate_limit"}})
            return
        if model == "hang":
            self._wait_for_close(model, 60)
            self.close_connection = True
            return
        if model == "cookie":  # an upstream that sets a cookie: no later caller may send it back
            out = json.dumps(response(REPLY)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Set-Cookie", "session=caller-one; Path=/")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
            return
        if not body.get("stream"):
            obj = response(REPAIR if model == "repair" else REPLY)
            if model == "bigindex":
                obj["choices"][0]["index"] = 1e300
            self._json(
                200, obj, "Application/JSON; Charset=UTF-8" if model == "upper" else "application/json"
            )
            return
        self._start_stream("TEXT/EVENT-STREAM" if model == "upper" else "text/event-stream")
        try:
            if model == "slow":
                end = time.monotonic() + 60
                self.wfile.write(sse(chunk("", role=True)))
                while time.monotonic() < end:
                    self.wfile.write(sse(chunk("tick ")))
                    self.wfile.flush()
                    time.sleep(0.05)
                return
            if model == "silent":
                self.wfile.write(sse(chunk("hello", role=True)))
                self.wfile.flush()
                self._wait_for_close(model, 60)
                return
            text = THINK + REPLY if model == "think" else REPAIR if model == "repair" else REPLY
            pieces = list(stream_bytes(text, Upstream.chunk_size))
            if model == "bigindex":
                pieces = [b"".join(pieces).replace(b'"index": 0', b'"index": 1e300')]
            if model == "cut":
                pieces = pieces[: len(pieces) // 2]
            for p in pieces:
                self.wfile.write(p)
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self._cancelled(model)


class UpstreamServer:
    def __init__(self) -> None:
        ThreadingHTTPServer.daemon_threads = True
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> UpstreamServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)
