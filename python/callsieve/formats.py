"""The format table (R14.9, R17, R19): every tool-call format as one row of data, and the presets.

A format is a row: its name, the rule it implements, which engine reads it, and for the block
engine (`blocks.py`) the special tokens that open and close one block and the grammar of the body
between them. The scanner dispatches on the row: it never names a family. The Node sieve reads the
same table, generated from this module (`scripts/build/gen_formats.py`, checked by the test
command), so a format is added in one place for every runtime.

A preset (R19) names a model family and sets `formats` and `reasoning` together, as the inference
servers' tool-call / reasoning parser pairs do. An explicit `formats` or `reasoning` beside a
preset wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .errors import InputTypeError, OptionsError


@dataclass(frozen=True, slots=True)
class Format:
    """One tool-call format. `engine` is `shell` (the DSML / XML tag shell, R1-R3, R14.1),
    `tokens` (DeepSeek token sections, R14.4), `block` (R17: an exact special-token opener, a
    body read by `grammar` once the closer came), `harmony` (gpt-oss messages, harmony.py),
    `mistral` (mistral.py) or `json` (R9's JSON calls in prose, with special tokens dropped).
    Rows of the block engine sharing an opener are told apart by how the body starts (`body`:
    `json`, `function` or `name`), never by where a chunk ended: the body is read whole."""

    name: str
    rule: str
    summary: str
    engine: str
    default: bool = True  # recognized when no `formats` is given (R19.3)
    opener: str = ""
    closer: str = ""
    grammar: str = ""  # blocks.py: json_call, function_tags, arg_pairs, invoke_tags, kimi_calls
    body: str = ""  # json | function | name: which body start selects this row of a shared opener
    eof_repair: bool = False  # a block cut by the end of the output keeps its complete calls
    also_opens: tuple[str, ...] = ()  # more openers of the same row (Harmony's `<|channel|>`)
    strays: tuple[str, ...] = ()  # more end markers dropped where they stand alone (R18.3)
    bare: str = ""  # the grammar also reads its body bare in prose, opened by this (D64)


FORMAT_TABLE: Final[tuple[Format, ...]] = (
    Format("dsml", "R1-R3", "<|DSML|tool_calls> and <tool_calls> blocks (the seed's dialect)", "shell"),
    Format(
        "function_calls",
        "R14.1-R14.3",
        "DeepSeek-V3.2 <｜DSML｜function_calls> blocks",
        "shell",
        # D60: DeepSeek's closing wrappers as its models write them (the second needs `dsml` on)
        strays=("</｜DSML｜function_calls>", "</｜DSML｜tool_calls>"),
    ),
    Format(
        "tokens",
        "R14.4-R14.5",
        "DeepSeek V3 / R1 / V3.1 <｜tool▁calls▁begin｜> sections",
        "tokens",
        # D60: the section end, with either bar on either side (D25)
        strays=("<｜tool▁calls▁end｜>", "<|tool▁calls▁end|>", "<｜tool▁calls▁end|>", "<|tool▁calls▁end｜>"),
    ),
    Format(
        "hermes",
        "R17.1",
        'Hermes / Qwen2.5 / Qwen3: <tool_call>{"name": …, "arguments": {…}}</tool_call>',
        "block",
        opener="<tool_call>",
        closer="</tool_call>",
        grammar="json_call",
        body="json",
        eof_repair=True,
    ),
    Format(
        "qwen3_coder",
        "R17.2",
        "Qwen3-Coder: <tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>",
        "block",
        opener="<tool_call>",
        closer="</tool_call>",
        grammar="function_tags",
        body="function",
        eof_repair=True,
    ),
    Format(
        "seed_oss",
        "R17.2",
        "Seed-OSS: the Qwen3-Coder body inside <seed:tool_call> … </seed:tool_call>",
        "block",
        opener="<seed:tool_call>",
        closer="</seed:tool_call>",
        grammar="function_tags",
        body="function",
        eof_repair=True,
    ),
    Format(
        "glm",
        "R17.3",
        "GLM-4.5 to 5.x: <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>",
        "block",
        opener="<tool_call>",
        closer="</tool_call>",
        grammar="arg_pairs",
        body="name",
        eof_repair=True,
    ),
    Format(
        "minimax",
        "R17.4",
        '<minimax:tool_call><invoke name="N"><parameter name="K">V</parameter></invoke>…',
        "block",
        opener="<minimax:tool_call>",
        closer="</minimax:tool_call>",
        grammar="invoke_tags",
        eof_repair=True,
    ),
    Format(
        "kimi_k2",
        "R17.5",
        "Kimi-K2: <|tool_calls_section_begin|> <|tool_call_begin|>functions.NAME:0 … sections",
        "block",
        opener="<|tool_calls_section_begin|>",
        closer="<|tool_calls_section_end|>",
        grammar="kimi_calls",
        eof_repair=True,
    ),
    Format(
        "mistral",
        "R17.7",
        'Mistral: [TOOL_CALLS]NAME[ARGS]{…} (v11+) or [TOOL_CALLS][{"name": …, "arguments": {…}}]',
        "mistral",
        opener="[TOOL_CALLS]",
    ),
    Format(
        "llama_json",
        "R17.8",
        'Llama 3.x: [<|python_tag|>]{"name": …, "parameters": {…}} (JSON calls in prose; off by default)',
        "json",
        default=False,
        strays=("<|python_tag|>", "<|eom_id|>", "<|eot_id|>"),
    ),
    Format(
        "pythonic",
        "R17.8",
        'Llama 4: [get_weather(city="Paris")], bare or in <|python_start|> … <|python_end|> (off by default)',
        "block",
        default=False,
        opener="<|python_start|>",
        closer="<|python_end|>",
        grammar="pythonic_calls",
        eof_repair=True,
        bare="[",
    ),
    Format(
        "harmony",
        "R17.6",
        "gpt-oss Harmony: <|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>",
        "harmony",
        opener="<|start|>",
        closer="<|end|>",
        also_opens=("<|channel|>",),
        strays=("<|call|>", "<|return|>"),
    ),
)

FORMATS: Final[dict[str, Format]] = {f.name: f for f in FORMAT_TABLE}
ALL_FORMATS: Final = frozenset(FORMATS)
DEFAULT_FORMATS: Final = frozenset(f.name for f in FORMAT_TABLE if f.default)
# The rows whose special tokens the scanner matches at an open angle: the block engine's openers
# and closers, Harmony's messages, and the tokens a JSON-call row drops (Llama's <|python_tag|>).
BLOCK_FORMATS: Final = tuple(f for f in FORMAT_TABLE if f.engine in ("block", "harmony", "json"))


@dataclass(frozen=True, slots=True)
class Preset:
    """A model family (R19.1): the formats it writes and where its output starts (R15.2)."""

    name: str
    models: str
    formats: tuple[str, ...]
    reasoning: str
    think: tuple[str, str] = ("<think>", "</think>")  # the reasoning markers (R17.10)


PRESET_TABLE: Final[tuple[Preset, ...]] = (
    Preset("deepseek-v3", "DeepSeek-V3 (0324)", ("tokens",), "off"),
    Preset("deepseek-r1", "DeepSeek-R1 (the prompt opens <think>)", ("tokens",), "open"),
    Preset("deepseek-v3.1", "DeepSeek-V3.1 / V3.1-Terminus", ("tokens",), "auto"),
    Preset("deepseek-v3.2", "DeepSeek-V3.2 (DSML function_calls)", ("function_calls", "tokens"), "auto"),
    Preset("deepseek-v4", "DeepSeek-V4 (DSML tool_calls)", ("dsml", "function_calls"), "auto"),
    Preset("qwen3", "Qwen2.5 / Qwen3 / QwQ (Hermes JSON)", ("hermes",), "auto"),
    Preset("qwen3-coder", "Qwen3-Coder, Qwen3.5+ (XML parameters)", ("qwen3_coder", "hermes"), "auto"),
    Preset("seed-oss", "ByteDance Seed-OSS", ("seed_oss",), "auto", ("<seed:think>", "</seed:think>")),
    Preset("glm-4.5", "GLM-4.5 / 4.6", ("glm",), "auto"),
    Preset("glm-4.7", "GLM-4.7 / 5.x", ("glm",), "auto"),
    Preset("minimax-m2", "MiniMax-M2", ("minimax",), "auto"),
    Preset("kimi-k2", "Kimi-K2 / K2-Thinking", ("kimi_k2",), "auto"),
    Preset("mistral", "Mistral / Magistral / Devstral", ("mistral",), "auto", ("[THINK]", "[/THINK]")),
    Preset("llama3", "Llama 3.1 / 3.2 / 3.3 (JSON calls)", ("llama_json",), "off"),
    Preset("llama4", "Llama 4 (pythonic calls, JSON too)", ("pythonic", "llama_json"), "off"),
    Preset("gpt-oss", "gpt-oss (Harmony channels; analysis is reasoning)", ("harmony",), "off"),
)

PRESETS: Final[dict[str, Preset]] = {p.name: p for p in PRESET_TABLE}


def check_preset(preset: object) -> Preset | None:
    """The `preset` option: None, or a name from PRESETS."""
    if preset is None:
        return None
    if not isinstance(preset, str):
        raise InputTypeError(f"preset must be a string, got {type(preset).__name__}")
    got = PRESETS.get(preset)
    if got is None:
        raise OptionsError(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
    return got


def dropped_markers() -> tuple[str, ...]:
    """Every marker a format row or preset drops where it stands alone (D47, R15, R17.10): the
    block rows' closers and stray end tokens, and the presets' reasoning markers. The no-loss
    checks of the tests and the playground read this, not a copy of it."""
    out: dict[str, None] = {}
    for f in FORMAT_TABLE:
        for m in (f.closer, *f.strays):
            if m:
                out[m] = None
    for p in PRESET_TABLE:
        out.update(dict.fromkeys(p.think))
    return tuple(out)


def table() -> dict[str, object]:
    """The table as JSON data: what `callsieve formats --json` prints and the Node build reads."""
    return {
        "formats": [
            {
                "name": f.name,
                "rule": f.rule,
                "summary": f.summary,
                "engine": f.engine,
                "default": f.default,
                "opener": f.opener,
                "closer": f.closer,
                "grammar": f.grammar,
                "body": f.body,
                "eofRepair": f.eof_repair,
                "alsoOpens": list(f.also_opens),
                "strays": list(f.strays),
                "bare": f.bare,
            }
            for f in FORMAT_TABLE
        ],
        "presets": [
            {
                "name": p.name,
                "models": p.models,
                "formats": list(p.formats),
                "reasoning": p.reasoning,
                "think": list(p.think),
            }
            for p in PRESET_TABLE
        ],
    }


__all__ = [
    "ALL_FORMATS",
    "BLOCK_FORMATS",
    "DEFAULT_FORMATS",
    "FORMATS",
    "FORMAT_TABLE",
    "PRESETS",
    "PRESET_TABLE",
    "Format",
    "Preset",
    "check_preset",
    "dropped_markers",
    "table",
]
