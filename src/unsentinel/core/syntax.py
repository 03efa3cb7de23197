"""Small, feature-neutral questions about LibCST nodes: names, string keys, who owns what.

Both features ask them; a helper lives here once, under one name with one meaning.
"""

from __future__ import annotations

import re
from ast import literal_eval
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, TypeVar, cast

import libcst as cst

if TYPE_CHECKING:
    from unsentinel.core.rule import RuleContext

T = TypeVar("T", bound=cst.CSTNode)


def last_name(expr: cst.BaseExpression) -> str | None:
    """``warnings`` for ``warnings``, ``resp.warnings`` and ``self.result.warnings``."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return None


# Functions that run a coroutine and hand back its result: ``asyncio.run(get(...))``.
_COROUTINE_RUNNERS = frozenset({"run", "run_until_complete"})


def result_call(value: cst.BaseExpression) -> cst.BaseExpression:
    """The call whose result ``value`` is: ``await f(...)`` and ``asyncio.run(f(...))`` (or
    ``loop.run_until_complete(f(...))``) give ``f(...)``; anything else is itself."""
    if isinstance(value, cst.Await):
        return result_call(value.expression)
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in _COROUTINE_RUNNERS
        and (value.func.attr.value != "run" or is_name(value.func.value, "asyncio"))
        and len(value.args) == 1
        and isinstance(value.args[0].value, (cst.Call, cst.Await))
    ):
        return result_call(value.args[0].value)
    return value


def is_name(node: cst.CSTNode | None, *names: str) -> bool:
    """Is ``node`` the bare name ``x`` (one of ``names``)? What ``m.matches(node,
    m.Name("x"))`` answers, without importing ``libcst.matchers`` (half a second of every
    process that reaches LibCST, for a few such questions)."""
    return isinstance(node, cst.Name) and node.value in names


def nodes_under(node: cst.CSTNode, kind: type[T]) -> list[T]:
    """Every node of ``kind`` in ``node``'s subtree, ``node`` included, in source order
    (what ``m.findall(node, m.Kind())`` finds)."""
    found: list[T] = []
    todo = [node]
    while todo:
        current = todo.pop()
        if isinstance(current, kind):
            found.append(current)
        todo.extend(reversed(current.children))
    return found


def mentions_name(node: cst.CSTNode, name: str) -> bool:
    """Does ``name`` occur in ``node`` as a name (read, bound, declared, or an attribute's)?"""
    return any(each.value == name for each in nodes_under(node, cst.Name))


def is_none_test(target: cst.ComparisonTarget) -> bool:
    """``is None`` / ``is not None``, the comparison's right side."""
    return isinstance(target.operator, (cst.Is, cst.IsNot)) and is_name(target.comparator, "None")


def dotted(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = dotted(expr.value)
        return None if base is None else f"{base}.{expr.attr.value}"
    return None


def string_value(node: cst.SimpleString) -> str | bytes:
    """What a string literal evaluates to: LibCST's ``evaluated_value``, without its cost.

    ``evaluated_value`` compiles the token with :func:`ast.literal_eval`, and the rules ask
    for tens of thousands of strings in a large tree (every docstring, every dict key, in
    every pass). A token without a prefix and with nothing Python would translate (an
    escape, a carriage return) is the text between its quotes; the others are evaluated
    once per distinct token.
    """
    return _literal(node.value)


@lru_cache(maxsize=4096)
def _literal(token: str) -> str | bytes:
    quotes = 3 if token[:3] in ('"""', "'''") else 1
    if token[0] in "\"'" and not _TRANSLATED.search(token):
        return token[quotes:-quotes]
    value = literal_eval(token)
    assert isinstance(value, (str, bytes))
    return value


# What makes a token's value differ from its text: an escape, a newline Python translates
# (``\r``), what ``compile`` refuses (NUL, a lone surrogate).
_TRANSLATED = re.compile("[\\\\\r\x00\ud800-\udfff]")


def string_key(node: cst.Subscript) -> str | None:
    """``"warnings"`` for ``d["warnings"]``; None for any other subscript."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    value = node.slice[0].slice.value
    if isinstance(value, cst.SimpleString):
        text = string_value(value)
        return text if isinstance(text, str) else None
    return None


def annotation_name(annotation: cst.Annotation | None) -> str:
    if annotation is None:
        return ""
    node = annotation.annotation
    if isinstance(node, cst.Subscript):
        node = node.value
    return last_name(node) or ""


class NodeIndex:
    """Every node of a file by type and by the function that directly contains it.

    Built once from the parent map the rules already need, so no rule has to walk a
    function body again (LibCST traversals are the dominant cost of a run).
    """

    def __init__(self, context: RuleContext) -> None:
        self.parents: Mapping[cst.CSTNode, cst.CSTNode] = context.parents
        self.owner: dict[cst.CSTNode, cst.FunctionDef | None] = {}
        self.by_type: dict[type[cst.CSTNode], list[cst.CSTNode]] = {}
        self._by_owner: dict[
            type[cst.CSTNode], dict[cst.FunctionDef | None, list[cst.CSTNode]]
        ] = {}
        for node in self.parents:
            self.by_type.setdefault(type(node), []).append(node)

    def owner_of(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        """The innermost function whose body holds ``node`` (None at module level)."""
        if node in self.owner:
            return self.owner[node]
        chain = []
        current: cst.CSTNode | None = node
        found: cst.FunctionDef | None = None
        while current is not None:
            if current in self.owner:
                found = self.owner[current]
                break
            chain.append(current)
            parent = self.parents.get(current)
            if isinstance(parent, cst.FunctionDef):
                found = parent
                break
            current = parent
        for visited in chain:
            self.owner[visited] = found
        return found

    def within(self, kind: type[T], function: cst.FunctionDef | None) -> list[T]:
        """Nodes of ``kind`` directly inside ``function`` (nested functions excluded)."""
        grouped = self._by_owner.get(kind)
        if grouped is None:  # one pass per node type, then a lookup per call
            grouped = {}
            for node in self.by_type.get(kind, []):
                grouped.setdefault(self.owner_of(node), []).append(node)
            self._by_owner[kind] = grouped
        return cast("list[T]", list(grouped.get(function, [])))  # grouped by ``kind`` above


_ASSIGNMENT_KINDS: tuple[type[cst.Assign | cst.AnnAssign | cst.AugAssign], ...] = (
    cst.Assign,
    cst.AnnAssign,
    cst.AugAssign,
)


@dataclass(frozen=True)
class Assignment:
    """One target of an assignment statement and the value it is given.

    ``x = y = v`` is two (one per target); an annotation without a value (``x: int``) binds
    nothing and is none. What the value *means* for a local (text, a call's result, an input
    field) is each feature's own judgement; this only says what was written where.
    """

    statement: cst.Assign | cst.AnnAssign | cst.AugAssign
    target: cst.BaseExpression
    value: cst.BaseExpression

    @property
    def augmented(self) -> bool:
        """``x += v``: the new value combines the old one with ``value``; it is not ``value``."""
        return isinstance(self.statement, cst.AugAssign)

    @property
    def name(self) -> str | None:
        """The local a plain ``name = ...`` binds; None for an unpacking, an attribute or a
        subscript."""
        return self.target.value if isinstance(self.target, cst.Name) else None

    @property
    def names(self) -> list[str]:
        """Every local the target binds (``a, (b, *c) = ...``: a, b and c)."""
        return bound_names(self.target)


def bound_names(target: cst.BaseExpression) -> list[str]:
    """The local names a binding target binds: ``x``; ``a, (b, *c)`` -> a, b, c. An attribute
    or a subscript (``self.x``, ``d[k]``, also inside an unpacking) binds no local."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in bound_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return bound_names(target.value)
    return []


class LocalBindings:
    """Every assignment directly in a function (nested functions excluded), in source order.

    Several analyses ask what a function's locals were assigned -- the warnings' derived
    locals, the error dicts' text locals and returned calls -- and each used to walk the
    three statement kinds itself, each slightly differently. They read this one index and
    keep only their own judgement of the values. Built per function on first use from the
    file's :class:`NodeIndex`, so no function body is walked again.
    """

    def __init__(self, context: RuleContext) -> None:
        self.index = context.shared(NodeIndex)  # the file's, for the nodes beside assignments
        self._found: dict[cst.FunctionDef | None, tuple[Assignment, ...]] = {}
        self._order: dict[cst.CSTNode, int] | None = None

    def of(self, function: cst.FunctionDef | None) -> tuple[Assignment, ...]:
        """The assignments of ``function`` (None: module level), in source order."""
        found = self._found.get(function)
        if found is None:
            found = self._found[function] = tuple(
                assignment
                for statement in self._statements(function)
                for assignment in _assignments(statement)
            )
        return found

    def _statements(
        self, function: cst.FunctionDef | None
    ) -> list[cst.Assign | cst.AnnAssign | cst.AugAssign]:
        by_kind = [self.index.within(kind, function) for kind in _ASSIGNMENT_KINDS]
        statements = [statement for each in by_kind for statement in each]
        if sum(1 for each in by_kind if each) > 1:  # each kind is in order; merge them
            statements.sort(key=self._position)
        return statements

    def _position(self, node: cst.CSTNode) -> int:
        """A statement's place in the file: the parent map is in source order. Counted once
        per file, and only where a function mixes statement kinds."""
        if self._order is None:
            # ``type(...) in`` a set, not ``isinstance``: LibCST's node classes are ABCs, and
            # an ``isinstance`` through ``ABCMeta`` for every node of the file was most of
            # this step's time (the three kinds have no subclasses).
            kinds = frozenset(_ASSIGNMENT_KINDS)
            self._order = {
                each: place for place, each in enumerate(self.index.parents) if type(each) in kinds
            }
        return self._order[node]


def _assignments(statement: cst.Assign | cst.AnnAssign | cst.AugAssign) -> list[Assignment]:
    if isinstance(statement, cst.Assign):
        return [Assignment(statement, each.target, statement.value) for each in statement.targets]
    if statement.value is None:  # ``x: int``, declared only
        return []
    return [Assignment(statement, statement.target, statement.value)]
