"""The comments of a rewritten error dict: read off the old dict, laid onto the new call.

A rebuilt dict is made of fresh nodes, so the comments that lived in its whitespace (after
``{``, after a comma, before ``}``) would vanish. :func:`comments_of` reads them off the
original dict per key; :mod:`unsentinel.errors.placement` maps each key to the part of the
new construction that took its value (a message to ``message=``, an extra key to its
``details`` entry, a dropped flag to the envelope's ``"success"``); :func:`place_comments`
writes them back there once the construction is laid out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from unsentinel.core.layout import fit_to_line
from unsentinel.core.syntax import string_value

Path = tuple[str, ...]  # labels from the outermost bracket: dict keys, keywords, "#<index>"
OPENING: Path = ("{",)  # the outermost bracket's own line
CLOSING: Path = ("}",)  # own lines before the outermost closing bracket


@dataclass
class Comments:
    """The comments that belong to one part: own lines before it, and at its line's end."""

    leading: list[str] = field(default_factory=list)
    trailing: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.leading or self.trailing)

    def absorb(self, other: Comments) -> None:
        self.leading += other.leading
        self.trailing += other.trailing

    def as_lines(self) -> list[str]:
        return [*self.leading, *self.trailing]


@dataclass
class DictComments:
    """Every comment of an original dict: on its opening line, per key, before ``}``."""

    opening: Comments = field(default_factory=Comments)
    by_key: dict[str, Comments] = field(default_factory=dict)
    closing: Comments = field(default_factory=Comments)


def comments_of(node: cst.Dict, dropped: frozenset[str] = frozenset()) -> DictComments:
    """The comments of ``node``'s own whitespace, per key; for a ``dropped`` key (whose value
    is not carried into the new construction) the comments inside its value too."""
    found = DictComments()
    first, pending = _whitespace_comments(node.lbrace.whitespace_after)
    found.opening.trailing += first
    last: Comments | None = None
    for index, element in enumerate(node.elements):
        key = _element_key(element, index)
        part = found.by_key.setdefault(key, Comments())
        part.leading += pending
        pending = []
        part.leading += _own_comments(element, keep_value=key not in dropped)
        if element.comma is not cst.MaybeSentinel.DEFAULT:
            assert isinstance(element.comma, cst.Comma)
            part.trailing += _all_comments(element.comma.whitespace_before)
            first, pending = _whitespace_comments(element.comma.whitespace_after)
            part.trailing += first
        last = part
    first, closing = _whitespace_comments(node.rbrace.whitespace_before)
    (last.trailing if last is not None else found.opening.trailing).extend(first)
    found.closing.leading += pending + closing
    return found


def breaks_lines(node: cst.Dict) -> bool:
    """Is the dict written over several lines (its brackets or commas break)?"""
    spaces: list[cst.BaseParenthesizableWhitespace] = [node.lbrace.whitespace_after]
    spaces += [e.comma.whitespace_after for e in node.elements if isinstance(e.comma, cst.Comma)]
    return any(isinstance(s, cst.ParenthesizedWhitespace) for s in spaces)


def _element_key(element: cst.BaseDictElement, index: int) -> str:
    if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
        value = string_value(element.key)
        if isinstance(value, str):
            return value
    return f"#{index}"


def _own_comments(element: cst.BaseDictElement, *, keep_value: bool) -> list[str]:
    """Comments of an element outside its comma: around the colon, and -- unless the value
    is carried over whole -- inside its key and value."""
    if not isinstance(element, cst.DictElement):
        return [] if keep_value else _all_comments(element)
    found = _all_comments(element.whitespace_before_colon)
    found += _all_comments(element.whitespace_after_colon)
    if not keep_value:
        found = _all_comments(element.key) + found + _all_comments(element.value)
    return found


def _whitespace_comments(space: cst.BaseParenthesizableWhitespace) -> tuple[list[str], list[str]]:
    """(the comment ending the line, the comments on lines of their own) of a whitespace."""
    if not isinstance(space, cst.ParenthesizedWhitespace):
        return [], []
    first = [space.first_line.comment.value] if space.first_line.comment is not None else []
    return first, [line.comment.value for line in space.empty_lines if line.comment is not None]


def _all_comments(node: cst.CSTNode) -> list[str]:
    found: list[str] = []

    class _Collect(cst.CSTVisitor):
        def visit_Comment(self, comment: cst.Comment) -> None:
            found.append(comment.value)

    node.visit(_Collect())
    return found


@dataclass(frozen=True)
class Layout:
    """Where the construction sits: indentation beyond the enclosing block, the block's
    width, the project's indent unit and line length."""

    base: str
    block: int
    unit: str
    line_length: int


def place_comments(
    built: cst.BaseExpression,
    plan: dict[Path, Comments],
    layout: Layout,
    *,
    multiline: bool,
) -> cst.BaseExpression:
    """``built`` with each planned part's comments written back at it.

    A bracket on the way to a comment is broken one element per line (a comment ends its
    line); the outermost one also when the original was ``multiline``. A planned path the
    construction lacks puts its comments before the first element of the deepest bracket
    that exists, so none is ever dropped.
    """
    plan = {path: part for path, part in plan.items() if part}
    if not plan and not multiline:
        return built
    return _lay(built, (), plan, layout, layout.base, force=multiline)


def _lay(
    node: cst.BaseExpression,
    prefix: Path,
    plan: dict[Path, Comments],
    layout: Layout,
    indent: str,
    *,
    force: bool = False,
) -> cst.BaseExpression:
    if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute):
        called = _lay(node.func.value, prefix, plan, layout, indent, force=force)
        return node.with_changes(func=node.func.with_changes(value=called))
    below = {p: c for p, c in plan.items() if p[: len(prefix)] == prefix and len(p) > len(prefix)}
    if isinstance(node, cst.Dict) and node.elements:
        items: Sequence[cst.BaseDictElement | cst.Arg] = node.elements
    elif isinstance(node, cst.Call) and node.args:
        items = node.args
    else:
        return node
    if not below and not force:
        return node
    labels = [_label(item, index) for index, item in enumerate(items)]
    values = [item.value for item in items]
    parts = _parts_per_element(below, prefix, labels, values, root=prefix == ())
    inner = indent + layout.unit
    laid: list[cst.BaseDictElement | cst.Arg] = []
    for index, item in enumerate(items):
        child = (*prefix, labels[index])
        value = item.value
        deeper = any(p[: len(child)] == child and len(p) > len(child) for p in below)
        if deeper and _container(value):
            value = _lay(value, child, plan, layout, inner)
        elif not _is_broken(node):  # newly broken: each value starts a line of its own
            value = fit_to_line(
                value,
                column=layout.block + len(inner) + len(_label_text(item)),
                base=inner,
                indent_unit=layout.unit,
                line_length=layout.line_length,
                block=layout.block,
                suffix=len(","),  # each value ends its line with a comma
            )
        laid.append(item.with_changes(value=value))
    return _with_comments(node, laid, parts, inner, indent)


def _parts_per_element(
    below: dict[Path, Comments],
    prefix: Path,
    labels: list[str],
    values: list[cst.BaseExpression],
    *,
    root: bool,
) -> list[Comments]:
    """[opening, one per element, closing]: the comments each place of a bracket carries."""
    opening, closing = Comments(), Comments()
    per_element = [Comments() for _ in labels]
    stray = Comments()
    for path, part in below.items():
        label = path[len(prefix)]
        if root and path == OPENING:
            opening.absorb(part)
        elif root and path == CLOSING:
            closing.absorb(part)
        elif label not in labels:
            stray.leading += part.as_lines()
        elif len(path) == len(prefix) + 1 or not _container(values[labels.index(label)]):
            per_element[labels.index(label)].absorb(part)  # a value without brackets: here
    if per_element:
        per_element[0].leading[:0] = stray.leading
    return [opening, *per_element, closing]


def _container(node: cst.BaseExpression) -> bool:
    """A bracket comments can be written into (``.to_dict()`` looked through)."""
    if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute):
        return _container(node.func.value)
    return (
        isinstance(node, cst.Dict)
        and bool(node.elements)
        or (isinstance(node, cst.Call) and bool(node.args))
    )


def _label(item: cst.BaseDictElement | cst.Arg, index: int) -> str:
    if isinstance(item, cst.Arg):
        return item.keyword.value if item.keyword is not None else f"#{index}"
    return _element_key(item, index)


def _label_text(item: cst.BaseDictElement | cst.Arg) -> str:
    """What precedes the value on its line: ``key=``, ``"key": `` or ``**``."""
    if isinstance(item, cst.Arg):
        return f"{item.keyword.value}=" if item.keyword is not None else item.star
    if isinstance(item, cst.DictElement):
        return cst.Module(body=[]).code_for_node(item.key) + ": "
    return "**"


def _is_broken(node: cst.Dict | cst.Call) -> bool:
    space = (
        node.lbrace.whitespace_after if isinstance(node, cst.Dict) else node.whitespace_before_args
    )
    return isinstance(space, cst.ParenthesizedWhitespace)


def _with_comments(
    node: cst.Dict | cst.Call,
    items: list[cst.BaseDictElement | cst.Arg],
    parts: list[Comments],
    inner: str,
    indent: str,
) -> cst.Dict | cst.Call:
    """One element per line, each part's comments where they belong: the opening comment on
    the bracket's line, an element's own lines before it and its comment at its line's end,
    the closing ones before the closing bracket."""
    opening, *per_element, closing = parts
    first = opening.trailing[:1]
    before_first = opening.trailing[1:] + opening.leading + per_element[0].leading
    open_space = _line_break(first, before_first, inner, inner)
    laid: list[cst.BaseDictElement | cst.Arg] = []
    for index, item in enumerate(items):
        own = per_element[index]
        last = index == len(items) - 1
        following = closing.as_lines() if last else per_element[index + 1].leading
        after = indent if last else inner  # the closing bracket's line, or the next element's
        space = _line_break(own.trailing[:1], own.trailing[1:] + following, inner, after)
        comma = cst.Comma(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=space)
        laid.append(item.with_changes(comma=comma))
    if isinstance(node, cst.Dict):
        lbrace = node.lbrace.with_changes(whitespace_after=open_space)
        rbrace = node.rbrace.with_changes(whitespace_before=cst.SimpleWhitespace(""))
        return node.with_changes(lbrace=lbrace, elements=laid, rbrace=rbrace)
    return node.with_changes(whitespace_before_args=open_space, args=laid)


def _line_break(
    end: list[str], lines: list[str], indent: str, after: str
) -> cst.ParenthesizedWhitespace:
    """A line break (after the comment ``end``, if any), ``lines`` as comment lines at
    ``indent``, and the next line at ``after``."""
    trailing = cst.TrailingWhitespace(
        whitespace=cst.SimpleWhitespace("  " if end else ""),
        comment=cst.Comment(end[0]) if end else None,
    )
    empty = [
        cst.EmptyLine(indent=True, whitespace=cst.SimpleWhitespace(indent), comment=cst.Comment(c))
        for c in lines
    ]
    return cst.ParenthesizedWhitespace(
        first_line=trailing, empty_lines=empty, indent=True, last_line=cst.SimpleWhitespace(after)
    )
