"""``check --output-format sarif``: a SARIF 2.1.0 log for code-scanning services.

One run, with every rule's metadata in ``tool.driver.rules`` (including rules that found
nothing, so a service can show what was checked) and one result per finding. Columns count
Unicode code points, as LibCST does. Fixes are not included: ``check`` does not compute
the rewrite (``unsentinel diff`` shows it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from unsentinel.output.findings import Finding, RuleInfo

SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = "https://pypi.org/project/unsentinel/"


def render(findings: Sequence[Finding], rules: Mapping[str, RuleInfo], *, version: str) -> str:
    return json.dumps(document(findings, rules, version=version), indent=2) + "\n"


def document(
    findings: Sequence[Finding], rules: Mapping[str, RuleInfo], *, version: str
) -> dict[str, Any]:
    codes = sorted({*rules, *(f.code for f in findings)})
    index = {code: i for i, code in enumerate(codes)}
    driver = {
        "name": "unsentinel",
        "version": version,
        "informationUri": INFORMATION_URI,
        "rules": [_rule(code, rules.get(code)) for code in codes],
    }
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "columnKind": "unicodeCodePoints",
                "results": [_result(f, index[f.code]) for f in findings],
            }
        ],
    }


def _rule(code: str, info: RuleInfo | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": code}
    if info is not None:
        entry["name"] = info.name
        entry["shortDescription"] = {"text": info.summary}
    entry["defaultConfiguration"] = {"level": "error"}
    return entry


def _result(f: Finding, rule_index: int) -> dict[str, Any]:
    return {
        "ruleId": f.code,
        "ruleIndex": rule_index,
        "level": "error",
        "message": {"text": f.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": quote(f.path)},
                    "region": {
                        "startLine": f.line,
                        "startColumn": f.column,
                        "endLine": f.end_line,
                        "endColumn": f.end_column,
                    },
                }
            }
        ],
    }
