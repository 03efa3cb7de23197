"""The one transform that applies every scheduled edit, keyed by the original node.

Apart from :mod:`unsentinel.core.engine` so that the engine imports LibCST only when a file
reaches it (``check`` on files without candidates never does).
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from unsentinel.core.layout import OwnLine, split_around
from unsentinel.core.quotes import new_strings_quoted


class EditApplier(cst.CSTTransformer):
    """Replaces each original node that has a builder by ``builder(updated_node)``, the
    strings it adds in the project's ``quote``.

    A builder may answer :class:`~unsentinel.core.layout.OwnLine`: its node, laid out for
    a line of its own, replaces an argument of a call, and that call breaks its arguments
    onto lines of their own when it is left in turn."""

    def __init__(self, edits: dict[cst.CSTNode, Any], quote: str = '"') -> None:
        super().__init__()
        self._edits = edits
        self._quote = quote
        self._own_lines: dict[int, OwnLine] = {}

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        updated_node = self._split_for_own_line(updated_node)
        builder = self._edits.get(original_node)
        if builder is None:
            return updated_node
        replacement = builder(updated_node)
        if isinstance(replacement, OwnLine):
            node = new_strings_quoted(replacement.node, updated_node, self._quote)
            self._own_lines[id(node)] = replacement
            return node
        if isinstance(replacement, cst.CSTNode):
            return new_strings_quoted(replacement, updated_node, self._quote)
        return replacement

    def _split_for_own_line(self, node: cst.CSTNode) -> cst.CSTNode:
        if not isinstance(node, cst.Call):
            return node
        for arg in node.args:
            wanted = self._own_lines.pop(id(arg.value), None)
            if wanted is not None:
                return split_around(node, wanted.base, wanted.unit)
        return node
