// The playground page: the JS sieve (parity/node's ES-module build, dist/) on the main thread,
// the Python parser (Pyodide, worker.js) in a Web Worker, their events side by side, and a parity
// table over every fixture. `window.playground` exposes the state for the browser test.

import {
  appendCoalesced,
  checkFixture,
  coalesceEvents,
  comparable,
  firstDifference,
  fixedChunks,
  fixtureChunkings,
  jsFixture,
  jsLacks,
  jsRun,
  unsupportedOptions,
} from './harness.js';

const $ = (id) => document.getElementById(id);

const EXAMPLES = [
  { id: 'deepseek-reply', label: 'DeepSeek reply: fenced example + 2 real calls', url: '/examples/deepseek-reply.txt', toolNames: '' },
  { id: 'fullwidth-noise', label: 'Fullwidth ｜DSML｜ noise', url: 'examples/fullwidth-noise.txt', toolNames: 'get_weather' },
  { id: 'missing-opening-wrapper', label: 'Missing opening wrapper (repaired)', url: 'examples/missing-opening-wrapper.txt', toolNames: '' },
  { id: 'mention-stays-text', label: 'Tag mentions in prose stay text', url: 'examples/mention-stays-text.txt', toolNames: '' },
  { id: 'native-dsml-v3-2', label: 'DeepSeek-V3.2 native DSML (function_calls, string attributes)', url: 'examples/native-dsml-v3-2.txt', toolNames: '' },
  { id: 'token-section-v3-1', label: 'DeepSeek-V3.1 token section', url: 'examples/token-section-v3-1.txt', toolNames: '' },
  { id: 'token-section-v3-r1', label: 'DeepSeek-V3 / R1 token section (fenced JSON)', url: 'examples/token-section-v3-r1.txt', toolNames: '' },
  { id: 'reasoning-draft-call', label: 'Reasoning model: <think> with a draft call, then the real one', url: 'examples/reasoning-draft-call.txt', toolNames: '' },
  { id: 'write-file-long', label: 'Incremental arguments: a long write_file body (replay it)', url: 'examples/write-file-long.txt', toolNames: '', streamArguments: true },
  { id: 'qwen3-coder', label: 'Qwen3-Coder: <function=…> with raw-text parameters', url: 'examples/qwen3-coder.txt', toolNames: '' },
  { id: 'hermes-qwen3', label: 'Qwen3 / Hermes: JSON calls in <tool_call>, a <think> first', url: 'examples/hermes-qwen3.txt', toolNames: '' },
  { id: 'glm', label: 'GLM-4.5: <arg_key>/<arg_value> pairs', url: 'examples/glm.txt', toolNames: '' },
  { id: 'minimax', label: 'MiniMax-M2: two parallel invokes in one block', url: 'examples/minimax.txt', toolNames: '' },
  { id: 'kimi-k2', label: 'Kimi-K2: a token section, ids kept', url: 'examples/kimi-k2.txt', toolNames: '' },
  { id: 'gpt-oss-harmony', label: 'gpt-oss Harmony: analysis, then a call on commentary', url: 'examples/gpt-oss-harmony.txt', toolNames: '' },
  { id: 'mistral', label: 'Mistral: [TOOL_CALLS]name[ARGS]{…}, text after it', url: 'examples/mistral.txt', toolNames: '' },
  { id: 'seed-oss', label: 'Seed-OSS: <seed:tool_call> with the Qwen3-Coder body', url: 'examples/seed-oss.txt', toolNames: '' },
];

const state = {
  config: null,
  ts: null, // the JS sieve: {parse, Sieve, coalesce}
  compat: null, // parity/node/compat.js, when it loads in the browser
  py: null, // PyEngine
  pyReady: false,
  coldStart: null,
  lastRun: null,
  fixtures: null,
  errors: [],
  runSeq: 0,
  extraOptions: {},
};
window.playground = state;

function showLoadError(what, err) {
  const msg = `${what}: ${(err && err.message) || err}`;
  state.errors.push(msg);
  const box = $('load-error');
  box.hidden = false;
  box.textContent = state.errors.join('\n');
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

// ---------------------------------------------------------------------------------------------
// Python engine: a Web Worker running Pyodide.

class PyEngine {
  constructor(config) {
    this.seq = 0;
    this.pending = new Map();
    this.worker = new Worker('worker.js');
    this.worker.onmessage = (ev) => this.onMessage(ev.data);
    this.worker.onerror = (ev) => {
      ev.preventDefault();
      this.fail(`worker error: ${ev.message || 'the worker script failed to load'}`);
    };
    this.t0 = performance.now();
    this.ready = this.request({ op: 'init', config });
  }

  request(msg) {
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...msg });
    });
  }

  async call(request) {
    await this.ready;
    const r = await this.request({ op: 'call', request });
    const resp = JSON.parse(r.response);
    return resp;
  }

  onMessage(m) {
    if (m.type === 'progress') {
      setPyProgress(m.step, m.steps, m.stage, m.detail);
      return;
    }
    if (m.type === 'log') return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.type === 'error') p.reject(new Error(`${m.message} (stage: ${m.stage})`));
    else p.resolve(m);
  }

  fail(message) {
    for (const p of this.pending.values()) p.reject(new Error(message));
    this.pending.clear();
  }
}

const pyStage = { step: 0, steps: 5, stage: 'starting the worker', since: performance.now() };

function setPyProgress(step, steps, stage, detail) {
  if (stage !== pyStage.stage) Object.assign(pyStage, { step, steps, stage, since: performance.now() });
  $('py-progress').max = steps;
  $('py-progress').value = step;
  $('py-stage').textContent = `${step}/${steps} ${stage}${step < steps ? '…' : ''}`;
  $('py-detail').textContent = detail || '';
  if (!state.pyReady && step < steps) {
    $('py-events').replaceChildren(el('p', { class: 'muted', text: `Pyodide is loading: step ${step}/${steps}, ${stage}…` }));
  }
}

async function startPython() {
  const abs = (u) => (u ? new URL(u, location.href).href : u);
  const c = state.config;
  // ?load=pyc|plain|wheel picks how callsieve is loaded; default: the py-compiled lockfile when
  // the build made one (fastest import), else the plain lockfile, else the wheel URL.
  const locks = c.callsieve.lockFiles || {};
  const want = new URLSearchParams(location.search).get('load');
  let load = want || (locks.pyc ? 'pyc' : locks.plain ? 'plain' : 'wheel');
  if (load !== 'wheel' && !locks[load]) load = 'wheel';
  const py = new PyEngine({
    pyodide: { ...c.pyodide, indexURL: abs(c.pyodide.indexURL) },
    callsieve: {
      source: c.callsieve.source,
      lockFileURL: load === 'wheel' ? null : abs(locks[load]),
      lockKind: load,
      wheelURL: abs(c.callsieve.wheelURL),
    },
    pysideURL: abs('pyside.py'),
  });
  state.py = py;
  // A ticking clock on the status line: slow is visible, and so is a stall.
  const clock = setInterval(() => {
    const s = Math.round((performance.now() - pyStage.since) / 1000);
    if (s >= 1) {
      $('py-stage').textContent = `${pyStage.step}/${pyStage.steps} ${pyStage.stage}… ${s} s`;
    }
    if (s === 120) showLoadError('Python engine (Pyodide)', new Error(`no progress for 120 s at "${pyStage.stage}"; see the browser console`));
  }, 1000);
  try {
    const r = await py.ready;
    const pageMs = performance.now() - py.t0;
    state.coldStart = { ...r.timing, pageMs, ...r.versions };
    state.pyReady = true;
    $('py-status').dataset.state = 'ready';
    $('py-stage').textContent =
      `ready: Pyodide ${r.versions.pyodide}, Python ${r.versions.python}, callsieve ${r.versions.callsieve}`;
    $('py-detail').textContent =
      `cold start ${Math.round(r.timing.totalMs)} ms = runtime ${Math.round(r.timing.runtimeMs)} ms + ` +
      `package ${Math.round(r.timing.packageMs)} ms (loaded by ${r.versions.loadedBy}; ` +
      `${Math.round(pageMs)} ms from new Worker())`;
    $('py-detail').dataset.coldStartMs = String(Math.round(r.timing.totalMs));
    if (state.config.callsieve.stale) {
      $('py-detail').append(el('div', { class: 'stale', text: `⚠ ${state.config.callsieve.stale}` }));
    }
  } catch (err) {
    $('py-status').dataset.state = 'error';
    $('py-stage').textContent = 'failed to load';
    $('py-detail').textContent = err.message;
    $('py-events').replaceChildren(el('div', { class: 'error-box', text: `Python engine failed to load:\n${err.message}` }));
    showLoadError('Python engine (Pyodide) failed to load', err);
  } finally {
    clearInterval(clock);
  }
}

// ---------------------------------------------------------------------------------------------
// JS engine: parity/node/dist, the package's build for browsers (as a bundler or an import map
// would load it), and the driver's request handling built the same way.

async function startJs() {
  try {
    const [ts, protocol] = await Promise.all([import('/node/dist/index.mjs'), import('/node/dist/driver.mjs')]);
    state.ts = ts;
    state.protocol = protocol;
    state.jsLacks = jsLacks(ts);
    $('js-status').dataset.state = 'ready';
    $('js-stage').textContent = `ready: parity/node ${ts.version || ''}${state.jsLacks.length ? ` (without ${state.jsLacks.join(', ')})` : ''}`;
  } catch (err) {
    $('js-status').dataset.state = 'error';
    $('js-stage').textContent = 'failed to load';
    $('js-detail').textContent = err.message;
    showLoadError('JS sieve (parity/node) failed to load', err);
    return;
  }
  try {
    const compat = await import('/node/dist/compat.mjs');
    if (typeof compat.formatOpenAIStreamToolCalls !== 'function') throw new Error('no formatOpenAIStreamToolCalls');
    state.compat = compat;
    $('js-detail').textContent = 'OpenAI tool_calls via compat.js formatOpenAIStreamToolCalls';
  } catch (err) {
    state.compat = null;
    $('js-detail').textContent = `compat.js did not load (${err.message}); OpenAI shape formatted by the page`;
  }
}

function randomId() {
  const b = crypto.getRandomValues(new Uint8Array(12));
  return 'call_' + Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

function openAIToolCalls(calls, idStore) {
  if (state.compat) return state.compat.formatOpenAIStreamToolCalls(calls, idStore);
  return calls.map((c, index) => {
    if (!idStore.has(index)) idStore.set(index, randomId());
    return { index, id: idStore.get(index), type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } };
  });
}

// ---------------------------------------------------------------------------------------------
// The playground view.

// Options set by a fixture opened from the table that have no control here (tools,
// unknownTools, formats, …): kept for its runs until an example is picked.
const CONTROLLED = ['toolNames', 'jsonToolCalls', 'reasoning', 'streamArguments'];

function setExtraOptions(options) {
  state.extraOptions = Object.fromEntries(Object.entries(options || {}).filter(([k]) => !CONTROLLED.includes(k)));
  const keys = Object.keys(state.extraOptions);
  const box = $('extra-options');
  box.hidden = !keys.length;
  box.replaceChildren(
    `fixture options: ${keys.join(', ')} `,
    el('button', { type: 'button', class: 'link', title: 'drop them', text: '✕', onclick: () => (setExtraOptions({}), runPlayground()) }),
  );
}

function currentRequest() {
  const input = $('input').value;
  const names = $('tool-names').value.split(',').map((s) => s.trim()).filter(Boolean);
  const size = Math.max(0, parseInt($('chunk-size').value, 10) || 0);
  const chunks = fixedChunks(input, size);
  // Options in the driver protocol's camelCase; off switches are not sent, and runPlayground
  // leaves out of the JS run an option its build does not know yet.
  const options = { ...state.extraOptions };
  if (names.length) options.toolNames = names;
  if ($('json-calls').checked) options.jsonToolCalls = true;
  options.reasoning = $('reasoning').value;
  if ($('stream-args').checked) options.streamArguments = true;
  return { input, chunks, size, options };
}

/** The events at replay position `pos` (steps fed so far): those of the first `pos` steps,
 * coalesced; at the end, the engine's own coalesced events (what the engines are compared on). */
function eventsAt(result, pos) {
  if (!result.steps || pos >= result.steps.length) return result.events;
  return coalesceEvents(result.steps.slice(0, pos).flat());
}

/** How many argument fragments each call index got in the first `pos` steps. */
function fragmentsAt(result, pos) {
  const n = new Map();
  for (const step of (result.steps || []).slice(0, pos)) {
    for (const e of step) if (e.type === 'tool_call_arguments') n.set(e.index, (n.get(e.index) || 0) + 1);
  }
  return n;
}

function renderColumn(side, result, req, idStores, pos) {
  const target = $(`${side}-events`);
  const pane = $(`${side}-reasoning`);
  if (result.error) {
    $(`${side}-summary`).textContent = '';
    pane.hidden = true;
    target.replaceChildren(el('div', { class: 'error-box', text: `${result.error.type}: ${result.error.message}` }));
    return;
  }
  const p = result.parse;
  const nCalls = result.events.filter((e) => e.type === 'tool_calls').reduce((n, e) => n + e.calls.length, 0);
  $(`${side}-summary`).textContent =
    `parse(): ${p.calls.length} call(s), sawToolCallSyntax ${p.sawToolCallSyntax}` +
    (p.reasoning !== undefined ? `, reasoning ${Array.from(p.reasoning).length} chars` : '') +
    ` · stream: ${req.chunks.length} chunk(s) of ${req.size || 'all'} → ${result.eventCount} events, ` +
    `${result.events.length} after coalescing, ${nCalls} call(s)`;
  const events = eventsAt(result, pos);
  renderReasoning(pane, result, events);
  target.replaceChildren(...eventNodes(events, fragmentsAt(result, pos), idStores));
}

const reasoningOf = (events) => events.filter((e) => e.type === 'reasoning').map((e) => e.text).join('');

/** Reasoning in a pane of its own: it is not content, and markup in it never runs (R15). */
function renderReasoning(pane, result, events) {
  const all = reasoningOf(result.events);
  pane.hidden = !all;
  if (!all) return pane.replaceChildren();
  const now = reasoningOf(events);
  const len = (s) => Array.from(s).length;
  const title = el(
    'div',
    { class: 'pane-title' },
    'Reasoning',
    el('small', { text: ` · ${now === all ? len(all) : `${len(now)} of ${len(all)}`} characters · not content, markup in it never runs` }),
  );
  const nodes = [title, el('pre', { class: 'reasoning-text', text: now || '(none yet at this step)' })];
  if (result.parse.reasoning !== all) {
    nodes.push(el('div', { class: 'error-box', text: 'parse().reasoning differs from the streamed reasoning' }));
  }
  pane.replaceChildren(...nodes);
}

/** The event list: text, a marker where reasoning went, calls announced with their arguments
 * so far (R16), and the final tool_calls cards. */
function eventNodes(events, fragments, idStores) {
  const nodes = [];
  let block = 0;
  let announced = null; // {slot, calls: [{index, name, args}]}: a block whose calls stream
  const settle = () => {
    if (announced) nodes[announced.slot] = streamCard(announced.calls, fragments);
    announced = null;
  };
  for (const e of events) {
    if (e.type === 'tool_call_start' || e.type === 'tool_call_arguments') {
      if (!announced) announced = { slot: nodes.push(null) - 1, calls: [] };
      let call = announced.calls.find((c) => c.index === e.index);
      if (!call) announced.calls.push((call = { index: e.index, name: e.name ?? '?', args: '' }));
      if (e.type === 'tool_call_arguments') call.args += e.delta;
      continue;
    }
    if (e.type === 'tool_calls') {
      const stores = idStores[block] || (idStores[block] = new Map());
      block += 1;
      const card = callsCard(e, stores, announced ? announced.calls : [], fragments);
      if (announced) nodes[announced.slot] = card;
      else nodes.push(card);
      announced = null;
      continue;
    }
    settle();
    if (e.type === 'reasoning') {
      nodes.push(
        el(
          'div',
          { class: 'event ev-reasoning-ref', 'data-type': 'reasoning' },
          el('span', { class: 'label', text: 'reasoning' }),
          el('span', { class: 'muted', text: ` ${Array.from(e.text).length} characters, in the reasoning pane above` }),
        ),
      );
    } else {
      nodes.push(el('div', { class: 'event ev-text', 'data-type': 'text' }, el('span', { class: 'label', text: 'text' }), el('pre', { text: e.text })));
    }
  }
  settle();
  if (!nodes.length) nodes.push(el('p', { class: 'muted', text: '(no events yet)' }));
  return nodes;
}

/** A block whose calls were announced and whose arguments are still streaming. */
function streamCard(calls, fragments) {
  const card = el(
    'div',
    { class: 'event ev-stream', 'data-type': 'tool_call_stream' },
    el('span', { class: 'label', text: `tool_calls · streaming · ${calls.length} call(s) announced` }),
  );
  for (const c of calls) {
    const n = fragments.get(c.index) || 0;
    card.append(
      el(
        'div',
        { class: 'call streaming', 'data-index': String(c.index) },
        el('div', { class: 'call-name' }, `#${c.index} ${c.name}`, el('small', { text: ` · ${Array.from(c.args).length} characters in ${n} fragment(s)` })),
        el('pre', { class: 'args-text', text: c.args }),
        partialParams(c.args),
      ),
    );
  }
  return card;
}

/** The arguments so far read as the object they begin, for a readable view of long strings;
 * the fragments are a prefix of the final JSON text (R16.3), so closing it usually parses. */
function partialParams(args) {
  const cut = args.replace(/\\u[0-9a-fA-F]{0,3}$/, '').replace(/(^|[^\\])((?:\\\\)*)\\$/, '$1$2');
  for (const end of ['', '"}', '}', '"]}', ']}']) {
    try {
      const v = JSON.parse(cut + end);
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const d = el('details', { class: 'so-far' }, el('summary', { text: 'decoded so far' }), paramsTable(v));
        d.open = replay.decoded; // the page is redrawn at every step: keep the reader's choice
        d.addEventListener('toggle', () => (replay.decoded = d.open));
        return d;
      }
    } catch {
      // not closable this way; try the next ending
    }
  }
  return null;
}

function callsCard(e, stores, streamed, fragments) {
  const card = el('div', { class: 'event ev-calls', 'data-type': 'tool_calls' }, el('span', { class: 'label', text: `tool_calls · ${e.calls.length} call(s)` }));
  // Announced calls are the block's calls in order (R16.3): pair them up when the counts match.
  const paired = streamed.length === e.calls.length ? streamed : [];
  e.calls.forEach((c, i) => {
    const call = el('div', { class: 'call' }, el('div', { class: 'call-name', text: c.name }), paramsTable(c.input));
    const s = paired[i];
    if (s) {
      let joins = false;
      try {
        joins = firstDifference(c.input, JSON.parse(s.args)) === null;
      } catch {
        joins = false;
      }
      call.append(
        el(
          'details',
          { class: 'streamed', 'data-index': String(s.index) },
          el('summary', { text: `arguments as streamed: ${fragments.get(s.index) || 0} fragment(s) ${joins ? '✓ join to this input' : '✗ do not join to this input'}` }),
          el('pre', { class: 'args-text', text: s.args }),
        ),
      );
    }
    card.append(call);
  });
  let openai;
  try {
    openai = JSON.stringify(openAIToolCalls(e.calls, stores), null, 2);
  } catch (err) {
    openai = `could not format: ${err.message}`;
  }
  card.append(
    el('details', { class: 'openai' }, el('summary', { text: 'OpenAI tool_calls' }), el('pre', { class: 'openai-json', text: openai })),
    el('details', {}, el('summary', { text: 'raw source of the block' }), el('pre', { text: e.raw })),
  );
  return card;
}

/** A call's input as a parameter table: strings shown as they are, other values as JSON. */
function paramsTable(input) {
  const keys = Object.keys(input);
  if (!keys.length) return el('div', { class: 'muted', text: '(no parameters)' });
  const rows = keys.map((k) => {
    const v = input[k];
    const shown = typeof v === 'string' ? v : JSON.stringify(v, null, 1);
    const kind = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
    return el('tr', {}, el('th', { text: k }), el('td', {}, el('pre', { text: shown })), el('td', {}, el('span', { class: 'kind', text: kind })));
  });
  return el('table', { class: 'params' }, el('tbody', {}, ...rows));
}

function setBadge(kind, text) {
  const b = $('badge');
  b.dataset.state = kind;
  b.textContent = text;
}

// ---------------------------------------------------------------------------------------------
// Replay: the stream chunk by chunk. Position k shows what the first k steps emitted (step i
// feeds chunk i; the last step is flush()), so the events are computed once per run.

const replay = { pos: 0, total: 0, timer: null, decoded: true };
state.replay = replay;

function renderRun() {
  const run = state.lastRun;
  if (!run) return;
  renderColumn('js', run.js, run.request, run.idStores, replay.pos);
  if (run.python) renderColumn('py', run.python, run.request, run.idStores, replay.pos);
}

function replayLabel() {
  const run = state.lastRun;
  const n = run ? run.request.chunks.length : 0;
  const { pos, total } = replay;
  if (!run || !total) return '';
  if (pos >= total) return `final: ${n} chunk(s) fed, then flush()`;
  if (pos === 0) return `before the first chunk (${n} to feed)`;
  const fed = Array.from(run.request.chunks.slice(0, pos).join('')).length;
  const all = Array.from(run.request.input).length;
  return `fed ${pos}/${n} chunks (${fed} of ${all} code points)${pos === n ? ', flush() not yet called' : ''}`;
}

function setReplay(pos, keepPlaying = false) {
  if (!keepPlaying) stopPlay();
  const run = state.lastRun;
  replay.total = run ? run.request.chunks.length + 1 : 0;
  replay.pos = Math.max(0, Math.min(pos, replay.total));
  $('replay-pos').max = String(replay.total);
  $('replay-pos').value = String(replay.pos);
  $('replay-label').textContent = replayLabel();
  renderRun();
}

function stopPlay() {
  clearInterval(replay.timer);
  replay.timer = null;
  $('replay-play').textContent = 'play';
}

function togglePlay() {
  if (replay.timer) return stopPlay();
  if (replay.pos >= replay.total) setReplay(0);
  // About six seconds for the whole stream, whatever its number of chunks.
  const ms = Math.max(15, Math.min(150, Math.round(6000 / Math.max(1, replay.total))));
  $('replay-play').textContent = 'pause';
  replay.timer = setInterval(() => {
    setReplay(replay.pos + 1, true);
    if (replay.pos >= replay.total) stopPlay();
  }, ms);
}

/** The first replay step after which the two engines' events so far differ, or null. Both lists
 * grow step by step; up to the last step compared they were equal, so only their tails can
 * differ. */
function replayDifference(py, js) {
  if (!py.steps || !js.steps || py.steps.length !== js.steps.length) return 'the number of steps';
  const a = [];
  const b = [];
  for (let k = 0; k < py.steps.length; k++) {
    const from = Math.max(0, a.length - 1);
    appendCoalesced(a, py.steps[k]);
    appendCoalesced(b, js.steps[k]);
    if (a.length !== b.length || firstDifference(a.slice(from), b.slice(from)) !== null) return k + 1;
  }
  return null;
}

async function runPlayground() {
  if (!state.ts) return;
  const seq = ++state.runSeq;
  const req = currentRequest();
  // An option the JS build does not know yet is left out of its run, and said so.
  const missing = unsupportedOptions(state.ts, req.options);
  const jsOptions = Object.fromEntries(Object.entries(req.options).filter(([k]) => !missing.includes(k)));
  const js = jsRun(state.ts, req.input, req.chunks, jsOptions);
  $('replay-parity').textContent = '';
  const notice = $('js-notice');
  notice.hidden = !missing.length;
  notice.textContent = missing.length
    ? `This build of the JS sieve does not know ${missing.join(', ')} yet: this column runs without it, and the engines are not compared.`
    : '';
  state.lastRun = { seq, request: req, js, python: null, equal: null, difference: null, unsupported: missing, idStores: [], replayDifference: null };
  setReplay(Infinity);
  if (!state.pyReady) {
    setBadge('pending', state.py && $('py-status').dataset.state === 'error' ? 'Python engine unavailable' : 'waiting for Pyodide…');
    return;
  }
  setBadge('pending', 'running…');
  let py;
  try {
    py = await state.py.call({ op: 'run', input: req.input, chunks: req.chunks, options: req.options });
  } catch (err) {
    py = { error: { type: 'WorkerError', message: err.message } };
  }
  if (seq !== state.runSeq) return; // a newer run started meanwhile
  const run = state.lastRun;
  run.python = py;
  renderColumn('py', py, req, run.idStores, replay.pos);
  if (missing.length) {
    setBadge('unsupported', `JS build lacks ${missing.join(', ')}: engines not compared`);
    return;
  }
  const strip = (r) => (r.error ? r : { parse: r.parse, events: r.events });
  const diff = firstDifference(strip(py), strip(js));
  run.equal = diff === null;
  run.difference = diff;
  // Informational: the events so far after every chunk (the engines must agree on the end).
  run.replayDifference = py.error || js.error ? null : replayDifference(py, js);
  $('replay-parity').textContent =
    run.replayDifference === null ? 'engines: the same events after every chunk' : `engines: events so far differ from step ${run.replayDifference}`;
  if (diff === null) setBadge('agree', '✓ engines agree');
  else setBadge('differ', `✗ engines differ at ${diff}`);
}

let debounce = null;
function scheduleRun() {
  clearTimeout(debounce);
  debounce = setTimeout(runPlayground, 250);
}

async function loadExample(id) {
  const ex = EXAMPLES.find((e) => e.id === id);
  if (!ex) return;
  try {
    const r = await fetch(ex.url);
    if (!r.ok) throw new Error(`GET ${ex.url}: HTTP ${r.status}`);
    $('input').value = await r.text();
    $('tool-names').value = ex.toolNames;
    $('json-calls').checked = Boolean(ex.jsonToolCalls);
    $('reasoning').value = ex.reasoning || 'auto';
    $('stream-args').checked = Boolean(ex.streamArguments);
    setExtraOptions({});
  } catch (err) {
    showLoadError(`example ${id}`, err);
  }
}

// ---------------------------------------------------------------------------------------------
// The "run all fixtures" view.

async function fetchJson(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`GET ${url}: HTTP ${r.status}`);
  return r.json();
}

const tick = () => new Promise((r) => setTimeout(r, 0));

function setFixtureProgress(done, total, text) {
  const bar = $('fixtures-progress');
  bar.hidden = false;
  bar.max = total;
  bar.value = done;
  $('fixtures-summary').textContent = text;
}

async function runFixtures() {
  const button = $('run-fixtures');
  const summary = $('fixtures-summary');
  button.disabled = true;
  summary.dataset.state = 'running';
  summary.className = 'fixtures-summary';
  const seed = Math.max(0, parseInt($('seed').value, 10) || 0);
  try {
    if (!state.ts) throw new Error('the JS sieve is not loaded');
    const index = await fetchJson('/fixtures/index.json');
    // Sieve fixtures (an `input`) run through parse and the stream; function fixtures (a `call`,
    // R10-R13, R15.4, R16.5) through each engine's driver `call` op.
    const wanted = index.fixtures.filter((f) => f.kind === 'sieve' || f.kind === 'function');
    const functionFixtures = wanted.filter((f) => f.kind === 'function').length;
    if (!wanted.length) throw new Error(`no fixtures in /fixtures/index.json (${index.fixtures.length} listed)`);
    const files = [];
    let loaded = 0;
    await Promise.all(
      wanted.map(async (f, i) => {
        files[i] = { ...f, fixture: await fetchJson(f.url) };
        loaded += 1;
        if (loaded % 20 === 0) setFixtureProgress(loaded, wanted.length, `loading fixtures ${loaded}/${wanted.length}`);
      }),
    );
    const cases = files.map((f) =>
      f.fixture.call
        ? { id: f.id, call: f.fixture.call }
        : {
            id: f.id,
            input: f.fixture.input,
            options: f.fixture.options || {},
            chunkings: fixtureChunkings(f.fixture, seed),
          },
    );
    const total = cases.length * 2;
    let done = 0;
    const report = () => setFixtureProgress(done, total, `running: ${done}/${total} fixture runs (Python + JS)`);

    const tJs0 = performance.now();
    const jsResults = [];
    const jsTask = (async () => {
      for (let i = 0; i < cases.length; i++) {
        jsResults[i] = jsFixture(state.ts, cases[i], state.protocol);
        done += 1;
        if (i % 10 === 9) {
          report();
          await tick();
        }
      }
      return performance.now() - tJs0;
    })();

    const pyResults = [];
    const pyTask = (async () => {
      if (!state.pyReady) await state.py.ready;
      const t0 = performance.now();
      const BATCH = 20;
      for (let i = 0; i < cases.length; i += BATCH) {
        const resp = await state.py.call({ op: 'fixtures', cases: cases.slice(i, i + BATCH) });
        if (resp.error) throw new Error(`${resp.error.type}: ${resp.error.message}`);
        resp.results.forEach((r, k) => (pyResults[i + k] = r));
        done += resp.results.length;
        report();
      }
      return performance.now() - t0;
    })();

    let pyError = null;
    const [jsMs, pyMs] = await Promise.all([jsTask, pyTask.catch((e) => ((pyError = e), null))]);

    // parity/known-differences.json: intentional differences, by fixture and engine ('pyodide' is
    // the Python column here, 'node' the JS one). A listed failure is shown as known, not failed.
    const known = new Map();
    for (const k of await fetchJson('/known-differences.json').catch(() => [])) {
      if (k && (k.engine === 'pyodide' || k.engine === 'node')) known.set(`${k.fixture}\u0000${k.engine}`, k.reason || '');
    }
    const knownOf = (id, engine) => known.get(`${id}\u0000${engine}`);
    const rows = files.map((f, i) => {
      const py = pyError ? { error: { type: 'PythonEngine', message: pyError.message } } : pyResults[i];
      const js = jsResults[i];
      // A case needing an option this JS build lacks is not run in JS: n/a, not a failure.
      const na = js.unsupported ? `needs ${js.unsupported.join(', ')}, which this JS build lacks` : null;
      const pyWhy = checkFixture(f.fixture, py);
      const jsWhy = na || checkFixture(f.fixture, js);
      const diff = pyError ? '(no Python result)' : na ? na : firstDifference(comparable(py), comparable(js));
      const pyKnown = knownOf(f.id, 'pyodide');
      const jsKnown = knownOf(f.id, 'node');
      const status = (why, k) => (why === null ? 'ok' : k !== undefined ? 'known' : 'fail');
      const row = { id: f.id, rule: f.rule, pyOk: pyWhy === null, pyWhy, jsOk: jsWhy === null, jsWhy, equal: diff === null, diff };
      row.unsupported = js.unsupported || null;
      row.py = status(pyWhy, pyKnown);
      row.js = na ? 'n/a' : status(jsWhy, jsKnown);
      row.eq = na ? 'n/a' : diff === null ? 'equal' : pyKnown !== undefined || jsKnown !== undefined ? 'known' : 'differ';
      row.known = [pyKnown, jsKnown].filter((x) => x !== undefined).join('; ');
      row.stale = [pyWhy === null && pyKnown !== undefined ? 'pyodide' : null, jsWhy === null && jsKnown !== undefined ? 'node' : null].filter(Boolean);
      return row;
    });
    const count = (pred) => rows.filter(pred).length;
    const result = {
      seed,
      total: rows.length,
      functionFixtures,
      streamRuns: cases.reduce((n, c) => n + (c.chunkings ? Object.keys(c.chunkings).length : 0), 0),
      pythonOk: count((r) => r.pyOk),
      jsOk: count((r) => r.jsOk),
      equal: count((r) => r.equal),
      known: count((r) => r.py === 'known' || r.js === 'known'),
      jsLacks: jsLacks(state.ts),
      unsupported: count((r) => r.js === 'n/a'),
      r15: count((r) => r.id.startsWith('r15-reasoning/')),
      r16: count((r) => r.id.startsWith('r16-arguments/')),
      unexpected: count((r) => r.py === 'fail' || r.js === 'fail' || r.eq === 'differ'),
      stale: rows.filter((r) => r.stale.length).map((r) => `${r.id} [${r.stale.join(', ')}]`),
      jsMs,
      pyMs,
      pyError: pyError && pyError.message,
      rows,
    };
    result.allOk = result.unexpected === 0;
    state.fixtures = result;
    renderFixtureTable(rows);
    summary.dataset.state = 'done';
    summary.classList.add(result.allOk ? 'all-ok' : 'not-ok');
    summary.textContent =
      `${result.allOk ? '✓' : '✗'} ${result.total - functionFixtures} sieve fixtures × (parse + stream whole, per char, ` +
      `random split seed ${seed}, own chunks where given) and ${functionFixtures} function fixtures (a call: R10–R13, R15.4, R16.5): ` +
      `Python ${result.pythonOk}/${result.total} ok · JS ${result.jsOk}/${result.total} ok · ` +
      `engines equal on ${result.equal}/${result.total}` +
      (result.known ? ` · ${result.known} known difference(s)` : '') +
      (result.unsupported ? ` · ${result.unsupported} not run in JS (this build lacks ${result.jsLacks.join(', ')})` : '') +
      (result.allOk ? '' : ` · ${result.unexpected} unexpected`) +
      ` — Python ${pyMs === null ? 'failed' : Math.round(pyMs) + ' ms'}, JS ${Math.round(jsMs)} ms` +
      (result.stale.length ? `\nlisted in parity/known-differences.json but passing: ${result.stale.join(', ')}` : '') +
      (pyError ? `\nPython engine: ${pyError.message}` : '');
    $('fixtures-progress').value = $('fixtures-progress').max;
  } catch (err) {
    summary.dataset.state = 'error';
    summary.classList.add('not-ok');
    summary.textContent = `fixture run failed: ${err.message}`;
    showLoadError('run all fixtures', err);
  } finally {
    button.disabled = false;
  }
}

function statusCell(status, why, reason) {
  if (status === 'ok' || status === 'equal') return el('td', { class: 'ok' }, '✓');
  if (status === 'n/a') return el('td', { class: 'na' }, 'n/a', el('span', { class: 'why', text: why }));
  const known = status === 'known';
  return el(
    'td',
    { class: known ? 'known' : 'bad' },
    known ? 'known' : '✗',
    el('span', { class: 'why', text: known ? `${why} — ${reason}` : why }),
  );
}

function renderFixtureTable(rows) {
  const only = $('only-problems').checked;
  const body = $('fixtures-table').querySelector('tbody');
  const trs = [];
  for (const r of rows) {
    if (only && r.pyOk && (r.jsOk || r.js === 'n/a') && (r.equal || r.eq === 'n/a')) continue;
    const eqWhy = r.diff === null ? '' : r.eq === 'n/a' ? r.diff : `first difference at ${r.diff}`;
    const link = el('a', { text: r.id, title: 'open in the playground', onclick: () => openFixture(r.id) });
    trs.push(
      el(
        'tr',
        { 'data-fixture': r.id, class: r.py === 'fail' || r.js === 'fail' || r.eq === 'differ' ? 'row-bad' : '' },
        el('td', { class: 'id' }, link),
        el('td', { text: r.rule }),
        statusCell(r.py, r.pyWhy, r.known),
        statusCell(r.js, r.jsWhy, r.known),
        statusCell(r.eq, eqWhy, r.known),
      ),
    );
  }
  if (!trs.length) trs.push(el('tr', {}, el('td', { colspan: '5', class: 'ok', text: 'no failures and no differences' })));
  body.replaceChildren(...trs);
  $('fixtures-table').hidden = false;
}

async function openFixture(id) {
  try {
    const f = await fetchJson(`/fixtures/${id}`);
    if (typeof f.input !== 'string') return; // a function fixture (a `call`): nothing to type in
    $('example').value = '';
    $('input').value = f.input;
    const o = f.options || {};
    $('tool-names').value = (o.toolNames || []).join(', ');
    $('json-calls').checked = Boolean(o.jsonToolCalls);
    $('reasoning').value = o.reasoning || 'auto';
    $('stream-args').checked = Boolean(o.streamArguments);
    setExtraOptions(o);
    showView('view-play');
    runPlayground();
  } catch (err) {
    showLoadError(`fixture ${id}`, err);
  }
}

// ---------------------------------------------------------------------------------------------

function showView(id) {
  for (const b of document.querySelectorAll('.tabs button')) b.setAttribute('aria-selected', String(b.dataset.view === id));
  for (const v of document.querySelectorAll('.view')) v.hidden = v.id !== id;
}

async function main() {
  for (const ex of EXAMPLES) $('example').append(el('option', { value: ex.id, text: ex.label }));
  for (const b of document.querySelectorAll('.tabs button')) b.addEventListener('click', () => showView(b.dataset.view));
  $('example').addEventListener('change', async () => {
    await loadExample($('example').value);
    runPlayground();
  });
  $('input').addEventListener('input', () => {
    $('example').value = '';
    scheduleRun();
  });
  $('tool-names').addEventListener('input', scheduleRun);
  $('json-calls').addEventListener('change', scheduleRun);
  $('reasoning').addEventListener('change', scheduleRun);
  $('stream-args').addEventListener('change', scheduleRun);
  $('replay-first').addEventListener('click', () => setReplay(0));
  $('replay-back').addEventListener('click', () => setReplay(replay.pos - 1));
  $('replay-next').addEventListener('click', () => setReplay(replay.pos + 1));
  $('replay-play').addEventListener('click', togglePlay);
  $('replay-pos').addEventListener('input', () => setReplay(parseInt($('replay-pos').value, 10) || 0));
  $('chunk-size').addEventListener('input', scheduleRun);
  $('run').addEventListener('click', runPlayground);
  $('run-fixtures').addEventListener('click', runFixtures);
  $('only-problems').addEventListener('change', () => state.fixtures && renderFixtureTable(state.fixtures.rows));

  try {
    state.config = await fetchJson('/config.json');
  } catch (err) {
    showLoadError('server configuration (/config.json)', err);
    return;
  }
  const pyStarted = startPython();
  $('example').value = EXAMPLES[0].id;
  await Promise.all([startJs(), loadExample(EXAMPLES[0].id)]);
  runPlayground();
  await pyStarted;
  runPlayground();
}

main();
