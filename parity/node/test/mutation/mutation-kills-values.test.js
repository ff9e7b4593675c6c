'use strict';
/**
 * Tests that tell src/values.js apart from its StrykerJS mutants (issue 17). Every expected value
 * is what the Python reference (python/callsieve/values.py) gives for the same input.
 * A string argument written {rep: [[s, n], ...]} is the pieces s repeated n times, joined.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');

const V = require('../../src/values.js');

function expand(a) {
  if (a !== null && typeof a === 'object' && !Array.isArray(a) && Array.isArray(a.rep)) {
    return a.rep.map(([s, n]) => s.repeat(n)).join('');
  }
  return Array.isArray(a) ? a.map(expand) : a;
}

function check(fn, args, want) {
  const got = V[fn](...args.map(expand));
  assert.deepEqual(got, expand(want), `${fn}(${JSON.stringify(args).slice(0, 200)})`);
}

test("jsonValue says [false, null] for what is not JSON", () => {
  check("jsonValue", [" x"], [false, null]);
  check("jsonValue", ["tx"], [false, null]);
  check("jsonValue", [{"rep": [["[", 201], ["]", 201]]}], [false, null]);
});

test("a wide value with many openers and a null is JSON", () => {
  check("jsonValue", [{"rep": [["[", 1], ["[],", 201], ["null]", 1]]}], [true, [[], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], null]]);
});

test("a value between JS blanks that brackets to one object is text", () => {
  check("literal", ["x", "\u00a0{\"a\":1}\u00a0"], "\u00a0{\"a\":1}\u00a0");
  check("paramValue", ["x", [["cdata", "\u00a0{\"a\":1}\u00a0"]]], "\u00a0{\"a\":1}\u00a0");
  check("literal", ["x", "\u00a0{\"a\":1},{\"b\":2}\u00a0"], [{"a": 1}, {"b": 2}]);
});

test("a nested CDATA closes only at ]] before an angle", () => {
  check("structured", [[["text", "<a><![CDATA[1 > 0]]></a>"]], false], [true, {"a": "1 > 0"}]);
  check("structured", [[["text", "<a><![CDATA[x]y>z]]></a>"]], false], [true, {"a": "x]y>z"}]);
});

test("an unclosed element is not structured", () => {
  check("structured", [[["text", "<a>1"]], false], [false, null]);
  check("structured", [[["text", "<a><b>1</b>"]], false], [false, null]);
});

test("structured says [false, null] when it is not", () => {
  check("structured", [[["text", "<a>1</b>"]], false], [false, null]);
  check("structured", [[["text", "< a>"]], false], [false, null]);
  check("structured", [[["text", "plain"]], false], [false, null]);
  check("structured", [[["text", "<a>1</a>"]], true], [false, null]);
  check("structured", [[["text", "<a>x<b>1</b></a>"]], false], [false, null]);
});

test("one element without children is structured unless clearly is asked", () => {
  check("structured", [[["text", "<a>1</a>"]], false], [true, {"a": 1}]);
  check("paramValue", ["x", [["text", "<a>1</a>"]]], {"a": 1});
  check("paramValue", ["x", [["text", " <a>1</a> "]]], {"a": 1});
});

test("one CDATA between blank texts is its content untrimmed", () => {
  check("paramValue", ["x", [["text", " "], ["cdata", " x "]]], " x ");
  check("paramValue", ["x", [["cdata", " x "], ["text", "\n"]]], " x ");
});

test("two CDATA sections join", () => {
  check("paramValue", ["x", [["cdata", "a"], ["cdata", "b"]]], "ab");
  check("paramValue", ["x", [["cdata", "a"], ["text", " "], ["cdata", "b"]]], "a b");
  check("paramValue", ["x", [["cdata", "a"], ["text", " "], ["cdata", "b"]], "true"], "ab");
  check("paramValue", ["x", [["cdata", " a"], ["cdata", "b "]], "false"], "ab");
});

test("a br in a CDATA of markup is a newline", () => {
  check("paramValue", ["x", [["cdata", "<a>x<br/>y</a><b>1</b>"]]], {"a": "x\ny", "b": 1});
  check("paramValue", ["x", [["cdata", "<a>x<BR >y</a><b>1</b>"]]], {"a": "x\ny", "b": 1});
});

test("CDATA content next to text is not decoded", () => {
  check("paramValue", ["x", [["text", "a"], ["cdata", "&amp;"]]], "a&amp;");
  check("paramValue", ["x", [["text", "a&lt;"], ["cdata", "&amp;"], ["text", "&gt;"]]], "a<&amp;>");
});

test("a valid backslash escape is not repaired", () => {
  check("jsonCalls", ["{\"name\":\"f\",\"input\":{\"p\":\"\\\\x\"}}"], [[{"name": "f", "input": {"p": "\\x"}}], false]);
  check("jsonCalls", ["{\"name\":\"f\",\"input\":{\"p\":\"\\x\"}}"], [[{"name": "f", "input": {"p": "\\x"}}], true]);
});

test("one bad item makes the calls null", () => {
  check("jsonCalls", ["{\"tool_calls\":[{\"name\":\"f\"},{\"nope\":1}]}"], null);
  check("jsonCalls", ["{\"tool_calls\":[{\"name\":\"f\"},null]}"], null);
  check("jsonCalls", ["{\"tool_calls\":[null]}"], null);
  check("jsonCalls", ["{\"tool_calls\":[{\"name\":\"f\"}, 1]}"], null);
  check("jsonCalls", ["{\"tool_calls\":[{\"name\":\"f\"},{\"name\":\"g\"}]}"], [[{"name": "f", "input": {}}, {"name": "g", "input": {}}], false]);
});

test("only type function unwraps", () => {
  check("jsonCalls", ["{\"type\":\"x\",\"function\":{\"name\":\"g\"},\"name\":\"f\",\"input\":{}}"], [[{"name": "f", "input": {}}], false]);
  check("jsonCalls", ["{\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{\\\"a\\\":1}\"},\"name\":\"f\"}"], [[{"name": "g", "input": {"a": 1}}], false]);
  check("jsonCalls", ["{\"tool_calls\":[{\"type\":\"tool\",\"function\":{\"name\":\"g\"},\"name\":\"f\"}]}"], [[{"name": "f", "input": {}}], false]);
});

test("a name that is not a string is no call", () => {
  check("jsonCalls", ["{\"name\":5,\"input\":{}}"], null);
  check("jsonCalls", ["{\"tool_calls\":[{\"name\":[\"f\"]}]}"], null);
  check("jsonCalls", ["{\"name\":\" \",\"input\":{}}"], null);
});

