"""``check --output-format``: the formats, and the one function that picks a renderer."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence

from unsentinel.output import full, github, gitlab, json_report, junit, sarif, text
from unsentinel.output.findings import Finding, Fix, RuleInfo


class OutputFormat(str, enum.Enum):
    TEXT = "text"  # path:line:col: CODE message (the default)
    CONCISE = "concise"  # the same one line per finding, as ruff names it
    FULL = "full"  # each finding with its source line
    JSON = "json"
    GITHUB = "github"  # GitHub Actions annotations
    SARIF = "sarif"  # SARIF 2.1.0, for code scanning
    JUNIT = "junit"
    GITLAB = "gitlab"  # GitLab Code Quality


def render(
    fmt: OutputFormat,
    findings: Sequence[Finding],
    *,
    rules: Mapping[str, RuleInfo],
    checked: Sequence[str],
    version: str,
    color: bool = False,
    fixes: Mapping[str, Fix] | None = None,
) -> str:
    """Everything ``check`` prints on stdout in ``fmt``; ``fixes`` only SARIF shows."""
    if fmt in (OutputFormat.TEXT, OutputFormat.CONCISE):
        return text.render(findings, color=color)
    if fmt is OutputFormat.FULL:
        return full.render(findings, color=color)
    if fmt is OutputFormat.JSON:
        return json_report.render(findings, rules)
    if fmt is OutputFormat.GITHUB:
        return github.render(findings)
    if fmt is OutputFormat.SARIF:
        return sarif.render(findings, rules, version=version, fixes=fixes)
    if fmt is OutputFormat.JUNIT:
        return junit.render(findings, checked)
    return gitlab.render(findings)
