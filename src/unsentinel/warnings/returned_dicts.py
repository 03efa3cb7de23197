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

from unsentinel.core.syntax import last_name, result_call, string_key, string_value
from unsentinel.warnings.facts import WarningShape
from unsentinel.warnings.flow import WarningFlow, is_empty
from unsentinel.warnings.graph import KeyCarrier
from unsentinel.warnings.helper_returns import GROWERS
from unsentinel.warnings.scalar_names import is_text

if TYPE_CHECKING:
    from unsentinel.core.rule import RuleContext
    from unsentinel.core.syntax import NodeIndex
    from unsentinel.warnings.analysis import FileAnalysis
    from unsentinel.warnings.carriers import FileCarriers


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
    return not (isinstance(above, cst.Attribute) and above.attr.value in GROWERS)


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


class ReturnedDicts:
    """What the producer rule records, per file, about warnings in returned dicts: each
    store of a list under a key of a dict its function returns (a pending blocker, with
    the function), and each read of a key off a call's result (the callee and the key).
    The gather pass settles the pairs (``WarningFacts.settle``)."""

    def __init__(
        self,
        context: RuleContext,
        analysis: FileAnalysis,
        carriers: FileCarriers,
        flow: WarningFlow,
    ) -> None:
        self.context = context
        self.analysis = analysis
        self.carriers = carriers
        self.flow = flow

    # -- stores ---------------------------------------------------------------------------
    def holds_objects(self, value: cst.BaseExpression) -> bool:
        """Will ``value`` hold ``Warning`` objects once migrated (not nothing, a count, or
        dicts already dumped)?"""
        return not (is_empty(value) or is_text(value)) and (
            self.flow.shape(value) is not WarningShape.DICT_LIST
        )

    def stored(self, node: cst.CSTNode, stored: cst.Subscript) -> None:
        """``response["warnings"]`` set, grown or extended in a dict the function returns:
        its readers would meet objects where they read dumped dicts."""
        base = stored.value
        if self.context.is_test_file or not isinstance(base, cst.Name):
            return
        function = self.analysis.enclosing_function(node)
        if function is None or not is_returned_name(self.analysis.index, node, base.value):
            return
        for carrier in self.carriers.of(stored):
            if isinstance(carrier, KeyCarrier):
                why = why_returned(carrier.name)
                self.carriers.block_if_read(node, carrier, why, function.name.value)

    def assigned(self, node: cst.Assign) -> None:
        """``response["warnings"] = warnings``, where the value holds objects."""
        if not self.holds_objects(node.value):
            return
        for target in node.targets:
            if isinstance(target.target, cst.Subscript):
                self.stored(node, target.target)

    def built(self, node: cst.DictElement, key: str) -> None:
        """``return {"warnings": warnings}``: the list, not its dump, goes back to callers."""
        built = self.context.parent(node)
        function = self.analysis.enclosing_function(node)
        if function is None or not isinstance(built, cst.Dict):
            return
        if self.holds_objects(node.value) and is_returned_dict(
            self.context, self.analysis.index, built
        ):
            why = why_returned(key)
            self.carriers.block_if_read(node, KeyCarrier(key), why, function.name.value)

    # -- reads ----------------------------------------------------------------------------
    def read_by_key(self, node: cst.Subscript) -> None:
        """``result["warnings"]`` off a call's result."""
        key = string_key(node)
        named = key is not None and self.analysis.is_warning_list_name(key)
        if named and key is not None and is_read(self.context, node):
            self._read(node.value, key)

    def got_by_key(self, node: cst.Call) -> None:
        """``result.get("warnings", [])``: a read of the key, like ``result["warnings"]``."""
        func = node.func
        first = node.args[0].value if node.args else None
        if isinstance(func, cst.Attribute) and func.attr.value == "get":
            key = string_value(first) if isinstance(first, cst.SimpleString) else None
            if isinstance(key, str) and self.analysis.is_warning_list_name(key):
                self._read(func.value, key)

    def _read(self, base: cst.BaseExpression, key: str) -> None:
        for callee in callees_read(self.analysis.index, base):
            self.carriers.notes.key_reads.add((callee, key))
