#!/usr/bin/env node
// Measurements for callsieve in Pyodide under Node (after scripts/build/build_pyodide), from the project root:
//   node parity/pyodide/bench.mjs [--runs 7] [--w3-runs 5] [--w3-blocks 5] [--json FILE]
//
// 1. Load time, plain wheel vs byte-compiled wheel: each run is a fresh Node process (cold), the
//    two variants alternating; it times loadPyodide() (runtime start), loadPackage("callsieve")
//    by name through the variant's lockfile (read, sha256 check, unpack) and `import callsieve.driver`
//    (for the plain wheel this compiles the sources to byte code inside WebAssembly).
// 2. W3 throughput: one-shot parse() of scripts/bench/bench.py's w1_text(1024*1024) (a 1 MB write_file
//    call), timed with time.perf_counter() inside Python, in CPython (.venv, the project's reference
//    interpreter; and .venv-pyodide's CPython 3.13, the runtime's minor version) and in Pyodide, on
//    the same text, in interleaved blocks; the ratio is Pyodide MB/s / CPython MB/s.
// Medians of the runs; the machine's load average is printed too, since it moves the numbers.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..", "..");
const ms = (t) => Math.round(t * 10) / 10;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function arg(name, dflt) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
}

async function child(which) {
  process.env.CALLSIEVE_PYODIDE_LOCK = which;
  const t0 = performance.now();
  const { locateBuild, startRuntime } = await import("./driver.mjs");
  const build = await locateBuild(which);
  const t1 = performance.now();
  const py = await startRuntime(build);
  const t2 = performance.now();
  await py.loadPackage("callsieve", { messageCallback: () => {} });
  const t3 = performance.now();
  py.runPython("import callsieve.driver");
  const t4 = performance.now();
  const file = py.runPython("import callsieve.scanner; callsieve.scanner.__file__");
  const first = py.runPython("callsieve.parse('<|DSML|tool_calls></|DSML|tool_calls>').saw_tool_call_syntax");
  const t5 = performance.now();
  process.stdout.write(
    JSON.stringify({
      which, file, first: String(first),
      importDriverMjs: t1 - t0, runtime: t2 - t1, loadPackage: t3 - t2, import: t4 - t3, firstParse: t5 - t4,
    }) + "\n",
  );
}

// One block: a warm-up parse (dropped) and `runs` timed ones; the Python source is shared.
const W3_BLOCK = (runs) => `
import json, sys, time
from callsieve import parse
times = []
for _ in range(${runs} + 1):
    t0 = time.perf_counter(); r = parse(text); times.append(time.perf_counter() - t0)
assert len(r.calls) == 1
json.dumps({"version": sys.version.split()[0], "bytes": len(text.encode()), "times": times[1:]})
`;

function cpythonW3(py, runs, textFile) {
  const code = `
import sys
sys.path[:0] = [${JSON.stringify(path.join(ROOT, "scripts"))}, ${JSON.stringify(path.join(ROOT, "python"))}]
from bench import w1_text
text = w1_text(1024 * 1024)
open(${JSON.stringify(textFile)}, "w", encoding="utf-8").write(text)
ns = {"text": text}
src = ${JSON.stringify(W3_BLOCK(runs))}.splitlines()
exec("\\n".join(src[:-1]), ns)
print(eval(src[-1], ns))
`;
  const r = spawnSync(py, ["-c", code], { encoding: "utf8", cwd: ROOT });
  if (r.status !== 0) throw new Error(`CPython W3 failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function pyodideW3Runner() {
  const { locateBuild, startRuntime, loadCallsieve } = await import("./driver.mjs");
  const py = await startRuntime(await locateBuild("plain"));
  await loadCallsieve(py);
  return (runs, textFile) => {
    py.globals.set("text", readFileSync(textFile, "utf8"));
    return JSON.parse(py.runPython(W3_BLOCK(runs)));
  };
}

async function main() {
  if (process.argv[2] === "--child-load") return child(process.argv[3]);
  const runs = Number(arg("--runs", 7));
  const w3runs = Number(arg("--w3-runs", 5));
  const w3blocks = Number(arg("--w3-blocks", 5));
  const jsonOut = arg("--json", null);
  const load0 = os.loadavg();

  // 1. cold load, alternating variants, one fresh process each
  const rows = { plain: [], pyc: [] };
  for (let i = 0; i < runs; i++) {
    for (const which of i % 2 ? ["pyc", "plain"] : ["plain", "pyc"]) {
      const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child-load", which], {
        encoding: "utf8",
        cwd: ROOT,
      });
      if (r.status !== 0) throw new Error(`load run (${which}) failed: ${r.stderr}`);
      rows[which].push(JSON.parse(r.stdout));
    }
  }
  const keys = ["runtime", "loadPackage", "import", "firstParse"];
  const load = {};
  for (const which of ["plain", "pyc"]) {
    load[which] = { file: rows[which][0].file };
    for (const k of keys) {
      load[which][k] = median(rows[which].map((r) => r[k]));
      load[which][k + "Best"] = Math.min(...rows[which].map((r) => r[k]));
    }
    const totals = rows[which].map((r) => r.loadPackage + r.import);
    load[which].packageTotal = median(totals);
    load[which].packageTotalBest = Math.min(...totals);
  }
  const runtimeAll = median([...rows.plain, ...rows.pyc].map((r) => r.runtime));

  // 2. W3 throughput: blocks of CPython 3.11, CPython 3.13 and Pyodide runs, interleaved in time
  // so that load from elsewhere on the machine hits all engines alike
  const tmp = mkdtempSync(path.join(os.tmpdir(), "callsieve-w3-"));
  const textFile = path.join(tmp, "w3.txt");
  const engines = [["cpython", path.join(ROOT, ".venv", "bin", "python")]];
  // the build venv's CPython has the runtime's minor version (3.13): the like-for-like reference
  const py313 = path.join(ROOT, ".venv-pyodide", "bin", "python");
  if (existsSync(py313)) engines.push(["cpython313", py313]);
  const res = {};
  try {
    const pyodideBlock = await pyodideW3Runner();
    for (let b = 0; b < w3blocks; b++) {
      for (const [name, exe] of engines) {
        const r = cpythonW3(exe, w3runs, textFile);
        (res[name] ??= { ...r, times: [] }).times.push(...r.times);
      }
      const r = pyodideBlock(w3runs, textFile);
      (res.pyodide ??= { ...r, times: [] }).times.push(...r.times);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const sum = (r) => ({
    version: r.version,
    runs: r.times.length,
    medianMs: median(r.times) * 1e3,
    minMs: Math.min(...r.times) * 1e3,
    mbPerS: r.bytes / median(r.times) / 1e6,
    bestMbPerS: r.bytes / Math.min(...r.times) / 1e6,
    times: r.times,
  });
  const w3 = { bytes: res.cpython.bytes, cpython: sum(res.cpython), cpython313: res.cpython313 ? sum(res.cpython313) : null, pyodide: sum(res.pyodide) };
  w3.ratio = w3.pyodide.mbPerS / w3.cpython.mbPerS;
  w3.bestRatio = w3.pyodide.bestMbPerS / w3.cpython.bestMbPerS;
  w3.ratio313 = w3.cpython313 ? w3.pyodide.mbPerS / w3.cpython313.mbPerS : null;
  w3.bestRatio313 = w3.cpython313 ? w3.pyodide.bestMbPerS / w3.cpython313.bestMbPerS : null;
  const load1 = os.loadavg();

  const info = JSON.parse(readFileSync(path.join(HERE, "dist", "build-info.json"), "utf8"));
  console.log(
    `Pyodide ${info.pyodideVersion} (Python ${info.runtimePython}) under Node ${process.version}; ` +
      `${os.cpus().length} cores; load average ${load0[0].toFixed(1)} -> ${load1[0].toFixed(1)}\n`,
  );
  console.log(`Cold load, median (best) of ${runs} fresh processes per wheel, ms:\n`);
  console.log("| wheel | runtime start | loadPackage | import callsieve.driver | package total | first parse |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const which of ["plain", "pyc"]) {
    const l = load[which];
    const name = which === "pyc" ? info.pycWheel : info.plainWheel;
    console.log(
      `| ${name} | ` + [...keys.slice(0, 3), "packageTotal", "firstParse"].map((k) => `${ms(l[k])} (${ms(l[k + "Best"])})`).join(" | ") + " |",
    );
  }
  console.log(`\nruntime start over all ${2 * runs} processes: median ${ms(runtimeAll)} ms`);
  console.log(
    `\nW3 one-shot parse of ${(w3.bytes / 1024 / 1024).toFixed(2)} MiB: ${w3blocks} interleaved blocks of ` +
      `${w3runs} runs per engine, each block after one warm-up run:\n`,
  );
  console.log("| engine | median | best | MB/s (median) | MB/s (best) |");
  console.log("|---|---:|---:|---:|---:|");
  const table = [[`CPython ${w3.cpython.version} (.venv)`, w3.cpython]];
  if (w3.cpython313) table.push([`CPython ${w3.cpython313.version} (.venv-pyodide)`, w3.cpython313]);
  table.push([`Pyodide (Python ${w3.pyodide.version}, WebAssembly)`, w3.pyodide]);
  for (const [name, r] of table) {
    console.log(`| ${name} | ${ms(r.medianMs)} ms | ${ms(r.minMs)} ms | ${r.mbPerS.toFixed(1)} | ${r.bestMbPerS.toFixed(1)} |`);
  }
  const x = (v) => v.toFixed(2);
  console.log(
    `\nPyodide / CPython ${w3.cpython.version}: ${x(w3.ratio)} on medians, ${x(w3.bestRatio)} on best runs` +
      (w3.cpython313
        ? `; Pyodide / CPython ${w3.cpython313.version}: ${x(w3.ratio313)} on medians, ${x(w3.bestRatio313)} on best runs`
        : ""),
  );
  if (jsonOut) {
    writeFileSync(jsonOut, JSON.stringify({ info, loadavg: [load0, load1], load, runtimeAll, rows, w3 }, null, 2) + "\n");
  }
}

await main();
