"""The specification is self-contained and every citation of it resolves.

- Nothing tracked points at the rules' old home outside the repository.
- docs/SPEC.md defines the rules R1-R19 (headings and numbered bullets, without gaps) and the
  decisions D1, D2, ...; every rule a fixture pins and every rule or decision cited anywhere is
  defined there.
- Every decision is cited where it is implemented (code) or pinned (a fixture).
- fixtures/README.md lists every folder of fixtures/ (and no other).
- docs/DRIVER.md documents every option and every `call` function of the reference driver.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

from conftest import FIXTURES, ROOT, all_fixture_files, load

SPEC = ROOT / "docs" / "SPEC.md"
DRIVER = ROOT / "docs" / "DRIVER.md"
# Written in two pieces so that this file does not match itself.
OUTSIDE = ("shared" + "/spec", "SEMANTICS" + ".md")
SKIP_PARTS = frozenset({"node_modules", "build", ".git", ".venv"})
TEXT_SUFFIXES = frozenset(
    {".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".md", ".json", ".html", ".css", ".toml", ".txt", ""}
)
CODE_DIRS = ("python/callsieve/", "parity/node/src/", "parity/node/bin/", "scripts/")
CODE_SUFFIXES = frozenset({".py", ".js", ".mjs", ""})

# The last rule defined so far: rules are added, never removed or renumbered.
LAST_RULE = 19
RULE_HEADING = re.compile(r"^## R(\d+)\. ", re.M)
RULE_ITEM = re.compile(r"^- \*\*R(\d+)\.(\d+)\*\* ", re.M)
DECISION = re.compile(r"^- \*\*D(\d+) ", re.M)
CITED_DECISION = re.compile(r"\bD(\d+)\b")
CITED_RULE = re.compile(r"\bR(\d+)\.(\d+)\b")


@cache
def tracked() -> tuple[Path, ...]:
    """The files of the repository: git's list when there is one, else every file on disk."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, text=True
        ).stdout
        paths = [ROOT / p for p in out.split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        paths = [p for p in ROOT.rglob("*") if p.is_file()]
    rel = [p for p in paths if not SKIP_PARTS.intersection(p.relative_to(ROOT).parts)]
    return tuple(p for p in rel if p.is_file())


def text_files() -> list[tuple[str, str]]:
    out = []
    for p in tracked():
        if p.suffix not in TEXT_SUFFIXES or p.name == "package-lock.json":
            continue
        try:
            out.append((p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")))
        except UnicodeDecodeError:
            continue
    return out


def spec() -> str:
    return SPEC.read_text(encoding="utf-8")


def defined_rules() -> set[str]:
    s = spec()
    heads = [int(n) for n in RULE_HEADING.findall(s)]
    rules = {f"R{n}" for n in heads}
    for a, b in RULE_ITEM.findall(s):
        rules.add(f"R{a}.{b}")
    return rules


def defined_decisions() -> set[int]:
    return {int(n) for n in DECISION.findall(spec())}


def test_nothing_points_at_the_old_spec_outside_the_repository() -> None:
    bad = [
        f"{name}:{i}: {line.strip()}"
        for name, text in text_files()
        for i, line in enumerate(text.splitlines(), 1)
        if any(o in line for o in OUTSIDE)
    ]
    assert not bad, "the rules live in docs/SPEC.md, the driver protocol in docs/DRIVER.md:\n" + "\n".join(
        bad
    )


def test_rules_are_numbered_without_gaps() -> None:
    s = spec()
    heads = [int(n) for n in RULE_HEADING.findall(s)]
    assert heads == list(range(1, len(heads) + 1)), f"rule headings R1-R{len(heads)} in order, got {heads}"
    assert len(heads) >= LAST_RULE, f"rule headings up to R{LAST_RULE} at least (numbers never change)"
    items: dict[int, list[int]] = {}
    for a, b in RULE_ITEM.findall(s):
        items.setdefault(int(a), []).append(int(b))
    for n, subs in items.items():
        assert n in heads, f"R{n}.x without a heading R{n}"
        assert subs == list(range(1, len(subs) + 1)), f"R{n}: rules numbered {subs}"


def test_every_fixture_rule_is_defined() -> None:
    rules = defined_rules()
    bad = [
        f"{p.relative_to(FIXTURES)}: {load(p)['rule']}"
        for p in all_fixture_files()
        if load(p)["rule"] not in rules
    ]
    assert not bad, "fixtures pin rules that docs/SPEC.md does not define:\n" + "\n".join(bad)


def test_every_cited_rule_is_defined() -> None:
    rules = defined_rules()
    bad = sorted(
        {
            f"{name}: R{a}.{b}"
            for name, text in text_files()
            for a, b in CITED_RULE.findall(text)
            if f"R{a}.{b}" not in rules
        }
    )
    assert not bad, "citations of rules that docs/SPEC.md does not define:\n" + "\n".join(bad)


def test_decisions_are_defined_once() -> None:
    numbers = [int(n) for n in DECISION.findall(spec())]
    assert numbers, "docs/SPEC.md defines no decisions"
    dupes = sorted({n for n in numbers if numbers.count(n) > 1})
    assert not dupes, f"decisions defined twice: {dupes}"


def test_every_cited_decision_is_defined() -> None:
    defined = defined_decisions()
    bad = sorted(
        {
            f"{name}: D{n}"
            for name, text in text_files()
            for n in CITED_DECISION.findall(text)
            if int(n) not in defined
        }
    )
    assert not bad, "citations of decisions that docs/SPEC.md does not define:\n" + "\n".join(bad)


def test_every_decision_is_cited_in_code_or_fixtures() -> None:
    cited: set[int] = set()
    for name, text in text_files():
        in_code = name.startswith(CODE_DIRS) and Path(name).suffix in CODE_SUFFIXES
        in_fixture = name.startswith("fixtures/") and name.endswith(".json")
        if in_code or in_fixture:
            cited.update(int(n) for n in CITED_DECISION.findall(text))
    missing = sorted(defined_decisions() - cited)
    assert not missing, (
        "decisions cited nowhere in the code that implements them or a fixture that pins them: "
        + ", ".join(f"D{n}" for n in missing)
    )


def test_fixture_readme_lists_every_folder() -> None:
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    folders = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
    listed = re.findall(r"^- `([^`/]+)/`", readme, re.M)
    missing = [f for f in folders if f not in listed]
    assert not missing, f"fixtures/README.md does not list: {missing}"
    extra = [f for f in listed if f not in folders]
    assert not extra, f"fixtures/README.md lists folders that do not exist: {extra}"


def test_driver_protocol_documents_every_option_and_function() -> None:
    from callsieve import driver

    doc = DRIVER.read_text(encoding="utf-8")
    source = Path(driver.__file__).read_text(encoding="utf-8")
    functions = set(re.findall(r'function == "(\w+)"', source))
    for group in re.findall(r"function in \(([^)]*)\)", source):
        functions.update(re.findall(r'"(\w+)"', group))
    assert functions, "no call functions found in callsieve/driver.py"
    missing = [f"`{k}`" for k in sorted(driver.KNOWN_OPTIONS | functions) if f"`{k}`" not in doc]
    missing += [f"`{op}`" for op in ("parse", "stream", "call") if f"`{op}`" not in doc]
    assert not missing, "docs/DRIVER.md does not document: " + ", ".join(missing)
