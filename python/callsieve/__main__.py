"""`python -m callsieve` is the `callsieve` command."""

from .cli import run

run()
