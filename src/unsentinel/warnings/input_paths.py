"""Which input field an expression denotes: ``request.sku``, ``rows[{i}]``, ``note_id``.

A warning's ``field_path`` names the input it is about. Parameters are sorted into inputs,
containers of inputs (``request``, a model) and plumbing (``self``, ``db``); an expression
is then followed through containers, loops over input lists (with their ``enumerate``
index) and locals derived from one input. Which of those fields a message's own words
name is ``input_leaves.py``'s question.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import libcst as cst

from unsentinel.core.rule import RuleContext
from unsentinel.core.syntax import NodeIndex, annotation_name, last_name, nodes_under
from unsentinel.warnings.facts import WarningFacts
from unsentinel.warnings.function_facts import Binding, FunctionFacts, Loop
from unsentinel.warnings.inference.derived import derivation_sources, element_sources
from unsentinel.warnings.input_leaves import get_key, outer_chains
from unsentinel.warnings.loop_index import LoopIndexes

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
# Methods that return a view of a mapping's own contents, not a computed value.
_CONTENT_VIEWS = frozenset(["items", "values", "keys"])
CONTAINER_TYPE_SUFFIXES = ("Request", "Params", "Input", "Payload", "Command", "Args", "Query")


@dataclass(frozen=True)
class _Path:
    path: str
    final: bool = False  # nothing more specific can be said (an item of an unindexed list)
    lost: bool = False  # a loop index would have made it precise
    computed: bool = False  # a call made the value from the input: no fields, no items
    element: bool = False  # one element of such a value (``a, b = f(x)``, ``for c in f(x)``)


class InputPaths:
    """Resolves expressions of one file to the input field paths they denote."""

    def __init__(self, context: RuleContext, index: NodeIndex) -> None:
        self.context = context
        self.index = index
        self._deriving: set[str] = set()
        self.loop_indexes = LoopIndexes(index)
        self._declared: frozenset[str] | None = None

    def param_kind(self, param: cst.Param) -> str:
        """``"plumbing"``, ``"container"`` (its attributes are the inputs) or ``"input"``."""
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

    def iterated_list(self, param: cst.Param, function: cst.FunctionDef) -> bool:
        """Is the parameter, named like a request (``data``) but not typed as a model or a
        request, a list the function walks (``for value in data:``)? A request is read by
        its fields, never walked: a parameter walked item by item is a list of inputs,
        each ``data[{i}]``."""
        name = param.name.value
        type_name = annotation_name(param.annotation)
        model_fields = self.context.facts.get(WarningFacts).model_fields
        if type_name.endswith(CONTAINER_TYPE_SUFFIXES) or type_name in model_fields:
            return False
        for loop in self.index.within(cst.For, function):
            walked = loop.iter
            if isinstance(walked, cst.Call) and last_name(walked.func) == "enumerate":
                walked = walked.args[0].value if walked.args else walked
            if isinstance(walked, cst.Name) and walked.value == name:
                return True
        return False

    def read_by_key(self, name: str, function: cst.FunctionDef) -> bool:
        """Does ``function`` read its parameter ``name`` by key (``name.get("field")``)?
        Then the parameter is a mapping of inputs, as a request is: its keys are the
        fields a message names (``requires_dist``), not the parameter itself."""
        for call in self.index.within(cst.Call, function):
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == name
                and get_key(call) is not None
            ):
                return True
        return False

    def loop_container(
        self, iterable: cst.BaseExpression, facts: FunctionFacts, node: cst.CSTNode
    ) -> str | None:
        """The input list a loop at ``node`` walks (None: not one, or computed from one)."""
        resolved = self._resolve(iterable, facts, node)
        return None if resolved is None or resolved.computed else resolved.path

    def input_path(
        self, expr: cst.BaseExpression, facts: FunctionFacts, site: cst.CSTNode
    ) -> tuple[str | None, bool]:
        """The field path ``expr`` denotes, and whether it lost a loop index it needed."""
        resolved = self._resolve(expr, facts, site)
        return (resolved.path, resolved.lost) if resolved else (None, False)

    def caller_path(
        self, expr: cst.BaseExpression, facts: FunctionFacts, site: cst.CSTNode
    ) -> str | None:
        """The input field a call at ``site`` hands a helper as ``expr``: a request's field
        itself (``request.rows or []``) or a parameter, not a value computed from it, one
        item of it (the helper cannot say which), or a part of a plain input
        (``config_info.entrypoints``: the helper's ``entrypoints`` is the better name)."""
        resolved = self._resolve(expr, facts, site)
        if resolved is None or resolved.computed or resolved.element or resolved.final:
            return None
        return None if "[" in resolved.path or "." in resolved.path else resolved.path

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
                if self._computed_on_a_model(base.value, expr.attr.value, facts):
                    return None
                return _Path(expr.attr.value)
            inner = self._resolve(base, facts, site)
            if inner is not None and inner.computed:
                return None  # ``order = fetch(order_id)``: ``order.status`` is remote state
            if inner is None or inner.final:
                return inner  # ``row.sku`` where row has no index: the list is all we can name
            return _Path(f"{inner.path}.{expr.attr.value}", lost=inner.lost)
        if isinstance(expr, cst.Call):
            return self._resolve_read(expr, facts, site)
        if isinstance(expr, cst.BooleanOperation) and isinstance(expr.operator, cst.Or):
            return self._resolve(expr.left, facts, site)  # ``(fields or {})``: the input
        return None

    def _computed_on_a_model(self, container: str, attribute: str, facts: FunctionFacts) -> bool:
        """Is ``attribute`` of a parameter typed with a model of the repository something the
        model computes (a property, ``summary.all_paths``) rather than one of its fields?
        No model declares it as a field: which field it is computed from is unknown, and a
        value the code computed is no input the caller set."""
        model_fields = self.context.facts.get(WarningFacts).model_fields
        param = facts.params.get(container)
        type_name = annotation_name(param.annotation) if param is not None else ""
        if type_name not in model_fields:
            return False
        return attribute not in self._declared_fields(model_fields)

    def _declared_fields(self, model_fields: Mapping[str, tuple[str, ...]]) -> frozenset[str]:
        """Every field name some model of the repository declares (a subclass's fields may
        be its base's: any declaration counts)."""
        if self._declared is None:
            self._declared = frozenset(name for names in model_fields.values() for name in names)
        return self._declared

    def _resolve_read(
        self, call: cst.Call, facts: FunctionFacts, site: cst.CSTNode
    ) -> _Path | None:
        """A read that hands out the input's own contents: ``metadata.get("requires_dist",
        [])`` is the field ``requires_dist`` (as in a message), and ``entrypoints.items()``
        / ``.values()`` / ``.keys()`` walk ``entrypoints`` itself -- a loop over either is
        a loop over the input. Any other call computes a new value (no path)."""
        func = call.func
        if not isinstance(func, cst.Attribute):
            return None
        if func.attr.value in _CONTENT_VIEWS and not call.args:
            return self._resolve(func.value, facts, site)
        key = get_key(call)
        if key is None:
            return None
        return self._resolve(cst.Attribute(value=func.value, attr=cst.Name(key)), facts, site)

    def _derived(self, name: str, facts: FunctionFacts, site: cst.CSTNode) -> _Path | None:
        """A local computed from exactly one input stands for it (``inference/derived.py``).

        Every binding of the name must agree: ``name, url = prurl.split(",", 1)`` then
        ``url = url.lstrip()`` is still ``prurl``'s (a binding from the name itself, or a
        literal default, says nothing new); a binding that cannot be followed (``x += y``)
        or that names another input leaves the name unresolved."""
        bindings = facts.bindings.get(name, [])
        if not bindings or name in self._deriving:
            return None
        self._deriving.add(name)  # ``x = f(x)``: never follow a name into itself
        try:
            found = [self._binding_paths(name, binding, facts, site) for binding in bindings]
        finally:
            self._deriving.discard(name)
        if any(paths is None for paths in found):
            return None
        paths = [path for each in found if each for path in each]
        if len({path.path for path in paths}) != 1:
            return None
        return replace(
            paths[0],
            computed=any(path.computed for path in paths),
            element=any(path.element for path in paths),
        )

    def _binding_paths(
        self, name: str, binding: Binding, facts: FunctionFacts, site: cst.CSTNode
    ) -> list[_Path] | None:
        """The input paths one binding derives ``name`` from; [] when it says nothing new
        (a literal default, the name itself), None when it breaks the derivation."""
        value = binding.value
        if value is None:
            return None
        if _is_literal(value):
            return []
        if _asks_plumbing(value, facts):
            return None  # ``client.stock_on_hand(location_id)``: the answer is the service's
        sources = element_sources(value) if binding.element else derivation_sources(value)
        others = [s for s in sources if not (isinstance(s.expr, cst.Name) and s.expr.value == name)]
        if sources and not others:
            return []  # ``url = url.lstrip()``: what ``url`` was, it still is
        found = [(self._resolve(s.expr, facts, site), s.computed) for s in others]
        paths = [
            replace(
                path, computed=path.computed or by_call, element=path.element or binding.element
            )
            for path, by_call in found
            if path
        ]
        return paths or None  # a value from no input at all: the name is not the input's

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
        if not self._is_inside(site, loop.node):
            return _Path(loop.container, final=True)
        if loop.index is None:
            fresh = self.loop_indexes.fresh_index(loop.node, loop.target)
            if fresh is None:
                return _Path(loop.container, final=True, lost=True)
            # The rewrite enumerates the loop; the index is its own, so a reviewer looks.
            return _Path(f"{loop.container}[{{{fresh}}}]", lost=True)
        index = loop.index if loop.start == 0 else f"{loop.index} - {loop.start}"
        return _Path(f"{loop.container}[{{{index}}}]")

    def _is_inside(self, node: cst.CSTNode, container: cst.CSTNode) -> bool:
        current: cst.CSTNode | None = node
        while current is not None:
            if current is container:
                return True
            current = self.context.parent(current)
        return False

    def from_outside(self, value: cst.BaseExpression, facts: FunctionFacts) -> bool:
        """Is ``value`` the outside's state (a service's answer, or read off one)?"""
        return _from_outside(value, facts)

    def input_references(
        self,
        expr: cst.CSTNode,
        facts: FunctionFacts,
        site: cst.CSTNode,
        *,
        whole: bool = False,
    ) -> tuple[list[str], bool]:
        """Every input path referenced inside ``expr`` (outermost chains only), in order.
        ``whole``: not through one element of a value a call made from an input -- ``value``
        of ``for key, value in (fields or {}).items()`` may be anything the call hands out,
        where ``(language or "").strip()`` is still the language."""
        paths: list[str] = []
        lost_any = False
        for chain in outer_chains(expr):
            resolved = self._resolve(chain, facts, site)
            if resolved is not None and not (whole and resolved.element):
                paths.append(resolved.path)
                lost_any = lost_any or resolved.lost
        return paths, lost_any


def _from_outside(
    value: cst.BaseExpression, facts: FunctionFacts, seen: frozenset[str] = frozenset()
) -> bool:
    """Did ``value`` come back from outside the program, or is it read off what did?

    An awaited call (``so = await api.get_order(id=request.order_id)``) or a call on
    plumbing answers with the service's state; so does a value read off it (``so.rows``,
    ``so["rows"]``), a local every binding of which is such a value, and a call made from
    one without any input (``unwrap(so.order_no, "?")``). A parameter of the function is
    not: it is the caller's to say; nor is what a method of ``self`` hands back when
    awaited (``await self._validated(request.rows)``): the object's own code."""
    if isinstance(value, cst.Await):
        awaited = value.expression
        if isinstance(awaited, cst.Call) and not _own_method(awaited):
            return True
        return _from_outside(awaited, facts, seen)
    if _asks_plumbing(value, facts):
        return True
    if isinstance(value, cst.Name):
        return _local_from_outside(value.value, facts, seen)
    if isinstance(value, (cst.Attribute, cst.Subscript)):
        return _from_outside(value.value, facts, seen)
    if isinstance(value, cst.BooleanOperation):
        return _from_outside(value.left, facts, seen)
    sources = [source.expr for source in derivation_sources(value)]
    if isinstance(value, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        sources = [value.for_in.iter]
    outside = [_from_outside(source, facts, seen) for source in sources]
    return any(outside) and not any(
        _names_an_input(source, facts)
        for source, away in zip(sources, outside, strict=True)
        if not away
    )


def _own_method(call: cst.Call) -> bool:
    """``self._validated(...)``, ``cls.build(...)``: a method of the object itself."""
    func = call.func
    return (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value in ("self", "cls")
    )


def _local_from_outside(name: str, facts: FunctionFacts, seen: frozenset[str]) -> bool:
    if name in facts.params or name in seen:
        return False
    values = [binding.value for binding in facts.bindings.get(name, [])]
    if not values or any(value is None for value in values):
        return False
    followed = [value for value in values if value is not None and not _is_literal(value)]
    return bool(followed) and all(_from_outside(value, facts, seen | {name}) for value in followed)


def _names_an_input(expr: cst.BaseExpression, facts: FunctionFacts) -> bool:
    """Does ``expr`` read a parameter that is an input or a container of inputs?"""
    names = [node.value for node in nodes_under(expr, cst.Name)]
    return any(name in facts.inputs or name in facts.containers for name in names)


def _asks_plumbing(value: cst.BaseExpression, facts: FunctionFacts) -> bool:
    """A call on plumbing (``client.get_location(location_id)``, ``self.store.get(sku)``):
    what it returns is the outside's state, asked about the input, not the input itself.
    A method of ``self`` itself (``self._normalize(x)``) is the function's own code."""
    value = value.expression if isinstance(value, cst.Await) else value
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
        return False
    receiver = value.func.value
    while isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Attribute):
        receiver = receiver.value
    if isinstance(receiver, cst.Attribute):  # ``self.client``: an attribute of the object
        return isinstance(receiver.value, cst.Name) and receiver.value.value in ("self", "cls")
    if not isinstance(receiver, cst.Name) or receiver.value in ("self", "cls"):
        return False
    name = receiver.value
    return name in facts.params and name not in facts.inputs and name not in facts.containers


def _is_literal(value: cst.BaseExpression) -> bool:
    """A constant a name is defaulted to (``kind = "card"``, ``limit = None``)."""
    if isinstance(value, cst.Name):
        return value.value in ("None", "True", "False")
    return isinstance(value, (cst.SimpleString, cst.Integer, cst.Float, cst.ConcatenatedString))
