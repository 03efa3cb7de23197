"""An enforced fixed point: a rewrite that a second run would change again is never written."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

import unsentinel.registry
from unsentinel.core.config import Config
from unsentinel.core.model import Action, Kind, Mode, Status
from unsentinel.core.rule import Rule
from unsentinel.registry import run


class GrowsEveryRun(Rule):
    """Appends ``!`` to every sentinel literal: each run changes the code again."""

    code = "TST903"
    name = "grows-every-run"
    summary = "Never converges"

    @classmethod
    def needles(cls, config: Config) -> tuple[bytes, ...]:
        return (b"BLOCK:",)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self.context.replace(node, lambda updated: cst.SimpleString(node.value[:-1] + '!"'))
        self.context.report(self, node, "grows", kind=Kind.PRODUCER, action=Action.REWRITE)


class ConvergesAfterOne(Rule):
    """``"BLOCK: a"`` -> ``"OK: a"``: the second run finds nothing, as a rewrite must."""

    code = "TST904"
    name = "converges"
    summary = "Converges in one run"

    @classmethod
    def needles(cls, config: Config) -> tuple[bytes, ...]:
        return (b"BLOCK:",)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if "BLOCK:" in node.value:
            self.context.replace(
                node, lambda updated: cst.SimpleString(node.value.replace("BLOCK:", "OK:"))
            )


def test_a_rewrite_that_does_not_converge_fails_the_file_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(unsentinel.registry, "ALL_RULES", (GrowsEveryRun,))
    target = tmp_path / "mod.py"
    target.write_text('x = "BLOCK: a"\n')
    result = run([target], Config(root=tmp_path), Mode.APPLY, jobs=1, allow_dirty=True)
    [file_result] = result.results
    assert file_result.status is Status.FAILED
    assert file_result.error is not None
    assert "not idempotent" in file_result.error
    assert "line 1 would change again (TST903" in file_result.error
    assert target.read_text() == 'x = "BLOCK: a"\n'
    assert result.exit_code == 2


def test_a_rewrite_that_converges_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(unsentinel.registry, "ALL_RULES", (ConvergesAfterOne,))
    target = tmp_path / "mod.py"
    target.write_text('x = "BLOCK: a"\n')
    result = run([target], Config(root=tmp_path), Mode.APPLY, jobs=1, allow_dirty=True)
    assert [r.status for r in result.results] == [Status.PARSED]
    assert target.read_text() == 'x = "OK: a"\n'


def test_one_failing_file_holds_back_the_whole_apply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All or nothing: the file that would converge is not written either."""
    monkeypatch.setattr(unsentinel.registry, "ALL_RULES", (ConvergesAfterOne,))
    good = tmp_path / "good.py"
    good.write_text('x = "BLOCK: a"\n')
    broken = tmp_path / "broken.py"
    broken.write_text('y = "BLOCK: b"\ndef (:\n')
    result = run([tmp_path], Config(root=tmp_path), Mode.APPLY, jobs=1, allow_dirty=True)
    assert [Path(path).name for path, _reason in result.failed] == ["broken.py"]
    assert [Path(path).name for path in result.held_back] == ["good.py"]
    assert result.written == ()
    assert good.read_text() == 'x = "BLOCK: a"\n'
    assert result.exit_code == 2
