"""``check`` output, ``text`` and ``concise``: one ``path:line:col: CODE message`` per finding."""

from __future__ import annotations

from collections.abc import Sequence

import click

from unsentinel.output.findings import Finding


def line(finding: Finding, *, color: bool = False) -> str:
    where = f"{finding.path}:{finding.line}:{finding.column}:"
    code = finding.code
    if color:
        where = click.style(where, bold=True)
        code = click.style(code, fg="red", bold=True)
    return f"{where} {code} {finding.message}"


def render(findings: Sequence[Finding], *, color: bool = False) -> str:
    return "".join(line(finding, color=color) + "\n" for finding in findings)
