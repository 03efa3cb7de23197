"""The one place that decides about colour and builds rich consoles. Tests inject their own.

Colour follows ``--color``: ``always`` and ``never`` are obeyed; ``auto`` (the default)
honours ``NO_COLOR`` (https://no-color.org), then ``FORCE_COLOR``, then whether the stream is
a terminal.
"""

from __future__ import annotations

import enum
import os
import sys
from typing import TYPE_CHECKING, Any, Protocol, TextIO

if TYPE_CHECKING:
    from rich.console import Console


class ColorChoice(str, enum.Enum):
    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


def use_color(choice: ColorChoice = ColorChoice.AUTO, *, stderr: bool = False) -> bool:
    if choice is ColorChoice.ALWAYS:
        return True
    if choice is ColorChoice.NEVER or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return is_tty(stderr=stderr)


def make_console(*, stderr: bool = True, color: bool | None = None) -> Console:
    """A console on stderr (or stdout); ``color`` None decides as ``--color auto`` does."""
    from rich.console import Console  # rich loads only when something is printed through it

    stream: TextIO = sys.stderr if stderr else sys.stdout
    if color is None:
        color = use_color(stderr=stderr)
    tty = is_tty(stderr=stderr)
    # Off a terminal (CI logs, files) rich would assume 80 columns and squeeze tables.
    width = None if tty else 120
    return Console(
        file=stream,
        highlight=False,
        soft_wrap=True,
        emoji=False,  # a file named ":cat:.py" must be printed as it is named
        width=width,
        no_color=not color,
        color_system=("auto" if tty else "standard") if color else None,
        force_terminal=True if color and not tty else None,
    )


def is_tty(*, stderr: bool = False) -> bool:
    stream = sys.stderr if stderr else sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())


def plain(text: object, *, markup: bool | None) -> bool:
    """Would rich print ``text`` unchanged? Printable ASCII without markup, as our consoles
    are set up (no highlighting, no emoji, soft wrap): no control code to strip, no width to
    measure, no ``[tag]`` to read. tests/test_console.py holds this against rich itself.
    """
    if not isinstance(text, str) or not all(" " <= char <= "~" for char in text):
        return False
    return markup is False or "[" not in text


class Printer(Protocol):
    """What the summaries print through: a rich ``Console``, or a :class:`LazyConsole`."""

    def print(self, *objects: Any, markup: bool | None = None) -> None: ...


class LazyConsole:
    """A console that builds its rich ``Console`` on the first print.

    Every command prints its errors through one, and most runs have none: then rich is
    never imported, and a quiet run over files without candidates stays light.
    """

    def __init__(self, *, stderr: bool = True, color: bool | None = None) -> None:
        self._stderr = stderr
        self._color = color
        self._console: Console | None = None

    def print(self, *objects: Any, markup: bool | None = None) -> None:
        if len(objects) == 1 and plain(objects[0], markup=markup):
            stream = sys.stderr if self._stderr else sys.stdout
            stream.write(f"{objects[0]}\n")  # what rich writes for it, without loading rich
            return
        if self._console is None:
            self._console = make_console(stderr=self._stderr, color=self._color)
        self._console.print(*objects, markup=markup)
