"""Warnings stored in a dict that a function returns as it is.

``response["cost_warnings"] = cost_warnings`` ... ``return response`` (or ``return
{"warnings": warnings}``) hands the caller the list itself: once migrated, ``Warning``
objects. But a key of a dict is one place with every other key and field of that name
(``model_dump()`` turns one into the other), and its readers (``result["warnings"]``) read
dumped dicts, ``w["message"]``. Both cannot hold where a caller reads the key off the
function's result (``result = list_changes(...)`` ... ``result["warnings"]``): the group stays
as it is until the dict is dumped where it is built, and the producer rule blocks it at the
store, naming the key. Where no caller reads it (the dict goes to a model, ``Response(**view)``,
or to a serializer), the objects migrate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from unsentinel.core.syntax import last_name, result_call

if TYPE_CHECKING:
    from unsentinel.core.rule import RuleContext
    from unsentinel.core.syntax import NodeIndex


# Methods that grow the list under a key rather than read what it holds.
_GROWERS = frozenset({"append", "extend", "insert"})


def callees_read(index: NodeIndex, base: cst.BaseExpression) -> set[str]:
    """The functions whose result ``base`` is: ``f(...)`` itself, or a local bound to one
    in the same function (``result = f(...)``, ``await f(...)``, ``asyncio.run(f(...))``)."""
    call = result_call(base)
    if isinstance(call, cst.Call):
        return {name} if (name := last_name(call.func)) else set()
    if not isinstance(base, cst.Name):
        return set()
    found: set[str] = set()
    for assign in index.within(cst.Assign, index.owner_of(base)):
        bound = any(
            isinstance(t.target, cst.Name) and t.target.value == base.value for t in assign.targets
        )
        value = result_call(assign.value) if bound else None
        if isinstance(value, cst.Call) and (name := last_name(value.func)):
            found.add(name)
    return found


def is_read(context: RuleContext, node: cst.Subscript) -> bool:
    """``x["warnings"]`` as a value: not stored into (``x["warnings"] = ...``, ``del``) and
    not only grown (``x["warnings"].append(...)``)."""
    above = context.parent(node)
    if isinstance(above, (cst.AssignTarget, cst.Del)):
        return False
    if isinstance(above, (cst.AnnAssign, cst.AugAssign)) and above.target is node:
        return False
    return not (isinstance(above, cst.Attribute) and above.attr.value in _GROWERS)


def why_returned(key: str) -> str:
    return (
        f'Warning objects would be returned in a dict under "{key}", '
        "whose readers read dumped dicts"
    )


def is_returned_dict(context: RuleContext, index: NodeIndex, node: cst.Dict) -> bool:
    """``return {...}`` (also in a returned tuple), or a dict bound to a local the function
    returns (``response = {...}`` ... ``return response``)."""
    above = context.parent(node)
    if isinstance(above, cst.Element):
        in_tuple = context.parent(above)
        above = context.parent(in_tuple) if isinstance(in_tuple, cst.Tuple) else None
    if isinstance(above, cst.Return):
        return True
    if isinstance(above, (cst.Assign, cst.AnnAssign)):
        targets = above.targets if isinstance(above, cst.Assign) else [above]
        return any(
            isinstance(t.target, cst.Name) and is_returned_name(index, node, t.target.value)
            for t in targets
        )
    return False


def is_returned_name(index: NodeIndex, node: cst.CSTNode, name: str) -> bool:
    """Does the function around ``node`` return the local ``name`` as it is (``return
    name`` or ``return name, status``)? Never at module level."""
    function = index.owner_of(node)
    if function is None:
        return False
    for returned in index.within(cst.Return, function):
        value = returned.value
        if isinstance(value, cst.Tuple) and value.elements:
            value = value.elements[0].value
        if isinstance(value, cst.Name) and value.value == name:
            return True
    return False
