"""``ast.walk`` without its generators: the same nodes, in the same order, faster.

``ast.walk`` pairs a deque with ``iter_child_nodes``, which runs ``iter_fields``: two
generators per node. The screens that read a module with Python's own parser (the
prefilter's second look and the calls it keeps, model fields, error-dict candidates, the
names a later gather round tests) walked 3.4 million nodes over the standard library that
way, 19 s of a 311 s profile. Here each node's fields are read in one loop.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator


def walk(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``tree`` (itself included), breadth first, as ``ast.walk`` yields."""
    todo = deque([tree])
    while todo:
        node = todo.popleft()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                todo.append(value)
            elif isinstance(value, list):
                todo.extend(item for item in value if isinstance(item, ast.AST))
        yield node
