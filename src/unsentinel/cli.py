"""The command line: parses options, calls :func:`unsentinel.registry.run`, renders the result.

Exit codes follow ruff: 2 on a usage, configuration or internal error, or a file that
could not be processed; otherwise ``check`` exits 1 on findings, ``diff`` 1 when there is
something to change, ``apply`` 0 once everything is written (1 with
``--exit-non-zero-on-fix``), ``plan`` 0.
"""

from __future__ import annotations

import contextlib
import difflib
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from unsentinel.core.config import Config, ConfigError, find_project_root
from unsentinel.core.lock import LockError
from unsentinel.core.model import Mode
from unsentinel.output import console as consoles
from unsentinel.output.console import ColorChoice

if TYPE_CHECKING:
    from rich.console import Console

    from unsentinel.core.decisions import Plan
    from unsentinel.core.runner import Progress, RunResult
    from unsentinel.output.findings import Finding, Fix, RuleInfo
    from unsentinel.output.formats import OutputFormat

# The engine, the rules (and LibCST with them), the writers and rich load inside the
# commands that need them: `unsentinel --version` and `--help` stay quick.
OUTPUT_FORMATS = ("text", "concise", "full", "json", "github", "sarif", "junit", "gitlab")

F = TypeVar("F", bound=Callable[..., Any])

REFUSED_SHOWN = 20  # refused plan entries listed one by one; the rest are counted
PROGRESS_MIN_FILES = 200  # shorter runs finish before a bar is worth drawing


def common_options(func: F) -> F:
    """Options every command shares: what to look at and how to report it."""
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
        click.option(
            "--select", multiple=True, metavar="CODE", help="Run only these rules (or prefixes)."
        ),
        click.option(
            "--target-version",
            metavar="pyNNN",
            help="The lowest Python the output must be valid for (e.g. py310); default: "
            "from requires-python.",
        ),
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
            help="Also report findings per rule and files seen / prefiltered out / parsed / "
            "changed / failed.",
        ),
        click.option(
            "-q",
            "--quiet",
            is_flag=True,
            help="Print data and errors only: no summary, no progress bar.",
        ),
        click.option(
            "--color",
            type=click.Choice([c.value for c in ColorChoice]),
            default=ColorChoice.AUTO.value,
            show_default=True,
            help="Colour the output; 'auto' honours NO_COLOR and FORCE_COLOR, then the terminal.",
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
    unsentinel rule UNS101    # what a rule does, and why
    """


@main.command()
@common_options
@click.option(
    "--output-format",
    type=click.Choice(OUTPUT_FORMATS, case_sensitive=False),
    default="text",
    show_default=True,
    envvar="UNSENTINEL_OUTPUT_FORMAT",
    show_envvar=True,
    help="How to print findings: one line each (text, concise), with the source line (full), "
    "or for a tool (json, github annotations, sarif, junit, gitlab Code Quality).",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option(
    "--no-cache",
    is_flag=True,
    envvar="UNSENTINEL_NO_CACHE",
    show_envvar=True,
    help="Neither read nor write the check cache (.unsentinel_cache/ in the project root).",
)
@click.option(
    "--add-noqa",
    is_flag=True,
    help="Insert `# noqa: CODE` for every current finding (existing comments are kept).",
)
@click.option(
    "--baseline",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Fail only on findings not recorded in this baseline file.",
)
@click.option(
    "--write-baseline",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Record the current findings in this file (for --baseline) and exit 0.",
)
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
    ran = _run_command(Mode.CHECK, options, cache=not options.pop("no_cache"))
    if add_noqa or write_baseline:
        _record_findings(ran, add_noqa=add_noqa, baseline=write_baseline)
    if baseline is not None:
        ran = _without_baseline(ran, baseline)
    _render_check(ran, fmt)
    _exit(ran, verdict=bool(ran.result.findings) and not exit_zero)


@main.command()
@common_options
@click.option("--stat", is_flag=True, help="Print lines added and removed per file, not the diff.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there is something to change.")
@click.option(
    "--mark-review",
    is_flag=True,
    help="Show the `# TODO(unsentinel)` review markers `apply` leaves (on by default there).",
)
@click.option(
    "--update-schemas",
    is_flag=True,
    help="Preview the JSON Schema / OpenAPI files `apply --update-schemas` would update "
    "(without it, each schema the migration breaks is listed as held for manual change).",
)
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
    ran = _run_command(Mode.DIFF, options, mark_review=options.pop("mark_review"))
    _render_diff(ran, stat=stat)
    _exit(ran, verdict=bool(ran.result.changed) and not exit_zero)


@main.command()
@common_options
@click.option(
    "--allow-dirty",
    is_flag=True,
    help="Rewrite files even when they have uncommitted git changes.",
)
@click.option(
    "--update-schemas",
    is_flag=True,
    help="Also update JSON Schema / OpenAPI files that declare `warnings` as strings or "
    "`error` as a string; without it each such location is reported, held for manual change.",
)
@click.option(
    "--emit-regression-test",
    "regression_test",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write a pytest module here that pins the new warning wire shape.",
)
@click.option(
    "--exit-non-zero-on-fix",
    is_flag=True,
    help="Exit 1 when files were rewritten (as a pre-commit hook wants).",
)
@click.option(
    "--allow-partial",
    is_flag=True,
    help="When some files fail, still write the others, except those that share flow with a "
    "failed file (each held back is listed with the reason).",
)
@click.option(
    "--allow-no-vcs",
    is_flag=True,
    envvar="UNSENTINEL_ALLOW_NO_VCS",
    help="Apply even outside a version-controlled tree (there is no committed state to return to).",
)
@click.option(
    "--verify",
    "verify",
    metavar="CMD",
    help='Run CMD (e.g. "pytest -q") before and after writing; if anything that passed before '
    "fails after, roll the whole apply back and say what broke. Runs your code: only on request.",
)
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Apply exactly this edited plan (from `unsentinel plan -o FILE`); sites it skips or "
    "does not know are left alone, entries whose source changed are refused.",
)
@click.option(
    "--mark-review/--no-mark-review",
    default=True,
    show_default=True,
    help="Leave a `# TODO(unsentinel)` comment on each rewritten line with a low-confidence "
    "value (`check` reports them as UNS901).",
)
@click.option(
    "-i",
    "--interactive",
    is_flag=True,
    help="Review each site before writing: accept, skip, edit a value, accept the rest of the "
    "file, or quit; only what you accept is written (needs a terminal).",
)
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
        _require_terminal(options["plan_file"])
    plan = _load_plan(options.pop("plan_file"))
    if plan is not None and not options["paths"] and not options["files_from"]:
        options["paths"] = tuple(Path(p) for p in plan.paths)  # what the plan was made over
    if not options.pop("allow_no_vcs"):
        _require_version_control(options["paths"])
    if interactive:
        plan = _review_interactively(options)  # the answers, as an edited plan
    ran = _run_command(Mode.APPLY, options, plan=plan, mark_review=options.pop("mark_review"))
    _render_apply(ran)
    verdict = exit_non_zero_on_fix and bool(ran.result.written)
    _exit(ran, verdict=verdict or bool(ran.refused))  # a refused plan entry was not applied


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
    paths = tuple(p.as_posix() for p in options["paths"])
    ran = _run_command(Mode.PLAN, options)  # a plan is not project source: -o writes anywhere
    _render_plan(ran, fmt=output_format, output=output, paths=paths)
    _exit(ran, verdict=False)


@main.command()
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

    root = find_project_root(path or Path.cwd())
    try:
        restored = journal.undo(root)
    except journal.UndoError as exc:
        _fail(str(exc))
    for name in restored:
        click.echo(f"restored {name}", err=True)
    click.echo(f"undone: {len(restored)} file(s) restored", err=True)


def _require_terminal(plan_file: Path | None) -> None:
    """``apply --interactive`` asks a person: refuse a pipe, CI, and a second plan."""
    from unsentinel.review.interactive import NO_TERMINAL, has_terminal

    if plan_file is not None:
        raise click.UsageError("--interactive and --plan both decide what to write: choose one")
    if not has_terminal():
        _fail(NO_TERMINAL)


def _review_interactively(options: dict[str, Any]) -> Plan:
    """Show every site of a diff run and ask about it; exit 0 when nothing is to be written.

    The answers become an edited plan that ``apply`` applies as ``apply --plan`` would.
    """
    from unsentinel.core.writer import dirty_files
    from unsentinel.registry import site_groups
    from unsentinel.review.interactive import review, stdio_terminal
    from unsentinel.review.site_change import site_changes

    shown = _run_command(Mode.DIFF, dict(options), mark_review=options["mark_review"])
    if shown.result.failed:
        _exit(shown, verdict=False)  # the errors are printed; apply would write nothing
    if not options.get("allow_dirty"):
        changed = [Path(r.path) for r in shown.result.results if r.changed]
        dirty = dirty_files(shown.config.root, changed)
        if dirty:
            _fail(f"{dirty[0]} has uncommitted changes: commit first, or pass --allow-dirty")
    color = consoles.use_color(shown.display.color, stderr=True)
    paths = tuple(p.as_posix() for p in options["paths"])
    changes = site_changes(shown.result.results, site_groups(shown.result))
    plan = review(changes, stdio_terminal(color=color), paths)
    if plan is None:
        sys.exit(0)
    return plan


def _require_version_control(paths: tuple[Path, ...]) -> None:
    """Refuse, as `cargo fix` does, to rewrite a tree there is no committed state of."""
    from unsentinel.core.writer import is_version_controlled

    start = paths[0] if paths else Path.cwd()
    if not is_version_controlled(find_project_root(start)):
        _fail(
            "not inside a version-controlled tree: apply rewrites files in place and there "
            "would be no committed state to return to; commit first, or pass --allow-no-vcs"
        )


@main.command()
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
        _fail(f"unknown rule {code!r}{_did_you_mean(code, codes)}")
    click.echo(documentation(chosen[0]), nl=False)


# -- plumbing -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Display:
    """How a command talks: the options every command shares about output."""

    color: ColorChoice = ColorChoice.AUTO
    quiet: bool = False
    statistics: bool = False

    def stderr(self) -> Console:
        return consoles.make_console(stderr=True, color=consoles.use_color(self.color, stderr=True))

    def stdout_color(self) -> bool:
        return consoles.use_color(self.color)


@dataclass(frozen=True)
class Ran:
    result: RunResult
    config: Config
    display: Display
    refused: tuple[str, ...] = ()  # apply --plan: entries whose source changed since


def _record_findings(ran: Ran, *, add_noqa: bool, baseline: Path | None) -> NoReturn:
    """``check --add-noqa`` / ``--write-baseline``: record today's findings, then exit 0."""
    from unsentinel.review.add_noqa import add_noqa as insert_noqa
    from unsentinel.review.baseline import write_baseline

    if ran.result.failed:
        _exit(ran, verdict=False)  # the errors are printed; record nothing half-known
    if baseline is not None:
        count = write_baseline(baseline, ran.result.results)
        click.echo(f"baseline: {count} finding(s) recorded in {baseline}", err=True)
    if add_noqa:
        added, missed = insert_noqa(ran.result.results)
        for where in missed:
            click.echo(f"no place for a noqa comment: {where}", err=True)
        click.echo(f"added {added} noqa directive(s)", err=True)
    sys.exit(0)


def _without_baseline(ran: Ran, path: Path) -> Ran:
    """``check --baseline``: only the findings the baseline does not hold are reported."""
    from unsentinel.review.baseline import BaselineError, load_baseline, new_findings

    try:
        known = load_baseline(path)
    except BaselineError as exc:
        _fail(str(exc))
    results, held = new_findings(ran.result.results, known)
    if not ran.display.quiet:
        click.echo(f"baseline: {held} known finding(s) not reported", err=True)
    return replace(ran, result=replace(ran.result, results=results))


def _load_plan(path: Path | None) -> Plan | None:
    """The edited plan for ``apply --plan``; an invalid one is an error naming its line."""
    if path is None:
        return None
    from unsentinel.core.decisions import PlanError, load_plan

    try:
        return load_plan(path)
    except PlanError as exc:
        _fail(str(exc))


def _run_command(
    mode: Mode,
    options: dict[str, Any],
    *,
    outputs: tuple[Path, ...] = (),
    plan: Plan | None = None,
    mark_review: bool = False,
    cache: bool = False,
) -> Ran:
    """Run ``mode`` and report the errors; the command renders the rest."""
    from unsentinel.core.decisions import Decisions, PlanError
    from unsentinel.core.writer import outside_root
    from unsentinel.output.summary import print_errors
    from unsentinel.registry import run, run_plan

    display = Display(
        ColorChoice(options.pop("color")), options.pop("quiet"), options.pop("statistics")
    )
    allow_dirty = options.pop("allow_dirty", False)
    allow_partial = options.pop("allow_partial", False)
    verify: str | None = options.pop("verify", None)
    regression_test: Path | None = options.pop("regression_test", None)
    update_schemas: bool = options.pop("update_schemas", False)
    if regression_test is not None:
        outputs = (*outputs, regression_test)
    paths, config, files_from, jobs = _prepare(options)
    for output in outputs:
        if outside_root(output, config.root):
            _fail(
                f"{output} is outside the project root {config.root}; unsentinel only "
                "writes inside the project (print to stdout and redirect instead)"
            )
    refused: tuple[str, ...] = ()
    try:
        with _progress_bar(display) as progress:
            shared: dict[str, Any] = {
                "files_from": files_from,
                "jobs": jobs,
                "allow_dirty": allow_dirty,
                "allow_partial": allow_partial,
                "verify": verify,
                "progress": progress,
                "regression_test": regression_test,
                "update_schemas": update_schemas,
            }
            if plan is not None:
                result, refused = run_plan(paths, config, plan, mark_review=mark_review, **shared)
            else:
                decisions = Decisions(mark_review=True) if mark_review else None
                result = run(paths, config, mode, decisions=decisions, cache=cache, **shared)
    except (LockError, PlanError) as exc:
        _fail(str(exc))
    for entry in refused[:REFUSED_SHOWN]:
        click.echo(f"refused: {entry}", err=True)
    if len(refused) > REFUSED_SHOWN:
        click.echo(f"refused: ... and {len(refused) - REFUSED_SHOWN} more entries", err=True)
    print_errors(display.stderr(), result)
    return Ran(result, config, display, refused)


def _exit(ran: Ran, *, verdict: bool) -> NoReturn:
    """2 on any error; else 1 when the command's verdict is "something to do", else 0."""
    if ran.display.statistics:
        from unsentinel.output.summary import print_statistics

        print_statistics(ran.display.stderr(), ran.result)
    result = ran.result
    if result.failed or result.refused_dirty or result.held_back:
        sys.exit(2)
    sys.exit(1 if verdict else 0)


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def _prepare(options: dict[str, Any]) -> tuple[tuple[Path, ...], Config, list[str], int | None]:
    paths: tuple[Path, ...] = options.pop("paths")
    files_from_source = options.pop("files_from")
    if not paths and not files_from_source:
        raise click.UsageError("give at least one PATH (or --files-from FILE)")
    from unsentinel.core.discovery import read_files_from

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
        "target_version": options.pop("target_version"),
    }
    from unsentinel.registry import load_config  # with every feature's section

    anchor = paths or tuple(Path(p) for p in files_from[:1])
    try:
        config = load_config(anchor, options.pop("config_file"), **overrides)
    except ConfigError as exc:
        _fail(str(exc))
    for key in ("select", "ignore"):
        where = f"--{key}" if overrides[key] else f"'{key}' in {config.source}"
        _check_selectors(getattr(config, key), where)
    return paths, config, files_from, options.pop("jobs")


def _check_selectors(selectors: tuple[str, ...], where: str) -> None:
    """A selector must select something: a code or a code prefix (``UNS``, ``UNS1``)."""
    from unsentinel import registry

    codes = sorted(rule.code for rule in registry.ALL_RULES)
    for selector in selectors:
        if not any(code.startswith(selector) for code in codes):
            _fail(f"unknown rule selector {selector!r} in {where}{_did_you_mean(selector, codes)}")


def _did_you_mean(word: str, candidates: list[str]) -> str:
    close = difflib.get_close_matches(word.upper(), candidates, n=1, cutoff=0.5)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return " (`unsentinel rule --all` lists the rules)"


def _rule_info(config: Config) -> dict[str, RuleInfo]:
    from unsentinel import registry
    from unsentinel.output.findings import RuleInfo

    return {r.code: RuleInfo(r.code, r.name, r.summary) for r in registry.enabled_rules(config)}


@contextlib.contextmanager
def _progress_bar(display: Display) -> Iterator[Progress | None]:
    if display.quiet or not consoles.is_tty(stderr=True):
        yield None
        return
    from rich.progress import Progress as RichProgress

    with RichProgress(console=display.stderr(), transient=True) as bar:

        def start(phase: str, total: int) -> Callable[[], None]:
            if total < PROGRESS_MIN_FILES:
                return lambda: None
            task = bar.add_task(phase, total=total)
            return lambda: bar.advance(task)

        yield start


COLORED_FORMATS = frozenset({"text", "concise", "full"})


def _render_check(ran: Ran, fmt: OutputFormat) -> None:
    from unsentinel.output import formats
    from unsentinel.output.findings import collect
    from unsentinel.output.summary import print_check_summary, print_rule_statistics

    result = ran.result
    found = collect(result.results)
    text = formats.render(
        fmt,
        found,
        rules=_rule_info(ran.config),
        checked=[r.path for r in result.results],
        version=version("unsentinel"),
        color=fmt.value in COLORED_FORMATS and ran.display.stdout_color(),
        fixes=_sarif_fixes(ran, found) if fmt is formats.OutputFormat.SARIF else None,
    )
    if text:
        click.echo(text, nl=False, color=True)
    stderr = ran.display.stderr()
    if ran.display.statistics:
        print_rule_statistics(stderr, found, _rule_info(ran.config))
    if not ran.display.quiet:
        print_check_summary(stderr, result)


def _sarif_fixes(ran: Ran, found: Sequence[Finding]) -> dict[str, Fix]:
    """What ``apply`` would write in each file with a finding: SARIF's fixes.

    ``check`` itself never rewrites; only this format pays for a diff run (gather pass and
    rewrite, as ``apply`` runs them, review markers included) over the same files.
    """
    from unsentinel.core.decisions import Decisions
    from unsentinel.output.findings import fixes
    from unsentinel.registry import run

    wanted = {f.path for f in found if f.action != "skip"}
    if not wanted:
        return {}
    paths = [Path(r.path) for r in ran.result.results]
    diff = run(paths, ran.config, Mode.DIFF, decisions=Decisions(mark_review=True))
    return {path: fix for path, fix in fixes(diff.results, diff.emitted).items() if path in wanted}


def _render_diff(ran: Ran, *, stat: bool) -> None:
    from unsentinel.output.diff import render_diffs, render_stat
    from unsentinel.output.summary import print_change_summary, print_review_table

    color = ran.display.stdout_color()
    results = ran.result.all_results
    text = render_stat(results, color=color) if stat else render_diffs(results, color=color)
    if text:
        click.echo(text, nl=False, color=True)
    if not ran.display.quiet:
        stderr = ran.display.stderr()
        print_change_summary(stderr, ran.result, applied=False)
        print_review_table(stderr, ran.result)


def _render_apply(ran: Ran) -> None:
    result = ran.result
    if ran.display.quiet or result.refused_dirty or result.held_back:
        return
    from unsentinel.output.summary import print_change_summary, print_review_table

    stderr = ran.display.stderr()
    print_change_summary(stderr, result, applied=True)
    print_review_table(stderr, result)


def _render_plan(ran: Ran, *, fmt: str, output: Path | None, paths: tuple[str, ...] = ()) -> None:
    from unsentinel.output.plan import render_plan

    text = render_plan(ran.result, fmt, paths)
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        if not ran.display.quiet:
            click.echo(f"plan written to {output}", err=True)
