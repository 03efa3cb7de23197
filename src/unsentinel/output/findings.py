"""The findings ``check`` reports, flattened for the output formats, and the rules' metadata.

Every format renders the same sorted list of :class:`Finding` rows; the command line builds
the :class:`RuleInfo` table from the registry, so no format imports a rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from unsentinel.core.model import FileResult


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int  # 1-based
    column: int  # 1-based
    code: str
    message: str
    end_line: int
    end_column: int  # 1-based, one past the last character
    action: str  # what apply does here: rewrite / review / skip / report


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str
    summary: str


def collect(results: Iterable[FileResult]) -> list[Finding]:
    """Every finding, sorted by path, line, column and code."""
    rows = [
        Finding(
            path=result.path,
            line=site.position.line,
            column=site.position.column,
            code=site.rule,
            message=site.message,
            end_line=site.position.end_line,
            end_column=site.position.end_column,
            action=site.action.value,
        )
        for result in results
        for site in result.sites
        if site.action.is_finding
    ]
    return sorted(rows)
