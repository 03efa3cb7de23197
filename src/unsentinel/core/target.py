"""Output valid for the project's Python, whatever Python runs the tool.

Before Python 3.12 (PEP 701) a string inside an f-string's replacement field may not use
the f-string's own quote: ``f"{w["message"]}"`` is a syntax error on 3.11. A rewrite that
puts a literal into a replacement field (``w["message"]``, ``w.severity == "blocking"``)
must therefore take the other quote when the project supports an older Python. This pass
runs over a rewritten module and re-quotes exactly those strings; where a string holds both
quote characters it cannot be re-quoted, and the file fails with a clear reason rather than
being written invalid for the project.

The lowest supported version comes from ``requires-python`` (``>=3.10``), or from the
``target-version`` setting (``"py310"``, as in ruff): see :mod:`unsentinel.core.pyversion`.
"""

from __future__ import annotations

import libcst as cst

PEP_701 = (3, 12)  # from this version on, f-strings may nest their own quotes


class TargetVersionError(Exception):
    """The rewrite cannot be expressed in the project's lowest Python version."""


def fit_to_target(module: cst.Module, target: tuple[int, int]) -> cst.Module:
    """``module`` with every string nested in an f-string re-quoted for ``target``."""
    if target >= PEP_701:
        return module
    return module.visit(_Requote())


class _Requote(cst.CSTTransformer):
    """Re-quote strings that share the quote of an enclosing f-string (pre-3.12 grammar)."""

    def __init__(self) -> None:
        super().__init__()
        self._quotes: list[str] = []  # the quote of each f-string we are inside

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        self._quotes.append(node.quote)

    def leave_FormattedString(
        self, original_node: cst.FormattedString, updated_node: cst.FormattedString
    ) -> cst.BaseExpression:
        self._quotes.pop()
        if self._quotes and _clashes(updated_node.quote, self._quotes[-1]):
            return _requoted_fstring(updated_node, self._quotes[-1])
        return updated_node

    def leave_SimpleString(
        self, original_node: cst.SimpleString, updated_node: cst.SimpleString
    ) -> cst.BaseExpression:
        if self._quotes and _clashes(updated_node.quote, self._quotes[-1]):
            return _requoted(updated_node, self._quotes[-1])
        return updated_node


def _clashes(quote: str, enclosing: str) -> bool:
    """Would ``quote`` end the enclosing f-string early under the pre-3.12 grammar?

    Inside ``f"..."`` any ``"`` does; inside ``f\"\"\"...\"\"\"`` only a ``\"\"\"`` does."""
    return quote[0] == enclosing[0] and (len(enclosing) == 1 or len(quote) == 3)


def _other_quote(quote: str) -> str:
    return "'" if quote.startswith('"') else '"'


def _requoted(node: cst.SimpleString, enclosing: str) -> cst.SimpleString:
    quote = node.quote
    other = _other_quote(enclosing) * len(quote)
    body = node.value[len(node.prefix) + len(quote) : -len(quote)]
    if other in body or "\\" in body:
        raise TargetVersionError(
            f"the string {node.value} inside an f-string needs Python 3.12; "
            "the project supports older versions (requires-python / target-version)"
        )
    return node.with_changes(value=f"{node.prefix}{other}{body}{other}")  # prefix kept (r, b, u)


def _requoted_fstring(node: cst.FormattedString, enclosing: str) -> cst.FormattedString:
    other = _other_quote(enclosing)
    texts = [p.value for p in node.parts if isinstance(p, cst.FormattedStringText)]
    if any(other in text for text in texts) or len(node.quote) == 3:
        raise TargetVersionError(
            "an f-string nested in an f-string with the same quote needs Python 3.12; "
            "the project supports older versions (requires-python / target-version)"
        )
    return node.with_changes(start=node.start.replace(node.quote, other), end=other)
