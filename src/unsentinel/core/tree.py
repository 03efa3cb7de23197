"""A fast parent map for a LibCST tree, and the memo of what every pass over one tree shares.

LibCST's ``ParentNodeProvider`` walks the tree with the full visitor machinery and asks
every node for its children (a second, partial walk each time). Reading the dataclass
fields directly gives the same map about six times faster, and the parent map is built
for every parsed file, so this is on the hot path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import cast

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider

_CHILD_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}


def _fields_of(node_type: type[cst.CSTNode]) -> tuple[str, ...]:
    names = _CHILD_FIELDS.get(node_type)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(node_type))
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
            if isinstance(value, cst.CSTNode):
                children.append(value)
            elif isinstance(value, (list, tuple)):
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
        self._positions: Mapping[cst.CSTNode, CodeRange] | None = None

    def parents(self, module: cst.Module) -> Mapping[cst.CSTNode, cst.CSTNode]:
        if self._parents is None:
            self._parents = parent_map(module)
        return self._parents

    def positions(self, wrapper: cst.MetadataWrapper) -> Mapping[cst.CSTNode, CodeRange]:
        if self._positions is None:
            self._positions = syntactic_positions(wrapper)
        return self._positions


def syntactic_positions(wrapper: cst.MetadataWrapper) -> Mapping[cst.CSTNode, CodeRange]:
    """LibCST's ``PositionProvider`` for every node, without ``wrapper.resolve``'s extra walk.

    ``resolve`` also runs a batched visit over the whole tree for the batchable providers
    it was asked for -- even when there are none, as here: a quarter of the time positions
    took. The provider's own ``_gen`` is the codegen pass alone (tests compare both).
    """
    return cast("Mapping[cst.CSTNode, CodeRange]", PositionProvider()._gen(wrapper))
