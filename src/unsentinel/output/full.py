"""``check --output-format full``: each finding with the source line it points at.

::

    pkg/orders.py:2:17: UNS001 String starts with sentinel prefix 'BLOCK:'
      |
    2 | warnings.append("BLOCK: order is empty")
      |                 ^^^^^^^^^^^^^^^^^^^^^^^
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import click

from unsentinel.output import text
from unsentinel.output.findings import Finding

SourceLines = Callable[[str], list[str]]


def read_lines(path: str) -> list[str]:
    """The file's lines as Python numbers them, or none when it cannot be read any more."""
    try:
        return Path(path).read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError):
        return []


def render(
    findings: Sequence[Finding], *, color: bool = False, source: SourceLines = read_lines
) -> str:
    cache: dict[str, list[str]] = {}
    blocks = []
    for finding in findings:
        if finding.path not in cache:
            cache[finding.path] = source(finding.path)
        blocks.append(_block(finding, cache[finding.path], color=color))
    return "\n".join(blocks)


def _block(finding: Finding, lines: list[str], *, color: bool) -> str:
    head = text.line(finding, color=color) + "\n"
    if not 0 < finding.line <= len(lines):
        return head
    source_line = lines[finding.line - 1].expandtabs(1)
    number = str(finding.line)
    gutter = " " * len(number)
    end = finding.end_column if finding.end_line == finding.line else len(source_line) + 1
    width = max(1, end - finding.column)
    marker = "^" * width
    if color:
        marker = click.style(marker, fg="red", bold=True)
    return (
        f"{head}{gutter} |\n{number} | {source_line}\n"
        f"{gutter} | {' ' * (finding.column - 1)}{marker}\n"
    )
