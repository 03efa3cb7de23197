"""A helper's parameter under the name its caller's input has.

A field path names what the caller of the operation handed in. A private helper called as
``_build_row_warnings(request_rows=request.rows or [], ...)`` takes ``request_rows``, but a
warning about ``request_rows[{i}].sku`` is about ``rows[{i}].sku`` of the request: the
name the operation's caller knows. Only where every call in the file hands the parameter
the same field of the calling function's input, and only one level up (the caller's own
parameters keep their names there); a generic helper called with different values, or
from outside the file, keeps its own parameter's name.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from unsentinel.warnings.analysis import FileAnalysis
    from unsentinel.warnings.function_facts import FunctionFacts


class CallerNames:
    """Per function of one file: parameter name -> the caller's field path for it."""

    def __init__(self, analysis: FileAnalysis) -> None:
        self._analysis = analysis
        self._renamed: dict[cst.FunctionDef, dict[str, str]] = {}

    def rename(self, path: str, facts: FunctionFacts) -> str:
        """``path`` with its root parameter under the caller's name (``request_rows[{i}].sku``
        -> ``rows[{i}].sku``); unchanged when the root is no renamed parameter."""
        root, rest = _split_root(path)
        if root not in facts.inputs:
            return path
        caller = self.renamed(facts.node).get(root)
        return path if caller is None else caller + rest

    def renamed(self, function: cst.FunctionDef) -> dict[str, str]:
        if function not in self._renamed:
            self._renamed[function] = self._caller_paths(function)
        return self._renamed[function]

    def _caller_paths(self, function: cst.FunctionDef) -> dict[str, str]:
        calls = self._calls_to(function)
        facts = self._analysis.function(function)
        if not calls:
            return {}
        found: dict[str, set[str | None]] = {name: set() for name in facts.inputs}
        for call in calls:
            passed = self._passed(function, call)
            if passed is None:
                return {}  # a ``*args`` call: which value fills which parameter is unknown
            for name in found:
                found[name].add(passed.get(name))
        renamed = {}
        for name, paths in found.items():
            (path,) = paths if len(paths) == 1 else (None,)
            if path is not None and path != name:
                renamed[name] = path
        return renamed

    def state_params(self, function: cst.FunctionDef) -> frozenset[str]:
        """The parameters every call in this file fills with the outside's state: in
        ``_row_warnings(so_rows=so_rows)`` after ``so = await api.get_order(...)``, ``so_rows
        = so.rows``, the rows are the order the service holds, not what the caller handed
        in -- a warning about them reports state. None when a call is made from outside a
        function or with ``*args`` (which value fills which parameter is unknown)."""
        calls = self._calls_to(function)
        stated: set[str] | None = None
        for call in calls:
            arguments = self._arguments(function, call)
            if arguments is None:
                return frozenset()
            caller = self._analysis.enclosing_function(call)
            assert caller is not None  # ``_calls_to`` keeps calls made inside functions
            caller_facts = self._analysis.function(caller)
            here = {
                name
                for name, value in arguments.items()
                if self._analysis.paths.from_outside(value, caller_facts)
            }
            stated = here if stated is None else stated & here
        return frozenset(stated or ())

    def _passed(self, function: cst.FunctionDef, call: cst.Call) -> dict[str, str | None] | None:
        """Parameter name -> the caller's input path the call passes it (None: not one)."""
        arguments = self._arguments(function, call)
        if arguments is None:
            return None
        caller = self._analysis.enclosing_function(call)
        assert caller is not None  # ``_calls_to`` keeps calls made inside functions
        caller_facts = self._analysis.function(caller)
        paths = self._analysis.paths
        return {
            name: paths.caller_path(value, caller_facts, call) for name, value in arguments.items()
        }

    def _arguments(
        self, function: cst.FunctionDef, call: cst.Call
    ) -> dict[str, cst.BaseExpression] | None:
        """Parameter name -> the value ``call`` passes it (None: a ``*args`` call, or more
        positional values than parameters)."""
        positional = self._analysis.positional_params(function)
        arguments: dict[str, cst.BaseExpression] = {}
        for position, arg in enumerate(call.args):
            if arg.star:
                return None
            if arg.keyword is not None:
                name = arg.keyword.value
            elif position < len(positional):
                name = positional[position].name.value
            else:
                return None
            arguments[name] = arg.value
        return arguments

    @cached_property
    def _calls_by_callee(self) -> dict[tuple[str, bool], list[cst.Call]]:
        """Every call of the file under the name it is made by (:func:`_callee`), in source
        order. Built once: each function with inputs asks for its callers, and scanning
        every call of the file per function made a file of a thousand functions quadratic
        (11 million tests on the 10,029-line benchmark module)."""
        table: dict[tuple[str, bool], list[cst.Call]] = {}
        for call in self._analysis.index.by_type.get(cst.Call, []):
            assert isinstance(call, cst.Call)
            callee = _callee(call.func)
            if callee is not None:
                table.setdefault(callee, []).append(call)
        return table

    def _calls_to(self, function: cst.FunctionDef) -> list[cst.Call]:
        """The calls in this file's functions to ``function`` by its name (a method through
        ``self.`` or ``cls.``), none of them inside it. A call at module level makes the
        answer unknown: no calls."""
        name = self._analysis.callable_name(function)
        method = self._analysis.is_method(function)
        calls = []
        for call in self._calls_by_callee.get((name, method), ()):
            owner = self._analysis.enclosing_function(call)
            if owner is None:
                return []
            if owner is not function:
                calls.append(call)
        return calls


def _callee(func: cst.BaseExpression) -> tuple[str, bool] | None:
    """The name a call is made by and whether through ``self.`` or ``cls.`` (a method):
    ``f(...)`` -> (f, False), ``self.f(...)`` -> (f, True); None for any other callee."""
    if isinstance(func, cst.Name):
        return func.value, False
    if (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value in ("self", "cls")
    ):
        return func.attr.value, True
    return None


def _split_root(path: str) -> tuple[str, str]:
    """``request_rows[{i}].sku`` -> (``request_rows``, ``[{i}].sku``)."""
    for position, char in enumerate(path):
        if char in ".[":
            return path[:position], path[position:]
    return path, ""
