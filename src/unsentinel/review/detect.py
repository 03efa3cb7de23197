"""The review rules as the prefilter sees them (UNS901, UNS902), without LibCST.

Each rule class points at its detector here; a file with neither a review marker nor a
``noqa`` naming one of our codes never imports them.
"""

from __future__ import annotations

from unsentinel.core.config import Config
from unsentinel.core.decisions import MARKER
from unsentinel.core.prefilter import Detector

_RULES = "unsentinel.review.rules"


def _marker(config: Config) -> tuple[bytes, ...]:
    return (MARKER.removeprefix("# ").encode(),)


def _noqa(config: Config) -> tuple[bytes, ...]:
    return (b"noqa",)


def _noqa_of_ours(config: Config) -> tuple[bytes, ...]:
    """A ``noqa`` directive that names one of our codes (the rule ignores the others)."""
    return (rb"[Nn][Oo][Qq][Aa]\s*:[^\n]*UNS",)


REVIEW_MARKER = Detector("UNS901", "review-marker", f"{_RULES}.review_marker:ReviewMarker", _marker)
UNUSED_NOQA = Detector(
    "UNS902", "unused-noqa", f"{_RULES}.unused_noqa:UnusedNoqa", _noqa, _noqa_of_ours
)

DETECTORS: tuple[Detector, ...] = (REVIEW_MARKER, UNUSED_NOQA)
