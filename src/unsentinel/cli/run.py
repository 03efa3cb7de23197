"""Between the options and the library: load the configuration, run a mode, exit.

A command hands its parsed options here; this module turns them into the library's
arguments (:func:`unsentinel.registry.load_config`, :func:`unsentinel.registry.run`,
:func:`unsentinel.registry.run_plan`), prints the errors every command prints, and exits
through the table in :mod:`unsentinel.cli.exit_codes`. Everything it calls is usable from
Python without the CLI; what lives here is only the mapping of options and of exceptions
to messages.
"""

from __future__ import annotations

import contextlib
import difflib
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from unsentinel.cli.exit_codes import Outcome, exit_code, fail
from unsentinel.output import console as consoles
from unsentinel.output.console import ColorChoice

if TYPE_CHECKING:
    from unsentinel.core.config import Config
    from unsentinel.core.model import Mode
    from unsentinel.core.plan_file import Plan
    from unsentinel.core.runner import Progress, RunResult
    from unsentinel.output.console import Printer

PROGRESS_MIN_FILES = 200  # shorter runs finish before a bar is worth drawing


@dataclass(frozen=True)
class Display:
    """How a command talks: the options every command shares about output."""

    color: ColorChoice = ColorChoice.AUTO
    quiet: bool = False
    statistics: bool = False

    def stderr(self) -> Printer:
        """Summaries and errors; rich loads at the first line printed, if there is one."""
        return consoles.LazyConsole(stderr=True, color=self.stderr_color())

    def stderr_color(self) -> bool:
        return consoles.use_color(self.color, stderr=True)

    def stdout_color(self) -> bool:
        return consoles.use_color(self.color)


@dataclass(frozen=True)
class Ran:
    """A finished run with what rendering it needs: its configuration and display."""

    result: RunResult
    config: Config
    display: Display
    refused: tuple[str, ...] = ()  # apply --plan: entries whose source changed since


@dataclass(frozen=True)
class Settings:
    """Apply's options the library takes as keyword arguments (defaults for the others)."""

    allow_dirty: bool = False
    allow_partial: bool = False
    verify: str | None = None
    regression_test: Path | None = None
    update_schemas: bool = False

    @classmethod
    def take(cls, options: dict[str, Any]) -> Settings:
        """Pop these options: what is left in ``options`` is for the configuration."""
        return cls(
            options.pop("allow_dirty", False),
            options.pop("allow_partial", False),
            options.pop("verify", None),
            options.pop("regression_test", None),
            options.pop("update_schemas", False),
        )


def run_command(
    mode: Mode,
    options: dict[str, Any],
    *,
    plan: Plan | None = None,
    mark_review: bool = False,
    cache: bool = False,
    screen: bool = True,
) -> Ran:
    """Run ``mode`` and report the errors; the command renders the rest."""
    from unsentinel.output.summary import print_errors

    display = Display(
        ColorChoice(options.pop("color")), options.pop("quiet"), options.pop("statistics")
    )
    settings = Settings.take(options)
    paths, config, files_from, jobs = prepare(options)
    if settings.regression_test is not None:
        _refuse_outside_root(settings.regression_test, config.root)
    with _lock_and_plan_errors(), progress_bar(display) as progress:
        shared: dict[str, Any] = {
            "files_from": files_from,
            "jobs": jobs,
            "progress": progress,
            **vars(settings),
        }
        result, refused = _run(paths, config, mode, plan, shared, mark_review, cache, screen)
    print_refused(refused)
    print_errors(display.stderr(), result)
    return Ran(result, config, display, refused)


def _run(
    paths: tuple[Path, ...],
    config: Config,
    mode: Mode,
    plan: Plan | None,
    shared: dict[str, Any],
    mark_review: bool,
    cache: bool,
    screen: bool = True,
) -> tuple[RunResult, tuple[str, ...]]:
    """The library call: an edited plan's run, or a plain run of ``mode``."""
    from unsentinel.core.decisions import Decisions
    from unsentinel.registry import run, run_plan

    if plan is not None:
        return run_plan(paths, config, plan, mark_review=mark_review, **shared)
    decisions = Decisions(mark_review=True) if mark_review else None
    return run(paths, config, mode, decisions=decisions, cache=cache, screen=screen, **shared), ()


@contextlib.contextmanager
def _lock_and_plan_errors() -> Iterator[None]:
    """Another run holding the project lock, or a plan the source refutes: exit 2."""
    from unsentinel.core.lock import LockError
    from unsentinel.core.plan_file import PlanError

    try:
        yield
    except (LockError, PlanError) as exc:
        fail(str(exc))


def _refuse_outside_root(output: Path, root: Path) -> None:
    """unsentinel writes only inside the project it rewrites."""
    from unsentinel.core.writer import outside_root

    if outside_root(output, root):
        fail(
            f"{output} is outside the project root {root}; unsentinel only "
            "writes inside the project (print to stdout and redirect instead)"
        )


def finish(
    command: str,
    ran: Ran,
    *,
    exit_zero: bool = False,
    exit_non_zero_on_fix: bool = False,
) -> NoReturn:
    """Print the statistics if asked, then exit as the table says for ``command``."""
    if ran.display.statistics:
        from unsentinel.output.summary import print_statistics

        print_statistics(ran.display.stderr(), ran.result)
    outcome = Outcome.of(
        ran.result,
        refused=bool(ran.refused),
        exit_zero=exit_zero,
        exit_non_zero_on_fix=exit_non_zero_on_fix,
    )
    sys.exit(exit_code(command, outcome))


def prepare(options: dict[str, Any]) -> tuple[tuple[Path, ...], Config, list[str], int | None]:
    """The paths, the configuration with the command line's overrides, and the job count."""
    paths: tuple[Path, ...] = options.pop("paths")
    files_from_source = options.pop("files_from")
    if not paths and not files_from_source:
        raise click.UsageError("give at least one PATH (or --files-from FILE)")
    files_from = _read_files_from(files_from_source)
    overrides = {
        "exclude": tuple(options.pop("exclude")) or None,
        "extend_exclude": tuple(options.pop("extend_exclude")) or None,
        "select": tuple(options.pop("select")) or None,
        "ignore": tuple(options.pop("ignore")) or None,
        "include_generated": options.pop("include_generated"),
        "target_version": options.pop("target_version"),
    }
    anchor = paths or tuple(Path(p) for p in files_from[:1])
    config = _load_config(anchor, options.pop("config_file"), overrides)
    for key in ("select", "ignore"):
        where = f"--{key}" if overrides[key] else f"'{key}' in {config.source}"
        check_selectors(getattr(config, key), where)
    return paths, config, files_from, options.pop("jobs")


def _read_files_from(source: str | None) -> list[str]:
    """``--files-from``: the listed paths; unreadable is a usage error."""
    from unsentinel.core.discovery import read_files_from

    try:
        return read_files_from(source) if source else []
    except OSError as exc:
        raise click.UsageError(f"cannot read --files-from {source}: {exc}") from exc


def _load_config(anchor: tuple[Path, ...], config_file: Path | None, overrides: Any) -> Config:
    """The configuration with every feature's section; an invalid one exits 2."""
    from unsentinel.core.config_checks import ConfigError
    from unsentinel.registry import load_config

    try:
        return load_config(anchor, config_file, **overrides)
    except ConfigError as exc:
        fail(str(exc))


def check_selectors(selectors: tuple[str, ...], where: str) -> None:
    """A selector must select something: a code or a code prefix (``UNS``, ``UNS1``)."""
    from unsentinel import registry

    codes = sorted(registry.rule_codes())
    for selector in selectors:
        if not any(code.startswith(selector) for code in codes):
            fail(f"unknown rule selector {selector!r} in {where}{did_you_mean(selector, codes)}")


def did_you_mean(word: str, candidates: list[str]) -> str:
    """The closest rule code, or where to find the list: a typo should cost one glance."""
    close = difflib.get_close_matches(word.upper(), candidates, n=1, cutoff=0.5)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return " (`unsentinel rule --all` lists the rules)"


def load_plan(path: Path | None) -> Plan | None:
    """The edited plan for ``apply --plan``; an invalid one is an error naming its line."""
    if path is None:
        return None
    from unsentinel.core.plan_file import PlanError, load_plan

    try:
        return load_plan(path)
    except PlanError as exc:
        fail(str(exc))


def require_version_control(paths: tuple[Path, ...]) -> None:
    """Refuse, as `cargo fix` does, to rewrite a tree there is no committed state of."""
    from unsentinel.core.config import find_project_root
    from unsentinel.core.writer import is_version_controlled

    start = paths[0] if paths else Path.cwd()
    if not is_version_controlled(find_project_root(start)):
        fail(
            "not inside a version-controlled tree: apply rewrites files in place and there "
            "would be no committed state to return to; commit first, or pass --allow-no-vcs"
        )


@contextlib.contextmanager
def progress_bar(display: Display) -> Iterator[Progress | None]:
    """A transient bar on a terminal for long runs; nothing when quiet or piped."""
    if display.quiet or not consoles.is_tty(stderr=True):
        yield None
        return
    from rich.progress import Progress as RichProgress

    stderr = consoles.make_console(stderr=True, color=display.stderr_color())
    with RichProgress(console=stderr, transient=True) as bar:

        def start(phase: str, total: int) -> Callable[[], None]:
            if total < PROGRESS_MIN_FILES:
                return lambda: None
            task = bar.add_task(phase, total=total)
            return lambda: bar.advance(task)

        yield start


REFUSED_SHOWN = 20  # refused plan entries listed one by one; the rest are counted


def print_refused(refused: Sequence[str]) -> None:
    """``apply --plan``: the entries not applied because their source changed."""
    for entry in refused[:REFUSED_SHOWN]:
        click.echo(f"refused: {entry}", err=True)
    if len(refused) > REFUSED_SHOWN:
        click.echo(f"refused: ... and {len(refused) - REFUSED_SHOWN} more entries", err=True)
