"""The step driver of a value tap (R16): one call per step, shared by the tap's own tests
(core/test_arguments_tap.py) and the mutation kills (mutation/test_mutation_kills.py)."""

from __future__ import annotations

from callsieve.arguments import ValueTap


def steps(tap: ValueTap, *calls: tuple[str, str]) -> list[str]:
    out = []
    for kind, s in calls:
        if kind == "t":
            out.append(tap.text(s))
        elif kind == "c":
            out.append(tap.cdata_piece(s))
        elif kind == "open":
            out.append(tap.cdata_open())
        else:
            tap.cdata_close()
            out.append("")
    return out
