"""Configuration: discovery of [tool.unsentinel], --config, validation, CLI overrides."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import WriteTree

from unsentinel.cli import main
from unsentinel.core.config import DEFAULT_EXCLUDES, ConfigError, load_config

pytestmark = pytest.mark.usefixtures("detector_rules")

STOP = 'issues.append("STOP: out of stock")\nx = "BLOCK: default prefix"\n'


def test_defaults_without_any_pyproject(tmp_path: Path) -> None:
    config = load_config((tmp_path,))
    assert config.source is None
    assert config.sentinel_prefixes == ("BLOCK:",)
    assert config.sentinel_constants == ("BLOCK_WARNING_PREFIX",)
    assert config.exclude == DEFAULT_EXCLUDES
    assert config.root == tmp_path.resolve()


def test_nearest_pyproject_with_the_table_is_found_upward(
    tmp_path: Path, write_tree: WriteTree
) -> None:
    write_tree(
        {
            "pyproject.toml": '[tool.unsentinel]\nsentinel-prefixes = ["STOP: "]\n',
            "sub/pyproject.toml": "[project]\nname = 'sub'\n",  # no table: keep looking
            "sub/pkg/mod.py": "",
        }
    )
    config = load_config((tmp_path / "sub" / "pkg" / "mod.py",))
    assert config.source == tmp_path / "pyproject.toml"
    assert config.sentinel_prefixes == ("STOP: ",)
    assert config.root == tmp_path.resolve()


def test_the_nearest_table_wins(tmp_path: Path, write_tree: WriteTree) -> None:
    write_tree(
        {
            "pyproject.toml": '[tool.unsentinel]\nsentinel-prefixes = ["OUTER:"]\n',
            "sub/pyproject.toml": '[tool.unsentinel]\nsentinel-prefixes = ["INNER:"]\n',
        }
    )
    config = load_config((tmp_path / "sub",))
    assert config.sentinel_prefixes == ("INNER:",)
    assert config.root == (tmp_path / "sub").resolve()


def test_kebab_case_keys_become_fields(tmp_path: Path, write_tree: WriteTree) -> None:
    write_tree(
        {
            "pyproject.toml": (
                "[tool.unsentinel]\n"
                'sentinel-constants = ["HARD_STOP"]\n'
                'warning-list-names = ["issues"]\n'
                'codes-module = "app/codes.py"\n'
                "max-file-size = 10\n"
                "include-generated = true\n"
                'markers = { "WARN:" = "advisory" }\n'
            )
        }
    )
    config = load_config((tmp_path,))
    assert config.sentinel_constants == ("HARD_STOP",)
    assert config.warning_list_names == ("issues",)
    assert config.codes_module == "app/codes.py"
    assert config.max_file_size == 10
    assert config.include_generated is True
    assert config.severity_markers == {"BLOCK:": "blocking", "WARN:": "advisory"}


def test_overrides_beat_the_file_and_none_means_unset(
    tmp_path: Path, write_tree: WriteTree
) -> None:
    write_tree({"pyproject.toml": '[tool.unsentinel]\nselect = ["UNS002"]\n'})
    assert load_config((tmp_path,), select=None).select == ("UNS002",)
    assert load_config((tmp_path,), select=("UNS001",)).select == ("UNS001",)


def test_config_file_in_pyproject_shape(tmp_path: Path, write_tree: WriteTree) -> None:
    write_tree({"ci/settings.toml": '[tool.unsentinel]\nsentinel-prefixes = ["STOP:"]\n'})
    config = load_config((tmp_path,), tmp_path / "ci" / "settings.toml")
    assert config.sentinel_prefixes == ("STOP:",)


def test_config_file_with_top_level_keys(tmp_path: Path, write_tree: WriteTree) -> None:
    write_tree({"unsentinel.toml": 'sentinel-prefixes = ["STOP:"]\n'})
    config = load_config((tmp_path,), tmp_path / "unsentinel.toml")
    assert config.sentinel_prefixes == ("STOP:",)


def test_config_pyproject_without_the_table_means_defaults(
    tmp_path: Path, write_tree: WriteTree
) -> None:
    write_tree({"other/pyproject.toml": "[project]\nname = 'x'\n"})
    config = load_config((tmp_path,), tmp_path / "other" / "pyproject.toml")
    assert config.sentinel_prefixes == ("BLOCK:",)


def test_config_file_elsewhere_keeps_the_project_root(
    tmp_path: Path, write_tree: WriteTree
) -> None:
    write_tree(
        {
            "project/pyproject.toml": "[project]\nname = 'p'\n",
            "project/pkg/mod.py": "",
            "shared/unsentinel.toml": 'sentinel-prefixes = ["STOP:"]\n',
        }
    )
    config = load_config((tmp_path / "project" / "pkg",), tmp_path / "shared" / "unsentinel.toml")
    assert config.root == (tmp_path / "project").resolve()
    assert config.source == tmp_path / "shared" / "unsentinel.toml"


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        pytest.param(
            "sentinel-prefix = ['X']", "unknown key 'tool.unsentinel.sentinel-prefix'", id="typo"
        ),
        pytest.param(
            "sentinel-prefixes = 'BLOCK:'",
            "'tool.unsentinel.sentinel-prefixes' must be a list of strings, got str",
            id="string for a list",
        ),
        pytest.param(
            "select = [1]",
            "'tool.unsentinel.select' must be a list of strings, got list",
            id="list of ints",
        ),
        pytest.param(
            "codes-module = ''",
            "'tool.unsentinel.codes-module' must be a non-empty string",
            id="empty string",
        ),
        pytest.param(
            "max-file-size = true",
            "'tool.unsentinel.max-file-size' must be a positive integer, got bool",
            id="bool for an int",
        ),
        pytest.param(
            "include-generated = 'yes'",
            "'tool.unsentinel.include-generated' must be true or false, got str",
            id="string for a bool",
        ),
        pytest.param(
            "markers = ['STOP:']",
            "'tool.unsentinel.markers' must be a table of prefix = severity, got list",
            id="list for a table",
        ),
        pytest.param(
            "markers = { 'STOP:' = 'fatal' }",
            "'tool.unsentinel.markers.\"STOP:\"' must be one of info, advisory, blocking",
            id="unknown severity",
        ),
        pytest.param("select = [", "invalid TOML", id="broken toml"),
    ],
)
def test_bad_config_exits_2_naming_key_and_file(
    cli: CliRunner,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    write_tree: WriteTree,
    toml: str,
    message: str,
) -> None:
    write_tree({"pyproject.toml": f"[tool.unsentinel]\n{toml}\n", "mod.py": STOP})
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="pyproject.toml"):
        load_config((Path("."),))
    result = cli.invoke(main, ["check", "."])
    assert result.exit_code == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: {tmp_path.resolve() / 'pyproject.toml'}: ")
    assert message in line


def test_unknown_key_in_a_top_level_config_file(cli: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "cfg.toml").write_text("prefixes = ['X']\n")
    result = cli.invoke(main, ["check", str(tmp_path), "--config", str(tmp_path / "cfg.toml")])
    assert result.exit_code == 2
    assert f"error: {tmp_path / 'cfg.toml'}: unknown key 'prefixes'" in result.stderr


def test_missing_config_file_exits_2(cli: CliRunner, tmp_path: Path) -> None:
    result = cli.invoke(main, ["check", str(tmp_path), "--config", str(tmp_path / "no.toml")])
    assert result.exit_code == 2
    assert "no.toml: cannot read configuration" in result.stderr


# -- end to end through the CLI -----------------------------------------------------------


@pytest.fixture
def stop_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_tree: WriteTree) -> Path:
    write_tree(
        {
            "pyproject.toml": (
                "[tool.unsentinel]\n"
                'sentinel-prefixes = ["STOP: "]\n'
                'select = ["UNS001"]\n'
                'extend-exclude = ["legacy"]\n'
            ),
            "pkg/mod.py": STOP + "y = BLOCK_WARNING_PREFIX\n",
            "legacy/old.py": STOP,
        }
    )
    monkeypatch.chdir(tmp_path / "pkg")  # the search starts at the path, not at cwd only
    return tmp_path


def _findings(result_stdout: str) -> list[str]:
    return [" ".join(line.split()[:2]) for line in result_stdout.splitlines()]


def test_cli_uses_the_discovered_config(cli: CliRunner, stop_project: Path) -> None:
    result = cli.invoke(main, ["check", str(stop_project)])
    assert result.exit_code == 1
    assert _findings(result.stdout) == ["mod.py:1:15: UNS001"]


def test_cli_select_overrides_the_config(cli: CliRunner, stop_project: Path) -> None:
    result = cli.invoke(main, ["check", str(stop_project), "--select", "UNS002"])
    assert _findings(result.stdout) == ["mod.py:3:5: UNS002"]


def test_cli_extend_exclude_overrides_the_config(cli: CliRunner, stop_project: Path) -> None:
    result = cli.invoke(main, ["check", str(stop_project), "--extend-exclude", "nothing"])
    assert _findings(result.stdout) == ["../legacy/old.py:1:15: UNS001", "mod.py:1:15: UNS001"]


def test_cli_config_option(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_tree: WriteTree
) -> None:
    write_tree({"mod.py": STOP, "elsewhere/cfg.toml": 'sentinel-prefixes = ["STOP: "]\n'})
    monkeypatch.chdir(tmp_path)
    default = cli.invoke(main, ["check", "mod.py"])
    assert _findings(default.stdout) == ["mod.py:2:5: UNS001"]
    configured = cli.invoke(main, ["check", "mod.py", "--config", "elsewhere/cfg.toml"])
    assert _findings(configured.stdout) == ["mod.py:1:15: UNS001"]
