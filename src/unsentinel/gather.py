"""The gather pass: facts that cross files, collected before any file is rewritten.

Model classes (Pydantic models, dataclasses, TypedDicts) are read with the standard
library's ``ast`` parser, which is an order of magnitude faster than LibCST and is only
asked for class names and field names. Warning templates and the functions that return
warnings come from the rules themselves, run in read-only mode.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .inference.code import assign_codes
from .model import FileFacts, FileResult, RepoFacts, Template

if TYPE_CHECKING:
    from .rules._base import RuleContext

MODEL_MARKERS = (b"BaseModel", b"dataclass", b"TypedDict", b"NamedTuple")
MODEL_BASES = {"BaseModel", "TypedDict", "NamedTuple", "BaseSettings"}


def model_fields(data: bytes) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``(class name, field names)`` for every model-like class in a module's source."""
    if b"class" not in data or not any(marker in data for marker in MODEL_MARKERS):
        return ()
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError):
        return ()
    return tuple(
        (node.name, _annotated_names(node))
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and _is_model(node)
    )


def _is_model(node: ast.ClassDef) -> bool:
    bases = {_name_of(base) for base in node.bases}
    decorators = {_name_of(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list}
    return bool(bases & MODEL_BASES) or "dataclass" in decorators


def _name_of(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _annotated_names(node: ast.ClassDef) -> tuple[str, ...]:
    return tuple(
        stmt.target.id
        for stmt in node.body
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
    )


def facts_from_context(
    context: RuleContext,
    data: bytes | None = None,
    *,
    models: tuple[tuple[str, tuple[str, ...]], ...] = (),
) -> FileFacts:
    """What one analysed file contributes to the repository's facts."""
    return FileFacts(
        model_fields=models or (model_fields(data) if data is not None else ()),
        templates=tuple(context.templates),
        warning_functions=tuple(context.warning_functions),
        marker_constants=tuple(context.marker_constants.items()),
        warning_params=tuple(sorted(context.warning_params)),
        function_shapes=tuple(context.function_shapes.items()),
        constant_leftovers=tuple(sorted(context.constant_leftovers)),
        error_functions=tuple(sorted(context.error_functions)),
    )


def merge_facts(
    results: Iterable[FileResult],
    existing_codes: dict[str, str] | None = None,
    *,
    extra: Iterable[FileFacts] = (),
) -> RepoFacts:
    """Combine per-file facts into the repository view, assigning one code per template."""
    fields: dict[str, tuple[str, ...]] = {}
    templates: list[Template] = []
    functions: set[str] = set()
    constants: dict[str, str] = {}
    params: set[str] = set()
    shapes: dict[str, str] = {}
    leftovers: set[str] = set()
    error_functions: set[str] = set()
    for facts in [*(r.facts for r in results if r.facts is not None), *extra]:
        constants.update(facts.marker_constants)
        params.update(facts.warning_params)
        shapes.update(facts.function_shapes)
        leftovers.update(facts.constant_leftovers)
        for name, names in facts.model_fields:
            fields[name] = tuple(dict.fromkeys([*fields.get(name, ()), *names]))
        templates.extend(facts.templates)
        functions.update(facts.warning_functions)
        error_functions.update(facts.error_functions)
    codes, values = assign_codes(templates, existing_codes or {})
    return RepoFacts(
        model_fields=fields,
        codes=codes,
        code_values=values,
        warning_functions=frozenset(functions),
        marker_constants=constants,
        warning_params=frozenset(params),
        function_shapes=shapes,
        constant_leftovers=frozenset(leftovers),
        error_functions=frozenset(error_functions),
        gathered=True,
    )
