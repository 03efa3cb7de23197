"""Which parts of a value followed into a warnings list are warnings.

The producer rules (:mod:`~unsentinel.warnings.producer_flow`) follow values into warnings
lists; a value is taken apart here. A list, tuple or set literal holds its elements, a
comprehension its element (or the literal it walks), ``a or b`` and ``a + b`` both sides,
a conditional both arms. Each element is a candidate: a string is a producer, ``str(...)``
a new message (or the text of an item copied), a local is followed to what is assigned to
it (:mod:`~unsentinel.warnings.local_flow`), and anything else is a helper's result
(recorded for the gather pass) or a value of unknown type, which blocks its group.
"""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from unsentinel.core.syntax import last_name
from unsentinel.warnings.facts import WarningShape
from unsentinel.warnings.flow import WarningFlow
from unsentinel.warnings.graph import Carrier
from unsentinel.warnings.helper_returns import NOT_HELPERS, HelperReturns
from unsentinel.warnings.local_flow import LocalFlow
from unsentinel.warnings.strings import is_stringish


class _Walker(Protocol):
    """What the walk asks of the rule it is mixed into."""

    _into: tuple[Carrier, ...]  # where the values being followed now end up

    @property
    def helpers(self) -> HelperReturns: ...

    @property
    def local_flow(self) -> LocalFlow: ...

    @property
    def flow(self) -> WarningFlow: ...

    def _producer(
        self, expr: cst.BaseExpression, source: cst.BaseExpression | None = None
    ) -> None: ...

    def _unless_known(self, expr: cst.BaseExpression) -> None: ...

    def _elements(self, expr: cst.BaseExpression, *, single: bool = False) -> None: ...

    def _joined(self, expr: cst.BinaryOperation) -> None: ...

    def _candidate(self, expr: cst.BaseExpression) -> None: ...

    def _str_call(self, call: cst.Call) -> None: ...


class ElementWalk:
    """The walk over a value's elements, mixed into
    :class:`~unsentinel.warnings.producer_flow.WarningProducer`."""

    def _elements(self: _Walker, expr: cst.BaseExpression, *, single: bool = False) -> None:
        if _empty_list_call(expr):
            return  # ``return list()``: an empty list, as ``[]`` is
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            for element in expr.elements:
                if not isinstance(element, cst.StarredElement):
                    self._candidate(element.value)
        elif isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
            literal = _literal_iterable(expr)
            if literal is not None:
                self._elements(literal)
            else:
                self._candidate(expr.elt)
        elif isinstance(expr, cst.IfExp):
            self._elements(expr.body, single=single)
            self._elements(expr.orelse, single=single)
        elif isinstance(expr, cst.BooleanOperation) and isinstance(expr.operator, cst.Or):
            self._elements(expr.left, single=single)  # ``warnings or ["default"]``: both
            self._elements(expr.right, single=single)
        elif not single and isinstance(expr, cst.BinaryOperation):
            self._joined(expr)
        elif single:
            self._candidate(expr)
        else:
            self.helpers.record_call(expr, WarningShape.LIST)
            if not (isinstance(expr, cst.Call) and last_name(expr.func) in NOT_HELPERS):
                self._unless_known(expr)  # ``warnings += extra``: what is in ``extra``?

    def _joined(self: _Walker, expr: cst.BinaryOperation) -> None:
        """``warnings + ["only the first 100 are shown"]``: a list joined to a list holds the
        items of both, so the literal's strings are producers of the group like those of
        ``warnings or ["default"]`` (before, the sum was a value of unknown type and held
        the group). Any other operator makes something else of a list."""
        if isinstance(expr.operator, cst.Add):
            self._elements(expr.left)
            self._elements(expr.right)
        else:
            self.helpers.record_call(expr, WarningShape.LIST)
            self._unless_known(expr)

    def _candidate(self: _Walker, expr: cst.BaseExpression) -> None:
        if isinstance(expr, cst.IfExp):
            self._candidate(expr.body)
            self._candidate(expr.orelse)
        elif isinstance(expr, cst.Call) and _is_str_call(expr):
            self._str_call(expr)
        elif is_stringish(expr):
            self._producer(expr)
        elif isinstance(expr, cst.Name):
            self.local_flow.follow(expr, self._into)
        else:
            self.helpers.record_call(expr, WarningShape.ITEM)
            self._unless_known(expr)

    def _str_call(self: _Walker, call: cst.Call) -> None:
        """What ``str(...)`` puts into the list. ``str(exc)`` is a new message, a producer
        like a literal. ``str(w)`` or ``str(w.message)`` where ``w`` is an item of a
        warnings list is the text of a warning that exists already (Python's
        ``WarningMessage``, or one of ours), copied as a consumer copies it: no new warning,
        the item itself is followed."""
        value = call.args[0].value
        item = value.value if isinstance(value, cst.Attribute) else value
        if self.flow.shape(item) in (WarningShape.ITEM, WarningShape.DICT):
            self._candidate(value)
        else:
            self._producer(call)


# -- small helpers --------------------------------------------------------------------


def _literal_iterable(expr: cst.ListComp | cst.GeneratorExp) -> cst.BaseExpression | None:
    """``[w for w in (a, b) if w]``: the literal tuple the element walks, if it is that."""
    comp = expr.for_in
    if (
        comp.inner_for_in is None
        and isinstance(expr.elt, cst.Name)
        and isinstance(comp.target, cst.Name)
        and comp.target.value == expr.elt.value
        and isinstance(comp.iter, (cst.List, cst.Tuple))
    ):
        return comp.iter
    return None


def _is_str_call(expr: cst.BaseExpression) -> bool:
    """``str(exc)``: the builtin always returns a string, so appending it is a message like
    a literal (``reasons.append(str(exc))`` after a failed conversion). Before, it was a
    value of unknown type and held its whole group. One positional argument, nothing else
    (``str(raw, "utf-8")`` decodes bytes, still a string, but reads as something else)."""
    return (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value == "str"
        and len(expr.args) == 1
        and expr.args[0].keyword is None
        and not expr.args[0].star
    )


def _empty_list_call(expr: cst.BaseExpression) -> bool:
    """``list()``: a new empty list, nothing in it (before, a value of unknown type that held
    the group of every list it was returned into)."""
    return (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value == "list"
        and not expr.args
    )
