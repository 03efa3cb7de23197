"""``check`` output: one ``path:line:col: CODE message`` line per finding, sorted."""

from __future__ import annotations

from collections.abc import Iterable

from unsentinel.core.model import FileResult, Site


def finding_lines(results: Iterable[FileResult]) -> list[str]:
    rows: list[tuple[str, int, int, str, str]] = []
    for result in results:
        for site in result.sites:
            if site.action.is_finding:
                rows.append(_row(result.path, site))
    return [f"{path}:{line}:{col}: {code} {msg}" for path, line, col, code, msg in sorted(rows)]


def _row(path: str, site: Site) -> tuple[str, int, int, str, str]:
    return (path, site.position.line, site.position.column, site.rule, site.message)
