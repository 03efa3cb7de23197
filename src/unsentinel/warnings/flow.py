"""Which expressions hold warnings, and in which shape: objects or dumped dicts.

After the migration a warning is a ``Warning`` object where the code builds it, and a
``{"severity": ..., "message": ...}`` dict wherever a response was dumped
(``model_dump()``, ``dataclasses.asdict``, ``json.loads``). Consumers must use attributes
on the first and keys on the second, so every consumer decision starts here.

The classification follows the data: names of warnings lists, loop variables over them,
single assignments, subscripts, helper parameters that receive them (a gather fact), and
helpers that return them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import libcst as cst

from unsentinel.core.syntax import last_name, string_key, string_value
from unsentinel.warnings.analysis import FileAnalysis
from unsentinel.warnings.facts import WarningFacts
from unsentinel.warnings.facts import WarningShape as Shape

if TYPE_CHECKING:
    from unsentinel.core.rule import RuleContext

LIST_WRAPPERS = frozenset({"list", "sorted", "tuple", "reversed"})


class WarningFlow:
    """The shape of warnings an expression holds, if any (one per file: ``context.shared``)."""

    def __init__(self, context: RuleContext) -> None:
        self.context = context
        self.analysis = context.shared(FileAnalysis)
        self.facts = context.facts.get(WarningFacts)
        self._active: set[int] = set()
        self._collectors: dict[tuple[int, str], Shape | None] = {}
        self._answered: dict[cst.BaseExpression, Shape | None] = {}

    def shape(self, expr: cst.BaseExpression) -> Shape | None:
        outermost = not self._active
        if outermost and expr in self._answered:
            return self._answered[expr]
        key = id(expr)
        if key in self._active:
            return None  # a cycle through assignments: don't know
        self._active.add(key)
        try:
            found = self._shape(expr)
        finally:
            self._active.discard(key)
        if outermost:
            # Asked again and again by every rule (each use of a name re-derives it): an
            # outermost answer saw no cycle cut short, so it is the answer for the file.
            self._answered[expr] = found
        return found

    def _shape(self, expr: cst.BaseExpression) -> Shape | None:
        if isinstance(expr, cst.Name):
            return self._name(expr)
        if isinstance(expr, cst.Attribute):
            return Shape.LIST if self.analysis.is_warning_list_name(expr.attr.value) else None
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr)
        if isinstance(expr, cst.Call):
            return self._call(expr)
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
            return self._comprehension(expr)
        if isinstance(expr, cst.IfExp):
            body, orelse = self.shape(expr.body), self.shape(expr.orelse)
            if body == orelse:
                return body
            # ``[note] if note else []``: an empty arm takes the other arm's shape.
            if body is None and is_empty(expr.body):
                return orelse
            if orelse is None and is_empty(expr.orelse):
                return body
            return None
        if isinstance(expr, cst.BooleanOperation) and isinstance(expr.operator, cst.Or):
            return self._fallback(expr)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            left, right = self.shape(expr.left), self.shape(expr.right)
            return left if left in (Shape.LIST, Shape.DICT_LIST) and left == right else None
        return None

    def _fallback(self, expr: cst.BooleanOperation) -> Shape | None:
        """``warnings or []``: an optional list with an empty default is still that list; a
        default of another shape (``warnings or fetch()``) is unknown, as with ``IfExp``."""
        left, right = self.shape(expr.left), self.shape(expr.right)
        if left == right:
            return left
        if right is None and is_empty(expr.right):
            return left
        return None

    def _name(self, name: cst.Name) -> Shape | None:
        if self.analysis.names_module(name.value):
            return None  # ``hasattr(warnings, "filters")``: the module
        function = self.analysis.enclosing_function(name)
        loop_shape = self._loop_variable(name, function)
        if loop_shape is not None:
            return loop_shape
        if function is not None:
            facts = self.analysis.function(function)
            value = self.analysis.single_assignment(name.value, facts)
            if value is not None and not _is_definition(name, self.context):
                shape = self.shape(value)
                if shape is not None:
                    return shape
            param_shape = self._parameter(name.value, function)
            if param_shape is not None:
                return param_shape
            unpacked = self._unpacked(name.value, function)
            if unpacked is not None:
                return unpacked
            if self._from_text_slot(name.value, function):
                return None  # ``block_warnings, ... = split(...)``: texts, whatever the name
            if not self.analysis.is_warning_list_name(name.value):
                return self._collector(name.value, function)
        return Shape.LIST if self.analysis.is_warning_list_name(name.value) else None

    def _collector(self, name: str, function: cst.FunctionDef) -> Shape | None:
        """``regulars = []`` then only ``regulars.append(w)`` of warnings: a list of
        warnings whatever its name (``split`` sorting warnings into two lists). A list that
        also takes anything else is no warnings list."""
        key = (id(function), name)
        if key not in self._collectors:
            self._collectors[key] = None  # a cycle through the appended values: don't know
            self._collectors[key] = self._collected_shape(name, function)
        return self._collectors[key]

    def _collected_shape(self, name: str, function: cst.FunctionDef) -> Shape | None:
        facts = self.analysis.function(function)
        value = self.analysis.single_assignment(name, facts)
        if not (isinstance(value, cst.List) and not value.elements):
            return None
        shapes = set()
        for appended in self._appended_to((name, None), function):
            if appended is None:
                return None  # ``extend``, ``+=``-like or other uses: not only warnings in
            shapes.add(self.shape(appended))
        if shapes == {Shape.ITEM}:
            return Shape.LIST
        if shapes == {Shape.DICT}:
            return Shape.DICT_LIST
        return None

    def _loop_variable(self, name: cst.Name, function: cst.FunctionDef | None) -> Shape | None:
        if name.value not in self.analysis.loop_targets:
            return None
        for ancestor in self.context.ancestors(name):
            loops: list[tuple[cst.BaseAssignTargetExpression, cst.BaseExpression]] = []
            if isinstance(ancestor, cst.For):
                loops = [(ancestor.target, ancestor.iter)]
            elif isinstance(ancestor, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)):
                loops = list(_comp_fors(ancestor.for_in))
            for target, iterable in loops:
                walked = loop_iterable(target, name.value, iterable)
                if walked is not None:
                    shape = self.shape(walked)
                    return shape.item if shape in (Shape.LIST, Shape.DICT_LIST) else None
            if ancestor is function:
                break
        return None

    def _parameter(self, name: str, function: cst.FunctionDef) -> Shape | None:
        params = self.analysis.positional_params(function)
        for index, param in enumerate(params):
            if param.name.value == name:
                return self.facts.param_shape(self.analysis.callable_name(function), index, name)
        return None

    def _unpacked(self, name: str, function: cst.FunctionDef) -> Shape | None:
        """``loc, note = resolve(...)`` where ``resolve#1`` returns a warning; ``blocks,
        regulars = split(...)`` where ``split#1`` returns a list of warnings (or of dumped
        ones)."""
        for callee, index in self._slots_bound_to(name, function):
            if self.facts.returns_slot(callee, index):
                return Shape.ITEM
            if self.facts.is_dumped_slot(callee, index):
                return Shape.DICT_LIST
            if self.facts.is_list_slot(callee, index):
                return Shape.LIST
        return None

    def _from_text_slot(self, name: str, function: cst.FunctionDef) -> bool:
        """Is ``name`` unpacked from a slot its helper fills with what is not warnings?"""
        return any(
            self.facts.is_text_slot(callee, index)
            for callee, index in self._slots_bound_to(name, function)
        )

    def _slots_bound_to(self, name: str, function: cst.FunctionDef) -> Iterator[tuple[str, int]]:
        """(helper, slot) of every ``a, name = helper(...)`` of ``function``."""
        for target, value in self.analysis.tuple_assignments(function):
            callee = last_name(value.func) if isinstance(value, cst.Call) else None
            if callee is None:
                continue
            for index, element in enumerate(target.elements):
                if isinstance(element.value, cst.Name) and element.value.value == name:
                    yield callee, index

    def _subscript(self, expr: cst.Subscript) -> Shape | None:
        key = string_key(expr)
        if key is not None:
            if not self.analysis.is_warning_list_name(key):
                return None
            return self._filled_here(expr, key) or Shape.DICT_LIST
        base = self.shape(expr.value)
        if base not in (Shape.LIST, Shape.DICT_LIST):
            return None
        is_slice = any(isinstance(e.slice, cst.Slice) for e in expr.slice)
        return base if is_slice else base.item

    def _filled_here(self, expr: cst.Subscript, key: str) -> Shape | None:
        """``result = {"warnings": []}`` in this function, then ``result["warnings"]``: no
        dumped response but a list the code fills, by its producers (``Warning`` objects,
        also where it hands ``result`` to a helper that appends) or by the appends to
        ``result["warnings"]`` here, whose shape it takes. Any other base is read as a
        response's dump."""
        base = expr.value
        function = self.analysis.enclosing_function(expr)
        if not isinstance(base, cst.Name) or function is None:
            return None
        built = self.analysis.single_assignment(base.value, self.analysis.function(function))
        entry = _entry(built, key) if isinstance(built, cst.Dict) else None
        if not (isinstance(entry, cst.List) and not entry.elements):
            return None
        appended = {
            self.shape(value)
            for value in self._appended_to((base.value, key), function)
            if value is not None  # ``extend`` and the like: only the appends give a shape
        }
        return Shape.DICT_LIST if Shape.DICT in appended else Shape.LIST

    def _appended_to(
        self, receiver: tuple[str, str | None], function: cst.FunctionDef
    ) -> Iterator[cst.BaseExpression | None]:
        """What ``function`` appends (or inserts) to ``receiver`` (``name`` or
        ``name["key"]``, see :func:`_receiver`), in source order; None for any other method
        called on it (``extend``, ``clear``), which puts in or takes out what no append
        shows. A generator, so a caller that stops at the first None asks no more shapes."""
        for call in self.analysis.index.within(cst.Call, function):
            func = call.func
            if not isinstance(func, cst.Attribute) or _receiver(func.value) != receiver:
                continue
            is_append = func.attr.value in ("append", "insert") and bool(call.args)
            yield call.args[-1].value if is_append else None

    def _call(self, expr: cst.Call) -> Shape | None:
        func = expr.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "get"
            and expr.args
            and isinstance(expr.args[0].value, cst.SimpleString)
        ):
            key = string_value(expr.args[0].value)
            if isinstance(key, str) and self.analysis.is_warning_list_name(key):
                return Shape.DICT_LIST
        name = last_name(func)
        if name in LIST_WRAPPERS and expr.args:
            shape = self.shape(expr.args[0].value)
            return shape if shape in (Shape.LIST, Shape.DICT_LIST) else None
        return self.facts.return_shape(name) if name is not None else None

    def _comprehension(self, expr: cst.ListComp | cst.GeneratorExp) -> Shape | None:
        """``[w for w in warnings if ...]`` is still a warnings list."""
        element = self.shape(expr.elt) if isinstance(expr.elt, cst.Name) else None
        if element is Shape.ITEM:
            return Shape.LIST
        if element is Shape.DICT:
            return Shape.DICT_LIST
        return None


def _entry(built: cst.Dict, key: str) -> cst.BaseExpression | None:
    """The value under the string ``key`` of a dict literal."""
    for element in built.elements:
        if (
            isinstance(element, cst.DictElement)
            and isinstance(element.key, cst.SimpleString)
            and string_value(element.key) == key
        ):
            return element.value
    return None


def _receiver(expr: cst.BaseExpression) -> tuple[str, str | None] | None:
    """``("result", "warnings")`` for ``result["warnings"]``, ``("notes", None)`` for
    ``notes``: what :meth:`WarningFlow._appended_to` matches a method's owner against."""
    if isinstance(expr, cst.Name):
        return expr.value, None
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name):
        key = string_key(expr)
        return (expr.value.value, key) if key is not None else None
    return None


def loop_iterable(
    target: cst.BaseAssignTargetExpression, name: str, iterable: cst.BaseExpression
) -> cst.BaseExpression | None:
    """The iterable a loop variable ``name`` walks (``enumerate(xs, start=1)``: ``xs``)."""
    if isinstance(target, cst.Name):
        return iterable if target.value == name else None
    if (
        isinstance(target, cst.Tuple)
        and len(target.elements) == 2
        and isinstance(iterable, cst.Call)
        and last_name(iterable.func) == "enumerate"
        and iterable.args
    ):
        second = target.elements[1].value
        if isinstance(second, cst.Name) and second.value == name:
            return iterable.args[0].value
    return None


def is_empty(expr: cst.BaseExpression) -> bool:
    """``[]``, ``()`` or ``None``: consistent with a warnings list and with anything else."""
    if isinstance(expr, (cst.List, cst.Tuple)):
        return not expr.elements
    return isinstance(expr, cst.Name) and expr.value == "None"


def _comp_fors(
    comp_for: cst.CompFor | None,
) -> Iterator[tuple[cst.BaseAssignTargetExpression, cst.BaseExpression]]:
    while comp_for is not None:
        yield comp_for.target, comp_for.iter
        comp_for = comp_for.inner_for_in


def _is_definition(name: cst.Name, context: RuleContext) -> bool:
    parent = context.parent(name)
    return (
        isinstance(parent, (cst.AssignTarget, cst.AnnAssign))
        and getattr(parent, "target", None) is name
    )
