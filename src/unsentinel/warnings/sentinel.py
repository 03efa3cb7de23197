"""What a sentinel looks like in source text: the markers, and the text a string starts with.

Shared by the detectors (UNS001 strings, UNS003 mentions); kept out of the rule modules so
that no rule imports another.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.config import Config
from unsentinel.core.syntax import string_value
from unsentinel.warnings.detect import sentinel_markers as sentinel_markers


def leading_text(node: cst.BaseExpression) -> str | None:
    """The literal text a string expression starts with, if it is a string at all."""
    if isinstance(node, cst.SimpleString):
        value = string_value(node)
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
