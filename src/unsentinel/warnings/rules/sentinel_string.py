"""UNS001: report a string that still starts with a sentinel prefix."""

from __future__ import annotations

import libcst as cst

from unsentinel.core.model import Action, Kind
from unsentinel.core.rule import Example, Rule
from unsentinel.warnings.detect import SENTINEL_STRING
from unsentinel.warnings.sentinel import starts_with_sentinel


class SentinelString(Rule):
    """Report a string literal whose text starts with a sentinel prefix.

    What it does
        Reports every string literal, f-string and implicit concatenation whose text starts
        with a sentinel prefix or a configured marker: ``"BLOCK: ..."``, ``f"BLOCK: {n}"``,
        or ``"STOP: ..."`` with ``sentinel-prefixes = ["STOP: "]``. A concatenation is
        reported once, as a whole. Bytes literals, and a prefix in the middle of a text,
        are not sentinels.

    Why
        A sentinel prefix is a second protocol hidden inside a human message: producers must
        remember to add it, consumers must substring-match it, and it leaks into JSON. A
        string that reaches a warnings list is rewritten by UNS101 and reported under that
        code; UNS001 reports what no rewriting rule takes (an exception message, a log line,
        a constant), and once a repository is migrated ``unsentinel check`` runs it in CI so
        the habit cannot come back.

    Example
        ```python
        raise OrderError("BLOCK: order is empty")
        ```

    Use instead
        A ``Warning`` where the text is a warning (UNS101 writes it when the string reaches
        a warnings list); elsewhere, the message without the prefix:
        ```python
        raise OrderError("order is empty")
        ```

    Fix safety
        Detection only: UNS001 never edits code.
    """

    detector = SENTINEL_STRING
    code = detector.code
    name = detector.name
    summary = "String literal starts with a sentinel prefix"

    VALID = (
        Example('message = "Order blocked by the warehouse"', id="word inside a sentence"),
        Example('label = b"BLOCK: raw bytes"', id="bytes literal"),
        Example('logger.info("the BLOCK: prefix is gone")', id="prefix not at the start"),
    )
    INVALID = (
        Example('raise OrderError("BLOCK: order is empty")', id="exception message"),
        Example('log.warning(f"BLOCK: MO {n} is done")', id="f-string in a log line"),
        Example(
            'message = ("BLOCK: first part "\n    "second part")',
            id="implicit concatenation",
        ),
        Example(
            'issues.append("STOP: out of stock")',
            id="configured prefix with trailing space",
            config={"sentinel_prefixes": ("STOP: ",)},
        ),
        Example(
            'warnings.append("BLOCK: order is empty")',
            id="plain literal in a warnings list",
            alone=(
                "UNS101 takes a sentinel string that reaches a warnings list, rewrites it "
                "into a Warning and reports it under its own code"
            ),
        ),
    )

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
