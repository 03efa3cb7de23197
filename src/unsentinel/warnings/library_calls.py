"""Calls into code the repository does not define: a warning passed there stays text.

``Badge(label=w, variant="secondary")`` where ``Badge`` comes from a UI library, or
``log.info(w)``: the callee was written for the text the warning used to be, and nothing
we migrate changes its contract. So the call gets ``w.message`` (a dumped warning's
``w["message"]``), the one reading that keeps the callee's input what it was.

A callee counts as library code only on evidence: a bare name must be imported (or be
``print``) and an attribute's method must be defined nowhere in the repository
(:class:`~unsentinel.core.defined.DefinedNames`, a fact of the whole run). Calls that keep
or inspect a value rather than show it (containers, copies, ``isinstance``) and test
assertions are not library text sinks: they are left to the other rules.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from unsentinel.core.defined import DefinedNames
from unsentinel.core.syntax import last_name

if TYPE_CHECKING:
    from unsentinel.core.rule import RuleContext
    from unsentinel.core.syntax import NodeIndex

# Calls that hold, copy, order or inspect a value: the value keeps its type there.
_KEEPS_VALUE = frozenset(
    {
        # containers and their methods
        *("append", "extend", "insert", "add", "update", "setdefault", "remove", "discard"),
        *("index", "count", "get", "pop", "put", "put_nowait", "appendleft", "extendleft"),
        *("heappush", "heappushpop", "insort", "insort_left", "insort_right", "send"),
        *("list", "tuple", "set", "frozenset", "dict", "deque", "defaultdict", "Counter"),
        *("OrderedDict", "sorted", "reversed", "iter", "next", "enumerate", "zip", "map"),
        *("filter", "any", "all", "min", "max", "sum", "chain", "gather", "partial"),
        # identity, inspection, conversion
        *("id", "hash", "type", "repr", "vars", "dir", "getattr", "setattr", "hasattr"),
        *("delattr", "isinstance", "issubclass", "callable", "len", "str", "bool", "cast"),
        *("copy", "deepcopy", "replace", "asdict", "astuple", "model_dump", "model_copy"),
        *("model_validate", "model_construct", "parse_obj", "validate"),
        # scheduling: the callee is handed on, not shown
        *("submit", "create_task", "run_in_executor", "call_soon", "apply_async"),
        "set_result",
        "call",  # unittest.mock.call(w): compared with the recorded call's arguments
    }
)
_TEXT_BUILTINS = frozenset({"print"})


class LibraryCalls:
    """Which calls of one file go to library code that takes text."""

    def __init__(self, context: RuleContext, index: NodeIndex) -> None:
        self.context = context
        self.index = index

    def takes_text(self, call: cst.Call) -> bool:
        """Is ``call`` a call into library code (whose arguments stay text)?"""
        defined = self._defined
        if defined is None:
            return False  # the repository's names are not known yet (a first gather round)
        callee = last_name(call.func)
        if callee is None or callee in _KEEPS_VALUE or callee.startswith("assert"):
            return False
        if defined.defines(callee):
            return False
        if isinstance(call.func, cst.Name):
            return callee in _TEXT_BUILTINS or callee in self._imported
        return isinstance(call.func, cst.Attribute)

    @cached_property
    def _defined(self) -> DefinedNames | None:
        facts = self.context.facts
        return facts.get(DefinedNames) if facts.gathered else None

    @cached_property
    def _imported(self) -> frozenset[str]:
        """Every name an import statement of the module binds (at any depth)."""
        names: set[str] = set()
        for kind in (cst.Import, cst.ImportFrom):
            for node in self.index.by_type.get(kind, []):
                assert isinstance(node, (cst.Import, cst.ImportFrom))
                if isinstance(node.names, cst.ImportStar):
                    continue
                for alias in node.names:
                    bound = alias.evaluated_alias or alias.evaluated_name.split(".")[0]
                    names.add(bound)
        return frozenset(names)
