"""The bounded ecosystem check as tests: one test per pinned package (``-m ecosystem``).

Each test copies one real package (a pinned PyPI sdist, or a subset of the standard
library) into a temporary git repository, runs ``check``, ``plan``, ``diff``, ``apply`` and
a second ``apply`` there (see ``benchmarks/ecosystem.py``), and asserts every invariant of
docs/ecosystem.md: no crash, an empty diff where there is nothing to migrate, output that
parses for the package's lowest Python, a fixed point, generated modules that import, and
the package's own tests still passing. A failing test lists each broken invariant on its
own line. The sdists are downloaded once into ``~/.cache/unsentinel``; without a network
and without that cache, the tests skip (under ``CI`` they fail instead). They take
minutes, so they run only when selected by marker (``-m ecosystem``, as ``nox -s
ecosystem`` and CI do); any other run skips them.

    .venv/bin/python -m pytest -m ecosystem -n 0 tests/test_ecosystem.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import ecosystem  # noqa: E402

pytestmark = pytest.mark.ecosystem

BOUNDED = ecosystem.selected(bounded=True)


def _context() -> ecosystem.Context:
    # Under pytest-xdist several packages may run at once: one worker each keeps the pool at 2.
    jobs = 1 if os.environ.get("PYTEST_XDIST_WORKER") else 2
    return ecosystem.Context(ecosystem.default_unsentinel(), jobs=jobs, bounded=True)


@pytest.fixture(autouse=True)
def _only_when_selected(request: pytest.FixtureRequest) -> None:
    if "ecosystem" not in str(request.config.getoption("markexpr", "")):
        pytest.skip("the ecosystem check runs only when selected: pytest -m ecosystem")


def _require_source(package: ecosystem.Package) -> None:
    """Skip, saying why, when the sdist is neither cached nor downloadable."""
    try:
        ecosystem.source_tree(package)
    except OSError as error:  # urllib's URLError and socket errors are OSErrors
        reason = f"network unreachable and {package.name} not cached: {error}"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI must run the ecosystem check, not skip it)")
        pytest.skip(reason)


def _message(report: ecosystem.Report) -> str:
    lines = [f"{report.name} {report.version} broke {len(report.failures)} invariant check(s):"]
    lines += [f"  [{invariant}] {detail}" for invariant, detail in report.failures]
    lines += [f"  (note) {note}" for note in report.notes]
    return "\n".join(lines)


@pytest.mark.parametrize("package", BOUNDED, ids=[package.name for package in BOUNDED])
def test_package_survives_migration(package: ecosystem.Package) -> None:
    _require_source(package)
    report = ecosystem.check_package(package, _context())
    print(ecosystem.table([report]))
    assert not report.failures, _message(report)


def test_bounded_set_covers_every_invariant() -> None:
    """The bounded set keeps the standard library, plain packages and three with tests."""
    names = {package.name for package in BOUNDED}
    assert "stdlib" in names
    assert sum(1 for package in BOUNDED if package.tests) >= 3
    assert len(ecosystem.PACKAGES) >= 16  # 15 packages and the standard library
