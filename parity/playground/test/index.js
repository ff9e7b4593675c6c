'use strict';
// Lets `node --test parity/playground/test/` work on Node >= 21, which runs a directory argument as
// a module (this file) instead of searching it. A glob run that finds this file itself
// (`node --test` with no argument) also finds browser.test.mjs, so it loads nothing then.
const path = require('node:path');

if (path.basename(process.argv[1] || '') !== 'index.js') {
  import('./browser.test.mjs');
}
