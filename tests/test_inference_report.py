"""The inference report's own arithmetic (``benchmarks/inference.py``): a figure that
counted wrong would pass a floor it should fail."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from inference import Label, Outcome, same_code_per_situation  # noqa: E402


def outcome(code: str, site_code: str | None, line: int) -> Outcome:
    label = Label("pkg", "a.py", line, "blocking", "", code, False, False)
    site: dict[str, Any] | None = None if site_code is None else {"code": site_code}
    return Outcome(label, site)


def test_one_code_per_situation_with_and_without_the_skipped_sites() -> None:
    outcomes = [
        outcome("SKU_UNKNOWN", "UNKNOWN_SKU", 1),
        outcome("SKU_UNKNOWN", "UNKNOWN_SKU", 2),  # one code for the situation
        outcome("PRICE_MISSING", "NO_PRICE", 3),
        outcome("PRICE_MISSING", "PRICE_NOT_FOUND", 4),  # two codes for one situation
        outcome("DATE_INVALID", "BAD_DATE", 5),
        outcome("DATE_INVALID", None, 6),  # skipped with its group: no code
        outcome("ONCE_ONLY", "ONCE", 7),  # labelled once: not a repeated situation
    ]

    assert same_code_per_situation(outcomes) == (3, 1)
    # among the covered sites, the date's situation is labelled once: not counted
    assert same_code_per_situation(outcomes, covered=True) == (2, 1)
