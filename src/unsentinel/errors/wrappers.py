"""An error dict returned by a function that another function hands out as a value.

A decorator's wrapper is the common case::

    def handle_exceptions(func):
        @wraps(func)
        async def wrapper(*args, **kwargs):
            try:
                return await func(*args, **kwargs)
            except Exception as e:
                return {"error": str(e), "tool": func.__name__}
        return wrapper

Every function decorated with ``@handle_exceptions`` returns that dict, and nothing calls
``wrapper`` by its name: its readers (``create_namespace``'s tests comparing ``result ==
{"error": ..., "tool": "create_namespace"}``) are out of the analysis' sight, so a rewrite
would leave them all behind (awslabs-s3-tables-mcp-server: 23 tests). Such a dict is noted
and its function held, never rewritten.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.errors.shapes import Parent, enclosing_function


def handed_out(function: cst.FunctionDef | None, parent: Parent) -> str | None:
    """Why the results of ``function`` reach callers nobody can see: the function that
    defines it returns it (``return wrapper``); None when it does not."""
    if function is None:
        return None
    outer = enclosing_function(function, parent)
    if outer is None or not _returns_name(outer, function.name.value):
        return None
    return (
        f"it is returned by {function.name.value}(), which {outer.name.value}() hands out "
        "(a decorator's wrapper): the callers that read it are not known; migrate it by hand"
    )


def _returns_name(function: cst.FunctionDef, name: str) -> bool:
    """Does ``function`` itself (not a function nested in it) ``return name``?"""
    found = False

    class _Returns(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_Return(self, node: cst.Return) -> None:
            nonlocal found
            found = found or (isinstance(node.value, cst.Name) and node.value.value == name)

    function.visit(_Returns())
    return found
