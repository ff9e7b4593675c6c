'use strict';
/**
 * The gateway's settings (`gatewayConfig`: the options of `createGatewayServer` and the flags of
 * `callsieve-gateway`, checked) and the preset a request gets from its `model` id (R19.2:
 * `presetMap`'s shell-style patterns, matched in linear time). Port of python/callsieve/config.py.
 */

const { PRESETS } = require('./formats');
const { UsageError } = require('./errors');
const { checkFormats } = require('./sieve');
const { checkReasoning } = require('./reasoning');

const MODES = ['passthrough', 'prompt'];
const POLICIES = ['keep', 'reject'];
const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
const LOG_LEVELS = ['debug', 'info', 'warning', 'error'];
const LOG_FORMATS = ['text', 'json'];

/** Checked settings with defaults; throws UsageError for a bad value. */
function gatewayConfig(c) {
  const cfg = {
    upstream: c.upstream,
    apiKeys: c.apiKeys === undefined || c.apiKeys === null ? null : c.apiKeys,
    upstreamApiKey: c.upstreamApiKey || null,
    forwardClientKey: c.forwardClientKey === undefined ? false : c.forwardClientKey,
    maxBodyBytes: c.maxBodyBytes === undefined ? DEFAULT_MAX_BODY_BYTES : c.maxBodyBytes,
    corsOrigins: c.corsOrigins === undefined || c.corsOrigins === null ? null : c.corsOrigins,
    logLevel: c.logLevel === undefined ? 'info' : c.logLevel,
    logFormat: c.logFormat === undefined ? 'text' : c.logFormat,
    mode: c.mode === undefined ? 'passthrough' : c.mode,
    unknownTools: c.unknownTools === undefined ? 'keep' : c.unknownTools,
    timeout: c.timeout === undefined ? 600 : c.timeout,
    connectTimeout: c.connectTimeout === undefined ? 10 : c.connectTimeout,
    keepalive: c.keepalive === undefined ? 15 : c.keepalive,
    formats: c.formats === undefined ? null : c.formats,
    reasoning: c.reasoning === undefined ? null : c.reasoning, // null: the preset's, else 'auto'
    preset: c.preset === undefined ? null : c.preset, // R19: when presetMap chooses none
    presetMap: c.presetMap === undefined || c.presetMap === null ? null : c.presetMap, // [pattern, preset]
    streamArguments: c.streamArguments === undefined ? false : c.streamArguments,
    log: c.log === undefined ? (line) => process.stderr.write(line + '\n') : c.log,
  };
  if (typeof cfg.upstream !== 'string' || !/^https?:\/\//.test(cfg.upstream)) {
    throw new UsageError(`upstream must be an http(s) URL, got ${JSON.stringify(cfg.upstream)}`);
  }
  cfg.upstream = cfg.upstream.replace(/\/+$/, '');
  if (!MODES.includes(cfg.mode)) throw new UsageError(`mode must be one of ${MODES.join(', ')}, got ${JSON.stringify(cfg.mode)}`);
  if (!POLICIES.includes(cfg.unknownTools)) {
    throw new UsageError(`unknown-tools must be one of ${POLICIES.join(', ')}, got ${JSON.stringify(cfg.unknownTools)}`);
  }
  try {
    if (cfg.formats !== null) checkFormats(cfg.formats);
    if (cfg.reasoning !== null) checkReasoning(cfg.reasoning);
  } catch (e) {
    throw new UsageError(e.message);
  }
  if (cfg.preset !== null) presetName(cfg.preset, 'preset');
  if (cfg.presetMap !== null) {
    if (!Array.isArray(cfg.presetMap)) throw new UsageError(`presetMap must be an array of [pattern, preset] pairs, got ${JSON.stringify(cfg.presetMap)}`);
    cfg.presetMap = cfg.presetMap.map(presetEntry);
  }
  if (cfg.apiKeys !== null) {
    if (!Array.isArray(cfg.apiKeys) || !cfg.apiKeys.every((k) => typeof k === 'string' && k !== '' && k.trim() === k)) {
      throw new UsageError('apiKeys must be an array of non-empty keys without surrounding blanks');
    }
    cfg.apiKeys = [...cfg.apiKeys];
  }
  if (cfg.upstreamApiKey !== null && typeof cfg.upstreamApiKey !== 'string') {
    throw new UsageError(`upstreamApiKey must be a string, got ${JSON.stringify(cfg.upstreamApiKey)}`);
  }
  if (typeof cfg.forwardClientKey !== 'boolean') {
    throw new UsageError(`forwardClientKey must be a boolean, got ${JSON.stringify(cfg.forwardClientKey)}`);
  }
  if (!Number.isSafeInteger(cfg.maxBodyBytes) || cfg.maxBodyBytes < 1) {
    throw new UsageError(`maxBodyBytes must be a positive whole number, got ${JSON.stringify(cfg.maxBodyBytes)}`);
  }
  if (cfg.corsOrigins !== null) {
    if (!Array.isArray(cfg.corsOrigins) || !cfg.corsOrigins.every((o) => typeof o === 'string' && o !== '')) {
      throw new UsageError(`corsOrigins must be an array of origins, got ${JSON.stringify(cfg.corsOrigins)}`);
    }
    cfg.corsOrigins = cfg.corsOrigins.map((o) => o.replace(/\/+$/, ''));
  }
  if (!LOG_LEVELS.includes(cfg.logLevel)) throw new UsageError(`logLevel must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(cfg.logLevel)}`);
  if (!LOG_FORMATS.includes(cfg.logFormat)) throw new UsageError(`logFormat must be one of ${LOG_FORMATS.join(', ')}, got ${JSON.stringify(cfg.logFormat)}`);
  if (typeof cfg.streamArguments !== 'boolean') {
    throw new UsageError(`streamArguments must be a boolean, got ${JSON.stringify(cfg.streamArguments)}`);
  }
  for (const k of ['timeout', 'connectTimeout', 'keepalive']) {
    if (typeof cfg[k] !== 'number' || !(cfg[k] > 0) || !Number.isFinite(cfg[k])) {
      throw new UsageError(`${k} must be a positive number of seconds, got ${JSON.stringify(cfg[k])}`);
    }
  }
  return cfg;
}

/** A preset's name, checked (UsageError listing the known ones). */
function presetName(name, where) {
  if (typeof name !== 'string' || !Object.prototype.hasOwnProperty.call(PRESETS, name)) {
    throw new UsageError(`${where}: unknown preset ${JSON.stringify(name)} (known: ${Object.keys(PRESETS).join(', ')})`);
  }
  return name;
}

/** One entry of `presetMap`: a [pattern, preset] pair, checked. */
function presetEntry(entry) {
  if (!Array.isArray(entry) || entry.length !== 2) {
    throw new UsageError(`presetMap entries are [pattern, preset] pairs, got ${JSON.stringify(entry)}`);
  }
  const [pattern, name] = entry;
  if (typeof pattern !== 'string' || !pattern) {
    throw new UsageError(`a presetMap pattern must be a non-empty string, got ${JSON.stringify(pattern)}`);
  }
  return [pattern, presetName(name, 'presetMap')];
}

/**
 * A `presetMap` pattern as Python's fnmatch reads it, without regard to case: `*` any run, `?` one
 * character, `[seq]` / `[!seq]` one character in / not in the set (ranges `a-z`; a `]` first in
 * the set and a `-` first or last are literal; a reversed range matches nothing; a `[` that is
 * not closed is literal); anything else itself. Returns a function `(model) => boolean`.
 * The pattern comes from the operator (a flag), the model id from the client: the pattern is
 * compiled here into tokens, and matching them is a loop over the model id (globMatch), never a
 * backtracking regex, so any model id takes at most len(pattern) * len(model) steps.
 */
function presetPattern(pattern) {
  const p = Array.from(pattern.toLowerCase());
  const tokens = [];
  let i = 0;
  while (i < p.length) {
    const c = p[i++];
    if (c === '*') {
      if (!(tokens.length && tokens[tokens.length - 1].star)) tokens.push({ star: true });
    } else if (c === '?') tokens.push({ any: true });
    else if (c === '[') {
      let j = i;
      if (j < p.length && p[j] === '!') j++;
      if (j < p.length && p[j] === ']') j++;
      while (j < p.length && p[j] !== ']') j++;
      if (j >= p.length) {
        tokens.push({ ch: '[' });
        continue;
      }
      let k = i;
      const negate = p[k] === '!';
      if (negate) k++;
      const ranges = [];
      while (k < j) {
        if (k + 2 < j && p[k + 1] === '-') {
          const lo = p[k].codePointAt(0);
          const hi = p[k + 2].codePointAt(0);
          if (lo <= hi) ranges.push([lo, hi]); // a reversed range matches nothing (as fnmatch)
          k += 3;
        } else {
          const cp = p[k].codePointAt(0);
          ranges.push([cp, cp]);
          k += 1;
        }
      }
      tokens.push({ ranges, negate });
      i = j + 1;
    } else tokens.push({ ch: c });
  }
  return (model) => globMatch(tokens, Array.from(model.toLowerCase()));
}

/** Whether the tokens of presetPattern match all of `s` (an array of characters): one pass that,
 * on a mismatch, moves the last `*` one character on (O(tokens * characters), no recursion). */
function globMatch(tokens, s) {
  const one = (t, c) => {
    if (t.any) return true;
    if (t.ch !== undefined) return t.ch === c;
    const cp = c.codePointAt(0);
    return t.ranges.some(([lo, hi]) => lo <= cp && cp <= hi) !== t.negate;
  };
  let t = 0;
  let i = 0;
  let starT = -1;
  let starI = 0;
  while (i < s.length) {
    if (t < tokens.length && tokens[t].star) {
      starT = t++;
      starI = i;
    } else if (t < tokens.length && one(tokens[t], s[i])) {
      t++;
      i++;
    } else if (starT >= 0) {
      t = starT + 1;
      i = ++starI;
    } else return false;
  }
  while (t < tokens.length && tokens[t].star) t++;
  return t === tokens.length;
}

/** The preset of a request (R19.2): that of the first pattern its `model` id matches, else
 * `fallback` (a `model` that is not a string matches no pattern). */
function choosePreset(model, patterns, fallback) {
  if (typeof model === 'string') {
    for (const [match, name] of patterns) if (match(model)) return name;
  }
  return fallback;
}

module.exports = {
  MODES,
  POLICIES,
  DEFAULT_MAX_BODY_BYTES,
  LOG_LEVELS,
  LOG_FORMATS,
  gatewayConfig,
  presetName,
  presetEntry,
  presetPattern,
  choosePreset,
};
