"""A function called through a local alias: ``real_fn = explorer.cost_explorer; real_fn(...)``.

The readers of a result know its producer by the callee's bare name. A call through a local
that is bound once, to a name or an attribute, calls what that name names: read as a call
of ``real_fn``, its result had no traceable producer and was judged as an untraced
response, so a test reading a function that migrates nothing was rewritten with the
producers that do. Any other local or parameter called (bound twice, bound to a call's
result, a fixture) is a value of the function: it may be any function at all.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

import libcst as cst

from unsentinel.core.syntax import NodeIndex
from unsentinel.errors.shapes import call_name

_HOPS = 4  # ``a = b`` ... ``b = mod.f``: a chain of aliases, bounded


# Each file's analysis asks about a function's aliases several times (the readers, the
# generic checks, the clients), and every function's aliases hold the module's: built per
# question, the module's bindings were bound again for each function, 88,000 times over
# the standard library (35 s of a 615 s profile). An index never changes: one per function.
_MEMO: WeakKeyDictionary[NodeIndex, dict[cst.FunctionDef | None, Aliases]] = WeakKeyDictionary()


def aliases_of(index: NodeIndex, function: cst.FunctionDef | None) -> Aliases:
    """The :class:`Aliases` of ``function`` (None: the module), built once per index."""
    known = _MEMO.setdefault(index, {})
    found = known.get(function)
    if found is None:
        found = known[function] = Aliases(index, function)
    return found


class Aliases:
    """The locals of one function (or of the module) and what the aliases among them name."""

    def __init__(self, index: NodeIndex, function: cst.FunctionDef | None) -> None:
        self._bound: dict[str, list[cst.Name | cst.Attribute | None]] = {}
        # a function also calls the aliases its module binds (``real_fn = mod.f`` at the top)
        self._outer = aliases_of(index, None) if function is not None else None
        for assign in index.within(cst.Assign, function):
            single = len(assign.targets) == 1
            for target in assign.targets:
                self._bind(target.target, assign.value if single else None)
        for kind in (cst.AnnAssign, cst.AugAssign):
            for node in index.within(kind, function):
                assert isinstance(node, (cst.AnnAssign, cst.AugAssign))
                self._bind(node.target, None)
        for loop in index.within(cst.For, function):
            self._bind(loop.target, None)
        for item in index.within(cst.WithItem, function):
            if item.asname is not None:
                self._bind(item.asname.name, None)
        for walrus in index.within(cst.NamedExpr, function):
            self._bind(walrus.target, None)
        for param in index.within(cst.Param, function):
            self._bind(param.name, None)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            alias = value if isinstance(value, (cst.Name, cst.Attribute)) else None
            self._bound.setdefault(target.value, []).append(alias)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, None)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, None)

    def is_local(self, name: str) -> bool:
        """Is ``name`` bound in this scope (a parameter, an assignment, a loop target)?"""
        return name in self._bound

    def target(self, name: str) -> cst.Name | cst.Attribute | None:
        """What the alias ``name`` names (``explorer.cost_explorer``), or None when ``name``
        is no alias: not local, bound more than once, or bound to anything else."""
        if not self.is_local(name) and self._outer is not None:
            return self._outer.target(name)
        for _ in range(_HOPS):
            bound = self._bound.get(name)
            if bound is None or len(bound) != 1 or bound[0] is None:
                return None
            found = bound[0]
            if isinstance(found, cst.Attribute):
                return found
            if not self.is_local(found.value):  # ``fn = real_fn``, bound at module level?
                outer = self._outer.target(found.value) if self._outer is not None else None
                return outer or found
            name = found.value  # ``a = b`` where ``b`` is local too: follow it
        return None

    def callee(self, call: cst.Call) -> str | None:
        """The bare name of what ``call`` calls, through an alias where it is one; None for
        a call of a local value no alias resolves (a fixture may be any function)."""
        if isinstance(call.func, cst.Name):
            found = self.target(call.func.value)
            if isinstance(found, cst.Name):
                return found.value
            if isinstance(found, cst.Attribute):
                return found.attr.value
            if self.is_local(call.func.value):
                return None
        return call_name(call)

    def calls_a_value(self, call: cst.Call) -> bool:
        """Does ``call`` call a local value no alias resolves (``tool(...)``, a fixture)?"""
        func = call.func
        return (
            isinstance(func, cst.Name) and self.is_local(func.value) and not self.target(func.value)
        )
