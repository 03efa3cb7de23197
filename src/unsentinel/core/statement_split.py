"""Split a statement that a rewrite pushed past the line length, as ruff and black do.

What: a statement that fitted on its line before a rewrite and no longer does after it
(``assert "x" not in result.warnings`` becoming ``... not in [w.message for w in
result.warnings]``) is laid out over lines as the formatter lays it out: split at its last
bracket (the right-hand split), or inside the optional parentheses that the formatter puts
around an ``assert``'s test, a ``return`` value or an assignment's value.

Why: a project that runs ``ruff format --check`` in CI fails on every line a reader
rewrite made too long. The producers' constructions are laid out where they are built
(:mod:`unsentinel.core.layout`); a reader rewrite changes a few characters deep inside a
statement, so the statement is laid out again as a whole, once every edit is in.

A statement the formatter had laid out over lines is laid out again after its edits, and a
``def`` line an annotation rewrite made too long has its parameters split: see
:mod:`unsentinel.core.relayout`, which lays them out with this module's lines.

Only the shapes whose layout the formatter's rules decide plainly are split: a last
bracket that holds arguments, elements or a comprehension; a comparison or a chain of
``and``/``or`` split before its operators. Anything else (a method called on a call's
result, a one-element tuple, a tab-indented block) is left on its line: the code is the
same, and the project's formatter will lay it out.

Example (line length 88)::

    assert "quantity is fine, nothing else to say" not in [w.message for w in result.warnings]

    assert "quantity is fine, nothing else to say" not in [
        w.message for w in result.warnings
    ]
"""

from __future__ import annotations

import ast
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

_EMPTY = cst.Module(body=[])
_MARK = "__unsentinel_bracket__"


def split_statement(
    statement: cst.BaseSmallStatement, *, column: int, unit: str, limit: int
) -> str | None:
    """``statement`` laid out over lines, each continuation line indented relative to the
    statement's own line (which starts at ``column``), or None where it fits on its line
    or its shape is not one this module splits."""
    if unit.strip(" ") or not unit:
        return None  # tabs: the formatter measures them by its own setting
    code = node_code(statement)
    if "\n" in code or column + text_width(code) <= limit:
        return None
    lines = formatter_lines(statement, column, unit, limit)
    if lines is None or lines == [code] or not same_code(code, lines):
        return None
    return "\n".join(lines)


def formatter_lines(
    statement: cst.BaseSmallStatement, column: int, unit: str, limit: int
) -> list[str] | None:
    """The formatter's lines for a statement written on one line: the line itself where
    it fits, else its split; None where the shape is not one this module lays out."""
    code = node_code(statement)
    if column + text_width(code) <= limit:
        return [code]
    head, value, tail, optional = _parts(statement)
    if value is None:
        return None
    return _Splitter(column, unit, limit).line(head, value, tail, depth=0, optional=optional)


def text_width(text: str) -> int:
    """Columns as the formatter counts them: a wide character (an emoji, CJK) takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _parts(
    statement: cst.BaseSmallStatement,
) -> tuple[str, cst.BaseExpression | None, str, bool]:
    """The text before the value to split, the value, the text after it, and whether the
    formatter may wrap the value in parentheses of its own (an expression statement has
    none). An ``assert``'s message is that value where it ends with a bracket: the
    formatter splits the last bracket of the line."""
    if isinstance(statement, cst.Assert):
        if statement.msg is None:
            return "assert ", statement.test, "", True
        if _last_bracket(statement.msg) is not None:
            return f"assert {node_code(statement.test)}, ", statement.msg, "", True
        return "assert ", statement.test, f", {node_code(statement.msg)}", True
    if isinstance(statement, cst.Return) and statement.value is not None:
        return "return ", statement.value, "", True
    if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
        return node_code(statement.targets[0].target) + " = ", statement.value, "", True
    if isinstance(statement, cst.AnnAssign) and statement.value is not None:
        annotation = node_code(statement.annotation.annotation)
        return f"{node_code(statement.target)}: {annotation} = ", statement.value, "", True
    if isinstance(statement, cst.AugAssign):
        operator = node_code(statement.operator).strip()
        return f"{node_code(statement.target)} {operator} ", statement.value, "", True
    if isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call):
        return "", statement.value, "", False
    return "", None, "", False


@dataclass(frozen=True)
class _Bracket:
    """A bracket pair the split opens: the text up to and including its opening bracket,
    its contents, and the text from its closing bracket on."""

    head: str
    items: list[str]  # each item's one-line code (an argument with its keyword)
    nodes: list[cst.BaseExpression | None]  # each item's value, where it can split further
    labels: list[str]  # ``key=`` or ``"key": `` before a value
    tail: str
    explode: bool  # a literal of several elements: one per line with a trailing comma
    comprehension: bool


class _Splitter:
    def __init__(self, column: int, unit: str, limit: int) -> None:
        self.column = column
        self.unit = unit
        self.limit = limit

    def fits(self, depth: int, text: str) -> bool:
        return self.column + len(self.unit) * depth + text_width(text) <= self.limit

    def pad(self, depth: int, text: str) -> str:
        return self.unit * depth + text

    def line(
        self, head: str, node: cst.BaseExpression, tail: str, *, depth: int, optional: bool
    ) -> list[str] | None:
        """``head`` + ``node`` + ``tail`` on lines, the first at ``depth``; ``optional``:
        the formatter may wrap ``node`` in parentheses of its own."""
        whole = head + node_code(node) + tail
        if self.fits(depth, whole):
            return [self.pad(depth, whole)]
        if _method_of_result(node):
            return None
        if optional and not self._keeps_parentheses_off(node, depth):
            return self._in_parentheses(head, node, tail, depth)
        split = self._at_last_bracket(head, node, tail, depth)
        if split is None and optional:
            split = self._in_parentheses(head, node, tail, depth)
        if split is None and optional and _atom(node):
            return [self.pad(depth, whole)]  # fits nowhere: the formatter leaves it long
        return split

    def _keeps_parentheses_off(self, node: cst.BaseExpression, depth: int) -> bool:
        """The formatter's test for leaving out the optional parentheses: no operator to
        split at, or one whose right side ends with a bracket (not an index) that opens
        within the line or after another bracket."""
        operators = _operators(node)
        if operators == 0:
            return True
        if operators > 1:
            return False
        bracket = _last_bracket(node)
        if bracket is None or isinstance(bracket, cst.Subscript) or not _has_items(bracket):
            return False
        text = node_code(node)
        before = text[: len(text) - len(node_code(bracket))] + _opening(bracket)
        other_brackets = any(b in before[:-1] for b in "([{")
        return other_brackets or self.fits(depth + 1, before)

    def _in_parentheses(
        self, head: str, node: cst.BaseExpression, tail: str, depth: int
    ) -> list[str] | None:
        body = self._operands(node, depth + 1)
        if body is None or not self.fits(depth, head + "("):
            return None
        return [self.pad(depth, head + "("), *body, self.pad(depth, ")" + tail)]

    def _operands(self, node: cst.BaseExpression, depth: int) -> list[str] | None:
        """``node`` inside parentheses: on one line, or split before each operator; an
        operand whose line is still too long is split before its own operators (a
        comparison in a chain of ``and``), at the same depth."""
        whole = node_code(node)
        if self.fits(depth, whole):
            return [self.pad(depth, whole)]
        pieces = _operator_pieces(node)
        if pieces is None:
            return None
        lines = []
        for operator, operand in pieces:
            piece = operator + node_code(operand)
            if self.fits(depth, piece):
                lines.append(self.pad(depth, piece))
                continue
            inner = _operator_pieces(operand) if isinstance(operand, cst.Comparison) else None
            if inner is None:
                return None
            inner_lines = [o + node_code(n) for o, n in inner]
            inner_lines[0] = operator + inner_lines[0]
            if not all(self.fits(depth, line) for line in inner_lines):
                return None
            lines += [self.pad(depth, line) for line in inner_lines]
        return lines

    def _at_last_bracket(
        self, head: str, node: cst.BaseExpression, tail: str, depth: int
    ) -> list[str] | None:
        bracket = _last_bracket(node)
        if bracket is None or not _has_items(bracket):
            return None
        anatomy = _anatomy(bracket, _around(node, bracket))
        if anatomy is None:
            return None
        opening = head + anatomy.head
        closing = anatomy.tail + tail
        if not (self.fits(depth, opening) and self.fits(depth, closing)):
            return None
        body = self._body(anatomy, depth + 1)
        if body is None:
            return None
        return [self.pad(depth, opening), *body, self.pad(depth, closing)]

    def _body(self, anatomy: _Bracket, depth: int) -> list[str] | None:
        joined = (" " if anatomy.comprehension else ", ").join(anatomy.items)
        if not anatomy.explode and self.fits(depth, joined):
            return [self.pad(depth, joined)]
        if anatomy.comprehension:
            if not all(self.fits(depth, clause) for clause in anatomy.items):
                return None
            return [self.pad(depth, clause) for clause in anatomy.items]
        if len(anatomy.items) == 1:
            node = anatomy.nodes[0]
            if node is None:
                return None
            return self.line(anatomy.labels[0], node, "", depth=depth, optional=False)
        lines: list[str] = []
        for label, node, item in zip(anatomy.labels, anatomy.nodes, anatomy.items, strict=True):
            if self.fits(depth, item + ","):
                lines.append(self.pad(depth, item + ","))
                continue
            if node is None:
                return None
            laid = self.line(label, node, ",", depth=depth, optional=False)
            if laid is None:
                return None
            lines += laid
        return lines


def node_code(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


def same_code(code: str, lines: Sequence[str]) -> bool:
    """The split changed only the layout: both parse to the same syntax tree."""
    try:
        before = ast.dump(ast.parse(code))
        after = ast.dump(ast.parse("\n".join(lines)))
    except SyntaxError:
        return False
    return before == after


def _method_of_result(node: cst.BaseExpression) -> bool:
    """``f(x).g(y)``, ``a[0].b()``: the formatter may split at the dots; not done here."""
    current: cst.BaseExpression = node
    while True:
        if isinstance(current, cst.Call):
            current = current.func
        elif isinstance(current, cst.Subscript):
            current = current.value
        elif isinstance(current, cst.Attribute):
            if isinstance(current.value, (cst.Call, cst.Subscript)) and _ends_call(current.value):
                return True
            current = current.value
        else:
            return False


def _ends_call(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) or (
        isinstance(node, cst.Subscript) and isinstance(node.value, cst.Call)
    )


def _operators(node: cst.BaseExpression) -> int:
    """How many operators of the loosest kind the expression has outside brackets."""
    if node.lpar:
        return 0
    if isinstance(node, cst.BooleanOperation):
        return 1 + sum(_operators(side) for side in (node.left, node.right) if _boolean(side))
    if isinstance(node, cst.Comparison):
        return len(node.comparisons)
    if isinstance(node, (cst.BinaryOperation, cst.IfExp, cst.Tuple)):
        return 2  # an arithmetic chain, a conditional, a bare tuple: parentheses stay
    return 0


def _boolean(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.BooleanOperation) and not node.lpar


def _operator_pieces(node: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression]] | None:
    """The lines of a split before each operator, as (operator, operand): ``("", a)``,
    ``("== ", b)`` / ``("and ", c)``."""
    if node.lpar:
        return None
    if isinstance(node, cst.Comparison):
        pieces: list[tuple[str, cst.BaseExpression]] = [("", node.left)]
        for target in node.comparisons:
            operator = node_code(target.operator).strip()
            pieces.append((f"{operator} ", target.comparator))
        return pieces
    if isinstance(node, cst.BooleanOperation):
        left = _operator_pieces(node.left) if _boolean(node.left) else [("", node.left)]
        if left is None:
            return None
        return [*left, (f"{node_code(node.operator).strip()} ", node.right)]
    return None


def _atom(node: cst.BaseExpression) -> bool:
    """A value with nothing inside to split at: a string or a name (dotted)."""
    if isinstance(node, cst.Attribute):
        return _atom(node.value)
    return isinstance(node, (cst.SimpleString, cst.FormattedString, cst.Name))


def _last_bracket(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """The node whose closing bracket is the expression's last one (``[...]`` in
    ``a in [...]``; the call in ``any(...)``; ``f(x)`` in ``f(x).y``)."""
    if node.lpar:
        return None
    if isinstance(node, (cst.Call, cst.Subscript, *_LITERALS)):
        return node
    if isinstance(node, cst.Comparison):
        return _last_bracket(node.comparisons[-1].comparator)
    if isinstance(node, (cst.BooleanOperation, cst.BinaryOperation)):
        return _last_bracket(node.right)
    if isinstance(node, cst.UnaryOperation):
        return _last_bracket(node.expression)
    if isinstance(node, cst.Await):
        return _last_bracket(node.expression)
    if isinstance(node, cst.Attribute):
        return _last_bracket(node.value)
    return None


_LITERALS = (cst.List, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp)


def _has_items(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Call):
        return bool(node.args)
    if isinstance(node, (cst.List, cst.Set, cst.Dict)):
        return bool(node.elements)
    return True


def _opening(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Call):
        return "("
    if isinstance(node, (cst.Set, cst.Dict, cst.SetComp, cst.DictComp)):
        return "{"
    return "["


def _around(node: cst.BaseExpression, bracket: cst.BaseExpression) -> tuple[str, str]:
    """The text of ``node`` before and after ``bracket``."""
    marked = node.deep_replace(bracket, cst.Name(_MARK))
    before, _, after = node_code(marked).partition(_MARK)
    return before, after


def _anatomy(node: cst.BaseExpression, around: tuple[str, str]) -> _Bracket | None:
    before, after = around
    if isinstance(node, cst.Call):
        if any(arg.star for arg in node.args) and len(node.args) == 1:
            return None
        if len(node.args) == 1 and isinstance(node.args[0].value, cst.GeneratorExp):
            generator = node.args[0].value
            if not generator.lpar:
                clauses = _clauses(generator.elt, generator.for_in)
                head = before + node_code(node.func) + "("
                return _Bracket(head, clauses, [], [], ")" + after, False, True)
        labels = [_label(arg) for arg in node.args]
        items = [label + node_code(arg.value) for label, arg in zip(labels, node.args, strict=True)]
        values: list[cst.BaseExpression | None] = [arg.value for arg in node.args]
        head = before + node_code(node.func) + "("
        return _Bracket(head, items, values, labels, ")" + after, False, False)
    if isinstance(node, cst.Subscript):
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None
        index = node.slice[0].slice.value
        head = before + node_code(node.value) + "["
        return _Bracket(head, [node_code(index)], [index], [""], "]" + after, False, False)
    if isinstance(node, (cst.List, cst.Set)):
        values = [e.value if isinstance(e, cst.Element) else None for e in node.elements]
        items = [_element(e) for e in node.elements]
        closing = "]" if isinstance(node, cst.List) else "}"
        head = before + _opening(node)
        return _Bracket(
            head, items, values, [""] * len(items), closing + after, len(items) > 1, False
        )
    if isinstance(node, cst.Dict):
        labels = [_dict_label(e) for e in node.elements]
        values = [e.value if isinstance(e, cst.DictElement) else None for e in node.elements]
        items = [_element(e) for e in node.elements]
        head = before + "{"
        return _Bracket(head, items, values, labels, "}" + after, len(items) > 1, False)
    if isinstance(node, (cst.ListComp, cst.SetComp)):
        clauses = _clauses(node.elt, node.for_in)
        closing = "]" if isinstance(node, cst.ListComp) else "}"
        return _Bracket(before + _opening(node), clauses, [], [], closing + after, False, True)
    return None


def _label(arg: cst.Arg) -> str:
    if arg.keyword is not None:
        return arg.keyword.value + "="
    return arg.star


def _dict_label(element: cst.BaseDictElement) -> str:
    if isinstance(element, cst.DictElement):
        return node_code(element.key) + ": "
    return "**"


def _element(element: cst.CSTNode) -> str:
    if isinstance(element, (cst.Element, cst.DictElement, cst.StarredElement)):
        return node_code(element.with_changes(comma=cst.MaybeSentinel.DEFAULT)).strip()
    if isinstance(element, cst.StarredDictElement):
        return node_code(element.with_changes(comma=cst.MaybeSentinel.DEFAULT)).strip()
    return node_code(element).strip()


def _clauses(elt: cst.BaseExpression, for_in: cst.CompFor) -> list[str]:
    """A comprehension's element and its ``for`` and ``if`` clauses, each on its own."""
    clauses = [node_code(elt)]
    current: cst.CompFor | None = for_in
    while current is not None:
        prefix = "async for" if current.asynchronous is not None else "for"
        clauses.append(f"{prefix} {node_code(current.target)} in {node_code(current.iter)}")
        clauses += [f"if {node_code(condition.test)}" for condition in current.ifs]
        current = current.inner_for_in
    return clauses
