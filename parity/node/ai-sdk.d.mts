/** Declarations for the ESM entry of `callsieve/ai-sdk`: the same exports as `ai-sdk.js`, plus a default export (the CommonJS exports object). */
export * from './ai-sdk.js';
import aiSdk from './ai-sdk.js';
export default aiSdk;
