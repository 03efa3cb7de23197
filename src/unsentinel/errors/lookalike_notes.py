"""The ``plan`` notes UNS501 leaves on look-alikes, and the functions they hold back.

A dict that looks like an error response but is left alone is listed in ``plan`` with the
reason (``Action.NOTE``: not a ``check`` finding). When a reader could not tell it from a
migrated error -- it is returned, handed to a call whose result is returned, or returned by
a test double -- its function keeps the old shape, and so do the readers of its result.
Kept apart from :mod:`~unsentinel.errors.rules.error_dict`, which decides what a dict is:
this module only says why one is left alone and which group that holds.
:mod:`~unsentinel.errors.lookalikes` names what a look-alike is instead.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.model import Action, Kind
from unsentinel.core.rule import Rule, RuleContext
from unsentinel.errors.facts import ErrorNotes
from unsentinel.errors.groups import ErrorGroups
from unsentinel.errors.handed_back import handed_back
from unsentinel.errors.key_places import MESSAGE_KEYS
from unsentinel.errors.lookalikes import reason as lookalike_reason
from unsentinel.errors.lookalikes import suspicious
from unsentinel.errors.shapes import Shape, elements_by_key
from unsentinel.errors.test_doubles import doubled_function
from unsentinel.errors.untraced import message_template


class LookalikeNotes:
    """One file's notes on look-alikes, holding their groups where a reader is involved."""

    def __init__(self, rule: Rule, context: RuleContext, groups: ErrorGroups) -> None:
        self.rule = rule
        self.context = context
        self.groups = groups

    def note(
        self, node: cst.Dict, shape: Shape | None, *, returned: bool, why: str | None = None
    ) -> None:
        """A look-alike left alone: listed in ``plan`` with the reason, not a finding.

        One that is returned holds its function back: a reader of the function's result
        cannot tell it from a migrated error, so none of them may change. So does one handed
        to a call whose result the function returns (:mod:`~unsentinel.errors.handed_back`),
        and one a test double returns holds the function the double stands in for
        (:mod:`~unsentinel.errors.test_doubles`).
        """
        if not suspicious(node, shape):
            return
        if not returned and handed_back(node, self.context.parent):
            returned = True
            why = why or "handed to a call whose result the function returns; migrate it by hand"
        doubled = None if returned else doubled_function(node, self.context.parent)
        if doubled is not None:
            self.groups.hold_function(doubled)
            why = why or f"a test double returns it for {doubled}(), which keeps this shape"
        if returned:
            self.groups.hold(node)
        self._report(node, why or lookalike_reason(node, self.context.parent))

    def held_note(self, node: cst.CSTNode, why: str) -> None:
        """A look-alike that holds its function: noted in ``plan`` with ``why``."""
        self.groups.hold(node)
        self._report(node, why)

    def _report(self, node: cst.CSTNode, why: str) -> None:
        notes = self.context.shared(ErrorNotes)
        notes.left_alone = True
        notes.kept_templates |= _message_templates(node)
        self.context.report(
            self.rule,
            node,
            f"Looks like an error dict but is left alone: {why}",
            kind=Kind.ERROR,
            action=Action.NOTE,
            reasons=(why,),
        )


def _message_templates(node: cst.CSTNode) -> set[str]:
    """The templates of the messages a dict left as it is carries (errors/untraced.py)."""
    values = (elements_by_key(node) if isinstance(node, cst.Dict) else None) or {}
    found = (message_template(values[key]) for key in MESSAGE_KEYS if key in values)
    return {template for template in found if template is not None}
