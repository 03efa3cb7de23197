"""Where the new construction's lines break and where the old dict's comments go.

A rewrite must read as if a person had made it: the new envelope is broken over lines as
the project's formatter would, a multi-line dict stays multi-line, and no comment is lost.
These decisions need the source's indentation and the shape of the old dict, but not the
rule that found the site, so they live apart from it.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.layout import fit_to_line
from unsentinel.core.own_line import Hugging, OwnLine, place_argument
from unsentinel.core.rule import RuleContext
from unsentinel.errors import dict_comments
from unsentinel.errors.key_places import DETAIL_CONTAINERS
from unsentinel.errors.shapes import Shape, elements_by_key

CommentPlan = dict[dict_comments.Path, dict_comments.Comments]
"""Each part of the new construction, with the comments that move to it."""


def comment_plan(
    node: cst.Dict, shape: Shape, values: dict[str, cst.BaseExpression], *, envelope: bool
) -> CommentPlan:
    """Where each comment of the old dict goes in the new construction: a key's comments
    to the part that took its value, a dropped key's (a flag, a status) to the
    envelope's ``"success"`` (the helper's code argument)."""
    message: dict_comments.Path = ("error", "message") if envelope else ("#1",)
    details: dict_comments.Path = ("error", "details") if envelope else ("#2",)
    flag: dict_comments.Path = ("success",) if envelope else ("#0",)
    extracted = _extracted_containers(shape, values)
    carried = {shape.message_key, *shape.extra_keys} - {"status"} - extracted
    found = dict_comments.comments_of(node, dropped=frozenset(set(values) - carried - extracted))
    plan: CommentPlan = {dict_comments.OPENING: found.opening, dict_comments.CLOSING: found.closing}

    def add(path: dict_comments.Path, part: dict_comments.Comments) -> None:
        plan.setdefault(path, dict_comments.Comments()).absorb(part)

    for key, part in found.by_key.items():
        if key == shape.message_key:
            add(message, part)
        elif key in extracted:
            add(details, part)
            inner = dict_comments.comments_of(cst.ensure_type(values[key], cst.Dict))
            add(details, inner.opening)
            add(details, inner.closing)
            for inner_key, inner_part in inner.by_key.items():
                add((*details, inner_key), inner_part)
        elif key in carried and key not in DETAIL_CONTAINERS:
            add((*details, key), part)
        elif key in carried:
            add(details, part)  # spread into the details: ``**value``
        else:
            add(flag, part)
    return plan


def _extracted_containers(shape: Shape, values: dict[str, cst.BaseExpression]) -> set[str]:
    """Detail containers written as literal dicts: their keys move into ``details`` one by one."""
    return {
        key
        for key in shape.extra_keys
        if key in DETAIL_CONTAINERS
        and isinstance(values[key], cst.Dict)
        and elements_by_key(cst.ensure_type(values[key], cst.Dict)) is not None
    }


def fit_in_place(
    context: RuleContext,
    built: cst.BaseExpression,
    site: cst.CSTNode,
    comments: CommentPlan | None = None,
    multiline: bool = False,
    *,
    carried_from: tuple[cst.BaseExpression, cst.CSTNode] | None = None,
) -> cst.BaseExpression | OwnLine:
    """:func:`fit`; but where ``site`` was a positional argument of a call on one line
    (``json.dumps({...})``, ``json.dumps({...}, indent=2)``) and its rewrite breaks over
    lines, laid out on a line of its own, the call's arguments one per line as the
    formatter splits them (a dict its author wrote hugging the call over several lines
    keeps that shape)."""
    fitted = fit(context, built, site, comments, multiline, carried_from=carried_from)
    position = context.position(site)

    def alone(suffix: int) -> cst.BaseExpression:
        return fit(
            context,
            built,
            site,
            comments,
            multiline,
            carried_from=carried_from,
            alone=True,
            suffix=suffix,
        )

    def call_indentation(call: Hugging) -> str:
        lines = context.lines
        block = _indentation(lines[_statement_line(context, site) - 1])
        return _indentation(lines[context.position(call).line - 1])[len(block) :]

    return place_argument(
        fitted,
        site,
        parent_of=context.parent,
        one_line=position.line == position.end_line,
        alone=alone,
        call_indentation=call_indentation,
        unit=context.module.default_indent,
    )


def fit(
    context: RuleContext,
    built: cst.BaseExpression,
    site: cst.CSTNode,
    comments: CommentPlan | None = None,
    multiline: bool = False,
    *,
    carried_from: tuple[cst.BaseExpression, cst.CSTNode] | None = None,
    alone: bool = False,
    suffix: int = 0,
) -> cst.BaseExpression:
    """Break the new construction over lines as the project's formatter would, keeping
    a multi-line dict multi-line and every comment it held.

    ``carried_from``: the construction as built from the site's own nodes (before other
    edits were carried into it) and the node it took them from. A value of it that spans
    lines keeps the author's line breaks, indented as deep as its new place.
    """
    position = context.position(site)
    lines = context.lines
    block = _indentation(lines[_statement_line(context, site) - 1])
    base = _indentation(lines[position.line - 1])[len(block) :]
    unit = context.module.default_indent
    column = position.column - 1
    if alone:  # on a line of its own, one level deeper than the call's (``fit_in_place``)
        base += unit
        column = len(block) + len(base)
    line_length = context.config.line_length
    moved = _moved(context, built, carried_from, len(block)) if carried_from else {}
    fitted = fit_to_line(
        built,
        column=column,
        base=base,
        indent_unit=unit,
        line_length=line_length,
        bracketed=_in_brackets(context, site),
        moved=moved,
        block=len(block),
        suffix=suffix,
    )
    layout = dict_comments.Layout(base, len(block), unit, line_length)
    return dict_comments.place_comments(fitted, comments or {}, layout, multiline=multiline)


def _moved(
    context: RuleContext,
    built: cst.BaseExpression,
    carried_from: tuple[cst.BaseExpression, cst.CSTNode],
    block: int,
) -> dict[int, int]:
    """The values of ``built`` carried over from the source over several lines (by
    ``id``), each with the indentation beyond the block of the line it started on.

    ``before`` is ``built`` as it was made from the source's nodes: walked side by side
    with ``built`` (the same shape, but where another edit changed a part), a source node
    met in ``before`` names its counterpart in ``built``.
    """
    before, source = carried_from
    lines = context.lines
    spanning: dict[int, cst.CSTNode] = {}

    class _Collect(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, cst.BaseExpression) and "\n" in context.code_for(node):
                spanning[id(node)] = node
                return True
            return not isinstance(node, cst.BaseExpression) or isinstance(node, cst.Dict)

    source.visit(_Collect())
    moved: dict[int, int] = {}

    def walk(old: cst.CSTNode, new: cst.CSTNode) -> None:
        if id(old) in spanning and old is not source:
            moved[id(new)] = len(_indentation(lines[_first_line(context, old) - 1])) - block
            return
        old_children, new_children = old.children, new.children
        if len(old_children) == len(new_children):
            for old_child, new_child in zip(old_children, new_children, strict=True):
                walk(old_child, new_child)

    walk(before, built)
    return moved


def _first_line(context: RuleContext, node: cst.CSTNode) -> int:
    """The line ``node`` starts on, its own parentheses included (LibCST's syntactic
    position starts inside them)."""
    line = context.position(node).line
    if isinstance(node, cst.BaseExpression):
        line -= sum(context.code_for(paren).count("\n") for paren in node.lpar)
    return line


def _in_brackets(context: RuleContext, site: cst.CSTNode) -> bool:
    """Does ``site`` sit inside brackets of its statement, where a line may break freely?"""
    for ancestor in context.ancestors(site):
        if isinstance(ancestor, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return False
        if isinstance(ancestor, (cst.Call, cst.Dict, cst.List, cst.Tuple, cst.Set, cst.Subscript)):
            return True
        if isinstance(ancestor, cst.BaseExpression) and ancestor.lpar:
            return True
    return False


def _statement_line(context: RuleContext, site: cst.CSTNode) -> int:
    """The first line of the simple statement holding ``site``: its block's indentation."""
    statement = next(
        (a for a in context.ancestors(site) if isinstance(a, cst.SimpleStatementLine)),
        None,
    )
    return context.position(statement if statement is not None else site).line


def _indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]
