"""An error dict handed to a call whose result the function returns: returned all the same.

``error_value = {"error": "API Error"}`` then ``result = handle_aws_api_call(func,
error_value)`` and ``return result``: the helper hands the dict back when the call fails,
so the function's result may be that dict in its old shape. Left alone as a look-alike
that "never reaches a return", it let the function's other error dicts migrate, and a test
reading ``result["error"]`` (rewritten to ``result["error"]["message"]``) got the old
string (awslabs-ecs-mcp-server). Such a dict holds its function, as a returned look-alike
does.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.errors.mutations import bound_name
from unsentinel.errors.shapes import Parent, enclosing_function


def handed_back(node: cst.Dict, parent: Parent) -> bool:
    """Is ``node`` (or the local it is bound to) an argument of a call whose result the
    enclosing function returns, directly or through a local?"""
    function = enclosing_function(node, parent)
    if function is None:
        return False
    finder = _Calls(bound_name(node, parent(node)), node)
    function.body.visit(finder)
    return any(_returned(call, parent, finder.returned) for call in finder.taking)


def _returned(call: cst.Call, parent: Parent, returned_names: set[str]) -> bool:
    above = parent(call)
    while isinstance(above, (cst.Await, cst.IfExp, cst.BooleanOperation)):
        above = parent(above)
    if isinstance(above, cst.Return):
        return True
    if isinstance(above, cst.Assign) and len(above.targets) == 1:
        target = above.targets[0].target
        return isinstance(target, cst.Name) and target.value in returned_names
    return False


class _Calls(cst.CSTVisitor):
    """The calls taking the dict (or its local), and the names ``return`` statements use."""

    def __init__(self, local: str | None, literal: cst.Dict) -> None:
        self.local = local
        self.literal = literal
        self.taking: list[cst.Call] = []
        self.returned: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        for arg in node.args:
            value = arg.value
            if value is self.literal or (
                self.local is not None and isinstance(value, cst.Name) and value.value == self.local
            ):
                self.taking.append(node)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            node.value.visit(_Names(self.returned))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # a nested function's returns are not this function's


class _Names(cst.CSTVisitor):
    def __init__(self, into: set[str]) -> None:
        self.into = into

    def visit_Name(self, node: cst.Name) -> None:
        self.into.add(node.value)
