/** Declarations for the ESM entry `index.mjs`: the same exports as `index.js`, plus a default export (the CommonJS exports object). */
export * from './index.js';
import callsieve from './index.js';
export default callsieve;
