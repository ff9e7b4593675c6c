"""Seeded random model replies for the parity runner's generative mode: prose, fences, inline
code, valid, noisy, truncated and malformed blocks in every format (DSML, native DSML with `string`
attributes, V3/V3.1 token sections, end-of-sentence tokens). Standard library only; same seed,
same docs."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator

from callsieve.formats import dropped_markers

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


# R17: the block engine's families, each as a body template; {n} a name, {k} a key, {v} a value.
FAMILY_CALLS = {
    "<tool_call>": [
        '{{"name": "{n}", "arguments": {{"{k}": "{v}"}}}}',
        '{{"name": "{n}", "arguments": "{{\\"{k}\\": 1}}"}}',
        '{{"name": "{n}", "parameters": {{}}, "id": "c1"}}',
        '{{"name": "{n}", "arguments": {{"{k}\\u005f": "{v}", "\\"q\\\\": 2}}}}',
        "\n<function={n}>\n<parameter={k}>\n{v}\n</parameter>\n</function>\n",
        "<function={n}><parameter={k}>{v}</parameter><parameter=x>1</function>",
        "{n}\n<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n",
        "{n}<arg_key>{k}</arg_key><arg_value>[1, 2]</arg_value>"
        "<arg_key>b</arg_key><arg_value>True</arg_value>",
        "{n}",
        "{{bad json",
    ],
    "<seed:tool_call>": ["\n<function={n}>\n<parameter={k}>\n{v}\n</parameter>\n</function>\n"],
    "<minimax:tool_call>": [
        '\n<invoke name="{n}">\n<parameter name="{k}">{v}</parameter>\n</invoke>\n',
        '<invoke name="{n}"><parameter name="{k}">{v}</parameter></invoke><invoke name="b"></invoke>',
        "<invoke name={n}><parameter name='{k}'>{v}</invoke>",
    ],
    "<|tool_calls_section_begin|>": [
        '<|tool_call_begin|>functions.{n}:0<|tool_call_argument_begin|>{{"{k}": "{v}"}}<|tool_call_end|>',
        "<|tool_call_begin|>functions.{n}:3<|tool_call_argument_begin|>"
        '{{"\\u00e9{k}": "\\\\{v}"}}<|tool_call_end|>',
        "<|tool_call_begin|>functions.{n}:1<|tool_call_argument_begin|>{{}}<|tool_call_end|>\n"
        "<|tool_call_begin|>functions.b:2<|tool_call_argument_begin|>[1]<|tool_call_end|>",
    ],
}
FAMILY_CALLS["<|channel|>"] = [
    "analysis<|message|>Think: <tool_call>{n}</tool_call> then call.<|end|>",
    'commentary to=functions.{n} <|constrain|>json<|message|>{{"{k}": "{v}"}}<|call|>',
    'analysis to=functions.{n} code<|message|>{{"{k}": 2}}',
    "final<|message|>{v} done<|return|>",
    "commentary to=python<|message|>print(1)<|call|>",
]
FAMILY_CALLS["[TOOL_CALLS]"] = [
    '{n}[ARGS]{{"{k}": "{v}", "n": [1, {{"x": "]"}}]}}',
    '[{{"name": "{n}", "arguments": {{"{k}": "{v}"}}, "id": "a1b2c3d4e"}}]',
    "{n}[CALL_ID]k9[ARGS]{{}}",
    "{n}[ARGS]not json",
    '{n}[ARGS]{{"a": "unterminated',
]
FAMILY_CALLS["<|python_start|>"] = [
    '[{n}({k}="{v}", n=[1, -2.5, None, True]), g()]',
    "{n}(a={{'k': (1, 2)}})",
    "[{n}(a=)]",
]
FAMILY_CALLS["<|python_tag|>"] = ['{{"name": "{n}", "parameters": {{"{k}": "{v}"}}}}']
# Bare pythonic lists (D64): calls, lists that are not calls, brackets in strings, a cut list.
FAMILY_CALLS[""] = [
    '[{n}({k}="{v}"), g(x=1)]',
    "[ {n}.v2 ({k}=['a]', \"b\\\"]\"], d={{'k': (1, [2])}})]",
    "[1, 2]",
    "[{n}, b]",
    "[{n}(x)]",
    '[{n}({k}="cut',
    "[[{n}()]]",
]
FAMILY_CLOSERS = {
    "<tool_call>": "</tool_call>",
    "<seed:tool_call>": "</seed:tool_call>",
    "<minimax:tool_call>": "</minimax:tool_call>",
    "<|tool_calls_section_begin|>": "<|tool_calls_section_end|>",
    "<|channel|>": "<|start|>assistant",
    "[TOOL_CALLS]": "",
    "<|python_start|>": "<|python_end|>",
    "<|python_tag|>": "<|eom_id|>",
    "": "",
}
# Backslashes too: in JSON they are escapes, and a chunk cut right after one must not break the call.
FAMILY_VALUES = [
    "src/a.py",
    'say "hi" & <b>',
    "line1\nline2",
    "3",
    "caf\u00e9 \U0001f600",
    "",
    "C:\\\\tmp\\\\new",
    'a\\"b \\u00e9\\n',
]


def family_block(rng: random.Random) -> str:
    """A block of an R17 family, sometimes cut, broken or with a stray closer."""
    opener = rng.choice(list(FAMILY_CALLS))
    n = rng.choice(["read_file", "get_weather", "", "a b", "run"])
    k = rng.choice(["path", "city", "q"])
    body = rng.choice(FAMILY_CALLS[opener]).format(n=n, k=k, v=rng.choice(FAMILY_VALUES))
    r = rng.random()
    closer = FAMILY_CLOSERS[opener] if r < 0.85 else ""
    text = opener + body + closer + rng.choice(["", "\n", " "])
    if rng.random() < 0.15:
        i = rng.randrange(len(text))
        text = text[:i] + rng.choice([*MUTATIONS, *FAMILY_CLOSERS.values(), *FAMILY_CLOSERS]) + text[i:]
    return text


def document(rng: random.Random) -> str:
    out = [rng.choice(THOUGHTS)] if rng.random() < 0.15 else []
    for _ in range(rng.randint(0, 7)):
        r = rng.random()
        if r < 0.4:
            out.append(rng.choice(PROSE))
        elif r < 0.5:
            out.append(family_block(rng))
        elif r < 0.68:
            out.append(block(rng))
        elif r < 0.8:
            out.append(section(rng))
        elif r < 0.92:
            fence = rng.choice(["```", "~~~", "````", "  ```"])
            inner = (
                block(rng)
                if rng.random() < 0.6
                else section(rng)
                if rng.random() < 0.5
                else family_block(rng)
            )
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


# Also dropped where they stand alone: every marker the format table says so (stray closers and
# end tokens, D47; the presets' reasoning markers, R15, R17.10), and Harmony's headers (D49).
DROPPED = re.compile(
    EOS.pattern
    + "".join("|" + re.escape(m) for m in dropped_markers())
    + "|<\\|(?:start|channel)\\|>[^\\n]{0,256}?<\\|message\\|>"
)


def kept(raw: str, text: str) -> bool:
    """No loss (R8.2): text, reasoning and raw rebuild the input, except end-of-sentence tokens
    dropped outside ignored regions (D29), stray closers (R18.3) and the reasoning markers (R15).
    The one home of this check for tests and fuzzing."""
    pattern = "(?:" + DROPPED.pattern + ")?"
    return re.fullmatch(pattern.join(re.escape(p) for p in DROPPED.split(text)), raw) is not None


# Logged completions (issue 16): the batch tests and W14. Mostly prose around a few of the pieces
# above, about 1 KB each, some with reasoning, as JSONL records of a chat-completion log.
SENTENCES = [
    "I'll start by reading the configuration to see which options are set. ",
    "The test failed because the fixture expects a trailing newline. ",
    "Here is a summary of what changed in the last three commits. ",
    "我先检查一下目录结构，然后再修改配置文件。",
    "That function is called from two places, both in the scheduler. ",
    "Let me know if you want the same change applied to the other services. ",
    "The error message points at line 42, where the list is indexed past its end. ",
    "Everything compiles now; the remaining warning is about an unused import. ",
    "Comparing a < b here is safe since both are integers. ",
    "You can run it with `make test` once the dependencies are installed. ",
]
THOUGHTS = [
    "The user wants the file read first. ",
    "Maybe the path is relative to the repository root. ",
    "I should not guess the schema; better to look. ",
    "用户想先看文件内容。",
    'An example call would be <tool_calls><invoke name="x"></invoke></tool_calls>, but not yet. ',
]


def prose(rng: random.Random, size: int) -> str:
    out: list[str] = []
    n = 0
    while n < size:
        s = rng.choice(SENTENCES) if rng.random() < 0.85 else rng.choice(PROSE)
        out.append(s)
        n += len(s)
    return "".join(out)


def completion_text(rng: random.Random, size: int = 1000) -> str:
    """About `size` characters: optional reasoning, prose, and one to three tool-call pieces
    (blocks and token sections in every format, fenced or inline examples, broken ones)."""
    parts: list[str] = []
    r = rng.random()
    if r < 0.3:
        thought = "".join(rng.choice(THOUGHTS) for _ in range(rng.randint(1, 6)))
        closed = rng.random() < 0.9
        parts.append("<think>\n" + thought + ("\n</think>\n\n" if closed else "\n"))
    pieces = rng.randint(0, 3)
    for _ in range(pieces):
        parts.append(prose(rng, rng.randint(size // 8, size // 3)))
        k = rng.random()
        if k < 0.5:
            parts.append(block(rng))
        elif k < 0.75:
            parts.append(section(rng))
        elif k < 0.9:
            parts.append("```xml\n" + block(rng) + "\n```\n")
        else:
            parts.append("`" + block(rng) + "` ")
    left = size - sum(len(p) for p in parts)
    parts.append(prose(rng, max(left, 20)))
    return "".join(parts)


def completion(
    rng: random.Random, i: int, shape: str = "openai", bad: float = 0.0, arrow: bool = False
) -> str:
    """One JSONL line (no newline) of a completion log: an OpenAI chat completion (`shape="openai"`,
    text at choices.0.message.content) or a flat record (`"flat"`, text at `content`). With
    probability `bad` the record is bad: not JSON, not an object, no such field, not a string;
    `arrow=True` keeps to bad records that Arrow readers can hold (a null text, no choices)."""
    text = completion_text(rng, rng.randint(300, 1100))
    kind = rng.choice(["null", "empty"] if arrow else ["json", "array", "missing", "number", "null"])
    value: object = text
    if rng.random() < bad:
        if kind == "json":
            return '{"id": "cmpl-' + str(i) + '", "choices": ['
        if kind == "array":
            return json.dumps([i, text])
        value = {"number": 7, "null": None}.get(kind, text)
    else:
        kind = ""
    if shape == "flat":
        rec: dict[str, object] = {
            "id": f"cmpl-{i}",
            "model": "deepseek-chat",
            "turn": i % 7,
            "content": value,
        }
        if kind in ("missing", "empty"):
            del rec["content"]
        return json.dumps(rec, ensure_ascii=False)
    message: dict[str, object] = {"role": "assistant", "content": value}
    if kind == "missing":
        del message["content"]
    choices = [] if kind == "empty" else [{"index": 0, "message": message, "finish_reason": "stop"}]
    rec = {
        "id": f"chatcmpl-{i}",
        "object": "chat.completion",
        "created": 1760000000 + i,
        "model": "deepseek-chat",
        "choices": choices,
        "usage": {"prompt_tokens": 100 + i % 50, "completion_tokens": len(text) // 4},
    }
    return json.dumps(rec, ensure_ascii=False)


def completions(
    n: int, seed: int = 0, shape: str = "openai", bad: float = 0.0, arrow: bool = False
) -> Iterator[str]:
    """`n` JSONL lines of `completion`, the same for the same arguments."""
    rng = random.Random(seed)
    for i in range(n):
        yield completion(rng, i, shape, bad, arrow)
