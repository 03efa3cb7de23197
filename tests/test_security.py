"""Security: unsentinel reads code, never runs it, and never writes outside the project root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from unsentinel.cli import main
from unsentinel.core import journal
from unsentinel.core.config import Config
from unsentinel.core.config_checks import ConfigError
from unsentinel.core.model import Mode
from unsentinel.registry import SECTIONS, configured, load_config, run
from unsentinel.warnings.settings import warning_settings

PRODUCER = 'def f(warnings):\n    warnings.append("BLOCK: order is empty")\n'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.unsentinel]\n")
    (root / "mod.py").write_text(PRODUCER)
    monkeypatch.chdir(root)
    return root


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


# -- static only ------------------------------------------------------------------------------


def test_code_that_would_write_a_marker_on_import_is_migrated_not_run(
    cli: CliRunner, project: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "MARKER"
    hostile = f"""
import os, pathlib, subprocess
pathlib.Path({str(marker)!r}).write_text("imported")
os.system("touch {marker}")
subprocess.run(["touch", {str(marker)!r}])
__import__("builtins").exec("open({str(marker)!r}, 'w')")


class Meta(type):
    def __new__(mcs, *args):
        pathlib.Path({str(marker)!r}).write_text("class body ran")
        return super().__new__(mcs, *args)


def warn(warnings):
    warnings.append("BLOCK: order is empty")


if __name__ == "__main__":
    pathlib.Path({str(marker)!r}).write_text("ran as main")
"""
    for name in ("hostile.py", "conftest.py", "setup.py", "__main__.py", "sitecustomize.py"):
        (project / name).write_text(hostile)
    (project / "pkg").mkdir()
    (project / "pkg" / "__init__.py").write_text(hostile)
    # check and diff: 1 (findings, changes); plan: a listing; apply: everything was written.
    for command, code in (("check", 1), ("diff", 1), ("plan", 0), ("apply", 0)):
        result = cli.invoke(main, [command, "."])
        assert result.exit_code == code, result.stderr
        assert not marker.exists(), f"{command} executed project code"
    migrated = (project / "hostile.py").read_text()
    assert 'warnings.append("BLOCK:' not in migrated
    assert "Warning(" in migrated


# -- never write outside the root -----------------------------------------------------------

ESCAPES = [
    pytest.param(
        'codes-module = "../warning_codes.py"', "codes-module", id="codes module climbs out"
    ),
    pytest.param(
        'models-module = "pkg/../../m.py"', "models-module", id="models module climbs out"
    ),
    pytest.param(
        'error-codes-module = "/tmp/error_codes.py"', "error-codes-module", id="absolute path"
    ),
    pytest.param(
        'error-model-module = "out/error_model.py"', "error-model-module", id="symlinked dir"
    ),
    pytest.param('codes-module = "codes.py"', "codes-module", id="symlinked file"),
]


@pytest.mark.parametrize(("line", "key"), ESCAPES)
def test_configured_output_outside_the_root_is_refused(
    cli: CliRunner, project: Path, tmp_path: Path, line: str, key: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "out").symlink_to(outside)
    (project / "codes.py").symlink_to(outside / "codes.py")
    (project / "pyproject.toml").write_text(f"[tool.unsentinel]\n{line}\n")
    before = (project / "mod.py").read_bytes()
    for command in ("check", "apply"):
        result = cli.invoke(main, [command, "."])
        assert result.exit_code == 2
        [error] = _errors(result.stderr)
        assert f"'{key}'" in error
        assert "project root" in error
    assert (project / "mod.py").read_bytes() == before
    assert sorted(p.name for p in outside.iterdir()) == []
    assert not (tmp_path / "warning_codes.py").exists()


def test_output_inside_the_root_through_a_symlink_is_fine(project: Path) -> None:
    (project / "real").mkdir()
    (project / "gen").symlink_to(project / "real")
    (project / "pyproject.toml").write_text('[tool.unsentinel]\ncodes-module = "gen/codes.py"\n')
    config = load_config((project,))
    assert warning_settings(config).codes_module == "gen/codes.py"


def test_library_config_that_escapes_is_refused_at_write_time(
    project: Path, tmp_path: Path
) -> None:
    """A Config built in code skips validation: the writer still refuses to leave the root."""
    config = configured(Config(root=project), codes_module="../escaped_codes.py")
    with pytest.raises(ConfigError):
        from unsentinel.core.config import check_output_paths

        check_output_paths(config, SECTIONS)
    result = run([project], config, Mode.APPLY, jobs=1)
    assert result.write_errors == (
        ("../escaped_codes.py", f"outside the project root {project}; not written"),
    )
    assert not (tmp_path / "escaped_codes.py").exists()
    # All or nothing: the refused module fails the run, so the rest is held back, unwritten.
    assert result.written == ()
    assert result.exit_code == 2
    assert (project / "mod.py").read_text() == PRODUCER
    ours = journal.JOURNAL_DIR  # our own state, not a project file
    assert sorted(p.name for p in project.iterdir() if p.name != ours) == [
        "mod.py",
        "pyproject.toml",
    ]
    assert "mod.py" in {Path(path).name for path in result.held_back}
    # Held back: the other files that would change; the refused module failed, it is not one.
    assert sorted(result.held_back) == sorted(
        r.path for r in result.changed if r.path != "../escaped_codes.py"
    )


@pytest.mark.parametrize("output", ["../plan.json", "link/plan.json"])
def test_plan_output_may_go_outside_the_root(
    cli: CliRunner, project: Path, tmp_path: Path, output: str
) -> None:
    """A plan is not project source: ``-o`` writes it wherever the user asks (issue 12)."""
    (tmp_path / "elsewhere").mkdir()
    (project / "link").symlink_to(tmp_path / "elsewhere")
    result = cli.invoke(main, ["plan", ".", "-o", output])
    assert result.exit_code == 0, result.stderr
    assert '"version": 1' in Path(output).read_text(encoding="utf-8")


def test_plan_output_inside_the_root_is_written(cli: CliRunner, project: Path) -> None:
    result = cli.invoke(main, ["plan", ".", "-o", "plan.json"])
    assert result.exit_code == 0, result.stderr
    assert (project / "plan.json").read_text().startswith("{")


def test_symlinked_file_leading_outside_is_not_rewritten(
    cli: CliRunner, project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "shared.py"
    outside.write_text(PRODUCER)
    (project / "link.py").symlink_to(outside)
    walked = cli.invoke(main, ["apply", "."])  # walking: skipped with a message
    assert "skipped: link.py: symbolic link leaves the project root" in walked.stderr
    named = cli.invoke(main, ["apply", "link.py"])  # named explicitly: read, never written
    assert named.exit_code == 2
    assert _errors(named.stderr) == [
        f"error: link.py: outside the project root {project}; not written"
    ]
    assert outside.read_text() == PRODUCER
    assert (project / "link.py").is_symlink()


def test_symlinked_file_inside_the_root_is_written_through(cli: CliRunner, project: Path) -> None:
    (project / "real.py").write_text(PRODUCER)
    (project / "alias.py").symlink_to(project / "real.py")
    result = cli.invoke(main, ["apply", "alias.py"])
    assert result.exit_code == 0, result.stderr  # apply: everything it set out to write was written
    assert (project / "alias.py").is_symlink()
    assert "Warning(" in (project / "real.py").read_text()


def test_temp_files_are_not_world_readable_before_the_mode_is_set(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mkstemp creates 0600: a private file never passes through a world-readable state."""

    secret = project / "secret.py"
    secret.write_text(PRODUCER)
    secret.chmod(0o600)
    seen: list[int] = []
    real_chmod = os.chmod

    def chmod(path: str, mode: int) -> None:
        seen.append(os.stat(path).st_mode & 0o777)
        real_chmod(path, mode)

    monkeypatch.setattr(os, "chmod", chmod)  # the os module the writer calls
    run([secret], Config(root=project), Mode.APPLY, jobs=1)
    assert seen and all(mode == 0o600 for mode in seen)
    assert secret.stat().st_mode & 0o777 == 0o600
