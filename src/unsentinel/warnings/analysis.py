"""Per-file facts the warning rules share: what is a warnings list, what is an input,
which local a name stands for, which condition guards a statement.

Computed lazily once per file (``context.shared(FileAnalysis)``) and read by every rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst
import libcst.matchers as m

from unsentinel.core.syntax import NodeIndex, annotation_name, dotted, last_name
from unsentinel.warnings.facts import WarningFacts
from unsentinel.warnings.inference.derived import derivation_sources
from unsentinel.warnings.settings import warning_settings

if TYPE_CHECKING:
    from unsentinel.core.rule import RuleContext

# Parameters that are plumbing, not user input.
NON_INPUT_PARAMS = frozenset(
    [
        "self",
        "cls",
        "client",
        "ctx",
        "context",
        "session",
        "db",
        "conn",
        "connection",
        "store",
        "logger",
        "log",
        "api",
        "repo",
        "repository",
        "settings",
        "config",
        "request_context",
    ]
)
NON_INPUT_TYPE_SUFFIXES = ("Client", "Store", "Session", "Logger", "Connection", "Context")
# Parameters whose attributes, not themselves, are the input fields.
CONTAINER_PARAM_NAMES = frozenset(
    [
        "request",
        "req",
        "params",
        "payload",
        "body",
        "args",
        "input",
        "data",
        "command",
        "cmd",
        "query",
        "form",
    ]
)
CONTAINER_TYPE_SUFFIXES = ("Request", "Params", "Input", "Payload", "Command", "Args", "Query")


@dataclass(frozen=True)
class Loop:
    """A ``for`` loop (or comprehension) whose iterable is an input list."""

    node: cst.CSTNode
    target: str  # the loop variable
    container: str  # field path of the iterable, e.g. "rows"
    index: str | None = None  # enumerate's index variable
    start: int = 0  # enumerate's start


@dataclass(frozen=True)
class _Path:
    path: str
    final: bool = False  # nothing more specific can be said (an item of an unindexed list)
    lost: bool = False  # a loop index would have made it precise
    computed: bool = False  # a call made the value from the input: no fields, no items


@dataclass
class FunctionFacts:
    node: cst.FunctionDef
    params: dict[str, cst.Param] = field(default_factory=dict)
    containers: set[str] = field(default_factory=set)
    inputs: set[str] = field(default_factory=set)  # plain-input parameter names
    loops: list[Loop] = field(default_factory=list)
    assignments: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    tuple_assignments: list[tuple[cst.Tuple, cst.BaseExpression]] = field(default_factory=list)
    chains: list[cst.BaseExpression] | None = None
    # Indexes over ``loops``, kept by ``add_loop``: a site finds its loop by walking up its
    # own ancestors, never by scanning every loop of the function (linear, not quadratic).
    loops_at: dict[cst.CSTNode, list[Loop]] = field(default_factory=dict)
    last_loop: dict[str, Loop] = field(default_factory=dict)
    leaf_table: _LeafTable | None = None

    def add_loop(self, loop: Loop) -> None:
        self.loops.append(loop)
        self.loops_at.setdefault(loop.node, []).append(loop)
        self.last_loop[loop.target] = loop


@dataclass
class _LeafTable:
    """A function's chains for :meth:`FileAnalysis.known_leaves`, sorted out once.

    A chain rooted in an input or a container means the same field wherever the warning is
    (``static``: leaf -> path, and the chain's position); one rooted in a loop variable
    depends on whether the warning is inside that loop (``dynamic``: one chain per distinct
    text, at its last position, since chains with the same text resolve alike).
    """

    static_paths: dict[str, str]
    static_position: dict[str, int]
    dynamic: list[tuple[int, str, cst.BaseExpression]]


class FileAnalysis:
    def __init__(self, context: RuleContext) -> None:
        self.context = context
        self.config = context.config
        self._functions: dict[cst.FunctionDef, FunctionFacts] = {}
        self._deriving: set[str] = set()
        self.index = context.shared(NodeIndex)

    # -- warnings lists ---------------------------------------------------------------
    def is_warning_list_name(self, name: str | None) -> bool:
        if not name:
            return False
        names = warning_settings(self.config).warning_list_names
        return name in names or any(name.endswith(f"_{n}") for n in names)

    def is_warning_list(self, expr: cst.BaseExpression) -> bool:
        return self.is_warning_list_name(last_name(expr))

    # -- functions and inputs ---------------------------------------------------------
    def enclosing_function(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        return self.index.owner_of(node)

    def function(self, node: cst.FunctionDef) -> FunctionFacts:
        if node not in self._functions:
            self._functions[node] = self._function_facts(node)
        return self._functions[node]

    def _function_facts(self, node: cst.FunctionDef) -> FunctionFacts:
        facts = FunctionFacts(node)
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            facts.params[param.name.value] = param
            kind = self._param_kind(param)
            if kind == "container":
                facts.containers.add(param.name.value)
            elif kind == "input":
                facts.inputs.add(param.name.value)
        collect_body(self, facts)
        return facts

    def _param_kind(self, param: cst.Param) -> str:
        name = param.name.value
        type_name = annotation_name(param.annotation)
        if name in NON_INPUT_PARAMS or type_name.endswith(NON_INPUT_TYPE_SUFFIXES):
            return "plumbing"
        model_fields = self.context.facts.get(WarningFacts).model_fields
        if name in CONTAINER_PARAM_NAMES or type_name.endswith(CONTAINER_TYPE_SUFFIXES):
            return "container"
        if type_name in model_fields:  # a model's fields are the inputs, not the model
            return "container"
        return "input"

    def input_path(
        self, expr: cst.BaseExpression, facts: FunctionFacts, site: cst.CSTNode
    ) -> tuple[str | None, bool]:
        """The field path ``expr`` denotes, and whether it lost a loop index it needed."""
        resolved = self._resolve(expr, facts, site)
        return (resolved.path, resolved.lost) if resolved else (None, False)

    def _resolve(
        self, expr: cst.BaseExpression, facts: FunctionFacts, site: cst.CSTNode
    ) -> _Path | None:
        if isinstance(expr, cst.Name):
            if expr.value in facts.inputs:
                return _Path(expr.value)
            loop = self._loop_for(expr.value, facts, site)
            if loop is not None:
                return self._indexed(loop, site)
            return self._derived(expr.value, facts, site)
        if isinstance(expr, cst.Attribute):
            base = expr.value
            if isinstance(base, cst.Name) and base.value in facts.containers:
                return _Path(expr.attr.value)
            inner = self._resolve(base, facts, site)
            if inner is not None and inner.computed:
                return None  # ``order = fetch(order_id)``: ``order.status`` is remote state
            if inner is None or inner.final:
                return inner  # ``row.sku`` where row has no index: the list is all we can name
            return _Path(f"{inner.path}.{expr.attr.value}")
        return None

    def _derived(self, name: str, facts: FunctionFacts, site: cst.CSTNode) -> _Path | None:
        """A local computed from exactly one input stands for it (``inference/derived.py``)."""
        value = self.single_assignment(name, facts)
        if value is None or name in self._deriving:
            return None
        self._deriving.add(name)  # ``x = f(x)``: never follow a name into itself
        try:
            found = [
                (self._resolve(source.expr, facts, site), source.computed)
                for source in derivation_sources(value)
            ]
        finally:
            self._deriving.discard(name)
        paths = [
            replace(path, computed=path.computed or by_call) for path, by_call in found if path
        ]
        return paths[0] if len({path.path for path in paths}) == 1 else None

    def _loop_for(self, name: str, facts: FunctionFacts, site: cst.CSTNode) -> Loop | None:
        """The innermost loop over ``name`` around ``site``, else the last loop over it."""
        current: cst.CSTNode | None = site
        while current is not None:
            for loop in reversed(facts.loops_at.get(current, ())):
                if loop.target == name:
                    return loop
            current = self.context.parent(current)
        return facts.last_loop.get(name)

    def _indexed(self, loop: Loop, site: cst.CSTNode) -> _Path:
        # The warning is made once per item only inside the loop (a ``for`` body or a
        # comprehension's element); a guard like ``Counter(r.id for r in rows)`` is not.
        if not self.is_inside(site, loop.node):
            return _Path(loop.container, final=True)
        if loop.index is None:
            return _Path(loop.container, final=True, lost=True)
        index = loop.index if loop.start == 0 else f"{loop.index} - {loop.start}"
        return _Path(f"{loop.container}[{{{index}}}]")

    def is_inside(self, node: cst.CSTNode, container: cst.CSTNode) -> bool:
        current: cst.CSTNode | None = node
        while current is not None:
            if current is container:
                return True
            current = self.context.parent(current)
        return False

    def input_references(
        self, expr: cst.CSTNode, facts: FunctionFacts, site: cst.CSTNode
    ) -> tuple[list[str], bool]:
        """Every input path referenced inside ``expr`` (outermost chains only), in order."""
        paths: list[str] = []
        lost_any = False
        for chain in _outer_chains(expr):
            path, lost = self.input_path(chain, facts, site)
            if path is not None:
                paths.append(path)
                lost_any = lost_any or lost
        return paths, lost_any

    def known_leaves(self, facts: FunctionFacts, site: cst.CSTNode) -> dict[str, str]:
        """Names a message may mention literally, mapped to the field path they denote."""
        leaves: dict[str, str] = {name: name for name in facts.inputs}
        for container in facts.containers:
            type_name = annotation_name(facts.params[container].annotation)
            for field_name in self.context.facts.get(WarningFacts).model_fields.get(type_name, ()):
                leaves.setdefault(field_name, field_name)
        table = self._leaf_table(facts)
        leaves.update(table.static_paths)
        for position, leaf, chain in table.dynamic:  # in order: the last chain wins
            path, _ = self.input_path(chain, facts, site)
            if path is not None and position > table.static_position.get(leaf, -1):
                leaves[leaf] = path
        return leaves

    def _leaf_table(self, facts: FunctionFacts) -> _LeafTable:
        if facts.leaf_table is None:
            static_paths: dict[str, str] = {}
            static_position: dict[str, int] = {}
            dynamic: dict[str, tuple[int, str, cst.BaseExpression]] = {}
            for position, chain in enumerate(self._chains_of(facts)):
                leaf = last_name(chain)
                if leaf is None:
                    continue
                root = _loop_root(chain, facts)
                if root is None:
                    path, _ = self.input_path(chain, facts, chain)
                    if path is not None:
                        static_paths[leaf] = path
                        static_position[leaf] = position
                    continue
                if root not in facts.last_loop:
                    continue  # a local no loop runs over: it names no input anywhere
                text = dotted(chain) or leaf
                dynamic.pop(text, None)  # keep insertion order = last position
                dynamic[text] = (position, leaf, chain)
            facts.leaf_table = _LeafTable(static_paths, static_position, list(dynamic.values()))
        return facts.leaf_table

    def _chains_of(self, facts: FunctionFacts) -> list[cst.BaseExpression]:
        """Outermost ``a.b.c`` chains and names directly in a function (cached)."""
        if facts.chains is None:
            attributes = [
                a
                for a in self.index.within(cst.Attribute, facts.node)
                if dotted(a) is not None and not isinstance(self.context.parent(a), cst.Attribute)
            ]
            names = [n for n in self.index.within(cst.Name, facts.node) if self._is_chain_name(n)]
            facts.chains = [*attributes, *names]
        return facts.chains

    def _is_chain_name(self, name: cst.Name) -> bool:
        parent = self.context.parent(name)
        if isinstance(parent, cst.Attribute):
            return False  # part of a longer chain (or an attribute name)
        if isinstance(parent, cst.Arg) and parent.keyword is name:
            return False
        return not (isinstance(parent, cst.Subscript) and parent.value is name)  # a record

    def guarding_condition(self, node: cst.CSTNode) -> cst.BaseExpression | None:
        """The test of the nearest ``if`` (in the same function) that ``node`` depends on."""
        previous: cst.CSTNode = node
        for ancestor in self.context.ancestors(node):
            if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef, cst.Module)):
                return None
            if isinstance(ancestor, (cst.If, cst.While)) and previous is not ancestor.test:
                return ancestor.test
            if isinstance(ancestor, cst.IfExp) and previous is not ancestor.test:
                return ancestor.test
            if (
                isinstance(ancestor, (cst.ListComp, cst.GeneratorExp, cst.SetComp))
                and previous is ancestor.elt
            ):
                conditions = _comprehension_conditions(ancestor.for_in)
                if conditions:
                    return (
                        conditions[0]
                        if len(conditions) == 1
                        else cst.BooleanOperation(conditions[0], cst.And(), conditions[1])
                    )
            previous = ancestor
        return None

    def single_assignment(self, name: str, facts: FunctionFacts) -> cst.BaseExpression | None:
        values = facts.assignments.get(name, [])
        return values[0] if len(values) == 1 else None

    def tuple_assignments(
        self, function: cst.FunctionDef
    ) -> list[tuple[cst.Tuple, cst.BaseExpression]]:
        """``a, b = value`` statements of a function (``await`` unwrapped)."""
        facts = self.function(function)
        return facts.tuple_assignments

    @cached_property
    def warning_class(self) -> str:
        return "StructuredWarning" if self.uses_builtin_warning else "Warning"

    def str_parameters(self, function_name: str) -> dict[str | int, str]:
        """Parameters annotated ``str`` of a function defined in this module, by index and name."""
        found: dict[str | int, str] = {}
        for node in self._module_functions().get(function_name, []):
            params = [*node.params.posonly_params, *node.params.params]
            for index, param in enumerate(params):
                if annotation_name(param.annotation) == "str":
                    found[index] = found[param.name.value] = param.name.value
            for param in node.params.kwonly_params:
                if annotation_name(param.annotation) == "str":
                    found[param.name.value] = param.name.value
        return found

    def _module_functions(self) -> dict[str, list[cst.FunctionDef]]:
        return self._functions_by_name

    @cached_property
    def _functions_by_name(self) -> dict[str, list[cst.FunctionDef]]:
        table: dict[str, list[cst.FunctionDef]] = {}
        for node in self.index.by_type.get(cst.FunctionDef, []):
            assert isinstance(node, cst.FunctionDef)
            table.setdefault(node.name.value, []).append(node)
        return table

    @cached_property
    def lines(self) -> list[str]:
        return self.context.text.splitlines()

    @cached_property
    def uses_builtin_warning(self) -> bool:
        """Does the module name the builtin ``Warning`` (``except Warning``, ``warn(m, Warning)``)?

        True when ``Warning`` appears and nothing imports that name.
        """
        return bool(re.search(r"\bWarning\b", self.context.text)) and not any(
            alias == "Warning" for alias in self._imported_names()
        )

    def _imported_names(self) -> Iterator[str]:
        for statement in self.context.module.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.ImportFrom) and not isinstance(
                        small.names, cst.ImportStar
                    ):
                        for alias in small.names:
                            yield alias.evaluated_alias or alias.evaluated_name

    @cached_property
    def module_string_constants(self) -> dict[str, str]:
        """Module-level ``NAME = "text"`` constants of this file."""
        constants: dict[str, str] = {}
        for statement in self.context.module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and isinstance(small.value, cst.SimpleString)
                ):
                    value = small.value.evaluated_value
                    if isinstance(value, str):
                        constants[small.targets[0].target.value] = value
        return constants


def _loop_root(expr: cst.BaseExpression, facts: FunctionFacts) -> str | None:
    """The name whose loop resolving ``expr`` asks about (see ``FileAnalysis._resolve``);
    None when the answer does not depend on where the warning is."""
    if isinstance(expr, cst.Name):
        return None if expr.value in facts.inputs else expr.value
    if isinstance(expr, cst.Attribute):
        base = expr.value
        if isinstance(base, cst.Name) and base.value in facts.containers:
            return None
        return _loop_root(base, facts)
    return None


def _outer_chains(node: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """Maximal ``a.b.c`` chains and bare names inside ``node``, in source order."""
    found: list[cst.BaseExpression] = []

    class _Chains(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            if dotted(attribute) is not None:
                found.append(attribute)
                return False
            return True

        def visit_Subscript(self, subscript: cst.Subscript) -> bool:
            # ``mo["order_no"]`` reads a record: the record is state, not an input value.
            if isinstance(subscript.value, cst.Name):
                for element in subscript.slice:
                    element.visit(self)
                return False
            return True

        def visit_Name(self, name: cst.Name) -> None:
            found.append(name)

        def visit_Call(self, call: cst.Call) -> bool:
            # A method is never a field path: ``url.split("/")`` shows ``url``, and
            # ``criteria.get("excludeChats")`` reads the field ``criteria.excludeChats``.
            if not isinstance(call.func, cst.Attribute):
                return True
            receiver, key = call.func.value, _get_key(call)
            if key is not None and dotted(receiver) is not None:
                found.append(cst.Attribute(value=receiver, attr=cst.Name(key)))
            else:
                receiver.visit(self)
            for arg in call.args:
                arg.visit(self)
            return False

        def visit_Arg(self, arg: cst.Arg) -> bool:
            if arg.keyword is not None:
                arg.value.visit(self)
                return False
            return True

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

    node.visit(_Chains())
    return iter(found)


def _get_key(call: cst.Call) -> str | None:
    """``"key"`` of ``x.get("key")`` / ``x.get("key", default)`` when it is an identifier."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "get" and call.args):
        return None
    first = call.args[0].value
    value = first.evaluated_value if isinstance(first, cst.SimpleString) else None
    return value if isinstance(value, str) and value.isidentifier() else None


def collect_body(analysis: FileAnalysis, facts: FunctionFacts) -> None:
    """Single-name assignments and loops over inputs, directly in one function."""
    index = analysis.index
    for assign in index.within(cst.Assign, facts.node):
        _record_assign(facts, assign)
    for annotated in index.within(cst.AnnAssign, facts.node):
        if isinstance(annotated.target, cst.Name) and annotated.value is not None:
            facts.assignments.setdefault(annotated.target.value, []).append(annotated.value)
    for augmented in index.within(cst.AugAssign, facts.node):
        if isinstance(augmented.target, cst.Name):
            facts.assignments.setdefault(augmented.target.value, []).append(augmented.value)
    loops: list[tuple[cst.CSTNode, cst.BaseAssignTargetExpression, cst.BaseExpression]] = []
    for loop in index.within(cst.For, facts.node):
        loops.append((loop, loop.target, loop.iter))
    for comp in index.within(cst.CompFor, facts.node):
        parent = analysis.context.parent(comp)
        loops.append((parent if parent is not None else comp, comp.target, comp.iter))
    # Outer loops first: an inner loop's iterable may be the outer loop's variable.
    loops.sort(key=lambda item: len(analysis.context.ancestors(item[0])))
    for node, target, iterable in loops:
        _record_loop(analysis, facts, node, target, iterable)


def _record_assign(facts: FunctionFacts, node: cst.Assign) -> None:
    for target in node.targets:
        _record_target(facts, target.target, node.value)


def _record_target(
    facts: FunctionFacts, target: cst.BaseExpression, value: cst.BaseExpression
) -> None:
    if isinstance(target, cst.Name):
        facts.assignments.setdefault(target.value, []).append(value)
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
    analysis: FileAnalysis,
    facts: FunctionFacts,
    node: cst.CSTNode,
    loop_target: cst.BaseAssignTargetExpression,
    iterable: cst.BaseExpression,
) -> None:
    target: cst.BaseExpression = loop_target
    index_name: str | None = None
    start = 0
    if m.matches(iterable, m.Call(func=m.Name("enumerate"))):
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
    if not isinstance(target, cst.Name):
        return
    resolved = analysis._resolve(iterable, facts, node)
    container = None if resolved is None or resolved.computed else resolved.path
    if container is not None:
        facts.add_loop(Loop(node, target.value, container, index_name, start))


def _comprehension_conditions(comp_for: cst.CompFor | None) -> list[cst.BaseExpression]:
    conditions: list[cst.BaseExpression] = []
    while comp_for is not None:
        conditions.extend(condition.test for condition in comp_for.ifs)
        comp_for = comp_for.inner_for_in
    return conditions


def _enumerate_start(args: Sequence[cst.Arg]) -> int:
    for position, arg in enumerate(args):
        is_start = (arg.keyword is not None and arg.keyword.value == "start") or (
            arg.keyword is None and position == 1
        )
        if is_start and isinstance(arg.value, cst.Integer):
            return int(arg.value.evaluated_value)  # 0x1, 0o1 and 1_0 too
    return 0
