"""``check --output-format gitlab``: a GitLab Code Quality report (a JSON list of issues).

The fingerprint hashes the path, the rule, the message and the finding's rank among
identical ones in its file, not the line: moving code does not make a finding "new".
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from unsentinel.output.findings import Finding


def render(findings: Sequence[Finding]) -> str:
    seen: Counter[tuple[str, str, str]] = Counter()
    issues: list[dict[str, Any]] = []
    for f in findings:
        key = (f.path, f.code, f.message)
        seen[key] += 1
        issues.append(
            {
                "description": f"{f.code} {f.message}",
                "check_name": f.code,
                "fingerprint": _fingerprint(*key, seen[key]),
                "severity": "major",
                "location": {
                    "path": f.path,
                    "lines": {"begin": f.line, "end": f.end_line},
                },
            }
        )
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"


def _fingerprint(path: str, code: str, message: str, rank: int) -> str:
    text = "\0".join((path, code, message, str(rank)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
