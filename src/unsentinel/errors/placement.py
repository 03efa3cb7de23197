"""Where the new construction's lines break and where the old dict's comments go.

A rewrite must read as if a person had made it: the new envelope is broken over lines as
the project's formatter would, a multi-line dict stays multi-line, and no comment is lost.
These decisions need the source's indentation and the shape of the old dict, but not the
rule that found the site, so they live apart from it.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.layout import fit_to_line
from unsentinel.core.rule import RuleContext
from unsentinel.errors import dict_comments
from unsentinel.errors.shapes import DETAIL_CONTAINERS, Shape, elements_by_key

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


def fit(
    context: RuleContext,
    built: cst.BaseExpression,
    site: cst.CSTNode,
    comments: CommentPlan | None = None,
    multiline: bool = False,
) -> cst.BaseExpression:
    """Break the new construction over lines as the project's formatter would, keeping
    a multi-line dict multi-line and every comment it held."""
    position = context.position(site)
    lines = context.text.splitlines()
    statement = next(
        (a for a in context.ancestors(site) if isinstance(a, cst.SimpleStatementLine)),
        None,
    )
    start = context.position(statement).line if statement is not None else position.line
    block = _indentation(lines[start - 1])
    base = _indentation(lines[position.line - 1])[len(block) :]
    unit = context.module.default_indent
    line_length = context.config.line_length
    fitted = fit_to_line(
        built,
        column=position.column - 1,
        base=base,
        indent_unit=unit,
        line_length=line_length,
        bracketed=_in_brackets(context, site),
    )
    layout = dict_comments.Layout(base, len(block), unit, line_length)
    return dict_comments.place_comments(fitted, comments or {}, layout, multiline=multiline)


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


def _indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]
