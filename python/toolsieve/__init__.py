"""toolsieve: sieve tool calls out of raw LLM text, streaming, in linear time.

>>> from toolsieve import parse
>>> parse('<|DSML|tool_calls><|DSML|invoke name="ls"></|DSML|invoke></|DSML|tool_calls>').calls
(ToolCall(name='ls', input={}),)
"""

from .errors import InputTypeError, OptionsError, SieveClosedError, ToolsieveError
from .events import Event, ParseResult, TextEvent, ToolCall, ToolCallsEvent
from .sieve import Sieve, coalesce, parse

__version__ = "0.1.0"

__all__ = [
    "Event",
    "InputTypeError",
    "OptionsError",
    "ParseResult",
    "Sieve",
    "SieveClosedError",
    "TextEvent",
    "ToolCall",
    "ToolCallsEvent",
    "ToolsieveError",
    "__version__",
    "coalesce",
    "parse",
]
