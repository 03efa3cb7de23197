"""What each command prints: data on stdout, summaries and notes on stderr.

The formats themselves live in :mod:`unsentinel.output`; this module picks them per
command and per option (``--quiet``, ``--statistics``, ``--stat``, ``-o``), so that the
output modules stay free of command-line concerns.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from unsentinel.cli.run import Ran
    from unsentinel.core.config import Config
    from unsentinel.output.findings import Finding, Fix, RuleInfo
    from unsentinel.output.formats import OutputFormat

COLORED_FORMATS = frozenset({"text", "concise", "full"})


def render_check(ran: Ran, fmt: OutputFormat) -> None:
    """Findings on stdout in ``fmt``; rule statistics and the summary on stderr."""
    from unsentinel.output import formats
    from unsentinel.output.findings import collect
    from unsentinel.output.summary import print_check_summary, print_rule_statistics

    result = ran.result
    found = collect(result.results)
    text = formats.render(
        fmt,
        found,
        rules=_RuleInfos(ran.config),
        checked=[r.path for r in result.results],
        version=version("unsentinel"),
        color=fmt.value in COLORED_FORMATS and ran.display.stdout_color(),
        fixes=_sarif_fixes(ran, found) if fmt is formats.OutputFormat.SARIF else None,
    )
    if text:
        click.echo(text, nl=False, color=True)
    stderr = ran.display.stderr()
    if ran.display.statistics:
        print_rule_statistics(stderr, found, rule_info(ran.config))
    if not ran.display.quiet:
        print_check_summary(stderr, result)


def rule_info(config: Config) -> dict[str, RuleInfo]:
    """Code, name and summary of each enabled rule, as the output formats name them."""
    from unsentinel import registry
    from unsentinel.output.findings import RuleInfo

    return {r.code: RuleInfo(r.code, r.name, r.summary) for r in registry.enabled_rules(config)}


class _RuleInfos(Mapping[str, "RuleInfo"]):
    """:func:`rule_info`, built on first read: it imports every rule class (and LibCST),
    and most formats never read it."""

    def __init__(self, config: Config) -> None:
        self._config = config

    @cached_property
    def _infos(self) -> dict[str, RuleInfo]:
        return rule_info(self._config)

    def __getitem__(self, code: str) -> RuleInfo:
        return self._infos[code]

    def __iter__(self) -> Iterator[str]:
        return iter(self._infos)

    def __len__(self) -> int:
        return len(self._infos)


def _sarif_fixes(ran: Ran, found: Sequence[Finding]) -> dict[str, Fix]:
    """What ``apply`` would write in each file with a finding: SARIF's fixes.

    ``check`` itself never rewrites; only this format pays for a diff run (gather pass and
    rewrite, as ``apply`` runs them, review markers included) over the same files.
    """
    from unsentinel.core.decisions import Decisions
    from unsentinel.core.model import Mode
    from unsentinel.output.findings import fixes
    from unsentinel.registry import run

    wanted = {f.path for f in found if f.action != "skip"}
    if not wanted:
        return {}
    paths = [Path(r.path) for r in ran.result.results]
    diff = run(paths, ran.config, Mode.DIFF, decisions=Decisions(mark_review=True))
    return {path: fix for path, fix in fixes(diff.results, diff.emitted).items() if path in wanted}


def render_diff(ran: Ran, *, stat: bool) -> None:
    """The unified diff (or ``--stat``) on stdout; what changes and the review table on stderr."""
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


def render_apply(ran: Ran) -> None:
    """What was written and what needs review; nothing more when nothing could be written."""
    result = ran.result
    if ran.display.quiet or result.refused_dirty or result.held_back:
        return
    from unsentinel.output.summary import print_change_summary, print_review_table

    stderr = ran.display.stderr()
    print_change_summary(stderr, result, applied=True)
    print_review_table(stderr, result)


def render_plan(ran: Ran, *, fmt: str, output: Path | None, paths: tuple[str, ...] = ()) -> None:
    """The plan on stdout, or in ``-o FILE`` (a plan is not project source: it goes anywhere)."""
    from unsentinel.output.plan import render_plan as plan_text

    text = plan_text(ran.result, fmt, paths)
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        if not ran.display.quiet:
            click.echo(f"plan written to {output}", err=True)
