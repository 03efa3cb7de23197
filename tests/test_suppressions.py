"""Suppressions and the baseline: unused ``noqa`` (UNS902), ``--add-noqa``, ``--baseline``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from unsentinel.cli import main
from unsentinel.registry import rewrite_source

ORDERS = """\
def complete(order: dict, warnings: list[str]) -> None:
    if order["done"]:
        warnings.append("BLOCK: Order is already completed.")
    warnings.append("BLOCK: Stock is low.")  # keep: from the warehouse
"""


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(main, [*args, "-j1", "--no-cache"])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n", encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg/orders.py").write_text(ORDERS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def unused(source: str) -> list[str]:
    _new, sites = rewrite_source(source)
    return [s.message for s in sites if s.rule == "UNS902"]


# -- unused noqa --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            'def f(warnings: list[str]):\n    warnings.append("BLOCK: x")  # noqa: UNS101\n',
            [],
            id="a used suppression",
        ),
        pytest.param(
            "x = 1  # noqa: UNS101\n",
            ["Unused `noqa` directive: nothing to suppress for UNS101"],
            id="nothing on the line",
        ),
        pytest.param(
            'def f(warnings: list[str]):\n    warnings.append("BLOCK: x")  # noqa: UNS101,UNS201\n',
            ["Unused `noqa` directive: nothing to suppress for UNS201"],
            id="one code of two used",
        ),
        pytest.param(
            "x = 1  # noqa: UNS998\n", ["`noqa` names UNS998, which is no rule"], id="no such rule"
        ),
        pytest.param("x = 1  # noqa: E501, F401\n", [], id="other tools' codes"),
        pytest.param("x = 1  # noqa\n", [], id="a bare noqa"),
    ],
)
def test_unused_noqa(source: str, expected: list[str]) -> None:
    assert unused(source) == expected


def test_check_reports_unused_noqa(project: Path) -> None:
    (project / "pkg/util.py").write_text("LIMIT = 3  # noqa: UNS101\n", encoding="utf-8")

    result = invoke("check", "pkg/util.py")

    assert result.exit_code == 1
    assert result.stdout == (
        "pkg/util.py:1:12: UNS902 Unused `noqa` directive: nothing to suppress for UNS101\n"
    )


def test_a_disabled_rules_noqa_is_not_judged() -> None:
    from dataclasses import replace

    from unsentinel.core.config import Config

    config = replace(Config(), ignore=("UNS101",))
    _new, sites = rewrite_source("x = 1  # noqa: UNS101\n", config)
    assert [s for s in sites if s.rule == "UNS902"] == []


# -- --add-noqa ---------------------------------------------------------------------------


def test_add_noqa_suppresses_every_finding_and_keeps_comments(project: Path) -> None:
    result = invoke("check", ".", "--add-noqa")

    assert result.exit_code == 0, result.stderr
    text = (project / "pkg/orders.py").read_text(encoding="utf-8")
    assert 'completed.")  # noqa: UNS101\n' in text
    assert '"BLOCK: Stock is low.")  # keep: from the warehouse  # noqa: UNS101\n' in text
    assert "list[str]) -> None:  # noqa: UNS301\n" in text
    assert invoke("check", ".").exit_code == 0


def test_add_noqa_extends_an_existing_directive(project: Path) -> None:
    source = ORDERS.replace('completed.")', 'completed.")  # noqa: E501')
    (project / "pkg/orders.py").write_text(source, encoding="utf-8")

    invoke("check", ".", "--add-noqa")

    text = (project / "pkg/orders.py").read_text(encoding="utf-8")
    assert 'completed.")  # noqa: E501, UNS101\n' in text


def test_add_noqa_never_writes_inside_a_string(project: Path) -> None:
    source = 'def f(warnings: list[str]):\n    warnings.append("""BLOCK: two\nlines""")\n'
    (project / "pkg/orders.py").write_text(source, encoding="utf-8")

    invoke("check", ".", "--add-noqa")

    text = (project / "pkg/orders.py").read_text(encoding="utf-8")
    assert 'lines""")  # noqa: UNS101\n' in text
    assert invoke("check", ".").exit_code == 0


def test_add_noqa_twice_adds_nothing(project: Path) -> None:
    invoke("check", ".", "--add-noqa")
    once = (project / "pkg/orders.py").read_text(encoding="utf-8")

    result = invoke("check", ".", "--add-noqa")

    assert "added 0 noqa directive(s)" in result.stderr
    assert (project / "pkg/orders.py").read_text(encoding="utf-8") == once


# -- the baseline -------------------------------------------------------------------------


def test_a_baseline_hides_known_findings(project: Path) -> None:
    written = invoke("check", ".", "--write-baseline", "baseline.json")
    assert written.exit_code == 0
    recorded = json.loads((project / "baseline.json").read_text(encoding="utf-8"))
    assert {e["rule"] for e in recorded["findings"]} == {"UNS101", "UNS301"}

    result = invoke("check", ".", "--baseline", "baseline.json")

    assert result.exit_code == 0
    assert result.stdout == ""


def test_a_baseline_survives_lines_moving(project: Path) -> None:
    invoke("check", ".", "--write-baseline", "baseline.json")
    orders = project / "pkg/orders.py"
    orders.write_text('"""Orders."""\n\nimport os\n\n' + ORDERS, encoding="utf-8")

    assert invoke("check", ".", "--baseline", "baseline.json").exit_code == 0


def test_a_new_finding_fails_despite_the_baseline(project: Path) -> None:
    invoke("check", ".", "--write-baseline", "baseline.json")
    orders = project / "pkg/orders.py"
    orders.write_text(ORDERS + '    warnings.append("BLOCK: Carrier is late.")\n', "utf-8")

    result = invoke("check", ".", "--baseline", "baseline.json")

    assert result.exit_code == 1
    assert result.stdout.count("\n") == 1
    assert result.stdout.startswith("pkg/orders.py:5:21: UNS101")


def test_a_duplicate_of_a_known_finding_is_new(project: Path) -> None:
    invoke("check", ".", "--write-baseline", "baseline.json")
    orders = project / "pkg/orders.py"
    orders.write_text(ORDERS + '    warnings.append("BLOCK: Stock is low.")\n', "utf-8")

    result = invoke("check", ".", "--baseline", "baseline.json")

    assert result.exit_code == 1
    assert result.stdout.count("UNS101") == 1


def test_a_malformed_baseline_is_an_error(project: Path) -> None:
    (project / "baseline.json").write_text("[]", encoding="utf-8")

    result = invoke("check", ".", "--baseline", "baseline.json")

    assert result.exit_code == 2
    assert "not a baseline written by --write-baseline" in result.stderr
