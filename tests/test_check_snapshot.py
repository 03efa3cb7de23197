"""The rendered ``check`` output on a fixture repository, as a user sees it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from syrupy.assertion import SnapshotAssertion

from unsentinel.cli import main

FIXTURES = Path(__file__).parent.parent / "fixtures"

# The detectors only: this snapshot is about the engine and the output format. The
# rewriting rules claim many of these sites; their own fixture snapshots cover that.
pytestmark = pytest.mark.usefixtures("detector_rules")


def test_check_fulfillment_svc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text_snapshot: SnapshotAssertion
) -> None:
    copy = tmp_path / "fulfillment_svc"
    shutil.copytree(FIXTURES / "fulfillment_svc", copy)
    monkeypatch.chdir(copy)
    result = CliRunner().invoke(main, ["check", "."])
    assert result.exit_code == 1
    assert result.stderr == "Found 70 finding(s) in 13 file(s) (16 checked).\n"
    assert result.stdout == text_snapshot
