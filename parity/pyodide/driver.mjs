#!/usr/bin/env node
// The docs/DRIVER.md driver for callsieve's Python wheel running inside Pyodide (CPython compiled to
// WebAssembly) under Node:   node parity/pyodide/driver.mjs   (after scripts/build/build_pyodide)
//
// The runtime is loaded offline from node_modules/pyodide; the callsieve package is loaded by name
// through dist/pyodide-lock.json (Pyodide's lockfile plus the callsieve wheel). Every network fetch
// is refused, so nothing can come from a CDN. Each request line is handed to Python as a string and
// answered by callsieve.driver.serve -- the very code of `python -m callsieve.driver`: it parses the
// JSON, calls callsieve.driver.handle, writes the response or the error of docs/DRIVER.md.
//
// Environment:
//   CALLSIEVE_PYODIDE_LOCK=plain|pyc   which wheel to load: the plain one (default) or the one
//                                      byte-compiled by `pyodide py-compile`
//   CALLSIEVE_PYODIDE_ALLOW_STALE=1    run even if python/callsieve is newer than the built wheel
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DIST = path.join(HERE, "dist");
const RUNTIME = path.join(HERE, "node_modules", "pyodide");
const SOURCES = path.join(HERE, "..", "..", "python", "callsieve");

function die(msg) {
  process.stderr.write(`callsieve pyodide driver: ${msg}\n`);
  process.exit(2);
}

// A fetch that refuses the network: Pyodide reads local paths with fs, and would only fetch a URL
// for something missing from the local files (e.g. a CDN package), which must fail loudly instead.
const realFetch = globalThis.fetch;
globalThis.fetch = async (url, ...rest) => {
  const u = String(url instanceof Request ? url.url : url);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(u) && !u.startsWith("file:")) {
    throw new Error(`offline driver: refusing to fetch ${u}`);
  }
  return realFetch(url, ...rest);
};

/** Check the build and return { pyodideModule, info, lockFile }; die with a clear message if missing or stale. */
export async function locateBuild(which = process.env.CALLSIEVE_PYODIDE_LOCK || "plain") {
  const hint = "run scripts/build/build_pyodide from the project root";
  if (!existsSync(path.join(RUNTIME, "pyodide.mjs"))) die(`the Pyodide runtime is missing (${RUNTIME}): ${hint}`);
  const infoPath = path.join(DIST, "build-info.json");
  if (!existsSync(infoPath)) die(`the build is missing (${infoPath}): ${hint}`);
  const info = JSON.parse(readFileSync(infoPath, "utf8"));
  const runtimeVersion = JSON.parse(readFileSync(path.join(RUNTIME, "package.json"), "utf8")).version;
  if (info.pyodideVersion !== runtimeVersion) {
    die(`dist/ was built for pyodide ${info.pyodideVersion} but node_modules has ${runtimeVersion}: ${hint}`);
  }
  if (!(which in info.lockfiles)) die(`CALLSIEVE_PYODIDE_LOCK must be plain or pyc, not ${which}`);
  if (!info.lockfiles[which]) die(`no ${which} wheel was built (see scripts/build/build_pyodide's warnings)`);
  const lockFile = path.join(DIST, info.lockfiles[which]);
  const wheel = path.join(DIST, which === "pyc" ? info.pycWheel : info.plainWheel);
  for (const f of [lockFile, wheel]) if (!existsSync(f)) die(`${f} is missing: ${hint}`);
  if (!process.env.CALLSIEVE_PYODIDE_ALLOW_STALE && existsSync(SOURCES)) {
    const built = statSync(wheel).mtimeMs;
    const newer = readdirSync(SOURCES, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".py") && statSync(path.join(SOURCES, f)).mtimeMs > built);
    if (newer.length) {
      die(`python/callsieve/${newer[0]} is newer than the built wheel: ${hint} (or set CALLSIEVE_PYODIDE_ALLOW_STALE=1)`);
    }
  }
  const pyodideModule = await import(pathToFileURL(path.join(RUNTIME, "pyodide.mjs")).href);
  return { pyodideModule, info, lockFile };
}

/** Start Pyodide offline with the built lockfile; Python's own stdout/stderr go to our stderr. */
export async function startRuntime({ pyodideModule, lockFile }) {
  const toStderr = (s) => process.stderr.write(s + "\n");
  return pyodideModule.loadPyodide({
    indexURL: RUNTIME + path.sep,
    lockFileURL: lockFile,
    packageBaseUrl: DIST + path.sep, // also the fallback "CDN" URL: a missing file fails, offline
    stdout: toStderr,
    stderr: toStderr,
  });
}

/** Load callsieve by name through the lockfile and import its driver module. */
export async function loadCallsieve(py) {
  const errors = [];
  await py.loadPackage("callsieve", { messageCallback: () => {}, errorCallback: (m) => errors.push(m) });
  if (errors.length) throw new Error(`loadPackage("callsieve") failed: ${errors.join("; ")}`);
  py.runPython(`
import io as _io
from callsieve.driver import serve as _serve

def _callsieve_answer(line):
    out = _io.StringIO()
    _serve(_io.StringIO(line), out)
    return out.getvalue()
`);
  return py.globals.get("_callsieve_answer");
}

/** Lines split at "\n" only, as the Python driver reads them (readline would also split at
 * U+2028/U+2029, which JSON strings may hold unescaped). */
async function* lines(stream) {
  const decoder = new StringDecoder("utf8");
  let pending = "";
  for await (const buf of stream) {
    const parts = (pending + decoder.write(buf)).split("\n");
    pending = parts.pop();
    for (const line of parts) yield line.endsWith("\r") ? line.slice(0, -1) : line;
  }
  const rest = pending + decoder.end();
  if (rest) yield rest;
}

async function main() {
  const build = await locateBuild();
  let answer;
  try {
    const py = await startRuntime(build);
    answer = await loadCallsieve(py);
  } catch (e) {
    die(`could not start Pyodide with callsieve: ${e && e.stack ? e.stack : e}`);
  }
  for await (const line of lines(process.stdin)) {
    let out;
    try {
      out = answer(line); // "" for a blank line, as the Python driver
    } catch (e) {
      // serve() answers every request itself; this is a failure of the runtime around it.
      let id = null;
      try {
        const req = JSON.parse(line);
        if (req && typeof req === "object" && !Array.isArray(req)) id = req.id ?? null;
      } catch {}
      const message = String(e && e.message ? e.message : e).slice(-2000);
      out = JSON.stringify({ id, error: { type: "InternalError", message } }) + "\n";
    }
    if (out) process.stdout.write(out);
  }
  process.exitCode = 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
