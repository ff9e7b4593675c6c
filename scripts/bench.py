#!/usr/bin/env python3
"""Benchmark workloads W1-W5 on the Python reference (a script, not a timed test).

    .venv/bin/python scripts/bench.py            # Markdown table
    .venv/bin/python scripts/bench.py --json out.json --runs 5

W1  write_file call, CDATA content of code-like lines with < and >, one prose line before,
    streamed in 16-character chunks (64 KB, 256 KB, 1 MB); growth ratio time(1 MB)/time(256 KB)
W2  256 KB of prose full of <, > and HTML, no calls, 4-character chunks (cost per chunk)
W3  one-shot parse() of W1 at 1 MB (MB/s)
W4  one block with 200 invokes, 8-character chunks
W5  256 KB of Markdown with fenced and inline tool-call examples, 8-character chunks
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from toolsieve import Sieve, ToolCallsEvent, parse

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


def stream(text: str, size: int) -> int:
    s = Sieve()
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args()

    rows = []

    def add(name: str, text: str, chunk: int | None, fn: Callable[[], int], expect_calls: int) -> None:
        times, calls = timed(fn, args.runs)
        assert calls == expect_calls, f"{name}: expected {expect_calls} calls, got {calls}"
        med = statistics.median(times)
        nchunks = -(-len(text) // chunk) if chunk else 1
        rows.append(
            {
                "workload": name,
                "bytes": len(text.encode()),
                "chunk": chunk,
                "chunks": nchunks,
                "median_s": med,
                "min_s": min(times),
                "max_s": max(times),
                "us_per_chunk": med / nchunks * 1e6,
                "mb_per_s": len(text.encode()) / med / 1e6,
            }
        )

    w1 = {s: w1_text(s) for s in (64 * KB, 256 * KB, 1024 * KB)}
    for s, t in w1.items():
        add(f"W1 {s // KB} KB", t, 16, lambda t=t: stream(t, 16), 1)
    w2 = w2_text(256 * KB)
    add("W2 256 KB prose", w2, 4, lambda: stream(w2, 4), 0)
    add("W3 parse 1 MB", w1[1024 * KB], None, lambda: len(parse(w1[1024 * KB]).calls), 1)
    w4 = w4_text()
    add("W4 200 invokes", w4, 8, lambda: stream(w4, 8), 200)
    w5 = w5_text(256 * KB)
    add("W5 256 KB markdown", w5, 8, lambda: stream(w5, 8), 0)

    by = {r["workload"]: r for r in rows}
    growth = by["W1 1024 KB"]["median_s"] / by["W1 256 KB"]["median_s"]
    print(f"Python {sys.version.split()[0]}, median of {args.runs} runs\n")
    print("| workload | size | chunk | median | min-max | per chunk | MB/s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        chunk = str(r["chunk"]) if r["chunk"] else "one-shot"
        print(
            f"| {r['workload']} | {r['bytes'] / KB:.0f} KB | {chunk} | {r['median_s'] * 1000:.1f} ms "
            f"| {r['min_s'] * 1000:.1f}-{r['max_s'] * 1000:.1f} ms | {r['us_per_chunk']:.2f} µs "
            f"| {r['mb_per_s']:.1f} |"
        )
    print(f"\nW1 growth time(1 MB) / time(256 KB): {growth:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "w1_growth": growth}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
