"""Severity: which of ``info`` / ``advisory`` / ``blocking`` a warning is.

The decision table of the structured-warnings proposal, as far as code can tell it:

* a sentinel prefix (``BLOCK:``) or a configured marker says it outright: that severity;
* a plain warning never blocked anything, so it is ``advisory`` -- or ``info`` when it
  only reports an auto-selected default or the operating mode (dry-run, preview, sandbox).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from unsentinel.core.model import Inferred, Severity


def infer_severity(
    message: str, marker: str | None, marker_severity: Severity | None, info_keywords: Iterable[str]
) -> Inferred:
    if marker is not None and marker_severity is not None:
        return Inferred.high(marker_severity, f"marked with {marker!r}")
    keyword = info_keyword_in(message, info_keywords)
    if keyword is not None:
        return Inferred.high(
            Severity.INFO, f"plain warning that mentions {keyword!r} (context only)"
        )
    return Inferred.high(Severity.ADVISORY, "plain warning: the code never blocked on it")


def info_keyword_in(message: str, keywords: Iterable[str]) -> str | None:
    lowered = message.lower()
    for keyword in keywords:
        if re.search(rf"(?<![a-z]){re.escape(keyword.lower())}(?![a-z])", lowered):
            return keyword
    return None
