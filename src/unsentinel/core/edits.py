"""The one transform that applies every scheduled edit, keyed by the original node.

Apart from :mod:`unsentinel.core.engine` so that the engine imports LibCST only when a file
reaches it (``check`` on files without candidates never does).
"""

from __future__ import annotations

from typing import Any

import libcst as cst


class EditApplier(cst.CSTTransformer):
    """Replaces each original node that has a builder by ``builder(updated_node)``."""

    def __init__(self, edits: dict[cst.CSTNode, Any]) -> None:
        super().__init__()
        self._edits = edits

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        builder = self._edits.get(original_node)
        return updated_node if builder is None else builder(updated_node)
