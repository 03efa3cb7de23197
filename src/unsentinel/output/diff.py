"""Unified diffs: plain and ``git apply``-compatible, or coloured for a terminal."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import click

from ..model import FileResult

NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(result: FileResult) -> str:
    """The diff of one changed file; new files (``original is None``) diff from /dev/null."""
    assert result.new_text is not None
    old_lines = _lines(result.original or "")
    new_lines = _lines(result.new_text)
    old_name = "/dev/null" if result.original is None else f"a/{result.path}"
    chunks = difflib.unified_diff(old_lines, new_lines, old_name, f"b/{result.path}", n=3)
    return "".join(_terminate(line) for line in chunks)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _terminate(line: str) -> str:
    """difflib leaves a last line without newline unterminated; git expects a marker."""
    if line.endswith(("\n", "\r")):
        return line
    return line + "\n" + NO_NEWLINE


def render_diffs(results: Iterable[FileResult], *, color: bool) -> str:
    text = "".join(unified_diff(r) for r in results if r.changed)
    return colorize(text) if color else text


def colorize(diff: str) -> str:
    return "".join(_color_line(line) for line in diff.splitlines(keepends=True))


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
