"""UNS001 / UNS002 / UNS003: find sentinel strings, the sentinel constant, and prose about them.

What it does
    Reports every string literal or f-string whose text starts with a sentinel prefix
    (``"BLOCK: ..."``, ``f"BLOCK: {n}"``) as UNS001, and every occurrence of a sentinel
    constant name (``BLOCK_WARNING_PREFIX``: its definition, imports and uses) as UNS002.

Why
    A sentinel prefix is a second protocol hidden inside a human message: producers must
    remember to add it, consumers must substring-match it, and it leaks into JSON. Once a
    repository is migrated, ``unsentinel check`` runs this rule in CI so the habit cannot
    come back. Sites that a rewriting rule handles are reported under that rule instead;
    these two codes are what is left. UNS003 lists comments and docstrings that explain
    the old protocol, for a person to update (a note in ``plan``, not a ``check`` finding).

Example
    ``warnings.append("BLOCK: order is empty")`` is reported as UNS001;
    ``if w.startswith(BLOCK_WARNING_PREFIX):`` as UNS002.

Use instead
    ``Warning(severity="blocking", message="order is empty", code=warning_codes.EMPTY_ORDER)``
    and ``w.severity == "blocking"``.

Fix safety
    Detection only: this rule never edits code.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.config import Config
from unsentinel.core.model import Action, Kind
from unsentinel.core.rule import Example, Rule
from unsentinel.warnings.facts import ConstantReference, WarningFacts


def sentinel_markers(config: Config) -> tuple[str, ...]:
    """Sentinel prefixes and configured markers as they appear in text, without trailing
    blanks ("STOP: " -> "STOP:")."""
    return tuple(marker.rstrip() for marker in config.severity_markers if marker.strip())


def leading_text(node: cst.BaseExpression) -> str | None:
    """The literal text a string expression starts with, if it is a string at all."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(node, cst.FormattedString):
        first = node.parts[0] if node.parts else None
        return first.value if isinstance(first, cst.FormattedStringText) else ""
    if isinstance(node, cst.ConcatenatedString):
        return leading_text(node.left)
    return None


def starts_with_sentinel(node: cst.BaseExpression, config: Config) -> str | None:
    """The sentinel prefix ``node`` starts with, or None."""
    text = leading_text(node)
    if not text:
        return None
    return next((m for m in sentinel_markers(config) if text.startswith(m)), None)


class SentinelString(Rule):
    code = "UNS001"
    name = "sentinel-string"
    summary = "String literal starts with a sentinel prefix"

    VALID = (
        Example('message = "Order blocked by the warehouse"', id="word inside a sentence"),
        Example('label = b"BLOCK: raw bytes"', id="bytes literal"),
        Example('logger.info("the BLOCK: prefix is gone")', id="prefix not at the start"),
    )
    INVALID = (
        Example('warnings.append("BLOCK: order is empty")', id="plain literal"),
        Example('warnings.append(f"BLOCK: MO {n} is done")', id="f-string"),
        Example(
            'warnings.append("BLOCK: first part "\n    "second part")',
            id="implicit concatenation",
        ),
        Example(
            'issues.append("STOP: out of stock")',
            id="configured prefix with trailing space",
            config={"sentinel_prefixes": ("STOP: ",)},
        ),
    )

    @classmethod
    def needles(cls, config: Config) -> tuple[bytes, ...]:
        return tuple(marker.encode() for marker in sentinel_markers(config))

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self._check(node)

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        self._check(node)

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> None:
        self._check(node)

    def _check(self, node: cst.BaseExpression) -> bool:
        prefix = starts_with_sentinel(node, self.config)
        if prefix is None or self._inside_reported_concatenation(node):
            return False
        self.context.report(
            self,
            node,
            f"String starts with sentinel prefix {prefix!r}",
            kind=Kind.DETECTOR,
            action=Action.REPORT,
        )
        return True


    def _inside_reported_concatenation(self, node: cst.CSTNode) -> bool:
        """``"BLOCK: a" "b"`` is reported once, for the whole concatenation."""
        parent = self.context.parent(node)
        while isinstance(parent, cst.ConcatenatedString):
            if starts_with_sentinel(parent, self.config) is not None:
                return True
            parent = self.context.parent(parent)
        return False


class SentinelConstant(Rule):
    code = "UNS002"
    name = "sentinel-constant"
    summary = "Reference to a sentinel prefix constant"

    VALID = (Example("PREFIX_LENGTH = 6"), Example("obj.BLOCK_WARNING_PREFIX_DOC = 1"))
    INVALID = (
        Example('BLOCK_WARNING_PREFIX = "BLOCK:"', id="definition"),
        Example("from tools.utils import BLOCK_WARNING_PREFIX", id="import"),
        Example(
            "blocked = any(w.startswith(BLOCK_WARNING_PREFIX) for w in warnings)",
            id="consumer",
        ),
        Example("blocked = utils.BLOCK_WARNING_PREFIX in w", id="attribute access"),
    )

    @classmethod
    def needles(cls, config: Config) -> tuple[bytes, ...]:
        return tuple(name.encode() for name in config.sentinel_constants)

    def visit_Name(self, node: cst.Name) -> None:
        known = node.value in self.config.sentinel_constants
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


class SentinelMention(Rule):
    code = "UNS003"
    name = "sentinel-mention"
    summary = "Comment or docstring that explains the sentinel protocol"

    VALID = (Example('"""Orders are blocked by the warehouse."""', id="no marker in the text"),)
    INVALID = (
        Example(
            '''
            def refuse_if_blocked(warnings):
                """Raise if any warning is a ``BLOCK:`` entry."""
            ''',
            id="docstring",
        ),
        Example("limit = 3  # entries prefixed with BLOCK_WARNING_PREFIX stop the apply", id="comment"),
    )

    @classmethod
    def needles(cls, config: Config) -> tuple[bytes, ...]:
        return SentinelString.needles(config) + SentinelConstant.needles(config)

    def visit_Comment(self, node: cst.Comment) -> None:
        self._check(node, node.value)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if self._is_docstring(node):
            value = node.evaluated_value
            if isinstance(value, str):
                self._check(node, value)

    def _is_docstring(self, node: cst.SimpleString) -> bool:
        expression = self.context.parent(node)
        statement = self.context.parent(expression) if isinstance(expression, cst.Expr) else None
        body = self.context.parent(statement) if isinstance(statement, cst.SimpleStatementLine) else None
        if isinstance(body, cst.Module):
            return bool(body.body) and body.body[0] is statement
        if isinstance(body, cst.IndentedBlock):
            return bool(body.body) and body.body[0] is statement
        return False

    def _check(self, node: cst.CSTNode, text: str) -> None:
        words = (*sentinel_markers(self.config), *self.config.sentinel_constants)
        mentioned = next((w for w in words if w in text), None)
        if mentioned is None:
            return
        self.context.report(
            self,
            node,
            f"Mentions the old protocol ({mentioned!r}): update the text by hand",
            kind=Kind.DETECTOR,
            action=Action.NOTE,
            reasons=("comments and docstrings are never rewritten automatically",),
        )
