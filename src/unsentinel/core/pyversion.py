"""Python versions as projects state them: ``requires-python`` and ruff-style ``py310``.

Kept free of LibCST so that loading the configuration stays cheap.
"""

from __future__ import annotations

import re

_LOWER_BOUND = re.compile(r">=\s*3\s*\.\s*(\d+)|~=\s*3\s*\.\s*(\d+)|==\s*3\s*\.\s*(\d+)")
_TARGET = re.compile(r"py3(\d+)")


def lowest_from_requires_python(spec: str) -> tuple[int, int] | None:
    """``">=3.10, <4"`` -> ``(3, 10)``; None when the specifier gives no lower bound."""
    minors = [int(next(g for g in match.groups() if g)) for match in _LOWER_BOUND.finditer(spec)]
    return (3, min(minors)) if minors else None


def parse_target(value: str) -> tuple[int, int] | None:
    """``"py311"`` -> ``(3, 11)``; None when the value is not of that form."""
    match = _TARGET.fullmatch(value.strip().lower())
    return (3, int(match.group(1))) if match else None
