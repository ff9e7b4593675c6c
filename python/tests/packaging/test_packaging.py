"""The packages as people get them: one version everywhere, and a wheel and sdist that carry the
license and install into a fresh venv.

pyproject.toml's `version` is the one to edit; every other place that states the version must
agree with it (this test names the ones that do not). `callsieve.__version__` is a literal
rather than read through importlib.metadata, which would cost every import (and Pyodide's cold
start) several milliseconds.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest
from compiled_support import compiled_modules

import callsieve

ROOT = Path(__file__).resolve().parents[3]
NODE = ROOT / "parity" / "node"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
VERSION: str = PYPROJECT["project"]["version"]


def stated_versions() -> dict[str, str | None]:
    """Every other place that states the package version, and what it says (None: not found)."""
    pkg = json.loads((NODE / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((NODE / "package-lock.json").read_text(encoding="utf-8"))
    index_js = (NODE / "index.js").read_text(encoding="utf-8")
    js = re.search(r"^const version = '([^']*)';$", index_js, re.M)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    top = re.search(r"^## \[?([^\]\s]+)\]?", changelog, re.M)
    return {
        "python/callsieve/__init__.py __version__": callsieve.__version__,
        "parity/node/package.json version": pkg.get("version"),
        "parity/node/package-lock.json version": lock.get("version"),
        'parity/node/package-lock.json packages[""]': lock.get("packages", {}).get("", {}).get("version"),
        "parity/node/index.js version": js.group(1) if js else None,
        "CHANGELOG.md top section": top.group(1) if top else None,
    }


def test_one_version_everywhere() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+(?:[-.]?(?:a|b|rc|dev)\d+)?", VERSION), VERSION
    wrong = {where: v for where, v in stated_versions().items() if v != VERSION}
    assert wrong == {}, f"pyproject.toml says {VERSION}; these differ (edit them to match): {wrong}"


def test_license_and_metadata_in_pyproject() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert "Copyright (c) 2026 callsieve contributors" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    # PEP 639: a license expression replaces the license classifier (setuptools refuses both).
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    for minor in (11, 12, 13):
        assert f"Programming Language :: Python :: 3.{minor}" in project["classifiers"]
    node = json.loads((NODE / "package.json").read_text(encoding="utf-8"))
    assert node["license"] == project["license"]


def test_build_backend_pinned_once() -> None:
    # The packaging tests build without isolation (no index needed, seconds faster) with the
    # setuptools of requirements-dev.txt: it must be the one pyproject.toml builds with.
    (pin,) = PYPROJECT["build-system"]["requires"]
    dev = (ROOT / "requirements-dev.txt").read_text(encoding="utf-8").split()
    assert re.fullmatch(r"setuptools==[\d.]+", pin), pin
    assert pin in dev, f"requirements-dev.txt does not pin {pin}"


def build(out: Path, *args: str, env: dict[str, str] | None = None, src: Path = ROOT) -> str:
    """`python -m build --no-isolation ARGS` into `out` (no index needed, seconds faster); its output."""
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", *args, "--outdir", str(out), str(src)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-6000:]
    # No deprecation banner from the build backend (setuptools is pinned in pyproject.toml).
    assert "Deprecat" not in output
    return output


def said(output: str) -> list[str]:
    """The backend's line(s) saying which build it made."""
    return [line for line in output.splitlines() if line.startswith("callsieve: ")]


def compiler_works() -> bool:
    """What the build backend decides on this machine: a C compiler and mypyc to drive it."""
    sys.path.insert(0, str(ROOT / "python"))
    try:
        backend = importlib.import_module("callsieve_build")
    finally:
        sys.path.remove(str(ROOT / "python"))
    return backend.c_compiler_problem() is None and importlib.util.find_spec("mypyc") is not None


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The default build, as `python -m build` makes it on a clone: the sdist, and the wheel built
    from it (mypyc-compiled where a C compiler works: the one slow build of this file); and what
    the build said."""
    out = tmp_path_factory.mktemp("dist")
    return out, build(out, env={"CALLSIEVE_COMPILE": ""})


@pytest.fixture(scope="module")
def pure_wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The pure wheel a release publishes beside the compiled ones (CALLSIEVE_COMPILE=0)."""
    out = tmp_path_factory.mktemp("pure")
    output = build(out, "--wheel", env={"CALLSIEVE_COMPILE": "0"})
    (wheel,) = out.glob("callsieve-*.whl")
    return wheel, output


def default_wheel(built: tuple[Path, str]) -> Path:
    (wheel,) = built[0].glob("callsieve-*.whl")
    return wheel


def test_default_build_is_compiled_when_a_compiler_works(built: tuple[Path, str]) -> None:
    wheel = default_wheel(built)
    with zipfile.ZipFile(wheel) as zf:
        extensions = [n for n in zf.namelist() if n.endswith((".so", ".pyd"))]
        tag = zf.read(f"callsieve-{VERSION}.dist-info/WHEEL").decode()
    if compiler_works():
        assert said(built[1]) == [
            "callsieve: building the mypyc-compiled extensions (a C compiler is available)"
        ]
        assert re.fullmatch(rf"callsieve-{VERSION}-cp3\d+-cp3\d+-\w+\.whl", wheel.name), wheel.name
        assert "Root-Is-Purelib: false" in tag
        for name in compiled_modules():
            assert [e for e in extensions if e.startswith(f"callsieve/{name}.")], (name, extensions)
    else:
        (line,) = said(built[1])
        assert "building pure Python" in line
        assert wheel.name == f"callsieve-{VERSION}-py3-none-any.whl"


def test_callsieve_compile_0_builds_the_pure_wheel(pure_wheel: tuple[Path, str]) -> None:
    wheel, output = pure_wheel
    assert wheel.name == f"callsieve-{VERSION}-py3-none-any.whl"
    assert said(output) == ["callsieve: building pure Python (CALLSIEVE_COMPILE=0)"]
    with zipfile.ZipFile(wheel) as zf:
        assert not [n for n in zf.namelist() if n.endswith((".so", ".pyd", ".c"))]
        assert "Root-Is-Purelib: true" in zf.read(f"callsieve-{VERSION}.dist-info/WHEEL").decode()


@pytest.mark.skipif(os.name == "nt", reason="MSVC is not chosen through CC")
def test_no_compiler_builds_pure_and_says_so(tmp_path: Path) -> None:
    cc = str(tmp_path / "no-such-cc")
    output = build(tmp_path, "--wheel", env={"CALLSIEVE_COMPILE": "", "CC": cc})
    (wheel,) = tmp_path.glob("callsieve-*.whl")
    assert wheel.name == f"callsieve-{VERSION}-py3-none-any.whl"
    (line,) = said(output)
    assert line.startswith("callsieve: no working C compiler (") and cc in line, line
    assert line.endswith(
        "; building pure Python (the same code, slower; CALLSIEVE_COMPILE=1 makes this an error)"
    )
    # A release build asks for the compiled wheel: without a compiler that fails, never ships pure.
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--no-isolation",
            "--wheel",
            "--outdir",
            str(tmp_path / "x"),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "CALLSIEVE_COMPILE": "1", "CC": cc},
    )
    assert proc.returncode != 0
    assert "callsieve: CALLSIEVE_COMPILE=1 but no working C compiler" in proc.stdout + proc.stderr


def test_editable_install_is_pure(tmp_path: Path) -> None:
    # `pip install -e .` (scripts/env.sh): the .py files run as they are edited, never a compiled
    # module beside them. The backend's editable hook on a staged copy (the build writes egg-info).
    src = tmp_path / "src"
    (src / "python").mkdir(parents=True)
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    shutil.copy(ROOT / "python" / "callsieve_build.py", src / "python")
    shutil.copytree(
        ROOT / "python" / "callsieve",
        src / "python" / "callsieve",
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
    )
    hook = "import sys, callsieve_build as b; print(b.build_editable(sys.argv[1]))"
    proc = subprocess.run(
        [sys.executable, "-c", hook, str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=src,
        env={**os.environ, "CALLSIEVE_COMPILE": "", "PYTHONPATH": str(src / "python")},
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    wheel = tmp_path / proc.stdout.strip().splitlines()[-1]
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    assert "callsieve: editable install, pure Python" in proc.stderr
    assert "mypyc" not in proc.stdout + proc.stderr
    assert not list(src.rglob("*.so")) + list(src.rglob("*.pyd")) + list(src.rglob("*.c"))


def test_wheels_and_sdist_ship_the_license(built: tuple[Path, str], pure_wheel: tuple[Path, str]) -> None:
    (sdist,) = built[0].glob(f"callsieve-{VERSION}.tar.gz")
    license_text = (ROOT / "LICENSE").read_bytes()
    for wheel in (default_wheel(built), pure_wheel[0]):
        with zipfile.ZipFile(wheel) as zf:
            info = f"callsieve-{VERSION}.dist-info"
            assert zf.read(f"{info}/licenses/LICENSE") == license_text
            meta = zf.read(f"{info}/METADATA").decode()
            assert "py.typed" in " ".join(zf.namelist())
            # the .py files ship in both builds (a compiled module's source, and the reference)
            assert "callsieve/scanner.py" in zf.namelist()
        assert "License-Expression: MIT" in meta
        assert "License-File: LICENSE" in meta
        assert "Classifier: Development Status :: 3 - Alpha" in meta
    with tarfile.open(sdist) as tf:
        member = tf.extractfile(f"callsieve-{VERSION}/LICENSE")
        assert member is not None and member.read() == license_text
        # pure source: the build backend and setup.py, nothing generated or compiled
        names = tf.getnames()
        assert f"callsieve-{VERSION}/python/callsieve_build.py" in names
        assert not [n for n in names if n.endswith((".so", ".pyd", ".c", ".o")) or "/build/" in n]


@pytest.mark.parametrize("which", ["default", "pure"])
def test_wheel_installs_into_a_fresh_venv(
    which: str, built: tuple[Path, str], pure_wheel: tuple[Path, str], tmp_path: Path
) -> None:
    wheel = default_wheel(built) if which == "default" else pure_wheel[0]
    compiled = which == "default" and compiler_works()
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)  # ensurepip alone takes ~15 s: use our pip
    py = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(py), "install", "--quiet", "--no-index"]
    subprocess.run([*pip, "--disable-pip-version-check", str(wheel)], check=True, capture_output=True)
    script = """
import importlib.metadata as m, json, callsieve
r = callsieve.parse('<|DSML|tool_calls><|DSML|invoke name="ls"></|DSML|invoke></|DSML|tool_calls>')
license = m.metadata('callsieve')['License-Expression']
names = [c.name for c in r.calls]
where = callsieve.__file__
print(json.dumps([callsieve.__version__, m.version('callsieve'), license, names, where, callsieve.compiled]))
"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the installed copy alone
    out = subprocess.run(
        [str(py), "-c", script], check=True, capture_output=True, text=True, cwd=tmp_path, env=env
    )
    version, dist_version, license_expr, names, where, is_compiled = json.loads(out.stdout)
    assert [version, dist_version, license_expr, names] == [VERSION, VERSION, "MIT", ["ls"]]
    assert Path(where).is_relative_to(env_dir), where  # the installed copy, not the source tree
    assert is_compiled is compiled
    cli = env_dir / ("Scripts" if os.name == "nt" else "bin") / "callsieve"
    proc = subprocess.run([str(cli), "--version"], capture_output=True, text=True, check=False, env=env)
    build_name = "mypyc-compiled" if compiled else "pure Python"
    assert proc.stdout.strip() == f"callsieve {VERSION} ({build_name})"
    assert subprocess.run([str(cli), "--help"], capture_output=True, check=False, env=env).returncode == 0
