"""The exit-code policy of every command, in one table.

The codes follow ruff. ``2`` is always an error: a usage, configuration or internal error,
or a file that could not be processed (failed, refused as dirty, held back). Otherwise a
command exits ``1`` when its row in :data:`POLICY` says there is something to act on, and
``0`` when there is not:

=========  ===================================================================
command    exits 1 when
=========  ===================================================================
check      there are findings (never with ``--exit-zero``)
diff       there is something to change (never with ``--exit-zero``)
apply      files were written and ``--exit-non-zero-on-fix`` was given, or an
           ``--plan`` entry was refused because its source changed
plan       never
undo       never (2 when it refuses: a file changed since the apply)
clean      never (2 when the cache cannot be removed)
rule       never (2 for an unknown rule)
=========  ===================================================================

One table keeps the commands consistent, and the test that reads it keeps it true.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:
    from unsentinel.core.runner import RunResult

OK = 0
ACT = 1  # the command's verdict: something to act on
ERROR = 2


@dataclass(frozen=True)
class Outcome:
    """What the table reads about a finished command: its result and its exit flags."""

    error: bool = False  # a file failed, was refused as dirty, or was held back
    findings: bool = False
    changes: bool = False  # diff: a file would change
    written: bool = False  # apply: a file was written
    refused: bool = False  # apply --plan: an entry whose source changed was not applied
    exit_zero: bool = False
    exit_non_zero_on_fix: bool = False

    @classmethod
    def of(
        cls,
        result: RunResult,
        *,
        refused: bool = False,
        exit_zero: bool = False,
        exit_non_zero_on_fix: bool = False,
    ) -> Outcome:
        """Read a run's result: the library decides what failed, the table what it means."""
        return cls(
            error=bool(result.failed or result.refused_dirty or result.held_back),
            findings=bool(result.findings),
            changes=bool(result.changed),
            written=bool(result.written),
            refused=refused,
            exit_zero=exit_zero,
            exit_non_zero_on_fix=exit_non_zero_on_fix,
        )


def _never(_: Outcome) -> bool:
    return False


POLICY: Mapping[str, Callable[[Outcome], bool]] = MappingProxyType(
    {
        "check": lambda o: o.findings and not o.exit_zero,
        "diff": lambda o: o.changes and not o.exit_zero,
        "apply": lambda o: (o.written and o.exit_non_zero_on_fix) or o.refused,
        "plan": _never,
        "undo": _never,
        "clean": _never,
        "rule": _never,
    }
)
"""For each command: does this outcome exit 1? (An error exits 2 before it is asked.)"""


def exit_code(command: str, outcome: Outcome) -> int:
    """The code ``command`` exits with after ``outcome``: 2, then its row of the table."""
    if outcome.error:
        return ERROR
    return ACT if POLICY[command](outcome) else OK


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on stderr and exit 2: nothing the command could do."""
    click.echo(f"error: {message}", err=True)
    sys.exit(ERROR)
