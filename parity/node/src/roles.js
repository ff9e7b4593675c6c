'use strict';
/**
 * Role normalization for prompts (docs/SPEC.md R11).
 * Port of python/callsieve/roles.py: see its docstring for every mapping and why the unknown
 * becomes `user`.
 */

const ROLES = Object.freeze(['system', 'user', 'assistant', 'tool']);
const DEFAULT_ROLE = 'user';
const ALIASES = new Map([
  ['developer', 'system'],
  ['function', 'tool'],
]);

/** The controlled role for `role`: one of ROLES, never throws. */
function normalizeRole(role) {
  if (typeof role !== 'string') return DEFAULT_ROLE;
  const r = role.trim();
  // Non-ASCII letters never match: no Unicode folding ('ſystem', 'K' Kelvin sign).
  if (!/^[\x00-\x7f]*$/.test(r)) return DEFAULT_ROLE;
  const low = r.toLowerCase();
  if (ROLES.includes(low)) return low;
  return ALIASES.get(low) || DEFAULT_ROLE;
}

module.exports = { ROLES, DEFAULT_ROLE, normalizeRole };
