"""Could this parsed file hold an error dict or a reader of one? Asked of Python's ``ast``.

The byte prefilter matches ``"error":`` and friends anywhere, comments and docstrings
included; this second look keeps a file for LibCST only when the code itself has a dict
with such a key, a subscript by one, a call to a JSON response helper, or a tool called
by name (an MCP server's test reads the failure of the tool's function through it).
"""

from __future__ import annotations

import ast

DICT_KEYS = frozenset({"error", "success", "ok", "succeed", "status"})
READ_KEYS = frozenset({"error", "message", "detail"})
RESPONSE_CALLS = frozenset({"jsonify", "JSONResponse"})
TOOL_CALLS = frozenset({"call_tool", "acall_tool", "invoke_tool", "run_tool"})


def may_hold_error_dicts(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and any(_key(k) in DICT_KEYS for k in node.keys):
            return True
        if isinstance(node, ast.Subscript) and _key(node.slice) in READ_KEYS:
            return True
        if isinstance(node, ast.Call) and _callee(node.func) in RESPONSE_CALLS | TOOL_CALLS:
            return True
    return False


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
