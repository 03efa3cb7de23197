"""Unified diffs: plain and ``git apply``-compatible, or coloured for a terminal."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

import click

from unsentinel.core.model import FileResult

NO_NEWLINE = "\\ No newline at end of file\n"
_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


def unified_diff(result: FileResult) -> str:
    """The diff of one changed file; new files (``original is None``) diff from /dev/null."""
    assert result.new_text is not None
    old_lines = _lines(result.original or "")
    new_lines = _lines(result.new_text)
    old_name = "/dev/null" if result.original is None else f"a/{result.path}"
    chunks = difflib.unified_diff(old_lines, new_lines, old_name, f"b/{result.path}", n=3)
    return "".join(_terminate(line) for line in chunks)


def _lines(text: str) -> list[str]:
    """Lines as git counts them: ended by ``\\n`` only.

    ``str.splitlines`` would also split at ``\\f``, ``\\x1c``, ``\\u2028`` ..., which are
    ordinary characters inside a line for git (and for Python's tokenizer).
    """
    return _LINE.findall(text)


def _terminate(line: str) -> str:
    """difflib leaves a last line without newline unterminated; git expects a marker."""
    if line.endswith("\n"):
        return line
    return line + "\n" + NO_NEWLINE


def render_diffs(results: Iterable[FileResult], *, color: bool) -> str:
    text = "".join(unified_diff(r) for r in results if r.changed)
    return colorize(text) if color else text


def colorize(diff: str) -> str:
    return "".join(_color_line(line) for line in _lines(diff))


def _color_line(line: str) -> str:
    body, newline = (line[:-1], "\n") if line.endswith("\n") else (line, "")
    if line.startswith(("+++", "---")):
        return click.style(body, bold=True) + newline
    if line.startswith("@@"):
        return click.style(body, fg="cyan") + newline
    if line.startswith("+"):
        return click.style(body, fg="green") + newline
    if line.startswith("-"):
        return click.style(body, fg="red") + newline
    return line
