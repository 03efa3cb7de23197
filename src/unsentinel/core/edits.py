"""The one transform that applies every scheduled edit, keyed by the original node.

Apart from :mod:`unsentinel.core.engine` so that the engine imports LibCST only when a file
reaches it (``check`` on files without candidates never does).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import libcst as cst

from unsentinel.core.layout import newline
from unsentinel.core.own_line import OwnLine, split_around, split_holding
from unsentinel.core.quotes import new_strings_quoted
from unsentinel.core.relayout import relayout_statement, split_signature
from unsentinel.core.statement_split import split_statement
from unsentinel.core.target import nested_strings_requoted


class EditApplier(cst.CSTTransformer):
    """Replaces each original node that has a builder by ``builder(updated_node)``, the
    strings it adds in the project's ``quote``.

    A builder may answer :class:`~unsentinel.core.own_line.OwnLine`: its node, laid out for
    a line of its own, replaces an argument of a call, and that call breaks its arguments
    onto lines of their own when it is left in turn.

    A one-line statement that fitted ``line_length`` and no longer does after its edits is
    split as the formatter splits it, and one the formatter had laid out over lines is laid
    out again (:mod:`unsentinel.core.statement_split`, :mod:`unsentinel.core.relayout`)."""

    def __init__(
        self,
        edits: dict[cst.CSTNode, Any],
        quote: str = '"',
        line_length: int | None = None,
        parents: Mapping[cst.CSTNode, cst.CSTNode] | None = None,
    ) -> None:
        super().__init__()
        self._edits = edits
        self._holding = None if parents is None else _holding_edits(edits, parents)
        self._quote = quote
        self._line_length = line_length
        # Keyed by ``id``, each entry holding its node: a node freed while the tree is
        # rebuilt would hand its ``id`` on to a new one (an empty ``[]`` taken for a split).
        self._own_lines: dict[int, tuple[cst.CSTNode, OwnLine]] = {}
        self._split_lists: dict[int, tuple[cst.CSTNode, str]] = {}  # a split list -> its base
        self._split_holdings: dict[int, tuple[cst.CSTNode, str]] = {}  # a call or dict split first
        self._module: cst.Module | None = None
        self._blocks: list[str] = []  # the indentation of each enclosing block
        self._applied = 0  # builders run so far
        self._applied_before_statement = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Module):
            self._module = node
        elif isinstance(node, cst.IndentedBlock):
            self._blocks.append(node.indent if node.indent is not None else self._unit)
        elif isinstance(node, cst.SimpleStatementLine):
            self._applied_before_statement = self._applied
        return super().on_visit(node) and self._holds_edit(node)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        if isinstance(original_node, cst.IndentedBlock):
            self._blocks.pop()
        if not self._holds_edit(original_node):
            return updated_node  # the original subtree, kept whole: nothing below changed
        updated_node = self._split_for_own_line(updated_node)
        if isinstance(updated_node, (cst.Call, cst.Dict)):
            updated_node = self._split_holding(updated_node)
        if isinstance(updated_node, cst.Arg):
            updated_node = self._break_before_operator(updated_node)
        builder = self._edits.get(original_node)
        if builder is None:
            if isinstance(original_node, cst.SimpleStatementLine) and isinstance(
                updated_node, cst.SimpleStatementLine
            ):
                return self._split_if_pushed_past_limit(original_node, updated_node)
            if isinstance(original_node, cst.FunctionDef) and isinstance(
                updated_node, cst.FunctionDef
            ):
                return self._split_signature(original_node, updated_node)
            return updated_node
        self._applied += 1
        replacement = builder(updated_node)
        if isinstance(replacement, OwnLine):
            node = new_strings_quoted(replacement.node, updated_node, self._quote)
            self._own_lines[id(node)] = (node, replacement)
            return node
        if isinstance(replacement, cst.CSTNode):
            return new_strings_quoted(replacement, updated_node, self._quote)
        return replacement

    @property
    def _unit(self) -> str:
        """One level of the module's indentation."""
        return self._module.default_indent if self._module else "    "

    def _holds_edit(self, node: cst.CSTNode) -> bool:
        """Is ``node`` edited, or above an edited node? Every hook below leaves any other
        node as it is (nothing is split, re-laid or replaced where no builder ran), so its
        subtree is neither walked nor rebuilt: a file of a thousand sites among ten
        thousand lines was rebuilt node by node (1.6 million visits) for its edits."""
        return self._holding is None or node in self._holding

    def _split_for_own_line(self, node: cst.CSTNode) -> cst.CSTNode:
        if isinstance(node, cst.Call):
            values = [arg.value for arg in node.args]
        elif isinstance(node, cst.List):
            values = [e.value for e in node.elements]
        else:
            return node
        for value in values:
            entry = self._own_lines.get(id(value))
            if entry is not None and entry[0] is value:
                del self._own_lines[id(value)]
                wanted = entry[1]
                split = split_around(node, wanted.base, wanted.unit)
                if isinstance(split, cst.List):
                    self._split_lists[id(split)] = (split, wanted.base)
                return split
        return node

    def _split_holding(self, node: cst.Call | cst.Dict) -> cst.Call | cst.Dict:
        """``Summary(count=0, warnings=[`` / ``Warning(...)`` / ``])``: the formatter splits
        the call (the dict) holding the split list first, and one holding that in turn."""
        values = (
            [a.value for a in node.args]
            if isinstance(node, cst.Call)
            else [
                e.value
                for e in node.elements
                if isinstance(e, (cst.DictElement, cst.StarredDictElement))
            ]
        )
        for value in values:
            base = self._split_base(value)
            if base is None:
                continue
            split = split_holding(node, value, base, self._unit)
            if split is None:
                return node
            self._split_holdings[id(split)] = (split, base)
            return split
        return node

    def _split_base(self, node: cst.CSTNode) -> str | None:
        """The base indentation of ``node`` where it is a list split around a rewrite, or
        a bracket split because it holds one."""
        base = _base_in(self._split_lists, node)
        return base if base is not None else _base_in(self._split_holdings, node)

    def _break_before_operator(self, arg: cst.Arg) -> cst.Arg:
        """``f(x=warnings or [`` / ``Warning(...)`` / ``])``: inside brackets there are no
        optional parentheses, so the formatter splits before the operator first
        (``x=warnings`` / ``or [``), the operator at the argument's indentation."""
        value = arg.value
        if not isinstance(value, (cst.BooleanOperation, cst.BinaryOperation)) or value.lpar:
            return arg
        base = _base_in(self._split_lists, value.right)
        before = getattr(value.operator, "whitespace_before", None)  # on every operator class
        if base is None or not isinstance(before, cst.SimpleWhitespace):
            return arg
        operator = value.operator.with_changes(whitespace_before=newline(base))
        return arg.with_changes(value=value.with_changes(operator=operator))

    def _split_if_pushed_past_limit(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        """Only a statement the edits made too long: a line its author wrote long (or a
        project without a formatter's limit) stays as it was. A statement over several
        lines is laid out again only where its lines were the formatter's."""
        if self._line_length is None or self._module is None:
            return updated
        if self._applied == self._applied_before_statement:
            return updated  # no edit inside
        if len(updated.body) != 1 or updated.trailing_whitespace.comment is not None:
            return updated
        column = len("".join(self._blocks))
        before = self._module.code_for_node(original.body[0])
        unit, limit = self._module.default_indent, self._line_length
        # Laid out as the code will be written: strings nested in an f-string re-quoted.
        statement = nested_strings_requoted(updated.body[0], original.body[0])
        if "\n" in before:
            split = relayout_statement(
                original.body[0], statement, column=column, unit=unit, limit=limit
            )
        elif column + len(before) > limit:
            return updated
        else:
            split = split_statement(statement, column=column, unit=unit, limit=limit)
        if split is None:
            return updated
        parsed = cst.parse_statement(split + "\n", self._module.config_for_parsing)
        if not isinstance(parsed, cst.SimpleStatementLine):
            return updated
        return updated.with_changes(body=parsed.body)

    def _split_signature(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.FunctionDef:
        """A ``def`` line an annotation rewrite pushed past the limit: its parameters
        split as the formatter splits them."""
        if self._line_length is None or self._module is None:
            return updated
        split = split_signature(
            original,
            updated,
            column=len("".join(self._blocks)),
            unit=self._module.default_indent,
            limit=self._line_length,
            config=self._module.config_for_parsing,
        )
        return updated if split is None else split


def _holding_edits(
    edits: dict[cst.CSTNode, Any], parents: Mapping[cst.CSTNode, cst.CSTNode]
) -> set[cst.CSTNode]:
    """Every edited node and each of its ancestors, up to the module."""
    holding: set[cst.CSTNode] = set()
    for node in edits:
        current: cst.CSTNode | None = node
        while current is not None and current not in holding:
            holding.add(current)
            current = parents.get(current)
    return holding


def _base_in(table: dict[int, tuple[cst.CSTNode, str]], node: cst.CSTNode) -> str | None:
    entry = table.get(id(node))
    return entry[1] if entry is not None and entry[0] is node else None
