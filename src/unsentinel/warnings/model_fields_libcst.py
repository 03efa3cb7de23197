"""The model fields of a module this Python's ``ast`` cannot parse, read with LibCST.

:func:`unsentinel.warnings.facts.model_fields` reads a module's model classes off Python's
``ast``, without LibCST; a module written for a newer Python (a 3.12 f-string on 3.11) does
not parse there, and LibCST, which the rewrite parses it with anyway, reads it here. Its own
module, so that the facts import LibCST only for such a file.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.syntax import last_name
from unsentinel.warnings.facts import MODEL_BASES


def model_fields_by_libcst(data: bytes) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """:func:`model_fields` of a module this Python's ``ast`` cannot parse (a 3.12 f-string
    on 3.11), read with LibCST, which the rewrite parses it with anyway."""
    try:
        module = cst.parse_module(data)
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return ()
    found: list[tuple[str, tuple[str, ...]]] = []

    class _Models(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            bases = {last_name(arg.value) for arg in node.bases}
            decorators = {
                last_name(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
                for d in node.decorators
            }
            if bases & MODEL_BASES or "dataclass" in decorators:
                found.append((node.name.value, _cst_annotated_names(node)))

    module.visit(_Models())
    return tuple(found)


def _cst_annotated_names(node: cst.ClassDef) -> tuple[str, ...]:
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    return tuple(
        small.target.value
        for line in body
        if isinstance(line, cst.SimpleStatementLine)
        for small in line.body
        if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)
    )
