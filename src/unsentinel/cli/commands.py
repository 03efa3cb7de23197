"""The commands: each parses its options and calls the library, nothing more.

Running is :mod:`unsentinel.cli.run`, printing :mod:`unsentinel.cli.render`, exiting
:mod:`unsentinel.cli.exit_codes`, asking and recording :mod:`unsentinel.cli.review`. The
docstrings are the ``--help`` texts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from unsentinel.cli import render, review
from unsentinel.cli.exit_codes import fail
from unsentinel.cli.options import (
    apply_options,
    check_options,
    common_options,
    diff_options,
    plan_options,
)
from unsentinel.cli.run import (
    did_you_mean,
    finish,
    load_plan,
    require_version_control,
    run_command,
)
from unsentinel.core.model import Mode


@click.command()
@common_options
@check_options
def check(**options: Any) -> None:
    """Report every sentinel string, sentinel constant and other migratable site.

    Prints one `path:line:col: CODE message` line per finding on stdout (or the
    --output-format) and a summary on stderr. Exits 1 when anything is found, so it can
    guard CI or a pre-commit hook; 2 on errors.

    \b
    Example:
      unsentinel check src/ tests/
      unsentinel check src/ --output-format github
    """
    from unsentinel.output.formats import OutputFormat

    fmt = OutputFormat(options.pop("output_format").lower())
    exit_zero = options.pop("exit_zero")
    add_noqa, baseline = options.pop("add_noqa"), options.pop("baseline")
    write_baseline = options.pop("write_baseline")
    screen = not options.pop("no_prefilter")
    ran = run_command(Mode.CHECK, options, cache=not options.pop("no_cache"), screen=screen)
    if add_noqa or write_baseline:
        review.record_findings(ran, add_noqa=add_noqa, baseline=write_baseline)
    if baseline is not None:
        ran = review.without_baseline(ran, baseline)
    render.render_check(ran, fmt)
    finish("check", ran, exit_zero=exit_zero)


@click.command()
@common_options
@diff_options
def diff(**options: Any) -> None:
    """Print the unified diff that `apply` would make, and write nothing.

    The diff is coloured on a terminal and plain (usable with `git apply`) otherwise.
    Low-confidence inferred values are listed in a review table on stderr. Exits 1 when
    there is something to change (0 with --exit-zero), 0 when there is not, 2 on errors.

    \b
    Example:
      unsentinel diff src/ > migration.patch
      unsentinel diff src/ --stat
    """
    stat = options.pop("stat")
    exit_zero = options.pop("exit_zero")
    ran = run_command(Mode.DIFF, options, mark_review=options.pop("mark_review"))
    render.render_diff(ran, stat=stat)
    finish("diff", ran, exit_zero=exit_zero)


@click.command()
@common_options
@apply_options
def apply(**options: Any) -> None:
    """Rewrite the files in place, all or nothing, then summarise what changed.

    Every new text is computed before anything is written: if any file fails, nothing is
    written. Refuses to touch a file with uncommitted git changes unless --allow-dirty is
    given, and a tree outside version control unless --allow-no-vcs is. A journal of the
    run lets `unsentinel undo` restore it exactly. Exits 0 once everything is written, 2
    when something could not be.

    \b
    Example:
      unsentinel apply src/ tests/
      unsentinel apply src/ --verify "pytest -q"
      unsentinel undo
    """
    exit_non_zero_on_fix = options.pop("exit_non_zero_on_fix")
    interactive = options.pop("interactive")
    if interactive:
        review.require_terminal(options["plan_file"])
    plan = load_plan(options.pop("plan_file"))
    if plan is not None and not options["paths"] and not options["files_from"]:
        options["paths"] = tuple(Path(p) for p in plan.paths)  # what the plan was made over
    if not options.pop("allow_no_vcs"):
        require_version_control(options["paths"])
    if interactive:
        plan = review.review_interactively(options)  # the answers, as an edited plan
    ran = run_command(Mode.APPLY, options, plan=plan, mark_review=options.pop("mark_review"))
    render.render_apply(ran)
    finish("apply", ran, exit_non_zero_on_fix=exit_non_zero_on_fix)


@click.command()
@common_options
@plan_options
def plan(**options: Any) -> None:
    """List every site the rewrite would touch, with each inferred value and its confidence.

    \b
    Example:
      unsentinel plan src/ --format json -o plan.json
    """
    output_format = options.pop("output_format")
    output = options.pop("output")
    paths = tuple(p.as_posix() for p in options["paths"])
    ran = run_command(Mode.PLAN, options)  # a plan is not project source: -o writes anywhere
    render.render_plan(ran, fmt=output_format, output=output, paths=paths)
    finish("plan", ran)


@click.command()
@click.argument("path", required=False, type=click.Path(path_type=Path, file_okay=False))
def undo(path: Path | None) -> None:
    """Restore every file the last `apply` wrote, exactly as it was before.

    Refuses, naming the file, when a file changed since the apply (undo never overwrites
    later work). PATH is a directory inside the project (default: the current one).

    \b
    Example:
      unsentinel undo
    """
    from unsentinel.core import journal
    from unsentinel.core.config import find_project_root

    root = find_project_root(path or Path.cwd())
    try:
        restored = journal.undo(root)
    except journal.UndoError as exc:
        fail(str(exc))
    for name in restored:
        click.echo(f"restored {name}", err=True)
    click.echo(f"undone: {len(restored)} file(s) restored", err=True)


@click.command()
@click.argument("path", required=False, type=click.Path(path_type=Path, file_okay=False))
def clean(path: Path | None) -> None:
    """Remove the check cache (.unsentinel_cache/) of the project holding PATH.

    Safe at any time, as `ruff clean` is: the next `check` computes what it needs again.
    The cache also sweeps itself (entries no run used for two weeks). PATH is a directory
    inside the project (default: the current one).

    \b
    Example:
      unsentinel clean
    """
    from unsentinel.core.cache import CACHE_DIR, remove_cache
    from unsentinel.core.config import find_project_root

    root = find_project_root(path or Path.cwd())
    try:
        removed = remove_cache(root)
    except OSError as exc:
        fail(f"cannot remove {root / CACHE_DIR}: {exc}")
    click.echo(f"{'removed' if removed else 'no cache at'} {root / CACHE_DIR}", err=True)


@click.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="Print every rule's documentation.")
def rule(code: str | None, show_all: bool) -> None:
    """Print a rule's documentation: what it does, why, an example and its fix.

    \b
    Example:
      unsentinel rule UNS101
      unsentinel rule --all
    """
    from unsentinel import registry
    from unsentinel.output.rule_doc import documentation

    rules = registry.ALL_RULES
    if show_all == (code is not None):
        raise click.UsageError("give one rule CODE, or --all")
    if code is None:
        click.echo("\n".join(documentation(r) for r in rules), nl=False)
        return
    codes = [r.code for r in rules]
    chosen = [r for r in rules if r.code == code.upper()]
    if not chosen:
        fail(f"unknown rule {code!r}{did_you_mean(code, codes)}")
    click.echo(documentation(chosen[0]), nl=False)


COMMANDS = (check, diff, apply, plan, undo, clean, rule)
