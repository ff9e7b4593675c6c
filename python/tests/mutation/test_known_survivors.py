"""parity/known-survivors.json names each equivalent mutant by its line: a line that no longer holds
its text (code moved) fails here, cheaply, before a mutation run would match the wrong mutant or
none. scripts/mutation/refresh_keys.py moves such entries; it is exercised below on a small repository
whose code moves within a module and into another one."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPTS = ROOT / "scripts" / "mutation"


def _keys() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_keys", SCRIPTS / "keys.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


keys = _keys()


def test_every_entry_holds_its_line() -> None:
    stale = keys.stale_entries()
    shown = "\n".join(f"  {lang} {keys.describe(lang, e)}: {why}" for lang, e, why in stale)
    assert not stale, f"stale entries (run scripts/mutation/refresh_keys.py):\n{shown}"


def test_entries_are_well_formed() -> None:
    known = keys.load()
    assert set(known) == {"description", "python", "node"}
    for lang in ("python", "node"):
        for e in known[lang]:
            assert tuple(e) == keys.FIELDS[lang], e
            assert isinstance(e["line"], int) and e["reason"].strip() and " => " in e["change"], e
        ids = Counter(keys.mutant_id(lang, e) for e in known[lang])
        # Two entries name one mutant only when a line holds the same change twice (Stryker: twice
        # the same expression); with the same reason, as they are the same case.
        for mid, n in ids.items():
            if n > 1:
                reasons = {e["reason"] for e in known[lang] if keys.mutant_id(lang, e) == mid}
                assert len(reasons) == 1, (mid, reasons)
    for field in ("module", "function", "line", "text", "change", "reason"):
        assert f'"{field}"' in known["description"] or field in known["description"]


# --- refresh_keys.py on a small repository ------------------------------------------------------

PY_OLD = """\
def a(x):
    if x < 0:
        return -1
    return 0


def b(y):
    if y < 0:
        return -1
    return 1
"""
JS_OLD = """\
function a(x) {
  if (x < 0) return false;
  return true;
}
function b(y) {
  if (y < 0) return false;
  return true;
}
"""


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "scripts" / "mutation").mkdir(parents=True)
    for name in ("keys.py", "refresh_keys.py"):
        shutil.copy2(SCRIPTS / name, repo / "scripts" / "mutation" / name)
    (repo / "python" / "callsieve").mkdir(parents=True)
    (repo / "parity" / "node" / "src").mkdir(parents=True)
    (repo / "python" / "callsieve" / "mod.py").write_text(PY_OLD)
    (repo / "parity" / "node" / "src" / "mod.js").write_text(JS_OLD)
    known = {
        "description": "test",
        "python": [
            {"module": "mod", "function": "x_b", "line": 9, "text": "return -1",
             "change": "return -1 => return -2", "reason": "b's"},
        ],
        "node": [
            {"module": "mod", "line": 6, "text": "if (y < 0) return false;",
             "change": "BooleanLiteral: false => true", "reason": "b's"},
            {"module": "mod", "line": 3, "text": "return true;",
             "change": "BooleanLiteral: true => false", "reason": "a's"},
        ],
    }  # fmt: skip
    (repo / "parity" / "known-survivors.json").write_text(json.dumps(known))
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    return repo


def _refresh(repo: Path, *args: str) -> tuple[int, str, dict[str, Any]]:
    r = subprocess.run(
        [sys.executable, "scripts/mutation/refresh_keys.py", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    known = json.loads((repo / "parity" / "known-survivors.json").read_text())
    return r.returncode, r.stdout + r.stderr, known


def test_refresh_follows_lines_within_and_across_modules(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    # Python: lines added above b (its `return -1`, which a holds too, moves down by 2).
    (repo / "python" / "callsieve" / "mod.py").write_text("import os\nimport re\n" + PY_OLD)
    # Node: b moves to another module; a's `return true;` (also b's) moves down by one line.
    js_a = JS_OLD.split("function b")[0]
    (repo / "parity" / "node" / "src" / "mod.js").write_text("// a alone\n" + js_a)
    js_b = "function b" + JS_OLD.split("function b")[1]
    (repo / "parity" / "node" / "src" / "other.js").write_text("// b\n" + js_b)
    before = (repo / "parity" / "known-survivors.json").read_text()
    code, out, _ = _refresh(repo, "--check")
    assert code == 1 and "stale" in out
    assert (repo / "parity" / "known-survivors.json").read_text() == before  # --check writes nothing
    code, out, known = _refresh(repo)
    assert code == 0, out
    assert [(e["module"], e["function"], e["line"]) for e in known["python"]] == [("mod", "x_b", 11)]
    assert sorted((e["module"], e["line"], e["reason"]) for e in known["node"]) == [
        ("mod", 4, "a's"),
        ("other", 3, "b's"),
    ]
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "refreshed")
    code, out, _ = _refresh(repo, "--check")
    assert code == 0, out


def test_refresh_reports_what_it_cannot_place(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    # b's line is copied, with b's surroundings, into two new modules and gone from mod.js: a tie.
    js_a = JS_OLD.split("function b")[0]
    js_b = "function b" + JS_OLD.split("function b")[1]
    (repo / "parity" / "node" / "src" / "mod.js").write_text(js_a)
    (repo / "parity" / "node" / "src" / "one.js").write_text(js_b)
    (repo / "parity" / "node" / "src" / "two.js").write_text(js_b)
    code, out, known = _refresh(repo, "--lang", "node")
    assert code == 1 and "NOT PLACED" in out and "ambiguous" in out, out
    assert {(e["module"], e["line"]) for e in known["node"]} == {("mod", 6), ("mod", 3)}  # left as they were
    # Without history, an entry whose text is nowhere is reported too.
    (repo / "parity" / "node" / "src" / "one.js").unlink()
    (repo / "parity" / "node" / "src" / "two.js").write_text("")
    code, out, _ = _refresh(repo, "--lang", "node", "--no-git")
    assert code == 1 and "in no node module" in out, out


@pytest.mark.parametrize("lang", ["python", "node"])
def test_stale_entries_name_the_problem(lang: str) -> None:
    known = keys.load()
    entry = dict(known[lang][0])
    entry["line"] += 100000
    [(_, _, why)] = keys.stale_entries({lang: [entry]}, (lang,))
    assert "not in the module" in why


def test_refresh_leaves_two_entries_that_would_name_one_mutant(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    src = repo / "parity" / "node" / "src"
    body = "function isTag(r) {\n  return r !== null;\n}\n"
    (src / "mod.js").write_text("// mod\n" + body)
    (src / "other.js").write_text("// other\n" + body)
    entry = {"line": 3, "text": "return r !== null;", "change": "ConditionalExpression: r !== null => true"}
    known: dict[str, Any] = {
        "description": "test",
        "python": [],
        "node": [{"module": m, **entry, "reason": m} for m in ("mod", "other")],
    }
    (repo / "parity" / "known-survivors.json").write_text(json.dumps(known))
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "two isTag")
    (src / "mod.js").write_text("// mod, isTag gone\n")  # mod's line is gone; its text is other's
    code, out, after = _refresh(repo, "--lang", "node")
    assert code == 1 and "lands too" in out, out
    assert sorted((e["module"], e["line"]) for e in after["node"]) == [("mod", 3), ("other", 3)]
