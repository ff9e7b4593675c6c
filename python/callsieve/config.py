"""The gateway's settings (`GatewayConfig`: the flags of `callsieve serve`, checked) and the preset
a request gets from its `model` id (R19.2: `preset_map`'s shell-style patterns)."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Any, Final

from .errors import CallsieveError, OptionsError
from .formats import check_preset
from .names import UnknownToolsPolicy
from .reasoning import ReasoningMode, check_reasoning
from .sieve import check_formats

MODES: Final = ("passthrough", "prompt")
POLICIES: Final = ("keep", "reject")
DEFAULT_MAX_BODY_BYTES: Final = 16 * 1024 * 1024
LOG_FORMATS: Final = ("text", "json")
LOG_LEVELS: Final = ("debug", "info", "warning", "error")


@dataclass
class GatewayConfig:
    """The settings of one gateway (the flags of `callsieve serve`)."""

    upstream: str
    api_keys: list[str] | None = None  # keys clients must present (`Authorization: Bearer KEY`)
    upstream_api_key: str | None = None  # the key sent upstream (None: no Authorization upstream)
    forward_client_key: bool = False  # without upstream_api_key: send the client's Authorization up
    mode: str = "passthrough"
    unknown_tools: UnknownToolsPolicy = "keep"
    timeout: float = 600.0  # upstream silence (seconds) that ends a request
    connect_timeout: float = 10.0
    keepalive: float = 15.0  # client-side silence (seconds) after which `: keep-alive` is written
    formats: list[str] | None = None  # R14.9: the markup formats recognized (None: the preset's, else all)
    reasoning: ReasoningMode | None = None  # R15: where reasoning may be (None: the preset's, else auto)
    preset: str | None = None  # R19: the preset of a request that preset_map does not choose one for
    preset_map: list[tuple[str, str]] | None = None  # (pattern, preset): by the request's model id
    stream_arguments: bool = False  # R16.5: stream each call's arguments as they arrive
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES  # a longer request body is a 413
    cors_origins: list[str] | None = None  # origins browsers may call from ("*": any)

    def __post_init__(self) -> None:
        try:
            check_formats(self.formats)
            if self.reasoning is not None:
                check_reasoning(self.reasoning)
            check_preset(self.preset)
            if self.preset_map is not None:
                self.preset_map = [_preset_entry(e) for e in self.preset_map]
        except CallsieveError as exc:
            raise ValueError(str(exc)) from None
        if not isinstance(self.stream_arguments, bool):
            raise ValueError(f"stream_arguments must be a bool, got {self.stream_arguments!r}")
        if not isinstance(self.upstream, str) or not self.upstream.startswith(("http://", "https://")):
            raise ValueError(f"upstream must be an http(s) URL, got {self.upstream!r}")
        self.upstream = self.upstream.rstrip("/")
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.unknown_tools not in POLICIES:
            raise ValueError(
                f"unknown_tools must be one of {', '.join(POLICIES)}, got {self.unknown_tools!r}"
            )
        if self.api_keys is not None:
            if isinstance(self.api_keys, str) or not all(
                isinstance(k, str) and k.strip() == k and k for k in self.api_keys
            ):
                raise ValueError("api_keys must be a list of non-empty keys without surrounding blanks")
            self.api_keys = list(self.api_keys)
        if self.upstream_api_key is not None and not isinstance(self.upstream_api_key, str):
            raise ValueError(f"upstream_api_key must be a string, got {self.upstream_api_key!r}")
        if not isinstance(self.forward_client_key, bool):
            raise ValueError(f"forward_client_key must be a bool, got {self.forward_client_key!r}")
        m = self.max_body_bytes
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise ValueError(f"max_body_bytes must be a positive whole number, got {m!r}")
        if self.cors_origins is not None:
            if isinstance(self.cors_origins, str) or not all(
                isinstance(o, str) and o for o in self.cors_origins
            ):
                raise ValueError(f"cors_origins must be a list of origins, got {self.cors_origins!r}")
            self.cors_origins = [o.rstrip("/") for o in self.cors_origins]
        for name in ("timeout", "connect_timeout", "keepalive"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not v > 0:
                raise ValueError(f"{name} must be a positive number of seconds, got {v!r}")


def _preset_entry(entry: Any) -> tuple[str, str]:
    """One entry of `preset_map`: a (pattern, preset) pair (a list of two from JSON too), checked."""
    if isinstance(entry, str) or not isinstance(entry, tuple | list) or len(entry) != 2:
        raise OptionsError(f"preset_map entries are (pattern, preset) pairs, got {entry!r}")
    pattern, name = entry
    if not isinstance(pattern, str) or not pattern:
        raise OptionsError(f"a preset_map pattern must be a non-empty string, got {pattern!r}")
    check_preset(name)
    return (pattern, name)


def _preset_pattern(pattern: str) -> re.Pattern[str]:
    """A `preset_map` pattern as `fnmatch` reads it (`*`, `?`, `[seq]`, `[!seq]`), without regard
    to case: matched with `.fullmatch(model.lower())`. fnmatch's regexes match in linear time."""
    return re.compile(fnmatch.translate(pattern.lower()))


def _choose_preset(
    model: Any, patterns: list[tuple[re.Pattern[str], str]], default: str | None
) -> str | None:
    """The preset of a request (R19.2): that of the first pattern its `model` id matches, else
    `default` (a `model` that is not a string matches no pattern)."""
    if isinstance(model, str):
        key = model.lower()
        for pattern, name in patterns:
            if pattern.fullmatch(key):
                return name
    return default


__all__ = ["DEFAULT_MAX_BODY_BYTES", "LOG_FORMATS", "LOG_LEVELS", "MODES", "POLICIES", "GatewayConfig"]
