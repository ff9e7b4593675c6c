/** Declarations for the ESM entry of `callsieve/compat`: the same exports as `compat.js`, plus a default export (the CommonJS exports object). */
export * from './compat.js';
import compat from './compat.js';
export default compat;
