"""UNS902: a ``# noqa: UNSxxx`` comment that suppresses nothing."""

from __future__ import annotations

import re

import libcst as cst

from unsentinel.core.model import Kind
from unsentinel.core.rule import Example, Rule, RuleContext
from unsentinel.review.detect import UNUSED_NOQA

_DIRECTIVE = re.compile(r"#\s*noqa:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)", re.I)
_OURS = re.compile(r"UNS[0-9]+")


class UnusedNoqa(Rule):
    """Report a ``# noqa: UNSxxx`` code that suppresses no finding on its line (ruff's RUF100).

    What it does
        For every ``# noqa: ...`` comment, reports each ``UNS`` code in it that silenced no
        finding of that rule on that line, and each ``UNS`` code that names no rule. Other
        tools' codes (``E501``) and a bare ``# noqa`` are theirs to judge.

    Why
        A suppression outlives the code it was written for: once the site is migrated
        (or moved), the comment hides nothing but would hide the next sentinel written
        on that line. Reporting it keeps suppressions honest.

    Example
        ```python
        severity = "blocking"  # noqa: UNS101
        ```

    Use instead
        ```python
        severity = "blocking"
        ```

    Fix safety
        Detection only: delete the code (or the comment) by hand.
    """

    detector = UNUSED_NOQA
    code = detector.code
    name = detector.name
    summary = "`# noqa: UNSxxx` that suppresses nothing"

    VALID = (
        Example("x = 1  # noqa: E501", id="another tool's code"),
        Example("x = 1  # noqa", id="bare noqa: every tool's"),
    )
    INVALID = (
        Example("x = 1  # noqa: UNS101", id="nothing to suppress"),
        Example("x = 1  # noqa: UNS999", id="no such rule"),
    )

    def __init__(self, context: RuleContext) -> None:
        super().__init__(context)
        self._comments: list[cst.Comment] = []
        context.after_suppressions(self._report_unused)

    def visit_Comment(self, node: cst.Comment) -> None:
        if _DIRECTIVE.search(node.value):
            self._comments.append(node)

    def _report_unused(self) -> None:
        known = _known_codes()
        for comment in self._comments:
            match = _DIRECTIVE.search(comment.value)
            assert match is not None
            line = self.context.position(comment).line
            for code in _OURS.findall(match.group("codes").upper()):
                if code not in known:
                    problem = f"`noqa` names {code}, which is no rule"
                elif (line, code) in self.context.noqa_used:
                    continue
                elif not self.config.is_rule_enabled(code):
                    continue  # not run: we cannot tell whether it would suppress something
                else:
                    problem = f"Unused `noqa` directive: nothing to suppress for {code}"
                self.context.report(self, comment, problem, kind=Kind.DETECTOR)


def _known_codes() -> set[str]:
    """Every rule's code: all rule classes are loaded by the time a run reads a file."""
    found: set[str] = set()
    pending: list[type[Rule]] = [Rule]
    while pending:
        kind = pending.pop()
        pending.extend(kind.__subclasses__())
        code = kind.__dict__.get("code")
        if isinstance(code, str):
            found.add(code)
    return found
