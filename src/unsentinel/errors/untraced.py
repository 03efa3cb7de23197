"""A response whose producer cannot be traced: which message the test expects decides.

A test reads the failure of a response it got through something the flow does not follow:
an HTTP test client (``client.get("/notes/7").json()``), an MCP tool called by name
(``json.loads((await client.call_tool("jira_get_all_projects", {})).content[0].text)``),
the body an ASGI middleware sent to a captured ``send``. When every error response of the
repository migrates, such a reader migrates with them on the test's evidence. When some
stay as they are (a look-alike noted, a function held), the reader may read one of those:
rewritten, it broke mcp-atlassian's middleware tests (``"Empty Bearer token" in
body["error"]`` read the ``{"error": msg}`` that ``json.dumps`` sent and nothing migrated).

The message the test expects tells them apart: a migrated producer records the literal
fragments of its message (``"Page not found with the provided identifiers."``,
``"Failed to retrieve page "`` of an f-string) in the gather pass, and such a reader
follows only where a string it expects shares one of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import libcst as cst

Parent = Callable[[cst.CSTNode], cst.CSTNode | None]

_MIN_FRAGMENT = 6  # shorter pieces ("Error", ": ") say nothing about which message it is
_EDGES = re.compile(r"^[\W_]+|[\W_]+$")
_PLACEHOLDER = re.compile(r"%(?:\(\w+\))?[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]|\{[^{}]*\}")


@dataclass(frozen=True)
class Untraced:
    """What a reader whose producer cannot be traced is judged by (from the gather pass)."""

    left_alone: bool = False  # some error-looking dict of the run stays as it is
    fragments: frozenset[str] = frozenset()  # of the migrated messages

    def follows(self, expected: Iterable[str]) -> bool:
        """May a reader expecting these strings follow the migrated producers?"""
        return not self.left_alone or shares_a_message(expected, self.fragments)


def message_fragments(message: cst.BaseExpression) -> frozenset[str]:
    """The literal pieces of a message expression, lower-cased and trimmed: between the
    replacement fields of an f-string, a ``%`` template or a ``.format`` template."""
    pieces = (piece for text in _literal_texts(message) for piece in _PLACEHOLDER.split(text))
    return frozenset(f for f in (_trim(piece) for piece in pieces) if f)


def expected_texts(read: cst.CSTNode, parent: Parent) -> list[str]:
    """The strings a test compares ``read`` with or searches in it (``"x" in read``,
    ``read == "x"``, ``self.assertIn("x", read)``, ``"x" in read.lower()``)."""
    check = read if isinstance(read, cst.Comparison) else _enclosing_check(read, parent)
    if check is None:
        return []
    operands: list[cst.BaseExpression]
    if isinstance(check, cst.Comparison):
        operands = [check.left, *(target.comparator for target in check.comparisons)]
    else:
        operands = [arg.value for arg in check.args]
    texts = [t for operand in operands for t in _literal_texts(operand) if operand is not read]
    return [trimmed for trimmed in (_trim(text) for text in texts) if trimmed]


def shares_a_message(expected: Iterable[str], fragments: frozenset[str]) -> bool:
    """Does one expected string contain a migrated message's fragment, or lie inside one?"""
    return any(e in f or f in e for e in expected for f in fragments)


def _enclosing_check(read: cst.CSTNode, parent: Parent) -> cst.Comparison | cst.Call | None:
    """The comparison or ``assert*`` call that ``read`` (or a string method of it) is in."""
    node: cst.CSTNode | None = read
    for _ in range(4):  # read -> .lower -> call -> comparison target -> comparison
        node = parent(node) if node is not None else None
        if isinstance(node, cst.Comparison):
            return node
        if isinstance(node, cst.Call) and _is_assertion(node):
            return node
    return None


def _is_assertion(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value.startswith("assert")


def _literal_texts(node: cst.BaseExpression) -> Iterator[str]:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        if isinstance(value, str):
            yield value
    elif isinstance(node, cst.FormattedString):
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                yield part.value
    elif isinstance(node, cst.ConcatenatedString):
        yield from _literal_texts(node.left)
        yield from _literal_texts(node.right)
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
        yield from _literal_texts(node.left)  # ``"Unknown tool: %s" % name``
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value == "format":  # ``"Unknown tool: {}".format(name)``
            yield from _literal_texts(node.func.value)
    elif isinstance(node, cst.Dict):  # ``== {"error": "note 41 not found"}``: the values
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                yield from _literal_texts(element.value)


def _trim(text: str) -> str | None:
    trimmed = _EDGES.sub("", text.lower())
    return trimmed if len(trimmed) >= _MIN_FRAGMENT else None
