'use strict';
/**
 * The README's ```js blocks run as printed (the Python and shell blocks: python/tests/test_readme.py).
 * Each block is written to a scratch directory inside this package and run by this Node, so that
 * `require('callsieve')` / `import … from 'callsieve/ai-sdk'` resolve to the package itself (a
 * package may import itself by its name) and `ai` to its dev dependency. A block with `import` or
 * top-level `await` runs as an ES module, any other as CommonJS.
 */

const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { after, test } = require('node:test');

const README = path.join(__dirname, '..', '..', '..', '..', 'README.md');
const TEXT = fs.readFileSync(README, 'utf8');
const FENCE = /^( *)```js\n([\s\S]*?)^\1```$/gm;

const blocks = [...TEXT.matchAll(FENCE)].map((m) => ({
  line: TEXT.slice(0, m.index).split('\n').length,
  code: m[2]
    .split('\n')
    .map((l) => l.slice(m[1].length))
    .join('\n'),
}));

const scratch = fs.mkdtempSync(path.join(__dirname, '..', '..', '.readme-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

test('the README has js blocks', () => {
  assert.ok(blocks.length >= 2);
});

for (const { line, code } of blocks) {
  test(`README.md line ${line} runs`, () => {
    const esm = /^import /m.test(code) || /^(const|let) .*= await /m.test(code);
    const file = path.join(scratch, `line-${line}.${esm ? 'mjs' : 'cjs'}`);
    fs.writeFileSync(file, code);
    try {
      execFileSync(process.execPath, [file], { cwd: scratch, stdio: 'pipe', timeout: 60_000 });
    } catch (e) {
      assert.fail(`README.md line ${line}:\n${e.stderr}`);
    }
  });
}
