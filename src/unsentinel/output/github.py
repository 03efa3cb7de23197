"""``check --output-format github``: GitHub Actions workflow commands, one per finding.

GitHub turns each line into an annotation on the pull request's diff::

    ::error file=pkg/a.py,line=2,col=17,endLine=2,endColumn=40,title=UNS001::message
"""

from __future__ import annotations

from collections.abc import Sequence

from unsentinel.output.findings import Finding


def render(findings: Sequence[Finding]) -> str:
    return "".join(_command(finding) + "\n" for finding in findings)


def _command(f: Finding) -> str:
    properties = {
        "file": f.path,
        "line": f.line,
        "col": f.column,
        "endLine": f.end_line,
        "endColumn": f.end_column,
        "title": f.code,
    }
    joined = ",".join(f"{key}={_property(str(value))}" for key, value in properties.items())
    message = f"{f.path}:{f.line}:{f.column}: {f.code} {f.message}"
    return f"::error {joined}::{_data(message)}"


def _data(value: str) -> str:
    """The escaping the runner undoes in a command's message."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(value: str) -> str:
    """Property values also must not contain the separators ``:`` and ``,``."""
    return _data(value).replace(":", "%3A").replace(",", "%2C")
