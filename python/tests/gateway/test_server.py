"""The gateway servers as a user runs them: `callsieve serve` (Python, Starlette + uvicorn) and
`callsieve-gateway` (the Node package's bin), each started as a process in front of a real local
upstream (`upstream.py`), and read by the official `openai` SDK (sync, async, `stream=True`, the
`.stream()` helper, non-streaming) and by plain HTTP: cancellation, keep-alives, timeouts, error
mapping, bad flags. Skipped when the server extra or the SDK is not installed."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import time
from typing import Any

import pytest
from server_support import (
    KINDS,
    NODE_BIN,
    Gateway,
    check_calls,
    command,
    free_port,
    messages,
    node,
    sdk,
    shebang_flags,
    wait_for_cancel,
)
from upstream import CLEAN, REPLY, THINK, TOOLS, WANT_CALLS, Upstream, UpstreamServer

openai = pytest.importorskip("openai")
httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")


def test_the_node_bin_runs_as_npx_runs_it() -> None:
    env = {**os.environ, "PATH": f"{node().parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    out = subprocess.run([str(NODE_BIN), "--help"], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr  # node accepted the shebang's flags
    assert out.stdout.startswith("usage: callsieve-gateway")
    assert "--max-semi-space-size=4" in shebang_flags()


def accumulate(chunks: Any) -> tuple[str, list[tuple[str, Any]], Any]:
    content: list[str] = []
    calls: dict[int, dict[str, str]] = {}
    finish = None
    for chunk in chunks:
        for choice in chunk.choices:
            d = choice.delta
            if d.content:
                content.append(d.content)
            for tc in d.tool_calls or []:
                slot = calls.setdefault(tc.index, {"name": "", "arguments": ""})
                slot["name"] += (tc.function.name or "") if tc.function else ""
                slot["arguments"] += (tc.function.arguments or "") if tc.function else ""
            finish = choice.finish_reason or finish
    got = [(calls[i]["name"], json.loads(calls[i]["arguments"])) for i in sorted(calls)]
    return "".join(content), got, finish


@pytest.mark.parametrize("kind", KINDS)
def test_sdk_stream_helper(gateways: Any, kind: str) -> None:
    with (
        sdk(gateways(kind).url) as client,
        client.chat.completions.stream(model="dsml", messages=messages(), tools=TOOLS) as stream,
    ):
        events = list(stream)
        final = stream.get_final_completion()
    choice = final.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == CLEAN
    check_calls(choice.message.tool_calls)
    assert "<|DSML|" not in "".join(e.delta for e in events if e.type == "content.delta")
    assert final.usage is not None and final.usage.total_tokens == 33
    assert Upstream.requests[-1]["tools"] == TOOLS  # passthrough: the request went up as is


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("size", [1, 3, 64])
def test_sdk_create_stream_in_awkward_splits(gateways: Any, kind: str, size: int) -> None:
    Upstream.chunk_size = size
    try:
        with sdk(gateways(kind).url) as client:
            content, calls, finish = accumulate(
                client.chat.completions.create(model="dsml", messages=messages(), tools=TOOLS, stream=True)
            )
    finally:
        Upstream.chunk_size = 7
    assert content == CLEAN
    assert calls == WANT_CALLS
    assert finish == "tool_calls"


@pytest.mark.parametrize("kind", KINDS)
def test_sdk_non_streaming(gateways: Any, kind: str) -> None:
    with sdk(gateways(kind).url) as client:
        resp = client.chat.completions.create(model="dsml", messages=messages(), tools=TOOLS)
    assert resp.choices[0].finish_reason == "tool_calls"
    assert resp.choices[0].message.content == CLEAN
    check_calls(resp.choices[0].message.tool_calls)
    assert resp.usage.total_tokens == 33


@pytest.mark.parametrize("kind", KINDS)
def test_sdk_async_stream_and_non_streaming(gateways: Any, kind: str) -> None:
    url = gateways(kind).url

    async def main() -> tuple[Any, Any]:
        async with openai.AsyncOpenAI(
            api_key="k",
            base_url=url,
            max_retries=0,
            timeout=20,
            http_client=openai.DefaultAsyncHttpxClient(trust_env=False),
        ) as client:
            stream = await client.chat.completions.create(
                model="dsml", messages=messages(), tools=TOOLS, stream=True
            )
            chunks = [c async for c in stream]
            resp = await client.chat.completions.create(model="dsml", messages=messages(), tools=TOOLS)
            return chunks, resp

    chunks, resp = asyncio.run(main())
    content, calls, finish = accumulate(chunks)
    assert (content, calls, finish) == (CLEAN, WANT_CALLS, "tool_calls")
    check_calls(resp.choices[0].message.tool_calls)


@pytest.mark.parametrize("kind", KINDS)
def test_prompt_mode_sends_instructions_and_history_as_text(gateways: Any, kind: str) -> None:
    history = [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": "Read 1."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path":"1"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "one"},
    ]
    with sdk(gateways(kind, "--mode", "prompt").url) as client:
        stream = client.chat.completions.create(
            model="dsml", messages=history, tools=TOOLS, tool_choice="required", stream=True
        )
        content, calls, finish = accumulate(stream)
        sent = Upstream.requests[-1]
        none = client.chat.completions.create(model="dsml", messages=history, tools=TOOLS, tool_choice="none")
        sent_none = Upstream.requests[-1]
    assert (content, calls, finish) == (CLEAN, WANT_CALLS, "tool_calls")
    assert "tools" not in sent and "tool_choice" not in sent
    system = sent["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("Be brief.\n\n# Tools")
    assert "### read_file" in system["content"] and "You must call at least one tool" in system["content"]
    assert [m["role"] for m in sent["messages"]] == ["system", "user", "assistant", "user"]
    assert '<|DSML|invoke name="read_file">' in sent["messages"][2]["content"]
    assert sent["messages"][3]["content"] == "Result of read_file (id c1):\none"
    # tool_choice none: no instructions, and the reply's markup stays text
    assert "# Tools" not in json.dumps(sent_none["messages"])
    assert none.choices[0].message.tool_calls is None
    assert none.choices[0].message.content == REPLY


def raw_stream(url: str, model: str, timeout: float = 20) -> tuple[int, bytes]:
    body = {"model": model, "messages": messages(), "stream": True}
    with (
        httpx.Client(trust_env=False, timeout=timeout) as c,
        c.stream("POST", url + "/chat/completions", json=body) as r,
    ):
        return r.status_code, b"".join(r.iter_bytes())


@pytest.mark.parametrize("kind", KINDS)
def test_upstream_comments_reach_the_client_and_done_is_kept(gateways: Any, kind: str) -> None:
    status, data = raw_stream(gateways(kind).url, "dsml")
    assert status == 200
    assert data.count(b": keep-alive\n\n") >= 2  # the comment and the empty data: event
    assert data.endswith(b"data: [DONE]\n\n")
    assert b"data: \n" not in data


@pytest.mark.parametrize("kind", KINDS)
def test_cut_stream_gets_no_made_up_done(gateways: Any, kind: str) -> None:
    status, data = raw_stream(gateways(kind).url, "cut")
    assert status == 200
    assert b"[DONE]" not in data
    assert b'"content":"' in data


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("model", ["slow", "silent"])
def test_client_disconnect_cancels_the_upstream_within_a_second(gateways: Any, kind: str, model: str) -> None:
    g = gateways(kind)
    host, port = g.base.removeprefix("http://").split(":")
    body = json.dumps({"model": model, "stream": True, "messages": []}).encode()
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        got = s.recv(4096)
        assert b"200" in got.split(b"\r\n")[0]
        time.sleep(0.2)
        left = time.monotonic()
    took = wait_for_cancel(model, left, 3)
    assert took is not None, "the upstream request was not cancelled"
    assert took < 1.0, took


@pytest.mark.parametrize("kind", KINDS)
def test_silent_upstream_ends_the_stream_visibly_after_the_timeout(gateways: Any, kind: str) -> None:
    g = gateways(kind, "--timeout", "0.5", "--keepalive", "0.2")
    t0 = time.monotonic()
    status, data = raw_stream(g.url, "silent")
    assert status == 200
    assert time.monotonic() - t0 < 5
    assert b": keep-alive\n\n" in data  # the gateway's own keep-alive while nothing came
    assert b"upstream_timeout" in data
    assert b"[DONE]" not in data
    with sdk(g.url) as client, pytest.raises(openai.APIError):
        for _ in client.chat.completions.create(model="silent", messages=messages(), stream=True):
            pass


@pytest.mark.parametrize("kind", KINDS)
def test_upstream_error_keeps_status_and_body(gateways: Any, kind: str) -> None:
    url = gateways(kind).url
    r = httpx.post(url + "/chat/completions", json={"model": "error", "messages": []}, trust_env=False)
    assert r.status_code == 429
    assert r.json()["error"]["message"] == "slow down"
    with sdk(url) as client, pytest.raises(openai.RateLimitError):
        client.chat.completions.create(model="error", messages=messages())


@pytest.mark.parametrize("kind", KINDS)
def test_unreachable_upstream_is_502_and_silent_one_504(gateways: Any, kind: str) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    g = gateways(kind, upstream_url=dead)
    r = httpx.post(g.url + "/chat/completions", json={"model": "m", "messages": []}, trust_env=False)
    assert r.status_code == 502
    assert r.json()["error"]["type"] == "upstream_error"
    g2 = gateways(kind, "--timeout", "0.5")
    r = httpx.post(
        g2.url + "/chat/completions", json={"model": "hang", "messages": []}, trust_env=False, timeout=10
    )
    assert r.status_code == 504
    assert r.json()["error"]["type"] == "upstream_timeout"


@pytest.mark.parametrize("kind", KINDS)
def test_models_healthz_metrics_and_api_key(gateways: Any, kind: str) -> None:
    g = gateways(kind, "--upstream-api-key", "sk-upstream")
    with sdk(g.url) as client:
        assert [m.id for m in client.models.list()] == ["deepseek-chat"]
        client.chat.completions.create(model="dsml", messages=messages(), tools=TOOLS)
    assert Upstream.headers_seen[-1]["authorization"] == "Bearer sk-upstream"
    assert httpx.get(g.base + "/healthz", trust_env=False).json() == {"status": "ok"}
    metrics = httpx.get(g.base + "/metrics", trust_env=False).text
    assert "callsieve_tool_calls_total 2" in metrics
    assert 'callsieve_requests_total{endpoint="chat",status="200"}' in metrics
    # the client's own key goes upstream only with --forward-client-key
    with sdk(gateways(kind).url) as client:
        client.chat.completions.create(model="dsml", messages=messages())
    assert "authorization" not in Upstream.headers_seen[-1]
    with sdk(gateways(kind, "--forward-client-key").url) as client:
        client.chat.completions.create(model="dsml", messages=messages())
    assert Upstream.headers_seen[-1]["authorization"] == "Bearer test-key"


@pytest.mark.parametrize("kind", KINDS)
def test_an_upstream_cookie_is_not_sent_for_the_next_caller(gateways: Any, kind: str) -> None:
    g = gateways(kind)
    with sdk(g.url) as client:
        client.chat.completions.create(model="cookie", messages=messages())
        client.chat.completions.create(model="cookie", messages=messages())
    assert "cookie" not in Upstream.headers_seen[-1]


@pytest.mark.parametrize("kind", KINDS)
def test_repaired_blocks_are_logged_and_counted(gateways: Any, kind: str) -> None:
    """A reply whose block lacks its opening wrapper (R3): the sieve repairs it, the request's
    log line says `repaired=1` and /metrics counts it (streaming and not); a reply that needs no
    repair logs `repaired=0`."""
    g = gateways(kind, "--keepalive", "14")  # a gateway of its own: its counters start at 0
    with sdk(g.url) as client:
        _, calls, _ = accumulate(
            client.chat.completions.create(model="repair", messages=messages(), tools=TOOLS, stream=True)
        )
        assert calls == WANT_CALLS
        check_calls(
            client.chat.completions.create(model="repair", messages=messages(), tools=TOOLS)
            .choices[0]
            .message.tool_calls
        )
        client.chat.completions.create(model="dsml", messages=messages(), tools=TOOLS)
    lines: list[str] = []
    for _ in range(100):
        lines = [ln for ln in g.stderr().splitlines() if "/v1/chat/completions 200 " in ln]
        if len(lines) == 3:
            break
        time.sleep(0.05)
    assert len(lines) == 3, g.stderr()
    assert " stream=yes blocks=1 calls=2 rejected=- repaired=1 capture_limit=0 end=done" in lines[0]
    assert " stream=no blocks=1 calls=2 rejected=- repaired=1 capture_limit=0" in lines[1]
    assert " stream=no blocks=1 calls=2 rejected=- repaired=0 capture_limit=0" in lines[2]
    metrics = httpx.get(g.base + "/metrics", trust_env=False).text
    assert re.search(r"^callsieve_repaired_blocks_total 2(\.0)?$", metrics, re.M), metrics
    assert re.search(r"^callsieve_blocks_total 3(\.0)?$", metrics, re.M), metrics


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("args", "env"),
    [
        ((), {}),
        (("--upstream", "http://x", "--bogus"), {}),
        (("--upstream", "http://x", "--mode", "fast"), {}),
        (("--upstream", "http://x", "--port", "70000"), {}),
        (("--upstream", "http://x", "--timeout", "-1"), {}),
        (("--upstream", "ftp://x"), {}),
        (("--upstream", "http://x"), {"CALLSIEVE_UNKNOWN_TOOLS": "drop"}),
        ((), {"CALLSIEVE_UPSTREAM": "http://x", "CALLSIEVE_PORT": "no"}),
        (("--upstream", "http://x", "--workers", "0"), {}),
        (("--upstream", "http://x"), {"CALLSIEVE_WORKERS": "two"}),
        (("--upstream", "http://x", "--preset", "nope"), {}),
        (("--upstream", "http://x", "--preset-map", "qwen*"), {}),
        (("--upstream", "http://x", "--preset-map", "=qwen3"), {}),
        (("--upstream", "http://x"), {"CALLSIEVE_PRESET_MAP": "qwen*=nope"}),
    ],
)
def test_bad_flags_are_usage_errors(kind: str, args: tuple[str, ...], env: dict[str, str]) -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith("CALLSIEVE_")}
    r = subprocess.run(command(kind, *args), env={**base, **env}, capture_output=True, text=True, timeout=30)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.strip()


@pytest.mark.parametrize("kind", KINDS)
def test_flags_from_the_environment(upstream: UpstreamServer, kind: str) -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith("CALLSIEVE_")}
    env = {**base, "CALLSIEVE_UPSTREAM": upstream.url, "CALLSIEVE_PORT": "0", "CALLSIEVE_MODE": "prompt"}
    proc = subprocess.Popen(command(kind), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening on http://" in line
        with sdk(line.split()[-1] + "/v1") as client:
            client.chat.completions.create(model="dsml", messages=messages(), tools=TOOLS)
        assert "tools" not in Upstream.requests[-1]  # prompt mode, from the environment
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


@pytest.mark.parametrize("kind", KINDS)
def test_prompt_mode_tool_choice_none_streams_the_reply_as_it_is(gateways: Any, kind: str) -> None:
    with sdk(gateways(kind, "--mode", "prompt").url) as client:
        content, calls, finish = accumulate(
            client.chat.completions.create(
                model="dsml", messages=messages(), tools=TOOLS, tool_choice="none", stream=True
            )
        )
    assert (content, calls, finish) == (REPLY, [], "stop")
    assert "tools" not in Upstream.requests[-1]


@pytest.mark.parametrize("kind", KINDS)
def test_prompt_mode_tool_choice_none_still_takes_reasoning_out(gateways: Any, kind: str) -> None:
    """`tool_choice: "none"` in prompt mode goes through the rewriter as in passthrough mode: the
    markup stays text, the reasoning before it comes out as reasoning_content (it used to stay in
    the content, unlike passthrough mode's answer to the same request)."""
    for mode in ("prompt", "passthrough"):
        with sdk(gateways(kind, "--mode", mode).url) as client:
            chunks = list(
                client.chat.completions.create(
                    model="think", messages=messages(), tools=TOOLS, tool_choice="none", stream=True
                )
            )
        deltas = [c.choices[0].delta for c in chunks if c.choices]
        assert "".join(d.content or "" for d in deltas) == REPLY, mode
        reasoning = "".join((d.model_extra or {}).get("reasoning_content") or "" for d in deltas)
        assert reasoning == THINK.removeprefix("<think>").removesuffix("</think>"), mode
        assert not any(d.tool_calls for d in deltas), mode
        assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == [
            "stop"
        ]


@pytest.mark.parametrize("kind", KINDS)
def test_tool_choice_and_parallel_tool_calls_are_honored(gateways: Any, kind: str) -> None:
    """The request's `tool_choice` and `parallel_tool_calls` reach the rewriters, streaming and
    not: a named function keeps only its calls, `parallel_tool_calls: false` only the first call,
    `"none"` leaves the markup as text."""
    read, write = WANT_CALLS
    cases: list[tuple[dict[str, Any], list[tuple[str, Any]], str]] = [
        ({"tool_choice": {"type": "function", "function": {"name": "write_file"}}}, [write], CLEAN),
        ({"parallel_tool_calls": False}, [read], CLEAN),
        ({"tool_choice": "required", "parallel_tool_calls": True}, [read, write], CLEAN),
        ({"tool_choice": "none"}, [], REPLY),
    ]
    with sdk(gateways(kind).url) as client:
        for extra, want, text in cases:
            resp = client.chat.completions.create(model="dsml", messages=messages(), tools=TOOLS, **extra)
            msg = resp.choices[0].message
            got = [(tc.function.name, json.loads(tc.function.arguments)) for tc in msg.tool_calls or []]
            assert (msg.content, got) == (text, want), extra
            assert resp.choices[0].finish_reason == ("tool_calls" if want else "stop"), extra
            stream = client.chat.completions.create(
                model="dsml", messages=messages(), tools=TOOLS, stream=True, **extra
            )
            assert accumulate(stream) == (text, want, "tool_calls" if want else "stop"), extra
            assert {k: Upstream.requests[-1].get(k) for k in extra} == extra  # passthrough: as sent


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("mode", ["passthrough", "prompt"])
def test_a_tool_choice_openai_does_not_accept_is_a_400(gateways: Any, kind: str, mode: str) -> None:
    g = gateways(kind, "--mode", mode)
    sent = len(Upstream.requests)
    with sdk(g.url) as client:
        for extra in (
            {"tool_choice": "sometimes"},
            {"tool_choice": {"type": "function"}},
            {"parallel_tool_calls": "yes"},
        ):
            for stream in (False, True):
                with pytest.raises(openai.BadRequestError) as exc:
                    client.chat.completions.create(
                        model="dsml", messages=messages(), tools=TOOLS, stream=stream, **extra
                    )
                err = exc.value.body
                assert isinstance(err, dict) and set(err) == {"message", "type", "param", "code"}, err
                assert err["type"] == "invalid_request_error"
                assert next(iter(extra)) in err["message"], err
    assert len(Upstream.requests) == sent  # nothing went upstream


@pytest.mark.parametrize("kind", KINDS)
def test_reasoning_and_incremental_arguments_flags(gateways: Any, kind: str) -> None:
    """`--stream-arguments` (R16.5) and `--reasoning` (R15.4) through each server: the SDK sees
    argument fragments, reasoning_content without the draft call, and the same final message."""
    gw = gateways(kind, "--stream-arguments", "--reasoning", "auto", "--formats", "dsml")
    with (
        sdk(gw.url) as client,
        client.chat.completions.stream(model="think", messages=messages(), tools=TOOLS) as stream,
    ):
        events = list(stream)
        final = stream.get_final_completion()
    choice = final.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == CLEAN
    check_calls(choice.message.tool_calls)
    fragments = [e for e in events if e.type == "tool_calls.function.arguments.delta"]
    assert len(fragments) > len(WANT_CALLS)  # arguments arrived in pieces
    reasoning = "".join(
        (c.choices[0].delta.model_extra or {}).get("reasoning_content") or ""
        for c in (e.chunk for e in events if e.type == "chunk")
        if c.choices
    )
    assert reasoning == THINK[len("<think>") : -len("</think>")]


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("kind", KINDS)
def test_workers_share_the_port_and_end_with_the_command(upstream: UpstreamServer, kind: str) -> None:
    g = Gateway(kind, upstream.url, ("--workers", "2"))
    try:
        with sdk(g.url) as client:
            for _ in range(6):
                chunks = client.chat.completions.create(
                    model="dsml", messages=messages(), tools=TOOLS, stream=True
                )
                assert accumulate(chunks)[1] == WANT_CALLS
        kids = _children(g.proc.pid)
        assert len(kids) >= 2, kids
    finally:
        g.close()
    end = time.monotonic() + 10
    while any(map(_alive, kids)) and time.monotonic() < end:
        time.sleep(0.05)
    assert not any(map(_alive, kids))  # SIGTERM to the command ended its workers


@pytest.mark.parametrize(
    ("before", "after"), [((700, 10, 10), (10_000, 10, 10)), ((50_000, 3, 4), (50_000, 3, 4))]
)
def test_settle_gc_freezes_and_raises_only_the_young_threshold(
    before: tuple[int, int, int], after: tuple[int, int, int]
) -> None:
    import gc

    from callsieve.server import settle_gc

    saved = gc.get_threshold()
    gc.set_threshold(*before)
    try:
        settle_gc()
        assert gc.get_threshold() == after  # a higher threshold stays; older generations keep theirs
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*saved)
