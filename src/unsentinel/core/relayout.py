"""Lay out again what the formatter had laid out, after a rewrite changed it.

What: a statement over several lines whose lines are exactly the formatter's
(:func:`relayout_statement`) is read as its one-line form and laid out again with
:func:`unsentinel.core.statement_split.formatter_lines`; a ``def`` line that fitted and no
longer does after an annotation rewrite has its parameters split (:func:`split_signature`).

Why: a reader rewrite inside ``assert (`` ... ``)`` can push one of its lines past the
limit, and ``-> list[Warning]`` can push a signature past it; the project's ``ruff format
--check`` would then fail on a file ``apply`` wrote. A layout the author made by hand is
kept: only the formatter's own is redone.

Example (line length 88), ``content["error"]`` read as ``content["error"]["message"]``::

    assert (
        content["success"] is False
        and content["error"]["message"]
        == "update_version requires at least one field to update"
    )
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TypeVar, cast

import libcst as cst

from unsentinel.core.layout import has_comment
from unsentinel.core.statement_split import formatter_lines, node_code, same_code, text_width


def relayout_statement(
    original: cst.BaseSmallStatement,
    updated: cst.BaseSmallStatement,
    *,
    column: int,
    unit: str,
    limit: int,
) -> str | None:
    """``updated`` laid out again where its ``original`` spanned lines exactly as the
    formatter lays that statement out (an edit made one of its lines too long, or short
    enough to join): the formatter's lines for ``updated``, or None where the author's
    layout is their own, a comment sits inside, or the shape is not one this module lays
    out.

    Why: ``assert (`` / ``a is False`` / ``and b["error"] == "..."`` / ``)`` whose last
    line a reader rewrite pushes past the limit is split again before ``==`` by the
    formatter; a parenthesized string that no longer fits inside its parentheses loses
    them."""
    if unit.strip(" ") or not unit:
        return None
    before = node_code(original)
    if "\n" not in before or has_comment(original):
        return None
    if node_code(updated).count("\n") != before.count("\n"):
        return None  # the edits laid out lines of their own (a construction): theirs stay
    flat_before, flat_after = _flattened(original), _flattened(updated)
    if flat_before is None or flat_after is None:
        return None
    if formatter_lines(flat_before, column, unit, limit) != before.split("\n"):
        return None  # not the formatter's layout: the author's, kept
    lines = formatter_lines(flat_after, column, unit, limit)
    if lines is None or not same_code(node_code(updated), lines):
        return None
    return "\n".join(lines)


def split_signature(
    original: cst.FunctionDef,
    updated: cst.FunctionDef,
    *,
    column: int,
    unit: str,
    limit: int,
    config: cst.PartialParserConfig,
) -> cst.FunctionDef | None:
    """``updated`` with its parameters on lines of their own where an edit of its
    signature (``-> list[str]`` becoming ``-> list[Warning]``) pushed a ``def`` line that
    fitted past the limit: together on one line between ``(`` and ``)`` where they fit
    there, else one per line with a trailing comma, as the formatter splits a signature.
    None where nothing needs splitting or the shape is not one laid out here."""
    if unit.strip(" ") or not unit or updated.type_parameters is not None:
        return None
    before, after = _signature(original), _signature(updated)
    if before == after or "\n" in before or "\n" in after:
        return None
    if column + text_width(before) > limit or column + text_width(after) <= limit:
        return None
    items = _parameters(updated.params)
    head = after[: after.index("(") + 1]
    returns = f" -> {node_code(updated.returns.annotation)}" if updated.returns else ""
    closing = f"){returns}:"
    inner = column + len(unit)
    if not items or column + text_width(head) > limit or column + text_width(closing) > limit:
        return None
    together = ", ".join(items)
    if inner + text_width(together) <= limit:
        lines = [unit + together]
    elif all(inner + text_width(item) + 1 <= limit for item in items):
        lines = [f"{unit}{item}," for item in items]
    else:
        return None
    text = "\n".join([head, *lines, closing]) + f"\n{unit}pass\n"
    parsed = cst.parse_statement(text, config)
    if not isinstance(parsed, cst.FunctionDef) or not same_code(
        after + " pass", [_signature(parsed) + " pass"]
    ):
        return None
    return updated.with_changes(
        params=parsed.params, whitespace_before_params=parsed.whitespace_before_params
    )


def _signature(node: cst.FunctionDef) -> str:
    """``def name(...) -> ...:`` as written, without decorators and body."""
    bare = node.with_changes(
        body=cst.SimpleStatementSuite(body=[cst.Pass()]), decorators=(), leading_lines=()
    )
    code = node_code(bare)
    return code[: code.rindex("pass")].rstrip()


def _parameters(params: cst.Parameters) -> list[str]:
    """Each parameter's code in order, ``/`` and a bare ``*`` included, without commas."""
    nodes: list[cst.CSTNode] = [*params.posonly_params]
    if isinstance(params.posonly_ind, cst.ParamSlash):
        nodes.append(params.posonly_ind)
    nodes += params.params
    if isinstance(params.star_arg, (cst.Param, cst.ParamStar)):
        nodes.append(params.star_arg)
    nodes += params.kwonly_params
    if params.star_kwarg is not None:
        nodes.append(params.star_kwarg)
    return [_parameter(node) for node in nodes]


def _parameter(node: cst.CSTNode) -> str:
    if isinstance(node, cst.ParamStar):
        return "*"  # its comma is part of it
    if isinstance(node, cst.ParamSlash):
        return "/"
    return node_code(node.with_changes(comma=cst.MaybeSentinel.DEFAULT)).strip()


def _flattened(statement: cst.BaseSmallStatement) -> cst.BaseSmallStatement | None:
    """``statement`` on one line as the formatter reads it before laying it out: line
    breaks inside brackets joined, a trailing comma and the parentheses around the value
    it may add or drop (``assert (`` ... ``)``) left out; None where that would change the
    code or a string spans lines."""
    flat = cast(cst.BaseSmallStatement, statement.visit(_Flatten()))
    flat = _without_value_parentheses(flat)
    code = node_code(flat)
    if "\n" in code or not same_code(node_code(statement), [code]):
        return None
    return flat


def _without_value_parentheses(statement: cst.BaseSmallStatement) -> cst.BaseSmallStatement:
    field = _VALUE_FIELDS.get(type(statement))
    value = getattr(statement, field, None) if field else None
    if not isinstance(value, cst.BaseExpression) or len(value.lpar) != 1:
        return statement
    bare = value.with_changes(lpar=[], rpar=[])
    return statement.with_changes(**{cast(str, field): bare})


_VALUE_FIELDS: dict[type[cst.CSTNode], str] = {
    cst.Assert: "test",
    cst.Return: "value",
    cst.Assign: "value",
    cst.AugAssign: "value",
}

# The whitespace next to a bracket or before a comma: nothing on one line; a space
# elsewhere (around an operator, after a comma).
_TIGHT = {
    (cst.LeftParen, "whitespace_after"),
    (cst.RightParen, "whitespace_before"),
    (cst.LeftSquareBracket, "whitespace_after"),
    (cst.RightSquareBracket, "whitespace_before"),
    (cst.LeftCurlyBrace, "whitespace_after"),
    (cst.RightCurlyBrace, "whitespace_before"),
    (cst.Call, "whitespace_before_args"),
    (cst.Call, "whitespace_after_func"),
    (cst.Arg, "whitespace_after_arg"),
    (cst.Comma, "whitespace_before"),
}


_N = TypeVar("_N", bound=cst.CSTNode)


class _Flatten(cst.CSTTransformer):
    def on_leave(self, original_node: _N, updated_node: _N) -> _N:
        changes: dict[str, object] = {}
        for field in dataclasses.fields(updated_node):
            if isinstance(getattr(updated_node, field.name), cst.ParenthesizedWhitespace):
                tight = (type(updated_node), field.name) in _TIGHT
                changes[field.name] = cst.SimpleWhitespace("" if tight else " ")
        if isinstance(updated_node, cst.Call) and updated_node.args:
            changes["args"] = _without_trailing_comma(updated_node.args)
        elif isinstance(updated_node, (cst.List, cst.Set, cst.Dict)) and updated_node.elements:
            changes["elements"] = _without_trailing_comma(updated_node.elements)
        return updated_node.with_changes(**changes) if changes else updated_node


def _without_trailing_comma(items: Sequence[cst.CSTNode]) -> list[cst.CSTNode]:
    last = items[-1]
    if isinstance(last, cst.Arg):
        last = last.with_changes(whitespace_after_arg=cst.SimpleWhitespace(""))
    return [*items[:-1], last.with_changes(comma=cst.MaybeSentinel.DEFAULT)]
