"""`python -m toolsieve` is the `toolsieve` command."""

from .cli import run

run()
