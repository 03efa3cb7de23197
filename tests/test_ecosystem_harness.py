"""The ecosystem check's own judgement of a command's output (no package is run here).

A harness that mistakes a file the running Python cannot parse for a crash fails every
full run of the standard library; one that mistakes a crash for bad input hides it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

import unsentinel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import ecosystem  # noqa: E402

PY2_FILE = (
    "lib2to3/tests/data/py2_test_grammar.py:31:27: syntax error: leading zeros in decimal "
    "integer literals are not permitted; use an 0o prefix for octal integers"
)


def _judged(code: int, stderr: str) -> ecosystem.Report:
    report = ecosystem.Report("pkg", "1")
    ecosystem.classify(ecosystem.Step("diff", code, "", stderr), report)
    return report


def test_a_file_this_python_cannot_parse_is_a_note() -> None:
    report = _judged(2, PY2_FILE + "\n")
    assert report.failures == []
    assert report.notes == [f"input not parseable by this Python: {PY2_FILE}"]


@pytest.mark.parametrize(
    ("code", "stderr", "expected"),
    [
        pytest.param(
            2, "error: a.py: internal error: KeyError: 'x'\n", "internal error", id="internal"
        ),
        pytest.param(
            2,
            "Traceback (most recent call last):\n  boom\nValueError: x\n",
            "traceback",
            id="traceback",
        ),
        pytest.param(2, "something went wrong\n", "exit 2", id="an unexplained exit 2"),
        pytest.param(
            2,
            PY2_FILE + "\nerror: b.py: rewrite does not parse; file left unchanged\n",
            "does not parse",
            id="a refused rewrite beside bad input",
        ),
    ],
)
def test_a_crash_stays_a_crash(code: int, stderr: str, expected: str) -> None:
    report = _judged(code, stderr)
    assert [invariant for invariant, _ in report.failures] == ["crash"]
    assert expected in report.failures[0][1]


def test_the_types_invariant_fails_on_a_new_mypy_error_only(tmp_path: Path) -> None:
    """An error mypy already reported before ``apply`` is the package's own (it moved down
    a line here); a new one is the migration's."""
    repo = tmp_path / "pkg"
    repo.mkdir()
    (repo / "old.py").write_text("x: int = 'already wrong'\n")
    (repo / "m.py").write_text("def texts() -> list[str]:\n    return ['a']\n")
    ecosystem.init_repo(repo)
    (repo / "old.py").write_text("\nx: int = 'already wrong'\n")
    (repo / "m.py").write_text(
        "class Warning:\n    pass\n\n\ndef texts() -> list[str]:\n    return [Warning()]\n"
    )
    written = [path for _status, path in ecosystem.changed_files(repo)]
    report = ecosystem.Report("pkg", "1")
    ecosystem.check_types(repo, tmp_path, written, report)
    assert [invariant for invariant, _detail in report.failures] == ["types"]
    detail = report.failures[0][1]
    assert detail.startswith("1 new mypy error(s) after apply: m.py: List item 0 has")
    assert (repo / "m.py").read_text().endswith("[Warning()]\n")  # the stash came back


def test_a_report_survives_its_json_and_a_later_run_replaces_it(tmp_path: Path) -> None:
    """``--from-json`` rebuilds the table of an earlier run; a package run again (``--only``)
    or named in a later file replaces its row, and the rows keep the order of PACKAGES."""
    first = ecosystem.Report(
        "mcp-server-git", "1", files=3, lines=90, seconds=2.5, tool="0.1.0 at 4ebe359"
    )
    first.sites[("UNS501", "rewrite")] = 4
    first.fail("tests", "test_x: passed before, failed after")
    first.notes.append("tests: 9 of 9 passed before apply")
    stdlib = ecosystem.Report("stdlib", "3.11", files=10)
    stdlib.fail("crash", "check: timed out after 1200 s")
    rerun = ecosystem.Report("stdlib", "3.11", files=10)
    (tmp_path / "a.json").write_text(json.dumps([first.to_json(), stdlib.to_json()]))
    (tmp_path / "b.json").write_text(json.dumps([rerun.to_json()]))

    [again] = ecosystem.earlier_reports([tmp_path / "a.json"])[:1]
    assert again == first
    merged = ecosystem.in_list_order(
        ecosystem.earlier_reports([tmp_path / "a.json", tmp_path / "b.json"])
    )
    assert [(r.name, r.failures) for r in merged] == [
        ("stdlib", []),
        ("mcp-server-git", [("tests", "test_x: passed before, failed after")]),
    ]


def test_a_merged_table_says_which_tool_made_each_report(tmp_path: Path) -> None:
    """Reports merged from runs of different commits name each one; a report written
    before the tool was recorded loads, and says so."""
    old = ecosystem.Report("stdlib", "3.11").to_json()
    del old["tool"], old["ran"]
    (tmp_path / "old.json").write_text(json.dumps([old]))
    [unrecorded] = ecosystem.earlier_reports([tmp_path / "old.json"])
    first = ecosystem.Report("a", "1", tool="0.1.0 at 2a18272", ran="2026-11-27 17:45 UTC")
    second = ecosystem.Report("b", "1", tool="0.1.0 at afc674d", ran="2026-11-27 20:01 UTC")
    third = ecosystem.Report("c", "1", tool="0.1.0 at 2a18272", ran="2026-11-27 18:02 UTC")
    assert ecosystem.provenance([first, third]) == "unsentinel 0.1.0 at 2a18272, 2026-11-27"
    assert ecosystem.provenance([first, second, third, unrecorded]) == (
        "unsentinel 0.1.0 at 2a18272, 2026-11-27: a, c; "
        "unsentinel 0.1.0 at afc674d, 2026-11-27: b; "
        "an unrecorded unsentinel, an unrecorded day: stdlib"
    )


def test_the_tool_under_test_is_named_by_its_version_and_commit() -> None:
    """Its ``--version`` names the source directory (as pip's does), whose commit the
    report records: an editable install of a checkout says which commit ran."""
    label = ecosystem.tool_version(Path(sys.executable).parent / "unsentinel")
    commit = ecosystem.source_commit(Path(unsentinel.__file__).resolve().parent)
    expected = version("unsentinel")
    assert label == (f"{expected} at {commit}" if commit else expected)


def test_a_source_commit_says_where_the_tree_has_changed(tmp_path: Path) -> None:
    assert ecosystem.source_commit(tmp_path) is None  # an installed copy: no checkout
    (tmp_path / "m.py").write_text("x = 1\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q", str(tmp_path)], check=True)
    subprocess.run([*git, "-C", str(tmp_path), "add", "m.py"], check=True)
    subprocess.run([*git, "-C", str(tmp_path), "commit", "-qm", "m"], check=True)
    head = subprocess.run(
        ["git", "-C", str(tmp_path), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert ecosystem.source_commit(tmp_path) == head
    (tmp_path / "m.py").write_text("x = 2\n")
    assert ecosystem.source_commit(tmp_path) == f"{head} + uncommitted changes"


def test_a_test_id_made_at_run_time_is_no_break() -> None:
    """``test_counts[<function <lambda> at 0x7f...>]`` gets another id in every run: missing
    after apply under its old id, it is no break while as many of its cases pass."""
    before = {
        "t::test_counts[<lambda at 0x7f01>]": "passed",
        "t::test_counts[<lambda at 0x7f02>]": "passed",
        "t::test_other": "passed",
    }
    after = {
        "t::test_counts[<lambda at 0x7e01>]": "passed",
        "t::test_counts[<lambda at 0x7e02>]": "passed",
        "t::test_other": "passed",
    }
    assert ecosystem.broken_tests(before, after) == []


def test_a_missing_case_of_a_test_that_passes_less_often_is_a_break() -> None:
    before = {"t::test_counts[a1]": "passed", "t::test_counts[a2]": "passed", "t::test_x": "passed"}
    after = {"t::test_counts[b1]": "passed", "t::test_counts[b2]": "failure"}
    assert ecosystem.broken_tests(before, after) == [
        "t::test_counts[a1]: missing",
        "t::test_counts[a2]: missing",
        "t::test_x: missing",
    ]


def test_a_test_venv_is_built_under_the_constraints_and_again_when_they_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A venv built today without ``mcp<2`` cannot import the MCP servers: every test of
    theirs would be skipped as "none passed before apply" and the run would look green."""
    commands: list[list[str]] = []

    def run(command: list[str], **_: object) -> object:
        commands.append(command)
        if command[1:3] == ["-m", "venv"]:
            Path(command[3]).mkdir(parents=True)
        return type("Done", (), {"returncode": 0, "stderr": ""})()

    package = ecosystem.Package(
        ecosystem._pin("pkg", "1", "0" * 64),
        "",
        tests=("pytest",),
        constraints=ecosystem.BEFORE_MCP_2,
    )
    monkeypatch.setattr(ecosystem, "cache_dir", lambda: tmp_path / "sdists")
    monkeypatch.setattr(ecosystem, "source_tree", lambda _: tmp_path / "pkg")
    monkeypatch.setattr(subprocess, "run", run)
    venv = ecosystem.venv_dir(package)
    venv.mkdir(parents=True)
    (venv / ".complete").write_text("pytest")  # built before the constraints existed

    ecosystem.test_python(package)

    install = commands[-1]
    assert install[install.index("--constraint") + 1] == str(venv / "constraints.txt")
    assert (venv / "constraints.txt").read_text() == "mcp<2\n"
    commands.clear()
    ecosystem.test_python(package)
    assert commands == []  # built for these constraints: used as it is


def test_a_run_stopped_midway_keeps_the_reports_it_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full run takes two hours: the JSON is written after each package, so a run killed
    (here: the second package raises) still leaves the first package's report to rerun from."""
    first, second = ecosystem.PACKAGES[:2]

    def check_package(package: ecosystem.Package, context: ecosystem.Context) -> ecosystem.Report:
        if package is second:
            raise KeyboardInterrupt
        return ecosystem.Report(package.name, package.version, files=1, seconds=1.0)

    monkeypatch.setattr(ecosystem, "check_package", check_package)
    out = tmp_path / "run.json"
    with pytest.raises(KeyboardInterrupt):
        ecosystem.main(["--only", first.name, "--only", second.name, "--json", str(out)])
    assert [r.name for r in ecosystem.earlier_reports([out])] == [first.name]
    assert not list(tmp_path.glob("*.partial"))


def _committed(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).write_text(text)
    ecosystem.init_repo(repo)


FORMATTED = "def f(result):\n    return [w.message for w in result.warnings]\n"
TOO_LONG = (
    "def f(result):\n"
    "    return [w.message for w in result.warnings if w.severity == 'blocking' and w.code]\n"
)


def test_a_file_apply_left_unformatted_fails_the_format_invariant(tmp_path: Path) -> None:
    """A project that formats with ruff: a file clean before and not after is a failure;
    one its author never formatted is not blamed; a created module must be clean."""
    _committed(
        tmp_path,
        {"pyproject.toml": "[tool.ruff]\nline-length = 60\n", "a.py": FORMATTED, "b.py": TOO_LONG},
    )
    (tmp_path / "a.py").write_text(TOO_LONG)  # clean before, not after
    (tmp_path / "b.py").write_text(TOO_LONG + "\n")  # never formatted: not ours to blame
    (tmp_path / "codes.py").write_text("X  =  1\n")  # created by apply
    written = ecosystem.changed_files(tmp_path)
    assert sorted(ecosystem.format_failures(tmp_path, written)) == [
        "a.py: ruff format would change what apply wrote",
        "codes.py: ruff format would change what apply wrote",
    ]


def test_a_project_that_does_not_format_with_ruff_is_not_held_to_it(tmp_path: Path) -> None:
    _committed(tmp_path, {"pyproject.toml": "[project]\nname = 'p'\n", "a.py": FORMATTED})
    (tmp_path / "a.py").write_text(TOO_LONG)
    assert ecosystem.format_failures(tmp_path, ecosystem.changed_files(tmp_path)) == []
