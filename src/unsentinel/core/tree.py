"""A fast parent map for a LibCST tree, and the memo of what every pass over one tree shares.

LibCST's ``ParentNodeProvider`` walks the tree with the full visitor machinery and asks
every node for its children (a second, partial walk each time). Reading the dataclass
fields directly gives the same map about six times faster, and the parent map is built
for every parsed file, so this is on the hot path.

Positions are LibCST's ``PositionProvider``'s, computed one statement at a time
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


_BODIES = (cst.Module, cst.IndentedBlock)  # what holds statements a line each


class StatementPositions:
    """LibCST's syntactic positions of one module, computed a statement at a time.

    A statement's code starts a line, after the indentation of the blocks around it, and
    the provider's record of each node depends only on the tokens from there: run on the
    innermost statement holding a node, from that statement's first line and with the
    blocks' indentation, it gives every node inside the range it gives in the whole
    module. The first lines and the indentation come from plain code generation (no
    position records, a quarter of the cost) of the top-level statements, as far as a
    question needs: a test module that is one class pays for its imports, not for the
    class twice, and a node deep in a 10,000-line class costs the class's plain code and
    its own statement's records, not the records of the whole class. A node outside the
    body (the module, its header and footer comments) takes the whole module's positions.
    """

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.known: dict[cst.CSTNode, CodeRange] = {}
        self._body = set(module.body)
        # each statement's first line and the indentation its code starts with
        self._starts: dict[cst.CSTNode, tuple[int, tuple[str, ...]]] = {}
        self._reader = self._read_lines()
        self.statements = 0  # statements whose positions were computed (tests count them)

    def of(self, node: cst.CSTNode, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> CodeRange:
        found = self.known.get(node)
        if found is not None:
            return found
        path = self._statements_around(node, parents)
        if not path:
            wrapper = cst.MetadataWrapper(self.module, unsafe_skip_copy=True)
            self.known.update(syntactic_positions(wrapper))
        else:
            self.known.update(self._positions_in(path[-1], path[0]))
        return self.known[node]

    def _statements_around(
        self, node: cst.CSTNode, parents: Mapping[cst.CSTNode, cst.CSTNode]
    ) -> list[cst.CSTNode]:
        """The statements holding ``node`` (itself, if it is one), the top-level one first;
        empty where ``node`` is outside the module's body. Only a statement of a body: an
        ``elif`` is an ``If`` whose code its parent ``If`` generates (alone, it would be
        generated as an ``if``)."""
        path: list[cst.CSTNode] = []
        current: cst.CSTNode | None = node
        while current is not None and current is not self.module:
            above = parents.get(current)
            if isinstance(current, cst.BaseStatement) and isinstance(above, _BODIES):
                path.append(current)
            current = above
        if current is None or not path or path[-1] not in self._body:
            return []
        path.reverse()
        return path

    def _positions_in(
        self, statement: cst.CSTNode, top: cst.CSTNode
    ) -> Mapping[cst.CSTNode, CodeRange]:
        line, indent = self._start_of(statement, top)
        provider = PositionProvider()
        state = PositionProvidingCodegenState(
            default_indent=self.module.default_indent,
            default_newline=self.module.default_newline,
            provider=provider,
            line=line,
        )
        state.indent_tokens = list(indent)
        statement._codegen(state)
        self.statements += 1
        return cast("Mapping[cst.CSTNode, CodeRange]", provider._computed)

    def _start_of(self, statement: cst.CSTNode, top: cst.CSTNode) -> tuple[int, tuple[str, ...]]:
        """Where ``statement``'s code starts, and its indentation: the top-level statements
        up to ``top`` are generated (plain code, no records) once for all the questions."""
        while top not in self._starts:
            next(self._reader)
        if statement not in self._starts:
            self._read_nested(top)
        return self._starts[statement]

    def _read_lines(self) -> Iterator[None]:
        module = self.module
        state = CodegenState(module.default_indent, module.default_newline)
        for line in module.header:
            line._codegen(state)
        first = 1 + _newlines(state.tokens)
        for statement in module.body:
            self._starts[statement] = (first, ())
            yield
            state.tokens.clear()  # only this statement's line breaks are counted
            statement._codegen(state)
            first += _newlines(state.tokens)

    def _read_nested(self, top: cst.CSTNode) -> None:
        """Every statement inside ``top``: its first line and indentation, read off one plain
        generation of ``top``'s code."""
        first, _ = self._starts[top]
        state = _StatementStarts(self.module.default_indent, self.module.default_newline, first)
        top._codegen(state)
        self._starts.update(state.starts)


class _StatementStarts(CodegenState):
    """Plain code generation that notes where each statement's code starts (its line, and
    the indentation then in force), counting line breaks as the position provider does."""

    def __init__(self, default_indent: str, default_newline: str, line: int) -> None:
        super().__init__(default_indent, default_newline)
        self.starts: dict[cst.CSTNode, tuple[int, tuple[str, ...]]] = {}
        self._line = line
        self._counted = 0  # tokens whose line breaks are in ``_line``

    def before_codegen(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.BaseStatement):
            tokens = self.tokens
            self._line += _newlines(tokens[self._counted :])
            self._counted = len(tokens)
            self.starts[node] = (self._line, tuple(self.indent_tokens))


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
