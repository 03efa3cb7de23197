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


# What a statement can be held by: a body, a handler's, a case's (never an expression).
_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)


def statements(tree: ast.AST) -> Iterator[ast.AST]:
    """The nodes :func:`walk` yields that are no expression nor inside one (``tree``, its
    statements and the handlers and cases that hold them), in the same order: where only
    statements matter (a class definition), most of a module's nodes are never visited."""
    todo = deque([tree])
    while todo:
        node = todo.popleft()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                todo.extend(item for item in value if isinstance(item, _HOLDS_STATEMENTS))
        yield node
