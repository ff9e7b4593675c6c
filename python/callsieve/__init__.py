"""callsieve: sieve tool calls out of raw LLM text, streaming, in linear time.

>>> from callsieve import parse
>>> parse('<|DSML|tool_calls><|DSML|invoke name="ls"></|DSML|invoke></|DSML|tool_calls>').calls
(ToolCall(name='ls', input={}),)
"""

from . import scanner as _scanner
from .errors import (
    CallsieveError,
    ConcurrentUseError,
    InputTypeError,
    MissingDependencyError,
    OpenAIFormatError,
    OptionsError,
    SieveClosedError,
    SSEFormatError,
)
from .events import Event, ParseResult, ReasoningEvent, TextEvent, ToolCall, ToolCallsEvent
from .jsontext import json_text
from .names import PolicyResult, apply_policy, resolve_tool_name
from .openai import (
    ChatCompletionStreamRewriter,
    arewrite_chat_completion_stream,
    rewrite_chat_completion,
    rewrite_chat_completion_stream,
    to_openai_stream_deltas,
    to_openai_tool_calls,
)
from .prompt import build_tool_instructions
from .request import prepare_prompt_request, rewrites_response
from .roles import normalize_role
from .schema import normalize_input, tool_names_of
from .sieve import Sieve, coalesce, parse
from .sse import aiter_chat_chunks, awrite_sse, iter_chat_chunks, iter_sse_events, write_sse

__version__ = "0.1.0"

#: True in the mypyc-compiled build (setup.py; what a wheel is wherever a C compiler works): the
#: scanner and its helpers are C extensions there. The same code either way; the pure-Python
#: package (`CALLSIEVE_COMPILE=0`, editable installs, Pyodide) is the reference.
compiled: bool = (_scanner.__file__ or "").endswith((".so", ".pyd"))

__all__ = [
    "CallsieveError",
    "ChatCompletionStreamRewriter",
    "ConcurrentUseError",
    "Event",
    "InputTypeError",
    "MissingDependencyError",
    "OpenAIFormatError",
    "OptionsError",
    "ParseResult",
    "PolicyResult",
    "ReasoningEvent",
    "SSEFormatError",
    "Sieve",
    "SieveClosedError",
    "TextEvent",
    "ToolCall",
    "ToolCallsEvent",
    "__version__",
    "aiter_chat_chunks",
    "apply_policy",
    "arewrite_chat_completion_stream",
    "awrite_sse",
    "build_tool_instructions",
    "coalesce",
    "compiled",
    "iter_chat_chunks",
    "iter_sse_events",
    "json_text",
    "normalize_input",
    "normalize_role",
    "parse",
    "prepare_prompt_request",
    "resolve_tool_name",
    "rewrite_chat_completion",
    "rewrite_chat_completion_stream",
    "rewrites_response",
    "to_openai_stream_deltas",
    "to_openai_tool_calls",
    "tool_names_of",
    "write_sse",
]
