"""A fast parent map for a LibCST tree, and the memo of what every pass over one tree shares.

LibCST's ``ParentNodeProvider`` walks the tree with the full visitor machinery and asks
every node for its children (a second, partial walk each time). Reading the dataclass
fields directly gives the same map about six times faster, and the parent map is built
for every parsed file, so this is on the hot path.

Positions are LibCST's ``PositionProvider``'s, computed one top-level statement at a time
(:class:`StatementPositions`): a file asks for the lines of a few sites, and the provider
generates the whole module's code with a position record around every node, several times
the cost of plain code generation (1.6 s against 0.18 s for a 10,000-line module).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import cast

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodeRange, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from unsentinel.core.batch import KINDS, NODE, SEQUENCE, child_kind, orders_readable, visit_order

_CHILD_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}


def _fields_of(node_type: type[cst.CSTNode]) -> tuple[str, ...]:
    """The fields that may hold children, in dataclass order: those LibCST's visit walks
    (the others hold strings, flags and sentinels, and were read for every node only to
    be skipped)."""
    names = _CHILD_FIELDS.get(node_type)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(node_type))
        if orders_readable():
            visited = set(visit_order(node_type))
            names = tuple(name for name in names if name in visited)
        _CHILD_FIELDS[node_type] = names
    return names


def parent_map(root: cst.CSTNode) -> dict[cst.CSTNode, cst.CSTNode]:
    """Every node below ``root`` mapped to its parent, in pre-order (source order)."""
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        children: list[cst.CSTNode] = []
        for name in _fields_of(type(node)):
            value = getattr(node, name)
            held = KINDS.get(type(value)) or child_kind(type(value))
            if held == NODE:
                children.append(value)
            elif held == SEQUENCE:
                children.extend(item for item in value if isinstance(item, cst.CSTNode))
        for child in children:
            parents[child] = node
        stack.extend(reversed(children))
    return parents


class TreeMemo:
    """What one parsed module's contexts share: its parent map and its positions.

    A file is analysed by every gather round and by the final pass, each time over the same
    (never mutated) module; resolving LibCST's positions costs about as much as parsing,
    so they are resolved once per module, on first use, and every later context reuses
    them. The keys are the module's own nodes: valid for any wrapper built without a copy.
    """

    def __init__(self) -> None:
        self._parents: Mapping[cst.CSTNode, cst.CSTNode] | None = None
        self._positions: StatementPositions | None = None

    def parents(self, module: cst.Module) -> Mapping[cst.CSTNode, cst.CSTNode]:
        if self._parents is None:
            self._parents = parent_map(module)
        return self._parents

    def position(self, module: cst.Module, node: cst.CSTNode) -> CodeRange:
        """LibCST's syntactic position of ``node``, a node of ``module``."""
        if self._positions is None:
            self._positions = StatementPositions(module)
        return self._positions.of(node, self.parents(module))


class StatementPositions:
    """LibCST's syntactic positions of one module, computed a top-level statement at a time.

    A top-level statement's code starts a line (column 0, no indentation), and the
    provider's record of each node depends only on the tokens from there: run on the
    statement alone from its first line, it gives every node inside the range it gives in
    the whole module. The first lines come from plain code generation (no position
    records) of the statements before it, as far as a question needs: a test module that
    is one class pays for its imports, not for the class twice. A node outside the body
    (the module, its header and footer comments) takes the whole module's positions.
    """

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.known: dict[cst.CSTNode, CodeRange] = {}
        self._body = set(module.body)
        self._lines: dict[cst.CSTNode, int] = {}
        self._reader = self._read_lines()
        self.statements = 0  # statements whose positions were computed (tests count them)

    def of(self, node: cst.CSTNode, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> CodeRange:
        found = self.known.get(node)
        if found is not None:
            return found
        top = self._statement_of(node, parents)
        if top is None:
            wrapper = cst.MetadataWrapper(self.module, unsafe_skip_copy=True)
            self.known.update(syntactic_positions(wrapper))
        else:
            self.known.update(self._positions_in(top))
        return self.known[node]

    def _statement_of(
        self, node: cst.CSTNode, parents: Mapping[cst.CSTNode, cst.CSTNode]
    ) -> cst.CSTNode | None:
        """The top-level statement holding ``node`` (None: outside the module's body)."""
        current, parent = node, parents.get(node)
        while parent is not None and parent is not self.module:
            current, parent = parent, parents.get(parent)
        return current if parent is self.module and current in self._body else None

    def _positions_in(self, statement: cst.CSTNode) -> Mapping[cst.CSTNode, CodeRange]:
        provider = PositionProvider()
        state = PositionProvidingCodegenState(
            default_indent=self.module.default_indent,
            default_newline=self.module.default_newline,
            provider=provider,
            line=self._first_line(statement),
        )
        statement._codegen(state)
        self.statements += 1
        return cast("Mapping[cst.CSTNode, CodeRange]", provider._computed)

    def _first_line(self, statement: cst.CSTNode) -> int:
        """Where ``statement``'s code starts: the statements before it are generated (plain
        code, no records) only as far as it, once for all the module's questions."""
        while statement not in self._lines:
            next(self._reader)
        return self._lines[statement]

    def _read_lines(self) -> Iterator[None]:
        module = self.module
        state = CodegenState(module.default_indent, module.default_newline)
        for line in module.header:
            line._codegen(state)
        first = 1 + _newlines(state.tokens)
        for statement in module.body:
            self._lines[statement] = first
            yield
            state.tokens.clear()  # only this statement's line breaks are counted
            statement._codegen(state)
            first += _newlines(state.tokens)


def _newlines(tokens: list[str]) -> int:
    """Line breaks in ``tokens`` as the position provider counts them, token by token:
    ``\r\n``, ``\r`` and ``\n`` each one."""
    return sum(t.count("\n") + t.count("\r") - t.count("\r\n") for t in tokens)


def syntactic_positions(wrapper: cst.MetadataWrapper) -> Mapping[cst.CSTNode, CodeRange]:
    """LibCST's ``PositionProvider`` for every node, without ``wrapper.resolve``'s extra walk.

    ``resolve`` also runs a batched visit over the whole tree for the batchable providers
    it was asked for -- even when there are none, as here: a quarter of the time positions
    took. The provider's own ``_gen`` is the codegen pass alone (tests compare both).
    """
    return cast("Mapping[cst.CSTNode, CodeRange]", PositionProvider()._gen(wrapper))
