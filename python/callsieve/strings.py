"""String helpers shared by every module: JavaScript's whitespace (D10) and ASCII-only case folding.

Both behave identically in Python and JavaScript, which is why they exist instead of
`str.strip()` and `str.lower()`.
"""

from __future__ import annotations

import re
from typing import Final

# D10: the whitespace JavaScript's String.prototype.trim removes.
JS_SPACE: Final = (
    " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def trim(s: str) -> str:
    return s.strip(JS_SPACE)


def ascii_lower(s: str) -> str:
    """Lowercase A-Z only, identically in every implementation (str.lower also folds 'İ', 'K')."""
    return s.lower() if s.isascii() else "".join(c.lower() if "A" <= c <= "Z" else c for c in s)


def json_trim(s: str) -> str:
    """JSON's whitespace (RFC 8259) off both ends."""
    return s.strip(" \t\r\n")


def is_blank(s: str) -> bool:
    return _NOT_SPACE.search(s) is None  # (no copy of a long text, as strip would make)


_NOT_SPACE: Final = re.compile("[^" + JS_SPACE + "]")
