"""Every ``check --output-format``: a small snapshot each, and SARIF against its schema."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from syrupy.assertion import SnapshotAssertion

from unsentinel.core.model import Action, FileResult, Kind, Position, Site, Status
from unsentinel.output import formats, full, github
from unsentinel.output.findings import Finding, RuleInfo, collect
from unsentinel.output.formats import OutputFormat

SARIF_SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"

RULES = {
    "UNS001": RuleInfo("UNS001", "sentinel-string", "String literal starts with a sentinel prefix"),
    "UNS002": RuleInfo("UNS002", "sentinel-constant", "Reference to a sentinel prefix constant"),
}
SOURCES = {
    "pkg/orders.py": 'warnings = []\nwarnings.append("BLOCK: order is empty")\n'
    "x = BLOCK_WARNING_PREFIX + 'a, b: 100%'\n",
}


def _site(code: str, line: int, column: int, end_column: int, message: str) -> Site:
    return Site(
        rule=code,
        kind=Kind.DETECTOR,
        position=Position(line, column, line, end_column),
        message=message,
        action=Action.REPORT,
    )


RESULTS = (
    FileResult("pkg/clean.py", Status.PREFILTERED),
    FileResult(
        "pkg/orders.py",
        Status.PARSED,
        sites=(
            _site("UNS002", 3, 5, 25, "Reference to sentinel constant BLOCK_WARNING_PREFIX"),
            _site("UNS001", 2, 17, 40, "String starts with sentinel prefix 'BLOCK:'"),
            Site(
                "UNS001",
                Kind.DETECTOR,
                Position(1, 1, 1, 2),
                "a look-alike noted for review",
                Action.NOTE,
            ),
        ),
    ),
)
FINDINGS = collect(RESULTS)


def render(fmt: OutputFormat) -> str:
    return formats.render(
        fmt,
        FINDINGS,
        rules=RULES,
        checked=[r.path for r in RESULTS],
        version="0.0.0",
    )


def test_findings_are_sorted_and_notes_are_not_findings() -> None:
    assert [(f.path, f.line, f.code) for f in FINDINGS] == [
        ("pkg/orders.py", 2, "UNS001"),
        ("pkg/orders.py", 3, "UNS002"),
    ]


@pytest.mark.parametrize(
    "fmt",
    [pytest.param(f, id=f.value) for f in OutputFormat if f is not OutputFormat.FULL],
)
def test_format_snapshot(
    fmt: OutputFormat, text_snapshot: SnapshotAssertion, json_snapshot: SnapshotAssertion
) -> None:
    json_formats = (OutputFormat.JSON, OutputFormat.SARIF, OutputFormat.GITLAB)
    assert render(fmt) == (json_snapshot if fmt in json_formats else text_snapshot)


def test_full_shows_the_source_line(text_snapshot: SnapshotAssertion) -> None:
    text = full.render(FINDINGS, source=lambda path: SOURCES[path].splitlines())
    assert text == text_snapshot


def test_full_without_the_source_is_one_line_each() -> None:
    assert full.render(FINDINGS, source=lambda path: []) == render(OutputFormat.TEXT).replace(
        "\n", "\n\n", 1
    )


def test_text_and_concise_agree() -> None:
    assert render(OutputFormat.TEXT) == render(OutputFormat.CONCISE)


def test_sarif_is_valid_sarif_2_1_0() -> None:
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    document = json.loads(render(OutputFormat.SARIF))
    jsonschema.Draft4Validator(schema).validate(document)
    [run] = document["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["UNS001", "UNS002"]
    assert rules[0]["shortDescription"]["text"] == RULES["UNS001"].summary
    assert [rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in run["results"]] == [True, True]


def test_sarif_without_findings_is_valid_and_lists_the_rules() -> None:
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    text = formats.render(OutputFormat.SARIF, [], rules=RULES, checked=[], version="0.0.0")
    document = json.loads(text)
    jsonschema.Draft4Validator(schema).validate(document)
    assert document["runs"][0]["results"] == []
    assert len(document["runs"][0]["tool"]["driver"]["rules"]) == 2


def test_junit_has_one_testcase_per_file_and_a_failure_per_finding() -> None:
    root = ET.fromstring(render(OutputFormat.JUNIT).encode())
    cases = {case.attrib["name"]: case for case in root.iter("testcase")}
    assert sorted(cases) == ["pkg/clean.py", "pkg/orders.py"]
    assert len(cases["pkg/clean.py"].findall("failure")) == 0
    assert [f.get("type") for f in cases["pkg/orders.py"].findall("failure")] == [
        "UNS001",
        "UNS002",
    ]


def test_gitlab_fingerprints_ignore_the_line_and_are_unique() -> None:
    moved = [replace(f, line=f.line + 10, end_line=f.end_line + 10) for f in FINDINGS]
    before = json.loads(render(OutputFormat.GITLAB))
    after = json.loads(
        formats.render(OutputFormat.GITLAB, moved, rules=RULES, checked=[], version="")
    )
    assert [i["fingerprint"] for i in before] == [i["fingerprint"] for i in after]
    twice = json.loads(
        formats.render(OutputFormat.GITLAB, [FINDINGS[0]] * 2, rules=RULES, checked=[], version="")
    )
    assert len({i["fingerprint"] for i in twice}) == 2


def test_github_escapes_separators_in_properties_and_newlines_in_messages() -> None:
    finding = Finding("a,b:c.py", 1, 2, "UNS001", "50% off\nnow", 1, 3, "report")
    assert github.render([finding]) == (
        "::error file=a%2Cb%3Ac.py,line=1,col=2,endLine=1,endColumn=3,title=UNS001"
        "::a,b:c.py:1:2: UNS001 50%25 off%0Anow\n"
    )
