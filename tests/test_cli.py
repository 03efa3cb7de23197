"""The command line, driven through click's CliRunner: streams, exit codes, options."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from conftest import WriteTree

import unsentinel
import unsentinel.core.pool
from unsentinel.cli import main
from unsentinel.core.rule import Rule

pytestmark = pytest.mark.usefixtures("detector_rules")

SENTINEL = 'warnings = []\nwarnings.append("BLOCK: order is empty")\n'
CLEAN = "def total(items):\n    return sum(items)\n"


def invoke(cli: CliRunner, *args: str, input: str | None = None) -> Result:
    """Run the CLI; fail loudly on a Python exception instead of an exit code."""
    result = cli.invoke(main, list(args), input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_tree: WriteTree) -> Path:
    """A tiny project with one clean module and one sentinel; cwd is its root."""
    write_tree(
        {
            "pyproject.toml": "[project]\nname = 'demo'\n",
            "pkg/__init__.py": "",
            "pkg/clean.py": CLEAN,
            "pkg/orders.py": SENTINEL,
        }
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- version and help ---------------------------------------------------------------------


def test_version(cli: CliRunner) -> None:
    result = invoke(cli, "--version")
    assert result.exit_code == 0
    assert result.stdout == f"{_VERSION_LINE}\n"


def test_python_dash_m_version() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "unsentinel", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == _VERSION_LINE


# Which install runs, and on which Python, as pip's ``--version`` says it.
_VERSION_LINE = (
    f"unsentinel, version {version('unsentinel')} "
    f"from {Path(unsentinel.__file__).resolve().parent} (Python {platform.python_version()})"
)


@pytest.mark.parametrize(
    "command",
    [
        pytest.param([], id="main"),
        pytest.param(["check"], id="check"),
        pytest.param(["diff"], id="diff"),
        pytest.param(["apply"], id="apply"),
        pytest.param(["plan"], id="plan"),
    ],
)
def test_help_explains_options_with_an_example(cli: CliRunner, command: list[str]) -> None:
    result = invoke(cli, *command, "--help")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert "Usage: " in result.stdout
    if command:
        assert "Example:" in result.stdout
        assert f"unsentinel {command[0]} " in result.stdout
        for option in ("--exclude", "--files-from", "--select", "--jobs", "--statistics"):
            assert option in result.stdout


def test_apply_help_mentions_allow_dirty(cli: CliRunner) -> None:
    assert "--allow-dirty" in invoke(cli, "apply", "--help").stdout


# -- check --------------------------------------------------------------------------------


def test_check_clean_tree_exits_0(cli: CliRunner, project: Path) -> None:
    (project / "pkg" / "orders.py").write_text(CLEAN)
    result = invoke(cli, "check", ".")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "All clear: no findings in 3 file(s)." in result.stderr


def test_check_findings_on_stdout_summary_on_stderr(cli: CliRunner, project: Path) -> None:
    result = invoke(cli, "check", ".")
    assert result.exit_code == 1
    assert result.stdout == (
        "pkg/orders.py:2:17: UNS001 String starts with sentinel prefix 'BLOCK:'\n"
    )
    assert "Found 1 finding(s) in 1 file(s) (3 checked)." in result.stderr
    assert "pkg/orders.py" not in result.stderr


def test_check_findings_are_sorted_across_files(
    cli: CliRunner, project: Path, write_tree: WriteTree
) -> None:
    write_tree(
        {
            "a_first.py": 'x = "BLOCK: a"\ny = BLOCK_WARNING_PREFIX\n',
            "pkg/z_last.py": 'y = BLOCK_WARNING_PREFIX\n\n\nx = "BLOCK: z"\n',
        }
    )
    lines = invoke(cli, "check", ".").stdout.splitlines()
    assert [line.split(": ")[0] for line in lines] == [
        "a_first.py:1:5",
        "a_first.py:2:5",
        "pkg/orders.py:2:17",
        "pkg/z_last.py:1:5",
        "pkg/z_last.py:4:5",
    ]


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["check"], id="no path at all"),
        pytest.param(["check", ".", "--jobs", "0"], id="zero jobs"),
        pytest.param(["check", ".", "--no-such-option"], id="unknown option"),
        pytest.param(["frobnicate", "."], id="unknown command"),
    ],
)
def test_usage_errors_exit_2(cli: CliRunner, project: Path, args: list[str]) -> None:
    result = invoke(cli, *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "Error" in result.stderr


def test_missing_path_is_an_error_line_and_exit_2(cli: CliRunner, project: Path) -> None:
    result = invoke(cli, "check", "pkg", "nowhere.py")
    assert result.exit_code == 2
    assert "error: nowhere.py: no such file or directory" in result.stderr.splitlines()
    assert "pkg/orders.py:2:17: UNS001" in result.stdout  # the rest still ran


def test_errors_win_over_findings(cli: CliRunner, project: Path, write_tree: WriteTree) -> None:
    write_tree({"py2.py": 'print "BLOCK: old"\n'})
    result = invoke(cli, "check", ".")
    assert result.exit_code == 2
    assert "pkg/orders.py:2:17: UNS001" in result.stdout


def test_paths_are_printed_verbatim(cli: CliRunner, project: Path, write_tree: WriteTree) -> None:
    """No rich markup or emoji codes in file names: ``:cat:`` must not become a cat."""
    write_tree({":cat: [bold]x[/bold].py": 'print "BLOCK: old"\n'})
    result = invoke(cli, "check", ".")
    assert ":cat: [bold]x[/bold].py:1:1: syntax error: " in result.stderr


# -- select / ignore ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "codes"),
    [
        pytest.param([], {"UNS001", "UNS002"}, id="all rules by default"),
        pytest.param(["--select", "UNS001"], {"UNS001"}, id="select one code"),
        pytest.param(["--select", "UNS"], {"UNS001", "UNS002"}, id="select by prefix"),
        pytest.param(["--ignore", "UNS001"], {"UNS002"}, id="ignore one code"),
        pytest.param(
            ["--select", "UNS001", "--select", "UNS002", "--ignore", "UNS002"],
            {"UNS001"},
            id="ignore beats select",
        ),
    ],
)
def test_select_and_ignore(
    cli: CliRunner, project: Path, write_tree: WriteTree, options: list[str], codes: set[str]
) -> None:
    write_tree({"both.py": 'x = "BLOCK: a"\ny = BLOCK_WARNING_PREFIX\n'})
    result = invoke(cli, "check", "both.py", *options)
    assert {line.split()[1] for line in result.stdout.splitlines()} == codes


def test_ignoring_every_rule_is_clean(cli: CliRunner, project: Path) -> None:
    result = invoke(cli, "check", ".", "--ignore", "UNS")
    assert result.exit_code == 0
    assert result.stdout == ""


# -- files-from ---------------------------------------------------------------------------


def test_files_from_file(cli: CliRunner, project: Path) -> None:
    (project / "list.txt").write_text("pkg/orders.py\n\n  pkg/clean.py  \n")
    result = invoke(cli, "check", "--files-from", "list.txt", "--statistics")
    assert result.exit_code == 1
    assert result.stdout.startswith("pkg/orders.py:2:17: UNS001")
    assert _statistic(result.stderr, "files seen") == 2


def test_files_from_stdin(cli: CliRunner, project: Path) -> None:
    result = invoke(cli, "check", "--files-from", "-", input="pkg/orders.py\n")
    assert result.exit_code == 1
    assert result.stdout.startswith("pkg/orders.py:2:17: UNS001")


def test_files_from_adds_to_paths(cli: CliRunner, project: Path, write_tree: WriteTree) -> None:
    write_tree({"other/extra.py": 'x = "BLOCK: extra"\n'})
    result = invoke(cli, "check", "pkg", "--files-from", "-", input="other/extra.py\n")
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == [
        "other/extra.py",
        "pkg/orders.py",
    ]


def test_files_from_missing_file_is_usage_error(cli: CliRunner, project: Path) -> None:
    result = invoke(cli, "check", "--files-from", "missing.txt")
    assert result.exit_code == 2
    assert "cannot read --files-from missing.txt" in result.stderr


# -- statistics ---------------------------------------------------------------------------


def _statistic(stderr: str, name: str) -> int:
    for line in stderr.splitlines():
        if line.strip().startswith(name):
            return int(line.split()[-1])
    raise AssertionError(f"no {name!r} line in:\n{stderr}")


def test_statistics(
    cli: CliRunner, project: Path, write_tree: WriteTree, tmp_path_factory: pytest.TempPathFactory
) -> None:
    write_tree(
        {
            "gen.py": '# @generated\nx = "BLOCK: generated"\n',
            "broken.py": 'print "BLOCK: py2"\n',
        }
    )
    outside = tmp_path_factory.mktemp("outside") / "elsewhere.py"
    outside.write_text(SENTINEL)
    (project / "link.py").symlink_to(outside)
    result = invoke(cli, "check", ".", "--statistics")
    stats = {
        name: _statistic(result.stderr, name)
        for name in ("files seen", "prefiltered out", "parsed", "skipped", "changed", "failed")
    }
    assert stats == {
        "files seen": 6,
        "prefiltered out": 2,  # pkg/__init__.py, pkg/clean.py
        "parsed": 1,  # pkg/orders.py
        "skipped": 2,  # gen.py, link.py (leaves the project)
        "changed": 0,
        "failed": 1,  # broken.py
    }
    assert stats["files seen"] == sum(
        stats[name] for name in ("prefiltered out", "parsed", "skipped", "failed")
    )
    assert result.exit_code == 2


def test_no_statistics_unless_asked(cli: CliRunner, project: Path) -> None:
    assert "files seen" not in invoke(cli, "check", ".").stderr


# -- diff, apply, plan --------------------------------------------------------------------


def test_diff_clean_tree_exits_0_and_prints_nothing(cli: CliRunner, project: Path) -> None:
    (project / "pkg" / "orders.py").write_text(CLEAN)
    result = invoke(cli, "diff", ".")
    assert result.exit_code == 0
    assert result.stdout == ""


def test_diff_prints_the_change_and_writes_nothing(
    cli: CliRunner, project: Path, rewriting_rule: type[Rule]
) -> None:
    result = invoke(cli, "diff", ".")
    assert result.exit_code == 1
    assert result.stdout == (
        "--- a/pkg/orders.py\n"
        "+++ b/pkg/orders.py\n"
        "@@ -1,2 +1,2 @@\n"
        " warnings = []\n"
        '-warnings.append("BLOCK: order is empty")\n'
        '+warnings.append("OK: order is empty")\n'
    )
    assert "\x1b[" not in result.stdout  # not a terminal: no colour
    assert (project / "pkg" / "orders.py").read_text() == SENTINEL


def test_apply_writes_then_second_run_is_clean(
    cli: CliRunner, project: Path, rewriting_rule: type[Rule]
) -> None:
    first = invoke(cli, "apply", ".")
    assert first.exit_code == 0  # everything it set out to write was written
    assert first.stdout == ""
    assert "1 file(s) changed" in first.stderr
    assert "TST900" in first.stderr
    assert (project / "pkg" / "orders.py").read_text() == SENTINEL.replace("BLOCK:", "OK:")
    second = invoke(cli, "apply", ".")
    assert second.exit_code == 0
    assert "No changes: 3 file(s) looked at." in second.stderr


def test_plan_json_on_stdout(cli: CliRunner, project: Path) -> None:
    result = invoke(cli, "plan", ".")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert document["version"] == 1
    [site] = document["sites"]
    assert (site["path"], site["line"], site["column"], site["rule"]) == (
        "pkg/orders.py",
        2,
        17,
        "UNS001",
    )


def test_plan_to_file(cli: CliRunner, project: Path) -> None:
    result = invoke(cli, "plan", ".", "--format", "toml", "-o", "plan.toml")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "plan written to plan.toml" in result.stderr
    assert 'rule = "UNS001"' in (project / "plan.toml").read_text()


# -- parallelism --------------------------------------------------------------------------


def test_jobs_1_and_jobs_2_give_identical_output(
    cli: CliRunner,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    write_tree: WriteTree,
    rewriting_rule: type[Rule],
) -> None:
    files: dict[str, str | bytes] = {
        f"mod_{i:02}.py": f'x = "BLOCK: {i}"\n' if i % 3 else CLEAN for i in range(24)
    }
    files["broken.py"] = 'print "BLOCK: py2"\n'
    write_tree(files)
    monkeypatch.chdir(tmp_path)
    pools: list[int] = []

    class CountingPool(ProcessPoolExecutor):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pools.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(unsentinel.core.pool, "ProcessPoolExecutor", CountingPool)
    # A tree this small is below the pool's threshold; the test is about a pool's output.
    monkeypatch.setattr(unsentinel.core.pool, "POOL_MIN_BYTES", 0)
    for command in ("check", "diff"):
        uncached = ("--no-cache",) if command == "check" else ()  # a warm cache needs no pool
        serial = invoke(cli, command, ".", "-j", "1", *uncached)
        assert not pools
        parallel = invoke(cli, command, ".", "-j", "2", *uncached)
        assert pools, "the process pool was not used"
        pools.clear()
        assert parallel.exit_code == serial.exit_code == 2
        assert parallel.stdout == serial.stdout
        assert parallel.stderr == serial.stderr
        assert serial.stdout  # there is something to compare


def test_fifty_clean_files_report_nothing(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_tree: WriteTree
) -> None:
    write_tree(
        {
            f"pkg{i % 5}/module_{i}.py": (
                f'"""Module {i}: the word BLOCK appears, but never as a prefix."""\n'
                f"MESSAGE = 'order {i} is blocked: BLOCK: not at the start'\n"
                f"def f_{i}(warnings):\n    return [w for w in warnings if w]\n"
            )
            for i in range(50)
        }
    )
    monkeypatch.chdir(tmp_path)
    result = invoke(cli, "check", ".", "--statistics")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "All clear: no findings in 50 file(s)." in result.stderr
    assert _statistic(result.stderr, "parsed") == 50  # every file had a needle
