"""The port map (parity/port-map.json) names the Node twin of every module-level Python definition.

A name added, removed or renamed on either side without updating the map fails here, so the two
ports cannot drift apart silently. Entries:

- `"module:name"`: the Node twin, in the module of the same name, spelled as in Python or by the
  naming rule (`_private_name` → `privateName`, `UPPER_CASE` stays, `openai`/`sse` inside a name →
  `OpenAI`/`SSE`);
- `{"node": "module:name", "why": ...}`: a twin elsewhere or spelled otherwise, with the reason;
- `{"python-only": reason}` / `{"node-only": reason}`: no twin, with the reason.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
PY_DIR = ROOT / "python" / "callsieve"
NODE_DIR = ROOT / "parity" / "node"
MAP_PATH = ROOT / "parity" / "port-map.json"

# Node files outside src/ that hold definitions, by module name.
NODE_TOP = {"index": "index.js", "compat": "compat.js", "bin/driver": "driver.js"}
_NODE_DEF = re.compile(
    r"^(?:async\s+)?(?:function\s*\*?\s*([A-Za-z_$][\w$]*)|class\s+([A-Za-z_$][\w$]*)"
    r"|(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=(?!\s*require\())",
    re.M,
)
_NODE_EXPORTS = re.compile(r"^module\.exports\s*=\s*\{([^}]*)\}", re.M)


def python_names() -> list[str]:
    """`module:name` for every module-level function, class and assigned name (not `__all__`)."""
    out: list[str] = []
    for path in sorted(PY_DIR.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names: list[str] = []
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
            out += [f"{path.stem}:{n}" for n in names if n != "__all__"]
    return out


def _node_files() -> dict[str, Path]:
    files = {p.stem: p for p in sorted((NODE_DIR / "src").glob("*.js"))}
    files.update({m: NODE_DIR / f for m, f in NODE_TOP.items()})
    return files


def node_names() -> list[str]:
    """`module:name` for every top-level `function`, `class` and `const`/`let` (not a `require`)."""
    out: list[str] = []
    for mod, path in _node_files().items():
        for m in _NODE_DEF.finditer(path.read_text(encoding="utf-8")):
            out.append(f"{mod}:{next(g for g in m.groups() if g)}")
    return out


def node_exports() -> dict[str, list[str]]:
    """The keys of each Node file's `module.exports = { ... }`."""
    out: dict[str, list[str]] = {}
    for mod, path in _node_files().items():
        m = _NODE_EXPORTS.search(path.read_text(encoding="utf-8"))
        if m:
            body = re.sub(r"//[^\n]*", "", m.group(1))
            out[mod] = [k.split(":")[0].strip() for k in body.split(",") if k.strip()]
    return out


def twin_module(py_module: str) -> str:
    return {"__init__": "index"}.get(py_module, py_module)


_ACRONYMS = {"openai": "OpenAI", "sse": "SSE"}


def twin_name(py_name: str) -> str:
    """The Node spelling of a Python name: no leading underscores, snake_case → camelCase."""
    if py_name == "__version__":
        return "version"
    n = py_name.lstrip("_")
    if n.isupper() or "_" not in n:
        return n
    head, *rest = n.split("_")
    return head + "".join(_ACRONYMS.get(w, w[:1].upper() + w[1:]) for w in rest)


def _load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(MAP_PATH.read_text(encoding="utf-8"))
    return data


def test_every_python_definition_is_mapped() -> None:
    mapped = set(_load()["python"])
    names = set(python_names())
    assert sorted(names - mapped) == [], "add these Python names to parity/port-map.json"
    assert sorted(mapped - names) == [], "these names are gone from Python: remove them from the map"


def test_every_node_definition_is_mapped_once() -> None:
    data = _load()
    twins: list[str] = []
    for key, v in data["python"].items():
        if isinstance(v, str):
            twins.append(v)
        elif "node" in v:
            twins.append(v["node"])
        else:
            assert isinstance(v.get("python-only"), str) and v["python-only"], key
    for key, v in data["node"].items():
        assert isinstance(v.get("node-only"), str) and v["node-only"], key
    assert sorted(t for t in set(twins) if twins.count(t) > 1) == [], "a Node name is the twin of two names"
    listed = set(twins) | set(data["node"])
    names = set(node_names())
    assert sorted(names - listed) == [], "add these Node names to parity/port-map.json"
    assert sorted(listed - names) == [], "these names are gone from Node: remove them from the map"


def test_twins_follow_the_naming_rule_unless_a_reason_is_given() -> None:
    for key, v in _load()["python"].items():
        if isinstance(v, str):
            mod, name = key.split(":")
            want = {f"{twin_module(mod)}:{n}" for n in (twin_name(name), name)}
            assert v in want, f"{key} -> {v}: give a 'why' or follow the naming rule"
        elif "node" in v:
            assert isinstance(v.get("why"), str) and v["why"], key


def test_python_public_names_have_node_twins() -> None:
    """What a module exports in Python (`__all__`), Node exports from its twin too."""
    data = _load()["python"]
    exports = node_exports()
    missing = []
    for path in sorted(PY_DIR.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                assert isinstance(node, ast.Assign)
                for name in ast.literal_eval(node.value):
                    v = data.get(f"{path.stem}:{name}")
                    if v is None:  # re-exported from another module: checked there
                        continue
                    twin = v if isinstance(v, str) else v.get("node")
                    if twin is None:
                        continue
                    mod, n = twin.split(":")
                    if n not in exports.get(mod, []):
                        missing.append(f"{path.stem}:{name} -> {twin}")
    assert missing == [], "public in Python but not exported by its Node twin"


def test_node_shell_kills_follow_the_python_reference() -> None:
    """The expected values in parity/node/test/mutation/mutation-kills-shell.test.js are Python's answers:
    when shell.py answers differently the file must be regenerated (and Node then held to it)."""
    import subprocess
    import sys

    script = ROOT / "scripts" / "mutation" / "node_shell_kills.py"
    r = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stdout + r.stderr


def test_node_scanner_kills_follow_the_python_reference() -> None:
    """The expected values in parity/node/test/mutation/mutation-kills-scanner.test.js are Python's answers
    (the Sieve's events feed by feed): when the Python scanner answers differently the file must be
    regenerated (and Node then held to it)."""
    import subprocess
    import sys

    script = ROOT / "scripts" / "mutation" / "node_scanner_kills.py"
    r = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
