"""``plan`` output: every site with its inferred values, as JSON (default) or TOML.

The JSON shape is a stable interface (version 1), documented in docs/plan-format.md::

    {"version": 1, "paths": [str], "sites": [{"id", "path", "line", "column", "end_line",
      "rule", "kind", "action", "severity", "field_path", "code",
      "confidence": {field: "high"|"low"}, "reasons": [str], "fingerprint"}]}

The fingerprint (:mod:`unsentinel.core.decisions`) lets ``apply --plan`` refuse an entry
whose source changed since the plan was written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from unsentinel.core.decisions import file_text, site_fingerprint
from unsentinel.core.model import FileResult, Site
from unsentinel.core.runner import RunResult

PLAN_VERSION = 1


def plan_document(results: tuple[FileResult, ...], paths: Sequence[str] = ()) -> dict[str, Any]:
    """``paths``: what the plan was made over (``apply --plan`` without PATH uses them)."""
    sites = [
        _site_entry(result.path, site, text)
        for result in sorted(results, key=lambda r: r.path)
        if result.sites
        for text in (file_text(result.path),)
        for site in result.sites
    ]
    return {"version": PLAN_VERSION, "paths": list(paths), "sites": sites}


def _site_entry(path: str, site: Site, text: str | None) -> dict[str, Any]:
    inferred = site.inferred
    reasons = [f"{name}: {value.reason}" for name, value in inferred.items()]
    return {
        "id": f"{path}:{site.position.line}:{site.position.column}:{site.rule}",
        "path": path,
        "line": site.position.line,
        "column": site.position.column,
        "end_line": site.position.end_line,
        "rule": site.rule,
        "kind": site.kind.value,
        "action": site.action.value,
        "severity": site.severity.value if site.severity else None,
        "field_path": site.field_path.value if site.field_path else None,
        "code": site.code.value if site.code else None,
        "confidence": {name: value.confidence.value for name, value in inferred.items()},
        "reasons": [*site.reasons, *reasons],
        "fingerprint": site_fingerprint(text, site) if text is not None else None,
    }


def render_plan(run: RunResult, fmt: str = "json", paths: Sequence[str] = ()) -> str:
    document = plan_document(run.all_results, paths)  # schema sites (contracts) too
    if fmt == "toml":
        import tomli_w

        return tomli_w.dumps(_drop_none(document))
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _drop_none(value: Any) -> Any:
    """TOML has no null: absent keys mean None (and an empty table is only noise)."""
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None and v != {}}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value
