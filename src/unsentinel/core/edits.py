"""The one transform that applies every scheduled edit, keyed by the original node.

Apart from :mod:`unsentinel.core.engine` so that the engine imports LibCST only when a file
reaches it (``check`` on files without candidates never does).
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from unsentinel.core.quotes import new_strings_quoted


class EditApplier(cst.CSTTransformer):
    """Replaces each original node that has a builder by ``builder(updated_node)``, the
    strings it adds in the project's ``quote``."""

    def __init__(self, edits: dict[cst.CSTNode, Any], quote: str = '"') -> None:
        super().__init__()
        self._edits = edits
        self._quote = quote

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        builder = self._edits.get(original_node)
        if builder is None:
            return updated_node
        replacement = builder(updated_node)
        if isinstance(replacement, cst.CSTNode):
            return new_strings_quoted(replacement, updated_node, self._quote)
        return replacement
