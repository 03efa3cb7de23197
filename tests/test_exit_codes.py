"""The exit-code table in ``unsentinel.cli.exit_codes`` covers every command and holds.

tests/test_cli_behaviour.py runs check, diff, apply and plan over real trees; here the
table itself is checked for every command and every outcome, and the rows the other tests
do not run end to end (undo, rule, recording a baseline) are run through the CLI.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import WriteTree

from unsentinel.cli import exit_codes, main
from unsentinel.cli.exit_codes import ACT, ERROR, OK, POLICY, Outcome, exit_code

SENTINEL = 'warnings = []\nwarnings.append("BLOCK: order is empty")\n'

# What each command's --help and docs promise, written out independently of the module.
PROMISED: dict[str, Callable[[Outcome], bool]] = {
    "check": lambda o: o.findings and not o.exit_zero,
    "diff": lambda o: o.changes and not o.exit_zero,
    "apply": lambda o: (o.written and o.exit_non_zero_on_fix) or o.refused,
    "plan": lambda o: False,
    "undo": lambda o: False,
    "clean": lambda o: False,
    "rule": lambda o: False,
}


def every_outcome() -> list[Outcome]:
    names = [f.name for f in fields(Outcome)]
    return [
        Outcome(**dict(zip(names, values, strict=True)))
        for values in itertools.product((False, True), repeat=len(names))
    ]


def test_every_command_has_a_row_and_every_row_a_command() -> None:
    assert set(POLICY) == set(main.commands) == set(PROMISED)


def test_the_documented_table_names_every_command() -> None:
    doc = exit_codes.__doc__ or ""
    for command in POLICY:
        assert f"\n{command} " in doc, command


@pytest.mark.parametrize("command", sorted(PROMISED))
def test_the_table_holds_for_every_outcome(command: str) -> None:
    for outcome in every_outcome():
        expected = ERROR if outcome.error else ACT if PROMISED[command](outcome) else OK
        assert exit_code(command, outcome) == expected, (command, outcome)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_tree: WriteTree) -> Path:
    write_tree({"pyproject.toml": "[project]\nname = 'demo'\n", "pkg/orders.py": SENTINEL})
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["rule", "UNS101"], OK),
        (["rule", "--all"], OK),
        (["rule", "UNS99999"], ERROR),  # unknown rule
        (["rule"], ERROR),  # usage: a CODE or --all
        (["undo"], ERROR),  # nothing to undo
        (["clean"], OK),  # no cache: nothing to remove
        (["check", ".", "--write-baseline", "baseline.json"], OK),  # findings, recorded
        (["check", ".", "--exit-zero"], OK),
        (["check", "."], ACT),
    ],
)
def test_commands_exit_as_the_table_says(
    cli: CliRunner, project: Path, args: list[str], expected: int
) -> None:
    result = cli.invoke(main, args)
    assert result.exit_code == expected, result.stderr


@pytest.mark.usefixtures("rewriting_rule")
def test_undo_after_an_apply_exits_0(cli: CliRunner, project: Path) -> None:
    applied = cli.invoke(main, ["apply", ".", "-j1", "--exit-non-zero-on-fix"])
    assert applied.exit_code == ACT, applied.stderr  # files were written
    undone = cli.invoke(main, ["undo"])
    assert undone.exit_code == OK, undone.stderr
    assert (project / "pkg/orders.py").read_text(encoding="utf-8") == SENTINEL
