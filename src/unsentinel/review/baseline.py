"""``check --baseline FILE``: fail only on findings the baseline does not already hold.

A baseline lets a team adopt ``check`` in CI before the migration is done and watch the
count shrink. Findings are matched by file, rule and a line-insensitive fingerprint (the
site's source text, :func:`unsentinel.core.decisions.fingerprint`), as a multiset: two
identical findings in one file need two entries, so a third one is new.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from unsentinel.core.decisions import file_text, fingerprint, site_source
from unsentinel.core.model import FileResult, Site

BASELINE_VERSION = 1
Key = tuple[str, str, str]  # path, rule, fingerprint


class BaselineError(Exception):
    """An unreadable or malformed baseline file."""


def _keyed(results: Iterable[FileResult]) -> Iterator[tuple[FileResult, Site, Key]]:
    for result in results:
        findings = [s for s in result.sites if s.action.is_finding]
        text = file_text(result.path) if findings else None
        for site in findings:
            source = site_source(text, site.position) if text is not None else site.message
            yield result, site, (result.path, site.rule, fingerprint(source))


def write_baseline(path: Path, results: Iterable[FileResult]) -> int:
    """Record every current finding; returns how many."""
    counts = Counter(key for _r, _s, key in _keyed(results))
    entries = [
        {"path": p, "rule": rule, "fingerprint": print_, "count": count}
        for (p, rule, print_), count in sorted(counts.items())
    ]
    document = {"version": BASELINE_VERSION, "findings": entries}
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return sum(counts.values())


def load_baseline(path: Path) -> Counter[Key]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        return Counter(
            {
                (e["path"], e["rule"], e["fingerprint"]): int(e["count"])
                for e in document["findings"]
            }
        )
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise BaselineError(f"{path}: not a baseline written by --write-baseline: {exc}") from exc


def new_findings(
    results: Iterable[FileResult], baseline: Counter[Key]
) -> tuple[tuple[FileResult, ...], int]:
    """The results with only the findings the baseline does not hold; and how many it held."""
    remaining = Counter(baseline)
    kept: dict[str, list[Site]] = {}
    known = 0
    ordered = list(results)
    for result, site, key in _keyed(ordered):
        if remaining[key] > 0:
            remaining[key] -= 1
            known += 1
        else:
            kept.setdefault(result.path, []).append(site)
    filtered = tuple(
        replace(
            r,
            sites=tuple(s for s in r.sites if not s.action.is_finding or s in kept.get(r.path, ())),
        )
        for r in ordered
    )
    return filtered, known
