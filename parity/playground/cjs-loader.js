// A tiny CommonJS loader for the browser: fetch the JS sieve's sources as they are in parity/node
// (no build step, nothing from a CDN), find their relative require() calls, and evaluate each file
// once with a module/exports/require shim. A non-relative require (e.g. 'crypto') throws, as a
// missing module does in Node; compat.js catches that and uses globalThis.crypto instead.

const REQUIRE = /\brequire\(\s*(['"])([^'"]+)\1\s*\)/g;

function resolveUrl(spec, fromUrl) {
  let url = new URL(spec, fromUrl).href;
  if (!/\.(c?js|json)$/.test(url)) url += '.js';
  return url;
}

export async function loadCommonJS(entryUrls) {
  const sources = new Map(); // url -> source text
  const pending = new Map(); // url -> Promise

  function fetchOne(url) {
    if (pending.has(url)) return pending.get(url);
    const p = (async () => {
      const r = await fetch(url);
      if (!r.ok) throw new Error(`GET ${url}: HTTP ${r.status}`);
      const src = await r.text();
      sources.set(url, src);
      const deps = [];
      for (const m of src.matchAll(REQUIRE)) {
        if (m[2].startsWith('.')) deps.push(fetchOne(resolveUrl(m[2], url)));
      }
      await Promise.all(deps);
    })();
    pending.set(url, p);
    return p;
  }

  const entries = entryUrls.map((u) => new URL(u, location.href).href);
  await Promise.all(entries.map(fetchOne));

  const cache = new Map();
  function load(url) {
    if (cache.has(url)) return cache.get(url).exports;
    const src = sources.get(url);
    if (src === undefined) throw new Error(`module not fetched: ${url}`);
    const module = { exports: {}, id: url };
    cache.set(url, module);
    const require = (spec) => {
      if (!spec.startsWith('.')) {
        const e = new Error(`Cannot find module '${spec}' (not available in the browser)`);
        e.code = 'MODULE_NOT_FOUND';
        throw e;
      }
      return load(resolveUrl(spec, url));
    };
    // eslint-disable-next-line no-new-func
    const fn = new Function('module', 'exports', 'require', `${src}\n//# sourceURL=${url}`);
    fn.call(module.exports, module, module.exports, require);
    return module.exports;
  }
  return entries.map(load);
}
