"""Names like a warnings list that hold a scalar: a string, a flag or a count, not a list.

``unicode_warnings = ""``, ``has_warnings = n > 0``, ``total_warnings = len(ws)``: the name
says warnings, the value says otherwise. Kept apart from
:mod:`~unsentinel.warnings.producer_flow` (which follows values into warnings lists): this
module only tells such a value apart and keeps its name out of any list migration.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.warnings.carriers import FileCarriers
from unsentinel.warnings.strings import is_stringish


def holds_text(
    carriers: FileCarriers, target: cst.BaseExpression, value: cst.BaseExpression
) -> bool:
    """``unicode_warnings = ""`` / ``report_warnings += "..." % name`` / ``_ignored_warnings
    = True``: a name holding a string, a flag or a count is no list (``+=`` of a string
    onto a list would add its characters). Nothing is a producer here; the carrier is
    blocked without a report, so nothing a list migration touches meets a scalar."""
    if not (carriers.analysis.is_warning_list(target) and is_text(value)):
        return False
    carriers.block(
        value,
        carriers.of(target),
        "a string, a flag or a count, not a list, is kept under this name",
    )
    return True


def is_text(expr: cst.BaseExpression) -> bool:
    """A scalar built in place, never a list: a ``str`` (a literal, an f-string, a
    concatenation, ``"..." % args``, ``"...".format(...)``), a number, ``True`` / ``False``,
    a comparison or a ``len`` (``has_warnings = count > 0``, ``total_warnings = len(ws)``)."""
    if is_stringish(expr) or isinstance(expr, (cst.Integer, cst.Float, cst.Comparison)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in ("True", "False")
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name):
        return expr.func.value == "len"
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Modulo):
        return is_stringish(expr.left)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        return expr.func.attr.value == "format" and is_stringish(expr.func.value)
    return False
