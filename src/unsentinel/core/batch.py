"""One traversal for every rule, as LibCST's batched visit does, with the dispatch built once
per rule class instead of once per file.

LibCST's ``visit_batched`` asks each visitor for its hooks with ``inspect.getmembers`` on
every call, and looks up an attribute hook (``visit_Call_func``) for every child of every
node. Over the standard library that was a fifth of ``check``'s time: 4,400 calls to
``getmembers`` and 21 million attribute look-ups, for rules that define no attribute hook.
Here the hook names of a rule class are read once; a node's hooks are one dictionary
look-up by its type; attribute hooks are looked up only when some rule defines one.

The semantics are LibCST's: every rule's ``visit_<Node>`` runs before the node's children
(in the order of the rules), its return value is ignored (a batched visit cannot prune the
walk), and the ``leave_<Node>`` hooks run after them in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import ExitStack
from functools import cache

import libcst as cst

Hook = Callable[[cst.CSTNode], object]


def visit_batched(
    wrapper: cst.MetadataWrapper, visitors: Sequence[cst.BatchableCSTVisitor]
) -> None:
    """Resolve every visitor's metadata, then walk ``wrapper.module`` once with all of them."""
    with ExitStack() as stack:
        for visitor in visitors:
            stack.enter_context(visitor.resolve(wrapper))
        wrapper.module.visit(_Batch(visitors))


@cache
def hook_names(kind: type[cst.BatchableCSTVisitor]) -> tuple[str, ...]:
    """The ``visit_*`` / ``leave_*`` methods a visitor class defines (LibCST's empty stubs,
    marked ``_is_no_op``, excluded)."""
    return tuple(
        name
        for name in dir(kind)
        if name.startswith(("visit_", "leave_"))
        and callable(getattr(kind, name))
        and not getattr(getattr(kind, name), "_is_no_op", False)
    )


class _Batch(cst.CSTVisitor):
    def __init__(self, visitors: Sequence[cst.BatchableCSTVisitor]) -> None:
        super().__init__()
        self._hooks: dict[str, list[Hook]] = {}
        for visitor in visitors:
            for name in hook_names(type(visitor)):
                self._hooks.setdefault(name, []).append(getattr(visitor, name))
        # A node's class name holds no underscore: ``visit_Call_func`` is an attribute hook.
        self._attribute_hooks = any(name.count("_") > 1 for name in self._hooks)
        self._visits = {n[6:]: h for n, h in self._hooks.items() if n.startswith("visit_")}
        self._leaves = {n[6:]: h for n, h in self._hooks.items() if n.startswith("leave_")}

    def on_visit(self, node: cst.CSTNode) -> bool:
        for hook in self._visits.get(type(node).__name__, ()):
            hook(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        for hook in self._leaves.get(type(original_node).__name__, ()):
            hook(original_node)

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if self._attribute_hooks:
            for hook in self._visits.get(f"{type(node).__name__}_{attribute}", ()):
                hook(node)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        if self._attribute_hooks:
            for hook in self._leaves.get(f"{type(original_node).__name__}_{attribute}", ()):
                hook(original_node)
