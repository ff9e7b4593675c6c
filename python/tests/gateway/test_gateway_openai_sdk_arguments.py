"""R16.5 with the official `openai` SDK: with `stream_arguments=True` the gateway streams each
call the way OpenAI's API does, so the SDK's `.stream()` helper emits
`tool_calls.function.arguments.delta` events while the upstream is still writing the call, and
its accumulated final message is the same as with the option off.

The upstream pauses in the middle of a long `write_file` body until the client has seen an
arguments delta: without incremental arguments that delta could only come after the pause, so the
pause would run into its timeout and the test fails."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from callsieve.openai import rewrite_chat_completion_stream
from callsieve.sse import write_sse

openai = pytest.importorskip("openai")

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            },
        },
    },
    {"type": "function", "function": {"name": "run", "parameters": {"type": "object", "properties": {}}}},
]
BODY = "".join(f"line {i}: x = {i} < {i + 1} and '\\u00e9'\n" for i in range(400))
REPLY = (
    "<think>I will write the file.</think>Writing it now.\n"
    "<|DSML|tool_calls>\n"
    '<|DSML|invoke name="write_file">\n'
    '<|DSML|parameter name="path">src/big.py</|DSML|parameter>\n'
    f'<|DSML|parameter name="content"><![CDATA[{BODY}]]></|DSML|parameter>\n'
    "</|DSML|invoke>\n"
    '<|DSML|invoke name="run">\n</|DSML|invoke>\n'
    "</|DSML|tool_calls>"
)
PAUSE_AT = REPLY.index(BODY) + len(BODY) // 2  # the upstream stops here until the client reacts


class Upstream(BaseHTTPRequestHandler):
    stream_arguments = False
    seen_delta = threading.Event()
    paused_ok: ClassVar[list[bool]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def chunks(self) -> Iterator[dict[str, Any]]:
        base = {
            "id": "chatcmpl-a",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "deepseek-reasoner",
        }
        for i in range(0, len(REPLY), 16):
            if i <= PAUSE_AT < i + 16 and self.stream_arguments:
                # wait for the client to see arguments of the call being written
                Upstream.paused_ok.append(Upstream.seen_delta.wait(15))
            yield {
                **base,
                "choices": [{"index": 0, "delta": {"content": REPLY[i : i + 16]}, "finish_reason": None}],
            }
        yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        counter = iter(range(1, 100))
        out = rewrite_chat_completion_stream(
            self.chunks(),
            tools=TOOLS,
            stream_arguments=self.stream_arguments,
            id_factory=lambda: f"call_{next(counter)}",
        )
        for data in write_sse(out):
            self.wfile.write(data)
            self.wfile.flush()
        self.close_connection = True


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    c = openai.OpenAI(
        api_key="k",
        base_url=f"http://127.0.0.1:{server.server_address[1]}/v1",
        max_retries=0,
        timeout=30,
        http_client=openai.DefaultHttpxClient(trust_env=False),
    )
    try:
        yield c
    finally:
        c.close()
        server.shutdown()
        server.server_close()


def run(client: Any, stream_arguments: bool) -> tuple[Any, list[Any]]:
    Upstream.stream_arguments = stream_arguments
    Upstream.seen_delta.clear()
    Upstream.paused_ok.clear()
    events = []
    with client.chat.completions.stream(
        model="m", messages=[{"role": "user", "content": "go"}], tools=TOOLS
    ) as s:
        for e in s:
            events.append(e)
            if e.type == "tool_calls.function.arguments.delta":
                Upstream.seen_delta.set()
        final = s.get_final_completion()
    return final, events


def test_final_message_is_the_same_with_and_without_incremental_arguments(client: Any) -> None:
    off, _ = run(client, False)
    on, events = run(client, True)
    a, b = off.choices[0], on.choices[0]
    assert a.finish_reason == b.finish_reason == "tool_calls"
    assert a.message.content == b.message.content == "Writing it now.\n"
    assert [tc.model_dump() for tc in a.message.tool_calls] == [
        tc.model_dump() for tc in b.message.tool_calls
    ]
    args = json.loads(b.message.tool_calls[0].function.arguments)
    assert args == {"path": "src/big.py", "content": BODY}
    assert json.loads(b.message.tool_calls[1].function.arguments) == {}
    deltas = [e for e in events if e.type == "tool_calls.function.arguments.delta"]
    assert len(deltas) > 100  # the 21 KB body arrived in pieces, not in one delta


def test_argument_deltas_arrive_while_the_upstream_is_still_writing(client: Any) -> None:
    run(client, True)
    assert Upstream.paused_ok == [True], "no arguments delta reached the client before the upstream paused"
