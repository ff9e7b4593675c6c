"""The README runs as printed.

- Every ```python block is executed (a fresh namespace each, in README order, in one scratch
  directory); every ```bash block runs in bash (`-euo pipefail`) there, with `.venv/bin` first on
  PATH. The ```js blocks run in Node: parity/node/test/packaging/readme.test.js.
- The ```html block is parity/playground/minimal.html's page, which the headless-Chromium test of
  the playground loads (Pyodide, the wheel, a parse): it must be that page, line for line.
- A ```sh block is not run (it installs, builds or needs a network upstream); each one is listed in
  NOT_RUN with the reason, so that a new block is run unless someone says why not.
- Every example of the formats and presets table parses to its call, alone and with each preset
  of its row.
- Relative links of the README and docs/*.md point at files that exist, and their anchors at
  headings that exist.
- The README is user documentation: at most 450 lines, no issue numbers, and the old name only in
  the one sentence that says why the project was renamed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from callsieve import parse
from callsieve.formats import FORMATS, PRESETS

ROOT = Path(__file__).resolve().parents[3]
README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")

# ```sh blocks, by their first line: why the test does not run them.
NOT_RUN = {
    "scripts/demo": "sets up .venv, runs every check (the test command itself), builds and installs",
    "pip install 'callsieve[server]'": "installs; a remote upstream (test_server*.py run both gateways)",
}

FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[a-z]*)\n(?P<body>.*?)^(?P=indent)```$", re.M | re.S)


def blocks(lang: str | None = None) -> list[tuple[int, str, str]]:
    """(line, language, code) of each fenced block, dedented."""
    out = []
    for m in FENCE.finditer(TEXT):
        indent = len(m.group("indent"))
        code = "".join(line[indent:] for line in m.group("body").splitlines(keepends=True))
        if lang is None or m.group("lang") == lang:
            out.append((TEXT.count("\n", 0, m.start()) + 1, m.group("lang"), code))
    return out


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT / "python")
    return env


def _bash(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", code],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One directory for the whole README: the bash blocks make the files later blocks read."""
    d = tmp_path_factory.mktemp("readme")
    for line, _, code in blocks("bash"):
        got = _bash(code, d)
        assert got.returncode == 0, f"README line {line}:\n{code}\n{got.stderr}"
    return d


def test_every_block_has_a_known_language() -> None:
    bad = [(line, lang) for line, lang, _ in blocks() if lang not in ("python", "bash", "js", "sh", "html")]
    assert not bad, f"blocks without python / bash / js / sh / html: {bad}"
    assert blocks("python") and blocks("bash") and blocks("js")


def test_blocks_not_run_are_listed_with_a_reason() -> None:
    firsts = {code.splitlines()[0].split("#")[0].strip(): line for line, _, code in blocks("sh")}
    unlisted = {f: line for f, line in firsts.items() if not any(f.startswith(k) for k in NOT_RUN)}
    assert not unlisted, f"```sh blocks that NOT_RUN does not explain: {unlisted}"
    stale = [k for k in NOT_RUN if not any(f.startswith(k) for f in firsts)]
    assert not stale, f"NOT_RUN lists blocks the README no longer has: {stale}"


@pytest.mark.parametrize("line,code", [(line, code) for line, _, code in blocks("bash")])
def test_bash_block(line: int, code: str, scratch: Path) -> None:
    got = _bash(code, scratch)
    assert got.returncode == 0, f"README line {line}:\n{got.stderr}"


@pytest.mark.parametrize("line,code", [(line, code) for line, _, code in blocks("python")])
def test_python_block(line: int, code: str, scratch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if "import ray" in code:
        pytest.importorskip("ray")
        pytest.importorskip("pyarrow")
    if "langchain_core" in code:
        pytest.importorskip("langchain_core")
    monkeypatch.chdir(scratch)
    namespace: dict[str, Any] = {"__name__": f"readme_line_{line}"}
    exec(compile(code, f"README.md:{line}", "exec"), namespace)


def test_html_block_is_the_page_the_browser_test_runs() -> None:
    (html,) = blocks("html")
    page = (ROOT / "parity" / "playground" / "minimal.html").read_text(encoding="utf-8").splitlines()
    lines = html[2].splitlines()
    assert lines, "empty html block"
    body = [line for line in page if not line.startswith(("<!", "<meta", "<title", "<link"))]
    assert body == lines, "README's html block differs from parity/playground/minimal.html"


def _cell(text: str) -> str:
    return text.strip().replace("\\|", "|")


def table_rows() -> list[tuple[str, list[str], str]]:
    """(format, presets, example) of each row of the formats and presets table."""
    section = TEXT[TEXT.index("## Formats and presets") :]
    rows = []
    for line in section.splitlines():
        m = re.fullmatch(r"\| `(\w+)` \| (.*?) \| `(.*)` \|", line)
        if m:
            presets = re.findall(r"`([\w.-]+)`", m.group(2))
            rows.append((m.group(1), presets, _cell(m.group(3))))
    return rows


def test_the_table_has_every_format_and_preset() -> None:
    rows = table_rows()
    assert [r[0] for r in rows] == list(FORMATS)
    named = {p for _, presets, _ in rows for p in presets}
    assert named == set(PRESETS), named ^ set(PRESETS)
    for fmt, presets, _ in rows:
        for p in presets:
            assert fmt in PRESETS[p].formats, (fmt, p)


@pytest.mark.parametrize("fmt,presets,example", table_rows())
def test_table_example(fmt: str, presets: list[str], example: str) -> None:
    want = [{"name": "get_weather", "input": {"city": "Paris"}}]
    if fmt == "dsml":
        want = [{"name": "ls", "input": {"path": "src"}}]
    elif fmt == "function_calls":
        want = [{"name": "get_weather", "input": {"city": "Paris", "days": 3}}]
    elif fmt == "kimi_k2":
        want[0]["id"] = "functions.get_weather:0"
    default = FORMATS[fmt].default  # (Llama's rows are off unless asked for, R19.3)
    runs: list[dict[str, Any]] = [*([{}] if default else []), {"formats": [fmt]}]
    runs += [{"preset": p} for p in presets]
    for options in runs:
        preset = PRESETS.get(str(options.get("preset")))
        opened = preset is not None and preset.reasoning == "open"  # the prompt opened <think>
        got = parse("</think>" + example if opened else example, **options)
        assert [c.to_dict() for c in got.calls] == want, (options, got)
        assert got.text == "", (options, got)


LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return {_slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}


@pytest.mark.parametrize(
    "doc", [README, *sorted((ROOT / "docs").glob("*.md")), ROOT / "fixtures" / "README.md"], ids=str
)
def test_links(doc: Path) -> None:
    bad = []
    for target in LINK.findall(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        path = (doc.parent / file).resolve() if file else doc
        if not path.exists() or (anchor and path.suffix == ".md" and anchor not in _anchors(path)):
            bad.append(target)
    assert not bad, f"{doc.relative_to(ROOT)}: broken links {bad}"


def test_readme_is_user_documentation() -> None:
    assert TEXT.count("\n") <= 450, f"README.md has {TEXT.count(chr(10))} lines"
    assert not re.search(r"\bissues? \d+|\(#\d+\)", TEXT, re.I)
    old = "tool" + "sieve"
    lines = [line for line in TEXT.splitlines() if old in line.lower()]
    assert 1 <= len(lines) <= 2 and "renamed" in " ".join(lines), lines  # one sentence
