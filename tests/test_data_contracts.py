"""A test-data file that names a function and a key of its output pins that output.

A suite that calls its tools through a table built at run time (``funcs[case["tool"]]``)
and checks each result against cases kept in a JSON file (``{"tool": "get_item",
"assertions": {"output_value": {"error": "No data found"}}}``) reads the output where no
Python code shows it. Such a case is a wire contract of its own format: the function it
names keeps its old error shape, held with a reason that names the file and the key. A
file that names the function without such a key, or the key without naming the function
in the same case, holds nothing.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest
from projects import apply_and_run_tests, changed_names, diff_project, write_package_project

from unsentinel.core.cache import CACHE_DIR
from unsentinel.core.model import Action, Mode
from unsentinel.core.result import RunResult
from unsentinel.errors import data_pins
from unsentinel.errors.facts import ErrorFacts
from unsentinel.registry import load_config, run

TOOLS = """
def get_item(item_id):
    if item_id != "known":
        return {"error": "No data found", "item_id": item_id}
    return {"name": "Known"}


def list_items():
    return {"items": [], "total": 0}
"""

# Calls each case's tool through a table built at run time: no call of ``get_item`` and no
# read of its result is visible in the code.
RUNS_THE_CASES = """
import json
from pathlib import Path

import pytest

CASES = json.loads((Path(__file__).parent / "cases.json").read_text())


def _functions():
    from pkg import tools

    return {name: getattr(tools, name) for name in ("get_item", "list_items")}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case):
    output = _functions()[case["tool"]](**case["params"])
    for key in case["expect"].get("keys", []):
        assert key in output
    for key, expected in case["expect"].get("values", {}).items():
        assert output[key] == expected
"""

MISSING = {
    "id": "get_item_missing",
    "tool": "get_item",
    "params": {"item_id": "nope"},
    "expect": {"keys": ["item_id", "error"], "values": {"error": "No data found"}},
}
LISTED = {
    "id": "list_items_default",
    "tool": "list_items",
    "params": {},
    "expect": {"keys": ["items", "total"]},
}


def _project(root: Path, cases: list[dict[str, Any]], name: str = "cases.json") -> Path:
    write_package_project(root, {"pkg/tools.py": TOOLS, "tests/test_cases.py": RUNS_THE_CASES})
    (root / "tests" / name).write_text(json.dumps(cases, indent=2) + "\n", "utf-8")
    return root


def _skips(result: RunResult) -> list[str]:
    return [
        site.reasons[0]
        for file in result.results
        for site in file.sites
        if site.action is Action.SKIP and site.reasons
    ]


def test_a_case_naming_the_function_and_its_error_key_holds_the_function(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path, [MISSING, LISTED])
    result = diff_project(root)
    assert "get_item" in result.facts.get(ErrorFacts).held_functions
    assert "tools.py" not in changed_names(result)
    assert _skips(result) == [
        "tests/cases.json pins the output of get_item() ('error' compared with a string); "
        "its error dicts and readers stay together"
    ]
    apply_and_run_tests(root, result)


def test_a_listed_key_that_moves_into_details_pins_the_output_too(tmp_path: Path) -> None:
    """``"keys": ["item_id"]``: ``item_id`` leaves the top level of the error dict."""
    case = {**MISSING, "expect": {"keys": ["item_id"]}}
    result = diff_project(_project(tmp_path, [case]))
    assert _skips(result) == [
        "tests/cases.json pins the output of get_item() ('item_id' listed); "
        "its error dicts and readers stay together"
    ]


CASES_YAML = """
- id: get_item_missing
  tool: get_item
  params:
    item_id: nope
  expect:
    keys: [item_id, error]
    values:
      error: No data found
"""


def test_a_yaml_case_pins_the_output_too(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    root = _project(tmp_path, [])
    (root / "tests" / "cases.json").unlink()
    (root / "tests" / "cases.yaml").write_text(textwrap.dedent(CASES_YAML).lstrip(), "utf-8")
    result = diff_project(root)
    assert "get_item" in result.facts.get(ErrorFacts).held_functions
    assert _skips(result) == [
        "tests/cases.yaml pins the output of get_item() ('error' compared with a string); "
        "its error dicts and readers stay together"
    ]


@pytest.mark.parametrize(
    "case",
    [
        pytest.param({**MISSING, "tool": "list_items"}, id="another function named"),
        pytest.param({k: v for k, v in MISSING.items() if k != "tool"}, id="no function named"),
        pytest.param({**MISSING, "tool": "get_item_v2"}, id="a longer name"),
        pytest.param({**MISSING, "tool": "call get_item"}, id="the name inside a sentence"),
        pytest.param({**MISSING, "expect": {"keys": ["name"]}}, id="only a key the success has"),
    ],
)
def test_a_case_that_does_not_name_the_function_with_a_changed_key_holds_nothing(
    tmp_path: Path, case: dict[str, Any]
) -> None:
    result = diff_project(_project(tmp_path, [case, LISTED]))
    assert "get_item" not in result.facts.get(ErrorFacts).held_functions
    assert "tools.py" in changed_names(result)
    assert _skips(result) == []


def test_the_function_named_in_one_case_and_the_key_in_another_holds_nothing(
    tmp_path: Path,
) -> None:
    named = {"id": "named", "tool": "get_item", "params": {}, "expect": {}}
    keyed = {"id": "keyed", "params": {}, "expect": {"values": {"error": "No data found"}}}
    result = diff_project(_project(tmp_path, [named, keyed]))
    assert "get_item" not in result.facts.get(ErrorFacts).held_functions


def test_a_data_file_outside_the_tests_holds_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path, [])
    (root / "pkg" / "cases.json").write_text(json.dumps([MISSING]), "utf-8")
    result = diff_project(root)
    assert "get_item" not in result.facts.get(ErrorFacts).held_functions


def test_a_data_file_is_read_once_and_only_with_error_dicts_to_migrate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[Path] = []
    load = data_pins._load

    def counted(path: Path) -> Any:
        reads.append(path)
        return load(path)

    monkeypatch.setattr(data_pins, "_load", counted)
    root = _project(tmp_path / "errors", [MISSING, LISTED])
    diff_project(root)
    assert [path.name for path in reads] == ["cases.json"]
    reads.clear()
    quiet = _project(tmp_path / "quiet", [MISSING, LISTED])
    (quiet / "pkg" / "tools.py").write_text("def get_item(item_id):\n    return {}\n", "utf-8")
    diff_project(quiet)
    assert reads == []


def _check(root: Path, *, whole_runs: bool) -> RunResult:
    if not whole_runs:  # the per-file entries and the kept gather steps answer
        shutil.rmtree(root / CACHE_DIR / "runs", ignore_errors=True)
    return run([root], load_config((root,)), Mode.CHECK, jobs=1, cache=True)


@pytest.mark.parametrize("whole_runs", [True, False], ids=["whole run", "by file"])
def test_a_warm_check_sees_an_edit_of_the_data_file(tmp_path: Path, whole_runs: bool) -> None:
    """The data file is an input of the check like a Python file: the cache keys cover it."""
    root = _project(tmp_path, [LISTED])
    cold = _check(root, whole_runs=whole_runs)
    assert _skips(cold) == []
    (root / "tests" / "cases.json").write_text(json.dumps([MISSING, LISTED]), "utf-8")
    warm = _check(root, whole_runs=whole_runs)
    assert warm.cached
    assert len(_skips(warm)) == 1
    (root / "tests" / "cases.json").write_text(json.dumps([LISTED]), "utf-8")
    assert _skips(_check(root, whole_runs=whole_runs)) == []
