"""The command line behaves like ruff: exit codes, selectors, colour, errors, rule docs."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner, Result
from conftest import WriteTree

from unsentinel.cli import main

SENTINEL = 'warnings = []\nwarnings.append("BLOCK: order is empty")\n'
CONSTANT_ONLY = "def is_blocking(w):\n    return w.startswith(BLOCK_WARNING_PREFIX)\n"
CLEAN = "def total(items):\n    return sum(items)\n"
PY2 = 'print "BLOCK: python 2"\n'
SARIF_SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


def invoke(cli: CliRunner, *args: str, env: dict[str, str] | None = None) -> Result:
    result = cli.invoke(main, list(args), env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_tree: WriteTree) -> Path:
    write_tree({"pyproject.toml": "[project]\nname = 'demo'\n", "pkg/clean.py": CLEAN})
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("UNSENTINEL_OUTPUT_FORMAT", raising=False)
    return tmp_path


# -- the exit-code table ------------------------------------------------------------------

INPUTS: dict[str, dict[str, str | bytes]] = {
    "clean": {},
    "findings to change": {"pkg/orders.py": SENTINEL},
    "findings, nothing to change": {"pkg/rules.py": CONSTANT_ONLY},
    "a syntax error": {"pkg/orders.py": SENTINEL, "pkg/old.py": PY2},
}
# command -> exit code for each input, in the order of INPUTS
TABLE = {
    "check": (0, 1, 1, 2),
    "check --exit-zero": (0, 0, 0, 2),
    "diff": (0, 1, 0, 2),
    "diff --exit-zero": (0, 0, 0, 2),
    "apply": (0, 0, 0, 2),
    "apply --exit-non-zero-on-fix": (0, 1, 0, 2),
    "plan": (0, 0, 0, 2),
}


@pytest.mark.usefixtures("rewriting_rule")
@pytest.mark.parametrize(
    ("command", "inputs", "expected"),
    [
        pytest.param(command, name, codes[i], id=f"{command} on {name}")
        for command, codes in TABLE.items()
        for i, name in enumerate(INPUTS)
    ],
)
def test_exit_code_table(
    cli: CliRunner, project: Path, write_tree: WriteTree, command: str, inputs: str, expected: int
) -> None:
    write_tree(INPUTS[inputs])
    result = invoke(cli, *command.split(), ".")
    assert result.exit_code == expected, result.stderr


@pytest.mark.usefixtures("rewriting_rule")
@pytest.mark.parametrize("command", ["check", "diff", "apply", "plan"])
def test_a_missing_path_alone_is_an_error_and_not_all_clear(
    cli: CliRunner, project: Path, command: str
) -> None:
    result = invoke(cli, command, "nowhere.py")
    assert result.exit_code == 2
    assert result.stderr == "error: nowhere.py: no such file or directory\n"


@pytest.mark.usefixtures("detector_rules")
def test_path_errors_come_before_the_summary(
    cli: CliRunner, project: Path, write_tree: WriteTree
) -> None:
    write_tree({"pkg/orders.py": SENTINEL})
    lines = invoke(cli, "check", "pkg", "nowhere.py").stderr.splitlines()
    assert lines == [
        "error: nowhere.py: no such file or directory",
        "Found 1 finding(s) in 1 file(s) (2 checked).",
    ]


@pytest.mark.usefixtures("detector_rules")
def test_a_run_over_no_python_file_says_so(cli: CliRunner, project: Path) -> None:
    (project / "empty").mkdir()
    result = invoke(cli, "check", "empty")
    assert result.exit_code == 0
    assert result.stderr == "warning: no Python files found in the given path(s)\n"


@pytest.mark.usefixtures("detector_rules")
def test_a_syntax_error_is_one_line_in_words(
    cli: CliRunner, project: Path, write_tree: WriteTree
) -> None:
    write_tree({"pkg/old.py": PY2})
    result = invoke(cli, "check", "pkg/old.py")
    assert result.exit_code == 2
    assert result.stderr == (
        "pkg/old.py:1:1: syntax error: "
        "Missing parentheses in call to 'print'. Did you mean print(...)?\n"
        "No findings, but 1 error(s) above.\n"
    )


# -- selectors ----------------------------------------------------------------------------


@pytest.mark.usefixtures("detector_rules")
@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ["--select", "UNS0O1"],
            "error: unknown rule selector 'UNS0O1' in --select (did you mean 'UNS001'?)\n",
            id="a letter O for a zero",
        ),
        pytest.param(
            ["--ignore", "uns002"],
            "error: unknown rule selector 'uns002' in --ignore (did you mean 'UNS002'?)\n",
            id="ignore in lower case",
        ),
        pytest.param(
            ["--select", "E501"],
            "error: unknown rule selector 'E501' in --select "
            "(`unsentinel rule --all` lists the rules)\n",
            id="a selector of another tool",
        ),
    ],
)
def test_unknown_selectors_are_errors(
    cli: CliRunner, project: Path, args: list[str], message: str
) -> None:
    result = invoke(cli, "check", ".", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == message


@pytest.mark.usefixtures("detector_rules")
def test_unknown_selector_in_config_names_the_file(cli: CliRunner, project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.unsentinel]\nselect = ['UNS0001']\n")
    result = invoke(cli, "check", ".")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: unknown rule selector 'UNS0001' in 'select' in ")
    assert "pyproject.toml (did you mean 'UNS001'?)" in result.stderr


# -- rule docs ----------------------------------------------------------------------------


def test_rule_prints_its_documentation(cli: CliRunner) -> None:
    result = invoke(cli, "rule", "UNS101")
    assert result.exit_code == 0
    assert result.stdout.startswith("# sentinel-warning-producer (UNS101)\n\n")
    assert len(result.stdout.splitlines()) > 5


def test_rule_all_prints_every_rule(cli: CliRunner) -> None:
    from unsentinel.registry import ALL_RULES

    result = invoke(cli, "rule", "--all")
    assert result.exit_code == 0
    headings = [line for line in result.stdout.splitlines() if line.startswith("# ")]
    assert headings == [f"# {rule.name} ({rule.code})" for rule in ALL_RULES]


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        pytest.param(["UNS109"], "error: unknown rule 'UNS109' (did you mean", id="unknown"),
        pytest.param([], "give one rule CODE, or --all", id="nothing asked"),
        pytest.param(["UNS101", "--all"], "give one rule CODE, or --all", id="both asked"),
    ],
)
def test_rule_errors(cli: CliRunner, args: list[str], stderr: str) -> None:
    result = invoke(cli, "rule", *args)
    assert result.exit_code == 2
    assert stderr in result.stderr


# -- colour -------------------------------------------------------------------------------

ESC = "\x1b["


@pytest.mark.usefixtures("rewriting_rule")
@pytest.mark.parametrize(
    ("env", "option", "colored"),
    [
        pytest.param({}, "auto", False, id="not a terminal"),
        pytest.param({"FORCE_COLOR": "1"}, "auto", True, id="FORCE_COLOR"),
        pytest.param({"NO_COLOR": "1", "FORCE_COLOR": "1"}, "auto", False, id="NO_COLOR wins"),
        pytest.param({"NO_COLOR": "1"}, "always", True, id="--color always beats NO_COLOR"),
        pytest.param({"FORCE_COLOR": "1"}, "never", False, id="--color never beats FORCE_COLOR"),
    ],
)
@pytest.mark.parametrize("command", ["check", "diff"])
def test_color(
    cli: CliRunner,
    project: Path,
    write_tree: WriteTree,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    option: str,
    colored: bool,
    command: str,
) -> None:
    write_tree({"pkg/orders.py": SENTINEL})
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = invoke(cli, command, ".", "--color", option)
    assert result.stdout
    assert (ESC in result.stdout) is colored


@pytest.mark.usefixtures("detector_rules")
def test_machine_formats_are_never_colored(
    cli: CliRunner, project: Path, write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree({"pkg/orders.py": SENTINEL})
    result = invoke(cli, "check", ".", "--color", "always", "--output-format", "github")
    assert ESC not in result.stdout


# -- check options ------------------------------------------------------------------------


@pytest.mark.usefixtures("detector_rules")
def test_quiet_prints_data_only(cli: CliRunner, project: Path, write_tree: WriteTree) -> None:
    write_tree({"pkg/orders.py": SENTINEL})
    result = invoke(cli, "check", ".", "--quiet")
    assert result.exit_code == 1
    assert result.stdout.startswith("pkg/orders.py:2:17: UNS001")
    assert result.stderr == ""


@pytest.mark.usefixtures("detector_rules")
def test_statistics_count_findings_per_rule(
    cli: CliRunner, project: Path, write_tree: WriteTree
) -> None:
    write_tree({"pkg/orders.py": SENTINEL, "pkg/rules.py": CONSTANT_ONLY, "pkg/more.py": SENTINEL})
    stderr = invoke(cli, "check", ".", "--statistics").stderr
    rows = [line.split() for line in stderr.splitlines()]
    assert ["2", "UNS001", "sentinel-string"] in rows
    assert ["1", "UNS002", "sentinel-constant"] in rows


@pytest.mark.usefixtures("detector_rules")
def test_output_format_from_the_environment(
    cli: CliRunner, project: Path, write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree({"pkg/orders.py": SENTINEL})
    monkeypatch.setenv("UNSENTINEL_OUTPUT_FORMAT", "github")
    assert invoke(cli, "check", ".").stdout.startswith("::error file=pkg/orders.py,line=2,")
    assert invoke(cli, "check", ".", "--output-format", "text").stdout.startswith("pkg/")
    monkeypatch.setenv("UNSENTINEL_OUTPUT_FORMAT", "xml")
    assert invoke(cli, "check", ".").exit_code == 2


@pytest.mark.usefixtures("detector_rules")
def test_sarif_end_to_end_is_valid_and_the_summary_stays_on_stderr(
    cli: CliRunner, project: Path, write_tree: WriteTree
) -> None:
    write_tree({"pkg/orders.py": SENTINEL, "pkg/rules.py": CONSTANT_ONLY})
    result = invoke(cli, "check", ".", "--output-format", "sarif")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema).validate(document)
    assert len(document["runs"][0]["results"]) == 2
    assert result.stderr == "Found 2 finding(s) in 2 file(s) (3 checked).\n"


# -- diff --stat --------------------------------------------------------------------------


@pytest.mark.usefixtures("rewriting_rule")
def test_diff_stat(cli: CliRunner, project: Path, write_tree: WriteTree) -> None:
    write_tree({"pkg/orders.py": SENTINEL, "pkg/two.py": 'a = "BLOCK: a"\nb = "BLOCK: b"\n'})
    result = invoke(cli, "diff", ".", "--stat")
    assert result.exit_code == 1
    assert result.stdout == (
        " pkg/orders.py | 2 +-\n"
        " pkg/two.py    | 4 ++--\n"
        " 2 files changed, 3 insertions(+), 3 deletions(-)\n"
    )


HELD_TOGETHER = """
def lookup(name):
    try:
        return {"stack_name": name, "status": fetch(name)}
    except OSError as e:
        return {"stack_name": name, "error": str(e)}


def describe(name):
    result = lookup(name)
    if result.get("status") != "done":
        return result.get("message")
    return result["stack_name"]
"""


def test_diff_says_why_it_holds_back_what_it_found(
    cli: CliRunner, project: Path, write_tree: WriteTree
) -> None:
    """A run that changes less than it found names each reason once, with its first site:
    the user sees why nothing was written without running ``plan``."""
    write_tree({"pkg/lookup.py": HELD_TOGETHER})
    result = invoke(cli, "diff", ".", "-j", "1")
    assert "No changes: 2 file(s) looked at." in result.stderr
    assert "3 site(s) held back: each changes only with code that stays as it is" in result.stderr
    assert "  pkg/lookup.py:6: a reader of lookup() reads 'stack_name'" in result.stderr
    reader = "  pkg/lookup.py:11 (and 1 more): lookup() also returns an error-looking dict"
    assert reader in result.stderr
