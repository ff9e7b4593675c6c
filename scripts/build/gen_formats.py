#!/usr/bin/env python3
"""Write the Node sieve's format table (parity/node/src/formats.js) from python/callsieve/formats.py.

The table is data: one source for every runtime (Python reads the module, Pyodide ships it, Node
reads the generated file). `--check` fails when the generated file is stale (the test command runs it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from callsieve.formats import FORMATS, PRESETS, table  # noqa: E402

OUT = ROOT / "parity" / "node" / "src" / "formats.js"
DTS = ROOT / "parity" / "node" / "index.d.ts"
SCHEMA = ROOT / "fixtures" / "schema.json"

HEAD = """'use strict';
/**
 * The format table and the presets (R14.9, R17, R19): GENERATED from python/callsieve/formats.py by
 * scripts/build/gen_formats.py. Do not edit; edit the Python table and run the script.
 */

const TABLE = """

TAIL = """;

const FORMAT_TABLE = Object.freeze(TABLE.formats.map((f) => Object.freeze(f)));
const FORMATS = Object.freeze(Object.fromEntries(FORMAT_TABLE.map((f) => [f.name, f])));
const ALL_FORMATS = new Set(Object.keys(FORMATS));
const DEFAULT_FORMATS = new Set(FORMAT_TABLE.filter((f) => f.default).map((f) => f.name));
// the rows whose special tokens the scanner matches at an open angle (Python's BLOCK_FORMATS)
const SPECIAL_ENGINES = ['block', 'harmony', 'json'];
const BLOCK_FORMATS = Object.freeze(FORMAT_TABLE.filter((f) => SPECIAL_ENGINES.includes(f.engine)));
const PRESET_TABLE = Object.freeze(TABLE.presets.map((p) => Object.freeze(p)));
const PRESETS = Object.freeze(Object.fromEntries(PRESET_TABLE.map((p) => [p.name, p])));

/** Python's dropped_markers(): what a row or preset drops where it stands alone (D47, R15, R17.10). */
function droppedMarkers() {
  const rows = FORMAT_TABLE.flatMap((f) => [f.closer, ...f.strays]);
  return [...new Set([...rows, ...PRESET_TABLE.flatMap((p) => p.think)].filter((m) => m))];
}

module.exports = {
  ALL_FORMATS, BLOCK_FORMATS, DEFAULT_FORMATS, FORMATS, FORMAT_TABLE, PRESETS, PRESET_TABLE, TABLE,
  droppedMarkers,
};
"""


def render() -> str:
    return HEAD + json.dumps(table(), ensure_ascii=False, indent=2) + TAIL


def unions() -> list[str]:
    """The lines of the declarations that the table implies."""
    fmt = " | ".join(f"'{n}'" for n in FORMATS)
    pre = " | ".join(f"'{n}'" for n in PRESETS)
    return [f"export type FormatName = {fmt};", f"export type PresetName = {pre};"]


def stale_elsewhere() -> list[str]:
    """What else repeats the table and disagrees: the declarations' unions, the fixture schema's
    format and preset enums."""
    out = []
    dts = DTS.read_text(encoding="utf-8")
    out += [f"{DTS.relative_to(ROOT)}: missing `{line}`" for line in unions() if line not in dts]
    schema = SCHEMA.read_text(encoding="utf-8")
    for name in [*FORMATS, *PRESETS]:
        if f'"{name}"' not in schema:
            out.append(f"{SCHEMA.relative_to(ROOT)}: {name!r} is not in its enums")
    return out


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        problems = stale_elsewhere()
        for p in problems:
            print(p, file=sys.stderr)
        if problems:
            return 1
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run scripts/build/gen_formats.py", file=sys.stderr)
            return 1
        print(f"{OUT.relative_to(ROOT)}: up to date with formats.py")
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
