"""The one place that builds rich consoles. Tests inject their own."""

from __future__ import annotations

import sys

from rich.console import Console


def make_console(*, stderr: bool = True) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    # Off a terminal (CI logs, files) rich would assume 80 columns and squeeze tables.
    width = None if is_tty(stderr=stderr) else 120
    # No emoji codes: a file named ":cat:.py" must be printed as it is named.
    return Console(file=stream, highlight=False, soft_wrap=True, emoji=False, width=width)


def is_tty(*, stderr: bool = False) -> bool:
    stream = sys.stderr if stderr else sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())
