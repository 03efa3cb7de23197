"""How UNS201 changes a read: one expression replaced, or the warning's group held back.

Every rewrite of a read goes through :class:`ReadRewriter`, which keeps the connected-group
promise: a read of warnings that belong to a blocked group (one of its values is used in
a way ``.message`` cannot stand in for) is reported as skip, never half-migrated.
"""

from __future__ import annotations

from functools import cached_property

import libcst as cst

from unsentinel.core.discovery import module_name
from unsentinel.core.finding import Builder
from unsentinel.core.layout import expression_code
from unsentinel.core.model import Action, Kind
from unsentinel.warnings.carriers import FileCarriers
from unsentinel.warnings.facts import WarningShape as Shape
from unsentinel.warnings.reads import WarningReads, access
from unsentinel.warnings.rule import WarningRule
from unsentinel.warnings.settings import warning_settings


class ReadRewriter:
    """Schedules the rewrites of one file's reads, and reports what it leaves alone."""

    def __init__(self, rule: WarningRule, reads: WarningReads) -> None:
        self.rule = rule
        self.context = rule.context
        self.reads = reads

    @cached_property
    def carriers(self) -> FileCarriers:
        return self.context.shared(FileCarriers)

    def claimed(self, node: cst.CSTNode) -> bool:
        """Already inside (or equal to) a node another rewrite of this rule replaces."""
        edits = self.context.edits
        if not edits:
            return False  # most calls of most files: nothing replaced yet
        if node in edits:
            return True
        return any(a in edits for a in self.context.ancestors(node))

    def message_of(self, expr: cst.BaseExpression, reason: str) -> None:
        """A warning item used as text: ``w`` -> ``w.message`` (``w["message"]``)."""
        shape = self.reads.item_shape(expr)
        if shape is None or self.claimed(expr):
            return
        self.replace(expr, access(expression_code(expr), "message", shape), reason)

    def text_only(self, node: cst.CSTNode, subject: cst.BaseExpression, why: str) -> None:
        """A use of a warning item that only a string supports and ``.message`` cannot stand
        in for here: it blocks the warning's whole group (nothing connected migrates)."""
        if self.reads.shape(subject) is not Shape.ITEM:
            return
        carriers = self.carriers.of(subject)
        self.carriers.block(node, carriers, why)
        self.context.report(
            self.rule,
            node,
            f"Warning consumer: {why}; the warning's group is left as it is",
            kind=Kind.CONSUMER,
            action=Action.SKIP,
            reasons=(f"{why}: rewrite it by hand, then run again",),
        )

    def replace(
        self, node: cst.CSTNode, code: str, reason: str, *, review: str | None = None
    ) -> bool:
        """Schedule the rewrite, unless the warnings read here belong to a blocked group."""
        blocker = self.carriers.blocker(self.carriers.around(node))
        if blocker is not None:
            self.context.report(
                self.rule,
                node,
                f"Warning consumer left as it is ({reason}): its group cannot be migrated whole",
                kind=Kind.CONSUMER,
                action=Action.SKIP,
                reasons=(blocker.reason,),
            )
            return False
        self.context.replace(node, _keeping_parentheses(cst.parse_expression(code)))
        action = Action.REVIEW if review else Action.REWRITE
        reasons = (reason, review) if review else (reason,)
        self.context.report(
            self.rule,
            node,
            f"Warning consumer: {reason}",
            kind=Kind.CONSUMER,
            action=action,
            reasons=reasons,
        )
        return True

    def import_warning(self) -> None:
        """The check names the migrated model: import it (as the annotation rule does), or the
        name is Python's builtin ``Warning`` and every migrated warning fails the check."""
        config = self.rule.config
        models_module = module_name(
            config.root / warning_settings(config).models_module, config.root
        )
        if self.context.module_name == models_module:
            return
        alias = self.rule.analysis.warning_class
        self.context.add_import(models_module, "Warning", None if alias == "Warning" else alias)


def _keeping_parentheses(new: cst.BaseExpression) -> Builder:
    """A builder of ``new`` that keeps the parentheses the replaced expression had."""

    def build(updated: cst.CSTNode) -> cst.CSTNode:
        if isinstance(updated, cst.BaseExpression) and updated.lpar:
            return new.with_changes(lpar=updated.lpar, rpar=updated.rpar)
        return new

    return build
