"""The entries of parity/known-survivors.json and the mutants they name.

An entry pins one mutant: its module, its line number, the text of that line (whitespace runs
collapsed, ends stripped), the change (mutmut's lines before => after; StrykerJS's mutator: the
original => its replacement) and, for Python, the function as mutmut names it (x_NAME, or
xǁCLASSǁNAME for a method). An entry is stale when its line no longer holds its text (or, in Python,
no longer lies in its function): scripts/mutation/refresh_keys.py moves it, the test
python/tests/mutation/test_known_survivors.py fails on it, and scripts/mutation/mutate refuses to
run with it. Imported by those three (no dependency outside the standard library).
"""

from __future__ import annotations

import ast
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
KNOWN = ROOT / "parity" / "known-survivors.json"
SOURCES = {
    "python": (Path("python") / "callsieve", ".py"),
    "node": (Path("parity") / "node" / "src", ".js"),
}
FIELDS = {
    "python": ("module", "function", "line", "text", "change", "reason"),
    "node": ("module", "line", "text", "change", "reason"),
}


def norm(text: str) -> str:
    """A line as entries hold it: whitespace runs collapsed to one space, ends stripped."""
    return " ".join(text.split())


def one_line(text: str, limit: int = 160) -> str:
    text = norm(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def source_path(lang: str, module: str, root: Path = ROOT) -> Path:
    folder, ext = SOURCES[lang]
    return root / folder / f"{module}{ext}"


def modules_of(lang: str, root: Path = ROOT) -> list[str]:
    folder, ext = SOURCES[lang]
    return sorted(p.stem for p in (root / folder).glob(f"*{ext}"))


@cache
def _read(path: Path) -> tuple[str, ...] | None:
    if not path.is_file():
        return None
    return tuple(path.read_text(encoding="utf-8").split("\n"))


def source_lines(lang: str, module: str, root: Path = ROOT) -> tuple[str, ...] | None:
    return _read(source_path(lang, module, root))


def python_functions(source: str) -> dict[str, tuple[int, int]]:
    """mutmut's name of every function it mutates (the top-level functions and the methods of
    top-level classes) with its first and last line (the def line on, decorators left out)."""
    spans: dict[str, tuple[int, int]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            spans[f"x_{node.name}"] = (node.lineno, node.end_lineno or node.lineno)
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
                    spans[f"xǁ{node.name}ǁ{sub.name}"] = (sub.lineno, sub.end_lineno or sub.lineno)
    return spans


@cache
def _functions(path: Path) -> dict[str, tuple[int, int]]:
    lines = _read(path)
    return python_functions("\n".join(lines)) if lines is not None else {}


def functions_of(module: str, root: Path = ROOT) -> dict[str, tuple[int, int]]:
    return _functions(source_path("python", module, root))


def bare_name(function: str) -> str:
    """The function's own name: x_NAME -> NAME, xǁCLASSǁNAME -> NAME."""
    return function.rpartition("ǁ")[2] if "ǁ" in function else function.removeprefix("x_")


def enclosing_function(module: str, line: int, root: Path = ROOT) -> str | None:
    for name, (first, last) in functions_of(module, root).items():
        if first <= line <= last:
            return name
    return None


def why_stale(lang: str, entry: dict[str, Any], root: Path = ROOT) -> str | None:
    """None when the entry's line holds its text (and lies in its function); else what is wrong."""
    missing = [f for f in FIELDS[lang] if f not in entry]
    if missing:
        return f"missing field(s) {', '.join(missing)}"
    lines = source_lines(lang, entry["module"], root)
    if lines is None:
        return f"no module {source_path(lang, entry['module'], root).relative_to(root)}"
    line = entry["line"]
    if not isinstance(line, int) or not 1 <= line <= len(lines):
        return f"line {line} is not in the module ({len(lines)} lines)"
    if norm(lines[line - 1]) != entry["text"]:
        return f"line {line} holds {one_line(lines[line - 1], 100)!r}"
    if lang == "python":
        span = functions_of(entry["module"], root).get(entry["function"])
        if span is None:
            return f"no function {entry['function']} in the module"
        if not span[0] <= line <= span[1]:
            return f"line {line} is not in {entry['function']} (lines {span[0]}-{span[1]})"
    return None


def load(path: Path = KNOWN) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def stale_entries(
    known: dict[str, Any] | None = None, langs: tuple[str, ...] = ("python", "node"), root: Path = ROOT
) -> list[tuple[str, dict[str, Any], str]]:
    known = load() if known is None else known
    out = []
    for lang in langs:
        for entry in known.get(lang, []):
            why = why_stale(lang, entry, root)
            if why is not None:
                out.append((lang, entry, why))
    return out


def mutant_id(lang: str, entry: dict[str, Any]) -> tuple[Any, ...]:
    """What identifies one mutant: an entry and a survivor match when these agree."""
    if lang == "python":
        return (entry["module"], entry["function"], entry["line"], entry["text"], entry["change"])
    return (entry["module"], entry["line"], entry["text"], entry["change"])


def describe(lang: str, entry: dict[str, Any]) -> str:
    where = f"{entry['module']}:{entry['line']}"
    if lang == "python":
        return f"[{where} {entry['function']}] {entry['change']}"
    return f"[{where}] {entry['text']} | {entry['change']}"


def dump(known: dict[str, Any], path: Path = KNOWN) -> None:
    """One entry a line, its fields in a fixed order, entries sorted by module, line and change."""
    out = ["{", f'  "description": {json.dumps(known["description"], ensure_ascii=False)},']
    langs = [lang for lang in ("python", "node") if lang in known]
    for n, lang in enumerate(langs):
        entries = sorted(known[lang], key=lambda e: (e["module"], e["line"], e["change"], e["reason"]))
        out.append(f'  "{lang}": [')
        for i, e in enumerate(entries):
            body = json.dumps({f: e[f] for f in FIELDS[lang]}, ensure_ascii=False)
            out.append(f"    {body}{',' if i < len(entries) - 1 else ''}")
        out.append(f"  ]{',' if n < len(langs) - 1 else ''}")
    out.append("}")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? ")


def first_changed(diff: list[str]) -> int | None:
    """The 0-based index, in the original text, of the first line a unified diff changes."""
    idx: int | None = None
    for line in diff:
        m = HUNK.match(line)
        if m:
            idx = int(m.group(1)) - 1
            continue
        if idx is None or line.startswith(("---", "+++")):
            continue
        if line.startswith(("-", "+")):
            return idx
        idx += 1
    return None
