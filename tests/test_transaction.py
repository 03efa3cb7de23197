"""apply as a transaction: outside version control, --allow-partial, the journal and undo,
and --verify rolling everything back when the user's own check breaks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from unsentinel.cli import main
from unsentinel.core import journal

SOURCE = (
    "def check(order):\n"
    "    warnings = []\n"
    '    warnings.append("BLOCK: order is empty")\n'
    "    return warnings\n"
)


def _git(root: Path) -> None:
    for command in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start"],
    ):
        subprocess.run(["git", *command], cwd=root, check=True)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.unsentinel]\n")
    (tmp_path / "orders.py").write_text(SOURCE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts and journal.JOURNAL_DIR not in p.parts
    }


def test_apply_refuses_a_tree_outside_version_control(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("UNSENTINEL_ALLOW_NO_VCS")
    before = _files(project)
    result = CliRunner().invoke(main, ["apply", "."])
    assert result.exit_code == 2
    assert "not inside a version-controlled tree" in result.stderr
    assert "--allow-no-vcs" in result.stderr
    assert _files(project) == before


def test_allow_no_vcs_applies(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UNSENTINEL_ALLOW_NO_VCS")
    result = CliRunner().invoke(main, ["apply", ".", "--allow-no-vcs"])
    assert result.exit_code == 0, result.stderr
    assert "Warning(" in (project / "orders.py").read_text()


def test_undo_restores_the_last_apply_exactly(project: Path) -> None:
    _git(project)
    before = _files(project)
    assert CliRunner().invoke(main, ["apply", "."]).exit_code == 0
    after = _files(project)
    assert after != before
    assert set(after) > set(before)  # the generated modules were created
    result = CliRunner().invoke(main, ["undo"])
    assert result.exit_code == 0, result.stderr
    assert _files(project) == before  # created modules deleted, sources restored byte for byte
    assert "restored orders.py" in result.stderr
    again = CliRunner().invoke(main, ["undo"])
    assert again.exit_code == 2
    assert "nothing to undo" in again.stderr


def test_undo_refuses_when_a_file_changed_since(project: Path) -> None:
    _git(project)
    assert CliRunner().invoke(main, ["apply", "."]).exit_code == 0
    edited = (project / "orders.py").read_text() + "# my later work\n"
    (project / "orders.py").write_text(edited)
    snapshot = _files(project)
    result = CliRunner().invoke(main, ["undo"])
    assert result.exit_code == 2
    assert "refusing to undo" in result.stderr and "orders.py" in result.stderr
    assert _files(project) == snapshot  # nothing touched, not even the other files


def test_allow_partial_holds_back_files_that_use_a_failed_helper(project: Path) -> None:
    (project / "helpers.py").write_text(
        'def empty_warning():\n    return "BLOCK: order is empty"\nprint "python 2"\n'
    )
    (project / "uses_helper.py").write_text(
        "from helpers import empty_warning\n\n\n"
        'def check(order):\n    warnings = []\n    warnings.append("BLOCK: no lines")\n'
        "    warnings.append(empty_warning())\n    return warnings\n"
    )
    _git(project)
    untouched = (project / "uses_helper.py").read_bytes()
    whole = CliRunner().invoke(main, ["apply", "."])
    assert whole.exit_code == 2
    assert "nothing written" in whole.stderr
    partial = CliRunner().invoke(main, ["apply", ".", "--allow-partial"])
    assert partial.exit_code == 2  # a file failed: the run is still not clean
    assert "held back: uses_helper.py: uses empty_warning, defined in helpers.py" in partial.stderr
    assert (project / "uses_helper.py").read_bytes() == untouched
    assert "Warning(" in (project / "orders.py").read_text()  # unrelated: written


def test_verify_rolls_back_when_the_check_breaks(project: Path) -> None:
    # The project's own "test": passes only while the warning is still a plain string.
    (project / "check_strings.py").write_text(
        "import sys\nfrom orders import check\n"
        "sys.exit(0 if all(isinstance(w, str) for w in check(None)) else 1)\n"
    )
    _git(project)
    before = _files(project)
    command = f"{sys.executable} check_strings.py"
    result = CliRunner().invoke(main, ["apply", ".", "--verify", command])
    assert result.exit_code == 2
    assert "broke after the rewrite; the apply was rolled back" in result.stderr
    assert "succeeded before and exits 1 after" in result.stderr
    assert _files(project) == before


def test_verify_keeps_the_apply_when_the_check_still_passes(project: Path) -> None:
    _git(project)
    result = CliRunner().invoke(main, ["apply", ".", "--verify", f"{sys.executable} -c pass"])
    assert result.exit_code == 0, result.stderr
    assert "Warning(" in (project / "orders.py").read_text()


def test_verify_compares_test_by_test() -> None:
    from unsentinel.core.verify import Outcome, broken

    before = Outcome(1, frozenset({"t.py::a", "t.py::b"}), frozenset({"t.py::c"}))
    after = Outcome(1, frozenset({"t.py::a"}), frozenset({"t.py::b", "t.py::c"}))
    assert broken(before, after) == ["t.py::b"]  # c failed before too: not our doing
