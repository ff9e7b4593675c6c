"""Differential check of one mutant: does any generated document tell it from the original?

    scripts/mutation/differential.py --python|--node MODULE LINE OLD NEW [--docs N] [--seed S]

The mutant is line LINE of the module with OLD (which must occur once on it) replaced by NEW. Both
the original and the mutant run as copies of the sources (pure Python: no compiled module) behind
the JSONL driver of docs/DRIVER.md, on the same requests: N documents of parity/docs.py (every
family, noisy, cut and malformed), each under every preset with and without `streamArguments`,
all formats, `jsonToolCalls` and the defaults, fed whole and in seeded random chunks of 1 to 9
characters. Prints the runs, the differences and the first three; exit status 1 when any.

A listed survivor whose reason is a behavioral claim ("the prose matchers hold it", "a shortcut
only") is checked this way: zero differences over the runs is the evidence the entry cites.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "parity"))
import docs  # noqa: E402  (parity/docs.py: the generator of the parity runner)

from callsieve.formats import FORMATS, PRESETS  # noqa: E402


def option_sets() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for name in PRESETS:
        out += [{"preset": name}, {"preset": name, "streamArguments": True}]
    every = sorted(FORMATS)
    out += [
        {"formats": [f for f in every if f != "llama_json"]},
        {"formats": every, "streamArguments": True},
        {"jsonToolCalls": True},
        {},
    ]
    return out


def requests(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    sets = option_sets()
    for d in range(n):
        doc = docs.document(rng)
        chunks = docs.random_chunks(doc, random.Random(seed * 100_003 + d), 1, 9)
        for opts in sets:
            for ch in ([doc], chunks):
                req = {"id": len(out), "op": "stream", "chunks": ch, "options": opts}
                out.append(json.dumps(req, ensure_ascii=False))
    return out


def copy_sources(lang: str, dest: Path) -> Path:
    """A copy of the sources a driver runs from; returns the directory of the module files."""
    if lang == "python":
        shutil.copytree(
            ROOT / "python" / "callsieve",
            dest / "callsieve",
            ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"),
        )
        return dest / "callsieve"
    node = ROOT / "parity" / "node"
    shutil.copytree(node / "src", dest / "src")
    for f in ("driver.js", "index.js", "package.json"):
        shutil.copy(node / f, dest / f)
    return dest / "src"


def mutate(path: Path, line: int, old: str, new: str) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    here = lines[line - 1]
    if here.count(old) != 1:
        sys.exit(f"{path.name}:{line} holds {here.count(old)} copies of {old!r}: {here.strip()!r}")
    lines[line - 1] = here.replace(old, new)
    path.write_text("\n".join(lines), encoding="utf-8")


def run_driver(lang: str, where: Path, reqs: Path, out: Path) -> None:
    if lang == "python":
        cmd = [sys.executable, "-m", "callsieve.driver"]
        env = {"PYTHONPATH": str(where), "PATH": "/usr/bin:/bin"}
    else:
        cmd = ["node", str(where / "driver.js")]
        env = None
    with reqs.open("rb") as inp, out.open("wb") as res:
        subprocess.run(cmd, stdin=inp, stdout=res, check=True, env=env, cwd=where)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    lang = ap.add_mutually_exclusive_group(required=True)
    lang.add_argument("--python", action="store_const", const="python", dest="lang")
    lang.add_argument("--node", action="store_const", const="node", dest="lang")
    ap.add_argument("module")
    ap.add_argument("line", type=int)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=41)
    a = ap.parse_args()
    ext = ".py" if a.lang == "python" else ".js"
    with tempfile.TemporaryDirectory(prefix="differential-") as tmp:
        base = Path(tmp)
        orig, mut = base / "orig", base / "mut"
        copy_sources(a.lang, orig)
        mutate(copy_sources(a.lang, mut) / (a.module + ext), a.line, a.old, a.new)
        reqs = base / "requests.jsonl"
        lines = requests(a.docs, a.seed)
        reqs.write_text("\n".join(lines) + "\n", encoding="utf-8")
        run_driver(a.lang, orig, reqs, base / "orig.jsonl")
        run_driver(a.lang, mut, reqs, base / "mut.jsonl")
        want = (base / "orig.jsonl").read_text(encoding="utf-8").split("\n")
        got = (base / "mut.jsonl").read_text(encoding="utf-8").split("\n")
        diffs = [i for i, (w, g) in enumerate(zip(want, got, strict=True)) if w != g]
        for i in diffs[:3]:
            req = json.loads(lines[i])
            print(f"difference: options {json.dumps(req['options'])}")
            print(f"  chunks   {json.dumps(req['chunks'], ensure_ascii=False)[:400]}")
            print(f"  original {want[i][:400]}")
            print(f"  mutant   {got[i][:400]}")
        print(f"{a.lang} {a.module}:{a.line}: {len(lines):,} runs, {len(diffs):,} differences")
        return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
