"""The playground's local server: `scripts/playground` (or `python parity/playground/server.py`).

A small `http.server` bound to 127.0.0.1 that serves only what the page needs, under fixed roots:

    /                      -> redirect to /playground/
    /playground/...        parity/playground/ (the page, the worker, the short examples)
    /node/...              parity/node/ (dist/*.mjs: the JS sieve's ES-module build, as browsers get it)
    /pyodide/...           the Pyodide runtime (parity/pyodide/node_modules/pyodide/)
    /pyodide-dist/...      the callsieve wheels and lockfiles (parity/pyodide/dist/: pyodide-lock.json
                           lists the plain wheel, pyodide-lock-pyc.json the py-compiled one)
    /examples/...          examples/ (the bundled model replies)
    /fixtures/index.json   the list of every fixture under fixtures/**/*.json, with its kind:
                           "sieve" (has an `input`) or "function" (has a `call`)
    /fixtures/<path>.json  one fixture
    /known-differences.json  parity/known-differences.json (intentional engine differences)
    /config.json           what is available (runtime version, lockfile or wheel), for the page

When parity/pyodide/dist/ holds no wheel (scripts/build/build_pyodide not run yet), or with
--build-wheel, the plain wheel is built from the working tree into a temporary folder with
`pip wheel --no-deps` and served from there instead (callsieve then loads by its URL).
Standard library only. Prints `callsieve playground: http://127.0.0.1:PORT/playground/` once it
listens; `--port 0` picks a free port.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
FIXTURES = ROOT / "fixtures"
RUNTIME_FILES = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip")

MIME = {
    ".wasm": "application/wasm",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".py": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
    ".map": "application/json; charset=utf-8",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".png": "image/png",
    ".svg": "image/svg+xml",
}


def fixture_index() -> dict[str, Any]:
    items = []
    for p in sorted(FIXTURES.rglob("*.json")):
        if p.name == "schema.json":
            continue
        rel = p.relative_to(FIXTURES).as_posix()
        try:
            case = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            case = {}
        # A sieve fixture has an `input` (run through parse and the stream); a function fixture
        # has a `call` (a named function with arguments) instead.
        kind = "sieve" if "input" in case else "function" if "call" in case else "unknown"
        items.append({"id": rel, "url": f"/fixtures/{rel}", "rule": case.get("rule", ""), "kind": kind})
    return {"count": len(items), "fixtures": items}


def find_wheel(dist: Path) -> Path | None:
    plain = sorted(dist.glob("callsieve-*-py3-none-any.whl")) if dist.is_dir() else []
    if plain:
        return plain[-1]
    other = sorted(dist.glob("callsieve-*.whl")) if dist.is_dir() else []
    return other[-1] if other else None


def build_wheel() -> Path | None:
    """Build the plain wheel into a temporary folder (removed at exit); None if that fails."""
    tmp = Path(tempfile.mkdtemp(prefix="callsieve-playground-wheel-"))
    atexit.register(shutil.rmtree, tmp, True)
    print("playground: building the plain callsieve wheel from the working tree ...", flush=True)
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check"]
    proc = subprocess.run([*cmd, "-w", str(tmp), str(ROOT)], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"playground: wheel build failed:\n{proc.stderr[-2000:]}", file=sys.stderr, flush=True)
        return None
    return tmp


def stale_note(wheel: Path | None) -> str | None:
    """A note when python/callsieve/ changed after the wheel was built (Pyodide runs old code)."""
    if wheel is None:
        return None
    sources = list((ROOT / "python" / "callsieve").glob("*.py"))
    newest = max(sources, key=lambda p: p.stat().st_mtime, default=None)
    if newest is None or newest.stat().st_mtime <= wheel.stat().st_mtime:
        return None
    return (
        f"python/callsieve/{newest.name} is newer than {wheel.name}: the Python column runs the "
        "built wheel; rerun scripts/build/build_pyodide, or start this server with --build-wheel"
    )


def lock_lists_callsieve(lock: Path) -> bool:
    try:
        data = json.loads(lock.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "callsieve" in data.get("packages", {})


class Config:
    def __init__(self, pyodide_dir: Path, dist_dir: Path, build: bool = False) -> None:
        self.pyodide_dir = pyodide_dir
        self.dist_dir = dist_dir
        self.dist_source = "parity/pyodide/dist (scripts/build/build_pyodide)"
        if build or find_wheel(dist_dir) is None:
            built = build_wheel()
            if built is not None:
                self.dist_dir = built
                self.dist_source = "plain wheel built by the playground server"
        self.roots = {
            "playground": HERE,
            "node": ROOT / "parity" / "node",
            "pyodide": self.pyodide_dir,
            "pyodide-dist": self.dist_dir,
            "examples": ROOT / "examples",
            "fixtures": FIXTURES,
        }

    def as_json(self) -> dict[str, Any]:
        version = None
        pkg = self.pyodide_dir / "package.json"
        if pkg.is_file():
            try:
                version = json.loads(pkg.read_text(encoding="utf-8")).get("version")
            except ValueError:
                version = None
        wheel = find_wheel(self.dist_dir)
        locks: dict[str, str] = {}
        for kind, name in (("pyc", "pyodide-lock-pyc.json"), ("plain", "pyodide-lock.json")):
            if lock_lists_callsieve(self.dist_dir / name):
                locks[kind] = f"/pyodide-dist/{name}"
        missing = [f for f in RUNTIME_FILES if not (self.pyodide_dir / f).is_file()]
        return {
            "pyodide": {
                "available": not missing,
                "missing": missing,
                "version": version,
                "indexURL": "/pyodide/",
                "hint": "run scripts/build/build_pyodide (it installs the pyodide npm package)",
            },
            "callsieve": {
                "lockFiles": locks,
                "wheelURL": f"/pyodide-dist/{wheel.name}" if wheel else None,
                "source": self.dist_source,
                "stale": stale_note(wheel),
            },
        }


class Handler(SimpleHTTPRequestHandler):
    config: Config

    def __init__(self, *args: Any, config: Config, **kwargs: Any) -> None:
        self.config = config
        super().__init__(*args, directory=str(HERE), **kwargs)

    def log_message(self, format: str, *args: Any) -> None:
        if os.environ.get("PLAYGROUND_LOG"):
            super().log_message(format, *args)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def send_json(self, data: Any) -> None:
        body = json.dumps(data, ensure_ascii=False).encode("utf-8")
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", MIME[".json"])
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def resolve(self) -> Path | None:
        path = unquote(urlsplit(self.path).path)
        parts = [p for p in path.split("/") if p]
        if not parts or parts[0] not in self.config.roots:
            return None
        root = self.config.roots[parts[0]].resolve()
        if any(p in ("..", ".") or "\\" in p for p in parts[1:]):
            return None
        target = root.joinpath(*parts[1:]).resolve()
        if target != root and root not in target.parents:
            return None
        if parts[0] == "playground" and ("node_modules" in parts or "test" in parts[1:2]):
            return None
        if target.is_dir():
            target = target / "index.html"
        return target if target.is_file() else None

    def do_GET(self) -> None:
        self.handle_request()

    def do_HEAD(self) -> None:
        self.handle_request()

    def handle_request(self) -> None:
        path = urlsplit(self.path).path
        if path in ("/", "/index.html"):
            self.send_response(HTTPStatus.FOUND)
            self.send_header("Location", "/playground/")
            self.end_headers()
            return
        if path == "/playground":
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", "/playground/")
            self.end_headers()
            return
        if path == "/config.json":
            self.send_json(self.config.as_json())
            return
        if path == "/known-differences.json":
            known = ROOT / "parity" / "known-differences.json"
            self.send_json(json.loads(known.read_text(encoding="utf-8")) if known.is_file() else [])
            return
        if path == "/fixtures/index.json":
            self.send_json(fixture_index())
            return
        target = self.resolve()
        if target is None:
            self.send_error(HTTPStatus.NOT_FOUND, "not found")
            return
        try:
            data = target.read_bytes()
        except OSError:
            self.send_error(HTTPStatus.NOT_FOUND, "not readable")
            return
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", MIME.get(target.suffix, "application/octet-stream"))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Serve the callsieve browser playground on 127.0.0.1.")
    ap.add_argument("--port", type=int, default=int(os.environ.get("PLAYGROUND_PORT", "8765")))
    runtime = ROOT / "parity/pyodide/node_modules/pyodide"
    ap.add_argument(
        "--pyodide-dir",
        type=Path,
        default=Path(os.environ.get("PLAYGROUND_PYODIDE_DIR") or runtime),
        help="the Pyodide runtime folder (npm package pyodide)",
    )
    ap.add_argument(
        "--dist-dir",
        type=Path,
        default=Path(os.environ.get("PLAYGROUND_DIST_DIR") or ROOT / "parity/pyodide/dist"),
        help="the folder with the callsieve wheel and pyodide-lock.json",
    )
    ap.add_argument(
        "--build-wheel",
        action="store_true",
        help="serve a plain wheel built now from the working tree instead of the one in --dist-dir",
    )
    args = ap.parse_args(argv)
    config = Config(args.pyodide_dir.resolve(), args.dist_dir.resolve(), build=args.build_wheel)
    info = config.as_json()
    if not info["pyodide"]["available"]:
        print(
            f"playground: no Pyodide runtime at {config.pyodide_dir}: the page will show the error; "
            "run scripts/build/build_pyodide first",
            file=sys.stderr,
            flush=True,
        )
    server = ThreadingHTTPServer(("127.0.0.1", args.port), partial(Handler, config=config))
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # so the temporary wheel folder is removed
    port = server.server_address[1]
    locks = info["callsieve"]["lockFiles"]
    how = f"lockfile ({', '.join(locks)})" if locks else "wheel"
    print(
        f"playground: Pyodide {info['pyodide']['version'] or '(missing)'}, callsieve by {how} "
        f"({config.dist_source})",
        flush=True,
    )
    print(f"callsieve playground: http://127.0.0.1:{port}/playground/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
