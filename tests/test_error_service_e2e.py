"""End to end on fixtures/error_service: plan, diff, apply, then the service's own tests."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from syrupy.assertion import SnapshotAssertion

from unsentinel.cli import main

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "error_service"

pytestmark = pytest.mark.e2e


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = tmp_path / "error_service"
    shutil.copytree(FIXTURE, copy, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    monkeypatch.chdir(copy)  # diff headers and plan paths are fixture-relative
    return copy


def _run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    matches = [number for number, line in enumerate(lines, 1) if needle in line]
    assert len(matches) == 1, f"needle {needle!r} is not unique in {path.name}: {matches}"
    return matches[0]


def _expected(name: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((FIXTURE / name).read_text(encoding="utf-8"))
    return data


def test_every_error_site_gets_its_code(project: Path) -> None:
    result = _run("plan", "-j", "1", "--format", "json", ".")
    assert result.exit_code == 0, result.stderr
    sites = [s for s in json.loads(result.stdout)["sites"] if s["rule"] == "UNS501"]
    producers = [s for s in sites if s["kind"] == "error" and s["action"] in ("rewrite", "review")]
    wrong = []
    for entry in _expected("expected_errors.json"):
        line = _line_of(project / entry["file"], entry["needle"])
        found = [
            s
            for s in producers
            if s["path"] == entry["file"] and s["line"] <= line <= s["end_line"]
        ]
        if len(found) != 1:
            wrong.append((entry["needle"], "no site" if not found else "several sites"))
            continue
        (site,) = found
        if site["code"] != entry["code"]:  # a low-confidence flag does not make it right
            wrong.append((entry["needle"], site["code"]))
    assert wrong == []
    assert len(producers) == len(_expected("expected_errors.json"))


# Look-alikes that are not dict literals: nothing for UNS501 to note.
NOT_DICTS = (
    'summary["error"] += 1',
    'alerts.dispatch("error",',
    '``{"error": "note 7 not found"}``',
)


def test_every_lookalike_dict_is_noted_in_plan(project: Path) -> None:
    result = _run("plan", "-j", "1", "--format", "json", ".")
    assert result.exit_code == 0, result.stderr
    notes = {
        (s["path"], s["line"]): s["reasons"]
        for s in json.loads(result.stdout)["sites"]
        if s["rule"] == "UNS501" and s["action"] == "note"
    }
    expected = {
        (entry["file"], _line_of(project / entry["file"], entry["needle"]))
        for entry in _expected("expected_lookalikes.json")
        if entry["needle"] not in NOT_DICTS
    }
    assert set(notes) == expected
    assert all(reasons for reasons in notes.values())


def test_apply_then_the_service_tests_pass(project: Path) -> None:
    before = {p: p.read_text(encoding="utf-8") for p in project.rglob("*.py")}
    result = _run("apply", "-j", "1", "--allow-dirty", ".")
    assert result.exit_code == 1, result.stderr  # 1: files were changed
    assert (project / "errsvc" / "error_codes.py").is_file()
    assert (project / "errsvc" / "error_model.py").is_file()

    for entry in _expected("expected_lookalikes.json"):
        path = project / entry["file"]
        line = before[path].splitlines()[_line_of_text(before[path], entry["needle"]) - 1]
        assert line in path.read_text(encoding="utf-8").splitlines(), entry["why"]

    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert tests.returncode == 0, tests.stdout[-4000:]
    assert " passed" in tests.stdout

    again = _run("apply", "-j", "1", "--allow-dirty", ".")
    assert again.exit_code == 0, again.stderr  # the rewrite is a fixed point


def _line_of_text(text: str, needle: str) -> int:
    matches = [n for n, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(matches) == 1, needle
    return matches[0]


def test_diff_snapshot(project: Path, diff_snapshot: SnapshotAssertion) -> None:
    result = _run("diff", "-j", "1", ".")
    assert result.exit_code == 1
    assert result.stdout == diff_snapshot
