"""``unsentinel rule CODE``: a rule's documentation as Markdown.

The text is the rule class's docstring, or its module's when the class has none.
"""

from __future__ import annotations

import inspect
import sys

from unsentinel.core.rule import Rule


def documentation(rule: type[Rule]) -> str:
    doc = rule.__dict__.get("__doc__") or getattr(sys.modules.get(rule.__module__), "__doc__", "")
    body = inspect.cleandoc(doc or "")
    parts = [f"# {rule.name} ({rule.code})", rule.summary]
    if body:
        parts.append(body)
    return "\n\n".join(parts) + "\n"
