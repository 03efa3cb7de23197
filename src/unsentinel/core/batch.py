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

The walk itself is not LibCST's either, where no rule has an attribute hook. LibCST's
``visit`` rebuilds every node it passes (``_visit_and_replace_children`` constructs and
validates a copy, which a read-only visitor throws away): about a third of the rules' time
over the standard library. Here the same nodes are met in the same order -- the order in
which each class's ``_visit_and_replace_children`` visits its fields, read off LibCST's
own source (:func:`visit_order`), not the dataclass field order -- and nothing is built.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
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
        batch = _Batch(visitors)
        if batch.attribute_hooks or not orders_readable():
            wrapper.module.visit(batch)  # LibCST's own walk calls the attribute hooks
        else:
            batch.walk(wrapper.module)


def read(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """``node.visit(visitor)`` for a visitor that only reads: the same hooks in the same
    order (``visit_<Node>`` through ``on_visit``, whose False skips the children, then
    ``leave_<Node>``), with nothing rebuilt. LibCST's visit constructs and validates a
    copy of every node it passes, even for a visitor, which made the small visitors the
    rules run per site (an annotation's names, a condition's comparisons) cost more than
    the rest of their work. A visitor with an attribute hook (``visit_Call_func``) takes
    LibCST's own walk, as does a build whose visit order cannot be read."""
    if not orders_readable() or _attribute_hooks(type(visitor)):
        node.visit(visitor)
    else:
        _read(node, visitor)


def _read(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    if visitor.on_visit(node):
        for field in visit_order(type(node)):
            value = getattr(node, field)
            held = KINDS.get(type(value)) or child_kind(type(value))
            if held == NODE:
                _read(value, visitor)
            elif held == SEQUENCE:
                for child in value:
                    _read(child, visitor)
    visitor.on_leave(node)


def _attribute_hooks(kind: type[cst.CSTVisitor]) -> bool:
    """Does a visitor class (not LibCST's own, whose stubs do nothing) define a hook on a
    node's attribute? Read per call, not cached: the rules define their small visitors
    inside functions, a new class per call."""
    return any(
        name.startswith(("visit_", "leave_")) and name.count("_") > 1
        for cls in kind.__mro__
        if not cls.__module__.startswith("libcst")
        for name in vars(cls)
    )


@cache
def visit_order(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    """The fields LibCST's visit walks for a node of class ``kind``, in its order.

    Read off the class's ``_visit_and_replace_children``: each child is visited by a call
    ``visit_required(self, "field", ...)`` (or ``visit_optional``, ``visit_sequence``, ...)
    in the order the fields are written there; a field visited in either branch of a
    conditional is named twice and counted once.
    """
    source = textwrap.dedent(inspect.getsource(kind._visit_and_replace_children))
    found: list[tuple[int, int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id.startswith("visit_")
            and len(node.args) >= 2
        ):
            field = node.args[1]
            if isinstance(field, ast.Constant) and isinstance(field.value, str):
                found.append((node.lineno, node.col_offset, field.value))
    return tuple(dict.fromkeys(name for _line, _column, name in sorted(found)))


@cache
def orders_readable() -> bool:
    """Can :func:`visit_order` read LibCST's source? (a build without ``.py`` files cannot:
    LibCST's own walk is used then)"""
    try:
        return bool(visit_order(cst.Module))
    except (OSError, TypeError, SyntaxError):
        return False


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


NODE, SEQUENCE, OTHER = 1, 2, 3  # what a visited field holds (:func:`child_kind`)
KINDS: dict[type, int] = {}  # class -> its kind, as far as met (read it before the call)


def child_kind(kind: type) -> int:
    """What a value of class ``kind`` in a visited field is: a node, a sequence of nodes,
    or neither (None, ``MaybeSentinel``). Asked for every field of every node walked:
    ``isinstance(value, cst.CSTNode)`` goes through ``ABCMeta.__instancecheck__`` each
    time (a fifth of a walk's time), where the answer depends on the class alone."""
    found = KINDS.get(kind)
    if found is None:
        if issubclass(kind, cst.CSTNode):
            found = NODE
        elif issubclass(kind, (tuple, list)):
            found = SEQUENCE
        else:
            found = OTHER
        KINDS[kind] = found
    return found


_Plan = tuple[list[Hook], tuple[str, ...], list[Hook]]  # visit hooks, fields, leave hooks


class _Batch(cst.CSTVisitor):
    def __init__(self, visitors: Sequence[cst.BatchableCSTVisitor]) -> None:
        super().__init__()
        self._hooks: dict[str, list[Hook]] = {}
        for visitor in visitors:
            for name in hook_names(type(visitor)):
                self._hooks.setdefault(name, []).append(getattr(visitor, name))
        # A node's class name holds no underscore: ``visit_Call_func`` is an attribute hook.
        self.attribute_hooks = any(name.count("_") > 1 for name in self._hooks)
        self._visits = {n[6:]: h for n, h in self._hooks.items() if n.startswith("visit_")}
        self._leaves = {n[6:]: h for n, h in self._hooks.items() if n.startswith("leave_")}
        self._plans: dict[type[cst.CSTNode], _Plan] = {}

    def walk(self, node: cst.CSTNode) -> None:
        """LibCST's visit of ``node`` and its subtree, read-only: the hooks of each node,
        its children in :func:`visit_order`, then its leave hooks."""
        kind = type(node)
        plan = self._plans.get(kind)
        if plan is None:
            name = kind.__name__
            plan = (self._visits.get(name, []), visit_order(kind), self._leaves.get(name, []))
            self._plans[kind] = plan
        visits, order, leaves = plan
        for hook in visits:
            hook(node)
        for field in order:
            value = getattr(node, field)
            held = KINDS.get(type(value)) or child_kind(type(value))
            if held == NODE:
                self.walk(value)
            elif held == SEQUENCE:
                for child in value:
                    self.walk(child)
        for hook in leaves:
            hook(node)

    def on_visit(self, node: cst.CSTNode) -> bool:
        for hook in self._visits.get(type(node).__name__, ()):
            hook(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        for hook in self._leaves.get(type(original_node).__name__, ()):
            hook(original_node)

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if self.attribute_hooks:
            for hook in self._visits.get(f"{type(node).__name__}_{attribute}", ()):
                hook(node)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        if self.attribute_hooks:
            for hook in self._leaves.get(f"{type(original_node).__name__}_{attribute}", ()):
                hook(original_node)
