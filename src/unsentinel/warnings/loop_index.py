"""An index for a loop over an input list, so a warning inside it can say which item.

``for tool in tools:`` ... ``warnings.append(f"Tool {tool.name} has no title")`` is about one
item of ``tools``, but the loop keeps no index: the best path was ``tools``, flagged low.
Where the loop is a plain ``for`` over the input itself (no call, slice or filter between,
so positions in the loop are positions in the input), the rewrite gives it one --
``for i, tool in enumerate(tools):`` -- and the warning points at ``tools[{i}].title``.
The loop is changed only when a warning's final field path uses the index (a reviewer's
plan may say otherwise), once per loop, and a second run finds the index already there.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from unsentinel.core.syntax import NodeIndex

Parent = Callable[[cst.CSTNode], cst.CSTNode | None]

# Index names, in order of preference; one the module already uses is never taken.
_CANDIDATES = ("i", "index", "idx", "position")


class LoopIndexes:
    """The fresh index names of one file's loops, and the loops already given one."""

    def __init__(self, index: NodeIndex) -> None:
        self._index = index
        self._names: dict[cst.For, str | None] = {}
        self._taken: frozenset[str] | None = None
        self.enumerated: set[cst.For] = set()

    def fresh_index(self, loop: cst.CSTNode, target: str) -> str | None:
        """The index name ``loop`` would get (None: it cannot be given one)."""
        if not isinstance(loop, cst.For) or not _can_enumerate(loop, target):
            return None
        if loop not in self._names:
            taken = self._module_names()
            self._names[loop] = next((n for n in _CANDIDATES if n not in taken), None)
        return self._names[loop]

    def loops_to_enumerate(
        self, site: cst.CSTNode, path: str | None, parent: Parent
    ) -> list[tuple[cst.For, str]]:
        """The loops around ``site`` whose fresh index ``path`` uses (not yet enumerated),
        each with that index's name."""
        found: list[tuple[cst.For, str]] = []
        current: cst.CSTNode | None = site
        while path and current is not None:
            if isinstance(current, cst.For) and current not in self.enumerated:
                name = self._names.get(current)
                if name is not None and "{" + name + "}" in path:
                    found.append((current, name))
            current = parent(current)
        return found

    def _module_names(self) -> frozenset[str]:
        if self._taken is None:
            names = self._index.by_type.get(cst.Name, [])
            self._taken = frozenset(n.value for n in names if isinstance(n, cst.Name))
        return self._taken


def enumerated(updated: cst.CSTNode, name: str) -> cst.CSTNode:
    """``for tool in tools:`` -> ``for i, tool in enumerate(tools):`` (body untouched)."""
    assert isinstance(updated, cst.For)
    target = cst.Tuple(
        [
            cst.Element(
                cst.Name(name), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            ),
            cst.Element(updated.target),
        ],
        lpar=[],
        rpar=[],
    )
    return updated.with_changes(
        target=target, iter=cst.Call(cst.Name("enumerate"), [cst.Arg(updated.iter)])
    )


def _can_enumerate(loop: cst.For, target: str) -> bool:
    """A synchronous loop binding one name, over a name or an attribute chain (or what
    one stores under a key)."""
    if loop.asynchronous is not None:
        return False
    if not (isinstance(loop.target, cst.Name) and loop.target.value == target):
        return False
    iterable: cst.BaseExpression = loop.iter
    if _is_field_read(iterable):  # ``metadata.get("requires_dist", [])``: the list itself
        iterable = iterable.func.value  # type: ignore[attr-defined]
    while isinstance(iterable, cst.Attribute):
        iterable = iterable.value
    return isinstance(iterable, cst.Name)


def _is_field_read(expr: cst.BaseExpression) -> bool:
    """``x.get("key")`` or ``x.get("key", [])``: the value stored under a literal key."""
    if not (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value == "get"
        and 1 <= len(expr.args) <= 2
        and all(arg.keyword is None and not arg.star for arg in expr.args)
    ):
        return False
    return isinstance(expr.args[0].value, cst.SimpleString)
