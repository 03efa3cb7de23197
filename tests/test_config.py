"""Configuration: discovery of [tool.unsentinel], --config, validation, CLI overrides."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import WriteTree

from unsentinel.cli import main
from unsentinel.core.config import DEFAULT_EXCLUDES, Section, SectionContext
from unsentinel.core.config import load_config as load_common
from unsentinel.core.config_checks import ConfigError
from unsentinel.errors.settings import ErrorSettings, error_settings
from unsentinel.registry import SECTIONS, configured, load_config
from unsentinel.warnings.settings import WarningSettings, warning_settings

pytestmark = pytest.mark.usefixtures("detector_rules")

STOP = 'issues.append("STOP: out of stock")\nx = "BLOCK: default prefix"\n'


def test_defaults_without_any_pyproject(tmp_path: Path) -> None:
    config = load_config((tmp_path,))
    assert config.source is None
    assert warning_settings(config).sentinel_prefixes == ("BLOCK:",)
    assert warning_settings(config).sentinel_constants == ("BLOCK_WARNING_PREFIX",)
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
    assert warning_settings(config).sentinel_prefixes == ("STOP: ",)
    assert config.root == tmp_path.resolve()


def test_the_nearest_table_wins(tmp_path: Path, write_tree: WriteTree) -> None:
    write_tree(
        {
            "pyproject.toml": '[tool.unsentinel]\nsentinel-prefixes = ["OUTER:"]\n',
            "sub/pyproject.toml": '[tool.unsentinel]\nsentinel-prefixes = ["INNER:"]\n',
        }
    )
    config = load_config((tmp_path / "sub",))
    assert warning_settings(config).sentinel_prefixes == ("INNER:",)
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
    assert warning_settings(config).sentinel_constants == ("HARD_STOP",)
    assert warning_settings(config).warning_list_names == ("issues",)
    assert warning_settings(config).codes_module == "app/codes.py"
    assert config.max_file_size == 10
    assert config.include_generated is True
    assert warning_settings(config).severity_markers == {"BLOCK:": "blocking", "WARN:": "advisory"}


def test_overrides_beat_the_file_and_none_means_unset(
    tmp_path: Path, write_tree: WriteTree
) -> None:
    write_tree({"pyproject.toml": '[tool.unsentinel]\nselect = ["UNS002"]\n'})
    assert load_config((tmp_path,), select=None).select == ("UNS002",)
    assert load_config((tmp_path,), select=("UNS001",)).select == ("UNS001",)


def test_a_feature_setting_may_be_overridden_like_a_common_one(
    tmp_path: Path, write_tree: WriteTree
) -> None:
    write_tree({"pyproject.toml": '[tool.unsentinel]\nsentinel-prefixes = ["STOP:"]\n'})
    config = load_config((tmp_path,), sentinel_prefixes=("HALT:",), error_target=None)
    assert warning_settings(config).sentinel_prefixes == ("HALT:",)
    assert error_settings(config).error_target == "envelope"
    with pytest.raises(KeyError, match="no setting named sentinel_prefix"):
        load_config((tmp_path,), sentinel_prefix=("HALT:",))


def test_config_file_in_pyproject_shape(tmp_path: Path, write_tree: WriteTree) -> None:
    write_tree({"ci/settings.toml": '[tool.unsentinel]\nsentinel-prefixes = ["STOP:"]\n'})
    config = load_config((tmp_path,), tmp_path / "ci" / "settings.toml")
    assert warning_settings(config).sentinel_prefixes == ("STOP:",)


def test_config_file_with_top_level_keys(tmp_path: Path, write_tree: WriteTree) -> None:
    write_tree({"unsentinel.toml": 'sentinel-prefixes = ["STOP:"]\n'})
    config = load_config((tmp_path,), tmp_path / "unsentinel.toml")
    assert warning_settings(config).sentinel_prefixes == ("STOP:",)


def test_config_pyproject_without_the_table_means_defaults(
    tmp_path: Path, write_tree: WriteTree
) -> None:
    write_tree({"other/pyproject.toml": "[project]\nname = 'x'\n"})
    config = load_config((tmp_path,), tmp_path / "other" / "pyproject.toml")
    assert warning_settings(config).sentinel_prefixes == ("BLOCK:",)


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
            "sentinel-prefix = ['X']",
            "unknown key 'tool.unsentinel.sentinel-prefix'; did you mean 'sentinel-prefixes'?",
            id="typo in a warning key",
        ),
        pytest.param(
            "selct = ['UNS001']",
            "unknown key 'tool.unsentinel.selct'; did you mean 'select'?",
            id="typo in a common key",
        ),
        pytest.param(
            "error-taget = 'helper'",
            "unknown key 'tool.unsentinel.error-taget'; did you mean 'error-target'?",
            id="typo in an error key",
        ),
        pytest.param(
            "error-target = 'helpr'",
            "'tool.unsentinel.error-target' must be one of envelope, helper, got 'helpr'; "
            "did you mean 'helper'?",
            id="typo in an error value",
        ),
        pytest.param(
            "markers = { 'STOP:' = 'blockng' }",
            "got 'blockng'; did you mean 'blocking'?",
            id="typo in a severity",
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


def test_a_key_far_from_every_known_one_gets_no_guess(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.unsentinel]\nzzz = 1\n")
    with pytest.raises(ConfigError) as raised:
        load_config((tmp_path,))
    assert "did you mean" not in str(raised.value)
    assert "(known keys: codes-module, " in str(raised.value)  # features' keys are listed too


# -- the hook: the core reads common keys, each feature its own section ----------------------


def test_the_core_alone_knows_no_feature_key(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.unsentinel]\ncodes-module = "c.py"\n')
    with pytest.raises(ConfigError, match="unknown key 'tool.unsentinel.codes-module'"):
        load_common((tmp_path,), sections=())
    assert warning_settings(load_config((tmp_path,))).codes_module == "c.py"


@dataclass(frozen=True)
class _Toy:
    toy_module: str = "toy.py"
    toy_level: int = 1


def test_a_section_reads_only_its_own_keys_with_the_project_around_them(
    tmp_path: Path, write_tree: WriteTree
) -> None:
    seen: list[tuple[dict[str, object], SectionContext]] = []

    def read(table: Mapping[str, object], context: SectionContext) -> _Toy:
        seen.append((dict(table), context))
        return _Toy(toy_level=int(str(table.get("toy-level", 1))))

    write_tree(
        {
            "pyproject.toml": "[tool.unsentinel]\ntoy-level = 3\nselect = ['UNS001']\n",
            "src/shop/__init__.py": "",
        }
    )
    toy = Section(_Toy, read, lambda toy: {"toy-module": toy.toy_module})
    config = load_common((tmp_path,), sections=(toy,))
    [(table, context)] = seen
    assert table == {"toy-level": 3}
    assert (context.root, context.prefix, context.package) == (
        tmp_path.resolve(),
        "tool.unsentinel.",
        "src/shop",
    )
    assert config.section(_Toy) == _Toy(toy_level=3)
    assert config.select == ("UNS001",)


def test_a_section_output_outside_the_root_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.unsentinel]\n")
    toy = Section(
        _Toy, lambda _t, _c: _Toy(toy_module="../out.py"), lambda t: {"toy": t.toy_module}
    )
    with pytest.raises(ConfigError, match="'toy' = '../out.py' leads outside the project root"):
        load_common((tmp_path,), sections=(toy,))


def test_two_sections_owning_one_key_is_a_wiring_error(tmp_path: Path) -> None:
    toy = Section(_Toy, lambda _t, _c: _Toy())
    with pytest.raises(ValueError, match="registered twice"):
        load_common((tmp_path,), sections=(toy, toy))


def test_generated_modules_default_into_the_one_package(
    tmp_path: Path, write_tree: WriteTree
) -> None:
    write_tree({"pyproject.toml": "[tool.unsentinel]\n", "shop/__init__.py": ""})
    config = load_config((tmp_path,))
    assert warning_settings(config).codes_module == "shop/warning_codes.py"
    assert error_settings(config).error_model_module == "shop/error_model.py"


def test_a_config_built_in_code_has_every_sections_defaults() -> None:
    config = configured(sentinel_prefixes=("STOP:",), max_file_size=10)
    assert config.max_file_size == 10
    assert warning_settings(config) == WarningSettings(sentinel_prefixes=("STOP:",))
    assert error_settings(config) == ErrorSettings()
    assert [section.kind for section in SECTIONS] == [WarningSettings, ErrorSettings]
    with pytest.raises(KeyError, match="no setting named sentinel_prefix"):
        configured(sentinel_prefix=("STOP:",))


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
