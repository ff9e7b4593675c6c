"""The `openai` SDK's own objects (`ChatCompletion`, `ChatCompletionChunk`: anything with a
pydantic-style `model_dump`) in the OpenAI rewriters: read as JSON dicts, and rebuilt as their
class on the way out (callsieve.openai's docstring)."""

from __future__ import annotations

from typing import Any


def as_json_object(obj: Any) -> Any:
    """A dict for an SDK object (anything with `model_dump`: the fields that were set, as JSON
    types); anything else as it is."""
    if isinstance(obj, dict):
        return obj
    dump = getattr(obj, "model_dump", None)
    if dump is None or not callable(dump):
        return obj
    try:
        return dump(exclude_unset=True, mode="json")
    except TypeError:  # a model_dump without pydantic's keywords
        return dump()


def _sdk_type(obj: Any) -> Any:
    """The SDK class of a chunk or response object (one with `model_validate`), or None."""
    if isinstance(obj, dict):
        return None
    validate = getattr(type(obj), "model_validate", None)
    return type(obj) if callable(validate) else None


def _as_sdk(kind: Any, out: dict[str, Any]) -> Any:
    """SDK objects in, SDK objects out: a rewritten chunk as the class its input came as."""
    return out if kind is None else kind.model_validate(out)


__all__ = ["as_json_object"]
