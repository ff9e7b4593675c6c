#!/usr/bin/env python3
"""Memory per held character (issue 14): peak RSS of the sieve, Python and Node, on hostile shapes.

    .venv/bin/python scripts/bench/memory.py                    # worst block shapes, both languages
    .venv/bin/python scripts/bench/memory.py --lang node --shapes params,cdata --mb 11.4
    .venv/bin/python scripts/bench/memory.py --holds --mb 50    # 50 MB after an opener of each kind
    .venv/bin/python scripts/bench/memory.py --json

Block shapes (`--shapes`): one block that stays open to its last characters, so everything
before them is held. Each run is a fresh process: the peak RSS is reset (`/proc/self/clear_refs`),
then the input is read from a file 64 KiB at a time, as a stream arrives, fed to a Sieve, and
flushed. Reported: the peak RSS minus the RSS before feeding, per character and per
byte of the input (UTF-8), at `--mb` and at half of it, and the slope between the two (the cost
of one more held character, without the runtime's constant slack: V8 keeps tens of MB of young
garbage whatever the input). Linux only.

`--holds`: the constructs of python/tests/test_holds.py (inline code, pending tags, blocks,
CDATA, token sections, JSON calls, regions...), each opener followed by `--mb` megabytes, with
max_capture_chars 1000: the peak must not grow with the input.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
NODE = ROOT / ".venv" / "bin" / "node"

SHAPES: dict[str, str] = {
    "params": "one block, one invoke, many parameters",
    "invokes": "one block, many invokes of one parameter",
    "cdata": "one parameter holding one long CDATA of code lines",
    "nesting": "one parameter of nested <item> elements (deeper than D21 decodes)",
    "plain": "one parameter holding long plain text full of entities",
    "tokens": "one V3.1 token section of many calls",
}
CODE_LINE = "if (a < b && c > d) { x = y << 2; } // <br/> ]] > done\n"
HEAD = '<|DSML|tool_calls><|DSML|invoke name="x"><|DSML|parameter name="{p}">'
TAIL = "</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>"


def build(shape: str, size: int) -> str:
    """About `size` characters of one open block of the given shape."""
    if shape == "params":
        one = '<|DSML|parameter name="p{i}">{i}</|DSML|parameter>'
        n = size // (len(one) + 8)
        inner = "".join(one.replace("{i}", str(i)) for i in range(n))
        return '<|DSML|tool_calls><|DSML|invoke name="x">' + inner + "</|DSML|invoke></|DSML|tool_calls>"
    if shape == "invokes":
        one = '<|DSML|invoke name="read"><|DSML|parameter name="path">f{i}</|DSML|parameter></|DSML|invoke>'
        n = size // (len(one) + 4)
        inner = "".join(one.replace("{i}", str(i)) for i in range(n))
        return "<|DSML|tool_calls>" + inner + "</|DSML|tool_calls>"
    if shape == "tokens":
        one = '<｜tool▁call▁begin｜>read<｜tool▁sep｜>{"path": "f{i}"}<｜tool▁call▁end｜>'
        n = size // (len(one) + 4)
        calls = "".join(one.replace("{i}", str(i)) for i in range(n))
        return "<｜tool▁calls▁begin｜>" + calls + "<｜tool▁calls▁end｜>"
    body = (CODE_LINE * (size // len(CODE_LINE) + 1))[:size]
    if shape == "cdata":
        return HEAD.replace("{p}", "content") + "<![CDATA[" + body + "]]>" + TAIL
    if shape == "plain":
        return HEAD.replace("{p}", "body") + body.replace("<", "&lt;") + TAIL
    if shape == "nesting":
        n = size // 13
        return HEAD.replace("{p}", "items") + "<item>" * n + "x" + "</item>" * n + TAIL
    raise ValueError(f"unknown shape {shape!r}")


def child(path: str, limit: int | None, json_calls: bool) -> None:
    """Run in a fresh process: read the input, reset the peak, stream it, print the figures."""
    sys.path.insert(0, str(ROOT / "python"))
    from callsieve import Sieve, ToolCallsEvent

    # The input is read as it is fed, 64 KiB at a time, as a stream arrives (not held whole).
    s = Sieve(max_capture_chars=limit or Path(path).stat().st_size + 1, json_tool_calls=json_calls)
    s.feed("warm up ")
    base = _rss()[0]
    calls = 0
    with open(path, encoding="utf-8") as f:
        while chunk := f.read(65536):
            calls += sum(len(e.calls) for e in s.feed(chunk) if isinstance(e, ToolCallsEvent))
    calls += sum(len(e.calls) for e in s.flush() if isinstance(e, ToolCallsEvent))
    print(json.dumps({"base": base, "peak": _rss()[1], "calls": calls}))


def _rss() -> tuple[int, int]:
    """(current RSS, peak RSS since the last reset); the first call resets the peak."""
    with open("/proc/self/status") as f:
        st = dict(line.split(":", 1) for line in f)
    cur, hwm = (int(st[k].split()[0]) * 1024 for k in ("VmRSS", "VmHWM"))
    if not getattr(_rss, "reset", False):
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        _rss.reset = True  # type: ignore[attr-defined]
    return cur, hwm


def measure(lang: str, text: str, limit: int | None = None, json_calls: bool = False) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as f:
        f.write(text)
    try:
        opts = [str(limit or 0), "1" if json_calls else "0"]
        if lang == "python":
            cmd = [sys.executable, __file__, "--child", f.name, *opts]
        else:
            cmd = [str(NODE), "--expose-gc", str(Path(__file__).with_name("memory_node.js")), f.name, *opts]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(f.name)
    r: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    r["chars"] = len(text)
    r["bytes"] = len(text.encode("utf-8"))
    r["held"] = r["peak"] - r["base"]
    return r


def blocks(langs: list[str], shapes: list[str], size: int, as_json: bool) -> list[dict[str, Any]]:
    rows = []
    for shape in shapes:
        half, full = build(shape, size // 2), build(shape, size)
        for lang in langs:
            a, b = measure(lang, half), measure(lang, full)
            row = {
                "shape": shape,
                "lang": lang,
                "chars": b["chars"],
                "bytes": b["bytes"],
                "calls": b["calls"],
                "peak_mb": round(b["held"] / 1e6, 1),
                "per_char": round(b["held"] / b["chars"], 1),
                "x_input": round(b["held"] / b["bytes"], 1),
                "half_per_char": round(a["held"] / a["chars"], 1),
                "slope_per_char": round((b["held"] - a["held"]) / (b["chars"] - a["chars"]), 1),
            }
            rows.append(row)
            if not as_json:
                print(
                    f"{shape:8} {lang:6} {row['chars'] / 1e6:6.2f} M chars {row['bytes'] / 1e6:6.2f} MB  "
                    f"peak +{row['peak_mb']:7.1f} MB = {row['x_input']:5.1f}x input "
                    f"({row['per_char']:5.1f} B/char; {row['half_per_char']:5.1f} at half size; "
                    f"slope {row['slope_per_char']:5.1f} B/char)  calls {row['calls']}",
                    flush=True,
                )
    return rows


def holds(langs: list[str], size: int, as_json: bool) -> list[dict[str, Any]]:
    sys.path.insert(0, str(ROOT / "python" / "tests"))
    from test_holds import CONSTRUCTS, LIMIT

    rows = []
    for name, (opener, unit) in CONSTRUCTS.items():
        text = opener + unit * (size // len(unit))
        for lang in langs:
            r = measure(lang, text, limit=LIMIT, json_calls=True)
            row = {"construct": name, "lang": lang, "chars": r["chars"], "peak_mb": round(r["held"] / 1e6, 1)}
            rows.append(row)
            if not as_json:
                mb = r["chars"] / 1e6
                print(f"{name:40} {lang:6} {mb:6.1f} M chars  peak +{row['peak_mb']:6.1f} MB", flush=True)
    return rows


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]) or None, sys.argv[4] == "1")
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lang", choices=["python", "node", "both"], default="both")
    ap.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated: " + ", ".join(SHAPES))
    ap.add_argument("--mb", type=float, default=5.7, help="input size in millions of characters (5.7)")
    ap.add_argument("--holds", action="store_true", help="the hold constructs instead of block shapes")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    langs = ["python", "node"] if args.lang == "both" else [args.lang]
    size = int(args.mb * 1_000_000)
    if args.holds:
        rows = holds(langs, size, args.json)
    else:
        shapes = args.shapes.split(",")
        for shape in shapes:
            if shape not in SHAPES:
                ap.error(f"unknown shape {shape!r}; known: {', '.join(SHAPES)}")
        rows = blocks(langs, shapes, size, args.json)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
