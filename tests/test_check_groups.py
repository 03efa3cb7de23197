"""``check`` reports every site of a group that ``plan``, ``diff`` and ``apply`` skip.

A connected group of producers, consumers and annotations that cannot migrate whole is left
as it is by the rewriting commands and listed as ``skip`` with the blocker. Its sentinel is
still in the code, so ``check`` (the CI guard) must still fail on it: skipping is a decision
about rewriting, never a suppression.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from unsentinel.core.model import Action, Mode
from unsentinel.registry import load_config, run

CHECKS = """
    BLOCK_WARNING_PREFIX = "BLOCK:"

    def check_rows(rows, warnings: list[str]) -> None:
        for row in rows:
            if not row:
                warnings.append(f"{BLOCK_WARNING_PREFIX} empty row")
"""
# `note` is of unknown type: the list it joins cannot become a list of Warning.
TOOL = """
    from app.checks import BLOCK_WARNING_PREFIX, check_rows

    def run_tool(rows, note):
        warnings: list[str] = []
        check_rows(rows, warnings)
        warnings.append(note)
        blocked = any(w.startswith(BLOCK_WARNING_PREFIX) for w in warnings)
        return blocked, warnings
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name, text in {"app/__init__.py": "", "app/checks.py": CHECKS, "app/tool.py": TOOL}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return tmp_path


def _sites(root: Path, mode: Mode) -> set[tuple[str, int, str]]:
    result = run([root], load_config((root,)), mode, jobs=1)
    return {
        (Path(file.path).name, site.position.line, site.rule)
        for file in result.results
        for site in file.sites
        if mode is not Mode.PLAN or site.action is Action.SKIP
    }


def test_check_reports_the_sites_of_a_group_plan_skips(project: Path) -> None:
    skipped = _sites(project, Mode.PLAN)
    reported = _sites(project, Mode.CHECK)

    producer = ("checks.py", 6, "UNS101")
    consumer = ("tool.py", 7, "UNS201")
    assert {producer, consumer} <= skipped  # the rewriting commands leave the group alone
    assert {producer, consumer} <= reported  # and check still fails on it
