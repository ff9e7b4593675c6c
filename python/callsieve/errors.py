"""Every error class of callsieve. Misuse of the API raises; malformed *content* never raises (R4):
it becomes text."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class CallsieveError(Exception):
    """Base class of every error callsieve raises."""


class InputTypeError(CallsieveError, TypeError):
    """A chunk, text or option had the wrong type (e.g. bytes instead of str)."""


class SieveClosedError(CallsieveError, RuntimeError):
    """`feed()` or `flush()` was called on a sieve that was already flushed."""


class ConcurrentUseError(CallsieveError, RuntimeError):
    """`feed()` or `flush()` was called on a sieve while another call on it was running: a Sieve
    holds one stream's state and is not thread-safe (use one per stream, or a lock around it)."""


class OptionsError(CallsieveError, ValueError):
    """An option had an invalid value."""


class SSEFormatError(CallsieveError, ValueError):
    """The event stream cannot be read: invalid UTF-8, a `data:` that is not JSON, data after `[DONE]`."""


class OpenAIFormatError(CallsieveError, ValueError):
    """An OpenAI chunk or response has a shape the rewriter cannot carry through unchanged."""


class MissingDependencyError(CallsieveError, ImportError):
    """An optional extra is needed and not installed: `callsieve.langchain` without `langchain-core`
    (`pip install 'callsieve[langchain]'`), Parquet or `ParseBatch` without pyarrow
    (`callsieve[batch]`)."""


class BadRequest(Exception):
    """A driver-protocol request that cannot be answered (docs/DRIVER.md); not a library error."""


def check_iterable(value: Any, what: str) -> Iterable[Any]:
    """`value` when it can be iterated (a str counts only when `what` allows it: never here)."""
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InputTypeError(f"{what} must be an iterable, got {type(value).__name__}")
    return value
