"""More tests that tell the code apart from its mutants (issue 17), from the mutation runs of
2026-12-04 (names, schema, reasoning, shell, the scanner's `_skip`). As in test_mutation_kills.py,
each expectation comes from the rules or the documented API, not from the implementation's output."""

from __future__ import annotations

from typing import Any

import pytest

from toolsieve import InputTypeError, Sieve
from toolsieve.openai import to_openai_tool_calls
from toolsieve.schema import check_tools

# ---- schema: a misuse message names the option and what was given (R12) --------------------------


@pytest.mark.parametrize(("tools", "given"), [({"name": "f"}, "dict"), ("f", "str"), (5, "int")])
def test_tools_that_are_not_a_list_name_their_type(tools: Any, given: str) -> None:
    want = f"^tools must be a list of tool definitions, got {given}$"
    with pytest.raises(InputTypeError, match=want):
        check_tools(tools)
    with pytest.raises(InputTypeError, match=want):
        Sieve(tools=tools)
    with pytest.raises(InputTypeError, match=want):
        to_openai_tool_calls((), tools=tools)
    assert check_tools(None) is None and check_tools(()) == ()
