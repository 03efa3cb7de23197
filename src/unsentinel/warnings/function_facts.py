"""What one function holds: its parameters, the loops over its inputs, its assignments.

Walked once per function, on demand (:meth:`FileAnalysis.function
<unsentinel.warnings.analysis.FileAnalysis.function>`): single-name assignments (so a name
can be followed to its value), ``a, b = ...`` unpackings (``asyncio.gather`` split into one
flow per coroutine), and the loops whose iterable is an input list (so a warning inside a
loop can name ``rows[{i}]``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import libcst as cst

from unsentinel.core.rule import RuleContext
from unsentinel.core.syntax import LocalBindings, NodeIndex, is_name, nodes_under

ContainerOf = Callable[[cst.BaseExpression, "FunctionFacts", cst.CSTNode], "str | None"]
"""The input field path an iterable denotes at a loop (None: not an input list)."""


@dataclass(frozen=True)
class Loop:
    """A ``for`` loop (or comprehension) whose iterable is an input list."""

    node: cst.CSTNode
    target: str  # the loop variable
    container: str  # field path of the iterable, e.g. "rows"
    index: str | None = None  # enumerate's index variable
    start: int = 0  # enumerate's start


@dataclass
class LeafTable:
    """A function's chains for :meth:`InputLeaves.known_leaves
    <unsentinel.warnings.input_leaves.InputLeaves.known_leaves>`, sorted out once.

    A chain rooted in an input or a container means the same field wherever the warning is
    (``static``: leaf -> path, and the chain's position); one rooted in a loop variable
    depends on whether the warning is inside that loop (``dynamic``: one chain per distinct
    text, at its last position, since chains with the same text resolve alike).
    """

    static_paths: dict[str, str]
    static_position: dict[str, int]
    dynamic: list[tuple[int, str, cst.BaseExpression]]


@dataclass(frozen=True)
class Binding:
    """One place a function gives a name a value, as a derivation reads it.

    ``value`` is None where the new value cannot be followed (``x += y``, a nested or
    starred unpacking); ``element``: the name holds one element of ``value`` (``a, b =
    resolve(x)``, ``for c in clauses``), so it stands for ``value`` as a whole, computed.
    """

    value: cst.BaseExpression | None
    element: bool = False


@dataclass
class FunctionFacts:
    node: cst.FunctionDef
    params: dict[str, cst.Param] = field(default_factory=dict)
    containers: set[str] = field(default_factory=set)
    inputs: set[str] = field(default_factory=set)  # plain-input parameter names
    # Parameters every caller in the file fills with a service's answer: state, taken out
    # of ``inputs`` and ``containers`` (``CallerNames.state_params``).
    stated: set[str] = field(default_factory=set)
    loops: list[Loop] = field(default_factory=list)
    assignments: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    tuple_assignments: list[tuple[cst.Tuple, cst.BaseExpression]] = field(default_factory=list)
    # Every binding of a name, for derived locals (``inference/derived.py``): unlike
    # ``assignments`` it holds unpackings, loop targets and ``:=`` for what they are.
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    chains: list[cst.BaseExpression] | None = None
    # Indexes over ``loops``, kept by ``add_loop``: a site finds its loop by walking up its
    # own ancestors, never by scanning every loop of the function (linear, not quadratic).
    loops_at: dict[cst.CSTNode, list[Loop]] = field(default_factory=dict)
    last_loop: dict[str, Loop] = field(default_factory=dict)
    leaf_table: LeafTable | None = None

    def add_loop(self, loop: Loop) -> None:
        self.loops.append(loop)
        self.loops_at.setdefault(loop.node, []).append(loop)
        self.last_loop[loop.target] = loop

    def single_assignment(self, name: str) -> cst.BaseExpression | None:
        """The value of ``name`` when the function assigns it exactly once."""
        values = self.assignments.get(name, [])
        return values[0] if len(values) == 1 else None

    def bind(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)


def collect_body(
    facts: FunctionFacts, index: NodeIndex, context: RuleContext, container_of: ContainerOf
) -> None:
    """Single-name assignments and loops over inputs, directly in one function."""
    for assignment in context.shared(LocalBindings).of(facts.node):
        name = assignment.name
        if not assignment.augmented:
            _record_target(facts, assignment.target, assignment.value)
        elif name is not None:
            facts.assignments.setdefault(name, []).append(assignment.value)
            facts.bind(name, Binding(None))  # ``x += y`` is not ``y``
    for walrus in index.within(cst.NamedExpr, facts.node):
        if isinstance(walrus.target, cst.Name):  # ``(license := project.get("license"))``
            facts.bind(walrus.target.value, Binding(walrus.value))
    loops: list[tuple[cst.CSTNode, cst.BaseAssignTargetExpression, cst.BaseExpression]] = []
    for loop in index.within(cst.For, facts.node):
        loops.append((loop, loop.target, loop.iter))
    for comp in index.within(cst.CompFor, facts.node):
        parent = context.parent(comp)
        loops.append((parent if parent is not None else comp, comp.target, comp.iter))
    # Outer loops first: an inner loop's iterable may be the outer loop's variable.
    loops.sort(key=lambda item: len(context.ancestors(item[0])))
    for node, target, iterable in loops:
        _record_loop(facts, node, target, iterable, container_of)
        _bind_loop_target(facts, target, iterable)


def _record_target(
    facts: FunctionFacts, target: cst.BaseExpression, value: cst.BaseExpression
) -> None:
    if isinstance(target, cst.Name):
        facts.assignments.setdefault(target.value, []).append(value)
        facts.bind(target.value, Binding(value))
    elif isinstance(target, cst.Tuple):
        value = value.expression if isinstance(value, cst.Await) else value
        pairs = gathered_pairs(target, value)
        if pairs is not None:  # each name holds what its own coroutine returns
            for element, awaited in pairs:
                _record_target(facts, element, awaited)
            return
        facts.tuple_assignments.append((target, value))
        for each in target.elements:
            if isinstance(each.value, cst.Name):  # no longer a single assignment
                facts.assignments.setdefault(each.value.value, []).extend([value, value])
        _bind_elements(facts, target, value)


def _bind_elements(facts: FunctionFacts, target: cst.Tuple, value: cst.BaseExpression) -> None:
    """``sku, issue = resolve(store, line.sku)``: each name holds one element of the value.
    A nested or starred part is not followed (which element it is, is not plain)."""
    for each in target.elements:
        if isinstance(each, cst.Element) and isinstance(each.value, cst.Name):
            facts.bind(each.value.value, Binding(value, element=True))
        else:
            for name in _names_in(each.value):
                facts.bind(name, Binding(None))


def _bind_loop_target(
    facts: FunctionFacts, target: cst.BaseExpression, iterable: cst.BaseExpression
) -> None:
    """A loop's names hold elements of what it walks; ``enumerate``'s index holds none."""
    if _calls(iterable, "enumerate") and isinstance(target, cst.Tuple):
        assert isinstance(iterable, cst.Call)
        first, *rest = target.elements
        for name in _names_in(first.value):
            facts.bind(name, Binding(None))
        if len(rest) == 1 and iterable.args:
            target, iterable = rest[0].value, iterable.args[0].value
        else:
            target = cst.Tuple(rest)
    if isinstance(target, cst.Name):
        facts.bind(target.value, Binding(iterable, element=True))
    elif isinstance(target, cst.Tuple):
        _bind_elements(facts, target, iterable)
    else:
        for name in _names_in(target):
            facts.bind(name, Binding(None))


def _names_in(target: cst.BaseExpression) -> list[str]:
    return [n.value for n in nodes_under(target, cst.Name)]


def gathered_pairs(
    target: cst.Tuple, value: cst.BaseExpression
) -> list[tuple[cst.BaseExpression, cst.BaseExpression]] | None:
    """``a, (v, w) = await asyncio.gather(f(), g())``: (``a``, ``f()``), (``(v, w)``, ``g()``).

    ``gather`` returns its coroutines' results in order, so each unpacked name is what its
    own coroutine returns: one flow per pair, as if ``a = await f()``. Not with starred
    parts, a count that does not match, or keywords (``return_exceptions=True`` puts
    exceptions among the values).
    """
    value = value.expression if isinstance(value, cst.Await) else value
    if not isinstance(value, cst.Call) or not _is_gather(value.func):
        return None
    elements, args = target.elements, value.args
    if any(isinstance(e, cst.StarredElement) for e in elements) or len(elements) != len(args):
        return None
    if any(a.star or a.keyword is not None for a in args):
        return None
    return [(e.value, a.value) for e, a in zip(elements, args, strict=True)]


def _is_gather(func: cst.BaseExpression) -> bool:
    """``asyncio.gather`` or a ``gather`` imported from it."""
    if isinstance(func, cst.Attribute):
        return (
            func.attr.value == "gather"
            and isinstance(func.value, cst.Name)
            and func.value.value == "asyncio"
        )
    return isinstance(func, cst.Name) and func.value == "gather"


def _record_loop(
    facts: FunctionFacts,
    node: cst.CSTNode,
    loop_target: cst.BaseAssignTargetExpression,
    iterable: cst.BaseExpression,
    container_of: ContainerOf,
) -> None:
    target: cst.BaseExpression = loop_target
    index_name: str | None = None
    start = 0
    if _calls(iterable, "enumerate"):
        assert isinstance(iterable, cst.Call)
        args = iterable.args
        if not args:
            return
        iterable = args[0].value
        start = _enumerate_start(args)
        if isinstance(target, cst.Tuple) and len(target.elements) == 2:
            first, second = (e.value for e in target.elements)
            if isinstance(first, cst.Name):
                index_name = first.value
            target = second
    names = _item_names(target, iterable) if index_name is None else None
    if names is None:
        if not isinstance(target, cst.Name):
            return
        names = [target.value]
    container = container_of(iterable, facts, node)
    if container is not None:
        for name in names:
            facts.add_loop(Loop(node, name, container, index_name, start))


def _item_names(target: cst.BaseExpression, iterable: cst.BaseExpression) -> list[str] | None:
    """``for key, value in entrypoints.items()``: both names stand for one entry of the
    input mapping (neither is an index a path could use). None for any other target."""
    is_items = (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Attribute)
        and iterable.func.attr.value == "items"
        and not iterable.args
    )
    if not (is_items and isinstance(target, cst.Tuple) and len(target.elements) == 2):
        return None
    names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
    return names if len(names) == 2 else None


def _enumerate_start(args: Sequence[cst.Arg]) -> int:
    for position, arg in enumerate(args):
        is_start = (arg.keyword is not None and arg.keyword.value == "start") or (
            arg.keyword is None and position == 1
        )
        if is_start and isinstance(arg.value, cst.Integer):
            return int(arg.value.evaluated_value)  # 0x1, 0o1 and 1_0 too
    return 0


def _calls(node: cst.BaseExpression, function: str) -> bool:
    """``enumerate(...)``: a call of the bare name ``function``."""
    return isinstance(node, cst.Call) and is_name(node.func, function)
