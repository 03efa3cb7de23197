"""UNS501 on error dicts built in steps: the one form it rewrites, and the ones it holds.

``r = {"success": False, "error": None}`` ... ``r["error"] = "tag must be ..."`` leaves
the literal's message open and writes the error later, key by key: the write is the site,
and becomes ``r["error"] = ErrorDetail(...).to_dict()``. Any other error dict changed after
it is built (``response["message"] = ...`` over a default, ``response["error"] = ...`` into
a dict that was no error) is noted and its function held, since a rewrite of the literal
alone would leave the later writes putting the old keys back beside the envelope
(:mod:`~unsentinel.errors.mutations` tells these forms apart). Kept apart from
:mod:`~unsentinel.errors.rules.error_dict`, which decides what a literal dict is, so that
the rule module reads as the rule; it hands this module the assignments it visits.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from unsentinel.core.layout import expression_code
from unsentinel.core.rule import RuleContext
from unsentinel.core.syntax import string_key
from unsentinel.errors import build
from unsentinel.errors.groups import ErrorGroups
from unsentinel.errors.lookalike_notes import LookalikeNotes
from unsentinel.errors.mutations import open_message_keys, writes_an_error
from unsentinel.errors.placement import fit
from unsentinel.errors.shapes import enclosing_function, is_stringish
from unsentinel.errors.site_error import ErrorAtSite
from unsentinel.errors.target import Target

ErrorAt = Callable[[cst.CSTNode, cst.BaseExpression], ErrorAtSite]
"""The rule's error for a site and its message, reported as a finding."""


class ErrorsBuiltInSteps:
    """One file's error dicts built one key at a time, for UNS501."""

    def __init__(
        self,
        context: RuleContext,
        groups: ErrorGroups,
        lookalikes: LookalikeNotes,
        target: Target,
        error_at: ErrorAt,
    ) -> None:
        self.context = context
        self._groups = groups
        self._lookalikes = lookalikes
        self._target = target
        self._error_at = error_at
        # function -> local -> the message keys its literal leaves open (``None``)
        self._incremental: dict[cst.FunctionDef, dict[str, frozenset[str]]] = {}

    def built_in_steps(self, node: cst.Dict, changed: str) -> None:
        """A returned error dict changed after it is built: noted, and its function held."""
        self._lookalikes.held_note(
            node, f"the dict is changed after it is built ({changed}); migrate it by hand"
        )

    def assigned(self, node: cst.Assign) -> None:
        """``r = {...}`` remembered, ``r["error"] = ...`` rewritten or held."""
        target = node.targets[0].target if len(node.targets) == 1 else None
        if isinstance(target, cst.Name) and isinstance(node.value, cst.Dict):
            self._remember_incremental(node, target.value, node.value)
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            self._rewrite_incremental(node, target)

    def _remember_incremental(self, node: cst.Assign, name: str, value: cst.Dict) -> None:
        open_keys = open_message_keys(value)
        if not open_keys:
            return
        function = enclosing_function(node, self.context.parent)
        if function is not None:
            self._incremental.setdefault(function, {})[name] = open_keys

    def _rewrite_incremental(self, node: cst.Assign, target: cst.Subscript) -> None:
        assert isinstance(target.value, cst.Name)
        function = enclosing_function(node, self.context.parent)
        if function is None:
            return
        open_keys = self._incremental.get(function, {}).get(target.value.value, frozenset())
        key = string_key(target)
        if key in open_keys and is_stringish(node.value):
            self._groups.defer(node, lambda: self._rewrite_assignment(node))
        elif writes_an_error(key, node.value):
            self._error_written_in(node, target)

    def _error_written_in(self, node: cst.Assign, target: cst.Subscript) -> None:
        """``response["error"] = f"AWS API error: {e}"``, then ``return response``: an error
        dict built key by key, which no rewrite follows. Its function keeps the old shape
        (held), so readers of its result (``result["error"]``) stay as they are too."""
        written = expression_code(target)
        self._lookalikes.held_note(
            node, f"an error is written into `{written}` key by key; migrate it by hand"
        )

    def _rewrite_assignment(self, node: cst.Assign) -> None:
        found = self._error_at(node, node.value)
        self._groups.produces(node)
        value = self._target.error_value(found.error)

        def laid_out(updated: cst.CSTNode) -> cst.CSTNode:
            # broken over lines where ``r["error"] = ErrorDetail(...)`` would not fit
            carried = build.carry_updates(value, node, updated)
            return _with_value(updated, fit(self.context, carried, node.value))

        self.context.replace(node, laid_out)


def _with_value(updated: cst.CSTNode, value: cst.BaseExpression) -> cst.CSTNode:
    assert isinstance(updated, cst.Assign)
    return updated.with_changes(value=value)
