"""UNS401: delete the sentinel constant once nothing uses it."""

from __future__ import annotations

import libcst as cst

from unsentinel.core.model import Action, Kind
from unsentinel.core.rule import Example, Rule
from unsentinel.warnings.detect import SENTINEL_DEFINITION
from unsentinel.warnings.facts import WarningFacts
from unsentinel.warnings.settings import warning_settings


class SentinelDefinition(Rule):
    """Delete the module-level definition of a sentinel constant that nothing uses any more.

    What it does
        Removes the module-level definition of a sentinel constant
        (``BLOCK_WARNING_PREFIX = "BLOCK:"``) when the gather pass found no use of it that
        the migration leaves behind. A sentinel constant is a name configured in
        ``sentinel-constants`` or a module-level string constant whose text starts with a
        marker (the producers find those). Imports of the constant in other modules go
        with their last use; other names in the same import statement stay.

    Why
        The constant is the protocol. While it exists, new code will keep writing
        ``f"{BLOCK_WARNING_PREFIX} ..."``; deleting it makes the old habit a NameError.

    Example
        ```python
        BLOCK_WARNING_PREFIX = "BLOCK:"
        MAX_ROWS = 100
        ```

    Use instead
        ```python
        MAX_ROWS = 100
        ```

    Fix safety
        Kept -- and reported (action ``skip``) -- while any use that cannot be migrated
        remains in the files of the run; UNS002 lists those uses. ``check`` has no gather
        pass and never deletes. The gather pass sees only the files it is given: run
        ``apply`` over the whole repository, since a run over some of its files can delete
        a constant that the other files still import.
    """

    detector = SENTINEL_DEFINITION
    code = detector.code
    name = detector.name
    summary = "Unused sentinel constant definition -> deleted"

    VALID = (Example('ORDER_PREFIX = "ORDER-"', id="a string constant that holds no marker"),)
    INVALID = (
        Example(
            """
            BLOCK_WARNING_PREFIX = "BLOCK:"
            MAX_ROWS = 100
            """,
            """
            MAX_ROWS = 100
            """,
            id="definition with no uses left",
        ),
    )

    def _is_constant(self, name: str) -> bool:
        """A configured sentinel constant, or one the repository defines. Asked by name:
        a file's analysis holds while the facts say the same about the names it spells."""
        return (
            name in warning_settings(self.config).sentinel_constants
            or name in self.context.facts.get(WarningFacts).marker_constants
        )

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        """Imports of a deleted constant go once the rewrite has removed their last use."""
        if isinstance(node.names, cst.ImportStar) or not self.context.facts.gathered:
            return
        module = "." * len(node.relative) + (
            self.context.code_for(node.module) if node.module is not None else ""
        )
        for alias in node.names:
            name = alias.evaluated_name
            if self._is_constant(name):  # removed only if the rewrite left it unused
                self.context.remove_import(module, name, alias.evaluated_alias)

    def visit_Module(self, node: cst.Module) -> None:
        if not self.context.facts.gathered:
            return  # ``check`` has no repository view: the definition is reported as UNS002
        for statement in node.body:
            name = self._defined_constant(statement)
            if name is None:
                continue
            if name in self.context.facts.get(WarningFacts).constant_leftovers:
                self.context.report(
                    self,
                    statement,
                    f"Sentinel constant {name} kept: uses remain that cannot be migrated",
                    kind=Kind.CONSTANT,
                    action=Action.SKIP,
                    reasons=("see the UNS002 findings for the remaining uses",),
                )
                continue
            self.context.replace(statement, lambda _: cst.RemoveFromParent())
            self.context.report(
                self,
                statement,
                f"Sentinel constant {name} deleted: no uses remain",
                kind=Kind.CONSTANT,
                action=Action.REWRITE,
            )

    def _defined_constant(self, statement: cst.CSTNode) -> str | None:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return None
        small = statement.body[0]
        targets: list[cst.BaseExpression] = []
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            targets = [small.targets[0].target]
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            targets = [small.target]
        for target in targets:
            if isinstance(target, cst.Name) and self._is_constant(target.value):
                return target.value
        return None
