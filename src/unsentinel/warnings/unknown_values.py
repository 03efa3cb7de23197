"""Values of unknown type going into a warnings list: they block the group they join.

After a rewrite such a value could be the one string among ``Warning`` objects, so the
group is never half-migrated. Kept apart from :mod:`~unsentinel.warnings.producer_flow`
(which finds where values flow): this module only answers whether a value is known to be a
warning, and blocks and reports the group when it is not.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.model import Action, Kind
from unsentinel.core.syntax import last_name
from unsentinel.warnings.analysis import FileAnalysis
from unsentinel.warnings.carriers import FileCarriers
from unsentinel.warnings.facts import WarningFacts
from unsentinel.warnings.flow import WarningFlow
from unsentinel.warnings.graph import Carrier
from unsentinel.warnings.rule import WarningRule


def block_unknown(
    rule: WarningRule,
    carriers: FileCarriers,
    into: tuple[Carrier, ...],
    expr: cst.BaseExpression,
) -> None:
    """Never half-migrate: a value of unknown type going into a warnings list blocks the
    whole group it joins, because after a rewrite it would be the one string among
    objects. Recorded in every pass (the gather pass settles the groups); reported once
    the repository's facts are known."""
    if is_known_warning(rule.analysis, rule.flow, rule.facts, expr):
        return
    context = rule.context
    carriers.block(
        expr,
        (*into, *carriers.of(expr)),
        f"value of unknown type `{_short(context.code_for(expr))}` added to a warnings list",
    )
    if not context.facts.gathered:
        return
    context.report(
        rule,
        expr,
        "Value of unknown type added to a warnings list: check it is a Warning",
        kind=Kind.PRODUCER,
        action=Action.SKIP,
        reasons=("cannot tell whether this is a string; left as it is",),
    )


def is_known_warning(
    analysis: FileAnalysis, flow: WarningFlow, facts: WarningFacts, expr: cst.BaseExpression
) -> bool:
    """``None`` (no warning), a value the flow knows holds warnings, a ``Warning(...)`` or a
    call to a helper that returns one, or a local assigned once from any of these."""
    if isinstance(expr, cst.Name) and expr.value == "None":
        return True  # "no warning" in a ``str | None`` helper
    if flow.shape(expr) is not None:
        return True
    if isinstance(expr, cst.Await):
        expr = expr.expression
    if isinstance(expr, cst.Call):
        callee = last_name(expr.func)
        return callee in ("Warning", "StructuredWarning") or callee in facts.returning
    if isinstance(expr, cst.Name):
        function = analysis.enclosing_function(expr)
        function_facts = analysis.function(function) if function is not None else None
        value = (
            analysis.single_assignment(expr.value, function_facts)
            if function_facts is not None
            else None
        )
        return value is not None and is_known_warning(analysis, flow, facts, value)
    return False


def _short(code: str) -> str:
    text = " ".join(code.split())
    return text if len(text) <= 40 else text[:37] + "..."
