"""The glue between the commands and :mod:`unsentinel.review`: asking and recording.

``apply --interactive`` asks a person about each site and applies the answers as an
edited plan; ``check --add-noqa`` and ``--write-baseline`` record today's findings;
``check --baseline`` hides the recorded ones. The decisions live in ``unsentinel.review``;
here are only the terminal checks, the messages and the exits.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from unsentinel.cli.exit_codes import OK, fail
from unsentinel.cli.run import Ran, finish, run_command

if TYPE_CHECKING:
    from unsentinel.core.plan_file import Plan


def require_terminal(plan_file: Path | None) -> None:
    """``apply --interactive`` asks a person: refuse a pipe, CI, and a second plan."""
    from unsentinel.review.interactive import NO_TERMINAL, has_terminal

    if plan_file is not None:
        raise click.UsageError("--interactive and --plan both decide what to write: choose one")
    if not has_terminal():
        fail(NO_TERMINAL)


def review_interactively(options: dict[str, Any]) -> Plan:
    """Show every site of a diff run and ask about it; exit 0 when nothing is to be written.

    The answers become an edited plan that ``apply`` applies as ``apply --plan`` would.
    """
    from unsentinel.core.model import Mode
    from unsentinel.registry import site_groups
    from unsentinel.review.interactive import review, stdio_terminal
    from unsentinel.review.site_change import site_changes

    shown = run_command(Mode.DIFF, dict(options), mark_review=options["mark_review"])
    if shown.result.failed:
        finish("apply", shown)  # the errors are printed; apply would write nothing
    if not options.get("allow_dirty"):
        _refuse_dirty(shown)
    color = shown.display.stderr_color()
    paths = tuple(p.as_posix() for p in options["paths"])
    changes = site_changes(shown.result.results, site_groups(shown.result))
    plan = review(changes, stdio_terminal(color=color), paths)
    if plan is None:
        sys.exit(OK)
    return plan


def _refuse_dirty(shown: Ran) -> None:
    """Ask about nothing that apply would then refuse to write."""
    from unsentinel.core.writer import dirty_files

    changed = [Path(r.path) for r in shown.result.results if r.changed]
    dirty = dirty_files(shown.config.root, changed)
    if dirty:
        fail(f"{dirty[0]} has uncommitted changes: commit first, or pass --allow-dirty")


def record_findings(ran: Ran, *, add_noqa: bool, baseline: Path | None) -> NoReturn:
    """``check --add-noqa`` / ``--write-baseline``: record today's findings, then exit 0."""
    from unsentinel.review.add_noqa import add_noqa as insert_noqa
    from unsentinel.review.baseline import write_baseline

    if ran.result.failed:
        finish("check", ran)  # the errors are printed; record nothing half-known
    if baseline is not None:
        count = write_baseline(baseline, ran.result.results)
        click.echo(f"baseline: {count} finding(s) recorded in {baseline}", err=True)
    if add_noqa:
        added, missed = insert_noqa(ran.result.results)
        for where in missed:
            click.echo(f"no place for a noqa comment: {where}", err=True)
        click.echo(f"added {added} noqa directive(s)", err=True)
    sys.exit(OK)


def without_baseline(ran: Ran, path: Path) -> Ran:
    """``check --baseline``: only the findings the baseline does not hold are reported."""
    from unsentinel.review.baseline import BaselineError, load_baseline, new_findings

    try:
        known = load_baseline(path)
    except BaselineError as exc:
        fail(str(exc))
    results, held = new_findings(ran.result.results, known)
    if not ran.display.quiet:
        click.echo(f"baseline: {held} known finding(s) not reported", err=True)
    return replace(ran, result=replace(ran.result, results=results))
