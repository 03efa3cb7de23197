"""End to end on fixtures/error_service: plan, diff, apply, then the service's own tests.

Every error site of ``expected_errors.json`` is a named test case (``path:line``) that must get
the authors' code; a few short files are pinned as per-file diff snapshots that a reviewer
reads in a minute.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

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


class Preview(NamedTuple):
    plan: list[dict[str, Any]]
    diff: str


@pytest.fixture(scope="module")
def preview(tmp_path_factory: pytest.TempPathFactory) -> Preview:
    """``plan`` and ``diff`` of one untouched copy, computed once for the module."""
    copy = tmp_path_factory.mktemp("preview") / "error_service"
    shutil.copytree(FIXTURE, copy, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))

    def unsentinel(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "unsentinel", *args, "-j", "1", "."],
            cwd=copy,
            capture_output=True,
            text=True,
            check=False,
        )

    plan, diff = unsentinel("plan", "--format", "json"), unsentinel("diff")
    assert plan.returncode == 0, plan.stderr
    assert diff.returncode == 1, diff.stderr
    return Preview(json.loads(plan.stdout)["sites"], diff.stdout)


def _files(root: Path) -> dict[str, bytes]:
    """Every file of the project but the apply journal and caches, by relative path."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and not {".unsentinel_journal", "__pycache__", ".pytest_cache"}
        & set(path.relative_to(root).parts)
    }


def _line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    matches = [number for number, line in enumerate(lines, 1) if needle in line]
    assert len(matches) == 1, f"needle {needle!r} is not unique in {path.name}: {matches}"
    return matches[0]


def _expected(name: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((FIXTURE / name).read_text(encoding="utf-8"))
    return data


def _expected_line(entry: dict[str, Any]) -> int:
    return _line_of(FIXTURE / entry["file"], entry["needle"])


# One named case per row of the authors' table. The tool agrees with the authors on every
# row today, so nothing is left out.
ERROR_SITES = [
    pytest.param(entry, id=f"{entry['file']}:{_expected_line(entry)}")
    for entry in _expected("expected_errors.json")
]


def _error_producers(preview: Preview) -> list[dict[str, Any]]:
    return [
        s
        for s in preview.plan
        if s["rule"] == "UNS501" and s["kind"] == "error" and s["action"] in ("rewrite", "review")
    ]


@pytest.mark.parametrize("entry", ERROR_SITES)
def test_error_site_gets_its_code(entry: dict[str, Any], preview: Preview) -> None:
    line = _expected_line(entry)
    found = [
        s
        for s in _error_producers(preview)
        if s["path"] == entry["file"] and s["line"] <= line <= s["end_line"]
    ]
    assert len(found) == 1, f"{len(found)} sites cover {entry['needle']!r}"
    assert found[0]["code"] == entry["code"]  # a low-confidence flag does not make it right


def test_no_error_site_beyond_the_table(preview: Preview) -> None:
    assert len(_error_producers(preview)) == len(_expected("expected_errors.json"))


# Look-alikes that are not dict literals: nothing for UNS501 to note.
NOT_DICTS = (
    'summary["error"] += 1',
    'alerts.dispatch("error",',
    '``{"error": "note 7 not found"}``',
)


def test_every_lookalike_dict_is_noted_in_plan(preview: Preview) -> None:
    notes = {
        (s["path"], s["line"]): s["reasons"]
        for s in preview.plan
        if s["rule"] == "UNS501" and s["action"] == "note"
    }
    expected = {
        (entry["file"], _expected_line(entry))
        for entry in _expected("expected_lookalikes.json")
        if entry["needle"] not in NOT_DICTS
    }
    assert set(notes) == expected
    assert all(reasons for reasons in notes.values())


def test_apply_then_the_service_tests_pass(project: Path, preview: Preview) -> None:
    before = _files(project)
    result = _run("apply", "-j", "1", "--allow-dirty", ".")
    assert result.exit_code == 0, result.stderr  # 0: everything was written
    after = _files(project)
    changed = {p for p in after if before.get(p) != after[p]}
    assert changed == set(re.findall(r"(?m)^\+\+\+ b/(\S+)$", preview.diff))  # what diff showed
    assert {"errsvc/error_codes.py", "errsvc/error_model.py"} <= changed - set(before)
    assert (project / ".unsentinel_journal").is_dir()

    for entry in _expected("expected_lookalikes.json"):
        text = before[entry["file"]].decode("utf-8")
        line = text.splitlines()[_line_of_text(text, entry["needle"]) - 1]
        assert line in after[entry["file"]].decode("utf-8").splitlines(), entry["why"]

    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert tests.returncode == 0, tests.stdout[-4000:]
    assert " passed" in tests.stdout

    # The rewrite is a fixed point: a second apply writes nothing (1 if it wrote anything).
    files = _files(project)
    again = _run("apply", "-j", "1", "--allow-dirty", "--exit-non-zero-on-fix", ".")
    assert again.exit_code == 0, again.stderr
    assert _files(project) == files


def _line_of_text(text: str, needle: str) -> int:
    matches = [n for n, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(matches) == 1, needle
    return matches[0]


# -- short per-file diffs, one per shape --------------------------------------------------------

FILE_DIFFS = [
    # consumers of a tool's error: resp["error"] is now an object, {"ok": False} an envelope
    pytest.param("errsvc/client.py", id="client"),
    # producers: jsonify({...}), status tuples, a relative-import module
    pytest.param("errsvc/batch.py", id="batch"),
    # a test reading body.data["error"]
    pytest.param("tests/test_batch.py", id="test_batch"),
    # the generated model
    pytest.param("errsvc/error_model.py", id="error_model"),
]


def _file_diff(diff: str, path: str) -> str:
    sections = re.split(r"(?m)^(?=--- )", diff)
    [section] = [
        s for s in sections if s.startswith((f"--- a/{path}\n", f"--- /dev/null\n+++ b/{path}\n"))
    ]
    return section


@pytest.mark.parametrize("path", FILE_DIFFS)
def test_file_diff(path: str, preview: Preview, diff_snapshot: SnapshotAssertion) -> None:
    section = _file_diff(preview.diff, path)
    assert len(section.splitlines()) <= 80, "keep per-file snapshots short enough to review"
    assert section == diff_snapshot
