"""A test module's own helper that parses a reply: a ``json.loads`` under another name.

End-to-end tests of an MCP server often parse each tool's reply through a helper of their
own::

    def parse_json_result(result):
        text = get_result_text(result)
        return json.loads(text)

    result = await client.call_tool_mcp("list_tables", {"database": "x"})
    data = parse_json_result(result)
    assert data["errorType"] == "NotFoundError"

Read as a call of a function the repository defines, ``data`` came from a function that
returns no error dict: its reads were noted and left as they were while the tool that
built the dict migrated (mcp-server-motherduck). Such a helper is read as ``json.loads``
of its first argument: the dict comes from whatever produced that argument.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.syntax import NodeIndex
from unsentinel.errors.shapes import is_json_loads


def parsing_helpers(nodes: NodeIndex) -> frozenset[str]:
    """The functions of this file whose every ``return`` gives ``json.loads(...)``: a
    helper that takes a reply (its first parameter) and gives back the dict inside."""
    found: set[str] = set()
    for function in nodes.by_type.get(cst.FunctionDef, []):
        assert isinstance(function, cst.FunctionDef)
        returns = nodes.within(cst.Return, function)
        if (
            function.params.params
            and returns
            and all(r.value is not None and is_json_loads(r.value) for r in returns)
        ):
            found.add(function.name.value)
    return frozenset(found)


def parses(node: cst.Call, helpers: frozenset[str]) -> bool:
    """``json.loads(x)``, or ``helper(x)`` of one of this file's parsing helpers."""
    if is_json_loads(node):
        return True
    return isinstance(node.func, cst.Name) and node.func.value in helpers
