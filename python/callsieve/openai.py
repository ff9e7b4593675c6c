"""OpenAI output (docs/SPEC.md R13): tool calls as OpenAI `tool_calls`, and a gateway that rewrites
OpenAI chat completions whose text carries DSML tool-call markup into native tool calls.

    from callsieve.openai import rewrite_chat_completion_stream
    for chunk in rewrite_chat_completion_stream(upstream_chunks, tools=request["tools"]):
        send(chunk)

Formatting (`to_openai_tool_calls`, `to_openai_stream_deltas`): each call becomes
`{"id": "call_…", "type": "function", "function": {"name", "arguments"}}` (stream deltas start with
`"index"`). `arguments` is the JSON text (`schema.json_text`, as JavaScript's JSON.stringify writes
it) of the input normalized by the tool's schema (R12). Ids are `call_` + 24 random hex digits, or
whatever `id_factory()` returns (one call per tool call, in order).

Gateway decisions (where R13 is silent; D20):

- Each choice (`choices[].index`, or its position when `index` is missing) has its own Sieve; its
  `delta.content` goes through it. Released text stays `delta.content`; calls become
  `delta.tool_calls` with `index` counting the calls of that choice from 0, above every index
  already taken. Upstream's own native `tool_calls` pass through; their index is kept unless
  another call already took it, and then moves (in every delta of that call) to the next free
  index, so indices never collide. A chunk whose choice releases sieved calls while its upstream
  `tool_calls` is not a list raises `OpenAIFormatError`.
- Output follows the input chunks: each input chunk gives one output chunk with all its
  fields (id, model, created, role, logprobs, usage, unknown fields) and the first piece of what
  its content released (`null` when the first piece is calls or reasoning); when the content
  released more than one piece (text, then calls, then text), the further pieces follow in extra
  chunks that copy the envelope (every top-level field but `choices`) and hold one choice
  `{index, delta, finish_reason}`. A non-null `usage` moves to the last chunk of such a group.
- An output chunk is written only when it carries something (item 5 of issue 40: no empty
  content deltas): a chunk whose choices all carry nothing (a `delta` object, and every delta
  value and every other choice field but `index` null, `""`, `[]` or `{}`) and without a `usage`
  gives no output
  chunk, whether the sieve holds its content or upstream sent it empty. A choice whose content
  the sieve holds keeps `"content": ""` only when its delta carries `role` (the first chunk, as
  OpenAI's API writes it), else `"content": null` (when the chunk is written for its other
  fields, such as `logprobs`).
- A choice's sieve is flushed when its `finish_reason` arrives (what it held comes out before or
  with the finish) or, for choices that never finish, at the end of the stream (extra chunks with
  the envelope of the last chunk with choices, `finish_reason` null). Content for a choice after
  its finish starts a new sieve.
- `finish_reason` `"stop"` becomes `"tool_calls"` when the choice emitted at least one call;
  other reasons (`"length"`, `"content_filter"`, …) are kept.
- `json_tool_calls=True` also takes JSON tool calls in prose (R9) out of the content.
- `stream_arguments=True` (R16.5, D39, streaming only): each call goes out as OpenAI's API streams it,
  a first delta with `index`, `id`, `type`, `name` and `arguments: ""` as soon as its name is
  final, then `arguments` fragments as they arrive; the accumulated message is the same as
  without the option (but for blocks that break after a call started, R16.3).
- Reasoning (R15.4, D35, the `reasoning` option, "auto" by default): a reasoning region in the content
  comes out as `delta.reasoning_content` (with `content` null in that delta) or
  `message.reasoning_content`, appended to any reasoning_content upstream already sent.
- The request's `tool_choice` and `parallel_tool_calls` (the `tool_choice` and
  `parallel_tool_calls` options; `callsieve.request.response_options(body)` reads them from a
  request body). They govern the calls taken out of the content; upstream's own native
  `tool_calls` pass through (upstream got the same request). `"none"`: markup is the model's
  text: blocks are released as content verbatim (reasoning still comes out as reasoning), no
  call, `finish_reason` kept. `"auto"` or None: every call. `"required"`: every call, and an
  output without one is left as it is (a gateway cannot make a call up). A named function
  (`{"type": "function", "function": {"name": N}}`): only calls whose name is N (or resolves to N,
  R10) are kept, with the name N; calls to other tools are dropped (like rejected calls, but
  their names are not in `rejected_tool_names`). `parallel_tool_calls=False`: a choice gets at
  most one call: the first kept call (counting upstream's native calls of that choice) stays,
  every later one is dropped. With `stream_arguments`, a dropped call is dropped when its name
  is final, its argument fragments with it. `stats["calls"]` counts the calls sent.
- Names resolve against the declared names (R10: `tool_names`, or else the names in `tools`),
  also when only `tool_names` are given (unlike `parse`, D22: a gateway exists to hand clients
  the declared names);
  with `unknown_tools="reject"`, calls to undeclared tools are dropped and their names collected
  (`ChatCompletionStreamRewriter.rejected_tool_names`, or the `rejected_tool_names` list argument).
- Malformed input: a chunk (or response) that is a dict without `choices` (an upstream error
  object, a keep-alive) passes through unchanged; a choice without `delta` / `message`, or with a
  null content, passes through. Anything the rewriter would otherwise have to drop or reorder
  raises `OpenAIFormatError`: a chunk that is not a dict, `choices` that is not a list, a choice
  that is not a dict, an `index` that is not an integer, a `delta` / `message` that is not a dict,
  a content that is not a string.
- The chunks and responses may be the `openai` SDK's own objects (`ChatCompletionChunk`,
  `ChatCompletion`; anything with a pydantic-style `model_dump`): they are read as
  `model_dump(exclude_unset=True)` (the fields the server sent). `rewrite_chat_completion`
  returns an object of the same type (built with its `model_validate`; the object itself when
  nothing changed) and a dict for a dict; the stream rewriters give dicts.
- `arewrite_chat_completion_stream` is the same rewriter for `async for` (chunks from an async
  iterable, or a plain one).
- In a non-streaming response, `message.content` becomes the text left around the calls, or null
  when calls were found and no text is left; `message.tool_calls` is upstream's list (if any)
  followed by the new calls.

The layer's modules, each named after what it does: `toolcalls` (calls as OpenAI `tool_calls`, ids),
`policy` (the rewriters' options and the policy calls go through), `chunks` (the streaming
rewriter), `completion` (the non-streaming one), `sdk` (the `openai` SDK's objects in and out).
This module is their public face: import from here.
"""

from __future__ import annotations

from .chunks import (
    ChatCompletionStreamRewriter,
    arewrite_chat_completion_stream,
    rewrite_chat_completion_stream,
)
from .completion import rewrite_chat_completion
from .errors import OpenAIFormatError
from .policy import TOOL_CHOICES as TOOL_CHOICES
from .policy import check_parallel_tool_calls as check_parallel_tool_calls
from .policy import check_tool_choice as check_tool_choice
from .policy import chosen_function as chosen_function
from .sdk import as_json_object
from .toolcalls import IdFactory, new_call_id, to_openai_stream_deltas, to_openai_tool_calls
from .toolcalls import UnparsedCall as UnparsedCall

__all__ = [
    "ChatCompletionStreamRewriter",
    "IdFactory",
    "OpenAIFormatError",
    "arewrite_chat_completion_stream",
    "as_json_object",
    "new_call_id",
    "rewrite_chat_completion",
    "rewrite_chat_completion_stream",
    "to_openai_stream_deltas",
    "to_openai_tool_calls",
]
