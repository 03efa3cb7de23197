"""``check --output-format sarif``: a SARIF 2.1.0 log for code-scanning services.

One run, with every rule's metadata in ``tool.driver.rules`` (including rules that found
nothing, so a service can show what was checked) and one result per finding. Columns count
Unicode code points, as LibCST does.

``fixes`` (computed by the command line through the library, only for this format) maps a
file to what ``apply`` would write there. The file's first finding whose lines that rewrite
replaces (and that is no site ``apply`` skips) carries it as a SARIF ``fix``: the file's
hunks as ``replacements`` (``deletedRegion`` + ``insertedContent``), plus the generated
modules the file imports from. One fix per file, not per finding: a site's edit alone
(without the file's new imports) is not valid code, and the same whole-file fix offered on
several results would conflict once one is applied. Files ``apply`` leaves unchanged or
fails on get no fix: we know none.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from unsentinel.output.findings import FileChange, Finding, Fix, Replacement, RuleInfo

SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = "https://pypi.org/project/unsentinel/"


LEFT_ALONE = "skip"  # the action of a site apply does not change


def render(
    findings: Sequence[Finding],
    rules: Mapping[str, RuleInfo],
    *,
    version: str,
    fixes: Mapping[str, Fix] | None = None,
) -> str:
    text = json.dumps(document(findings, rules, version=version, fixes=fixes), indent=2)
    return text + "\n"


def document(
    findings: Sequence[Finding],
    rules: Mapping[str, RuleInfo],
    *,
    version: str,
    fixes: Mapping[str, Fix] | None = None,
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
                "results": _results(findings, index, fixes or {}),
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


def _results(
    findings: Sequence[Finding], index: Mapping[str, int], fixes: Mapping[str, Fix]
) -> list[dict[str, Any]]:
    """One result per finding; each file's fix goes on its first finding the fix touches."""
    placed: set[str] = set()
    results = []
    for f in findings:
        entry = _result(f, index[f.code])
        fix = fixes.get(f.path)
        if fix is not None and f.path not in placed and _touches(fix, f):
            placed.add(f.path)
            entry["fixes"] = [_fix(fix)]
        results.append(entry)
    return results


def _touches(fix: Fix, f: Finding) -> bool:
    """Does ``fix`` rewrite a line of the finding (one ``apply`` does not skip)?"""
    if f.action == LEFT_ALONE:
        return False
    return any(
        r.start_line <= f.end_line and f.line <= _last_line(r)
        for change in fix.changes
        if change.path == f.path
        for r in change.replacements
    )


def _last_line(r: Replacement) -> int:
    """The last line a replacement deletes (an insertion counts as its start line)."""
    last = r.end_line - 1 if r.end_column == 1 else r.end_line
    return max(last, r.start_line)


def _fix(fix: Fix) -> dict[str, Any]:
    return {
        "description": {"text": fix.description},
        "artifactChanges": [_artifact_change(change) for change in fix.changes],
    }


def _artifact_change(change: FileChange) -> dict[str, Any]:
    return {
        "artifactLocation": {"uri": quote(change.path)},
        "replacements": [_replacement(r) for r in change.replacements],
    }


def _replacement(r: Replacement) -> dict[str, Any]:
    return {
        "deletedRegion": {
            "startLine": r.start_line,
            "startColumn": r.start_column,
            "endLine": r.end_line,
            "endColumn": r.end_column,
            "charOffset": r.offset,
            "charLength": r.length,
        },
        "insertedContent": {"text": r.inserted},
    }


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
