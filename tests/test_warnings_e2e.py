"""End to end: migrate each warnings fixture repository and ask a maintainer's questions.

Does it still import? Do ruff (pyflakes rules) and mypy report nothing new? Do its own
tests -- migrated too -- pass? Does ``check`` report only what was knowingly left? Is a
second ``apply`` a no-op? The diffs and the plan are pinned as snapshots for review.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).parent.parent / "fixtures"
WARNING_FIXTURES = {"mcp_orders": "orders_mcp", "fulfillment_svc": "fulfillment"}
# mcp_orders migrates completely, so it also gets the generated wire-shape regression test
# (fulfillment_svc keeps its constant: one use cannot be migrated, and that test would say so).
REGRESSION_TEST = {"mcp_orders": "tests/test_warning_wire_shape.py"}


@dataclass
class Migration:
    root: Path
    package: str
    diff: str
    plan: dict[str, object]
    ruff_before: set[str]
    mypy_before: set[str]
    apply_exit: int
    apply_stderr: str


def _unsentinel(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "unsentinel", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )


def _ruff(root: Path) -> set[str]:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "F", "--output-format", "concise",
         "--no-cache", "--isolated", "."],
        cwd=root, capture_output=True, text=True, check=False,
    )
    return {_unnumbered(line) for line in result.stdout.splitlines() if ": F" in line}


def _mypy(root: Path, package: str) -> set[str]:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", package, "--ignore-missing-imports", "--no-error-summary",
         "--no-incremental", "--cache-dir", "/dev/null", "--hide-error-context"],
        cwd=root, capture_output=True, text=True, check=False,
    )
    return {_unnumbered(line) for line in result.stdout.splitlines() if ": error:" in line}


def _unnumbered(line: str) -> str:
    """``path:12:5: message`` -> ``path: message``: lines move when code is rewritten."""
    return re.sub(r":\d+(:\d+)?:", ":", line)


@pytest.fixture(scope="module", params=sorted(WARNING_FIXTURES))
def migration(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Migration:
    name = request.param
    root = tmp_path_factory.mktemp(name) / name
    shutil.copytree(FIXTURES / name, root, ignore=shutil.ignore_patterns("__pycache__", ".*cache"))
    ruff_before, mypy_before = _ruff(root), _mypy(root, WARNING_FIXTURES[name])
    diff = _unsentinel(root, "diff", ".").stdout
    plan = json.loads(_unsentinel(root, "plan", ".").stdout)
    extra = ["--emit-regression-test", REGRESSION_TEST[name]] if name in REGRESSION_TEST else []
    applied = _unsentinel(root, "apply", "--allow-dirty", *extra, ".")
    return Migration(
        root, WARNING_FIXTURES[name], diff, plan, ruff_before, mypy_before,
        applied.returncode, applied.stderr,
    )


def test_apply_reports_changes(migration: Migration) -> None:
    assert migration.apply_exit == 1, migration.apply_stderr
    assert "error:" not in migration.apply_stderr


def test_every_module_still_imports(migration: Migration) -> None:
    script = (
        "import importlib, pkgutil, sys\n"
        f"import {migration.package} as package\n"
        "for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
        "    importlib.import_module(info.name)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=migration.root, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_ruff_reports_nothing_new(migration: Migration) -> None:
    assert _ruff(migration.root) - migration.ruff_before == set()


def test_mypy_reports_nothing_new(migration: Migration) -> None:
    assert _mypy(migration.root, migration.package) - migration.mypy_before == set()


def test_the_repository_own_tests_pass(migration: Migration) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=migration.root, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:]


def test_the_generated_regression_test_ran(migration: Migration) -> None:
    if migration.root.name not in REGRESSION_TEST:
        pytest.skip("this fixture keeps a sentinel use on purpose")
    test_file = migration.root / REGRESSION_TEST[migration.root.name]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
        cwd=migration.root, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout[-2000:]
    assert re.search(r"\d{2,} passed", result.stdout)


def test_second_apply_changes_nothing(migration: Migration) -> None:
    again = _unsentinel(migration.root, "apply", "--allow-dirty", ".")
    assert again.returncode == 0, again.stderr
    assert "No changes" in again.stderr
    assert _unsentinel(migration.root, "diff", ".").stdout == ""


def test_check_after_apply_reports_only_what_was_left(
    migration: Migration, text_snapshot: SnapshotAssertion
) -> None:
    result = _unsentinel(migration.root, "check", ".")
    findings = result.stdout.splitlines()
    assert all(re.search(r": UNS00[12] ", line) for line in findings), findings
    assert result.stdout == text_snapshot


def test_diff_snapshot(migration: Migration, diff_snapshot: SnapshotAssertion) -> None:
    assert migration.diff == diff_snapshot


def test_plan_snapshot(migration: Migration, json_snapshot: SnapshotAssertion) -> None:
    assert json.dumps(migration.plan, indent=2) + "\n" == json_snapshot


def test_plan_lists_every_site_with_confidence(migration: Migration) -> None:
    sites = migration.plan["sites"]
    assert isinstance(sites, list) and sites
    for site in sites:
        assert set(site) >= {
            "id", "path", "line", "column", "end_line", "rule", "kind", "action",
            "severity", "field_path", "code", "confidence", "reasons",
        }
        assert set(site["confidence"].values()) <= {"high", "low"}
        if site["kind"] == "producer" and site["code"] is not None:
            assert set(site["confidence"]) == {"severity", "field_path", "code"}
        if "low" in site["confidence"].values():
            assert site["action"] == "review"
