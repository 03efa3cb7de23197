"""``apply --verify CMD``: run the user's own check before and after writing, and compare.

This is the one place unsentinel runs the project's code, and only on explicit request.
The command runs in the project root through the shell, once before anything is written
and once after. Where the output names tests with their outcome (pytest's ``-v`` or
``-rA`` lines: ``tests/x.py::test_a PASSED`` / ``PASSED tests/x.py::test_a``), tests are
compared one by one: what passed before and fails after is "broken". Otherwise the exit
status decides: a command that succeeded before and fails after is broken.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

OUTPUT_TAIL = 40  # lines of the command's output kept for the report

_VERBOSE = re.compile(r"^(?P<test>\S+::\S+)\s+(?P<outcome>PASSED|FAILED|ERROR)\b", re.M)
_SUMMARY = re.compile(r"^(?P<outcome>PASSED|FAILED|ERROR)\s+(?P<test>\S+::\S+)", re.M)


@dataclass(frozen=True)
class Outcome:
    """What one run of the command showed."""

    returncode: int
    passed: frozenset[str] = frozenset()
    failed: frozenset[str] = frozenset()
    tail: tuple[str, ...] = field(default=(), compare=False)

    @property
    def names_tests(self) -> bool:
        return bool(self.passed or self.failed)


def run_check(command: str, cwd: Path, *, timeout: float | None = None) -> Outcome:
    """Run ``command`` in ``cwd`` and read its outcome (never raises for a failing command)."""
    try:
        completed = subprocess.run(
            command,
            shell=True,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Outcome(124, tail=(f"timed out after {timeout} s",))
    output = completed.stdout + completed.stderr
    passed, failed = _per_test(output)
    return Outcome(completed.returncode, passed, failed, tuple(output.splitlines()[-OUTPUT_TAIL:]))


def _per_test(output: str) -> tuple[frozenset[str], frozenset[str]]:
    passed: set[str] = set()
    failed: set[str] = set()
    for pattern in (_VERBOSE, _SUMMARY):
        for match in pattern.finditer(output):
            (passed if match["outcome"] == "PASSED" else failed).add(match["test"])
    return frozenset(passed - failed), frozenset(failed)


def broken(before: Outcome, after: Outcome) -> list[str]:
    """What passed before and fails after; empty when nothing broke."""
    if before.names_tests and after.names_tests:
        newly = sorted(before.passed & after.failed)
        vanished = sorted(before.passed - after.passed - after.failed)
        return newly + [f"{test} (no longer ran)" for test in vanished]
    if before.returncode == 0 and after.returncode != 0:
        return [f"the command succeeded before and exits {after.returncode} after"]
    return []


@dataclass(frozen=True)
class Verification:
    """``apply --verify``: the command's outcome before and after, and what broke."""

    command: str
    before: Outcome
    after: Outcome
    broken: tuple[str, ...]
    rolled_back: bool
