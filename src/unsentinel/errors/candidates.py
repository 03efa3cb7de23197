"""Could this parsed file hold an error dict or a reader of one? Asked of Python's ``ast``.

The byte prefilter matches ``"error":`` and friends anywhere, comments and docstrings
included; this second look keeps a file for LibCST only when the code itself has a dict
with such a key, a subscript by one, a call to a JSON response helper, or a tool called
by name (an MCP server's test reads the failure of the tool's function through it).
"""

from __future__ import annotations

import ast
import re

from unsentinel.core.pywalk import walk

DICT_KEYS = frozenset({"error", "success", "ok", "succeed", "status"})
READ_KEYS = frozenset({"error", "message", "detail"})
RESPONSE_CALLS = frozenset({"jsonify", "JSONResponse"})
TOOL_CALLS = frozenset({"call_tool", "acall_tool", "invoke_tool", "run_tool"})
# Keys a generic error check tests (``x["ok"]``, ``x.get("error")``), and those that name
# an error (``error_type``, ``errorCode``).
CHECKED_KEYS = frozenset({"error", "success", "ok", "succeed"})
ERROR_NAMED = re.compile(r"^error(_|[A-Z])")


def may_hold_error_dicts(tree: ast.Module) -> bool:
    for node in walk(tree):
        if isinstance(node, ast.Dict) and any(_key(k) in DICT_KEYS for k in node.keys):
            return True
        if isinstance(node, ast.Subscript) and _key(node.slice) in READ_KEYS:
            return True
        if isinstance(node, ast.Call) and _callee(node.func) in RESPONSE_CALLS | TOOL_CALLS:
            return True
        if _checks_errors(node):
            return True
    return False


def _checks_errors(node: ast.AST) -> bool:
    """A test a generic error check makes: ``x.get("status") == "error"``, ``"error" in x``,
    ``x["ok"]``, ``x.get("error_type")`` (errors/generic_checks.py).

    ``"error"`` compared with a read by key (``x["status"]``, ``x.get("status")``) is one;
    compared with anything else (``outcome == "error"``, ``mode == "error"``) it is a
    value of the file's own, which no rule reads as an error dict's."""
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        if any(_key(operand) == "error" for operand in operands) and any(
            _read_by_key(operand) for operand in operands
        ):
            return True
        membership = isinstance(node.ops[0], (ast.In, ast.NotIn))
        return membership and _checked_key(_key(node.left))
    if isinstance(node, ast.Subscript):
        return _checked_key(_key(node.slice))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
        return node.func.attr == "get" and _checked_key(_key(node.args[0]))
    return False


def _read_by_key(node: ast.expr) -> bool:
    """``x["status"]`` or ``x.get("status")``: what the rules read of an error dict."""
    if isinstance(node, ast.Subscript):
        return _key(node.slice) is not None
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and bool(node.args)
        and _key(node.args[0]) is not None
    )


def _checked_key(key: str | None) -> bool:
    return key is not None and (key in CHECKED_KEYS or ERROR_NAMED.match(key) is not None)


def _key(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _callee(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None
