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
VALUES = st.sampled_from(docs.VALUES)


@st.composite
def block(draw: st.DrawFn) -> str:
    o, c = draw(SHELLS)
    wname = draw(st.sampled_from(["tool_calls", "TOOL_CALLS", "tool_calls_extra", "ToolCalls"]))
    parts = [f"{o}{wname}>\n"]
    for _ in range(draw(st.integers(0, 2))):
        name = draw(NAMES)
        parts.append(f'{o}invoke name="{name}">')
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
    closed = draw(st.booleans())
    return f"{fence}xml\n{draw(block())}\n" + (f"{fence}\n" if closed else "")


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
