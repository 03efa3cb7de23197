"""A loop over migrated warnings whose variable the function also binds to something else.

``for warning in block_warnings: Badge(label=warning)`` and then ``for warning in
regular_warnings: Badge(label=warning)``: both loops bound ``warning`` to a ``str``. Once
``regular_warnings`` holds dumped warnings (or ``Warning`` objects), a type checker gives the
name the type of its first binding and rejects the second (``dict[str, Any]`` assigned to a
``str`` variable, then ``warning["message"]`` indexing a ``str``). The migrated loop gets a
name of its own, taken from what it iterates (``regular_warnings`` -> ``regular_warning``),
where renaming changes nothing else: the old name is read nowhere outside the loops that
bind it, and the new one is used nowhere in the file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from unsentinel.core.syntax import LocalBindings, NodeIndex, bound_names, mentions_name

if TYPE_CHECKING:
    from unsentinel.core.rule import RuleContext

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def fresh_loop_name(
    context: RuleContext,
    loop: cst.For,
    same_type: Callable[[cst.CSTNode], bool],
) -> str | None:
    """The new name for ``loop``'s variable, or None where it keeps its own: no other
    binding of the name in the function gives it another type (``same_type`` judges each
    binding statement), or renaming could change what some code reads."""
    index = context.shared(NodeIndex)
    target = loop.target
    function = index.owner_of(loop)
    if not isinstance(target, cst.Name) or function is None:
        return None
    name = target.value
    bindings = context.shared(LocalBindings)
    others = [b for b in _bindings(index, bindings, function, name) if b is not loop]
    if not others or all(same_type(other) for other in others):
        return None
    if not _reads_stay_inside_loops(context, function, name, loop):
        return None
    fresh = _singular(loop.iter)
    taken = {n.value for n in index.by_type.get(cst.Name, []) if isinstance(n, cst.Name)}
    return fresh if fresh and fresh != name and fresh not in taken else None


def _bindings(
    index: NodeIndex, bindings: LocalBindings, function: cst.FunctionDef, name: str
) -> list[cst.CSTNode]:
    """The statements of ``function`` (nested scopes aside) that bind ``name``."""
    found: list[cst.CSTNode] = [
        loop for loop in index.within(cst.For, function) if name in bound_names(loop.target)
    ]
    for assignment in bindings.of(function):
        if name in assignment.names and assignment.statement not in found:
            found.append(assignment.statement)
    for item in index.within(cst.WithItem, function):
        if item.asname is not None and name in bound_names(item.asname.name):
            found.append(item)
    for walrus in index.within(cst.NamedExpr, function):
        if name in bound_names(walrus.target):
            found.append(walrus)
    return found


def _reads_stay_inside_loops(
    context: RuleContext, function: cst.FunctionDef, name: str, loop: cst.For
) -> bool:
    """Is every use of ``name`` in ``function`` inside a ``for`` (or a comprehension) that
    binds it, so that no code reads what ``loop`` leaves in it, and none in a function or
    lambda nested in ``loop`` (a closure the rename would have to follow)?"""
    index, parent = context.shared(NodeIndex), context.parent
    for use in index.within(cst.Name, function):
        if use.value == name and _is_variable(use, parent) and not _bound_around(use, parent):
            return False
    nested = (*index.by_type.get(cst.FunctionDef, []), *index.by_type.get(cst.Lambda, []))
    return not any(loop in context.ancestors(node) and mentions_name(node, name) for node in nested)


def _bound_around(use: cst.Name, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> bool:
    """Is ``use`` inside a ``for`` (its target, body or ``else``) or a comprehension that
    binds its name, within its own function?"""
    current = parent(use)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
        if isinstance(current, cst.For) and use.value in bound_names(current.target):
            return True
        if isinstance(current, _COMPREHENSIONS) and _binds_in_comprehension(current, use.value):
            return True
        current = parent(current)
    return False


def _binds_in_comprehension(node: cst.CSTNode, name: str) -> bool:
    for_in = getattr(node, "for_in", None)
    while isinstance(for_in, cst.CompFor):
        if name in bound_names(for_in.target):
            return True
        for_in = for_in.inner_for_in
    return False


def _is_variable(name: cst.Name, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> bool:
    """A variable, not an attribute's name (``x.warning``) or a keyword (``f(warning=1)``)."""
    above = parent(name)
    if isinstance(above, cst.Attribute) and above.attr is name:
        return False
    return not (isinstance(above, cst.Arg) and above.keyword is name)


def _singular(iterable: cst.BaseExpression) -> str | None:
    """``regular_warnings`` (or ``self.regular_warnings``) -> ``regular_warning``."""
    if isinstance(iterable, cst.Attribute):
        iterable = iterable.attr
    if not isinstance(iterable, cst.Name):
        return None
    word = iterable.value
    return word[:-1] if len(word) > 2 and word.endswith("s") and not word.endswith("ss") else None


def renamed(updated: cst.CSTNode, old: str, new: str) -> cst.CSTNode:
    """``updated`` (a ``for`` statement, its body already rewritten) with ``old`` renamed
    ``new`` wherever it is the loop's variable: not an attribute's or a keyword's name,
    not inside a comprehension that binds ``old`` itself."""
    return updated.visit(_Renamer(old, new))  # type: ignore[return-value]


class _Renamer(cst.CSTTransformer):
    def __init__(self, old: str, new: str) -> None:
        super().__init__()
        self.old = old
        self.new = new

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return False  # only its value can be the variable: renamed on the way out

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        return updated_node.with_changes(value=original_node.value.visit(self))

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return updated_node.with_changes(keyword=original_node.keyword)

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        return not _binds_in_comprehension(node, self.old)

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        return not _binds_in_comprehension(node, self.old)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        return not _binds_in_comprehension(node, self.old)

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        return not _binds_in_comprehension(node, self.old)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        return (
            updated_node.with_changes(value=self.new)
            if updated_node.value == self.old
            else updated_node
        )
