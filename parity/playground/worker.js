/* The Python engine of the playground: Pyodide + callsieve in a (classic) Web Worker, so the page
 * never freezes while the runtime loads or a batch of fixtures runs.
 *
 * Messages in:  {id, op: 'init', config}            config from /config.json
 *               {id, op: 'call', request}           a request for pyside.py's playground_handle
 * Messages out: {type: 'progress', stage, step, steps, detail}
 *               {type: 'ready', id, timing, versions}
 *               {type: 'result', id, response}      response is a JSON string from Python
 *               {type: 'error', id, stage, message}
 */
'use strict';

let pyodide = null;
let handle = null;
let stage = 'idle';

const STEPS = 5;

function progress(step, name, detail) {
  stage = name;
  self.postMessage({ type: 'progress', stage: name, step, steps: STEPS, detail: detail || '' });
}

async function fetchText(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`GET ${url}: HTTP ${r.status}`);
  return r.text();
}

async function init(config) {
  const t0 = performance.now();
  const py = config.pyodide;
  const ts = config.callsieve;
  stage = 'checking the configuration';
  // loadPyodide() never settles when e.g. the wasm is missing: the server checks the files first.
  if (!py.available) {
    const what = py.missing && py.missing.length ? `${py.missing.join(', ')} missing` : 'not served';
    throw new Error(`the Pyodide runtime at ${py.indexURL}: ${what} (${py.hint})`);
  }
  progress(1, 'loading pyodide.js', py.indexURL + 'pyodide.js');
  importScripts(py.indexURL + 'pyodide.js');
  if (typeof self.loadPyodide !== 'function') throw new Error('pyodide.js loaded but defines no loadPyodide');

  progress(2, 'starting the Python runtime', 'pyodide.asm.wasm + python_stdlib.zip');
  const opts = {
    indexURL: py.indexURL,
    stdout: (s) => self.postMessage({ type: 'log', text: s }),
    stderr: (s) => self.postMessage({ type: 'log', text: s }),
  };
  if (ts.lockFileURL) {
    // The build's lockfile lists callsieve; packages resolve next to it (packageBaseUrl).
    opts.lockFileURL = ts.lockFileURL;
  }
  pyodide = await self.loadPyodide(opts);
  const t1 = performance.now();

  const how = ts.lockFileURL ? `loadPackage('callsieve') via ${ts.lockFileURL}` : `loadPackage(${ts.wheelURL})`;
  progress(3, 'loading the callsieve package', how);
  if (!ts.lockFileURL && !ts.wheelURL) throw new Error('no callsieve wheel is served under /pyodide-dist/');
  const errors = [];
  await pyodide.loadPackage(ts.lockFileURL ? 'callsieve' : ts.wheelURL, {
    messageCallback: (m) => progress(3, 'loading the callsieve package', m),
    errorCallback: (m) => errors.push(m),
    checkIntegrity: true,
  });
  if (errors.length) throw new Error(errors.join('\n'));

  progress(4, 'importing callsieve', 'pyside.py');
  const src = await fetchText(config.pysideURL);
  pyodide.runPython(src);
  handle = pyodide.globals.get('playground_handle');
  const version = JSON.parse(handle(JSON.stringify({ op: 'version' })));
  if (version.error) throw new Error(version.error.message);
  const t2 = performance.now();

  progress(5, 'ready', '');
  const resources = performance
    .getEntriesByType('resource')
    .map((e) => ({ name: e.name.replace(/^.*\//, ''), startMs: Math.round(e.startTime - t0), ms: Math.round(e.duration), bytes: e.transferSize }));
  return {
    timing: { runtimeMs: t1 - t0, packageMs: t2 - t1, totalMs: t2 - t0, resources },
    versions: {
      pyodide: pyodide.version,
      python: pyodide.runPython('import sys; sys.version.split()[0]'),
      callsieve: version.callsieve,
      callsieveFile: version.file,
      loadedBy: ts.lockFileURL ? `${ts.lockKind} lockfile` : 'wheel URL',
      source: ts.source,
    },
  };
}

let initId = null;
function reportUnhandled(what) {
  if (handle || initId === null) return;
  self.postMessage({ type: 'error', id: initId, stage, message: what });
  initId = null;
}
self.addEventListener('unhandledrejection', (ev) => reportUnhandled(String((ev.reason && ev.reason.message) || ev.reason)));
self.addEventListener('error', (ev) => reportUnhandled(ev.message || 'error'));

self.onmessage = async (ev) => {
  const msg = ev.data;
  try {
    if (msg.op === 'init') {
      initId = msg.id;
      const r = await init(msg.config);
      self.postMessage({ type: 'ready', id: msg.id, ...r });
    } else if (msg.op === 'call') {
      if (!handle) throw new Error('Python engine is not ready');
      stage = 'call';
      const response = handle(JSON.stringify(msg.request));
      self.postMessage({ type: 'result', id: msg.id, response });
    } else {
      throw new Error(`unknown op ${msg.op}`);
    }
  } catch (err) {
    const message = (err && (err.message || String(err))) || 'unknown error';
    self.postMessage({ type: 'error', id: msg.id, stage, message });
  }
};
