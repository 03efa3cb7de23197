"""Summaries on stderr: the apply table, statistics, the review table and errors."""

from __future__ import annotations

from collections import Counter

from rich.console import Console
from rich.table import Table

from unsentinel.core.model import Action, Status
from unsentinel.core.runner import RunResult


def print_errors(console: Console, run: RunResult) -> None:
    for path, reason in run.failed:
        console.print(f"error: {path}: {reason}", markup=False)
    if run.refused_dirty:
        console.print(
            "error: refusing to modify files with uncommitted changes "
            "(commit or stash them, or pass --allow-dirty):",
            markup=False,
        )
        for path in run.refused_dirty:
            console.print(f"  {path}", markup=False)


def statistics(run: RunResult) -> dict[str, int]:
    """Files seen = prefiltered out + parsed + skipped + failed (write failures aside)."""
    counts = Counter(r.status for r in run.results)
    discovery = run.discovery
    return {
        "files seen": len(run.results) + len(discovery.errors) + len(discovery.skipped),
        "prefiltered out": counts[Status.PREFILTERED],
        "parsed": counts[Status.PARSED],
        "skipped": counts[Status.SKIPPED] + len(run.discovery.skipped),
        "changed": len(run.changed),
        "failed": len(run.failed),
    }


def print_statistics(console: Console, run: RunResult) -> None:
    table = Table(title="Statistics", show_header=False, box=None)
    for name, value in statistics(run).items():
        table.add_row(name, str(value))
    console.print(table)


def print_check_summary(console: Console, run: RunResult) -> None:
    findings = run.findings
    files = sum(1 for r in run.results if any(s.action.is_finding for s in r.sites))
    checked = len(run.results)
    if findings:
        console.print(f"Found {findings} finding(s) in {files} file(s) ({checked} checked).")
    else:
        console.print(f"All clear: no findings in {checked} file(s).")


def print_change_summary(console: Console, run: RunResult, *, applied: bool) -> None:
    per_rule = Counter(
        site.rule
        for r in run.results
        for site in r.sites
        if r.changed and site.action in (Action.REWRITE, Action.REVIEW)
    )
    verb = "rewritten" if applied else "would be rewritten"
    changed = run.written if applied else tuple(r.path for r in run.changed)
    table = Table(title=f"{len(changed)} file(s) {'changed' if applied else 'to change'}")
    table.add_column("rule")
    table.add_column(f"sites {verb}", justify="right")
    for rule, count in sorted(per_rule.items()):
        table.add_row(rule, str(count))
    if per_rule:
        console.print(table)
    else:
        console.print(f"No changes: {len(run.results)} file(s) looked at.")
    notes = [(r.path, s) for r in run.results for s in r.sites if s.action is Action.NOTE]
    if notes:
        console.print(f"{len(notes)} note(s) for review (see `unsentinel plan`):", markup=False)
        for path, site in notes:
            console.print(f"  {path}:{site.position.line}: {site.message}", markup=False)
    skipped = [(r.path, r.skip_reason) for r in run.results if r.skip_reason]
    for path, reason in [*skipped, *run.discovery.skipped]:
        console.print(f"skipped: {path}: {reason}", markup=False)


def print_review_table(console: Console, run: RunResult) -> None:
    rows = [
        (f"{r.path}:{site.position.line}", name, str(value.value), value.reason)
        for r in run.results
        for site in r.sites
        for name, value in site.low_confidence.items()
    ]
    if not rows:
        return
    table = Table(title=f"Review: {len(rows)} low-confidence value(s)")
    for column in ("site", "field", "value", "reason"):
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    console.print(table)
