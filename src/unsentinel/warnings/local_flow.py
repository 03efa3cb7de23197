"""Where a local appended to a warnings list comes from: its assignments in the function.

``warnings.append(note)``: the strings assigned to ``note`` are the producers. Where the
local is also used as text elsewhere, the append builds the ``Warning`` from it instead, or
its group is held (:mod:`~unsentinel.warnings.local_uses` finds those uses).

Kept apart from :mod:`~unsentinel.warnings.producer_flow`, which follows values *into*
warnings lists; this module follows one name *back* to its values. The producer passes
callbacks that decide what a value becomes (a producer, a candidate, an unknown value), so
this module decides only which values a local stands for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from unsentinel.core.rule import RuleContext
from unsentinel.warnings.analysis import FileAnalysis
from unsentinel.warnings.carriers import FileCarriers
from unsentinel.warnings.facts import WarningShape
from unsentinel.warnings.graph import Carrier
from unsentinel.warnings.helper_returns import HelperReturns
from unsentinel.warnings.local_uses import LocalUses, is_appended, reaching_assignment
from unsentinel.warnings.strings import Stripped, is_stringish

Produce = Callable[[cst.BaseExpression, cst.BaseExpression | None], None]
"""Turn a string into a warning; the second argument is the assignment it is inferred from."""

Follow = Callable[[cst.BaseExpression], None]
"""Follow a value that may be one warning (or block its group, when its type is unknown)."""


@dataclass(frozen=True)
class LocalFlow:
    """Follows the locals one file appends to warnings lists back to their assignments."""

    analysis: FileAnalysis
    context: RuleContext
    carriers: FileCarriers
    helpers: HelperReturns
    strip: Callable[[cst.BaseExpression], Stripped | None]
    produce: Produce
    follow_candidate: Follow
    unless_known: Follow

    def follow(self, name: cst.Name, into: tuple[Carrier, ...]) -> None:
        """``warnings.append(note)``: follow ``note`` to its assignment in this function --
        or to each of them when every one is a string or ``None`` (``block: str | None =
        None`` then ``block = "BLOCK: ..."`` under a condition)."""
        function = self.analysis.enclosing_function(name)
        facts = self.analysis.function(function) if function is not None else None
        values = facts.assignments.get(name.value, []) if facts is not None else []
        if function is not None and any(
            is_stringish(v) or isinstance(v, cst.IfExp) for v in values
        ):
            if self._wraps_at_append(name, function, values, into):
                return
            self._unless_only_appended(name, function, into)
        if len(values) > 1 and all(is_stringish(v) or _is_none(v) for v in values):
            for each in values:
                if is_stringish(each):
                    self.produce(each, None)
            return
        value = values[0] if len(values) == 1 else None
        if value is not None and is_stringish(value):
            self.produce(value, None)
            return
        if isinstance(value, cst.IfExp):  # ``note = "..." if bad else None``
            self.follow_candidate(value)
            return
        if value is not None:
            self.helpers.record_call(value, WarningShape.ITEM)
        self.unless_known(name)

    def _wraps_at_append(
        self,
        name: cst.Name,
        function: cst.FunctionDef,
        values: list[cst.BaseExpression],
        into: tuple[Carrier, ...],
    ) -> bool:
        """``msg = f"..."``, ``warnings.append(msg)``, ``return Result(message=msg)``: the
        local stays text for its other use, and the append builds the ``Warning`` from it
        (``warnings.append(Warning(..., message=msg, ...))``), inferred from the assignment
        that reaches the append. Only where every value of the local is plain text: a
        sentinel in it would reach the other use too, and ``None`` would reach ``message``.
        """
        if not is_appended(name, self.context.parent) or not all(
            is_stringish(v) and self.strip(v) is None for v in values
        ):
            return False
        if self._used_as_text(name, function) is None:
            return False  # only appended: the assignment itself becomes the Warning
        if self.carriers.blocker(into) is None:
            self.produce(name, reaching_assignment(self.context, name, values))
        else:
            self.produce(name, None)  # reported as held, with the group's blocker
        return True

    def _unless_only_appended(
        self, name: cst.Name, function: cst.FunctionDef, into: tuple[Carrier, ...]
    ) -> None:
        """``msg = f"..."``, ``warnings.append(msg)`` and ``ctx.warning(msg)``: the assignment
        would become a ``Warning`` that the other use still takes as text, so the group
        stays as it is (see :mod:`unsentinel.warnings.local_uses`)."""
        other = self._used_as_text(name, function)
        if other is not None:
            self.carriers.block(other, into, f"`{name.value}` is also used as text on this line")

    def _used_as_text(self, name: cst.Name, function: cst.FunctionDef) -> cst.Name | None:
        uses = LocalUses(self.analysis.index, self.context.parent, self.analysis.is_warning_list)
        return uses.as_text(name, function)


def _is_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"
