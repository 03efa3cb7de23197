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


# A migrated ``Warning(message=...)`` must not read as a use of the local ``message`` on the
# next run (seen on a real package: the second apply turned the message of a (message,
# next_actions) helper into a Warning and re-annotated its tuple).
SUMMARY_HELPER = """\
def summarize(actions: list[str]) -> tuple[str, list[str]]:
    message = f"applied {len(actions)} action(s)"
    return message, ["review the actions"]


def run(actions: list[str], existing: object) -> dict[str, object]:
    warnings = (
        [f"could not fetch the record; the preview shows {len(actions)} requested values"]
        if existing is None
        else []
    )
    message, next_actions = summarize(actions)
    return {"warnings": warnings, "message": message, "next_actions": next_actions}
"""


def test_the_second_whole_run_over_a_migration_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "tool.py"
    target.write_text(SUMMARY_HELPER)
    config = Config(root=tmp_path)
    first = run([tmp_path], config, Mode.APPLY, jobs=1, allow_dirty=True)
    assert first.exit_code == 0
    migrated = target.read_text()
    assert "Warning(" in migrated and "-> tuple[str, list[str]]" in migrated
    second = run([tmp_path], config, Mode.APPLY, jobs=1, allow_dirty=True)
    assert second.written == ()
    assert target.read_text() == migrated
