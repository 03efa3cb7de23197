"""Which parameters a list under a dict key reaches: where objects and dumped dicts meet.

A list under a key (``response["warnings"]``) is one group across the repository: a
model's field and a dumped response's key are the same place to the flow. Two kinds of
entries land in such lists. ``view["warnings"].append(f"...")`` adds what becomes a
``Warning`` object; a test's ``{"warnings": ["BLOCK: ..."]}`` stands in for a dumped
response, whose entries become dicts. They only collide when they reach the same dict: the
test passes its stand-in to the very function that appends (``add_warning(data)``, which
does ``data["warnings"].append(...)``). So each kind records the parameters its dict is
(the append's base, when it is a parameter) or is passed to (the stand-in's calls), and
:func:`~unsentinel.warnings.graph.settle_blocked` holds a group only where the two meet.
:class:`~unsentinel.warnings.producer_flow.WarningProducer` records both kinds here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libcst as cst

from unsentinel.core.syntax import NodeIndex, last_name
from unsentinel.warnings.analysis import FileAnalysis
from unsentinel.warnings.carriers import FileCarriers
from unsentinel.warnings.graph import KeyCarrier, KeyedEntries, ParamCarrier

Parent = Callable[[cst.CSTNode], cst.CSTNode | None]


def record_appended(
    carriers: FileCarriers,
    node: cst.Call | cst.AugAssign,
    base: cst.Subscript,
    keyed: tuple[KeyCarrier, ...],
) -> None:
    """``view["warnings"].append(f"...")`` (or ``+= [...]``): the lists under ``keyed`` get
    objects, in the dict ``view`` when it is a parameter."""
    function = carriers.analysis.enclosing_function(node)
    params = _appended_params(carriers.analysis, base.value, function)
    _record(carriers, node, keyed, params, dumped=False)


def record_stand_in(carriers: FileCarriers, node: cst.DictElement, key: KeyCarrier) -> None:
    """A test's ``{"warnings": [...]}``: the list under ``key`` gets dumped dicts, in the
    parameters the literal is passed to."""
    function = carriers.analysis.enclosing_function(node)
    index = carriers.analysis.index
    params = _stand_in_params(node, carriers.context.parent, index, function)
    _record(carriers, node, (key,), params, dumped=True)


def _record(
    carriers: FileCarriers,
    node: cst.CSTNode,
    keyed: tuple[KeyCarrier, ...],
    params: frozenset[ParamCarrier],
    *,
    dumped: bool,
) -> None:
    if not params:
        return  # a dict no parameter holds: it meets no test's stand-in
    line = carriers.context.position(node).line
    for carrier in keyed:
        entries = KeyedEntries(carriers.context.path, line, carrier, dumped, params)
        carriers.notes.keyed.add(entries)


def _appended_params(
    analysis: FileAnalysis, base: cst.BaseExpression, function: cst.FunctionDef | None
) -> frozenset[ParamCarrier]:
    """``view["warnings"].append(...)`` where ``view`` is a parameter of ``function``: that
    parameter, by name and (if callers may fill it by position) by index."""
    if function is None or not isinstance(base, cst.Name):
        return frozenset()
    name = analysis.callable_name(function)
    found = {
        ParamCarrier(name, param.name.value)
        for param in _all_params(function)
        if param.name.value == base.value
    }
    for index, param in enumerate(analysis.positional_params(function)):
        if param.name.value == base.value:
            found.add(ParamCarrier(name, index))
    return frozenset(found)


def _stand_in_params(
    element: cst.DictElement, parent: Parent, index: NodeIndex, function: cst.FunctionDef | None
) -> frozenset[ParamCarrier]:
    """The parameters a test's ``{"warnings": [...]}`` is passed to: as an argument itself
    (``render({**base, "warnings": [...]})``) or through the local it is bound to
    (``data = {...}; add_warning(data)``)."""
    literal = parent(element)
    above = parent(literal) if literal is not None else None
    if isinstance(above, cst.Arg):
        return frozenset(_param_of(above, parent))
    if isinstance(above, cst.Assign) and len(above.targets) == 1:
        target = above.targets[0].target
        if isinstance(target, cst.Name):
            return frozenset(_passed(target.value, index, function, parent))
    return frozenset()


def _passed(
    local: str, index: NodeIndex, function: cst.FunctionDef | None, parent: Parent
) -> Iterator[ParamCarrier]:
    for call in index.within(cst.Call, function):
        for arg in call.args:
            if isinstance(arg.value, cst.Name) and arg.value.value == local:
                yield from _param_of(arg, parent)


def _param_of(arg: cst.Arg, parent: Parent) -> Iterator[ParamCarrier]:
    call = parent(arg)
    callee = last_name(call.func) if isinstance(call, cst.Call) else None
    if not isinstance(call, cst.Call) or callee is None or arg.star:
        return
    if arg.keyword is not None:
        yield ParamCarrier(callee, arg.keyword.value)
    else:
        positional = [a for a in call.args if a.keyword is None]
        yield ParamCarrier(callee, next(i for i, a in enumerate(positional) if a is arg))


def _all_params(function: cst.FunctionDef) -> list[cst.Param]:
    params = function.params
    return [*params.posonly_params, *params.params, *params.kwonly_params]
