"""An argument laid out on a line of its own: the formatters' right-hand split.

A rewrite that breaks an argument over lines (``f(Warning(``...``))``) cannot stay hugging
its call's bracket: black and ruff break after the bracket, give each item a line of its
own and put the closing bracket back where the line opens. The rules answer an
:class:`OwnLine` for such a site (:func:`place_argument`); the edit applier splits the
bracket around it (:func:`split_around`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

import libcst as cst

from unsentinel.core.layout import (
    expression_code,
    has_comment,
    newline,
    one_per_line,
    shift_lines,
)


@dataclass(frozen=True)
class OwnLine:
    """A rewritten argument that no longer fits beside its call's bracket, laid out for a
    line of its own: the call breaks after ``(``, between its arguments and before ``)``
    (black's and ruff's splits), ``f(Warning(...))`` becoming ``f(`` / ``Warning(...)`` /
    ``)``.

    ``base`` is the indentation, beyond the enclosing block's, of the line the call starts
    on (where its ``)`` goes); the argument goes one ``unit`` deeper.
    """

    node: cst.BaseExpression
    base: str
    unit: str


Hugging = cst.Call | cst.List  # a bracket whose items may share the line of its opening


def hugging_bracket(
    node: cst.CSTNode, parent_of: Callable[[cst.CSTNode], cst.CSTNode | None]
) -> Hugging | None:
    """The call ``node`` is a positional argument of, or the list it is an element of,
    where all the items sit on one line (``f(<node>)``, ``json.dumps(<node>, indent=2)``,
    ``warnings=[<node>]``, or those after a break behind the bracket): a rewrite that
    breaks ``node`` over lines breaks the items onto lines of their own."""
    holder = parent_of(node)
    bracket = parent_of(holder) if holder is not None else None
    if isinstance(holder, cst.Arg) and isinstance(bracket, cst.Call):
        last = bracket.args[-1]
        one_line = isinstance(last.comma, cst.MaybeSentinel) and all(
            isinstance(a.whitespace_after_arg, cst.SimpleWhitespace) and _same_line(a.comma)
            for a in bracket.args[:-1]
        )
        return bracket if one_line and holder.keyword is None and not holder.star else None
    if isinstance(holder, cst.Element) and isinstance(bracket, cst.List):
        last_element = bracket.elements[-1]
        one_line = isinstance(last_element.comma, cst.MaybeSentinel) and all(
            _same_line(e.comma) for e in bracket.elements[:-1]
        )
        return bracket if one_line else None
    return None


def _same_line(comma: cst.Comma | cst.MaybeSentinel) -> bool:
    return isinstance(comma, cst.Comma) and isinstance(comma.whitespace_after, cst.SimpleWhitespace)


def breaks_before_arguments(bracket: Hugging) -> bool:
    """Does a line break follow the call's ``(`` (the list's ``[``)?"""
    if isinstance(bracket, cst.List):
        return isinstance(bracket.lbracket.whitespace_after, cst.ParenthesizedWhitespace)
    return isinstance(bracket.whitespace_before_args, cst.ParenthesizedWhitespace)


def _items(bracket: Hugging) -> int:
    return len(bracket.elements) if isinstance(bracket, cst.List) else len(bracket.args)


def place_argument(
    in_place: cst.BaseExpression,
    site: cst.CSTNode,
    *,
    parent_of: Callable[[cst.CSTNode], cst.CSTNode | None],
    one_line: bool,
    alone: Callable[[int], cst.BaseExpression],
    call_indentation: Callable[[Hugging], str],
    unit: str,
) -> cst.BaseExpression | OwnLine:
    """Where the rewrite of ``site`` goes: ``in_place`` (laid out where ``site`` starts),
    or an :class:`OwnLine` that splits the call around it.

    Why: the formatters' right-hand split. Where ``site`` sat on ``one_line`` as a
    positional argument of a call whose arguments share a line, or an element of such a
    list (:func:`hugging_bracket`), and its rewrite breaks over lines, black and ruff do not
    leave ``f(Warning(`` (``[Warning(``) hugging the bracket: they break after it, give
    each item a line of its own (several with a trailing comma) and put the closing bracket
    back at the indentation of the line it opens on. Left in place, the output
    is code the project's next ``ruff format`` would change. The warning and the error
    rules lay their rewrites out differently, so each passes what only it knows:

    - ``alone(suffix)``: the rewrite laid out one ``unit`` deeper than the site's line,
      ``suffix`` characters (the comma of one of several arguments) after it;
    - ``call_indentation(bracket)``: the indentation, beyond the enclosing block's, of the
      line the call (the list) starts on, where its ``)`` (``]``) goes.

    A call that breaks after ``(`` already has its arguments on a line of their own, so
    ``in_place`` is the rewrite laid out for that line, and the call's arguments are split
    one per line around it (``insert(`` / ``0, Warning(`` would not survive the formatter);
    a sole argument there is on a line of its own already, and a call with comments among
    its arguments is left as it is (splitting it would drop them).
    """
    if "\n" not in expression_code(in_place) or not one_line:
        return in_place
    bracket = hugging_bracket(site, parent_of)
    if bracket is None:
        return in_place
    if breaks_before_arguments(bracket):
        if _items(bracket) == 1 or has_comment(bracket):
            return in_place  # on a line of its own already; comments keep their lines
        laid_alone = in_place
    else:
        laid_alone = alone(0 if _items(bracket) == 1 else len(","))
    return OwnLine(laid_alone, call_indentation(bracket), unit)


def split_around(bracket: Hugging, base: str, unit: str) -> Hugging:
    """``bracket`` with each item on a line of its own at ``base`` plus ``unit``, the
    closing bracket back at ``base``: a sole item without a trailing comma (black's
    right-hand split), several with one (black's one-per-line split)."""
    inner = base + unit
    if isinstance(bracket, cst.List):
        lbracket = bracket.lbracket.with_changes(whitespace_after=newline(inner))
        if len(bracket.elements) == 1:
            rbracket = bracket.rbracket.with_changes(whitespace_before=newline(base))
            return bracket.with_changes(lbracket=lbracket, rbracket=rbracket)
        elements = one_per_line(bracket.elements, inner, base)
        rbracket = bracket.rbracket.with_changes(whitespace_before=cst.SimpleWhitespace(""))
        return bracket.with_changes(lbracket=lbracket, elements=elements, rbracket=rbracket)
    if len(bracket.args) == 1:
        arg = bracket.args[0]
        return bracket.with_changes(
            whitespace_before_args=newline(inner),
            args=[arg.with_changes(whitespace_after_arg=newline(base))],
        )
    args = one_per_line(bracket.args, inner, base)
    return bracket.with_changes(whitespace_before_args=newline(inner), args=args)


Holding = cst.Call | cst.Dict  # a bracket that holds a split list as an item's value


def split_holding(
    holding: Holding, split: cst.BaseExpression, base: str, unit: str
) -> Holding | None:
    """``holding`` -- a call or dict on one line with ``split`` (a list just split around a
    rewrite, its ``]`` at ``base``, or a holding split so in turn) as an item's value --
    split first, as the formatter splits the outermost bracket of a line first: each item
    on a line of its own at ``base`` plus ``unit``, the list moved one ``unit`` deeper with
    it. None where ``holding`` has its items over lines already (or another item spans
    lines): the inner split is then the whole story."""
    if isinstance(holding, cst.Call):
        items: Sequence[cst.Arg | cst.BaseDictElement] = holding.args
        opened = holding.whitespace_before_args
    else:
        items, opened = holding.elements, holding.lbrace.whitespace_after
    if not items or isinstance(opened, cst.ParenthesizedWhitespace):
        return None
    others = [item for item in items if item.value is not split]
    if len(others) == len(items) or not _on_one_line(items, others):
        return None
    moved = shift_lines(split, len(unit))
    laid = [item.with_changes(value=moved) if item.value is split else item for item in items]
    if isinstance(holding, cst.Call):
        return cast(cst.Call, split_around(holding.with_changes(args=laid), base, unit))
    inner = base + unit
    lbrace = holding.lbrace.with_changes(whitespace_after=newline(inner))
    if len(laid) == 1:  # a sole item: no trailing comma (the formatter's right-hand split)
        rbrace = holding.rbrace.with_changes(whitespace_before=newline(base))
        return holding.with_changes(lbrace=lbrace, elements=laid, rbrace=rbrace)
    rbrace = holding.rbrace.with_changes(whitespace_before=cst.SimpleWhitespace(""))
    return holding.with_changes(
        lbrace=lbrace, elements=one_per_line(laid, inner, base), rbrace=rbrace
    )


def _on_one_line(
    items: Sequence[cst.Arg | cst.BaseDictElement],
    others: Sequence[cst.Arg | cst.BaseDictElement],
) -> bool:
    """No line break between the items nor inside the ones besides the split list."""
    if not isinstance(items[-1].comma, cst.MaybeSentinel):
        return False  # a trailing comma: the author's (magic) split
    spaced = all(
        isinstance(item.whitespace_after_arg, cst.SimpleWhitespace)
        for item in items
        if isinstance(item, cst.Arg)
    )
    return (
        spaced
        and all(_same_line(item.comma) for item in items[:-1])
        and not any("\n" in expression_code(item) for item in others)
    )
