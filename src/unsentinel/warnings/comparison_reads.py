"""Comparisons that read warnings: membership and equality, as UNS201 rewrites them.

``BLOCK_WARNING_PREFIX in w`` tests the marker (a severity check once migrated), ``"text"
in w`` a substring of the message, ``"x" in warnings`` membership among the messages, and
``w == "BLOCK: x"`` / ``warnings == ["BLOCK: x"]`` (tests, mostly) compare with literals,
which become ``(severity, message)`` pairs. Split from the rule (``rules/consumer.py``),
which decides when a comparison is read at all.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.layout import expression_code
from unsentinel.core.syntax import string_value
from unsentinel.warnings.analysis import FileAnalysis
from unsentinel.warnings.facts import WarningShape as Shape
from unsentinel.warnings.read_rewrite import ReadRewriter
from unsentinel.warnings.reads import WarningReads, access
from unsentinel.warnings.strings import is_stringish


class ComparisonReads:
    """Rewrites the comparisons of one file that read warnings."""

    def __init__(self, analysis: FileAnalysis, reads: WarningReads, edit: ReadRewriter) -> None:
        self.analysis = analysis
        self.reads = reads
        self.edit = edit

    def rewrite(self, node: cst.Comparison) -> None:
        """Schedule the rewrite of one comparison that reads a warning, if it does."""
        if len(node.comparisons) != 1:
            return
        comparison = node.comparisons[0]
        left, right, operator = node.left, comparison.comparator, comparison.operator
        if isinstance(operator, (cst.In, cst.NotIn)):
            self._membership(node, left, right, negated=isinstance(operator, cst.NotIn))
        elif isinstance(operator, (cst.Equal, cst.NotEqual)):
            self._equality(left, right)
            self._equality(right, left)

    def _membership(
        self,
        node: cst.Comparison,
        left: cst.BaseExpression,
        right: cst.BaseExpression,
        *,
        negated: bool,
    ) -> None:
        if isinstance(left, cst.SimpleString) and self.analysis.is_warning_list_name(
            str(string_value(left))
        ):
            return  # ``"warnings" in result``: a test for a dict key, not a read of warnings
        item = self.reads.item_shape(right)
        if item is not None and self.reads.marker_only(left) is not None:
            marker = self.reads.marker_only(left)
            assert marker is not None
            operator = "!=" if negated else "=="
            self.edit.replace(
                node,
                f"{access(expression_code(right), 'severity', item)} {operator} "
                f'"{marker.severity}"',
                "sentinel membership -> severity check",
            )
        elif item is not None and self.reads.item_shape(left) is None:
            # ``"text" in w``, ``status in w``: a substring test, whatever builds the text.
            self.edit.message_of(right, "substring test on a warning")
        elif is_stringish(left):
            shape = self.reads.shape(right)
            if shape in (Shape.LIST, Shape.DICT_LIST):
                message = access("w", "message", shape.item)
                self.edit.replace(
                    right,
                    f"[{message} for w in {expression_code(right)}]",
                    "membership in warnings -> in messages",
                )

    def _equality(self, subject: cst.BaseExpression, other: cst.BaseExpression) -> None:
        shape = self.reads.shape(subject)
        if shape in (Shape.ITEM, Shape.DICT) and is_stringish(other):
            pair = self.reads.severity_message(other)
            if pair is not None:
                sev = access(expression_code(subject), "severity", shape)
                msg = access(expression_code(subject), "message", shape)
                self.edit.replace(
                    subject, f"({sev}, {msg})", "comparison with a literal -> (severity, message)"
                )
                self.edit.replace(other, pair, "comparison with a literal -> (severity, message)")
        elif (
            shape in (Shape.LIST, Shape.DICT_LIST)
            and isinstance(other, cst.List)
            and other.elements
        ):
            pairs = [
                self.reads.severity_message(e.value)
                if not isinstance(e, cst.StarredElement)
                else None
                for e in other.elements
            ]
            if all(p is not None for p in pairs):
                item = shape.item
                sev, msg = access("w", "severity", item), access("w", "message", item)
                self.edit.replace(
                    subject,
                    f"[({sev}, {msg}) for w in {expression_code(subject)}]",
                    "list equality -> (severity, message) pairs",
                )
                self.edit.replace(
                    other,
                    "[" + ", ".join(p for p in pairs if p) + "]",
                    "list equality -> (severity, message) pairs",
                )
