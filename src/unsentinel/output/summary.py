"""Summaries on stderr: the apply table, statistics, the review table and errors."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from unsentinel.core.model import Action, Mode, Status
from unsentinel.output.console import Printer
from unsentinel.output.findings import Finding, RuleInfo

if TYPE_CHECKING:
    # The runner brings the engine (and LibCST) and rich its renderers: a run that prints
    # no table loads neither just to be summarised.
    from rich.table import Table

    from unsentinel.core.runner import RunResult

_SYNTAX_ERROR = re.compile(r"syntax error at (?P<line>\d+):(?P<column>\d+): (?P<what>.*)", re.S)


def _table(title: str, *, bare: bool = False) -> Table:
    """A rich table (``bare``: no header, no box), importing rich only when one is printed."""
    from rich.table import Table

    if bare:
        return Table(title=title, show_header=False, box=None)
    return Table(title=title)


def error_line(path: str, reason: str) -> str:
    """``error: path: reason``; a syntax error reads like a finding: ``path:line:col: ...``."""
    syntax = _SYNTAX_ERROR.fullmatch(reason)
    if syntax is None:
        return f"error: {path}: {reason}"
    what = syntax["what"].splitlines()[0] if syntax["what"] else "invalid syntax"
    return f"{path}:{syntax['line']}:{syntax['column']}: syntax error: {what}"


def print_errors(console: Printer, run: RunResult) -> None:
    for notice in run.notices:
        console.print(f"warning: {notice}", markup=False)
    for path, reason in run.failed:
        console.print(error_line(path, reason), markup=False)
    print_manual_changes(console, run)
    for path, reason in run.conflicts:
        console.print(f"held back: {path}: {reason}", markup=False)
    if run.verification is not None and run.verification.broken:
        print_broken(console, run)
    elif run.held_back and not run.conflicts:
        console.print(
            f"error: nothing written: {len(run.failed)} file(s) failed, so the "
            f"{len(run.held_back)} file(s) that would change were held back "
            "(a migration is applied whole or not at all)",
            markup=False,
        )
    if run.refused_dirty:
        console.print(
            "error: refusing to modify files with uncommitted changes "
            "(commit or stash them, or pass --allow-dirty):",
            markup=False,
        )
        for path in run.refused_dirty:
            console.print(f"  {path}", markup=False)


def print_manual_changes(console: Printer, run: RunResult) -> None:
    """Sites outside Python the run reports but does not change (wire-contract schemas).

    Printed even with ``--quiet``: a schema still declaring strings fails the project's
    contract tests after ``apply``, so it must never go unmentioned.
    """
    for result in run.emitted:
        for site in result.sites:
            if site.action is Action.REPORT:
                where = f"{result.path}:{site.position.line}:{site.position.column}"
                console.print(f"held for manual change: {where}: {site.message}", markup=False)


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


def print_statistics(console: Printer, run: RunResult) -> None:
    table = _table(title="Statistics", bare=True)
    for name, value in statistics(run).items():
        table.add_row(name, str(value))
    if run.mode is Mode.CHECK:
        table.add_row("from cache", str(run.cached))
    if run.peak_memory:
        table.add_row(*memory_row(run.peak_memory))
    console.print(table)


def memory_row(peaks: Sequence[int]) -> tuple[str, str]:
    """The highest peak RSS among the processes that did the work, and how many there were.

    Each process measures its own peak (``getrusage``); the highest is what a machine must
    have per worker.
    """
    processes = f"{len(peaks)} process{'es' if len(peaks) != 1 else ''}"
    return (f"peak memory per worker, MiB ({processes})", str(round(max(peaks) / 2**20)))


def print_rule_statistics(
    console: Printer, findings: Sequence[Finding], rules: Mapping[str, RuleInfo]
) -> None:
    """Findings per rule, most frequent first (ruff's ``--statistics``)."""
    counts = Counter(f.code for f in findings)
    table = _table(title="Findings per rule", bare=True)
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        name = rules[code].name if code in rules else ""
        table.add_row(str(count), code, name)
    if counts:
        console.print(table)


def print_nothing_found(console: Printer, run: RunResult) -> bool:
    """Say so when a run looked at no file at all; True when it did."""
    if run.results:
        return False
    if not run.failed:
        console.print("warning: no Python files found in the given path(s)", markup=False)
    return True


def print_check_summary(console: Printer, run: RunResult) -> None:
    if print_nothing_found(console, run):
        return
    findings = run.findings
    files = sum(1 for r in run.results if any(s.action.is_finding for s in r.sites))
    checked = len(run.results)
    if findings:
        console.print(f"Found {findings} finding(s) in {files} file(s) ({checked} checked).")
    elif run.failed:  # not "all clear": some files were never looked at
        console.print(f"No findings, but {len(run.failed)} error(s) above.")
    else:
        console.print(f"All clear: no findings in {checked} file(s).")


def print_change_summary(console: Printer, run: RunResult, *, applied: bool) -> None:
    per_rule = Counter(
        site.rule
        for r in run.results
        for site in r.sites
        if r.changed and site.action in (Action.REWRITE, Action.REVIEW)
    )
    verb = "rewritten" if applied else "would be rewritten"
    changed = run.written if applied else tuple(r.path for r in run.changed)
    table = _table(title=f"{len(changed)} file(s) {'changed' if applied else 'to change'}")
    table.add_column("rule")
    table.add_column(f"sites {verb}", justify="right")
    for rule, count in sorted(per_rule.items()):
        table.add_row(rule, str(count))
    if per_rule:
        console.print(table)
    elif not print_nothing_found(console, run):
        console.print(f"No changes: {len(run.results)} file(s) looked at.")
    notes = [(r.path, s) for r in run.results for s in r.sites if s.action is Action.NOTE]
    if notes:
        console.print(f"{len(notes)} note(s) for review (see `unsentinel plan`):", markup=False)
        for path, site in notes:
            console.print(f"  {path}:{site.position.line}: {site.message}", markup=False)
    _print_held(console, run)
    skipped = [(r.path, r.skip_reason) for r in run.results if r.skip_reason]
    for path, reason in [*skipped, *run.discovery.skipped]:
        console.print(f"skipped: {path}: {reason}", markup=False)


_HELD_REASONS_SHOWN = 20


def _print_held(console: Printer, run: RunResult) -> None:
    """The sites left as they are for the code they change with (``skip``), one line per
    reason with its first site: a run that writes less than it found says why."""
    by_reason: dict[str, list[str]] = {}
    for result in run.results:
        for site in result.sites:
            if site.action is Action.SKIP and site.reasons:
                where = f"{result.path}:{site.position.line}"
                by_reason.setdefault(site.reasons[0], []).append(where)
    if not by_reason:
        return
    held = sum(len(places) for places in by_reason.values())
    console.print(
        f"{held} site(s) held back: each changes only with code that stays as it is "
        "(see `unsentinel plan`):",
        markup=False,
    )
    for reason, places in list(by_reason.items())[:_HELD_REASONS_SHOWN]:
        more = f" (and {len(places) - 1} more)" if len(places) > 1 else ""
        console.print(f"  {places[0]}{more}: {reason}", markup=False)
    if len(by_reason) > _HELD_REASONS_SHOWN:
        rest = len(by_reason) - _HELD_REASONS_SHOWN
        console.print(f"  ... and {rest} more reason(s) in `unsentinel plan`", markup=False)


def print_review_table(console: Printer, run: RunResult) -> None:
    rows = [
        (f"{r.path}:{site.position.line}", name, str(value.value), value.reason)
        for r in run.results
        for site in r.sites
        for name, value in site.low_confidence.items()
    ]
    if not rows:
        return
    table = _table(title=f"Review: {len(rows)} low-confidence value(s)")
    for column in ("site", "field", "value", "reason"):
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    console.print(table)


def print_broken(console: Printer, run: RunResult) -> None:
    """``apply --verify``: what passed before and fails after, and the rollback."""
    verification = run.verification
    assert verification is not None
    console.print(
        f"error: `{verification.command}` broke after the rewrite; the apply was rolled back "
        f"({len(run.held_back)} file(s) restored). What passed before and fails after:",
        markup=False,
    )
    for item in verification.broken:
        console.print(f"  {item}", markup=False)
    if verification.after.tail:
        console.print("last lines of its output:", markup=False)
        for line in verification.after.tail[-15:]:
            console.print(f"  | {line}", markup=False)
