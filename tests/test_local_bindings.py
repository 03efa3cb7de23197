"""``LocalBindings``: the one index of what a function's locals are assigned, in source order."""

from __future__ import annotations

import textwrap

import libcst as cst

from unsentinel.core.config import Config
from unsentinel.core.facts import FactBook
from unsentinel.core.rule import RuleContext
from unsentinel.core.syntax import Assignment, LocalBindings, bound_names

SOURCE = """
def handle(request):
    label = request.kind
    total: int = 0
    declared: str
    total += 1
    sku, (issue, *rest) = resolve(request.sku)
    self.cache = first = label
    row[0] = 1

    def inner():
        hidden = 2

    return label
"""


def _bindings(source: str) -> tuple[LocalBindings, cst.FunctionDef]:
    module = cst.parse_module(textwrap.dedent(source).lstrip("\n"))
    context = RuleContext(
        cst.MetadataWrapper(module, unsafe_skip_copy=True), Config(), FactBook(), "m.py"
    )
    function = module.body[0]
    assert isinstance(function, cst.FunctionDef)
    return context.shared(LocalBindings), function


def _written(assignment: Assignment) -> tuple[str, str, bool]:
    module = cst.Module([])
    return (
        module.code_for_node(assignment.target),
        module.code_for_node(assignment.value),
        assignment.augmented,
    )


def test_every_assignment_in_source_order_across_statement_kinds() -> None:
    bindings, function = _bindings(SOURCE)
    assert [_written(a) for a in bindings.of(function)] == [
        ("label", "request.kind", False),
        ("total", "0", False),
        ("total", "1", True),
        ("sku, (issue, *rest)", "resolve(request.sku)", False),
        ("self.cache", "label", False),
        ("first", "label", False),
        ("row[0]", "1", False),
    ]


def test_names_bound_and_the_plain_name() -> None:
    bindings, function = _bindings(SOURCE)
    found = {
        a.statement.__class__.__name__ + ":" + ",".join(a.names): a.name
        for a in bindings.of(function)
    }
    assert found["Assign:sku,issue,rest"] is None  # unpacked: no single name
    assert found["Assign:label"] == "label"
    assert found["Assign:"] is None  # ``self.cache``, ``row[0]``: no local
    assert bound_names(cst.parse_expression("[a, b.c, *d]")) == ["a", "d"]


def test_a_nested_function_keeps_its_own() -> None:
    bindings, function = _bindings(SOURCE)
    inner = next(
        s for s in function.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "inner"
    )
    assert [a.name for a in bindings.of(inner)] == ["hidden"]
    assert "hidden" not in {a.name for a in bindings.of(function)}
