"""The packages as people get them: one version everywhere, and a wheel and sdist that carry the
license and install into a fresh venv.

pyproject.toml's `version` is the one to edit; every other place that states the version must
agree with it (this test names the ones that do not). `callsieve.__version__` is a literal
rather than read through importlib.metadata, which would cost every import (and Pyodide's cold
start) several milliseconds.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

import callsieve

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel (built from the sdist) and the sdist, as `python -m build` makes them on a clone."""
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    # No deprecation banner from the build backend (setuptools is pinned in pyproject.toml).
    assert "Deprecat" not in proc.stdout + proc.stderr
    return out


def test_wheel_and_sdist_ship_the_license(built: Path) -> None:
    (wheel,) = built.glob(f"callsieve-{VERSION}-py3-none-any.whl")
    (sdist,) = built.glob(f"callsieve-{VERSION}.tar.gz")
    license_text = (ROOT / "LICENSE").read_bytes()
    with zipfile.ZipFile(wheel) as zf:
        info = f"callsieve-{VERSION}.dist-info"
        assert zf.read(f"{info}/licenses/LICENSE") == license_text
        meta = zf.read(f"{info}/METADATA").decode()
        assert "py.typed" in " ".join(zf.namelist())
    assert "License-Expression: MIT" in meta
    assert "License-File: LICENSE" in meta
    assert "Classifier: Development Status :: 3 - Alpha" in meta
    with tarfile.open(sdist) as tf:
        member = tf.extractfile(f"callsieve-{VERSION}/LICENSE")
        assert member is not None and member.read() == license_text


def test_wheel_installs_into_a_fresh_venv(built: Path, tmp_path: Path) -> None:
    (wheel,) = built.glob("callsieve-*.whl")
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
print(json.dumps([callsieve.__version__, m.version('callsieve'), license, names, callsieve.__file__]))
"""
    out = subprocess.run([str(py), "-c", script], check=True, capture_output=True, text=True, cwd=tmp_path)
    version, dist_version, license_expr, names, where = json.loads(out.stdout)
    assert [version, dist_version, license_expr, names] == [VERSION, VERSION, "MIT", ["ls"]]
    assert Path(where).is_relative_to(env_dir), where  # the installed copy, not the source tree
    cli = env_dir / ("Scripts" if os.name == "nt" else "bin") / "callsieve"
    assert subprocess.run([str(cli), "--help"], capture_output=True, check=False).returncode == 0
