"""The JSONL driver of DRIVER.md: `python -m toolsieve.driver`.

One request per input line, one response per request, in order; a bad request gets an error
response and the driver goes on.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from .errors import ToolsieveError
from .sieve import Sieve, coalesce, parse

KNOWN_OPTIONS = frozenset({"toolNames", "jsonToolCalls"})


class BadRequest(Exception):
    pass


def jsonable(v: Any) -> Any:
    """Integral floats are written as integers (`3`, not `3.0`), and non-finite numbers as null,
    as JavaScript's JSON.stringify does."""
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return None
        if v.is_integer() and abs(v) < 2**53:
            return int(v)
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, list):
        return [jsonable(x) for x in v]
    return v


def _options(req: dict[str, Any]) -> dict[str, Any]:
    opts = req.get("options")
    if opts is None:
        return {}
    if not isinstance(opts, dict):
        raise BadRequest("options must be an object")
    unknown = sorted(set(opts) - KNOWN_OPTIONS)
    if unknown:
        raise BadRequest(f"unknown option(s): {', '.join(unknown)}")
    names = opts.get("toolNames")
    if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
        raise BadRequest("toolNames must be a list of strings")
    json_calls = opts.get("jsonToolCalls", False)
    if not isinstance(json_calls, bool):
        raise BadRequest("jsonToolCalls must be a boolean")
    return {"tool_names": names, "json_tool_calls": json_calls}


def handle(req: Any) -> dict[str, Any]:
    if not isinstance(req, dict):
        raise BadRequest("request must be a JSON object")
    op = req.get("op")
    kw = _options(req)
    if op == "parse":
        text = req.get("text")
        if not isinstance(text, str):
            raise BadRequest("parse needs a string 'text'")
        return parse(text, **kw).to_dict()
    if op == "stream":
        chunks = req.get("chunks")
        if not isinstance(chunks, list) or not all(isinstance(c, str) for c in chunks):
            raise BadRequest("stream needs 'chunks', a list of strings")
        sieve = Sieve(**kw)
        events = [e for c in chunks for e in sieve.feed(c)]
        events += sieve.flush()
        return {"events": [e.to_dict() for e in coalesce(events)]}
    raise BadRequest("op must be parse or stream")


def serve(inp: TextIO, out: TextIO) -> None:
    for line in inp:
        if not line.strip():
            continue
        rid: Any = None
        try:
            req = json.loads(line)
            if isinstance(req, dict):
                rid = req.get("id")
            resp: dict[str, Any] = {"id": rid, "result": jsonable(handle(req))}
        except json.JSONDecodeError as exc:
            resp = {"id": rid, "error": {"type": "BadRequest", "message": f"invalid JSON: {exc}"}}
        except BadRequest as exc:
            resp = {"id": rid, "error": {"type": "BadRequest", "message": str(exc)}}
        except ToolsieveError as exc:
            resp = {"id": rid, "error": {"type": type(exc).__name__, "message": str(exc)}}
        except Exception as exc:  # the driver never stops on one request
            resp = {"id": rid, "error": {"type": "InternalError", "message": repr(exc)}}
        out.write(json.dumps(resp, ensure_ascii=False) + "\n")
        out.flush()


def main() -> None:
    sys.stdin.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    sys.stdout.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    serve(sys.stdin, sys.stdout)


if __name__ == "__main__":
    main()
