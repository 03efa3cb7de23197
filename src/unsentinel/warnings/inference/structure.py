"""What the code around a warning does: the structural evidence for its severity.

Words mislead ("the local *cache* could not be updated" is a partial failure, not
context); the code rarely does. This module reads, without changing anything, the few
facts the severity decision needs: the list the warning goes into, whether the append
sits in an ``except`` branch or under an ``is None`` test of an optional input, whether
the function stops right after appending, and whether it raises when the list is not
empty.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import libcst as cst

from unsentinel.core.batch import read
from unsentinel.core.syntax import annotation_name, last_name, string_value

if TYPE_CHECKING:
    from unsentinel.warnings.analysis import FileAnalysis, FunctionFacts


@dataclass(frozen=True)
class Structure:
    """Structural facts about one warning site (all optional: absent means unknown)."""

    list_name: str | None = None  # "failed", "warned", "errors", ... (subscript keys too)
    none_guard: str | None = None  # the optional input tested with ``is None`` / ``not x``
    in_except: bool = False  # the append is in an ``except`` branch
    stops_after: str | None = None  # "return" / "raise" as the very next statement
    raised_on: bool = False  # the function raises when the list is not empty
    function_name: str | None = None  # the function the append is in (``validate_urls``)
    class_name: str | None = None  # the class that function is a method of (``SizeCheck``)


def structure_of(
    site: cst.CSTNode, analysis: FileAnalysis, facts: FunctionFacts | None
) -> Structure:
    """The structural facts of the warning whose message expression is ``site``."""
    ancestors = analysis.context.ancestors(site)
    list_expr = _target_list(site, ancestors)
    list_name = _list_name(list_expr) if list_expr is not None else None
    function = facts.node if facts is not None else None
    return Structure(
        list_name=list_name,
        none_guard=_none_guard(site, analysis, facts),
        in_except=_in_except(ancestors),
        stops_after=_stops_after(ancestors) if list_expr is not None else None,
        raised_on=list_name is not None
        and function is not None
        and _raises_on(list_name, function),
        function_name=function.name.value if function is not None else None,
        class_name=_owning_class(function, analysis) if function is not None else None,
    )


def _owning_class(function: cst.FunctionDef, analysis: FileAnalysis) -> str | None:
    """The class whose body defines ``function`` directly (None: not a method)."""
    for node in analysis.context.ancestors(function):
        if isinstance(node, cst.ClassDef):
            return node.name.value
        if isinstance(node, cst.FunctionDef):
            return None
    return None


def _target_list(site: cst.CSTNode, ancestors: list[cst.CSTNode]) -> cst.BaseExpression | None:
    for node in ancestors:
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("append", "extend", "insert")
        ):
            return node.func.value
        if isinstance(node, cst.AugAssign):
            return node.target
        if isinstance(node, (cst.BaseStatement, cst.FunctionDef)):
            return None
    return None


def _list_name(expr: cst.BaseExpression) -> str | None:
    """``failed`` -> "failed"; ``result["errors"]`` -> "errors"; ``self.warnings`` -> "warnings"."""
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
        index = expr.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
            value = string_value(index.value)
            return value if isinstance(value, str) else None
    return last_name(expr)


def _in_except(ancestors: list[cst.CSTNode]) -> bool:
    for node in ancestors:
        if isinstance(node, (cst.ExceptHandler, cst.ExceptStarHandler)):
            return True
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return False
    return False


def _stops_after(ancestors: list[cst.CSTNode]) -> str | None:
    """``return`` / ``raise`` when it is the statement right after the append's."""
    statement = next((a for a in ancestors if isinstance(a, cst.SimpleStatementLine)), None)
    if statement is None:
        return None
    block = next((a for a in ancestors if isinstance(a, cst.IndentedBlock)), None)
    if block is None:
        return None
    body = list(block.body)
    if statement not in body:
        return None
    position = body.index(statement)
    if position + 1 >= len(body):
        return None
    following = body[position + 1]
    if isinstance(following, cst.SimpleStatementLine) and following.body:
        if isinstance(following.body[0], cst.Return):
            return "return"
        if isinstance(following.body[0], cst.Raise):
            return "raise"
    return None


@lru_cache(maxsize=1024)  # asked once per site: walk each function once per list
def _raises_on(list_name: str, function: cst.FunctionDef) -> bool:
    """Does the function raise when the list is not empty (``if errors: raise ...``), or
    raise with the list's text (``raise ValueError("; ".join(problems))``), also through a
    local (``message = "\\n".join(messages)``, then ``raise FatalError(message)`` under a
    flag set beside the appends)?"""
    found = False
    texts = _texts_of(list_name, function)

    class _Finder(cst.CSTVisitor):
        def visit_If(self, node: cst.If) -> bool:
            nonlocal found
            if _mentions(node.test, list_name) and _body_raises(node.body):
                found = True
            return not found

        def visit_Raise(self, node: cst.Raise) -> bool:
            nonlocal found
            if node.exc is not None and any(_mentions(node.exc, name) for name in texts):
                found = True
            return False

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

    read(function, _Finder())
    return found


def _texts_of(list_name: str, function: cst.FunctionDef) -> tuple[str, ...]:
    """``list_name`` and the locals the function assigns from its text: a join of the
    list (``message = "\\n".join(messages)``), not any value that merely mentions it
    (``count = len(messages)`` says nothing of what is raised)."""
    names = [list_name]

    class _Joins(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            value = node.value
            if (
                len(node.targets) == 1
                and isinstance(node.targets[0].target, cst.Name)
                and isinstance(value, cst.Call)
                and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "join"
                and _mentions(value, list_name)
            ):
                names.append(node.targets[0].target.value)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

    read(function, _Joins())
    return tuple(names)


def _mentions(expr: cst.CSTNode, list_name: str) -> bool:
    hit = False

    class _Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            nonlocal hit
            hit = hit or node.value == list_name

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            nonlocal hit
            hit = hit or string_value(node) == list_name

    read(expr, _Names())
    return hit


def _body_raises(body: cst.BaseSuite) -> bool:
    if isinstance(body, cst.SimpleStatementSuite):
        return any(isinstance(s, cst.Raise) for s in body.body)
    return any(
        isinstance(s, cst.SimpleStatementLine) and any(isinstance(x, cst.Raise) for x in s.body)
        for s in body.body
    )


def _none_guard(
    site: cst.CSTNode, analysis: FileAnalysis, facts: FunctionFacts | None
) -> str | None:
    """The input an ``if x is None:`` around the append tests, when that
    input is optional: a parameter defaulting to ``None`` or typed ``... | None``, or a
    field of a request model (whose optionality the model, not this file, knows)."""
    if facts is None:
        return None
    guard = analysis.guarding_condition(site)
    if guard is None:
        return None
    subject = _absence_subject(guard)
    if not _is_is_none(guard):  # ``if not x:`` as often refuses an empty required value
        return None
    if isinstance(subject, cst.Name):  # a parameter: its signature says whether optional
        param = facts.params.get(subject.value)
        optional = param is not None and _optional(param)
    elif isinstance(subject, cst.Attribute):  # ``request.x is None``
        optional = isinstance(subject.value, cst.Name) and subject.value.value in facts.containers
    else:
        return None
    path, _ = analysis.input_path(subject, facts, site)
    return path if optional else None


def _is_is_none(test: cst.BaseExpression) -> bool:
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    target = test.comparisons[0]
    comparator = target.comparator
    return (
        isinstance(target.operator, cst.Is)
        and isinstance(comparator, cst.Name)
        and comparator.value == "None"
    )


def _absence_subject(test: cst.BaseExpression) -> cst.BaseExpression | None:
    if _is_is_none(test):
        assert isinstance(test, cst.Comparison)
        return test.left
    if (
        isinstance(test, cst.UnaryOperation)
        and isinstance(test.operator, cst.Not)
        and isinstance(test.expression, (cst.Name, cst.Attribute))
    ):
        return test.expression
    return None


def _optional(param: cst.Param) -> bool:
    default = param.default
    if isinstance(default, cst.Name) and default.value == "None":
        return True
    annotation = param.annotation
    if annotation is None:
        return False
    text = cst.Module([]).code_for_node(annotation.annotation)
    return "None" in text or annotation_name(annotation).startswith("Optional")
