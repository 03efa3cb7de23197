"""Where the warnings a helper returns flow: its ``return`` statements and its test doubles.

:mod:`~unsentinel.warnings.helper_returns` records *which* helpers return warnings, whole
or in a tuple slot. This module links *what* they return into the flow graph
(:mod:`~unsentinel.warnings.graph`): a returned value joins the helper's
:class:`~unsentinel.warnings.graph.ReturnCarrier`, one element of a returned tuple its
:class:`~unsentinel.warnings.graph.SlotCarrier`, and a test double
(``patch("pkg.check", return_value=[...])``) returns into the helper it stands in for. A
caller's list and the helper's producers are then one group, migrated together or not at
all.

:class:`~unsentinel.warnings.producer_flow.WarningProducer` delegates its ``return``
statements and calls here. It passes two callbacks that follow a value to its producers
(the strings that become ``Warning`` objects), so this module decides only *where* a
returned value lands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

import libcst as cst

from unsentinel.core.syntax import last_name, string_value
from unsentinel.warnings.analysis import FileAnalysis
from unsentinel.warnings.carriers import FileCarriers
from unsentinel.warnings.facts import (
    LIST_SHAPES,
    TupleSlot,
    WarningFacts,
    WarningNotes,
    WarningShape,
)
from unsentinel.warnings.flow import WarningFlow, is_empty
from unsentinel.warnings.graph import Carrier, ReturnCarrier, SlotCarrier
from unsentinel.warnings.helper_returns import HelperReturns

FollowCandidate = Callable[[tuple[Carrier, ...], cst.BaseExpression], None]
"""Follow a value that may be one warning; its producer lands in the given carriers."""


class FollowElements(Protocol):
    """Follow a value that holds warnings (with ``single``, a list of them or one warning);
    its producers land in ``into``."""

    def __call__(
        self, into: tuple[Carrier, ...], value: cst.BaseExpression, *, single: bool = False
    ) -> None: ...


TEST_DOUBLE_CALLS = ("patch", "object", "setattr")
"""``patch("pkg.check", ...)``, ``patch.object(mod, "check", ...)``, ``setattr(mod, "check",
...)``: calls that put a test double in place of a helper."""


@dataclass(frozen=True)
class ReturnLinks:
    """Links the values one file's helpers (and their test doubles) return into the graph."""

    analysis: FileAnalysis
    flow: WarningFlow
    facts: WarningFacts
    notes: WarningNotes
    carriers: FileCarriers
    helpers: HelperReturns
    follow_candidate: FollowCandidate
    follow_elements: FollowElements

    def link_return(self, node: cst.Return) -> None:
        """``return ...`` in a helper that returns warnings (a gather fact, or a sentinel
        string seen here): the value joins what the helper returns, a tuple slot by slot."""
        function = self.analysis.enclosing_function(node)
        if function is None or node.value is None:
            return
        name = function.name.value
        marked = self.helpers.marked_slots(function)
        self.helpers.record_returning(function, marked)
        if isinstance(node.value, cst.Tuple):
            self._link_tuple(name, node.value, marked)
        elif name in self.facts.returning or None in marked:
            into = (ReturnCarrier(name),)
            self.carriers.link(into, self.carriers.of(node.value))
            self.follow_elements(into, node.value, single=True)

    def _link_tuple(self, function: str, value: cst.Tuple, marked: set[int | None]) -> None:
        """``return loc, note``: a slot that holds one warning (a gather fact, or a sentinel
        string here) is followed into that slot; list slots join theirs."""
        items = self.facts.slots_of(function) | {m for m in marked if m is not None}
        self._link_list_slots(function, value, items)
        for index in sorted(items):
            if index < len(value.elements):
                element = value.elements[index].value
                into: tuple[Carrier, ...] = (SlotCarrier(function, index),)
                self.carriers.link(into, self.carriers.of(element))
                self.follow_candidate(into, element)

    def _link_list_slots(self, function: str, value: cst.Tuple, items: set[int]) -> None:
        """``return errors, warnings``: a warnings list returned in a tuple slot is one place
        with that slot, so the caller's ``errors, warnings = check(...)`` joins its group.

        Any other slot (but the single-warning ones in ``items``) holds what this tool does
        not follow as warnings: ``return blocks, regulars`` where ``blocks`` gathers message
        texts. A name a caller unpacks from it is no warnings list, whatever it is called
        (``block_warnings, ... = split(...)``): a text slot (a gather fact).
        """
        for index, element in enumerate(value.elements):
            if isinstance(element, cst.StarredElement):
                return  # the slots after it are at unknown positions
            slot = (SlotCarrier(function, index),)
            shape = self.flow.shape(element.value)
            if self.analysis.is_warning_list(element.value) or shape in LIST_SHAPES:
                self.carriers.link(slot, self.carriers.of(element.value))
                if shape is WarningShape.DICT_LIST:
                    self.notes.dumped_slots.add(TupleSlot(function, index))
                elif shape is WarningShape.LIST:
                    self.notes.list_slots.add(TupleSlot(function, index))
            elif index not in items and not is_empty(element.value):
                self.notes.text_slots.add(TupleSlot(function, index))

    def link_test_double(self, node: cst.Call) -> None:
        """``patch("pkg.mod.check", return_value=[...])`` / ``setattr(mod, "check", lambda
        *a: [...])``: a test double of a helper that returns warnings returns them too."""
        helper = doubled_helper(node)
        if helper is None or helper not in self.facts.returning:
            return
        single = self.facts.return_shape(helper) is WarningShape.ITEM
        for value in double_returns(node):
            into = (ReturnCarrier(helper),)
            if single:
                self.follow_candidate(into, value)
            else:
                self.follow_elements(into, value)


def doubled_helper(call: cst.Call) -> str | None:
    """The helper a test-double call stands in for: the last dotted part of its first
    string argument (``"pkg.mod.check"`` -> ``check``), if the call makes a double."""
    if last_name(call.func) not in TEST_DOUBLE_CALLS:
        return None
    names = [string_value(a.value) for a in call.args if isinstance(a.value, cst.SimpleString)]
    return next((n.rsplit(".", 1)[-1] for n in names if isinstance(n, str)), None)


def double_returns(call: cst.Call) -> Iterator[cst.BaseExpression]:
    """What a test double returns: its ``return_value=`` argument, or a lambda's body."""
    for arg in call.args:
        if isinstance(arg.value, cst.Lambda):
            yield arg.value.body
        elif arg.keyword is not None and arg.keyword.value == "return_value":
            yield arg.value
