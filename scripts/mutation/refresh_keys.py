"""Move the entries of parity/known-survivors.json to where their lines went.

    .venv/bin/python scripts/mutation/refresh_keys.py [--check] [--base REV | --no-git] [--lang L]

An entry names one mutant by its module, line number and line text (scripts/mutation/keys.py). When
code moves, an entry's line may no longer hold its text (stale), or may hold it by chance while its
line went elsewhere. For each entry this script finds where its line is now:

1. By history: when the entry is unchanged since REV (default: the last commit that changed the
   file, when its entries last held their lines) and its line held its text there, the line is
   followed from REV's module to today's by a line diff; a line the diff does not carry (moved,
   or its module split) is looked for in every module of the language, the occurrence of the text
   whose surrounding lines best match REV's winning (a tie is reported, not guessed).
2. Without history (an entry added or edited since REV, or --no-git): an entry whose line holds its
   text stays; a stale one goes to the nearest occurrence of its text in its module (in Python, in
   its function), else to the one occurrence in another module of the language (in Python, in a
   function of the same name).

In Python, an entry that moves takes the name of the function it lands in, as mutmut reports it.
An entry that cannot be placed unambiguously is reported and left as it is (exit status 1).
--check changes nothing and exits 1 when any entry is stale or would move.
"""

from __future__ import annotations

import argparse
import difflib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import keys  # scripts/mutation/keys.py

CONTEXT = (4, 8, 16, 32)  # lines around an entry's old line compared, widened to break a tie
MIN_RUN = 3  # the shortest run of equal lines whose pairing a line diff is trusted with


def git(*args: str) -> str | None:
    r = subprocess.run(["git", *args], cwd=keys.ROOT, capture_output=True, text=True, check=False)
    return r.stdout if r.returncode == 0 else None


def default_base() -> str | None:
    out = git("log", "-1", "--format=%H", "--", str(keys.KNOWN.relative_to(keys.ROOT)))
    return out.strip() or None if out is not None else None


class Sources:
    """Today's modules of a language, and REV's, read once."""

    def __init__(self, lang: str, base: str | None) -> None:
        self.lang = lang
        self.base = base
        self.now = {m: list(keys.source_lines(lang, m) or ()) for m in keys.modules_of(lang)}
        self.old: dict[str, list[str] | None] = {}
        self.maps: dict[str, dict[int, int]] = {}

    def old_lines(self, module: str) -> list[str] | None:
        if module not in self.old:
            text = None
            if self.base is not None:
                rel = keys.source_path(self.lang, module).relative_to(keys.ROOT)
                text = git("show", f"{self.base}:{rel.as_posix()}")
            self.old[module] = text.split("\n") if text is not None else None
        return self.old[module]

    def line_map(self, module: str) -> dict[int, int]:
        """REV's line numbers of a module to today's, for the lines a line diff keeps."""
        if module not in self.maps:
            old, now = self.old_lines(module), self.now.get(module)
            mapping: dict[int, int] = {}
            if old is not None and now is not None:
                sm = difflib.SequenceMatcher(
                    None, [keys.norm(x) for x in old], [keys.norm(x) for x in now], False
                )
                for tag, i1, i2, j1, _ in sm.get_opcodes():
                    # A short equal run between edits may pair a moved line with a like one
                    # (`}`, `return false;`) that stayed: such lines are placed by context.
                    if tag == "equal" and i2 - i1 >= MIN_RUN:
                        mapping.update({i + 1: j1 + (i - i1) + 1 for i in range(i1, i2)})
            self.maps[module] = mapping
        return self.maps[module]

    def occurrences(self, text: str, modules: list[str] | None = None) -> list[tuple[str, int]]:
        return [
            (m, n + 1)
            for m in (modules if modules is not None else sorted(self.now))
            for n, x in enumerate(self.now.get(m, ()))
            if keys.norm(x) == text
        ]


def fits(lang: str, entry: dict[str, Any], module: str, line: int, same_name: bool = True) -> bool:
    """In Python, a mutant lies in a function (of the entry's function's name, when asked)."""
    if lang != "python":
        return True
    func = keys.enclosing_function(module, line)
    return func is not None and (not same_name or keys.bare_name(func) == keys.bare_name(entry["function"]))


def context_score(old: list[str], line: int, now: list[str], cand: int, k: int) -> int:
    score = 0
    for d in range(-k, k + 1):
        if d == 0 or not (1 <= line + d <= len(old) and 1 <= cand + d <= len(now)):
            continue
        a = keys.norm(old[line + d - 1])
        score += bool(a) and a == keys.norm(now[cand + d - 1])
    return score


def by_context(src: Sources, entry: dict[str, Any], old: list[str], cands: list[tuple[str, int]]) -> Any:
    """The candidate whose surroundings best match the old line's, or the tied ones."""
    best = cands
    for k in CONTEXT:
        scored = [(context_score(old, entry["line"], src.now[m], n, k), (m, n)) for m, n in best]
        top = max(s for s, _ in scored)
        best = [c for s, c in scored if s == top]
        if top == 0:
            return cands  # nothing around it matches: no evidence either way
        if len(best) == 1:
            return best[0]
    return best


def place(
    src: Sources, entry: dict[str, Any], base_entry: bool
) -> tuple[str, int] | list[tuple[str, int]] | None:
    """Where the entry's mutant is now: (module, line); a list of candidates when ambiguous; None
    when its text is nowhere."""
    lang, module, line, text = src.lang, entry["module"], entry["line"], entry["text"]
    old = src.old_lines(module) if base_entry else None
    if old is not None and 1 <= line <= len(old) and keys.norm(old[line - 1]) == text:
        mapped = src.line_map(module).get(line)
        if mapped is not None and fits(lang, entry, module, mapped):
            return (module, mapped)
        cands = [c for c in src.occurrences(text) if fits(lang, entry, *c)]
        cands = cands or [c for c in src.occurrences(text) if fits(lang, entry, *c, same_name=False)]
        if not cands:
            return None
        return cands[0] if len(cands) == 1 else by_context(src, entry, old, cands)
    if keys.why_stale(lang, entry) is None:
        return (module, line)
    # No history: the nearest occurrence in the module (the function), else one in another module.
    if lang == "python":
        span = keys.functions_of(module).get(entry["function"])
        here = [c for c in src.occurrences(text, [module]) if span and span[0] <= c[1] <= span[1]]
    else:
        here = src.occurrences(text, [module]) if module in src.now else []
    if here:
        dist = sorted({abs(n - line) for _, n in here})[0]
        nearest = [c for c in here if abs(c[1] - line) == dist]
        return nearest[0] if len(nearest) == 1 else nearest
    others = [c for c in src.occurrences(text) if c[0] != module and fits(lang, entry, *c)]
    if not others:
        return None
    return others[0] if len(others) == 1 else others


def complete(lang: str, entry: Any) -> bool:
    return isinstance(entry, dict) and all(f in entry for f in keys.FIELDS[lang])


def refresh(known: dict[str, Any], base: str | None, langs: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """Move the entries in place; the moves made and the entries left unplaced, as lines to print."""
    base_known: dict[str, Any] = {}
    if base is not None:
        text = git("show", f"{base}:{keys.KNOWN.relative_to(keys.ROOT).as_posix()}")
        if text is not None:
            base_known = json.loads(text)
    moves: list[str] = []
    unplaced: list[str] = []
    for lang in langs:
        src = Sources(lang, base)
        at_base = {keys.mutant_id(lang, e) for e in base_known.get(lang, []) if complete(lang, e)}
        came_from: dict[int, tuple[Any, ...]] = {}  # an entry (by id()) -> its mutant before moving
        moved_label: dict[int, str] = {}
        for entry in known.get(lang, []):
            if complete(lang, entry):
                came_from[id(entry)] = keys.mutant_id(lang, entry)
            if not complete(lang, entry):
                unplaced.append(f"{lang} {entry}: missing fields")
                continue
            where = place(src, entry, keys.mutant_id(lang, entry) in at_base)
            label = f"{lang} {keys.describe(lang, entry)}"
            if where is None:
                unplaced.append(f"{label}: its text is in no {lang} module")
            elif isinstance(where, list):
                shown = ", ".join(f"{m}:{n}" for m, n in where[:8]) + (" ..." if len(where) > 8 else "")
                unplaced.append(f"{label}: ambiguous, {len(where)} candidate lines: {shown}")
            elif where != (entry["module"], entry["line"]):
                module, line = where
                old = f"{entry['module']}:{entry['line']}"
                entry["module"], entry["line"] = module, line
                if lang == "python":
                    entry["function"] = keys.enclosing_function(module, line)
                moves.append(f"{lang} {old} -> {module}:{line} {entry.get('function', '')} {entry['change']}")
                moved_label[id(entry)] = moves[-1]
        # Entries that named different mutants and now name one: one of them is wrong, and which
        # is not known, so each goes back where it was and is reported.
        landed: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        for entry in known.get(lang, []):
            if id(entry) in came_from:
                landed.setdefault(keys.mutant_id(lang, entry), []).append(entry)
        for mid, group in landed.items():
            if len({came_from[id(e)] for e in group}) > 1:
                for e in group:
                    if keys.mutant_id(lang, e) != came_from[id(e)]:
                        was = came_from[id(e)]
                        e["module"], e["line"] = was[0], was[-3]
                        if lang == "python":
                            e["function"] = was[1]
                        label = moved_label.pop(id(e), "")
                        moves[:] = [m for m in moves if m != label]
                        unplaced.append(
                            f"{lang} {keys.describe(lang, e)}: it would land on {mid[0]}:{mid[-3]}, "
                            "where another entry's mutant lands too: left where it was"
                        )
    return moves, unplaced


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 on a stale or moving entry")
    ap.add_argument("--base", metavar="REV", help="the revision the entries last held their lines at")
    ap.add_argument("--no-git", action="store_true", help="use no history (text search only)")
    ap.add_argument("--lang", choices=("python", "node"), help="one language only")
    ap.add_argument("--file", type=Path, default=keys.KNOWN, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    langs = (args.lang,) if args.lang else ("python", "node")
    base = None if args.no_git else (args.base or default_base())
    if args.base and git("rev-parse", "--verify", f"{args.base}^{{commit}}") is None:
        ap.error(f"no revision {args.base!r}")
    known = keys.load(args.file)
    stale = keys.stale_entries(known, langs)
    moves, unplaced = refresh(known, base, langs)
    for line in moves:
        print(f"moved: {line}")
    for line in unplaced:
        print(f"NOT PLACED: {line}")
    for lang, entry, why in stale:
        if args.check:
            print(f"stale: {lang} {keys.describe(lang, entry)}: {why}")
    counts = f"{len(stale)} stale, {len(moves)} moved, {len(unplaced)} not placed"
    if args.check:
        print(f"{args.file.name}: {counts} (nothing written: --check)")
        return 1 if stale or moves or unplaced else 0
    if moves:
        keys.dump(known, args.file)
    print(f"{args.file.name}: {counts}{' (written)' if moves else ''}")
    return 1 if unplaced else 0


if __name__ == "__main__":
    sys.exit(main())
