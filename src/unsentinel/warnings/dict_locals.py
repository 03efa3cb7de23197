"""Locals bound to a dict display that later take a warnings list under a key.

``result = {"message": f"...", "applied": applied}`` ... ``result["warnings"] = warnings``:
a type checker infers the dict's value type from the display alone (mypy joins the values
to ``Sequence[str]``, pyright unions them to ``str | list[str]``), so a list of strings
could be stored under a new key and a list of ``Warning`` objects cannot. Such a local gets
the annotation a person would give it, ``result: dict[str, Any] = {...}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from unsentinel.core.syntax import LocalBindings, NodeIndex

if TYPE_CHECKING:
    from unsentinel.core.rule import RuleContext


class DictLocals:
    """Per file: which ``name = {...}`` assignments need ``dict[str, Any]`` once the lists
    ``takes_objects`` accepts are migrated."""

    def __init__(
        self, context: RuleContext, takes_objects: Callable[[cst.BaseExpression], bool]
    ) -> None:
        self.index = context.shared(NodeIndex)
        self.bindings = context.shared(LocalBindings)
        self.takes_objects = takes_objects
        self._found: dict[cst.FunctionDef, frozenset[cst.Assign]] = {}

    def needs_annotation(self, node: cst.Assign) -> bool:
        function = self.index.owner_of(node)
        if function is None or not isinstance(node.value, cst.Dict) or not node.value.elements:
            return False
        found = self._found.get(function)
        if found is None:
            found = self._found[function] = self._annotated_in(function)
        return node in found

    def _annotated_in(self, function: cst.FunctionDef) -> frozenset[cst.Assign]:
        """The displays of ``function`` bound once to an unannotated local that later
        takes a migrated list under a key (``name[key] = warnings``)."""
        bound: dict[str, list[cst.Assign | cst.AnnAssign | cst.AugAssign]] = {}
        stored: set[str] = set()
        for assignment in self.bindings.of(function):
            for name in assignment.names:
                bound.setdefault(name, []).append(assignment.statement)
            target = assignment.target
            if (
                isinstance(target, cst.Subscript)
                and isinstance(target.value, cst.Name)
                and self.takes_objects(assignment.value)
            ):
                stored.add(target.value.value)
        declared = _declared_names(self.index, function)
        found: set[cst.Assign] = set()
        for name in stored - declared:
            statements = bound.get(name, [])
            only = statements[0] if len(statements) == 1 else None
            if isinstance(only, cst.Assign) and len(only.targets) == 1:
                found.add(only)
        return frozenset(found)


def _declared_names(index: NodeIndex, function: cst.FunctionDef) -> set[str]:
    """Names ``function`` already annotates (``x: dict``), takes as parameters, or
    declares ``global``/``nonlocal`` (where an annotation is a syntax error)."""
    params = function.params
    every = (*params.posonly_params, *params.params, *params.kwonly_params)
    declared = {p.name.value for p in every}
    declared.update(
        p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)
    )
    for annotated in index.within(cst.AnnAssign, function):
        if isinstance(annotated.target, cst.Name):
            declared.add(annotated.target.value)
    scoped: list[cst.Global | cst.Nonlocal] = [
        *index.within(cst.Global, function),
        *index.within(cst.Nonlocal, function),
    ]
    for statement in scoped:
        declared.update(item.name.value for item in statement.names)
    return declared


def annotated_with_any(updated: cst.CSTNode) -> cst.CSTNode:
    """``name = {...}`` -> ``name: dict[str, Any] = {...}``, the display untouched."""
    assert isinstance(updated, cst.Assign)  # scheduled on an assignment of one target
    target = updated.targets[0]
    return cst.AnnAssign(
        target=target.target,
        annotation=cst.Annotation(cst.parse_expression("dict[str, Any]")),
        value=updated.value,
        equal=cst.AssignEqual(
            whitespace_before=target.whitespace_before_equal,
            whitespace_after=target.whitespace_after_equal,
        ),
        semicolon=updated.semicolon,
    )
