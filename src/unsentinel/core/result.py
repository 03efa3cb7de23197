"""What a run returns: every file's result, what was written, and the run's verdict.

Its own module so that the runner and the apply transaction both use it without
importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from unsentinel.core.discovery import Discovery
from unsentinel.core.facts import FactBook
from unsentinel.core.model import FileResult, Mode, Status
from unsentinel.core.verify import Verification


@dataclass(frozen=True)
class RunResult:
    mode: Mode
    results: tuple[FileResult, ...]
    discovery: Discovery
    emitted: tuple[FileResult, ...] = ()
    written: tuple[str, ...] = ()
    write_errors: tuple[tuple[str, str], ...] = ()
    refused_dirty: tuple[str, ...] = ()
    held_back: tuple[str, ...] = ()  # changed files not written because another file failed
    conflicts: tuple[tuple[str, str], ...] = ()  # --allow-partial: held back, and why
    verification: Verification | None = None  # --verify: before, after, what broke
    facts: FactBook = field(default_factory=FactBook)
    peak_memory: tuple[int, ...] = ()  # the highest RSS, in bytes, of each process that worked
    cached: int = 0  # check: results taken from the cache (.unsentinel_cache/)
    notices: tuple[str, ...] = ()  # warnings about what is written (a module outside the package)

    @property
    def all_results(self) -> tuple[FileResult, ...]:
        return (*self.results, *self.emitted)

    @property
    def failed(self) -> list[tuple[str, str]]:
        failures = [(r.path, r.error or "") for r in self.results if r.status is Status.FAILED]
        return [*self.discovery.errors, *failures, *self.write_errors]

    @property
    def sites(self) -> list[tuple[str, object]]:
        return [(r.path, s) for r in self.results for s in r.sites]

    @property
    def findings(self) -> int:
        """Sites ``check`` reports (look-alikes noted for review don't count)."""
        return sum(1 for r in self.results for s in r.sites if s.action.is_finding)

    @property
    def changed(self) -> list[FileResult]:
        return [r for r in self.all_results if r.changed]

    @property
    def exit_code(self) -> int:
        """ruff's contract: 2 for errors, 1 for findings or changes, 0 when clean."""
        if self.failed or self.refused_dirty or self.held_back:
            return 2
        if self.mode is Mode.CHECK:
            return 1 if self.findings else 0
        if self.mode is Mode.APPLY:
            return 0  # everything it set out to write was written (the CLI: --exit-non-zero-on-fix)
        if self.mode is Mode.PLAN:
            return 0  # a listing, not a verdict
        return 1 if self.changed or self.findings else 0
