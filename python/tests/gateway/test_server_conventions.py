"""The conventions both gateways follow, the Python one (`callsieve serve`) and the Node one
(`callsieve-gateway`), each started as a process in front of the same real local upstream
(`upstream.py`) and checked by the same test: client keys (`--api-key`, 401 in OpenAI's error
shape), the key sent upstream, the request body limit (413 while the body streams in), `/health`,
`/ready`, CORS, JSON errors for every status, `X-Request-ID`, log level and format, every flag
from its environment variable, `--version`, a busy port, no repeated headers, cancelling the
upstream when the client leaves before the first byte, media types in any case, invalid UTF-8,
an upstream index of `1e300` and the streaming content type (issues 40 and 41)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from server_support import (
    CALLSIEVE,
    KINDS,
    NODE_BIN,
    Gateway,
    check_calls,
    command,
    free_port,
    messages,
    node,
    sdk,
    wait_for_cancel,
)
from upstream import CLEAN, REPLY, THINK, TOOLS, WANT_CALLS, Upstream, UpstreamServer

httpx = pytest.importorskip("httpx")
openai = pytest.importorskip("openai")

ROOT = Path(__file__).resolve().parents[3]
VERSION = json.loads((ROOT / "parity" / "node" / "package.json").read_text(encoding="utf-8"))["version"]


def post(url: str, body: Any, headers: dict[str, str] | None = None) -> Any:
    return httpx.post(
        url + "/chat/completions", json=body, headers=headers or {}, trust_env=False, timeout=20
    )


def is_openai_error(r: Any, status: int, type_: str | None = None, code: str | None = None) -> dict[str, Any]:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json"), r.headers
    err = r.json()["error"]
    assert set(err) == {"message", "type", "param", "code"}, err
    assert isinstance(err["message"], str) and err["message"]
    if type_ is not None:
        assert err["type"] == type_, err
    if code is not None:
        assert err["code"] == code, err
    return dict(err)


def log_lines(g: Gateway, needle: str, n: int = 1) -> list[str]:
    lines: list[str] = []
    for _ in range(100):
        lines = [ln for ln in g.stderr().splitlines() if needle in ln]
        if len(lines) >= n:
            break
        time.sleep(0.05)
    return lines


# 1. client keys (issue 40 item 1)


@pytest.mark.parametrize("kind", KINDS)
def test_clients_must_present_a_key_and_it_never_goes_upstream(gateways: Any, kind: str) -> None:
    g = gateways(kind, "--api-key", "k-one", "--api-key", "k-two")
    body = {"model": "dsml", "messages": messages(), "tools": TOOLS}
    err = is_openai_error(post(g.url, body), 401, "invalid_request_error", "invalid_api_key")
    assert "didn't provide" in err["message"]
    r = post(g.url, body, {"authorization": "Bearer k-three"})
    is_openai_error(r, 401, "invalid_request_error", "invalid_api_key")
    assert r.headers["www-authenticate"] == "Bearer"
    is_openai_error(post(g.url, body, {"authorization": "Basic k-one"}), 401)
    is_openai_error(httpx.get(g.url + "/models", trust_env=False), 401)
    with sdk(g.url) as client, pytest.raises(openai.AuthenticationError):
        client.models.list()  # the SDK's own key, "test-key"
    for key in ("k-one", "k-two"):
        with openai.OpenAI(
            api_key=key, base_url=g.url, max_retries=0, http_client=openai.DefaultHttpxClient(trust_env=False)
        ) as client:
            resp = client.chat.completions.create(model="dsml", messages=messages(), tools=TOOLS)
            assert [m.id for m in client.models.list()] == ["deepseek-chat"]
        assert [tc.function.name for tc in resp.choices[0].message.tool_calls or []] == [
            n for n, _ in WANT_CALLS
        ]
        assert "authorization" not in Upstream.headers_seen[-1]  # the client's key stays here
    # health, readiness and metrics need no key
    for path in ("/health", "/healthz", "/ready", "/metrics"):
        assert httpx.get(g.base + path, trust_env=False).status_code == 200, path


@pytest.mark.parametrize("kind", KINDS)
def test_key_file_upstream_key_and_forwarding(gateways: Any, kind: str, tmp_path: Path) -> None:
    keys = tmp_path / "keys.txt"
    keys.write_text("# clients\n\nk-file-1\n  k-file-2  \n", encoding="utf-8")
    g = gateways(kind, "--api-key-file", str(keys), "--upstream-api-key", "sk-up")
    body = {"model": "dsml", "messages": messages()}
    is_openai_error(post(g.url, body, {"authorization": "Bearer sk-up"}), 401)
    for key in ("k-file-1", "k-file-2"):
        assert post(g.url, body, {"authorization": f"Bearer {key}"}).status_code == 200
        assert Upstream.headers_seen[-1]["authorization"] == "Bearer sk-up"
    g2 = gateways(kind, "--forward-client-key")
    assert post(g2.url, body, {"authorization": "Bearer client-own"}).status_code == 200
    assert Upstream.headers_seen[-1]["authorization"] == "Bearer client-own"
    g3 = gateways(kind, "--forward-client-key", "--upstream-api-key", "sk-up")
    assert post(g3.url, body, {"authorization": "Bearer client-own"}).status_code == 200
    assert Upstream.headers_seen[-1]["authorization"] == "Bearer sk-up"  # the gateway's key wins


# 3. the request body limit (issue 40, issue 41 F6)


def raw_request(base: str, head: bytes, parts: list[bytes], pause: float = 0.0) -> bytes:
    """Sends `head` and `parts` (not closing the body) and returns what the server answers."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(head)
        for p in parts:
            s.sendall(p)
            time.sleep(pause)
        got = b""
        s.settimeout(10)
        while b"\r\n\r\n" not in got or not got.rstrip().endswith(b"}"):
            try:
                more = s.recv(65536)
            except (TimeoutError, ConnectionResetError):
                break
            if not more:
                break
            got += more
        return got


@pytest.mark.parametrize("kind", KINDS)
def test_a_body_over_the_limit_is_a_413_while_it_streams_in(gateways: Any, kind: str) -> None:
    g = gateways(kind, "--max-body-bytes", "1000")
    ok = {"model": "dsml", "messages": [{"role": "user", "content": "x" * 800}]}
    assert post(g.url, ok).status_code == 200
    big = {"model": "dsml", "messages": [{"role": "user", "content": "x" * 1200}]}
    err = is_openai_error(post(g.url, big), 413, "invalid_request_error", "request_too_large")
    assert "1000 bytes" in err["message"]
    # declared too long: answered at once, before any byte of the body
    got = raw_request(
        g.base,
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1000000000\r\n\r\n",
        [],
    )
    assert got.startswith(b"HTTP/1.1 413"), got[:200]
    # chunked, never finished: the 413 comes once 1,000 bytes went past
    head = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    piece = b"x" * 300
    chunked = [b"%x\r\n%s\r\n" % (len(piece), piece)] * 5  # 1,500 bytes, and no last chunk
    got = raw_request(g.base, head, chunked, pause=0.05)
    assert got.startswith(b"HTTP/1.1 413"), got[:200]
    assert b'"request_too_large"' in got
    before = len(Upstream.requests)
    assert post(g.url, ok).status_code == 200  # the gateway still serves
    assert len(Upstream.requests) == before + 1


@pytest.mark.parametrize("kind", KINDS)
def test_the_default_body_limit_is_16_mib(gateways: Any, kind: str) -> None:
    g = gateways(kind)
    got = raw_request(
        g.base,
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {16 * 1024 * 1024 + 1}\r\n\r\n".encode(),
        [],
    )
    assert got.startswith(b"HTTP/1.1 413"), got[:200]


# 2. operations (issue 40 item 4)


@pytest.mark.parametrize("kind", KINDS)
def test_health_and_readiness(gateways: Any, kind: str) -> None:
    g = gateways(kind)
    for path in ("/health", "/healthz"):
        r = httpx.get(g.base + path, trust_env=False)
        assert (r.status_code, r.json()) == (200, {"status": "ok"})
    r = httpx.get(g.base + "/ready", trust_env=False)
    assert (r.status_code, r.json()) == (200, {"status": "ready"})
    dead = gateways(kind, upstream_url=f"http://127.0.0.1:{free_port()}/v1")
    assert httpx.get(dead.base + "/health", trust_env=False).status_code == 200  # alive, not ready
    is_openai_error(
        httpx.get(dead.base + "/ready", trust_env=False), 503, "upstream_error", "upstream_not_ready"
    )


@pytest.mark.parametrize("kind", KINDS)
def test_every_error_status_is_openai_shaped_json(gateways: Any, kind: str) -> None:
    g = gateways(kind)
    is_openai_error(httpx.get(g.base + "/nope", trust_env=False), 404, "invalid_request_error")
    is_openai_error(httpx.post(g.base + "/v1/nope", trust_env=False), 404, "invalid_request_error")
    r = httpx.get(g.url + "/chat/completions", trust_env=False)
    is_openai_error(r, 405, "invalid_request_error")
    assert r.headers["allow"] == "POST"
    r = httpx.post(g.url + "/models", trust_env=False)
    is_openai_error(r, 405, "invalid_request_error")
    assert {m.strip() for m in r.headers["allow"].split(",")} == {"GET", "HEAD"}
    r = httpx.request("OPTIONS", g.url + "/chat/completions", trust_env=False)
    is_openai_error(r, 405)  # no --cors-origins: no preflight answered
    is_openai_error(post(g.url, "not an object"), 400, "invalid_request_error")


@pytest.mark.parametrize("kind", KINDS)
def test_cors_preflight_and_response_headers(gateways: Any, kind: str) -> None:
    g = gateways(kind, "--cors-origins", "http://app.example, http://other.example:8000", "--api-key", "k")
    pre = {
        "origin": "http://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
    }
    r = httpx.request("OPTIONS", g.url + "/chat/completions", headers=pre, trust_env=False)
    assert r.status_code == 204, r.text  # no key needed for a preflight
    assert r.headers["access-control-allow-origin"] == "http://app.example"
    assert "POST" in r.headers["access-control-allow-methods"]
    assert "authorization" in r.headers["access-control-allow-headers"].lower()
    r = httpx.request(
        "OPTIONS", g.url + "/chat/completions", headers={**pre, "origin": "http://evil.example"}
    )
    is_openai_error(r, 403)
    assert "access-control-allow-origin" not in r.headers
    r = post(g.url, {"model": "dsml", "messages": messages()}, {"origin": "http://other.example:8000"})
    is_openai_error(r, 401)  # errors carry the CORS headers too: the browser can read them
    assert r.headers["access-control-allow-origin"] == "http://other.example:8000"
    r = post(
        g.url,
        {"model": "dsml", "messages": messages()},
        {"origin": "http://app.example", "authorization": "Bearer k"},
    )
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == "http://app.example"
    assert "x-request-id" in r.headers["access-control-expose-headers"].lower()
    any_origin = gateways(kind, "--cors-origins", "*")
    r = httpx.get(any_origin.base + "/health", headers={"origin": "http://x.example"}, trust_env=False)
    assert r.headers["access-control-allow-origin"] == "*"


@pytest.mark.parametrize("kind", KINDS)
def test_request_id_is_taken_or_made_echoed_forwarded_and_logged(gateways: Any, kind: str) -> None:
    g = gateways(kind, "--keepalive", "13")
    body = {"model": "dsml", "messages": messages()}
    r = post(g.url, body, {"x-request-id": "req-abc.123"})
    assert r.headers["x-request-id"] == "req-abc.123"
    assert Upstream.headers_seen[-1]["x-request-id"] == "req-abc.123"
    assert log_lines(g, "request_id=req-abc.123"), g.stderr()
    made = post(g.url, body).headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", made), made
    assert (
        post(g.url, {**body, "stream": True}, {"x-request-id": "bad id"}).headers["x-request-id"] != "bad id"
    )
    assert (
        httpx.get(g.base + "/nope", headers={"x-request-id": "r404"}, trust_env=False).headers["x-request-id"]
        == "r404"
    )
    assert log_lines(g, "request_id=r404"), g.stderr()  # a 404 is logged too
    r = httpx.get(g.url + "/models", headers={"x-request-id": "rm"}, trust_env=False)
    assert r.headers.get_list("x-request-id") == ["rm"]


@pytest.mark.parametrize("kind", KINDS)
def test_json_log_format(gateways: Any, kind: str) -> None:
    g = gateways(kind, "--log-format", "json")
    post(g.url, {"model": "dsml", "messages": messages(), "tools": TOOLS}, {"x-request-id": "json-1"})
    lines = log_lines(g, '"json-1"')
    assert lines, g.stderr()
    rec = json.loads(lines[0])
    assert rec["level"] == "info" and rec["logger"] == "callsieve.server"
    assert (rec["method"], rec["path"], rec["status"], rec["request_id"]) == (
        "POST",
        "/v1/chat/completions",
        200,
        "json-1",
    )
    assert (rec["calls"], rec["stream"], rec["preset"]) == (2, False, None)
    assert isinstance(rec["time"], str) and isinstance(rec["duration"], float | int)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("how", ["flag", "env"])
def test_log_level_is_honored(upstream: UpstreamServer, kind: str, how: str) -> None:
    args = ("--log-level", "warning") if how == "flag" else ()
    env = {"CALLSIEVE_LOG_LEVEL": "warning"} if how == "env" else {}
    g = Gateway(kind, upstream.url, args, env)
    try:
        assert post(g.url, {"model": "dsml", "messages": messages()}).status_code == 200
        assert httpx.get(g.base + "/nope", trust_env=False).status_code == 404
        time.sleep(0.3)
    finally:
        err = g.close()
    assert "/v1/chat/completions" not in err and "/nope" not in err, err


# every flag reads its variable: the list of flags is what --help prints

SAMPLES = {
    "--upstream": "http://up.example/v1",
    "--host": "0.0.0.0",
    "--port": "9123",
    "--api-key": "k-sample",
    "--api-key-file": "",  # a file: see test_every_flag_of_help_reads_its_environment_variable
    "--upstream-api-key": "sk-sample",
    "--forward-client-key": None,  # a switch
    "--mode": "prompt",
    "--unknown-tools": "reject",
    "--timeout": "7",
    "--keepalive": "3",
    "--formats": "dsml",
    "--reasoning": "open",
    "--preset": "qwen3-coder",
    "--preset-map": "qwen3-coder*=qwen3-coder",
    "--stream-arguments": None,
    "--max-body-bytes": "1234",
    "--cors-origins": "http://a.example",
    "--log-level": "warning",
    "--log-format": "json",
    "--workers": "3",
}


def help_flags(kind: str) -> dict[str, str]:
    env = {**os.environ, "COLUMNS": "400"}
    out = subprocess.run(command(kind, "--help"), capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    flags: dict[str, str] = {}
    current = None
    for line in out.stdout.splitlines():
        m = re.match(r"\s+(--[a-z][a-z-]*)", line)
        if m:
            current = m.group(1)
            flags.setdefault(current, "")
        if current and (e := re.search(r"\[\$(CALLSIEVE_[A-Z_]+)\]", line)):
            flags[current] = e.group(1)
    flags.pop("--help", None)
    flags.pop("--version", None)
    return flags


def settings(kind: str, cases: list[tuple[list[str], dict[str, str]]]) -> list[Any]:
    """The settings each (argv, environment) case resolves to, without starting a server."""
    if kind == "python":
        from callsieve.cli import build_parser, serve_settings

        got = []
        for argv, env in cases:
            parser = build_parser()
            args = parser.parse_args(["serve", *argv])
            got.append(serve_settings(args, args.serve_parser, env))
        return got
    script = (
        "const s = require(process.argv[1]);"
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(cases.map(([a, e]) => s.parseGatewayArgs(a, e))));"
    )
    src = str(NODE_BIN.parent.parent / "src" / "server.js")
    out = subprocess.run(
        [str(node()), "-e", script, src], input=json.dumps(cases), capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return list(json.loads(out.stdout))


@pytest.mark.parametrize("kind", KINDS)
def test_every_flag_of_help_reads_its_environment_variable(kind: str, tmp_path: Path) -> None:
    flags = help_flags(kind)
    assert "--log-level" in flags and "--api-key" in flags and "--max-body-bytes" in flags
    assert set(flags) == set(SAMPLES), set(flags) ^ set(SAMPLES)  # a new flag needs a sample here
    missing = [f for f, env in flags.items() if not env]
    assert not missing, f"flags without an environment variable in --help: {missing}"
    keyfile = tmp_path / "keys"
    keyfile.write_text("k-from-file\n", encoding="utf-8")
    base = ["--upstream", "http://base.example/v1"]
    cases: list[tuple[list[str], dict[str, str]]] = [(base, {})]
    for flag, env in flags.items():
        sample = str(keyfile) if flag == "--api-key-file" else SAMPLES[flag]
        argv = [flag] if sample is None else [flag, sample]
        env_value = "yes" if sample is None else sample
        rest = [] if flag == "--upstream" else base
        cases += [([*rest, *argv], {}), (rest, {env: env_value})]
    got = settings(kind, cases)
    default = got[0]
    for i, flag in enumerate(flags):
        by_flag, by_env = got[1 + 2 * i], got[2 + 2 * i]
        assert by_flag != default, f"{flag} changed nothing"
        assert by_env == by_flag, f"${flags[flag]} does not do what {flag} does: {by_env} != {by_flag}"


def test_env_keys_are_comma_separated_for_both() -> None:
    env = {"CALLSIEVE_API_KEY": "a, b"}
    py = settings("python", [(["--upstream", "http://u"], env)])[0]
    js = settings("node", [(["--upstream", "http://u"], env)])[0]
    assert py["api_key"] == js["apiKeys"] == ["a", "b"]


@pytest.mark.parametrize("kind", KINDS)
def test_version(kind: str) -> None:
    cmd = [str(CALLSIEVE), "--version"] if kind == "python" else command(kind, "--version")
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert VERSION in out.stdout


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_busy_port_is_one_clear_line(kind: str, workers: str) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith("CALLSIEVE_")}
        out = subprocess.run(
            command(kind, "--upstream", "http://127.0.0.1:9/v1", "--port", str(port), "--workers", workers),
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
    assert out.returncode != 0
    lines = [ln for ln in out.stderr.splitlines() if "address already in use" in ln.lower()]
    assert len(lines) == 1, out.stderr
    assert "Traceback" not in out.stderr and not re.search(r"^\s+at ", out.stderr, re.M), out.stderr
    assert "listening on" not in out.stdout


@pytest.mark.parametrize("kind", KINDS)
def test_models_headers_are_not_repeated(gateways: Any, kind: str) -> None:
    r = httpx.get(gateways(kind).url + "/models", trust_env=False)
    assert r.status_code == 200
    for name in ("server", "date", "content-type", "content-length", "x-request-id"):
        assert len(r.headers.get_list(name)) <= 1, (name, r.headers.multi_items())


# 4. F2: a client that leaves before the first byte cancels the upstream request


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("stream", [True, False])
def test_a_client_leaving_before_the_first_byte_cancels_the_upstream(
    gateways: Any, kind: str, stream: bool
) -> None:
    g = gateways(kind, "--keepalive", "30")
    host, port = g.base.removeprefix("http://").split(":")
    body = json.dumps({"model": "hang", "stream": stream, "messages": []}).encode()
    before = len(Upstream.requests)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        for _ in range(200):  # the request reached the upstream, which does not answer
            if len(Upstream.requests) > before:
                break
            time.sleep(0.01)
        time.sleep(0.2)
        left = time.monotonic()
    took = wait_for_cancel("hang", left, 5)
    assert took is not None, "the upstream request was not cancelled"
    assert took < 1.5, took
    lines = log_lines(g, " 499 ")
    assert lines and "end=client-left" in lines[-1], g.stderr()


# 5. F4: media types in any case


@pytest.mark.parametrize("kind", KINDS)
def test_upstream_media_types_match_in_any_case(gateways: Any, kind: str) -> None:
    with sdk(gateways(kind).url) as client:
        resp = client.chat.completions.create(model="upper", messages=messages(), tools=TOOLS)
        chunks = list(
            client.chat.completions.create(model="upper", messages=messages(), tools=TOOLS, stream=True)
        )
    assert [
        (tc.function.name, json.loads(tc.function.arguments))
        for tc in resp.choices[0].message.tool_calls or []
    ] == (WANT_CALLS)
    names = [
        tc.function.name
        for c in chunks
        for ch in c.choices
        for tc in ch.delta.tool_calls or []
        if tc.function
    ]
    assert [n for n in names if n] == [n for n, _ in WANT_CALLS]
    assert not any("<|DSML|" in (ch.delta.content or "") for c in chunks for ch in c.choices)


# 6. F8: both gateways answer the same


def answers(kind: str, g: Gateway) -> dict[str, Any]:
    bad = httpx.post(
        g.url + "/chat/completions",
        content=b'{"model": "dsml", "messages": [{"role": "user", "content": "caf\xe9"}]}',
        headers={"content-type": "application/json"},
        trust_env=False,
    )
    big = post(g.url, {"model": "bigindex", "messages": messages()})
    with (
        httpx.Client(trust_env=False, timeout=20) as c,
        c.stream(
            "POST", g.url + "/chat/completions", json={"model": "bigindex", "stream": True, "messages": []}
        ) as r,
    ):
        data = b"".join(r.iter_bytes())
        stream_type = r.headers["content-type"]
    errors = [json.loads(ln[6:]) for ln in data.decode().split("\n") if ln.startswith('data: {"error"')]
    return {
        "utf8": (bad.status_code, bad.json()),
        "bigindex": (big.status_code, big.json()),
        "bigindex_stream": errors,
        "stream_type": stream_type,
    }


def test_invalid_utf8_big_index_and_stream_type_the_same_in_both(gateways: Any) -> None:
    got = {kind: answers(kind, gateways(kind)) for kind in KINDS}
    py = got["python"]
    assert py["utf8"] == (
        400,
        {
            "error": {
                "message": "the request body is not valid UTF-8",
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            }
        },
    )
    assert py["bigindex"][0] == 502
    assert "choices[0].index must be a whole number" in py["bigindex"][1]["error"]["message"]
    assert "1e+300" in py["bigindex"][1]["error"]["message"]
    assert len(py["bigindex_stream"]) == 1 and py["bigindex_stream"][0]["error"]["type"] == "upstream_error"
    assert py["stream_type"] == "text/event-stream; charset=utf-8"
    assert got["node"] == py


# presets (R19.2): --preset and --preset-map, the patterns as fnmatch reads them

GLOB_PATTERNS = [
    "qwen3-coder*", "*gpt-oss*", "QWEN?", "[abc]x", "[!abc]x", "[a-c]*", "[!a-c]*", "[]]", "[!]]",
    "[z-a]x", "[!z-a]x", "[", "a[", "[a-]", "[-a]", "[a-c-e]", "a*b*c", "*.*", "\\*", "a\\b", "[\\]",
    "*?", "?*?", "[[]", "x]y", "[a-c][!0-9]?", "ß*", "[--z]", "[A-C]x", "[b-a-z]", "[!]", "**a**",
]  # fmt: skip
GLOB_MODELS = [
    "qwen3-coder-30b", "Qwen3-Coder", "openai/gpt-oss-120b", "GPT-OSS", "qwen3", "QWEN", "ax", "dx",
    "bzz", "]", "x", "[", "a[", "-", "a", "d", "e", "abc", "aXbYc", "a.b", "*", "a\\b", "\\", "ab",
    "b1z", "b1", "bxz", "x]y", "", "ßx", "SSx", "c", "Bx", "z", "!", "[!]", "a\nb",
]  # fmt: skip


def node_glob(cases: list[tuple[str, str]]) -> list[bool]:
    script = (
        "const s = require(process.argv[1]);"
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "const hit = ([p, m]) => s.choosePreset(m, [[s.presetPattern(p), 'hit']], null) === 'hit';"
        "process.stdout.write(JSON.stringify(cases.map(hit)));"
    )
    src = str(NODE_BIN.parent.parent / "src" / "server.js")
    out = subprocess.run(
        [str(node()), "-e", script, src], input=json.dumps(cases), capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return list(json.loads(out.stdout))


def test_preset_patterns_are_fnmatch_without_case_in_both() -> None:
    import fnmatch

    from callsieve.config import _choose_preset, _preset_pattern

    cases = [(p, m) for p in GLOB_PATTERNS for m in GLOB_MODELS]
    want = [fnmatch.fnmatchcase(m.lower(), p.lower()) for p, m in cases]
    py = [_choose_preset(m, [(_preset_pattern(p), "hit")], None) == "hit" for p, m in cases]
    assert py == want
    js = node_glob(cases)
    assert [c for c, a, b in zip(cases, js, want, strict=True) if a != b] == []
    assert sum(want) > 100  # the table matches often enough to say something
    # the first pattern that matches wins, then the default; a model that is not a string: the default
    pats = [(_preset_pattern("qwen3*"), "qwen3"), (_preset_pattern("qwen3-coder*"), "qwen3-coder")]
    assert _choose_preset("Qwen3-Coder-30B", pats, None) == "qwen3"
    assert _choose_preset("glm-4.6", pats, "glm-4.5") == "glm-4.5"
    assert _choose_preset(None, pats, None) is None
    assert _choose_preset(["qwen3"], pats, "mistral") == "mistral"


def test_preset_patterns_take_linear_time_in_both() -> None:
    """A pattern of the operator's with many stars against a long model id of the client's."""
    from callsieve.config import _choose_preset, _preset_pattern

    model = "a" * 200_000
    t = time.perf_counter()
    assert _choose_preset(model, [(_preset_pattern("*a*a*a*a*a*a*a*b"), "hit")], None) is None
    assert time.perf_counter() - t < 2
    t = time.perf_counter()
    assert node_glob([("*a*a*a*a*a*a*a*b", model), ("*a*a*a*a*a*a*a*a", model)]) == [False, True]
    assert time.perf_counter() - t < 5  # a node process, started


def test_preset_map_settings_are_the_same_in_both() -> None:
    base = ["--upstream", "http://u"]
    cases: list[tuple[list[str], dict[str, str]]] = [
        ([*base, "--preset-map", "q*=qwen3", "--preset-map", " *GPT-OSS* = gpt-oss "], {}),
        (base, {"CALLSIEVE_PRESET_MAP": "q*=qwen3, *GPT-OSS* = gpt-oss", "CALLSIEVE_PRESET": "mistral"}),
        ([*base, "--preset-map", "a=b=glm-4.5"], {}),
    ]
    py = settings("python", cases)
    js = settings("node", cases)
    want = [["q*", "qwen3"], ["*GPT-OSS*", "gpt-oss"]]
    assert [list(map(list, s["preset_map"])) for s in py] == [want, want, [["a=b", "glm-4.5"]]]
    assert [s["presetMap"] for s in js] == [want, want, [["a=b", "glm-4.5"]]]
    assert (py[1]["preset"], js[1]["preset"], py[0]["preset"], js[0].get("preset")) == (
        "mistral",
        "mistral",
        None,
        None,
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("args", "env"),
    [
        (("--preset", "nope"), {}),
        ((), {"CALLSIEVE_PRESET": "Qwen3"}),
        (("--preset-map", "qwen*=nope"), {}),
        ((), {"CALLSIEVE_PRESET_MAP": "qwen*=qwen3,gpt*=gpt-os"}),
    ],
)
def test_an_unknown_preset_is_one_line_that_lists_the_known(
    kind: str, args: tuple[str, ...], env: dict[str, str]
) -> None:
    from callsieve.formats import PRESETS

    base = {k: v for k, v in os.environ.items() if not k.startswith("CALLSIEVE_")}
    out = subprocess.run(
        command(kind, "--upstream", "http://127.0.0.1:9/v1", "--port", "0", *args),
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = [ln for ln in out.stderr.splitlines() if "unknown preset" in ln]
    assert len(lines) == 1, out.stderr
    assert all(name in lines[0] for name in PRESETS), lines[0]
    assert "Traceback" not in out.stderr and "listening on" not in out.stdout


@pytest.mark.parametrize("kind", KINDS)
def test_presets_are_chosen_by_model_logged_and_counted(upstream: UpstreamServer, kind: str) -> None:
    """`--preset-map` chooses by the model id (any case, the first match), else `--preset`: the
    upstream's DSML reply is calls under deepseek-v4, text under qwen3-coder (its formats do not
    include DSML) and gpt-oss (Harmony only, no reasoning in the content)."""
    g = Gateway(
        kind,
        upstream.url,
        (
            "--preset",
            "deepseek-v4",
            "--preset-map",
            "QWEN3-coder*=qwen3-coder",
            "--preset-map",
            "t[a-i]ink=gpt-oss",
        ),
    )
    try:
        with sdk(g.url) as client:
            qwen = client.chat.completions.create(model="Qwen3-Coder-30B", messages=messages(), tools=TOOLS)
            dsml = client.chat.completions.create(model="dsml", messages=messages(), tools=TOOLS)
            think = list(
                client.chat.completions.create(model="think", messages=messages(), tools=TOOLS, stream=True)
            )
        assert (qwen.choices[0].message.content, qwen.choices[0].message.tool_calls) == (REPLY, None)
        assert qwen.choices[0].finish_reason == "stop"
        got = [
            (tc.function.name, json.loads(tc.function.arguments)) for tc in dsml.choices[0].message.tool_calls
        ]
        assert got == WANT_CALLS
        text = "".join(c.choices[0].delta.content or "" for c in think if c.choices)
        assert text == THINK + REPLY
        assert not any(c.choices[0].delta.tool_calls for c in think if c.choices)
        lines = log_lines(g, "/v1/chat/completions 200 ", 3)
        assert [re.search(r" preset=(\S+) ", ln).group(1) for ln in lines] == [  # type: ignore[union-attr]
            "qwen3-coder",
            "deepseek-v4",
            "gpt-oss",
        ], lines
        metrics = httpx.get(g.base + "/metrics", trust_env=False).text
        for name in ("qwen3-coder", "deepseek-v4", "gpt-oss"):
            assert re.search(
                rf'^callsieve_preset_requests_total\{{preset="{name}"\}} 1(\.0)?$', metrics, re.M
            ), metrics
    finally:
        g.close()


@pytest.mark.parametrize("kind", KINDS)
def test_no_preset_and_an_explicit_formats_beside_one(gateways: Any, kind: str) -> None:
    """Without a preset the library's defaults (logged `preset=-`, counted as `-`); `--formats`
    given beside a preset is used instead of the preset's (D52)."""
    plain = gateways(kind, "--keepalive", "12")
    explicit = gateways(kind, "--preset", "qwen3-coder", "--formats", "dsml")
    for g in (plain, explicit):
        with sdk(g.url) as client:
            resp = client.chat.completions.create(model="dsml", messages=messages(), tools=TOOLS)
        assert resp.choices[0].message.content == CLEAN
        check_calls(resp.choices[0].message.tool_calls)
    assert log_lines(plain, " preset=- "), plain.stderr()
    assert log_lines(explicit, " preset=qwen3-coder "), explicit.stderr()
    metrics = httpx.get(plain.base + "/metrics", trust_env=False).text
    assert re.search(r'^callsieve_preset_requests_total\{preset="-"\} [1-9]', metrics, re.M), metrics
