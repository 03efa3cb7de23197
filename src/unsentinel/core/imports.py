"""Add and remove imports the way isort would have written them.

LibCST's ``AddImportsVisitor`` appends after the last import and ``RemoveImportsVisitor``
drops a statement together with the blank line before it; both make diffs noisier than a
person would. Here a new ``from pkg.mod import Name`` joins the block of imports of its
isort section, at its sorted place (``import x`` lines before ``from x import`` lines, as
isort and ruff sort them unless ``force-sort-within-sections``; one block for all but
``__future__`` with ``no-sections``), or starts a new block where isort puts that
section; a removed statement hands its blank lines and comments on to the statement after
it. Merging a name into an existing ``from X import ...`` is left to LibCST, which handles
parenthesised lists and trailing commas.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import libcst as cst

from unsentinel.core.project import ImportStyle
from unsentinel.core.style import SECTION_ORDER, order_key, section_of
from unsentinel.core.syntax import string_value

Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement


@dataclass(frozen=True)
class ImportRequest:
    module: str
    name: str | None = None  # None: ``import module``
    alias: str | None = None


def fix_imports(
    module: cst.Module,
    add: Sequence[ImportRequest],
    remove: Sequence[ImportRequest],
    module_name: str = "",
    is_first_party: Callable[[str], bool] = lambda _: False,
    style: ImportStyle = ImportStyle(),  # noqa: B008 (a frozen value)
) -> cst.Module:
    if remove:
        module = _remove_unused(module, remove)
    merged = [r for r in add if r.name is not None and _from_import_of(module, r.module)]
    fresh = [r for r in add if r not in merged and not _already_imported(module, r)]
    section = _sections(is_first_party, style)
    had_imports = any(_import_module(s) is not None for s in module.body)
    for request, statement in _statements(fresh, style):
        module = _insert(module, request, statement, section, style)
    if fresh and not had_imports:
        module = _separate_from_code(module, style.lines_after_imports)
    if merged:
        # Imported here: libcst.codemod pulls in libcst.matchers (a third of a second),
        # which a run that merges no import never needs.
        from libcst.codemod import CodemodContext
        from libcst.codemod.visitors import AddImportsVisitor

        context = CodemodContext(full_module_name=module_name or None)
        for request in merged:
            AddImportsVisitor.add_needed_import(
                context, request.module, request.name, request.alias
            )
        module = AddImportsVisitor(context).transform_module(module)
    return module


# -- removal ------------------------------------------------------------------------------


def _remove_unused(module: cst.Module, remove: Sequence[ImportRequest]) -> cst.Module:
    used = _names_used_outside_imports(module)
    body: list[Statement] = list(module.body)
    index = 0
    while index < len(body):
        statement = body[index]
        updated = _without_unused(statement, remove, used)
        if updated is statement:
            index += 1
            continue
        if updated is None:
            del body[index]
            if index < len(body):
                body[index] = _take_leading_lines(body[index], statement)
            continue
        body[index] = updated
        index += 1
    return module.with_changes(body=body)


def _without_unused(
    statement: Statement, remove: Sequence[ImportRequest], used: set[str]
) -> Statement | None:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return statement
    node = statement.body[0]
    if not isinstance(node, cst.ImportFrom) or isinstance(node.names, cst.ImportStar):
        return statement
    module = _module_of(node)
    doomed = {
        alias
        for alias in node.names
        for request in remove
        if request.module == module
        and request.name == alias.evaluated_name
        and (alias.evaluated_alias or alias.evaluated_name) not in used
    }
    if not doomed:
        return statement
    kept = [alias for alias in node.names if alias not in doomed]
    if not kept:
        return None
    last = kept[-1]
    if last.comma is not cst.MaybeSentinel.DEFAULT and not node.rpar:
        kept[-1] = last.with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return statement.with_changes(body=[node.with_changes(names=kept)])


def _take_leading_lines(following: Statement, removed: Statement) -> Statement:
    """Keep the larger gap and every comment when ``removed`` disappears before ``following``."""
    mine = list(removed.leading_lines)
    theirs = list(following.leading_lines)
    comments = [line for line in [*mine, *theirs] if line.comment is not None]
    blanks = max(_blank_count(mine), _blank_count(theirs))
    blank_lines = [cst.EmptyLine()] * blanks
    return following.with_changes(
        leading_lines=[*blank_lines, *comments]
        if not theirs or theirs[0].comment is None
        else [*blank_lines, *comments]
    )


def _blank_count(lines: list[cst.EmptyLine]) -> int:
    return sum(1 for line in lines if line.comment is None)


def _names_used_outside_imports(module: cst.Module) -> set[str]:
    used: set[str] = set()

    class _Names(cst.CSTVisitor):
        def visit_Import(self, node: cst.Import) -> bool:
            return False

        def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
            return False

        def visit_Name(self, node: cst.Name) -> None:
            used.add(node.value)

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            # ``__all__ = ["NAME"]`` and string annotations keep a name alive.
            value = string_value(node)
            if isinstance(value, str) and value.isidentifier():
                used.add(value)

    module.visit(_Names())
    return used


# -- insertion ----------------------------------------------------------------------------


def _sections(is_first_party: Callable[[str], bool], style: ImportStyle) -> Callable[[str], str]:
    """isort's section of a module (:func:`unsentinel.core.style.section_of`)."""
    return lambda module: section_of(module, style, is_first_party)


def _separate_from_code(module: cst.Module, lines_after_imports: int) -> cst.Module:
    """A new import block at the top of a module gets blank lines before the code: as
    many as ``lines-after-imports`` says, else two before a class or function and one
    before anything else (as isort, ruff and black have it)."""
    body = list(module.body)
    for index, statement in enumerate(body):
        if _import_module(statement) is None and index and _import_module(body[index - 1]):
            wanted = lines_after_imports
            if wanted < 0:
                definition = (cst.FunctionDef, cst.ClassDef)
                wanted = 2 if isinstance(statement, definition) else 1
            lines = list(statement.leading_lines)
            blanks = next(
                (i for i, line in enumerate(lines) if line.comment is not None), len(lines)
            )
            if blanks < wanted:
                lines[:blanks] = [cst.EmptyLine()] * wanted
                body[index] = statement.with_changes(leading_lines=lines)
            break
    return module.with_changes(body=body)


def _statements(
    requests: Sequence[ImportRequest], style: ImportStyle
) -> list[tuple[ImportRequest, cst.SimpleStatementLine]]:
    """A statement per request, but one ``from pkg import a, b`` for the names of one
    module (isort joins them unless ``force-single-line``), in isort's order of names."""
    ordered = sorted(requests, key=lambda r: (r.module, r.name or ""))
    joined: dict[str, list[ImportRequest]] = {}
    statements: list[tuple[ImportRequest, cst.SimpleStatementLine]] = []
    for request in ordered:
        if request.name is None or request.alias or style.force_single_line:
            statements.append((request, _statement_for(request)))
        else:
            joined.setdefault(request.module, []).append(request)
    for name, group in joined.items():
        names = ", ".join(sorted((r.name or "" for r in group), key=_name_order))
        statements.append((group[0], _statement_for(ImportRequest(name, names))))
    return sorted(statements, key=lambda pair: (pair[0].module, pair[0].name or ""))


def _name_order(name: str) -> tuple[int, str]:
    """isort's ``order-by-type``: CONSTANTS, then Classes, then the rest."""
    if name.isupper():
        return 0, name
    return (1, name) if name[:1].isupper() else (2, name)


def _insert(
    module: cst.Module,
    request: ImportRequest,
    statement: cst.SimpleStatementLine,
    section: Callable[[str], str],
    style: ImportStyle,
) -> cst.Module:
    body = list(module.body)
    imports = [i for i, s in enumerate(body) if _import_module(s) is not None]
    if not imports:
        position = _after_docstring_and_future(body)
        statement = statement.with_changes(leading_lines=[cst.EmptyLine()] if position else [])
        body.insert(position, statement)
        return module.with_changes(body=body)
    runs = _runs(body, imports)
    run = _run_for(body, runs, request.module, section)
    if run is None:
        return module.with_changes(body=_new_block(body, runs, statement, request, section))
    for index in run:
        if _sort_key(body[index], style) > _sort_key(statement, style):
            if index == run[0]:  # the new first line of the block takes over its gap
                statement = statement.with_changes(leading_lines=body[index].leading_lines)
                body[index] = body[index].with_changes(leading_lines=[])
            body.insert(index, statement)
            return module.with_changes(body=body)
    body.insert(run[-1] + 1, statement)
    return module.with_changes(body=body)


def _statement_for(request: ImportRequest) -> cst.SimpleStatementLine:
    alias = f" as {request.alias}" if request.alias else ""
    if request.name is None:
        code = f"import {request.module}{alias}\n"
    else:
        code = f"from {request.module} import {request.name}{alias}\n"
    statement = cst.parse_statement(code)
    assert isinstance(statement, cst.SimpleStatementLine)
    return statement


def _runs(body: list[Statement], imports: list[int]) -> list[list[int]]:
    """The blocks of imports: statements not separated by a blank line or other code."""
    runs: list[list[int]] = []
    for index in imports:
        starts_block = not runs or index != runs[-1][-1] + 1 or bool(body[index].leading_lines)
        if starts_block:
            runs.append([index])
        else:
            runs[-1].append(index)
    return runs


def _run_for(
    body: list[Statement], runs: list[list[int]], module: str, section: Callable[[str], str]
) -> list[int] | None:
    """The block (imports not separated by a blank line) of ``module``'s isort section."""
    wanted = section(module)
    for run in runs:
        if any(section(_import_module(body[i]) or "") == wanted for i in run):
            return run
    return None


def _new_block(
    body: list[Statement],
    runs: list[list[int]],
    statement: Statement,
    request: ImportRequest,
    section: Callable[[str], str],
) -> list[Statement]:
    """A block of its own for a section the module does not import from yet, where isort
    puts it: before the first block of a later section (``from typing import Any`` goes
    above the third-party imports), else after the last import."""
    rank = SECTION_ORDER[section(request.module)]
    for run in runs:
        first = body[run[0]]
        if SECTION_ORDER[section(_import_module(first) or "")] > rank:
            # The gap above the block moves up with the new line; a comment heading the
            # block (``# third-party``) stays with it.
            lines = list(first.leading_lines)
            gap = next((i for i, line in enumerate(lines) if line.comment is not None), len(lines))
            body[run[0]] = first.with_changes(leading_lines=[cst.EmptyLine(), *lines[gap:]])
            body.insert(run[0], statement.with_changes(leading_lines=lines[:gap]))
            return body
    last = runs[-1][-1]
    body.insert(last + 1, statement.with_changes(leading_lines=[cst.EmptyLine()]))
    return body


def _after_docstring_and_future(body: list[Statement]) -> int:
    position = 0
    for index, statement in enumerate(body):
        if index == 0 and _is_docstring(statement):
            position = 1
        elif _import_module(statement) == "__future__":
            position = index + 1
        else:
            break
    return position


def _is_docstring(statement: Statement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _import_module(statement: Statement) -> str | None:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    node = statement.body[0]
    if isinstance(node, cst.ImportFrom):
        return _module_of(node)
    if isinstance(node, cst.Import):
        return _dotted(node.names[0].name)
    return None


def _module_of(node: cst.ImportFrom) -> str:
    dots = "." * len(node.relative)
    return dots + (_dotted(node.module) if node.module is not None else "")


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _sort_key(statement: Statement, style: ImportStyle) -> tuple[bool, bool, str]:
    """isort's order within a block (:func:`unsentinel.core.style.order_key`)."""
    is_from = (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.ImportFrom)
    )
    return order_key(_import_module(statement) or "", is_from, style)


def _from_import_of(module: cst.Module, name: str) -> bool:
    """Is there a ``from name import ...`` that LibCST's ``AddImportsVisitor`` merges into?
    It reads only the imports at the top of the module, before any other statement: a
    ``from name import x`` below code (after a logging set-up) is not merged into, and the
    visitor would add the new name as a statement of its own at the end of the top block,
    away from the imports of its section."""
    return any(
        isinstance(s, cst.SimpleStatementLine)
        and isinstance(s.body[0], cst.ImportFrom)
        and not isinstance(s.body[0].names, cst.ImportStar)
        and _module_of(s.body[0]) == name
        for s in _top_imports(module)
    )


def _top_imports(module: cst.Module) -> list[Statement]:
    """The import statements before any other statement (a docstring aside)."""
    body = list(module.body)
    start = 1 if body and _is_docstring(body[0]) else 0
    top: list[Statement] = []
    for statement in body[start:]:
        if _import_module(statement) is None:
            break
        top.append(statement)
    return top


def _already_imported(module: cst.Module, request: ImportRequest) -> bool:
    if request.name is not None:
        return False  # handled by the merge path
    return any(
        isinstance(s, cst.SimpleStatementLine)
        and len(s.body) == 1
        and isinstance(s.body[0], cst.Import)
        and any(_dotted(a.name) == request.module for a in s.body[0].names)
        for s in module.body
    )
