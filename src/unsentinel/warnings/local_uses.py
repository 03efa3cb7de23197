"""Where else a local that is appended to a warnings list is used, and whether as text.

``msg = f"..."``, ``warnings.append(msg)``, ``ctx.warning(msg)``: migrating the assignment
would hand a ``Warning`` to ``ctx.warning``. Uses that read the local either way do not
count: its assignments, other appends into a warnings list, and tests (``if msg:``,
``msg is None``). Nor do names that are no use of the variable at all: a keyword
(``message=...``), an attribute (``r.message``), a parameter or definition of that name.

Where such a local is wrapped at the append instead (see
:class:`~unsentinel.warnings.local_flow.LocalFlow`), the append and the assignment
that reaches it are found here too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from unsentinel.core.syntax import NodeIndex
from unsentinel.warnings.helper_returns import APPENDERS, GROWERS

if TYPE_CHECKING:
    from unsentinel.core.rule import RuleContext


class LocalUses:
    def __init__(
        self,
        index: NodeIndex,
        parent: Callable[[cst.CSTNode], cst.CSTNode | None],
        is_warning_list: Callable[[cst.BaseExpression], bool],
    ) -> None:
        self._index = index
        self._parent = parent
        self._is_warning_list = is_warning_list

    def as_text(self, name: cst.Name, function: cst.FunctionDef) -> cst.Name | None:
        """The first other use of ``name`` in ``function`` that takes it as text, if any."""
        slot = self._returned_slot(name)
        for other in self._index.within(cst.Name, function):
            if other is name or other.value != name.value or not self._is_variable(other):
                continue
            if self._reads_either_way(other):
                continue
            if slot is not None and self._returned_slot(other) == slot:
                continue  # ``return None, note`` in two branches: one place, the same slot
            return other
        return None

    def _returned_slot(self, name: cst.Name) -> int | None:
        """The slot of the returned tuple ``name`` is (``return None, name``: 1), if it is
        one; ``-1`` for a bare ``return name``."""
        parent = self._parent(name)
        if isinstance(parent, cst.Return):
            return -1
        tuple_node = self._parent(parent) if isinstance(parent, cst.Element) else None
        if not isinstance(tuple_node, cst.Tuple) or not isinstance(
            self._parent(tuple_node), cst.Return
        ):
            return None
        for index, element in enumerate(tuple_node.elements):
            if element is parent:
                return index
        return None

    def _is_variable(self, name: cst.Name) -> bool:
        """Does this ``Name`` read or bind a variable? Not a keyword (``message=...``), an
        attribute (``r.message``), or the name a nested definition or parameter binds anew."""
        parent = self._parent(name)
        if isinstance(parent, cst.Arg):
            return parent.keyword is not name
        if isinstance(parent, cst.Attribute):
            return parent.attr is not name
        return not isinstance(parent, (cst.Param, cst.FunctionDef, cst.ClassDef))

    def _is_unpacked_into(self, element: cst.Element) -> bool:
        """Is ``element`` a target of a tuple (or list) assignment, nested or not?"""
        node: cst.CSTNode | None = element
        while isinstance(node, cst.Element):
            sequence = self._parent(node)
            if not isinstance(sequence, (cst.Tuple, cst.List)):
                return False
            holder = self._parent(sequence)
            if isinstance(holder, cst.AssignTarget):
                return holder.target is sequence
            node = holder
        return False

    def _reads_either_way(self, name: cst.Name) -> bool:
        """Is this occurrence an assignment, an append into a warnings list, or a test?"""
        parent = self._parent(name)
        if isinstance(parent, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign)):
            return getattr(parent, "target", None) is name
        if isinstance(parent, cst.Element) and self._is_unpacked_into(parent):
            return True  # ``loc, note = resolve(...)``: a binding, as ``note = ...`` is
        if isinstance(parent, (cst.If, cst.While, cst.UnaryOperation, cst.BooleanOperation)):
            return True
        if isinstance(parent, cst.Comparison):
            return all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in parent.comparisons)
        call = self._parent(parent) if isinstance(parent, cst.Arg) else None
        return (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value in GROWERS
            and self._is_warning_list(call.func.value)
        )


def is_appended(name: cst.Name, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> bool:
    """Is ``name`` the value an appender call adds (``warnings.append(name)``)?"""
    arg = parent(name)
    call = parent(arg) if isinstance(arg, cst.Arg) else None
    return (
        isinstance(arg, cst.Arg)
        and arg.keyword is None
        and isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value in APPENDERS
    )


def reaching_assignment(
    context: RuleContext, name: cst.Name, values: list[cst.BaseExpression]
) -> cst.BaseExpression | None:
    """The assignment of ``name`` that reaches it: the last one before it in a block that
    holds it (``else: msg = "..."; warnings.append(msg)``), if there is one. A message
    grown with ``+=`` (``msg = f"Invalid {selector}. "``, then ``msg += "It has no
    effect."``) reaches as the whole text: the first assignment joined with every ``+=``
    after it on the way -- not the last piece alone, which may not even say the subject."""
    holding = set(map(id, context.ancestors(name)))
    line = context.position(name).line
    reaching = [
        value
        for value in values
        if context.position(value).line < line
        and id(context.parent(_statement_of(context, value))) in holding
    ]
    if not reaching:
        return None
    grown: list[cst.BaseExpression] = []
    for value in reversed(reaching):
        grown.insert(0, value)
        if not _augmented(context, value):
            break
    else:
        return reaching[-1]  # only ``+=`` reaches: the start is not known here
    whole = grown[0]
    for piece in grown[1:]:
        whole = cst.BinaryOperation(left=whole, operator=cst.Add(), right=piece)
    return whole


def _augmented(context: RuleContext, value: cst.BaseExpression) -> bool:
    parent = context.parent(value)
    return isinstance(parent, cst.AugAssign) and isinstance(parent.operator, cst.AddAssign)


def _statement_of(context: RuleContext, node: cst.CSTNode) -> cst.CSTNode:
    for ancestor in context.ancestors(node):
        if isinstance(ancestor, cst.BaseStatement):
            return ancestor
    return node
