"""The Python half of the playground, run inside Pyodide by worker.js.

`playground_handle(request_json) -> response_json`: JSON strings both ways, so nothing but plain
strings crosses the JS/Python boundary. Requests:

    {"op": "run", "input": str, "chunks": [str], "options": {camelCase options, e.g. "toolNames"}}
        -> {"parse": ParseResult, "events": [event with raw], "eventCount": n,
            "steps": [[event with raw] per feed(chunk), then those of flush()]}
    {"op": "fixtures", "cases": [{"id", "input", "options", "chunkings": {name: [str]}} | {"id", "call"}]}
        -> {"results": [{"id", "parse", "streams": {name: {"events", "rawOk"}}}
                        | {"id", "call": {"result"} | {"error": type}, "detail"} | {"id", "error"}]}

`parse` and the coalesced `events` are the driver protocol's JSON shapes (callsieve.driver).
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

import callsieve
from callsieve import CallsieveError, Sieve, coalesce, parse
from callsieve.driver import serve
from callsieve.formats import dropped_markers
from callsieve.jsontext import jsonable

# As parity/docs.py's DROPPED: the end-of-sentence token, every marker the format table drops where
# it stands alone (D47; the presets' reasoning markers), Harmony's headers (D49).
_EOS = re.compile(
    r"<[｜|]end▁of▁sentence[｜|]>"
    + "".join("|" + re.escape(m) for m in dropped_markers())
    + r"|<\|(?:start|channel)\|>[^\n]{0,256}?<\|message\|>"
)


def _kept(raw: str, text: str) -> bool:
    """No loss (R8.2), except end-of-sentence tokens (D29), reasoning markers (R15, R17.10) and the
    open-model formats' dropped markers (D47, D49), as parity/docs.py's `kept`.
    `raw` joins the events' `source` (R16's start and argument events have none)."""
    pattern = "(?:" + _EOS.pattern + ")?"
    return re.fullmatch(pattern.join(re.escape(p) for p in _EOS.split(text)), raw) is not None


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _kw(options: Any) -> dict[str, Any]:
    """The fixtures' / driver protocol's camelCase options as keyword arguments
    (`toolNames` -> `tool_names`, `jsonToolCalls` -> `json_tool_calls`)."""
    return {_snake(k): v for k, v in (options or {}).items()}


def _event(e: Any, with_raw: bool) -> dict[str, Any]:
    d: dict[str, Any] = e.to_dict()
    if with_raw and e.type == "tool_calls":
        d["raw"] = e.raw
    return d


def _stream(chunks: list[str], kw: dict[str, Any]) -> tuple[list[Any], str, list[list[Any]]]:
    """Coalesced events, the source they stand for, and the events of each feed() and flush()."""
    sieve = Sieve(**kw)
    steps = [list(sieve.feed(c)) for c in chunks]
    steps.append(list(sieve.flush()))
    events = [e for step in steps for e in step]
    return coalesce(events), "".join(e.source for e in events), steps


def _error(exc: BaseException) -> dict[str, str]:
    return {"type": type(exc).__name__, "message": str(exc)}


def _run(req: dict[str, Any]) -> dict[str, Any]:
    kw = _kw(req.get("options"))
    events, _raw, steps = _stream(req["chunks"], kw)
    return {
        "parse": parse(req["input"], **kw).to_dict(),
        "events": [_event(e, True) for e in events],
        "eventCount": sum(len(s) for s in steps),
        "steps": [[_event(e, True) for e in s] for s in steps],
    }


def _call(case: dict[str, Any]) -> dict[str, Any]:
    """A function fixture through the driver's own `call` op (callsieve.driver.serve)."""
    call = case["call"]
    req = {"id": case["id"], "op": "call", "function": call.get("function"), "args": call.get("args")}
    out = io.StringIO()
    serve(io.StringIO(json.dumps(req) + "\n"), out)
    ans = json.loads(out.getvalue())
    if "error" in ans:
        return {"id": case["id"], "call": {"error": ans["error"]["type"]}, "detail": ans["error"]["message"]}
    return {"id": case["id"], "call": {"result": ans["result"]}}


def _fixture(case: dict[str, Any]) -> dict[str, Any]:
    if "call" in case:
        return _call(case)
    kw = _kw(case.get("options"))
    out: dict[str, Any] = {"id": case["id"]}
    try:
        out["parse"] = parse(case["input"], **kw).to_dict()
    except (CallsieveError, TypeError) as exc:
        out["parse"] = {"error": _error(exc)}
    streams: dict[str, Any] = {}
    for name, chunks in case["chunkings"].items():
        try:
            events, raw, _ = _stream(chunks, kw)
            streams[name] = {"events": [_event(e, False) for e in events], "rawOk": _kept(raw, case["input"])}
        except (CallsieveError, TypeError) as exc:
            streams[name] = {"error": _error(exc)}
    out["streams"] = streams
    return out


def playground_handle(request_json: str) -> str:
    try:
        req = json.loads(request_json)
        op = req.get("op")
        if op == "run":
            resp: dict[str, Any] = _run(req)
        elif op == "fixtures":
            resp = {"results": [_fixture(c) for c in req["cases"]]}
        elif op == "version":
            resp = {"callsieve": callsieve.__version__, "file": callsieve.__file__}
        else:
            resp = {"error": {"type": "BadRequest", "message": f"unknown op {op!r}"}}
    except (CallsieveError, TypeError) as exc:
        resp = {"error": _error(exc)}
    except Exception as exc:  # shown on the page, never a dead worker
        resp = {"error": {"type": "InternalError", "message": repr(exc)}}
    return json.dumps(jsonable(resp), ensure_ascii=False)
