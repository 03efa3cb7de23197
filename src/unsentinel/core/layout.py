"""Lay out a generated call so the diff reads like code a person wrote.

The call stays on one line when that line fits the project's line length; otherwise each
keyword argument gets its own line, indented one level past the statement, with a
trailing comma (black's "magic trailing comma" shape). Multi-line argument values keep
their shape: continuation lines move by as many columns as the value's start moved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


def before_parens(lines: list[str], line: int, column: int, parens: int) -> tuple[int, int]:
    """The 1-based line and column of the first of ``parens`` opening parentheses that end
    just before (line, column), whitespace and line breaks between them skipped."""
    for _ in range(parens):
        column -= 1
        while column < 1 or not lines[line - 1][column - 1].strip():
            if column < 1:
                line -= 1
                column = len(lines[line - 1])
            else:
                column -= 1
    return line, column


def after_parens(lines: list[str], line: int, column: int, parens: int) -> tuple[int, int]:
    """The line and the (exclusive, 1-based) end column past ``parens`` closing parentheses
    that follow (line, column)."""
    for _ in range(parens):
        while column > len(lines[line - 1]) or not lines[line - 1][column - 1].strip():
            if column > len(lines[line - 1]):
                line += 1
                column = 1
            else:
                column += 1
        column += 1
    return line, column


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
    one_line = expression_code(node)
    if "\n" not in one_line and column + len(one_line) + suffix <= layout.limit:
        return node
    inner = base + layout.unit
    if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute):
        # ``ErrorDetail(...).to_dict()``: break the call the method is called on.
        method = len(one_line) - len(expression_code(node.func.value))  # ``.to_dict()``
        called = _fit(node.func.value, column, base, layout, suffix=suffix + method)
        return node.with_changes(func=node.func.with_changes(value=called))
    if isinstance(node, cst.Call) and len(node.args) == 1 and not node.args[0].star:
        # One argument: on a line of its own, without a trailing comma (black's right-hand
        # split); broken further only if that line is still too long.
        arg = _fit_element(node.args[0], inner, layout)
        return node.with_changes(
            whitespace_before_args=newline(inner),
            args=[
                arg.with_changes(
                    comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=newline(base)
                )
            ],
        )
    if isinstance(node, cst.Call) and node.args:
        args = [_fit_element(a, inner, layout) for a in node.args]
        return node.with_changes(
            whitespace_before_args=newline(inner), args=one_per_line(args, inner, base)
        )
    if isinstance(node, cst.Dict) and node.elements:
        items = one_per_line([_fit_element(e, inner, layout) for e in node.elements], inner, base)
        lbrace = node.lbrace.with_changes(whitespace_after=newline(inner))
        return node.with_changes(lbrace=lbrace, elements=items)
    if isinstance(node, cst.List) and node.elements:
        elements = one_per_line(
            [_fit_element(e, inner, layout) for e in node.elements], inner, base
        )
        lbracket = node.lbracket.with_changes(whitespace_after=newline(inner))
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
        lpar = cst.LeftParen(whitespace_after=newline(inner))
        rpar = cst.RightParen(whitespace_before=newline(base))
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
        whitespace_before=newline(indent), whitespace_after=cst.SimpleWhitespace(" ")
    )
    return node.with_changes(left=left, operator=spaced)


def _fit_element(element: _E, indent: str, layout: _Layout) -> _E:
    """An argument or element on its own line at ``indent``: fit its value past the label.

    The line is measured as the formatter measures it: from the margin (the enclosing
    block's indentation included) to the trailing comma :func:`one_per_line` adds."""
    start = layout.block + len(indent)
    comma = len(",")
    if isinstance(element, cst.Arg):
        label = f"{element.keyword.value}=" if element.keyword is not None else element.star
        value = _fit(element.value, start + len(label), indent, layout, suffix=comma)
        return element.with_changes(value=value)
    if isinstance(element, cst.DictElement):
        label = expression_code(element.key) + ": "
        value = _fit(element.value, start + len(label), indent, layout, suffix=comma)
        return element.with_changes(value=value)
    if isinstance(element, cst.StarredDictElement):
        value = _fit(element.value, start + 2, indent, layout, suffix=comma)
        return element.with_changes(value=value)
    if isinstance(element, cst.Element):
        value = _fit(element.value, start, indent, layout, suffix=comma)
        return element.with_changes(value=value)
    return element


def one_per_line(elements: Sequence[_E], inner: str, base: str) -> list[_E]:
    """Every element ends with a comma and a line break: to the next element at ``inner``,
    after the last one to the closing bracket at ``base`` (an argument's own space before
    the bracket dropped: it would leave a line of blanks)."""
    laid_out = []
    for index, element in enumerate(elements):
        after = newline(base if index == len(elements) - 1 else inner)
        comma = cst.Comma(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=after)
        laid = element.with_changes(comma=comma)
        if isinstance(laid, cst.Arg) and not has_comment(laid.whitespace_after_arg):
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


def has_comment(node: cst.CSTNode) -> bool:
    found = False

    class _Find(cst.CSTVisitor):
        def visit_Comment(self, comment: cst.Comment) -> None:
            nonlocal found
            found = True

    node.visit(_Find())
    return found


def newline(indent: str) -> cst.ParenthesizedWhitespace:
    """A line break inside brackets; the next line starts at the block's indentation plus
    ``indent``."""
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(), indent=True, last_line=cst.SimpleWhitespace(indent)
    )
