"""SARIF ``fixes``: the replacements reproduce exactly what ``apply`` writes, and stay honest.

A fix is only attached where a diff run changed the file; applying its replacements to the
original files must give the same bytes ``unsentinel`` writes, generated modules included.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from syrupy.assertion import SnapshotAssertion

from unsentinel.cli import main
from unsentinel.core.decisions import Decisions
from unsentinel.core.model import Mode
from unsentinel.output import sarif
from unsentinel.output.findings import (
    FileChange,
    Finding,
    Fix,
    Replacement,
    RuleInfo,
    replacements,
)
from unsentinel.registry import load_config, run

SARIF_SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
FIXTURES = Path(__file__).parent.parent / "fixtures"
REWRITES = ("rewrite", "review")


def _apply_offsets(old: str, found: tuple[Replacement, ...] | list[Replacement]) -> str:
    """Apply replacements by character offset, last first (as an editor would)."""
    text = old
    for r in sorted(found, key=lambda r: r.offset, reverse=True):
        text = text[: r.offset] + r.inserted + text[r.offset + r.length :]
    return text


def _offset_of(text: str, line: int, column: int) -> int:
    """The character offset of a 1-based line and column, lines ended by \\r\\n, \\r or \\n."""
    offset, current = 0, 1
    while current < line:
        newline = min(
            (i for i in (text.find("\r", offset), text.find("\n", offset)) if i >= 0),
            default=-1,
        )
        assert newline >= 0, f"line {line} is past the end"
        offset = newline + (2 if text.startswith("\r\n", newline) else 1)
        current += 1
    return offset + column - 1


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param("a\nb\nc\n", "a\nB\nc\n", id="one line changed"),
        pytest.param("a\nb", "a\nb\nc", id="appended past a last line with no newline"),
        pytest.param("a\nb\n", "a\nb\nc\n", id="appended after the last newline"),
        pytest.param("", "x\ny\n", id="a new file"),
        pytest.param("a\nb\nc", "a\nc", id="a line deleted"),
        pytest.param("a\r\nb\r\n", "z\r\na\r\nb\r\n", id="crlf line endings kept"),
        pytest.param("a\fb\nc\n", "a\fb\nC\n", id="a form feed is no line break"),
        pytest.param("\ufeffa\nb\n", "\ufeffa\nB\n", id="a bom is not counted"),
    ],
)
def test_replacements_by_offset_and_by_line_give_the_new_text(old: str, new: str) -> None:
    found = replacements(old, new)
    plain_old = old.removeprefix("\ufeff") if new.startswith("\ufeff") else old
    plain_new = new.removeprefix("\ufeff") if old.startswith("\ufeff") else new
    assert _apply_offsets(plain_old, found) == plain_new
    for r in found:
        start = _offset_of(plain_old, r.start_line, r.start_column)
        end = _offset_of(plain_old, r.end_line, r.end_column)
        assert (start, end - start) == (r.offset, r.length)


def test_no_change_no_replacement() -> None:
    assert replacements("a\nb\n", "a\nb\n") == ()


RULES = {"UNS101": RuleInfo("UNS101", "sentinel-warning-producer", "Sentinel warning string")}
FINDINGS = [
    Finding("pkg/a.py", 2, 17, "UNS101", "Sentinel warning string", 2, 40, "rewrite"),
    Finding("pkg/a.py", 3, 17, "UNS101", "Sentinel warning string", 3, 40, "rewrite"),
    Finding("pkg/b.py", 1, 1, "UNS101", "Sentinel warning string", 1, 9, "skip"),
]
FIX = Fix(
    "Migrate pkg/a.py as `unsentinel apply` would (2 site(s) in this file)",
    (
        FileChange(
            "pkg/a.py", replacements('w = []\nw.append("BLOCK: x")\n', "w = []\nw.append(W())\n")
        ),
    ),
)


def test_sarif_fix_snapshot(json_snapshot: SnapshotAssertion) -> None:
    text = sarif.render(FINDINGS, RULES, version="0.0.0", fixes={"pkg/a.py": FIX, "pkg/b.py": FIX})
    document = json.loads(text)
    jsonschema.Draft4Validator(_schema()).validate(document)
    # One fix per file, on its first rewritten finding; a skipped site gets none.
    assert ["fixes" in r for r in document["runs"][0]["results"]] == [True, False, False]
    assert text == json_snapshot


def test_no_fix_on_a_finding_whose_lines_the_fix_leaves_alone() -> None:
    untouched = Finding("pkg/a.py", 1, 1, "UNS101", "Sentinel warning string", 1, 6, "report")
    document = sarif.document([untouched], RULES, version="0.0.0", fixes={"pkg/a.py": FIX})
    assert "fixes" not in document["runs"][0]["results"][0]


def test_no_fix_without_a_known_one() -> None:
    document = sarif.document(FINDINGS, RULES, version="0.0.0")
    assert not any("fixes" in r for r in document["runs"][0]["results"])


# -- end to end, on a fixture repository ------------------------------------------------------


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("sarif") / "mcp_orders"
    shutil.copytree(FIXTURES / "mcp_orders", root)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.delenv("UNSENTINEL_OUTPUT_FORMAT", raising=False)
        result = CliRunner().invoke(
            main, ["check", ".", "--no-cache", "-j", "1", "--output-format", "sarif"]
        )
    assert result.exit_code == 1, result.stderr
    return root, json.loads(result.stdout)


def test_fixture_sarif_is_valid_and_has_rule_metadata(checked: tuple[Path, dict[str, Any]]) -> None:
    _root, document = checked
    jsonschema.Draft4Validator(_schema()).validate(document)
    [sarif_run] = document["runs"]
    rules = sarif_run["tool"]["driver"]["rules"]
    assert all(rule["name"] and rule["shortDescription"]["text"] for rule in rules)
    for result in sarif_run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_fixture_fixes_rebuild_what_apply_writes(
    checked: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, document = checked
    monkeypatch.chdir(root)
    expected = run(
        [Path(".")], load_config((root,)), Mode.DIFF, jobs=1, decisions=Decisions(mark_review=True)
    )
    written = {r.path: r.new_text for r in expected.all_results if r.changed}
    results = document["runs"][0]["results"]
    with_fix = [r for r in results if "fixes" in r]
    files = [_path_of(r) for r in with_fix]
    assert len(files) == len(set(files)), "at most one fix per file"
    assert with_fix, "the fixture has fixes"
    # Only a file apply changes gets one, and each such file with a site check says apply
    # rewrites does.
    assert set(files) <= set(written)
    checked_run = run([Path(".")], load_config((root,)), Mode.CHECK, jobs=1)
    rewritten = {
        r.path for r in checked_run.results for site in r.sites if site.action.value in REWRITES
    }
    assert rewritten & set(written) <= set(files)
    for result in with_fix:
        assert result["fixes"][0]["description"]["text"].startswith("Migrate ")
        for change in result["fixes"][0]["artifactChanges"]:
            path = change["artifactLocation"]["uri"]
            original = (root / path).read_text(encoding="utf-8") if (root / path).exists() else ""
            assert _apply_sarif(original, change["replacements"]) == written[path], path


def _path_of(result: dict[str, Any]) -> str:
    uri: str = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    return uri


def _apply_sarif(original: str, found: list[dict[str, Any]]) -> str:
    """Apply SARIF replacements by their line/column regions, as a SARIF viewer would."""
    text = original
    regions = [(r["deletedRegion"], r["insertedContent"]["text"]) for r in found]
    for region, inserted in sorted(regions, key=lambda x: -x[0]["charOffset"]):
        start = _offset_of(original, region["startLine"], region["startColumn"])
        end = _offset_of(original, region["endLine"], region["endColumn"])
        text = text[:start] + inserted + text[end:]
    return text


def _schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    return loaded
