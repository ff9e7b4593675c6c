'use strict';
/**
 * The format table and the presets (R14.9, R17, R19): GENERATED from python/callsieve/formats.py by
 * scripts/build/gen_formats.py. Do not edit; edit the Python table and run the script.
 */

const TABLE = {
  "formats": [
    {
      "name": "dsml",
      "rule": "R1-R3",
      "summary": "<|DSML|tool_calls> and <tool_calls> blocks (the seed's dialect)",
      "engine": "shell",
      "default": true,
      "opener": "",
      "closer": "",
      "grammar": "",
      "body": "",
      "eofRepair": false,
      "alsoOpens": [],
      "strays": [],
      "bare": ""
    },
    {
      "name": "function_calls",
      "rule": "R14.1-R14.3",
      "summary": "DeepSeek-V3.2 <｜DSML｜function_calls> blocks",
      "engine": "shell",
      "default": true,
      "opener": "",
      "closer": "",
      "grammar": "",
      "body": "",
      "eofRepair": false,
      "alsoOpens": [],
      "strays": [
        "</｜DSML｜function_calls>",
        "</｜DSML｜tool_calls>"
      ],
      "bare": ""
    },
    {
      "name": "tokens",
      "rule": "R14.4-R14.5",
      "summary": "DeepSeek V3 / R1 / V3.1 <｜tool▁calls▁begin｜> sections",
      "engine": "tokens",
      "default": true,
      "opener": "",
      "closer": "",
      "grammar": "",
      "body": "",
      "eofRepair": false,
      "alsoOpens": [],
      "strays": [
        "<｜tool▁calls▁end｜>",
        "<|tool▁calls▁end|>",
        "<｜tool▁calls▁end|>",
        "<|tool▁calls▁end｜>"
      ],
      "bare": ""
    },
    {
      "name": "hermes",
      "rule": "R17.1",
      "summary": "Hermes / Qwen2.5 / Qwen3: <tool_call>{\"name\": …, \"arguments\": {…}}</tool_call>",
      "engine": "block",
      "default": true,
      "opener": "<tool_call>",
      "closer": "</tool_call>",
      "grammar": "json_call",
      "body": "json",
      "eofRepair": true,
      "alsoOpens": [],
      "strays": [],
      "bare": ""
    },
    {
      "name": "qwen3_coder",
      "rule": "R17.2",
      "summary": "Qwen3-Coder: <tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>",
      "engine": "block",
      "default": true,
      "opener": "<tool_call>",
      "closer": "</tool_call>",
      "grammar": "function_tags",
      "body": "function",
      "eofRepair": true,
      "alsoOpens": [],
      "strays": [],
      "bare": ""
    },
    {
      "name": "seed_oss",
      "rule": "R17.2",
      "summary": "Seed-OSS: the Qwen3-Coder body inside <seed:tool_call> … </seed:tool_call>",
      "engine": "block",
      "default": true,
      "opener": "<seed:tool_call>",
      "closer": "</seed:tool_call>",
      "grammar": "function_tags",
      "body": "function",
      "eofRepair": true,
      "alsoOpens": [],
      "strays": [],
      "bare": ""
    },
    {
      "name": "glm",
      "rule": "R17.3",
      "summary": "GLM-4.5 to 5.x: <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>",
      "engine": "block",
      "default": true,
      "opener": "<tool_call>",
      "closer": "</tool_call>",
      "grammar": "arg_pairs",
      "body": "name",
      "eofRepair": true,
      "alsoOpens": [],
      "strays": [],
      "bare": ""
    },
    {
      "name": "minimax",
      "rule": "R17.4",
      "summary": "<minimax:tool_call><invoke name=\"N\"><parameter name=\"K\">V</parameter></invoke>…",
      "engine": "block",
      "default": true,
      "opener": "<minimax:tool_call>",
      "closer": "</minimax:tool_call>",
      "grammar": "invoke_tags",
      "body": "",
      "eofRepair": true,
      "alsoOpens": [],
      "strays": [],
      "bare": ""
    },
    {
      "name": "kimi_k2",
      "rule": "R17.5",
      "summary": "Kimi-K2: <|tool_calls_section_begin|> <|tool_call_begin|>functions.NAME:0 … sections",
      "engine": "block",
      "default": true,
      "opener": "<|tool_calls_section_begin|>",
      "closer": "<|tool_calls_section_end|>",
      "grammar": "kimi_calls",
      "body": "",
      "eofRepair": true,
      "alsoOpens": [],
      "strays": [],
      "bare": ""
    },
    {
      "name": "mistral",
      "rule": "R17.7",
      "summary": "Mistral: [TOOL_CALLS]NAME[ARGS]{…} (v11+) or [TOOL_CALLS][{\"name\": …, \"arguments\": {…}}]",
      "engine": "mistral",
      "default": true,
      "opener": "[TOOL_CALLS]",
      "closer": "",
      "grammar": "",
      "body": "",
      "eofRepair": false,
      "alsoOpens": [],
      "strays": [],
      "bare": ""
    },
    {
      "name": "llama_json",
      "rule": "R17.8",
      "summary": "Llama 3.x: [<|python_tag|>]{\"name\": …, \"parameters\": {…}} (JSON calls in prose; off by default)",
      "engine": "json",
      "default": false,
      "opener": "",
      "closer": "",
      "grammar": "",
      "body": "",
      "eofRepair": false,
      "alsoOpens": [],
      "strays": [
        "<|python_tag|>",
        "<|eom_id|>",
        "<|eot_id|>"
      ],
      "bare": ""
    },
    {
      "name": "pythonic",
      "rule": "R17.8",
      "summary": "Llama 4: [get_weather(city=\"Paris\")], bare or in <|python_start|> … <|python_end|> (off by default)",
      "engine": "block",
      "default": false,
      "opener": "<|python_start|>",
      "closer": "<|python_end|>",
      "grammar": "pythonic_calls",
      "body": "",
      "eofRepair": true,
      "alsoOpens": [],
      "strays": [],
      "bare": "["
    },
    {
      "name": "harmony",
      "rule": "R17.6",
      "summary": "gpt-oss Harmony: <|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>",
      "engine": "harmony",
      "default": true,
      "opener": "<|start|>",
      "closer": "<|end|>",
      "grammar": "",
      "body": "",
      "eofRepair": false,
      "alsoOpens": [
        "<|channel|>"
      ],
      "strays": [
        "<|call|>",
        "<|return|>"
      ],
      "bare": ""
    }
  ],
  "presets": [
    {
      "name": "deepseek-v3",
      "models": "DeepSeek-V3 (0324)",
      "formats": [
        "tokens"
      ],
      "reasoning": "off",
      "think": [
        "<think>",
        "</think>"
      ]
    },
    {
      "name": "deepseek-r1",
      "models": "DeepSeek-R1 (the prompt opens <think>)",
      "formats": [
        "tokens"
      ],
      "reasoning": "open",
      "think": [
        "<think>",
        "</think>"
      ]
    },
    {
      "name": "deepseek-v3.1",
      "models": "DeepSeek-V3.1 / V3.1-Terminus",
      "formats": [
        "tokens"
      ],
      "reasoning": "auto",
      "think": [
        "<think>",
        "</think>"
      ]
    },
    {
      "name": "deepseek-v3.2",
      "models": "DeepSeek-V3.2 (DSML function_calls)",
      "formats": [
        "function_calls",
        "tokens"
      ],
      "reasoning": "auto",
      "think": [
        "<think>",
        "</think>"
      ]
    },
    {
      "name": "deepseek-v4",
      "models": "DeepSeek-V4 (DSML tool_calls)",
      "formats": [
        "dsml",
        "function_calls"
      ],
      "reasoning": "auto",
      "think": [
        "<think>",
        "</think>"
      ]
    },
    {
      "name": "qwen3",
      "models": "Qwen2.5 / Qwen3 / QwQ (Hermes JSON)",
      "formats": [
        "hermes"
      ],
      "reasoning": "auto",
      "think": [
        "<think>",
        "</think>"
      ]
    },
    {
      "name": "qwen3-coder",
      "models": "Qwen3-Coder, Qwen3.5+ (XML parameters)",
      "formats": [
        "qwen3_coder",
        "hermes"
      ],
      "reasoning": "auto",
      "think": [
        "<think>",
        "</think>"
      ]
    },
    {
      "name": "seed-oss",
      "models": "ByteDance Seed-OSS",
      "formats": [
        "seed_oss"
      ],
      "reasoning": "auto",
      "think": [
        "<seed:think>",
        "</seed:think>"
      ]
    },
    {
      "name": "glm-4.5",
      "models": "GLM-4.5 / 4.6",
      "formats": [
        "glm"
      ],
      "reasoning": "auto",
      "think": [
        "<think>",
        "</think>"
      ]
    },
    {
      "name": "glm-4.7",
      "models": "GLM-4.7 / 5.x",
      "formats": [
        "glm"
      ],
      "reasoning": "auto",
      "think": [
        "<think>",
        "</think>"
      ]
    },
    {
      "name": "minimax-m2",
      "models": "MiniMax-M2",
      "formats": [
        "minimax"
      ],
      "reasoning": "auto",
      "think": [
        "<think>",
        "</think>"
      ]
    },
    {
      "name": "kimi-k2",
      "models": "Kimi-K2 / K2-Thinking",
      "formats": [
        "kimi_k2"
      ],
      "reasoning": "auto",
      "think": [
        "<think>",
        "</think>"
      ]
    },
    {
      "name": "mistral",
      "models": "Mistral / Magistral / Devstral",
      "formats": [
        "mistral"
      ],
      "reasoning": "auto",
      "think": [
        "[THINK]",
        "[/THINK]"
      ]
    },
    {
      "name": "llama3",
      "models": "Llama 3.1 / 3.2 / 3.3 (JSON calls)",
      "formats": [
        "llama_json"
      ],
      "reasoning": "off",
      "think": [
        "<think>",
        "</think>"
      ]
    },
    {
      "name": "llama4",
      "models": "Llama 4 (pythonic calls, JSON too)",
      "formats": [
        "pythonic",
        "llama_json"
      ],
      "reasoning": "off",
      "think": [
        "<think>",
        "</think>"
      ]
    },
    {
      "name": "gpt-oss",
      "models": "gpt-oss (Harmony channels; analysis is reasoning)",
      "formats": [
        "harmony"
      ],
      "reasoning": "off",
      "think": [
        "<think>",
        "</think>"
      ]
    }
  ]
};

const FORMAT_TABLE = Object.freeze(TABLE.formats.map((f) => Object.freeze(f)));
const FORMATS = Object.freeze(Object.fromEntries(FORMAT_TABLE.map((f) => [f.name, f])));
const ALL_FORMATS = new Set(Object.keys(FORMATS));
const DEFAULT_FORMATS = new Set(FORMAT_TABLE.filter((f) => f.default).map((f) => f.name));
// the rows whose special tokens the scanner matches at an open angle (Python's BLOCK_FORMATS)
const SPECIAL_ENGINES = ['block', 'harmony', 'json'];
const BLOCK_FORMATS = Object.freeze(FORMAT_TABLE.filter((f) => SPECIAL_ENGINES.includes(f.engine)));
const PRESET_TABLE = Object.freeze(TABLE.presets.map((p) => Object.freeze(p)));
const PRESETS = Object.freeze(Object.fromEntries(PRESET_TABLE.map((p) => [p.name, p])));

/** Python's dropped_markers(): what a row or preset drops where it stands alone (D47, R15, R17.10). */
function droppedMarkers() {
  const rows = FORMAT_TABLE.flatMap((f) => [f.closer, ...f.strays]);
  return [...new Set([...rows, ...PRESET_TABLE.flatMap((p) => p.think)].filter((m) => m))];
}

module.exports = {
  ALL_FORMATS, BLOCK_FORMATS, DEFAULT_FORMATS, FORMATS, FORMAT_TABLE, PRESETS, PRESET_TABLE, TABLE,
  droppedMarkers,
};
