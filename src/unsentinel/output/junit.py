"""``check --output-format junit``: a JUnit XML report, as CI test-report viewers read it.

One ``<testcase>`` per checked file (so clean files show as passed), one ``<failure>`` per
finding in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from xml.etree import ElementTree as ET

from unsentinel.output.findings import Finding


def render(findings: Sequence[Finding], checked: Sequence[str]) -> str:
    by_path = {path: list(rows) for path, rows in groupby(findings, key=lambda f: f.path)}
    paths = sorted({*checked, *by_path})
    failures = str(len(findings))
    suites = ET.Element("testsuites", name="unsentinel", tests=str(len(paths)), failures=failures)
    suite = ET.SubElement(
        suites, "testsuite", name="unsentinel", tests=str(len(paths)), failures=failures
    )
    for path in paths:
        case = ET.SubElement(suite, "testcase", name=path, classname=path)
        for f in by_path.get(path, []):
            failure = ET.SubElement(case, "failure", message=f"{f.code} {f.message}", type=f.code)
            failure.text = f"{f.path}:{f.line}:{f.column}: {f.code} {f.message}"
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
