"""``pywalk.walk`` yields what ``ast.walk`` yields, node for node, in the same order."""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path

import pytest

from unsentinel.core.pywalk import statements, walk

STDLIB = Path(sysconfig.get_paths()["stdlib"])


@pytest.mark.parametrize(
    "name", ["typing.py", "argparse.py", "test/test_patma.py", "test/test_fstring.py", "ast.py"]
)
def test_the_walk_is_ast_walk(name: str) -> None:
    tree = ast.parse((STDLIB / name).read_bytes())
    ours = list(walk(tree))
    assert len(ours) > 1000
    assert [id(node) for node in ours] == [id(node) for node in ast.walk(tree)]


def test_a_node_without_some_fields_is_walked_as_ast_walk_does() -> None:
    node = ast.parse("a + b", mode="eval").body
    del node.right  # type: ignore[attr-defined]  # a node built by hand may lack a field
    assert [type(n) for n in walk(node)] == [type(n) for n in ast.walk(node)]


@pytest.mark.parametrize(
    "name", ["typing.py", "argparse.py", "test/test_patma.py", "test/test_grammar.py", "ast.py"]
)
def test_the_statements_are_the_walks_statements_in_its_order(name: str) -> None:
    """Classes inside functions, handlers, cases, loops and other classes, in the walk's
    order: the model fields read off them keep the order the walk gave."""
    tree = ast.parse((STDLIB / name).read_bytes())
    kept = (ast.Module, ast.stmt, ast.excepthandler, ast.match_case)
    expected = [id(node) for node in walk(tree) if isinstance(node, kept)]
    assert len(expected) > 300
    assert [id(node) for node in statements(tree)] == expected


def test_classes_nested_anywhere_a_statement_goes_are_found() -> None:
    source = (
        "class A: pass\n"
        "def f():\n    class B: pass\n"
        "try:\n    pass\nexcept E:\n    class C: pass\n"
        "match x:\n    case 1:\n        class D: pass\n"
        "if x:\n    for y in z:\n        with w:\n            class E(A): pass\n"
    )
    tree = ast.parse(source)
    classes = [node.name for node in statements(tree) if isinstance(node, ast.ClassDef)]
    assert classes == [node.name for node in walk(tree) if isinstance(node, ast.ClassDef)]
    assert sorted(classes) == ["A", "B", "C", "D", "E"]
