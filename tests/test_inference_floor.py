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
# Lowered once, on purpose (2026-11-23, the run after b8b42c8), when two packages' groups
# were held whole because an appended local was also used as text (katana-mcp-server
# passes it to `message=message`, awslabs-cloudwatch-mcp-server to `ctx.warning(msg)`).
# Raised again (2026-11-26, the run of e66cf61): the append now wraps such a local
# (`warnings.append(Warning(message=msg, ...))`, the local left a string), and coverage went
# from 57 to 96 tuning sites (19 to 26 holdout), past the 82 of before.
# Lowered on purpose (2026-11-26, the run of e0dc28f), by two tuning sites, both in
# awslabs-dynamodb-mcp-server's mysql.py: a method's callers now fill its parameters after
# ``self`` (before, ``self._execute_query_batch(..., all_errors)`` reached no parameter),
# so the appends inside the method joined the caller's list, which goes out as
# ``{"errors": all_errors}`` into a group that also holds tuples: held whole. Migrated, as
# before, those appends put ``Warning`` objects into a list its readers take as strings.
# Raised (2026-11-27, the run of b847b81): katana's warnings migrate again (an append under
# a dict key is a producer) and loops without an index are enumerated.
# Raised (2026-11-27, branch infer13, the run of 9a222e5): field paths through every binding
# of a local (tuple unpacking, reassignment, loops over computed values), plumbing's answers
# as state, a tested input the message says, a helper's parameter under its caller's name;
# codes from the first sentence, an opening "no" as missing.
# Raised (2026-11-27, branch infer11, the run of ee0a7bd): a named input's part the condition
# tests (a config section's key), keyed lists grown with ``+=``; codes from the main clause;
# a literal joined to a list with ``+`` followed (awslabs-cloudwatch-mcp-server's group
# migrates: coverage 100 -> 108 tuning sites, 27 -> 28 holdout).
# Lowered (2026-11-27, branch infer12), coverage only, in a commit of its own: in a fresh
# venv and sdist cache, poetry-core's group is held whole ("Warning objects would be
# returned in a dict under 'warnings', whose readers read dumped dicts") at every commit
# checked -- main's f362ff8, b62c89e and its parent, ee1d7db, and 88e1824, the commit that
# wrote the floors above (from the run of ee0a7bd, no longer in the history). Its 9 tuning
# sites are skipped, with their severities and 2 codes: tuning coverage 108 -> 99 of 163,
# severity 101 -> 92, code 29 -> 27; holdout coverage 28 -> 27, severity 27 -> 26. These
# are main's own figures (f362ff8) before this branch; none of its changes moves them.
# Raised (2026-11-27, branch infer12, the run of 0cfcd70): a value shown only where a
# preposition of place puts it is context; a helper's parameter its callers fill with a
# service's answer is state; a class member in a condition is a constant, no setting.
# Raised (2026-11-27, branch infer-paths, the run of its final code): an index of an input
# list's items by a key, a choice between a service's answer and a literal, and a mode the
# wording test put into the message: tuning field_path 81 -> 86, holdout 19 -> 20.
# Second batch (2026-11-27, session 14, branch infer14): 75 more labelled sites from 5 new
# packages, most of them in groups held whole. The counts ("right") only rose: 97 severities
# (92 + 5), 91 field paths (86 + 5), holdout 27 severities and 6 codes; no site of the first
# batch changed. The two coverage floors are SHARES of the set, so they depend on its
# composition: the new sites are covered far less often (14 of 60 tuning, 5 of 15 holdout),
# and the floors are set to the new measured shares, 113/223 and 32/56. No fewer sites are
# covered than before: the first batch's 99 tuning and 27 holdout sites all still are.
# Raised (2026-11-27, session 15, branch infer15b): what a method of a class named like a
# check collects blocks, and a request-named parameter walked item by item is a list of
# inputs: tuning severity 97 -> 106 right, holdout 27 -> 31 (field paths unchanged).
# Raised (2026-11-28, session 16, branches fp16 and code16 merged, the run of 52d9601):
# field paths through settings computed from their fields, if/elif/else chains that only
# pick the wording, backticked names, computed attributes of models: tuning 91 -> 98,
# holdout 20 -> 27 (84%, past the 80% target); codes from subject + condition across more
# rephrasings: tuning 27 -> 30, holdout 6 -> 8. Severity unchanged.
FLOORS = {
    ("tuning", "severity", "coverage"): 0.506,  # 113/223 (composition: was 99/163)
    ("tuning", "severity", "right"): 106,
    ("tuning", "severity", "high_right"): 1.0,  # 37/37
    ("tuning", "severity", "wrong_low"): 1.0,  # 7/7
    ("tuning", "field_path", "right"): 98,
    ("tuning", "field_path", "high_right"): 1.0,  # 14/14
    ("tuning", "field_path", "wrong_low"): 1.0,  # 15/15
    ("tuning", "code", "right"): 30,
    ("tuning", "code", "wrong_low"): 1.0,  # 83/83
    ("holdout", "severity", "coverage"): 0.571,  # 32/56 (composition: was 27/41)
    ("holdout", "severity", "right"): 31,
    ("holdout", "severity", "high_right"): 1.0,  # 8/8
    ("holdout", "severity", "wrong_low"): 1.0,  # 1/1
    ("holdout", "field_path", "right"): 27,
    ("holdout", "field_path", "high_right"): 1.0,  # 3/3
    ("holdout", "field_path", "wrong_low"): 1.0,  # 5/5
    ("holdout", "code", "right"): 8,
    ("holdout", "code", "wrong_low"): 1.0,  # 24/24
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
