"""Output valid for the project's lowest Python, whatever Python runs the tool."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from unsentinel.core.config import Config
from unsentinel.core.config_checks import ConfigError
from unsentinel.core.pyversion import lowest_from_requires_python, parse_target
from unsentinel.registry import load_config, rewrite_source

DUMPED = """
def show(data):
    for w in data["warnings"]:
        print(f"warning: {w}")
"""

COUNTED = """
BLOCK_WARNING_PREFIX = "BLOCK: "


def summary(warnings: list[str]) -> str:
    return f"{sum(1 for w in warnings if w.startswith(BLOCK_WARNING_PREFIX))} issues"
"""


@pytest.mark.parametrize("target", [(3, 10), (3, 11)], ids=["py310", "py311"])
@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(DUMPED, "f\"warning: {w['message']}\"", id="dumped dict in an f-string"),
        pytest.param(COUNTED, "w.severity == 'blocking'", id="severity check in an f-string"),
    ],
)
def test_strings_in_fstrings_take_the_other_quote_before_312(
    source: str, expected: str, target: tuple[int, int]
) -> None:
    new, _sites = rewrite_source(source, Config(target=target))
    assert expected in new
    ast.parse(new, feature_version=target)


def test_a_312_target_also_gets_the_other_quote_for_the_rewrite_s_strings() -> None:
    """Valid on every version, and readable by parsers older than PEP 701 (the tool's own
    when it runs on 3.11: the same quote made the file pipeline refuse the rewrite)."""
    new, _sites = rewrite_source(COUNTED, Config(target=(3, 12)))
    assert "w.severity == 'blocking'" in new
    ast.parse(new, feature_version=(3, 10))


def test_a_312_target_keeps_the_project_s_own_nested_quotes() -> None:
    source = COUNTED + '\n\ndef label(d: dict[str, str]) -> str:\n    return f"{d["name"]}"\n'
    new, _sites = rewrite_source(source, Config(target=(3, 12)))
    assert "w.severity == 'blocking'" in new
    assert 'return f"{d["name"]}"' in new  # not ours to restyle


def test_a_312_project_migrates_a_severity_check_in_an_fstring(tmp_path: Path) -> None:
    from unsentinel.core.model import Mode, Status
    from unsentinel.registry import run

    (tmp_path / "pyproject.toml").write_text('[project]\nrequires-python = ">=3.12"\n')
    (tmp_path / "mod.py").write_text(COUNTED.lstrip("\n"))
    result = run([tmp_path], load_config((tmp_path,)), Mode.DIFF, jobs=1)
    [module] = [r for r in result.results if r.path.endswith("mod.py")]
    assert module.status is Status.PARSED, module.error
    assert module.new_text is not None and "w.severity == 'blocking'" in module.new_text


def test_requires_python_sets_the_target(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nrequires-python = ">=3.11"\n')
    assert load_config((tmp_path,)).target == (3, 11)


def test_target_version_wins_over_requires_python(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nrequires-python = ">=3.12"\n[tool.unsentinel]\ntarget-version = "py310"\n'
    )
    assert load_config((tmp_path,)).target == (3, 10)
    assert load_config((tmp_path,), target_version="py311").target == (3, 11)


def test_an_invalid_target_version_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.unsentinel]\ntarget-version = "3.10"\n')
    with pytest.raises(ConfigError, match="must look like"):
        load_config((tmp_path,))


@pytest.mark.parametrize(
    ("spec", "lowest"),
    [(">=3.10", (3, 10)), (">=3.9, <4", (3, 9)), ("~=3.11", (3, 11)), ("<4", None)],
)
def test_lowest_from_requires_python(spec: str, lowest: tuple[int, int] | None) -> None:
    assert lowest_from_requires_python(spec) == lowest


def test_parse_target() -> None:
    assert parse_target("py312") == (3, 12)
    assert parse_target("3.12") is None


def test_newer_syntax_than_the_running_python_is_valid_input(tmp_path: Path) -> None:
    """A project on 3.12 (PEP 695) migrates even when the tool runs on an older Python."""
    from unsentinel.core.model import Mode, Status
    from unsentinel.registry import run

    (tmp_path / "pyproject.toml").write_text('[project]\nrequires-python = ">=3.12"\n')
    (tmp_path / "mod.py").write_text(
        "def first[T](items: list[T]) -> T:\n    return items[0]\n\n\n"
        'def check(order):\n    warnings = []\n    warnings.append("BLOCK: empty")\n'
        "    return warnings\n"
    )
    result = run([tmp_path], load_config((tmp_path,)), Mode.DIFF, jobs=1)
    [module] = [r for r in result.results if r.path.endswith("mod.py")]
    assert module.status is Status.PARSED, module.error
    assert module.new_text is not None and "def first[T]" in module.new_text
    assert 'severity="blocking"' in module.new_text
