# Sourced by scripts/test and scripts/demo: create or refresh .venv at the project root and
# install callsieve (editable) with the pinned tooling. Idempotent; cheap when nothing changed.
# An editable install is pure Python (the build backend never compiles one: the tests and every
# edit see the .py files); the compiled build is scripts/build/build_compiled's, which scripts/demo runs
# and scripts/test tests beside the pure one.
# Everything it prints goes to stderr: stdout belongs to the caller (scripts/demo prints JSON lines).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "callsieve needs Python >= 3.11 (found: $("$PY" --version 2>&1))" >&2
  exit 1
fi
VPY="$ROOT/.venv/bin/python"
stamp=".venv/.callsieve-installed"
want="$(cat pyproject.toml requirements-dev.txt | sha256sum | cut -c1-16)"
{
  if [ ! -x .venv/bin/python ]; then
    echo "==> creating .venv"
    "$PY" -m venv .venv
  fi
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "==> installing callsieve and pinned tooling into .venv"
    "$VPY" -m pip install --quiet --disable-pip-version-check --upgrade pip 2>&1 | grep -v '^WARNING' || true
    "$VPY" -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt 2>&1 | grep -v '^WARNING' || true
    "$VPY" -m pip install --quiet --disable-pip-version-check -e . 2>&1 | grep -v '^WARNING' || true
    "$VPY" -c 'import callsieve, pytest, hypothesis, jsonschema' || { echo "install failed"; exit 1; }
    echo "$want" >"$stamp"
  fi
} >&2
