"""Which carriers (see :mod:`unsentinel.warnings.graph`) an expression of one file stands for.

The producer rules record the flows and blockers they see through :class:`FileCarriers`
(one per file: ``context.shared``); every rewriting rule asks it, before scheduling an edit,
whether the site's group is blocked. It follows the data the way
:class:`~unsentinel.warnings.flow.WarningFlow` does (loop variables to their iterables, slices
to their lists, helper calls to their returns) but answers *where*, not *in which shape*.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import libcst as cst

from unsentinel.core.defined import BUILTIN_NAMES, binds_name, may_be_defined
from unsentinel.core.syntax import last_name, string_key, string_value
from unsentinel.warnings.analysis import FileAnalysis
from unsentinel.warnings.facts import WarningFacts, WarningNotes
from unsentinel.warnings.flow import WarningFlow, loop_iterable
from unsentinel.warnings.graph import (
    Blocker,
    Carrier,
    FieldCarrier,
    KeyCarrier,
    Link,
    LocalCarrier,
    ParamCarrier,
    ReturnCarrier,
    SlotCarrier,
    blocker_of,
)

if TYPE_CHECKING:
    from unsentinel.core.rule import RuleContext

# Calls whose result is never a project helper's return value.
BUILTIN_CALLS = frozenset(
    {
        "str",
        "repr",
        "format",
        "len",
        "int",
        "float",
        "bool",
        "dict",
        "set",
        "frozenset",
        "print",
        "isinstance",
        "getattr",
        "next",
        "iter",
        "any",
        "all",
        "min",
        "max",
        "sum",
        "filter",
        "map",
        "zip",
        "enumerate",
        "model_dump",
        "asdict",
        "dumps",
        "loads",
        "get",
        "join",
    }
)
_CONSTANT_NAMES = frozenset({"None", "True", "False"})
_PASS_THROUGH = frozenset({"list", "sorted", "tuple", "reversed", "copy", "deepcopy"})


class FileCarriers:
    """The carriers of one file's expressions, and what the file records about them."""

    def __init__(self, context: RuleContext) -> None:
        self.context = context
        self.analysis = context.shared(FileAnalysis)
        self.notes = context.shared(WarningNotes)
        self.facts = context.facts.get(WarningFacts)
        self._active: set[int] = set()
        self._bound: dict[str, bool] = {}

    # -- recording ------------------------------------------------------------------------
    def link(self, first: Iterable[Carrier], second: Iterable[Carrier]) -> None:
        """Whatever ``first`` holds, ``second`` may hold too (and back)."""
        seconds = tuple(second)
        for a in first:
            for b in seconds:
                if a != b:
                    self.notes.links.add(Link(a, b))

    def block(self, node: cst.CSTNode, carriers: Iterable[Carrier], why: str) -> None:
        """``node`` cannot be migrated: neither can anything connected to ``carriers``."""
        line = self.context.position(node).line
        for carrier in carriers:
            self.notes.blockers.add(Blocker(self.context.path, line, why, carrier))

    def block_if_read(
        self, node: cst.CSTNode, carrier: KeyCarrier, why: str, function: str
    ) -> None:
        """Like :meth:`block`, but only where a caller reads ``carrier``'s key off what
        ``function`` returns (``result["warnings"]``): settled with the whole repository's
        facts (warnings/returned_dicts.py)."""
        line = self.context.position(node).line
        blocker = Blocker(self.context.path, line, why, carrier)
        self.notes.returned_objects.add((function, blocker))

    def blocker(self, carriers: Iterable[Carrier]) -> Blocker | None:
        """What blocks the group of any of ``carriers`` (from the gather pass), if anything."""
        return blocker_of(self.facts.blocked, carriers)

    def calls_a_builtin(self, func: cst.BaseExpression) -> bool:
        """``type(w)``, ``issubclass(c, Warning)``: Python's own function where the module
        binds no such name, whatever method of that name the repository defines."""
        if not isinstance(func, cst.Name) or func.value not in BUILTIN_NAMES:
            return False
        name = func.value
        if name not in self._bound:
            self._bound[name] = binds_name(self.context.text, name)
        return not self._bound[name]

    # -- which carriers an expression stands for --------------------------------------------
    def of(self, expr: cst.BaseExpression) -> tuple[Carrier, ...]:
        key = id(expr)
        if key in self._active:
            return ()
        self._active.add(key)
        try:
            return tuple(dict.fromkeys(self._of(expr)))
        finally:
            self._active.discard(key)

    def _of(self, expr: cst.BaseExpression) -> tuple[Carrier, ...]:
        if isinstance(expr, cst.Name):
            return self._name(expr)
        if isinstance(expr, cst.Attribute):
            name = expr.attr.value
            return (FieldCarrier(name),) if self.analysis.is_warning_list_name(name) else ()
        if isinstance(expr, cst.Subscript):
            key = string_key(expr)
            if key is not None:
                return (KeyCarrier(key),) if self.analysis.is_warning_list_name(key) else ()
            return self.of(expr.value)
        if isinstance(expr, cst.Await):
            return self.of(expr.expression)
        if isinstance(expr, cst.Call):
            return self._call(expr)
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            return self.of(expr.elt)
        if isinstance(expr, cst.IfExp):
            return (*self.of(expr.body), *self.of(expr.orelse))
        if isinstance(expr, (cst.BinaryOperation, cst.BooleanOperation)):
            return (*self.of(expr.left), *self.of(expr.right))
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            return tuple(
                c
                for e in expr.elements
                if not isinstance(e, cst.StarredElement)
                for c in self.of(e.value)
            )
        return ()

    def _name(self, name: cst.Name) -> tuple[Carrier, ...]:
        if name.value in _CONSTANT_NAMES:
            return ()  # ``warnings = None`` in a class body: a value, no place of the flow
        iterable = self._loop_iterable(name)
        function = self.analysis.enclosing_function(name)
        if iterable is not None:
            # ``for path in paths: path = abspath(path)``: the loop's items, and the value
            # the name is bound to again.
            assigned = self._assigned_from(name.value, function) if function else ()
            return (*self.of(iterable), *assigned)
        if function is None and self._in_class_body(name):
            return (FieldCarrier(name.value),)  # a model's field: one place with ``x.<name>``
        if function is None:
            return (LocalCarrier(self.context.module_name, "", name.value),)
        function = self._binding_function(name.value, function)
        params = function.params
        if any(
            p.name.value == name.value
            for p in (*params.posonly_params, *params.params, *params.kwonly_params)
        ):
            return (ParamCarrier(self.analysis.callable_name(function), name.value),)
        local = LocalCarrier(self.context.module_name, function.name.value, name.value)
        return (local, *self._assigned_from(name.value, function))

    def _assigned_from(self, name: str, function: cst.FunctionDef) -> tuple[Carrier, ...]:
        """What a local assigned once from a call holds: ``d = os.path.abspath(p)`` is one
        place with what ``abspath`` returns, in every pass -- also where the gather pass
        never linked them (a file it did not read again once ``abspath`` was known), so a
        read of ``d`` is held with that group."""
        value = self.analysis.function(function).single_assignment(name)
        if isinstance(value, cst.Await):
            value = value.expression
        return self._call(value) if isinstance(value, cst.Call) else ()

    def _binding_function(self, name: str, function: cst.FunctionDef) -> cst.FunctionDef:
        """The function whose variable ``name`` is: a closure that only reads or appends to
        a list of its enclosing function (``def _sink(m): captured_warnings.append(m)``)
        touches that function's list, not one of its own."""
        current = function
        while not self._binds(current, name):
            outer = self.analysis.enclosing_function(current)
            if outer is None:
                return function
            current = outer
        return current

    def _binds(self, function: cst.FunctionDef, name: str) -> bool:
        params = function.params
        every = (*params.posonly_params, *params.params, *params.kwonly_params)
        if any(p.name.value == name for p in every):
            return True
        return name in self.analysis.function(function).assignments

    def _loop_iterable(self, name: cst.Name) -> cst.BaseExpression | None:
        if name.value not in self.analysis.loop_targets:
            return None
        function = self.analysis.enclosing_function(name)
        for ancestor in self.context.ancestors(name):
            if isinstance(ancestor, cst.For):
                pairs = [(ancestor.target, ancestor.iter)]
            elif isinstance(ancestor, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)):
                pairs = []
                comp: cst.CompFor | None = ancestor.for_in
                while comp is not None:
                    pairs.append((comp.target, comp.iter))
                    comp = comp.inner_for_in
            else:
                pairs = []
            for target, iterable in pairs:
                found = loop_iterable(target, name.value, iterable)
                if found is not None:
                    return found
            if ancestor is function:
                break
        return None

    def _call(self, call: cst.Call) -> tuple[Carrier, ...]:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "get" and call.args:
            key = call.args[0].value
            value = string_value(key) if isinstance(key, cst.SimpleString) else None
            if isinstance(value, str) and self.analysis.is_warning_list_name(value):
                return (KeyCarrier(value),)
            return ()
        callee = last_name(func)
        if callee is None:
            return ()
        if callee in _PASS_THROUGH and call.args:
            return self.of(call.args[0].value)
        if callee in BUILTIN_CALLS or isinstance(func, cst.Attribute) and callee in _METHODS:
            return ()
        if self.calls_a_builtin(func):
            return ()
        if not may_be_defined(self.context.facts, callee):
            return ()  # library code's result: no place of the flow
        return (ReturnCarrier(callee),)

    def returned(self, function: cst.FunctionDef, index: int | None) -> Carrier:
        name = function.name.value
        return ReturnCarrier(name) if index is None else SlotCarrier(name, index)

    # -- the carriers of an annotated thing ------------------------------------------------
    def annotated(self, annotation: cst.Annotation, index: int | None) -> tuple[Carrier, ...]:
        """A field, a local, a parameter or a return value, by where ``annotation`` sits."""
        parent = self.context.parent(annotation)
        if isinstance(parent, cst.AnnAssign):
            target = parent.target
            if isinstance(target, cst.Name) and self._in_class_body(parent):
                return (FieldCarrier(target.value),)
            return self.of(target)
        if isinstance(parent, cst.Param):
            function = self.analysis.enclosing_function(parent)
            return (
                ()
                if function is None
                else (ParamCarrier(self.analysis.callable_name(function), parent.name.value),)
            )
        if isinstance(parent, cst.FunctionDef):
            return (self.returned(parent, index),)
        return ()

    def _in_class_body(self, node: cst.CSTNode) -> bool:
        for ancestor in self.context.ancestors(node):
            if isinstance(ancestor, cst.ClassDef):
                return True
            if isinstance(ancestor, cst.FunctionDef):
                return False
        return False

    def around(self, node: cst.CSTNode) -> tuple[Carrier, ...]:
        """The carriers of the warnings read in ``node``, or in the smallest expression
        around it that reads one (``isinstance(w, str)``: the ``str`` is edited, ``w`` read)."""
        for candidate in (node, *self.context.ancestors(node)):
            if isinstance(candidate, (cst.BaseStatement, cst.BaseSmallStatement)):
                break
            found = self._read_in(candidate)
            if found:
                return found
        return ()

    def _read_in(self, node: cst.CSTNode) -> tuple[Carrier, ...]:
        flow = self.context.shared(WarningFlow)
        found: list[Carrier] = []

        def walk(current: cst.CSTNode) -> None:
            if isinstance(current, cst.BaseExpression) and flow.shape(current) is not None:
                found.extend(self.of(current))
                return
            for child in current.children:
                walk(child)

        walk(node)
        return tuple(dict.fromkeys(found))


_METHODS = frozenset(
    {"append", "extend", "insert", "copy", "items", "keys", "values", "strip", "split", "lower"}
)
CONTAINER_METHODS = frozenset(
    {"append", "extend", "insert", "add", "update", "setdefault", "remove", "index", "count"}
)


def is_helper_call(callee: str | None, func: cst.BaseExpression) -> bool:
    """May this call be a project helper, whose parameters are places of their own? Not a
    builtin, not a list method: ``existing.extend(warnings)`` says nothing about every
    other list ever extended; and not an assertion: ``self.assertEqual(warnings, [...])``
    says nothing about every other value ever compared."""
    if callee is None or callee in BUILTIN_CALLS or callee.startswith(("assert", "__")):
        return False  # ``self.assertEqual(warnings, [...])`` compares, it holds nothing
    # ``super().__init__(...)``: a dunder is called by the language under another name.
    return not (isinstance(func, cst.Attribute) and callee in CONTAINER_METHODS)
