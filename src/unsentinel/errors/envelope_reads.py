"""The reads of the error envelope that replace a test's reads of the old error keys.

``resp["error"]`` -> ``resp["error"]["message"]``, ``resp["status"] == "error"`` ->
``resp["success"] is False``, ``resp == {"error": M, "limit": 8}`` (or
``self.assertEqual(resp, {...})``) -> a chain of checks on the envelope's paths. Kept
apart from :mod:`~unsentinel.errors.consumers`, which decides *which* reads change: these
builders only say what a changed read becomes.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.errors import build


def _subscript(value: cst.BaseExpression, path: tuple[str, ...]) -> cst.BaseExpression:
    for key in path:
        value = cst.Subscript(value, [cst.SubscriptElement(cst.Index(build.string(key)))])
    return value


def resubscript(updated: cst.CSTNode, path: tuple[str, ...]) -> cst.CSTNode:
    """``resp["message"]`` -> ``resp["error"]["message"]``: the read's base, down ``path``."""
    assert isinstance(updated, cst.Subscript)
    return _subscript(updated.value, path)


def failed(updated: cst.CSTNode) -> cst.CSTNode:
    """``x["status"] == "error"`` -> ``x["success"] is False``."""
    assert isinstance(updated, cst.Comparison)
    left = updated.left
    if not isinstance(left, cst.Subscript):
        left = updated.comparisons[0].comparator
    assert isinstance(left, cst.Subscript)
    return updated.with_changes(
        left=_subscript(left.value, ("success",)),
        comparisons=[cst.ComparisonTarget(cst.Is(), cst.Name("False"))],
    )


def and_chain(
    updated: cst.CSTNode,
    checks: list[tuple[tuple[str, ...], cst.BaseExpression]],
    *,
    parenthesized: bool = False,
) -> cst.BaseExpression:
    """``v == {"error": M, "limit": 8}`` -> ``v["success"] is False and v["error"]["message"]
    == M and v["error"]["details"]["limit"] == 8`` (in parentheses where the comparison had
    them, or where ``parenthesized``: the operand of a ``not``)."""
    assert isinstance(updated, cst.Comparison)
    expression = envelope_checks(updated.left, checks)
    if updated.lpar:
        return expression.with_changes(lpar=updated.lpar, rpar=updated.rpar)
    if parenthesized:
        return expression.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expression


def envelope_checks(
    left: cst.BaseExpression,
    checks: list[tuple[tuple[str, ...], cst.BaseExpression]],
    *,
    lenient: bool = False,
) -> cst.BooleanOperation | cst.Comparison:
    """``left["success"] is False and left[path] == expected and ...``; ``lenient``: the
    flag read as ``left.get("success")``, for a check a success response (which may have no
    ``success`` key) must pass rather than fail on."""
    flag: cst.BaseExpression = _subscript(left, ("success",))
    if lenient:
        flag = cst.Call(cst.Attribute(left, cst.Name("get")), [cst.Arg(build.string("success"))])
    expression: cst.BooleanOperation | cst.Comparison = cst.Comparison(
        flag, [cst.ComparisonTarget(cst.Is(), cst.Name("False"))]
    )
    for path, expected in checks:
        comparison = cst.Comparison(
            _subscript(left, path), [cst.ComparisonTarget(cst.Equal(), expected)]
        )
        expression = cst.BooleanOperation(expression, cst.And(), comparison)
    return expression
