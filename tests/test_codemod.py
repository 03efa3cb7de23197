"""``python -m libcst.tool codemod`` runs our migration and writes what ``unsentinel`` writes.

LibCST's runner is driven in a subprocess, as a user would drive it, on a temporary copy of
a fixture; the result must equal, byte for byte, what ``unsentinel``'s own run gives for
the same single file (``diff FILE``: the gather pass sees that file alone, as in the
codemod).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from unsentinel.core.model import Mode
from unsentinel.registry import load_config, run

FIXTURES = Path(__file__).parent.parent / "fixtures"

CASES = [
    pytest.param("mcp_orders", "orders_mcp/tools/validation_helpers.py", id="sentinel producers"),
    pytest.param("fulfillment_svc", "fulfillment/checks.py", id="annotations and consumers"),
    pytest.param("error_service", "errsvc/attachments.py", id="error dicts"),
]


def _copy(fixture: str, tmp_path: Path) -> Path:
    root = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, root)
    return root


def _codemod(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "libcst.tool", "codemod", *args]
    return subprocess.run(
        [*command, "--no-format", "--hide-progress", "-j", "1"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _unsentinel_alone(root: Path, relative: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """What ``unsentinel diff FILE`` would make of the file, from its project root."""
    monkeypatch.chdir(root)
    result = run([Path(relative)], load_config((Path(relative),)), Mode.DIFF, jobs=1)
    [file_result] = result.results
    assert file_result.error is None, file_result.error
    assert file_result.changed, "the case must have something to migrate"
    assert file_result.new_text is not None
    return file_result.new_text


@pytest.mark.parametrize(("fixture", "relative"), CASES)
def test_codemod_matches_unsentinel_on_one_file(
    fixture: str, relative: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    by_codemod = _copy(fixture, tmp_path / "codemod")
    ran = _codemod(by_codemod, "-x", "unsentinel.codemod.Migrate", relative)
    assert ran.returncode == 0, ran.stderr
    by_us = _unsentinel_alone(_copy(fixture, tmp_path / "ours"), relative, monkeypatch)
    assert (by_codemod / relative).read_text(encoding="utf-8") == by_us


def test_codemod_found_through_the_modules_of_libcst_codemod_yaml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ``-x``: ``initialize``, then ``unsentinel`` added to ``modules``."""
    fixture, relative = "mcp_orders", "orders_mcp/tools/validation_helpers.py"
    root = _copy(fixture, tmp_path / "codemod")
    (root / ".libcst.codemod.yaml").write_text(
        "generated_code_marker: '@generated'\nformatter: []\nblacklist_patterns: []\n"
        "modules:\n  - libcst.codemod.commands\n  - unsentinel\nrepo_root: .\n",
        encoding="utf-8",
    )
    ran = _codemod(root, "codemod.Migrate", relative)
    assert ran.returncode == 0, ran.stderr
    by_us = _unsentinel_alone(_copy(fixture, tmp_path / "ours"), relative, monkeypatch)
    assert (root / relative).read_text(encoding="utf-8") == by_us


def test_codemod_leaves_a_clean_file_alone(tmp_path: Path) -> None:
    root = tmp_path / "clean"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'clean'\n", encoding="utf-8")
    source = "def total(xs: list[int]) -> int:\n    return sum(xs)\n"
    (root / "clean.py").write_text(source, encoding="utf-8")
    ran = _codemod(root, "-x", "unsentinel.codemod.Migrate", "clean.py")
    assert ran.returncode == 0, ran.stderr
    assert (root / "clean.py").read_text(encoding="utf-8") == source
