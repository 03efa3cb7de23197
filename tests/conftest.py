"""Shared fixtures: a CLI runner, a file-tree writer and a test-only rewriting rule."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

import unsentinel.registry
from unsentinel.core.config import Config
from unsentinel.core.model import Action, Kind
from unsentinel.core.rule import Rule
from unsentinel.warnings.rules.sentinel_constant import SentinelConstant
from unsentinel.warnings.rules.sentinel_string import SentinelString

WriteTree = Callable[[dict[str, str | bytes]], Path]


@pytest.fixture(autouse=True)
def allow_no_vcs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most tests apply in scratch directories with no git: let them, as --allow-no-vcs does.

    tests/test_transaction.py removes the variable where the refusal itself is tested.
    """
    monkeypatch.setenv("UNSENTINEL_ALLOW_NO_VCS", "1")


@pytest.fixture
def cli() -> CliRunner:
    """A runner whose results keep stdout and stderr apart (click >= 8.2)."""
    return CliRunner()


@pytest.fixture
def write_tree(tmp_path: Path) -> WriteTree:
    """Write ``{relative path: text or bytes}`` under ``tmp_path`` and return ``tmp_path``."""

    def write(files: dict[str, str | bytes]) -> Path:
        for name, content in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        return tmp_path

    return write


class BlockToOk(Rule):
    """Test-only rule that edits: ``"BLOCK: x"`` becomes ``"OK: x"``."""

    code = "TST900"
    name = "block-to-ok"
    summary = "Rewrite BLOCK: literals to OK: (tests only)"

    @classmethod
    def needles(cls, config: Config) -> tuple[bytes, ...]:
        return (b"BLOCK:",)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = node.evaluated_value
        if not isinstance(value, str) or not value.startswith("BLOCK:"):
            return
        self.context.report(
            # Kind.DETECTOR: the generated modules (warning codes, models) follow producer
            # sites, and this rule must not make the engine tests depend on them.
            self,
            node,
            "BLOCK: literal rewritten",
            kind=Kind.DETECTOR,
            action=Action.REWRITE,
        )

        def to_ok(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.SimpleString)
            return updated.with_changes(value=updated.value.replace("BLOCK:", "OK:", 1))

        self.context.replace(node, to_ok)


DETECTORS: tuple[type[Rule], ...] = (SentinelString, SentinelConstant)


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[bytes | str]:
    """Every source handed to ``libcst.parse_module`` through the engine."""
    calls: list[bytes | str] = []
    real_parse = cst.parse_module

    def parse_module(source: bytes | str, *args: object, **kwargs: object) -> cst.Module:
        calls.append(source)
        return real_parse(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cst, "parse_module", parse_module)  # the libcst the engine calls
    return calls


@pytest.fixture
def detector_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pin the rule set to the two detectors: engine tests must not move as rules are added."""
    monkeypatch.setattr(unsentinel.registry, "ALL_RULES", DETECTORS)


@pytest.fixture
def rewriting_rule(monkeypatch: pytest.MonkeyPatch) -> type[Rule]:
    """The two detectors plus :class:`BlockToOk`, the only rule here that edits."""
    monkeypatch.setattr(unsentinel.registry, "ALL_RULES", (*DETECTORS, BlockToOk))
    return BlockToOk


# -- snapshots: one readable file per snapshot, reviewed like code ---------------------------


class TextSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "txt"


class DiffSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "diff"


class JsonSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "json"


@pytest.fixture
def text_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(TextSnapshot)


@pytest.fixture
def diff_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(DiffSnapshot)


@pytest.fixture
def json_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(JsonSnapshot)
