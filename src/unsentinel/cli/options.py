"""The commands' options, each spelled once.

Every command shares :func:`common_options`; ``--exit-zero``, ``--update-schemas`` and
``--mark-review`` appear on more than one command with wording of their own, so they are
factories here. Each command's own options are grouped in one decorator
(:data:`check_options`, ...), which keeps ``commands.py`` to parsing and calling. The order
of the options in a stack is the order ``--help`` lists them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from unsentinel.output.console import ColorChoice

# The engine, the rules (and LibCST with them), the writers and rich load inside the
# commands that need them: `unsentinel --version` and `--help` stay quick.
OUTPUT_FORMATS = ("text", "concise", "full", "json", "github", "sarif", "junit", "gitlab")

F = TypeVar("F", bound=Callable[..., Any])
Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def a_file() -> click.Path:
    """A file to read or write (never a directory); commands receive a ``Path``."""
    return click.Path(path_type=Path, dir_okay=False)


def stack(*decorators: Decorator) -> Callable[[F], F]:
    """Apply ``decorators`` so that the first one listed is the first one ``--help`` shows."""

    def apply(func: F) -> F:
        decorated: Callable[..., Any] = func
        for decorator in reversed(decorators):
            decorated = decorator(decorated)
        return decorated  # type: ignore[return-value]

    return apply


def exit_zero(help: str) -> Decorator:
    """``--exit-zero``: check and diff say in their own words what it silences."""
    return click.option("--exit-zero", is_flag=True, help=help)


def update_schemas(help: str) -> Decorator:
    """``--update-schemas``: diff previews what apply writes."""
    return click.option("--update-schemas", is_flag=True, help=help)


common_options = stack(
    click.argument(
        "paths", nargs=-1, type=click.Path(path_type=Path, exists=False), required=False
    ),
    click.option(
        "--config",
        "config_file",
        type=a_file(),
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
)
"""Options every command shares: what to look at and how to report it."""

check_options = stack(
    click.option(
        "--output-format",
        type=click.Choice(OUTPUT_FORMATS, case_sensitive=False),
        default="text",
        show_default=True,
        envvar="UNSENTINEL_OUTPUT_FORMAT",
        show_envvar=True,
        help="How to print findings: one line each (text, concise), with the source line "
        "(full), or for a tool (json, github annotations, sarif, junit, gitlab Code Quality).",
    ),
    exit_zero("Exit 0 even when there are findings."),
    click.option(
        "--no-cache",
        is_flag=True,
        envvar="UNSENTINEL_NO_CACHE",
        show_envvar=True,
        help="Neither read nor write the check cache (.unsentinel_cache/ in the project root).",
    ),
    click.option(
        "--no-prefilter",
        is_flag=True,
        hidden=True,  # a soundness test of the prefilter (benchmarks/ecosystem.py), not a knob
        help="Send every file that parses to the rules (slow; no cache).",
    ),
    click.option(
        "--add-noqa",
        is_flag=True,
        help="Insert `# noqa: CODE` for every current finding (existing comments are kept).",
    ),
    click.option(
        "--baseline",
        type=click.Path(path_type=Path, dir_okay=False, exists=True),
        help="Fail only on findings not recorded in this baseline file.",
    ),
    click.option(
        "--write-baseline",
        type=a_file(),
        help="Record the current findings in this file (for --baseline) and exit 0.",
    ),
)

diff_options = stack(
    click.option(
        "--stat", is_flag=True, help="Print lines added and removed per file, not the diff."
    ),
    exit_zero("Exit 0 even when there is something to change."),
    click.option(
        "--mark-review",
        is_flag=True,
        help="Show the `# TODO(unsentinel)` review markers `apply` leaves (on by default there).",
    ),
    update_schemas(
        "Preview the JSON Schema / OpenAPI files `apply --update-schemas` would update "
        "(without it, each schema the migration breaks is listed as held for manual change)."
    ),
)

apply_options = stack(
    click.option(
        "--allow-dirty",
        is_flag=True,
        help="Rewrite files even when they have uncommitted git changes.",
    ),
    update_schemas(
        "Also update JSON Schema / OpenAPI files that declare `warnings` as strings or "
        "`error` as a string; without it each such location is reported, held for manual "
        "change."
    ),
    click.option(
        "--emit-regression-test",
        "regression_test",
        type=a_file(),
        help="Also write a pytest module here that pins the new warning wire shape.",
    ),
    click.option(
        "--exit-non-zero-on-fix",
        is_flag=True,
        help="Exit 1 when files were rewritten (as a pre-commit hook wants).",
    ),
    click.option(
        "--allow-partial",
        is_flag=True,
        help="When some files fail, still write the others, except those that share flow "
        "with a failed file (each held back is listed with the reason).",
    ),
    click.option(
        "--allow-no-vcs",
        is_flag=True,
        envvar="UNSENTINEL_ALLOW_NO_VCS",
        help="Apply even outside a version-controlled tree (there is no committed state to "
        "return to).",
    ),
    click.option(
        "--verify",
        "verify",
        metavar="CMD",
        help='Run CMD (e.g. "pytest -q") before and after writing; if anything that passed '
        "before fails after, roll the whole apply back and say what broke. Runs your code: "
        "only on request.",
    ),
    click.option(
        "--plan",
        "plan_file",
        type=a_file(),
        help="Apply exactly this edited plan (from `unsentinel plan -o FILE`); sites it skips "
        "or does not know are left alone, entries whose source changed are refused.",
    ),
    click.option(
        "--mark-review/--no-mark-review",
        default=True,
        show_default=True,
        help="Leave a `# TODO(unsentinel)` comment on each rewritten line with a "
        "low-confidence value (`check` reports them as UNS901).",
    ),
    click.option(
        "-i",
        "--interactive",
        is_flag=True,
        help="Review each site before writing: accept, skip, edit a value, accept the rest of "
        "the file, or quit; only what you accept is written (needs a terminal).",
    ),
)

plan_options = stack(
    click.option(
        "--format",
        "output_format",
        type=click.Choice(["json", "toml"]),
        default="json",
        show_default=True,
        help="Plan format.",
    ),
    click.option(
        "-o",
        "--output",
        type=a_file(),
        help="Write the plan to this file instead of stdout.",
    ),
)
