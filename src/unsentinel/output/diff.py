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


def render_stat(results: Iterable[FileResult], *, color: bool = False) -> str:
    """``diff --stat``: lines added and removed per file, as ``git diff --stat`` shows them."""
    rows = [(r.path, *_counts(unified_diff(r))) for r in results if r.changed]
    if not rows:
        return ""
    name_width = max(len(path) for path, _, _ in rows)
    total_width = max(len(str(added + removed)) for _, added, removed in rows)
    most = max(added + removed for _, added, removed in rows)
    scale = min(1.0, STAT_BAR / most) if most else 1.0
    lines = []
    for path, added, removed in rows:
        plus, minus = "+" * _bar(added, scale), "-" * _bar(removed, scale)
        if color:
            plus, minus = click.style(plus, fg="green"), click.style(minus, fg="red")
        count = str(added + removed).rjust(total_width)
        lines.append(f" {path.ljust(name_width)} | {count} {plus}{minus}\n")
    insertions = sum(added for _, added, _ in rows)
    deletions = sum(removed for _, _, removed in rows)
    lines.append(
        f" {_plural(len(rows), 'file')} changed, {_plural(insertions, 'insertion')}(+), "
        f"{_plural(deletions, 'deletion')}(-)\n"
    )
    return "".join(lines)


STAT_BAR = 50  # the widest +/- bar, as git draws it on an 80-column terminal


def _counts(diff: str) -> tuple[int, int]:
    body = _lines(diff)[2:]  # after the ---/+++ header of the one file
    added = sum(1 for line in body if line.startswith("+"))
    removed = sum(1 for line in body if line.startswith("-"))
    return added, removed


def _bar(count: int, scale: float) -> int:
    return max(1, round(count * scale)) if count else 0


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
