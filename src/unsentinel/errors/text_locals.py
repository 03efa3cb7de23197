"""Locals that only ever hold message text: ``error_msg = f"..."; return {"error": error_msg}``.

A returned ``{"error": name}`` with no failed flag, no HTTP status and no ``except`` clause is
read as a row with an error column, whose value may be None, unless something says the value
is a message. A local that every binding in its function sets to text (a string literal, an
f-string, ``str(e)``, ``"...".format(...)``, a ``+`` or ``%`` of such) is a message: it can
never be None, so it is that evidence. A parameter, a loop target, or a local bound once to
anything else (``None``, a call's result, an unpacked tuple) is not known to be text.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from unsentinel.core.syntax import (
    Assignment,
    LocalBindings,
    bound_names,
    is_name,
    mentions_name,
    nodes_under,
)
from unsentinel.errors.shapes import TRANSLATORS, call_name


def is_text(node: cst.BaseExpression) -> bool:
    """An expression whose value is always a ``str`` (never None)."""
    if isinstance(node, (cst.FormattedString, cst.ConcatenatedString)):
        return True
    if isinstance(node, cst.SimpleString):
        return isinstance(node.evaluated_value, str)
    if isinstance(node, cst.Call):
        return _is_text_call(node)
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, (cst.Add, cst.Modulo)) and is_text(node.left)
    if isinstance(node, cst.IfExp):
        return is_text(node.body) and is_text(node.orelse)
    return False


def _is_text_call(call: cst.Call) -> bool:
    if is_name(call.func, "str", "repr") or call_name(call) in TRANSLATORS:
        return True
    # "...".format(...), ", ".join(...): a method of a string literal returns a string
    func = call.func
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value in {"format", "join", "strip", "lower", "upper"}
        and is_text(func.value)
    )


class TextLocals:
    """Which locals of a function are bound to text by every binding they have."""

    def __init__(self, bindings: LocalBindings) -> None:
        self._bindings = bindings
        self._index = bindings.index
        self._cache: dict[cst.FunctionDef, frozenset[str]] = {}

    def holds_text(self, name: str, function: cst.FunctionDef | None) -> bool:
        if function is None:
            return False  # a module-level name may be rebound anywhere
        if function not in self._cache:
            self._cache[function] = self._text_names(function)
        return name in self._cache[function]

    def _text_names(self, function: cst.FunctionDef) -> frozenset[str]:
        text: set[str] = set()
        other: set[str] = set()
        for assignment in self._bindings.of(function):
            if assignment.name is not None and _keeps_text(assignment):
                text.add(assignment.name)
            else:  # an unpacked element, or a value that is no text
                other.update(assignment.names)
        other.update(self._other_bindings(function))
        return frozenset(text - other)

    def _other_bindings(self, function: cst.FunctionDef) -> set[str]:
        """Names bound by anything but an assignment: never known to be text."""
        names: set[str] = set()
        targets: list[cst.BaseExpression] = [
            p.name for p in self._index.within(cst.Param, function)
        ]
        targets += [loop.target for loop in self._index.within(cst.For, function)]
        targets += [w.target for w in self._index.within(cst.NamedExpr, function)]
        for item in self._index.within(cst.WithItem, function):
            if item.asname is not None:
                targets.append(item.asname.name)
        for handler in self._index.within(cst.ExceptHandler, function):
            if handler.name is not None:
                targets.append(handler.name.name)
        for target in targets:
            names.update(bound_names(target))
        scoped: list[cst.Global | cst.Nonlocal] = [*self._index.within(cst.Global, function)]
        scoped += self._index.within(cst.Nonlocal, function)
        for statement in scoped:
            names.update(item.name.value for item in statement.names)
        return names


def _keeps_text(assignment: Assignment) -> bool:
    """``x = f"..."`` and ``x += "..."`` leave text in ``x``; ``x *= 2`` is no message."""
    statement = assignment.statement
    if isinstance(statement, cst.AugAssign) and not isinstance(statement.operator, cst.AddAssign):
        return False
    return is_text(assignment.value)


def text_bound_before(
    name: cst.Name, parent: Callable[[cst.CSTNode], cst.CSTNode | None]
) -> cst.BaseExpression | None:
    """The text a local was last bound to in the lines just above its use, in the same block
    (``error_msg = f"No route to {city}"`` ... ``return {"error": error_msg}``): the message
    whose words say what the error is. None when a line between may rebind it, or the
    binding is no text."""
    line: cst.CSTNode | None = name
    while line is not None and not isinstance(parent(line), (cst.IndentedBlock, cst.Module)):
        line = parent(line)
    block = parent(line) if line is not None else None
    if line is None or not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return None
    above: list[cst.CSTNode] = list(block.body)
    for statement in reversed(above[: above.index(line)]):
        if not isinstance(statement, cst.SimpleStatementLine):
            if mentions_name(statement, name.value):
                return None  # a branch or loop that names it may have rebound it
            continue
        for small in reversed(statement.body):
            bound = _bound_value(small, name.value)
            if bound is not None:
                return bound if is_text(bound) else None
            if any(is_name(w.target, name.value) for w in nodes_under(small, cst.NamedExpr)):
                return None
    return None


def _bound_value(small: cst.BaseSmallStatement, name: str) -> cst.BaseExpression | None:
    """What ``small`` binds ``name`` to (``cst.Name("None")``-like non-text for a binding
    whose value is unknown), or None when it does not bind ``name``."""
    unknown = cst.Name("None")
    if isinstance(small, cst.Assign):
        if any(is_name(t.target, name) for t in small.targets):
            return small.value
        if any(mentions_name(t.target, name) for t in small.targets):
            return unknown  # unpacked
    if isinstance(small, (cst.AnnAssign, cst.AugAssign)) and is_name(small.target, name):
        return small.value if isinstance(small, cst.AnnAssign) and small.value else unknown
    if isinstance(small, (cst.Global, cst.Nonlocal, cst.Del)) and mentions_name(small, name):
        return unknown
    return None
