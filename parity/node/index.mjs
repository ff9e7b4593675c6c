import cjs from './index.js';

export const { parse, Sieve, coalesce, ToolsieveError, InputTypeError, SieveClosedError, OptionsError, version } = cjs;
export default cjs;
