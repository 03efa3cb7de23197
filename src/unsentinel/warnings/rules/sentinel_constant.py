"""UNS002: report every reference to a sentinel prefix constant."""

from __future__ import annotations

import libcst as cst

from unsentinel.core.model import Action, Kind
from unsentinel.core.rule import Example, Rule
from unsentinel.warnings.detect import SENTINEL_CONSTANT
from unsentinel.warnings.facts import ConstantReference, WarningFacts
from unsentinel.warnings.settings import warning_settings


class SentinelConstant(Rule):
    """Report a definition, import or use of a sentinel prefix constant.

    What it does
        Reports every occurrence of a sentinel constant name: the names configured in
        ``sentinel-constants`` (``BLOCK_WARNING_PREFIX``) and the module-level string
        constants whose text starts with a marker, which the gather pass finds. Each
        finding says whether the name is defined, imported or used there; only uses keep
        UNS401 from deleting the definition.

    Why
        The constant is the protocol in one name: while code still writes
        ``f"{BLOCK_WARNING_PREFIX} ..."`` or ``w.startswith(BLOCK_WARNING_PREFIX)``, the
        migration is not done. UNS101 rewrites the producers and UNS201 the prefix matches
        on warnings, each under its own code; UNS002 lists the references they leave, which
        are the reasons the definition is kept.

    Example
        ```python
        blocked = utils.BLOCK_WARNING_PREFIX in text
        ```

    Use instead
        A ``Warning`` and its ``severity`` where the text is a warning
        (``w.severity == "blocking"``); elsewhere, the literal text the code means.

    Fix safety
        Detection only: UNS002 never edits code.
    """

    detector = SENTINEL_CONSTANT
    code = detector.code
    name = detector.name
    summary = "Reference to a sentinel prefix constant"

    VALID = (
        Example("PREFIX_LENGTH = 6", id="another constant"),
        Example(
            "obj.BLOCK_WARNING_PREFIX_DOC = 1", id="a longer name that contains the constant's"
        ),
    )
    INVALID = (
        Example("blocked = utils.BLOCK_WARNING_PREFIX in w", id="attribute access"),
        Example(
            "skipped = [line for line in lines if line.startswith(BLOCK_WARNING_PREFIX)]",
            id="prefix match on text that is not a warning",
        ),
        Example(
            'BLOCK_WARNING_PREFIX = "BLOCK:"',
            id="definition",
            alone=(
                "UNS401 deletes the definition when nothing uses the constant any more; "
                "UNS002 reports it under `check`, which has no repository view"
            ),
        ),
        Example(
            "from tools.utils import BLOCK_WARNING_PREFIX",
            id="import",
            alone=(
                "UNS401 removes the import once the module has no use of the constant left "
                "(the reference is still reported as UNS002)"
            ),
        ),
        Example(
            "blocked = any(w.startswith(BLOCK_WARNING_PREFIX) for w in warnings)",
            id="prefix match on a warnings list",
            alone='UNS201 rewrites the match into `w.severity == "blocking"`',
        ),
    )

    def visit_Name(self, node: cst.Name) -> None:
        known = node.value in warning_settings(self.config).sentinel_constants
        if not known and node.value not in self.context.facts.get(WarningFacts).marker_constants:
            return
        role = self._role(node)
        self.context.report(
            self,
            node,
            f"Reference to sentinel constant {node.value}",
            kind=Kind.DETECTOR,
            action=Action.REPORT,
            reasons=(f"{role}: {node.value}",),
            subject=ConstantReference(node.value, role),
        )

    def _role(self, node: cst.Name) -> str:
        """``use`` unless the name is being imported or defined: only uses block deletion."""
        for ancestor in self.context.ancestors(node):
            if isinstance(ancestor, (cst.Import, cst.ImportFrom)):
                return "import"
            if isinstance(ancestor, cst.AssignTarget):
                return "definition"
            if isinstance(ancestor, cst.BaseStatement):
                break
        return "use"
