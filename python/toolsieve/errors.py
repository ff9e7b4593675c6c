"""Errors raised for misuse of the API. Malformed *content* never raises (R4): it becomes text."""

from __future__ import annotations


class ToolsieveError(Exception):
    """Base class of every error toolsieve raises."""


class InputTypeError(ToolsieveError, TypeError):
    """A chunk, text or option had the wrong type (e.g. bytes instead of str)."""


class SieveClosedError(ToolsieveError, RuntimeError):
    """`feed()` or `flush()` was called on a sieve that was already flushed."""


class OptionsError(ToolsieveError, ValueError):
    """An option had an invalid value."""
