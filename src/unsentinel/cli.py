"""The command line: parses options, calls :func:`unsentinel.core.runner.run`, renders the result.

Exit codes follow ruff: 0 nothing to do, 1 findings or changes, 2 usage / config /
internal error, or files that could not be processed.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any, TypeVar

import click

from unsentinel.core.config import Config, ConfigError, load_config
from unsentinel.core.discovery import read_files_from
from unsentinel.core.lock import LockError
from unsentinel.core.model import Mode
from unsentinel.core.runner import Progress, RunResult
from unsentinel.core.writer import outside_root
from unsentinel.output import console as consoles
from unsentinel.output.diff import render_diffs
from unsentinel.output.summary import (
    print_change_summary,
    print_check_summary,
    print_errors,
    print_review_table,
    print_statistics,
)
from unsentinel.output.text import finding_lines
from unsentinel.registry import run

F = TypeVar("F", bound=Callable[..., Any])

PROGRESS_MIN_FILES = 200  # shorter runs finish before a bar is worth drawing


def common_options(func: F) -> F:
    """Options every command shares: what to look at and how."""
    options = [
        click.argument(
            "paths", nargs=-1, type=click.Path(path_type=Path, exists=False), required=False
        ),
        click.option(
            "--config",
            "config_file",
            type=click.Path(path_type=Path, dir_okay=False),
            help="Read settings from this TOML file instead of the nearest pyproject.toml.",
        ),
        click.option(
            "--exclude",
            multiple=True,
            metavar="GLOB",
            help="Replace the default excludes (.git, .venv, build, ...) with these globs.",
        ),
        click.option(
            "--extend-exclude",
            multiple=True,
            metavar="GLOB",
            help="Exclude these globs in addition to the defaults.",
        ),
        click.option(
            "--files-from",
            metavar="FILE",
            help="Also process the paths listed in FILE, one per line ('-' for stdin).",
        ),
        click.option(
            "--include-generated",
            is_flag=True,
            default=None,
            help="Process files marked @generated (skipped by default).",
        ),
        click.option("--select", multiple=True, metavar="CODE", help="Run only these rules."),
        click.option("--ignore", multiple=True, metavar="CODE", help="Don't run these rules."),
        click.option(
            "-j",
            "--jobs",
            type=click.IntRange(min=1),
            help="Worker processes (default: all cores; 1 runs in this process).",
        ),
        click.option(
            "--statistics",
            is_flag=True,
            help="Report files seen / prefiltered out / parsed / changed / failed.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version("unsentinel"), prog_name="unsentinel")
def main() -> None:
    """Migrate sentinel warnings and ad-hoc error dicts to structured models.

    \b
    unsentinel check src/     # list every site (exit 1 if any): for CI
    unsentinel diff src/      # show what apply would change; writes nothing
    unsentinel plan src/      # every site with its inferred severity/field_path/code
    unsentinel apply src/     # rewrite the files in place
    """


@main.command()
@common_options
def check(**options: Any) -> None:
    """Report every sentinel string, sentinel constant and other migratable site.

    Prints one `path:line:col: CODE message` line per finding on stdout and a summary on
    stderr. Exits 1 when anything is found, so it can guard CI or a pre-commit hook.

    \b
    Example:
      unsentinel check src/ tests/
    """
    _run_command(Mode.CHECK, options, _render_check)


@main.command()
@common_options
def diff(**options: Any) -> None:
    """Print the unified diff that `apply` would make, and write nothing.

    The diff is coloured on a terminal and plain (usable with `git apply`) otherwise.
    Low-confidence inferred values are listed in a review table on stderr.

    \b
    Example:
      unsentinel diff src/ > migration.patch
    """
    _run_command(Mode.DIFF, options, _render_diff)


@main.command()
@common_options
@click.option(
    "--allow-dirty",
    is_flag=True,
    help="Rewrite files even when they have uncommitted git changes.",
)
@click.option(
    "--emit-regression-test",
    "regression_test",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write a pytest module here that pins the new warning wire shape.",
)
def apply(**options: Any) -> None:
    """Rewrite the files in place (atomically), then summarise what changed.

    Refuses to touch a file with uncommitted git changes unless --allow-dirty is given, so
    the migration is always one reviewable diff away from the committed state.

    \b
    Example:
      unsentinel apply src/ tests/
    """
    _run_command(Mode.APPLY, options, _render_apply)


@main.command()
@common_options
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["json", "toml"]),
    default="json",
    show_default=True,
    help="Plan format.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the plan to this file instead of stdout.",
)
def plan(**options: Any) -> None:
    """List every site the rewrite would touch, with each inferred value and its confidence.

    \b
    Example:
      unsentinel plan src/ --format json -o plan.json
    """
    output_format = options.pop("output_format")
    output = options.pop("output")
    _run_command(
        Mode.PLAN,
        options,
        functools.partial(_render_plan, fmt=output_format, output=output),
        outputs=(output,) if output is not None else (),
    )


# -- plumbing -----------------------------------------------------------------------------


def _run_command(
    mode: Mode,
    options: dict[str, Any],
    render: Callable[[RunResult], None],
    *,
    outputs: tuple[Path, ...] = (),
) -> None:
    show_statistics = options.pop("statistics")
    allow_dirty = options.pop("allow_dirty", False)
    regression_test: Path | None = options.pop("regression_test", None)
    if regression_test is not None:
        outputs = (*outputs, regression_test)
    paths, config, files_from, jobs = _prepare(options)
    for output in outputs:
        if outside_root(output, config.root):
            click.echo(
                f"error: {output} is outside the project root {config.root}; unsentinel only "
                "writes inside the project (print to stdout and redirect instead)",
                err=True,
            )
            sys.exit(2)
    stderr = consoles.make_console(stderr=True)
    try:
        with _progress_bar() as progress:
            result = run(
                paths,
                config,
                mode,
                files_from=files_from,
                jobs=jobs,
                allow_dirty=allow_dirty,
                progress=progress,
                regression_test=regression_test,
            )
    except LockError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    render(result)
    print_errors(stderr, result)
    if show_statistics:
        print_statistics(stderr, result)
    sys.exit(result.exit_code)


def _prepare(options: dict[str, Any]) -> tuple[tuple[Path, ...], Config, list[str], int | None]:
    paths: tuple[Path, ...] = options.pop("paths")
    files_from_source = options.pop("files_from")
    if not paths and not files_from_source:
        raise click.UsageError("give at least one PATH (or --files-from FILE)")
    try:
        files_from = read_files_from(files_from_source) if files_from_source else []
    except OSError as exc:
        raise click.UsageError(f"cannot read --files-from {files_from_source}: {exc}") from exc
    overrides = {
        "exclude": tuple(options.pop("exclude")) or None,
        "extend_exclude": tuple(options.pop("extend_exclude")) or None,
        "select": tuple(options.pop("select")) or None,
        "ignore": tuple(options.pop("ignore")) or None,
        "include_generated": options.pop("include_generated"),
    }
    anchor = paths or tuple(Path(p) for p in files_from[:1])
    try:
        config = load_config(anchor, options.pop("config_file"), **overrides)
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    return paths, config, files_from, options.pop("jobs")


@contextlib.contextmanager
def _progress_bar() -> Iterator[Progress | None]:
    if not consoles.is_tty(stderr=True):
        yield None
        return
    from rich.progress import Progress as RichProgress

    with RichProgress(console=consoles.make_console(stderr=True), transient=True) as bar:

        def start(phase: str, total: int) -> Callable[[], None]:
            if total < PROGRESS_MIN_FILES:
                return lambda: None
            task = bar.add_task(phase, total=total)
            return lambda: bar.advance(task)

        yield start


def _render_check(result: RunResult) -> None:
    for line in finding_lines(result.results):
        click.echo(line)
    print_check_summary(consoles.make_console(stderr=True), result)


def _render_diff(result: RunResult) -> None:
    text = render_diffs(result.all_results, color=consoles.is_tty())
    if text:
        click.echo(text, nl=False)
    stderr = consoles.make_console(stderr=True)
    print_change_summary(stderr, result, applied=False)
    print_review_table(stderr, result)


def _render_apply(result: RunResult) -> None:
    stderr = consoles.make_console(stderr=True)
    if result.refused_dirty:
        return
    print_change_summary(stderr, result, applied=True)
    print_review_table(stderr, result)


def _render_plan(result: RunResult, *, fmt: str, output: Path | None) -> None:
    from unsentinel.output.plan import render_plan

    text = render_plan(result, fmt)
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        click.echo(f"plan written to {output}", err=True)
