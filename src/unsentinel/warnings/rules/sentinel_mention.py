"""UNS003: note comments and docstrings that explain the old sentinel protocol."""

from __future__ import annotations

import libcst as cst

from unsentinel.core.model import Action, Kind
from unsentinel.core.rule import Example, Rule
from unsentinel.core.syntax import string_value
from unsentinel.warnings.detect import SENTINEL_MENTION
from unsentinel.warnings.sentinel import sentinel_markers
from unsentinel.warnings.settings import warning_settings


class SentinelMention(Rule):
    """Note a comment or docstring that mentions a sentinel prefix or constant.

    What it does
        Lists every comment, and every module, class or function docstring, whose text
        mentions a sentinel prefix (``BLOCK:``) or a sentinel constant name
        (``BLOCK_WARNING_PREFIX``) anywhere in it. Each is a note for review in ``plan``,
        not a ``check`` finding.

    Why
        Prose that explains the old protocol ("entries prefixed with ``BLOCK:`` stop the
        apply") is wrong once the code is migrated, and a reader who trusts it will write
        the prefix again. Only a person can say what the text should say now.

    Example
        ```python
        def refuse_if_blocked(warnings):
            \"\"\"Raise if any warning is a ``BLOCK:`` entry.\"\"\"
        ```

    Use instead
        Text that describes the structured warning:
        ```python
        def refuse_if_blocked(warnings):
            \"\"\"Raise if any warning has ``severity == "blocking"``.\"\"\"
        ```

    Fix safety
        Detection only: comments and docstrings are never rewritten automatically.
    """

    detector = SENTINEL_MENTION
    code = detector.code
    name = detector.name
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
        Example(
            "limit = 3  # entries prefixed with BLOCK_WARNING_PREFIX stop the apply", id="comment"
        ),
    )

    def visit_Comment(self, node: cst.Comment) -> None:
        self._check(node, node.value)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if self._is_docstring(node):
            value = string_value(node)
            if isinstance(value, str):
                self._check(node, value)

    def _is_docstring(self, node: cst.SimpleString) -> bool:
        expression = self.context.parent(node)
        statement = self.context.parent(expression) if isinstance(expression, cst.Expr) else None
        body = (
            self.context.parent(statement)
            if isinstance(statement, cst.SimpleStatementLine)
            else None
        )
        if isinstance(body, cst.Module):
            return bool(body.body) and body.body[0] is statement
        if isinstance(body, cst.IndentedBlock):
            return bool(body.body) and body.body[0] is statement
        return False

    def _check(self, node: cst.CSTNode, text: str) -> None:
        words = (*sentinel_markers(self.config), *warning_settings(self.config).sentinel_constants)
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
