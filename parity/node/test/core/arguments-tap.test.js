'use strict';
/**
 * A value tap step by step: what it lets out after each piece, and where it ends (the fixtures pin
 * only joined results; these pin the timing, D36-D37). The cases of
 * python/tests/core/test_arguments_tap.py, so that both taps release the same characters at the same
 * steps.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { Tap, ValueTap, isIndexKey } = require('../../src/arguments');

// [parameter name, string attribute, calls ([kind, piece]: t text, c CDATA piece, open, close), wanted outputs, final state]
const CASES = [
  ["x", null, [["t", "  hello "], ["t", "world"]], ["hello", " world"], 'STREAM'],
  ["x", null, [["t", "a &am"], ["t", "p; b"]], ["a", " & b"], 'STREAM'],
  ["x", null, [["t", "a &"], ["open", ""], ["c", "z"]], ["a", " &", "z"], 'STREAM'],
  ["x", null, [["t", "12"], ["t", " Main"]], ["", "12 Main"], 'STREAM'],
  ["x", null, [["t", "-"], ["t", "1"], ["t", "x"]], ["", "", "-1x"], 'STREAM'],
  ["x", null, [["t", "tr"], ["t", "ue"], ["t", " x"]], ["", "", "true x"], 'STREAM'],
  ["x", null, [["t", "fa"], ["t", "ct"]], ["", "fact"], 'STREAM'],
  ["x", null, [["t", "n"], ["t", "o"]], ["", "no"], 'STREAM'],
  ["x", null, [["t", "null  "]], [""], 'DECIDE'],
  ["x", null, [["t", "{\"a\""], ["t", "zz"]], ["", ""], 'DECIDE'],
  ["x", null, [["t", "[1"], ["t", "x"]], ["", ""], 'DECIDE'],
  ["x", null, [["t", "\"q"], ["t", "x"]], ["", ""], 'DECIDE'],
  ["x", null, [["t", "<b>x"], ["t", "y"]], ["", ""], 'HOLD'],
  ["x", null, [["t", "&lt;b"], ["t", "y"]], ["", ""], 'HOLD'],
  ["x", null, [["t", "1"], ["open", ""], ["c", "x"]], ["", "", ""], 'HOLD'],
  ["x", null, [["t", "  "], ["t", "\n"]], ["", ""], 'LEAD'],
  ["x", null, [["open", ""], ["c", "abc"], ["c", "  "], ["c", "d"]], ["", "abc", "", "  d"], 'STREAM'],
  ["x", null, [["t", " "], ["open", ""], ["c", "abc "]], ["", "", "abc"], 'STREAM'],
  ["x", null, [["open", ""], ["c", " abc"]], ["", ""], 'HOLD'],
  ["x", null, [["open", ""], ["c", "tr"], ["c", "ee"]], ["", "", "tree"], 'STREAM'],
  ["x", null, [["open", ""], ["c", "<div>"]], ["", ""], 'HOLD'],
  ["content", null, [["open", ""], ["c", "<div>"]], ["", "<div>"], 'STREAM'],
  ["x", null, [["open", ""], ["c", "ab"], ["close", ""]], ["", "ab", ""], 'AFTER_CDATA'],
  ["x", null, [["open", ""], ["c", "tr"], ["close", ""]], ["", "", ""], 'HOLD'],
  ["x", null, [["open", ""], ["c", "ab "], ["close", ""], ["t", " "], ["t", "&amp;c"]], ["", "ab", "", "", "  &c"], 'STREAM'],
  ["x", null, [["open", ""], ["c", "ab"], ["close", ""], ["t", "\n"], ["open", ""], ["c", "cd"]], ["", "ab", "", "", "", "\ncd"], 'STREAM'],
  ["x", null, [["open", ""], ["c", "ab "], ["close", ""], ["close", ""]], ["", "ab", "", ""], 'AFTER_CDATA'],
  ["x", "true", [["t", "  "], ["t", "a &lt; "], ["t", " "]], ["", "  a &lt; ", " "], 'STREAM'],
  ["x", " TRUE ", [["open", ""], ["c", " a "], ["close", ""], ["t", "\n"]], ["", " a ", "", ""], 'AFTER_CDATA'],
  ["x", "true", [["t", "\n"], ["open", ""], ["c", "a"]], ["", "", ""], 'HOLD'],
  ["x", "true", [["open", ""], ["c", "a"], ["close", ""], ["t", "b"]], ["", "a", "", ""], 'HOLD'],
  ["x", "true", [["open", ""], ["c", "a"], ["close", ""], ["open", ""]], ["", "a", "", ""], 'HOLD'],
  ["x", "true", [["t", "a"], ["open", ""], ["c", " b "]], ["a", "", " b "], 'STREAM'],
  ["x", "false", [["t", "abc"], ["open", ""], ["c", "d"]], ["", "", ""], 'HOLD'],
  ["x", "maybe", [["t", "abc"]], ["abc"], 'STREAM'],];

function steps(tap, calls) {
  return calls.map(([kind, s]) => {
    if (kind === 't') return tap.text(s);
    if (kind === 'c') return tap.cdataPiece(s);
    if (kind === 'open') return tap.cdataOpen();
    tap.cdataClose();
    return '';
  });
}

CASES.forEach(([name, string, calls, want, state], i) => {
  test(`value tap case ${i}: ${JSON.stringify(calls)}`, () => {
    const tap = new ValueTap(name, string);
    assert.deepEqual(steps(tap, calls), want);
    assert.equal(tap.state, Tap[state]);
  });
});

test('index keys', () => {
  const keys = ['0', '7', '4294967294', '4294967295', '01', '-1', 'x', ''];
  assert.deepEqual(keys.map(isIndexKey), [true, true, true, false, false, false, false, false]);
});
