"""``pywalk.walk`` yields what ``ast.walk`` yields, node for node, in the same order."""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path

import pytest

from unsentinel.core.pywalk import walk

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
