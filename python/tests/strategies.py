"""Hypothesis strategies: documents mixing prose, fences, inline code and valid, noisy,
truncated and malformed tool-call blocks."""

from __future__ import annotations

import itertools
import sys

from conftest import ROOT
from hypothesis import strategies as st

sys.path.insert(0, str(ROOT / "parity"))
import docs

# The same building blocks as the parity runner's generator (parity/docs.py).
PROSE = st.sampled_from(docs.PROSE)
SHELLS = st.sampled_from(docs.SHELLS)
NAMES = st.sampled_from(docs.NAMES)
ATTR_TAILS = st.sampled_from(["", "", ' name="other"', ' id="1"', "!", "|", " "])


@st.composite
def numeric_entity(draw: st.DrawFn) -> str:
    """`&#…;` in every form: decimal (leading zeros too), `x` and `X` hex in either case, and code
    points that name no character (NUL, surrogates, past U+10FFFF)."""
    code = draw(st.one_of(st.integers(0, 0x7F), st.integers(0xD7F0, 0xE010), st.integers(0x10FFF0, 0x110010)))
    form = draw(st.sampled_from(["dec", "dec0", "x", "X", "xu"]))
    if form == "dec":
        return f"&#{code};"
    if form == "dec0":
        return f"&#00{code};"
    h = f"{code:x}"
    return f"&#{'X' if form == 'X' else 'x'}{h.upper() if form == 'xu' else h};"


@st.composite
def child_list(draw: st.DrawFn) -> str:
    """XML children: `item` mixed with other names, and repeated names (R6.4, R6.6)."""
    names = draw(st.lists(st.sampled_from(["item", "item", "x", "a"]), min_size=1, max_size=4))
    body = "".join(f"<{n}>{draw(st.sampled_from(['1', 'b', ' 2 ']))}</{n}>" for n in names)
    return f"<![CDATA[{body}]]>" if draw(st.booleans()) else body


VALUES = st.one_of(
    st.sampled_from(docs.VALUES),
    st.lists(st.one_of(numeric_entity(), st.sampled_from(["a", " "])), min_size=1, max_size=4).map("".join),
    child_list(),
    st.sampled_from(["]]＞", "]]〉", "]]>"]).map(lambda c: f"<![CDATA[v{c}"),
)


@st.composite
def block(draw: st.DrawFn) -> str:
    o, c = draw(SHELLS)
    wname = draw(st.sampled_from(["tool_calls", "TOOL_CALLS", "tool_calls_extra", "ToolCalls"]))
    parts = [f"{o}{wname}>\n"]
    for _ in range(draw(st.integers(0, 2))):
        name = draw(NAMES)
        parts.append(f'{o}invoke name="{name}"{draw(ATTR_TAILS)}>')
        for k in range(draw(st.integers(0, 3))):
            parts.append(f'{o}parameter name="p{k}">{draw(VALUES)}{c}parameter>')
        parts.append(f"{c}invoke>\n")
    if draw(st.booleans()):
        parts.append(f"{c}{wname}>")
    text = "".join(parts)
    mutation = draw(st.sampled_from(["none", "none", "truncate", "drop", "insert"]))
    if mutation != "none" and text:
        i = draw(st.integers(0, len(text) - 1))
        if mutation == "truncate":
            text = text[:i]
        elif mutation == "drop":
            text = text[:i] + text[i + 1 :]
        else:
            text = text[:i] + draw(st.sampled_from(["<", ">", "`", "\n", "]]>", "\u200b", " "])) + text[i:]
    return text


@st.composite
def fenced(draw: st.DrawFn) -> str:
    fence = draw(st.sampled_from(["```", "~~~", "````"]))
    indent = draw(st.sampled_from(["", "", "   ", "\t", " \t"]))  # a tab is 4 columns: no fence
    closed = draw(st.booleans())
    closer_indent = draw(st.sampled_from(["", "\t"]))
    return f"{indent}{fence}xml\n{draw(block())}\n" + (f"{closer_indent}{fence}\n" if closed else "")


@st.composite
def inline(draw: st.DrawFn) -> str:
    ticks = draw(st.sampled_from(["`", "``"]))
    return f"{ticks}{draw(block())}{ticks}"


DOCUMENTS = st.lists(st.one_of(PROSE, block(), fenced(), inline()), max_size=8).map("".join)


@st.composite
def split(draw: st.DrawFn, text: str) -> list[str]:
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=12))))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]
