"""Lay out a generated call so the diff reads like code a person wrote.

The call stays on one line when that line fits the project's line length; otherwise each
keyword argument gets its own line, indented one level past the statement, with a
trailing comma (black's "magic trailing comma" shape). Multi-line argument values keep
their shape: continuation lines move by as many columns as the value's start moved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar, cast

import libcst as cst


def call_code(
    name: str,
    arguments: Sequence[tuple[str, str]],
    *,
    line_text: str,
    column: int,
    indent_unit: str,
    suffix_length: int,
    block_indent: int,
    line_length: int,
) -> str:
    """Source for ``name(k=v, ...)`` -- or, with ``name=""``, the dict ``{"k": v, ...}`` --
    replacing an expression at 0-based ``column`` of ``line_text``; ``suffix_length``
    characters follow the expression on its last line; ``line_length`` is the project's."""
    opener, closer = (f"{name}(", ")") if name else ("{", "}")
    items = [f"{k}={v}" if name else f'"{k}": {v}' for k, v in arguments]
    one_line = opener + ", ".join(items) + closer
    if "\n" not in one_line and column + len(one_line) + suffix_length <= line_length:
        return one_line
    # LibCST re-adds the enclosing block's indentation to continuation lines inside
    # brackets, so everything below is written relative to that block.
    indentation = line_text[: len(line_text) - len(line_text.lstrip())]
    base = indentation[block_indent:]
    inner = base + indent_unit
    lines = [opener]
    for key, value in arguments:
        label = f"{key}=" if name else f'"{key}": '
        # Continuation lines (an implicit concatenation's parts, a call's arguments, a
        # closing parenthesis) keep their place relative to the line the value began on,
        # which now starts with the label: the formatter's hanging indent, not an
        # alignment with the value's first character.
        delta = block_indent + len(inner) - len(indentation)
        lines.append(f"{inner}{label}{_shift(value, delta)},")
    lines.append(f"{base}{closer}")
    return "\n".join(lines)


def _shift(value: str, delta: int) -> str:
    """Move continuation lines of a multi-line value by ``delta`` columns."""
    if "\n" not in value or delta == 0 or '"""' in value or "'''" in value:
        return value
    first, *rest = value.split("\n")
    shifted = []
    for line in rest:
        if delta > 0:
            shifted.append(" " * delta + line if line.strip() else line)
        else:
            blank = len(line) - len(line.lstrip(" "))
            shifted.append(line[min(blank, -delta) :])
    return "\n".join([first, *shifted])


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
        if _items(bracket) == 1 or _has_comment(bracket):
            return in_place  # on a line of its own already; comments keep their lines
        laid_alone = in_place
    else:
        laid_alone = alone(0 if _items(bracket) == 1 else len(","))
    return OwnLine(laid_alone, call_indentation(bracket), unit)


def split_around(bracket: Hugging, base: str, unit: str) -> Hugging:
    """``bracket`` with each item on a line of its own at ``base`` plus ``unit``, the
    closing bracket back at ``base``: a sole item without a trailing comma (black's
    right-hand split), several with one (black's one-per-line split)."""
    if isinstance(bracket, cst.List):
        return _list_split_around(bracket, base, unit)
    call = bracket
    if len(call.args) == 1:
        arg = call.args[0]
        return call.with_changes(
            whitespace_before_args=_newline(base + unit),
            args=[arg.with_changes(whitespace_after_arg=_newline(base))],
        )
    inner = base + unit
    args = [
        a.with_changes(
            whitespace_after_arg=cst.SimpleWhitespace(""),
            comma=cst.Comma(
                whitespace_before=cst.SimpleWhitespace(""),
                whitespace_after=_newline(base if a is call.args[-1] else inner),
            ),
        )
        for a in call.args
    ]
    return call.with_changes(whitespace_before_args=_newline(inner), args=args)


def _list_split_around(listed: cst.List, base: str, unit: str) -> cst.List:
    inner = base + unit
    lbracket = listed.lbracket.with_changes(whitespace_after=_newline(inner))
    if len(listed.elements) == 1:
        rbracket = listed.rbracket.with_changes(whitespace_before=_newline(base))
        return listed.with_changes(lbracket=lbracket, rbracket=rbracket)
    elements = [
        e.with_changes(
            comma=cst.Comma(
                whitespace_before=cst.SimpleWhitespace(""),
                whitespace_after=_newline(base if e is listed.elements[-1] else inner),
            )
        )
        for e in listed.elements
    ]
    rbracket = listed.rbracket.with_changes(whitespace_before=cst.SimpleWhitespace(""))
    return listed.with_changes(lbracket=lbracket, elements=elements, rbracket=rbracket)


def expression_code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def fit_to_line(
    node: cst.BaseExpression,
    *,
    column: int,
    base: str,
    indent_unit: str,
    line_length: int,
    bracketed: bool = True,
    moved: Mapping[int, int] | None = None,
    block: int = 0,
    suffix: int = 0,
) -> cst.BaseExpression:
    """``node``, with its brackets broken one element per line where its one-line form
    would pass ``line_length`` (or spans lines already) -- outermost bracket first, inner
    ones only while still too long -- as black and ruff lay code out (magic trailing comma,
    hugging the statement). A chain of ``and`` / ``or`` breaks before each operator, inside
    parentheses of its own unless it already sits in brackets (``bracketed``).

    ``column`` is where the node starts (0-based) and ``base`` the indentation of its first
    line beyond the enclosing block's, which LibCST adds itself; ``block`` is that block's
    indentation, counted in the columns of the elements laid on lines of their own, and
    ``suffix`` the characters that follow the node on its line (a comma). ``moved`` names the values
    carried over from the source that span several lines (by ``id``), each with the
    indentation (beyond the block) of the line it started on there: such a value keeps its
    lines as its author broke them, every continuation line moved as far as the line it
    starts on moved (see :func:`shift_lines`).
    """
    layout = _Layout(indent_unit, line_length, moved or {}, block)
    return _fit(node, column, base, layout, bracketed=bracketed, suffix=suffix)


@dataclass(frozen=True)
class _Layout:
    unit: str
    limit: int
    moved: Mapping[int, int]
    block: int  # the enclosing block's indentation, which ``base`` and ``indent`` leave out


_E = TypeVar("_E", cst.Arg, cst.BaseDictElement, cst.BaseElement)
_N = TypeVar("_N", bound=cst.CSTNode)


def _fit(
    node: cst.BaseExpression,
    column: int,
    base: str,
    layout: _Layout,
    *,
    bracketed: bool = True,
    suffix: int = 0,
) -> cst.BaseExpression:
    """``suffix``: the characters that follow ``node`` on its last line (a comma)."""
    if id(node) in layout.moved:  # the author's lines, moved with the line they start on
        return shift_lines(node, len(base) - layout.moved[id(node)])
    one_line = _one_line(node)
    if "\n" not in one_line and column + len(one_line) + suffix <= layout.limit:
        return node
    inner = base + layout.unit
    if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute):
        # ``ErrorDetail(...).to_dict()``: break the call the method is called on.
        method = len(one_line) - len(_one_line(node.func.value))  # ``.to_dict()``
        called = _fit(node.func.value, column, base, layout, suffix=suffix + method)
        return node.with_changes(func=node.func.with_changes(value=called))
    if isinstance(node, cst.Call) and len(node.args) == 1 and not node.args[0].star:
        # One argument: on a line of its own, without a trailing comma (black's right-hand
        # split); broken further only if that line is still too long.
        arg = _fit_element(node.args[0], inner, layout)
        return node.with_changes(
            whitespace_before_args=_newline(inner),
            args=[
                arg.with_changes(
                    comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=_newline(base)
                )
            ],
        )
    if isinstance(node, cst.Call) and node.args:
        args = [_fit_element(a, inner, layout) for a in node.args]
        return node.with_changes(
            whitespace_before_args=_newline(inner), args=_one_per_line(args, inner, base)
        )
    if isinstance(node, cst.Dict) and node.elements:
        items = _one_per_line([_fit_element(e, inner, layout) for e in node.elements], inner, base)
        lbrace = node.lbrace.with_changes(whitespace_after=_newline(inner))
        return node.with_changes(lbrace=lbrace, elements=items)
    if isinstance(node, cst.List) and node.elements:
        elements = _one_per_line(
            [_fit_element(e, inner, layout) for e in node.elements], inner, base
        )
        lbracket = node.lbracket.with_changes(whitespace_after=_newline(inner))
        return node.with_changes(lbracket=lbracket, elements=elements)
    if isinstance(node, cst.BooleanOperation):
        return _fit_operands(node, base, layout.unit, bracketed=bracketed)
    return node


def _fit_operands(
    node: cst.BooleanOperation, base: str, unit: str, *, bracketed: bool
) -> cst.BooleanOperation:
    """``a and b and c`` one operand per line, each operator starting its line (black's
    delimiter split), in parentheses of its own where no bracket holds it."""
    if node.lpar or not bracketed:
        inner = base + unit
        broken = _break_before_operators(node, type(node.operator), inner)
        lpar = cst.LeftParen(whitespace_after=_newline(inner))
        rpar = cst.RightParen(whitespace_before=_newline(base))
        return broken.with_changes(lpar=[lpar], rpar=[rpar])
    return _break_before_operators(node, type(node.operator), base)


def _break_before_operators(
    node: cst.BooleanOperation, operator: type[cst.BaseBooleanOp], indent: str
) -> cst.BooleanOperation:
    left = node.left
    if (
        isinstance(left, cst.BooleanOperation)
        and not left.lpar
        and isinstance(left.operator, operator)
    ):
        left = _break_before_operators(left, operator, indent)
    spaced = node.operator.with_changes(
        whitespace_before=_newline(indent), whitespace_after=cst.SimpleWhitespace(" ")
    )
    return node.with_changes(left=left, operator=spaced)


def _fit_element(element: _E, indent: str, layout: _Layout) -> _E:
    """An argument or element on its own line at ``indent``: fit its value past the label.

    The line is measured as the formatter measures it: from the margin (the enclosing
    block's indentation included) to the trailing comma :func:`_one_per_line` adds."""
    start = layout.block + len(indent)
    comma = len(",")
    if isinstance(element, cst.Arg):
        label = f"{element.keyword.value}=" if element.keyword is not None else element.star
        value = _fit(element.value, start + len(label), indent, layout, suffix=comma)
        return element.with_changes(value=value)
    if isinstance(element, cst.DictElement):
        label = _one_line(element.key) + ": "
        value = _fit(element.value, start + len(label), indent, layout, suffix=comma)
        return element.with_changes(value=value)
    if isinstance(element, cst.StarredDictElement):
        value = _fit(element.value, start + 2, indent, layout, suffix=comma)
        return element.with_changes(value=value)
    if isinstance(element, cst.Element):
        value = _fit(element.value, start, indent, layout, suffix=comma)
        return element.with_changes(value=value)
    return element


def _one_per_line(elements: Sequence[_E], inner: str, base: str) -> list[_E]:
    """Every element ends with a comma and a line break: to the next element at ``inner``,
    after the last one to the closing bracket at ``base`` (an argument's own space before
    the bracket dropped: it would leave a line of blanks)."""
    laid_out = []
    for index, element in enumerate(elements):
        after = _newline(base if index == len(elements) - 1 else inner)
        comma = cst.Comma(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=after)
        laid = element.with_changes(comma=comma)
        if isinstance(laid, cst.Arg) and not _has_comment(laid.whitespace_after_arg):
            laid = laid.with_changes(whitespace_after_arg=cst.SimpleWhitespace(""))
        laid_out.append(laid)
    return laid_out


def shift_lines(node: _N, delta: int) -> _N:
    """``node`` with each line it continues onto moved ``delta`` columns (blanks removed
    from the start of a line, never anything else): the indentation of its line breaks and
    of its comment lines. The inside of a string is text, and stays as it is."""
    if delta == 0:
        return node
    return cast(_N, node.visit(_Shift(delta)))


class _Shift(cst.CSTTransformer):
    def __init__(self, delta: int) -> None:
        super().__init__()
        self._delta = delta

    def leave_ParenthesizedWhitespace(
        self, original_node: cst.ParenthesizedWhitespace, updated_node: cst.ParenthesizedWhitespace
    ) -> cst.ParenthesizedWhitespace:
        last = updated_node.last_line.with_changes(value=self._moved(updated_node.last_line.value))
        return updated_node.with_changes(last_line=last)

    def leave_EmptyLine(
        self, original_node: cst.EmptyLine, updated_node: cst.EmptyLine
    ) -> cst.EmptyLine:
        if updated_node.comment is None:
            return updated_node  # a blank line: nothing to indent
        space = updated_node.whitespace.with_changes(
            value=self._moved(updated_node.whitespace.value)
        )
        return updated_node.with_changes(whitespace=space)

    def _moved(self, space: str) -> str:
        if self._delta > 0:
            return " " * self._delta + space
        blanks = len(space) - len(space.lstrip(" "))
        return space[min(blanks, -self._delta) :]


def _has_comment(node: cst.CSTNode) -> bool:
    found = False

    class _Find(cst.CSTVisitor):
        def visit_Comment(self, comment: cst.Comment) -> None:
            nonlocal found
            found = True

    node.visit(_Find())
    return found


def newline(indent: str) -> cst.ParenthesizedWhitespace:
    """A line break inside brackets, the next line at ``indent`` past the block's."""
    return _newline(indent)


def _newline(indent: str) -> cst.ParenthesizedWhitespace:
    """A line break; the next line starts at the block's indentation plus ``indent``."""
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(), indent=True, last_line=cst.SimpleWhitespace(indent)
    )


def _one_line(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)
