"""``check --output-format json``: a JSON list of findings, one object each.

``[{"code", "name", "message", "path", "line", "column", "end_line", "end_column", "action"}]``
with 1-based lines and columns (``end_column`` is one past the last character).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from unsentinel.output.findings import Finding, RuleInfo


def render(findings: Sequence[Finding], rules: Mapping[str, RuleInfo]) -> str:
    document = [
        {
            "code": f.code,
            "name": rules[f.code].name if f.code in rules else None,
            "message": f.message,
            "path": f.path,
            "line": f.line,
            "column": f.column,
            "end_line": f.end_line,
            "end_column": f.end_column,
            "action": f.action,
        }
        for f in findings
    ]
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
