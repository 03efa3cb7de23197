"""UNS901: a ``# TODO(unsentinel)`` review marker that is still in the code."""

from __future__ import annotations

import libcst as cst

from unsentinel.core.decisions import MARKER
from unsentinel.core.model import Action, Kind
from unsentinel.core.rule import Example, Rule
from unsentinel.review.detect import REVIEW_MARKER


class ReviewMarker(Rule):
    """Report a review marker that ``apply`` left on a line with a low-confidence value.

    What it does
        Reports every ``# TODO(unsentinel): <field> inferred from <reason>; check it``
        comment. ``apply`` (with ``--mark-review``, the default) writes one on each
        rewritten line whose severity, field_path or code was inferred with low confidence.

    Why
        A low-confidence value is a guess a person should confirm. The marker keeps the
        guess visible where the code is, and this rule lets a team track the review to
        zero in CI, as bump-pydantic's ``# TODO[pydantic]`` comments do.

    Example
        ```python
        w = Warning(message=m, code=codes.X)  # TODO(unsentinel): code inferred from ...; check it
        ```

    Use instead
        Confirm (or correct) the value, then delete the comment:
        ```python
        w = Warning(message=m, code=codes.X)
        ```

    Fix safety
        Detection only: only a person can say the value is right.
    """

    detector = REVIEW_MARKER
    code = detector.code
    name = detector.name
    summary = "Review marker left by apply: a low-confidence value to confirm"

    VALID = (Example("x = 1  # TODO: unrelated", id="another todo"),)
    INVALID = (
        Example(
            "code = 'CHECK'  # TODO(unsentinel): code inferred from one word; check it",
            id="marker",
        ),
    )

    def visit_Comment(self, node: cst.Comment) -> None:
        start = node.value.find(MARKER.removeprefix("# "))
        if start < 0:
            return
        what = node.value[start:].removeprefix(MARKER.removeprefix("# ")).strip()
        self.context.report(
            self,
            node,
            f"Review marker left: {what}",
            kind=Kind.DETECTOR,
            action=Action.REPORT,
        )
