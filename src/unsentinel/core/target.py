"""Output valid for the project's Python, whatever Python runs the tool.

Before Python 3.12 (PEP 701) a string inside an f-string's replacement field may not use
the f-string's own quote: ``f"{w["message"]}"`` is a syntax error on 3.11. A rewrite that
puts a literal into a replacement field (``w["message"]``, ``w.severity == "blocking"``)
must therefore take the other quote when the project supports an older Python. This pass
runs over a rewritten module and re-quotes exactly those strings; where a string holds both
quote characters it cannot be re-quoted, and the file fails with a clear reason rather than
being written invalid for the project.

The lowest supported version comes from ``requires-python`` (``>=3.12``), or from the
``target-version`` setting (``"py310"``, as in ruff): see :mod:`unsentinel.core.pyversion`.

From 3.12 on the nested quote is valid, yet the strings the rewrite *inserted* still take
the other quote where they can: the result reads the same on every version, and parsers
older than PEP 701 (the tool's own, when it runs on 3.11) read it back. The project's own
strings are never touched there, and a string that cannot be re-quoted is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

import libcst as cst

from unsentinel.core.batch import read

PEP_701 = (3, 12)  # from this version on, f-strings may nest their own quotes


_S = TypeVar("_S", cst.SimpleString, cst.FormattedString)
_N = TypeVar("_N", bound=cst.CSTNode)


class TargetVersionError(Exception):
    """The rewrite cannot be expressed in the project's lowest Python version."""


def fit_to_target(
    module: cst.Module, target: tuple[int, int], original: cst.Module | None = None
) -> cst.Module:
    """``module`` with the strings nested in an f-string re-quoted for ``target``.

    ``original``: the module before the rewrite. On 3.12+ targets only the rewrite's own
    strings are re-quoted, and only where they can be.
    """
    holding = _holding_clashes(module)
    if target < PEP_701:
        return module.visit(_Requote(strict=True, kept=frozenset(), holding=holding))
    kept = _fstrings(original) if original is not None else frozenset()
    return module.visit(_Requote(strict=False, kept=kept, holding=holding))


def _holding_clashes(module: cst.Module) -> set[cst.CSTNode]:
    """Every string that shares the quote of the f-string around it, and each of its
    ancestors: the only nodes the re-quoting pass can change. Found by a read-only walk,
    so that the pass rebuilds those paths alone, not every node of the module (most
    modules have no such string at all)."""
    finder = _Clashes()
    read(module, finder)
    return finder.holding


class _Clashes(cst.CSTVisitor):
    """The clashes :class:`_Requote` acts on, with the path down to each."""

    def __init__(self) -> None:
        super().__init__()
        self.holding: set[cst.CSTNode] = set()
        self._path: list[cst.CSTNode] = []
        self._quotes: list[str] = []  # the quote of each f-string we are inside

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._path.append(node)
        kind = type(node)  # by class, as the transformer's hooks are dispatched
        if kind is cst.SimpleString or kind is cst.FormattedString:
            quote = cast("cst.SimpleString | cst.FormattedString", node).quote
            if self._quotes and _clashes(quote, self._quotes[-1]):
                self.holding.update(self._path)
            if kind is cst.FormattedString:
                self._quotes.append(quote)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if type(original_node) is cst.FormattedString:
            self._quotes.pop()
        self._path.pop()


def nested_strings_requoted(node: _N, original: cst.CSTNode) -> _N:
    """``node`` (a rewrite of ``original``) with the strings the rewrite nested in an
    f-string in its other quote, where they can take it: the code reads back on a parser
    older than PEP 701 (the tool's own), as :func:`fit_to_target` will leave it anyway."""
    return cast(_N, node.visit(_Requote(strict=False, kept=_fstrings(original))))


def _fstrings(module: cst.CSTNode) -> frozenset[str]:
    """The code of every outermost f-string of ``module``: those the rewrite left alone
    come out of it with the very same code."""
    found: set[str] = set()

    class _Collect(cst.CSTVisitor):
        def visit_FormattedString(self, node: cst.FormattedString) -> bool:
            found.add(_code(node))
            return False  # the outermost one is enough

    read(module, _Collect())
    return frozenset(found)


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


class _Requote(cst.CSTTransformer):
    """Re-quote strings that share the quote of an enclosing f-string.

    ``strict`` (a pre-3.12 target): every clash is re-quoted, or the rewrite fails.
    Otherwise only the rewrite's own strings that can be: a clash inside an outermost
    f-string whose code is in ``kept`` is the project's own.
    """

    def __init__(
        self, *, strict: bool, kept: frozenset[str], holding: set[cst.CSTNode] | None = None
    ) -> None:
        super().__init__()
        self._strict = strict
        self._kept = kept
        self._holding = holding  # the nodes on a path to a clash (None: walk them all)
        self._quotes: list[str] = []  # the quote of each f-string we are inside
        self._outermost: cst.FormattedString | None = None

    def on_visit(self, node: cst.CSTNode) -> bool:
        """A subtree with no clash below is left as it is, unwalked: every hook below
        changes a clashing string only."""
        walk = super().on_visit(node)
        return walk and (self._holding is None or node in self._holding)

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        if not self._quotes:
            self._outermost = node
        self._quotes.append(node.quote)

    def leave_FormattedString(
        self, original_node: cst.FormattedString, updated_node: cst.FormattedString
    ) -> cst.BaseExpression:
        self._quotes.pop()
        if self._quotes and _clashes(updated_node.quote, self._quotes[-1]):
            return self._fit(updated_node, _requoted_fstring)
        return updated_node

    def leave_SimpleString(
        self, original_node: cst.SimpleString, updated_node: cst.SimpleString
    ) -> cst.BaseExpression:
        if self._quotes and _clashes(updated_node.quote, self._quotes[-1]):
            return self._fit(updated_node, _requoted)
        return updated_node

    def _fit(self, updated_node: _S, requote: Callable[[_S, str], _S]) -> _S:
        if self._strict:
            return requote(updated_node, self._quotes[-1])
        if self._outermost is not None and _code(self._outermost) in self._kept:
            return updated_node  # the project's own 3.12 code: not ours to restyle
        try:
            return requote(updated_node, self._quotes[-1])
        except TargetVersionError:
            return updated_node  # valid on 3.12+ as it is


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
