"""``unittest`` assertion methods read like the comparisons they stand for.

``self.assertEqual(result["error"], "API error")`` is ``result["error"] == "API error"``,
``self.assertIn("timed out", result["error"])`` is ``"timed out" in result["error"]``,
``self.assertFalse(result["success"])`` is ``result["success"] is False`` and
``self.assertEqual(result, {"error": "x"})`` is ``result == {"error": "x"}``. The reader
rewrites of :mod:`~unsentinel.errors.consumers` take them as such evidence, so that a
``TestCase`` suite reading a migrated function is followed as a pytest one is, rather than
holding the function back (awslabs-ecs-mcp-server's tests are written this way).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

import libcst as cst

from unsentinel.core.syntax import is_name, string_key
from unsentinel.errors import build
from unsentinel.errors.envelope_reads import envelope_checks
from unsentinel.errors.shapes import call_name, is_error_string

_EQUALITY = frozenset({"assertEqual", "assertEquals", "assertIs"})
_CONTAINMENT = frozenset({"assertIn", "assertNotIn"})
_DICT_EQUAL = frozenset({"assertEqual", "assertEquals", "assertDictEqual"})
_DICT_NOT_EQUAL = frozenset({"assertNotEqual", "assertNotEquals"})
_STRINGS = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)


class Evidence(Enum):
    """What an assertion says about the value a read gives."""

    FALSE = "false"  # compared with (or asserted) False
    ERROR = "error"  # equal to the string "error"
    STRING = "string"  # compared with, or searched for, a string
    NONE = "other"


def assertion_evidence(
    read: cst.CSTNode, parent: Callable[[cst.CSTNode], cst.CSTNode | None]
) -> Evidence:
    """What the ``TestCase`` assertion ``read`` is an argument of says about it."""
    arg = parent(read)
    call = parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return Evidence.NONE
    name = call_name(call)
    values = [a.value for a in call.args if a.keyword is None][:2]
    if not any(value is read for value in values):
        return Evidence.NONE
    if name == "assertFalse" and values[0] is read:
        return Evidence.FALSE
    if name in _EQUALITY and len(values) == 2:
        other = values[1] if values[0] is read else values[0]
        if is_name(other, "False"):
            return Evidence.FALSE
        if is_error_string(other):
            return Evidence.ERROR
        return Evidence.STRING if isinstance(other, _STRINGS) else Evidence.NONE
    if name in _CONTAINMENT and len(values) == 2 and values[1] is read:
        return Evidence.STRING if isinstance(values[0], _STRINGS) else Evidence.NONE
    return Evidence.NONE


def asserting_call(
    read: cst.CSTNode, parent: Callable[[cst.CSTNode], cst.CSTNode | None]
) -> cst.Call | None:
    """The ``self.assertEqual(...)`` call ``read`` is an argument of, if any."""
    arg = parent(read)
    call = parent(arg) if isinstance(arg, cst.Arg) else None
    return call if isinstance(call, cst.Call) else None


def assert_failed(updated: cst.CSTNode) -> cst.CSTNode:
    """``self.assertEqual(x["status"], "error")`` -> ``self.assertIs(x["success"], False)``."""
    assert isinstance(updated, cst.Call) and isinstance(updated.func, cst.Attribute)
    status = next(
        arg.value
        for arg in updated.args
        if isinstance(arg.value, cst.Subscript) and string_key(arg.value) == "status"
    )
    assert isinstance(status, cst.Subscript)
    success = status.with_changes(slice=[cst.SubscriptElement(cst.Index(build.string("success")))])
    return updated.with_changes(
        func=updated.func.with_changes(attr=cst.Name("assertIs")),
        args=[updated.args[0].with_changes(value=success), cst.Arg(cst.Name("False"))],
    )


def compared_dict(call: cst.Call) -> tuple[cst.BaseExpression, cst.Dict] | None:
    """``self.assertEqual(result, {...})`` (either way round; ``assertDictEqual``,
    ``assertNotEqual``): the value compared and the dict literal it is compared with."""
    if not isinstance(call.func, cst.Attribute) or call_name(call) not in (
        _DICT_EQUAL | _DICT_NOT_EQUAL
    ):
        return None
    values = [a.value for a in call.args if a.keyword is None and not a.star][:2]
    if len(values) != 2:
        return None
    first, second = values
    if isinstance(second, cst.Dict) and not isinstance(first, cst.Dict):
        return first, second
    if isinstance(first, cst.Dict) and not isinstance(second, cst.Dict):
        return second, first
    return None


def asserted_checks(
    updated: cst.CSTNode, checks: list[tuple[tuple[str, ...], cst.BaseExpression]]
) -> cst.Call:
    """``self.assertEqual(x, {"error": M})`` -> ``self.assertTrue(x["success"] is False and
    x["error"]["message"] == M)``, as ``x == {...}`` becomes; ``assertNotEqual`` ->
    ``self.assertFalse(x.get("success") is False and ...)``, which a success response passes.
    A message argument stays."""
    assert isinstance(updated, cst.Call) and isinstance(updated.func, cst.Attribute)
    found = compared_dict(updated)
    assert found is not None
    negated = call_name(updated) in _DICT_NOT_EQUAL
    test = envelope_checks(found[0], checks, lenient=negated)
    compared = [a for a in updated.args if a.keyword is None and not a.star][:2]
    rest = [a for a in updated.args if not any(a is c for c in compared)]
    method = cst.Name("assertFalse" if negated else "assertTrue")
    return updated.with_changes(
        func=updated.func.with_changes(attr=method), args=[cst.Arg(test), *rest]
    )
