"""JSON as JavaScript reads and writes it, so that Python and JavaScript give the same text.

`json_text` writes a JSON-like value byte for byte as `JSON.stringify(value)` does (D19, no spaces):
numbers as JavaScript writes them — integral floats without a fraction (`2.0` → `"2"`), exponents
from 1e21 up and below 1e-6 (`1e21` → `"1e+21"`, `1.5e-7` → `"1.5e-7"`), non-finite numbers as
`null` — and object keys that are array indices (`"0"`, `"12"`) first in ascending order, as in a
JavaScript object; other keys keep their order. `number_int` reads integers as `JSON.parse` does
(IEEE doubles). `jsonable` and `dumps` write the driver's and the CLI's JSON lines.
"""

from __future__ import annotations

import json
import json.encoder
import math
import re
from collections.abc import Mapping
from typing import Any, Final

from .errors import InputTypeError

_SAFE_INT: Final = 2**53


def number_int(s: str) -> int | float:
    """JSON numbers are IEEE doubles, as in JavaScript: integers beyond 2**53 lose precision."""
    if len(s) < 16:
        return int(s)
    f = float(s)
    return int(s) if abs(f) < _SAFE_INT else f


_ESCAPES: Final = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE: Final = re.compile('[\x00-\x1f"\\\\\ud800-\udfff]')
INDEX_KEY: Final = re.compile(r"0|[1-9][0-9]{0,9}")
_MAX_INDEX: Final = 2**32 - 2


_encode_basestring: Final = json.encoder.encode_basestring


def _escape_char(m: re.Match[str]) -> str:
    c = m.group()
    return _ESCAPES.get(c) or f"\\u{ord(c):04x}"


def _quote(s: str) -> str:
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, s) + '"'


def json_string_body(s: str) -> str:
    """`s` as inside a JSON string literal written by JSON.stringify (no quotes): a string value
    streamed in pieces (R16) escapes to the same text as whole, piece by piece."""
    if _LONE_SURROGATE.search(s) is None:  # the C encoder escapes as JSON.stringify does but for these
        return _encode_basestring(s)[1:-1]
    return _NEEDS_ESCAPE.sub(_escape_char, s)


def js_number(x: int | float) -> str:
    """A number as JavaScript's Number#toString (and JSON.stringify) writes it; NaN/±Infinity → "null"."""
    if isinstance(x, int):
        try:
            return str(x)
        except ValueError:  # beyond Python's int-to-str digit limit
            raise InputTypeError("integer too large to write as JSON text") from None
    if math.isnan(x) or math.isinf(x):
        return "null"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mant, _, exp = repr(abs(x)).partition("e")
    ip, _, fp = mant.partition(".")
    digits = ip + fp
    point = len(ip) + (int(exp) if exp else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k, n = len(digits), point  # value = 0.<digits> * 10**n
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        es = f"+{e}" if e >= 0 else str(e)
        body = (digits if k == 1 else digits[0] + "." + digits[1:]) + "e" + es
    return sign + body


def _key_text(k: object) -> str:
    if isinstance(k, str):
        return k
    if k is None or isinstance(k, bool):
        return {None: "null", True: "true", False: "false"}[k]
    if isinstance(k, int | float):
        return js_number(k)
    raise InputTypeError(f"object keys must be strings, got {type(k).__name__}")


def js_keys(obj: Mapping[Any, Any]) -> list[tuple[str, Any]]:
    """The (key, value) pairs of `obj` in JavaScript property order: array-index keys first,
    ascending, then the other keys in insertion order."""
    pairs = [(_key_text(k), v) for k, v in obj.items()]
    index = [(k, v) for k, v in pairs if INDEX_KEY.fullmatch(k) and int(k) <= _MAX_INDEX]
    if not index:
        return pairs
    index.sort(key=lambda kv: int(kv[0]))
    return index + [(k, v) for k, v in pairs if not (INDEX_KEY.fullmatch(k) and int(k) <= _MAX_INDEX)]


_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _plain(value: Any) -> bool:
    """True when json.dumps writes `value` exactly as JSON.stringify does (but for lone
    surrogates, fixed afterwards): no floats, and only string keys that are not array indices."""
    stack = [value]
    seen = 0
    while stack:
        v = stack.pop()
        seen += 1
        if seen > 100_000:
            return False  # large (or cyclic): the general path decides
        t = type(v)
        if t is dict:
            for k, x in v.items():
                if type(k) is not str or (k[:1].isdigit() and INDEX_KEY.fullmatch(k)):
                    return False
                stack.append(x)
        elif t is list or t is tuple:
            stack.extend(v)
        elif not (t is str or t is int or t is bool or v is None):
            return False  # floats, subclasses, anything else: the general path
    return True


def json_text(value: Any) -> str:
    """Compact JSON text of a JSON-like value, byte for byte as JavaScript's JSON.stringify writes it.

    Accepts dict (string keys), list, tuple, str, int, float, bool and None; iterative, so any
    depth works. Raises InputTypeError for other types."""
    if _plain(value):
        # The common case (chunks, arguments without floats) at C speed; any surprise (another
        # type, a depth beyond the recursion limit) takes the general path below.
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError, RecursionError):
            pass
        else:
            return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return _json_text(value)


def _json_text(value: Any) -> str:
    out: list[str] = []
    # Work items: a value to write, or a literal piece of text to append (a _Lit). A closing
    # _Lit carries the id of its container, which is "open" until then: meeting an open
    # container again is a cycle (JSON.stringify throws too).
    stack: list[Any] = [value]
    open_ids: set[int] = set()
    while stack:
        v = stack.pop()
        if type(v) is _Lit:
            out.append(v.s)
            if v.closes:
                open_ids.discard(v.closes)
        elif isinstance(v, str):
            out.append(_quote(v))
        elif v is None:
            out.append("null")
        elif v is True:
            out.append("true")
        elif v is False:
            out.append("false")
        elif isinstance(v, int | float):
            out.append(js_number(v))
        elif isinstance(v, dict | list | tuple):
            if id(v) in open_ids:
                raise InputTypeError("cyclic structure: not a JSON value")
            open_ids.add(id(v))
            items: list[Any]
            if isinstance(v, dict):
                items = [_Lit("{")]
                for i, (k, x) in enumerate(js_keys(v)):
                    items.append(_Lit(("," if i else "") + _quote(k) + ":"))
                    items.append(x)
                items.append(_Lit("}", id(v)))
            else:
                items = [_Lit("[")]
                for i, x in enumerate(v):
                    if i:
                        items.append(_Lit(","))
                    items.append(x)
                items.append(_Lit("]", id(v)))
            stack.extend(reversed(items))
        else:
            raise InputTypeError(f"not a JSON value: {type(v).__name__}")
    return "".join(out)


class _Lit:
    __slots__ = ("closes", "s")

    def __init__(self, s: str, closes: int = 0) -> None:
        self.s = s
        self.closes = closes


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


def dumps(v: Any) -> str:
    """JSON with non-ASCII as-is; a lone surrogate (not encodable as UTF-8) is escaped instead,
    as JavaScript's JSON.stringify does."""
    text = json.dumps(v, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(v, ensure_ascii=True)
    return text
