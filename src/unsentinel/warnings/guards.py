"""Which condition guards a statement: the test a warning is appended under.

Severity and field path are read from the guard (``if not request.sku:`` says the field is
``sku`` and it was left out), so a warning needs the nearest test it depends on -- an
``if`` / ``while`` body, an ``IfExp`` arm, or a comprehension's ``if`` -- but never one
beyond its own function.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.rule import RuleContext


def guarding_condition(context: RuleContext, node: cst.CSTNode) -> cst.BaseExpression | None:
    """The test of the nearest ``if`` (in the same function) that ``node`` depends on."""
    previous: cst.CSTNode = node
    for ancestor in context.ancestors(node):
        if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef, cst.Module)):
            return None
        if isinstance(ancestor, (cst.If, cst.While)) and previous is not ancestor.test:
            return ancestor.test
        if isinstance(ancestor, cst.IfExp) and previous is not ancestor.test:
            return ancestor.test
        if (
            isinstance(ancestor, (cst.ListComp, cst.GeneratorExp, cst.SetComp))
            and previous is ancestor.elt
        ):
            conditions = _comprehension_conditions(ancestor.for_in)
            if conditions:
                return (
                    conditions[0]
                    if len(conditions) == 1
                    else cst.BooleanOperation(conditions[0], cst.And(), conditions[1])
                )
        previous = ancestor
    return None


def _comprehension_conditions(comp_for: cst.CompFor | None) -> list[cst.BaseExpression]:
    conditions: list[cst.BaseExpression] = []
    while comp_for is not None:
        conditions.extend(condition.test for condition in comp_for.ifs)
        comp_for = comp_for.inner_for_in
    return conditions
