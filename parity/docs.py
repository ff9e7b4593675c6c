"""Seeded random model replies for the parity runner's generative mode: prose, fences, inline
code, valid, noisy, truncated and malformed blocks in every format (DSML, native DSML with `string`
attributes, V3/V3.1 token sections, end-of-sentence tokens). Standard library only; same seed,
same docs."""

from __future__ import annotations

import random
import re

PROSE = [
    "Sure, let me check that.\n",
    "好的，我来看看。\n",
    "Done. ",
    "a < b and c > d ",
    "<div>html</div> ",
    "\n\n",
    "   ",
    "Use `ls` here. ",
    "stray ` tick ",
    "`` a ` b `` ",
    "see <tool_calls> above ",
    "the </tool_calls> closer ",
    '<invoke name="x"> in prose ',
    "&lt;tag&gt; ",
    "]]> ",
    "x",
    "\n",
    "## Heading\n",
    "- item `code`\n",
    "emoji 💥 and ｜fullwidth｜ ",
    "<br/>",
    "<<EOF\n",
    "<｜end▁of▁sentence｜>",
    "the <｜tool▁sep｜> token ",
    "<｜tool▁call▁begin｜> alone ",
    "<|tool_calls_begin|> ",
]
SHELLS = [
    ("<|DSML|", "</|DSML|"),
    ("<", "</"),
    ("<DSML|", "</DSML|"),
    ("<|DSML ", "</|DSML "),
    ("<DSML", "</DSML"),
    ("<dsml-", "</dsml-"),
    ("＜|DSML|", "＜／DSML|"),
    ("<！DSML！", "<！/DSML！"),
    ("<<|DSML|", "</|DSML|"),
    ("<T|DSML|", "</T|DSML|"),
    ("<｜DSML｜", "</｜DSML｜"),
    ("〈DSM|", "〈/DSM|"),
    ("<proto💥", "</proto💥"),
    ("<DSmart", "</DSmart"),
]
WRAPPERS = [
    "tool_calls",
    "tool_calls",
    "tool_calls",
    "TOOL_CALLS",
    "ToolCalls",
    "tool_calls_extra",
    "tool-calls",
    "toοl_calls",
    "function_calls",
    "function_calls",
    "FunctionCalls",
]
INVOKES = ["invoke", "invoke", "invoke", "Invoke", "invokes", "invοke"]
PARAMS = ["parameter", "parameter", "parameter", "Parameter", "param"]
NAMES = ["read_file", "Bash", "write_file", "search", "noop", "", "a b"]
PNAMES = ["path", "command", "content", "todos", "q", "items", "n"]
VALUES = [
    "README.md",
    " 42 ",
    "true",
    "null",
    "[1,2]",
    '{"a":1}',
    '{"a":1}, {"b":2}',
    "<![CDATA[raw <x> & y]]>",
    "<![CDATA[  keep  ]]>",
    "<item>a</item><item>b</item>",
    "<x>1</x><y>two</y>",
    "&lt;b&gt; &amp; &#60;",
    "",
    "   ",
    "<![CDATA[```\n]]></|DSML|parameter>\n```\nafter]]>",
    "<![CDATA[echo `date`]]>",
    "中文",
    "<![CDATA[<item><a>1</a></item>]]>",
    "<![CDATA[<b>x</b>]]>",
    "<！[CDATA[drift]]＞",
    "〈![CDATA[cjk]]〉",
    "<![CDATA[a]]> b",
    "<![CDATA[unclosed",
    "12345678901234567890",
    "1e400",
    "-0.0",
    "1.5e-7",
    "<![CDATA[<q><![CDATA[in]]></q><r>2</r>]]>",
    "<br>x<br/>",
]
OPEN_ENDS = [">", ">", ">\n", "|", "|>", ' id="1">']
STRING_ATTRS = ["", "", "", ' string="true"', ' string="false"', " string='true'", ' string="TRUE"']
MARKERS = {
    "calls_begin": "<｜tool▁calls▁begin｜>",
    "calls_end": "<｜tool▁calls▁end｜>",
    "call_begin": "<｜tool▁call▁begin｜>",
    "call_end": "<｜tool▁call▁end｜>",
    "sep": "<｜tool▁sep｜>",
    "eos": "<｜end▁of▁sentence｜>",
}
ARGS = [
    '{"city": "Paris"}',
    "{}",
    "",
    '{\n  "a": [1, 2],\n  "b": {"c": null}\n}',
    '{"q": "x<y"}',
    "{bad",
    "[1]",
]

# Shapes that mutation testing found no test exercising (issue 17): repeated attributes and line
# breaks in attribute values, numeric entities of every form, mixed and repeated child lists,
# fullwidth CDATA closers, 16-digit integers, tabs before fence runs.
NAMES += ["read\nfile", 'first" name="second']
PNAMES += ["query", 'a" name="b']
VALUES += [
    "&#X41;&#x4a;&#0065;&#x1F4A5;&#128165;",
    "&#xD800;&#0;&#x110000;&#55296;&#xDFFF;",
    "<x>1</x><item>2</item>",
    "<item>1</item><x>2</x><item>3</item>",
    "<a>1</a><a>2</a><a>3</a><b>4</b>",
    "<![CDATA[<item>1</item><x>2</x>]]>",
    "<![CDATA[fw]]＞",
    "<![CDATA[a]]＞ b]]〉",
    "9999999999999999",
    "1234567890123456",
]
OPEN_ENDS += ["!>", ' name="dup">']
PROSE += ["\t```\n", "`a\n\t```\n", " \t~~~\n", "``x```y`` "]
MUTATIONS = ["<", ">", "`", "\n", "]]>", "\u200b", " ", "/", '"', "```\n", "~~~\n"]


# R16: values whose type is known early or late, and parameter names that repeat or reorder
PNAMES += ["0", "1", "file_content"]
VALUES += [
    "trust me",
    "12 Main St",
    "  a &lt; b &am",
    "<![CDATA[ lead]]>",
    "<![CDATA[code()\n  ]]>",
    "<![CDATA[a]]> tail",
    "<![CDATA[a]]><![CDATA[b]]>",
    "pre<![CDATA[mid]]>post",
    "x\ty  \u00a0",
    "caf\u00e9 \U0001f600 end",
]
THOUGHTS = ["", "<think>plan</think>", "<think>draft: ", "<think>\n</think>\n\n", "  <think>a</think>b"]


def block(rng: random.Random) -> str:
    o, c = rng.choice(SHELLS)
    w = rng.choice(WRAPPERS)
    parts = [] if rng.random() < 0.1 else [o + w + rng.choice(OPEN_ENDS)]
    for _ in range(rng.randint(0, 3)):
        inv = rng.choice(INVOKES)
        q = rng.choice(['"', '"', "'", "“"])
        q2 = "”" if q == "“" else q
        parts.append(f"{o}{inv} name={q}{rng.choice(NAMES)}{q2}>")
        if rng.random() < 0.1:
            parts.append('{"input": {"a": 1}}')
        for _ in range(rng.randint(0, 3)):
            p = rng.choice(PARAMS)
            attr = rng.choice(STRING_ATTRS)
            parts.append(f'{o}{p} name="{rng.choice(PNAMES)}"{attr}>{rng.choice(VALUES)}{c}{p}>')
        parts.append(f"{c}{inv}>\n")
    if rng.random() < 0.85:
        parts.append(f"{c}{w}>")
    text = "".join(parts)
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        if not text:
            break
        i = rng.randrange(len(text))
        kind = rng.random()
        if kind < 0.3:
            text = text[:i]
        elif kind < 0.6:
            text = text[:i] + text[i + 1 :]
        else:
            text = text[:i] + rng.choice(MUTATIONS) + text[i:]
    return text


def section(rng: random.Random) -> str:
    """A V3.1 or V3/R1 token section (R14.4, R14.5), sometimes broken."""
    m = MARKERS
    parts = [rng.choice([m["calls_begin"], m["calls_begin"], "<｜tool▁calls｜>", "<|tool▁calls▁begin|>"])]
    for _ in range(rng.randint(0, 3)):
        name = rng.choice(NAMES)
        args = rng.choice(ARGS)
        if rng.random() < 0.5:
            parts.append(f"{m['call_begin']}{name}{m['sep']}{args}{m['call_end']}")
        else:
            parts.append(f"{m['call_begin']}function{m['sep']}{name}\n```json\n{args}\n```{m['call_end']}")
        parts.append(rng.choice(["", "", "\n", " "]))
    r = rng.random()
    if r < 0.75:
        parts.append(m["calls_end"])
    elif r < 0.85:
        parts.append(m["eos"])
    text = "".join(parts)
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        if not text:
            break
        i = rng.randrange(len(text))
        kind = rng.random()
        if kind < 0.3:
            text = text[:i]
        elif kind < 0.6:
            text = text[:i] + text[i + 1 :]
        else:
            text = text[:i] + rng.choice([*MUTATIONS, *MARKERS.values()]) + text[i:]
    return text


def document(rng: random.Random) -> str:
    out = [rng.choice(THOUGHTS)] if rng.random() < 0.15 else []
    for _ in range(rng.randint(0, 7)):
        r = rng.random()
        if r < 0.45:
            out.append(rng.choice(PROSE))
        elif r < 0.68:
            out.append(block(rng))
        elif r < 0.8:
            out.append(section(rng))
        elif r < 0.92:
            fence = rng.choice(["```", "~~~", "````", "  ```"])
            inner = block(rng) if rng.random() < 0.7 else section(rng)
            out.append(f"{fence}xml\n{inner}\n" + (f"{fence.strip()}\n" if rng.random() < 0.8 else ""))
        else:
            ticks = rng.choice(["`", "``"])
            out.append(f"{ticks}{block(rng)}{ticks}")
    return "".join(out)


def random_chunks(text: str, rng: random.Random, lo: int = 1, hi: int = 10) -> list[str]:
    out = []
    i = 0
    while i < len(text):
        n = rng.randint(lo, hi)
        out.append(text[i : i + n])
        i += n
    return out


EOS = re.compile(r"<[｜|]end▁of▁sentence[｜|]>")


DROPPED = re.compile(EOS.pattern + "|</?think>")


def kept(raw: str, text: str) -> bool:
    """No loss (R8.2): text, reasoning and raw rebuild the input, except end-of-sentence tokens
    dropped outside ignored regions (D29) and the reasoning markers (R15). The one home of this
    check for tests and fuzzing."""
    pattern = "(?:" + DROPPED.pattern + ")?"
    return re.fullmatch(pattern.join(re.escape(p) for p in DROPPED.split(text)), raw) is not None
