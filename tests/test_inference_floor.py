"""The labelled inference figures never drop (issue 13).

``python benchmarks/inference.py --write-doc`` measures the inference on real warnings
labelled by hand and writes the figures to ``benchmarks/inference_figures.json`` (and
``docs/inference.md``). Running it needs the packages' sdists, so this test reads the
committed figures instead: a change that makes the inference worse shows up as a lower
figure in the next committed run, and fails here. Floors only, never ceilings: a better
run raises the figures, and the floors are raised by hand after it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FIGURES = Path(__file__).parent.parent / "benchmarks" / "inference_figures.json"

# (half, field, figure) -> the lowest share allowed; the figures of the last full run.
# "right" is a count: values right over every labelled site of the half. Accuracy over the
# *covered* sites is reported, not floored: reaching more sites may lower that share while
# every site right before stays right; a count of right answers cannot hide a drop that way.
#
# Lowered once, on purpose (2026-11-23, the run after b8b42c8): coverage fell from 82 to 57
# tuning sites (23 to 19 holdout) because two packages' groups are now held whole -- and
# rightly: katana-mcp-server passes the appended local to a text field (`message=message`),
# awslabs-cloudwatch-mcp-server to `ctx.warning(msg)`, so migrating them handed a Warning to
# a str slot (issue 10). The sites right before in those packages went with them; every
# other package kept or gained right answers (holdout field_path 8 -> 11). Wrapping at the
# append (`warnings.append(Warning(message=msg, ...))`, the local left a string) should win
# them back; raise these floors again then.
FLOORS = {
    ("tuning", "severity", "coverage"): 0.349,  # 57/163 (was 82/163)
    ("tuning", "severity", "right"): 52,  # was 69
    ("tuning", "severity", "high_right"): 1.0,  # 24/24
    ("tuning", "severity", "wrong_low"): 1.0,  # 13/13
    ("tuning", "field_path", "right"): 28,  # was 38
    ("tuning", "field_path", "high_right"): 1.0,  # 11/11
    ("tuning", "field_path", "wrong_low"): 1.0,  # 44/44
    ("tuning", "code", "right"): 11,  # was 15
    ("tuning", "code", "wrong_low"): 1.0,  # 67/67
    ("holdout", "severity", "coverage"): 0.463,  # 19/41 (was 23/41)
    ("holdout", "severity", "right"): 18,  # was 20
    ("holdout", "severity", "high_right"): 1.0,  # 5/5
    ("holdout", "severity", "wrong_low"): 1.0,  # 3/3
    ("holdout", "field_path", "right"): 11,
    ("holdout", "field_path", "high_right"): 1.0,  # 3/3
    ("holdout", "field_path", "wrong_low"): 1.0,  # 15/15
    ("holdout", "code", "right"): 4,
    ("holdout", "code", "wrong_low"): 1.0,  # 19/19
}


def _share(half: str, field: str, figure: str) -> float:
    figures = json.loads(FIGURES.read_text(encoding="utf-8"))
    if figure == "right":
        return float(figures[half][field]["accuracy"][0])
    part, whole = figures[half][field][figure]
    assert whole > 0, f"{half} {field} {figure}: nothing measured"
    return float(part) / float(whole)


@pytest.mark.parametrize(("half", "field", "figure"), sorted(FLOORS))
def test_labelled_figure_does_not_drop(half: str, field: str, figure: str) -> None:
    floor = FLOORS[(half, field, figure)]
    assert _share(half, field, figure) >= floor - 1e-9, (half, field, figure)


@pytest.mark.parametrize("half", ["tuning", "holdout"])
def test_high_confidence_is_calibrated(half: str) -> None:
    """The promise of ``plan``: ``high`` is right at least 95% of the time, and at least
    80% of wrong values are flagged ``low`` -- per field, on both halves."""
    for field in ("severity", "field_path"):
        assert _share(half, field, "high_right") >= 0.95, (half, field)
    for field in ("severity", "field_path", "code"):
        assert _share(half, field, "wrong_low") >= 0.80, (half, field)
