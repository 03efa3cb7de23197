"""New strings in the project's quote style (ruff's ``quote-style``, flake8-quotes).

The rewrites build their strings with double quotes, black's and ruff's default. In a
project that formats with single quotes, the strings a rewrite *adds* take single quotes
instead, as its formatter would write them; the project's own strings are never touched,
whatever their quotes. A string is re-quoted only where that needs no new escape (ruff
keeps such a string as it is too), and triple-quoted strings and docstrings keep their
double quotes (PEP 257, and ruff's rule for them).
"""

from __future__ import annotations

from collections import Counter
from typing import TypeVar, cast

import libcst as cst

from unsentinel.core.batch import read

_N = TypeVar("_N", bound=cst.CSTNode)


def requoted(node: cst.SimpleString, quote: str) -> cst.SimpleString:
    """``node`` in ``quote``, where that changes no character of its value."""
    current = node.quote
    if len(current) != 1 or current == quote:
        return node
    body = node.value[len(node.prefix) + 1 : -1]
    if quote in body or "\\" in body:
        return node
    return node.with_changes(value=f"{node.prefix}{quote}{body}{quote}")


def new_strings_quoted(new: _N, old: cst.CSTNode, quote: str) -> _N:
    """``new`` (a replacement built for ``old``) with the strings ``old`` does not have --
    the ones the rewrite added -- in ``quote``."""
    if quote != "'":
        return new  # what the rewrites build already
    kept = Counter(_strings(old))
    return cast(_N, new.visit(_Requote(quote, kept)))


def module_quoted(module: cst.Module, quote: str) -> cst.Module:
    """A generated module with every string in ``quote`` but its docstrings."""
    if quote != "'":
        return module
    return module.visit(_Requote(quote, Counter()))


def _strings(node: cst.CSTNode) -> list[str]:
    found: list[str] = []

    class _Collect(cst.CSTVisitor):
        def visit_SimpleString(self, string: cst.SimpleString) -> None:
            found.append(string.value)

    read(node, _Collect())
    return found


class _Requote(cst.CSTTransformer):
    """Re-quote every string but those in ``kept`` (each as often as it is counted) and
    docstrings."""

    def __init__(self, quote: str, kept: Counter[str]) -> None:
        super().__init__()
        self._quote = quote
        self._kept = kept

    def leave_SimpleString(
        self, original_node: cst.SimpleString, updated_node: cst.SimpleString
    ) -> cst.SimpleString:
        if self._kept[updated_node.value] > 0:
            self._kept[updated_node.value] -= 1
            return updated_node
        return requoted(updated_node, self._quote)

    def leave_Expr(self, original_node: cst.Expr, updated_node: cst.Expr) -> cst.Expr:
        # A string statement is a docstring (or reads as one): its quotes stay double.
        if isinstance(original_node.value, cst.SimpleString):
            return updated_node.with_changes(value=original_node.value)
        return updated_node
