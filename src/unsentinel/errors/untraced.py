"""A response whose producer cannot be traced: which message the test expects decides.

A test reads the failure of a response it got through something the flow does not follow:
an HTTP test client (``client.get("/notes/7").json()``), an MCP tool called by name
(``json.loads((await client.call_tool("jira_get_all_projects", {})).content[0].text)``),
the body an ASGI middleware sent to a captured ``send``. When every error response of the
repository migrates, such a reader migrates with them on the test's evidence. When some
stay as they are (a look-alike noted, a function held), the reader may read one of those:
rewritten, it broke mcp-atlassian's middleware tests (``"Empty Bearer token" in
body["error"]`` read the ``{"error": msg}`` that ``json.dumps`` sent and nothing migrated).
A response of a call through a value of the test (a fixture, a local no alias resolves)
may come from any function the repository defines, one that migrates nothing included
(``format_response("error", {}, "bad op")`` builds no dict UNS501 sees): it is judged the
same way even where every error dict migrates.

The message the test expects tells them apart: a migrated producer records its message as
a template in the gather pass (``"failed to retrieve page \\x00: \\x00"`` of
``f"Failed to retrieve page {page_id}: {e}"``, lower-cased, each placeholder a hole), and
such a reader follows only where a string it expects names one of them, read as the
message and compared the way the test compares it:

* an equality (``x["error"] == "..."``, ``assertEqual``, a compared dict's message) names a
  message it matches whole, a hole matching anything; the message needs a literal piece of
  at least six characters (``f"Error: {e}"`` matches any text that starts with "Error: ");
* a search (``"..." in x["error"]``, ``assertIn``, ``startswith`` / ``endswith``) names a
  message one of whose literal pieces contains it, and it must be six characters or more.

A string compared with another key (``x["service"] == "Cost Explorer"``) names nothing,
and neither does a shorter string compared for equality with a longer message: "Cost
Explorer" is not "Error getting Cost Explorer data: {e}".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import libcst as cst

from unsentinel.core.syntax import string_key, string_value
from unsentinel.errors.key_places import MESSAGE_KEYS
from unsentinel.errors.shapes import classify, elements_by_key

Parent = Callable[[cst.CSTNode], cst.CSTNode | None]

HOLE = "\x00"  # a placeholder of a message template
_MIN_FRAGMENT = 6  # shorter pieces ("Error", ": ") say nothing about which message it is
_EDGES = re.compile(r"^[\W_]+|[\W_]+$")
_PLACEHOLDER = re.compile(r"%(?:\(\w+\))?[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]|\{[^{}]*\}")
_KEEPS_TEXT = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip"})
_SEARCHES = frozenset({"startswith", "endswith"})
_EQUALITY = frozenset({"assertEqual", "assertEquals"})
_CONTAINMENT = frozenset({"assertIn"})


@dataclass(frozen=True)
class Expected:
    """A string a test expects of a message: the whole of it, or a part it searches for."""

    text: str
    whole: bool  # compared for equality; else searched for (``in``, ``startswith``)

    def names(self, template: str) -> bool:
        """Could the message of ``template`` give what the test expects?"""
        text = self.text.lower()
        pieces = template.split(HOLE)
        if self.whole:
            if not any(_trim(piece) for piece in pieces):
                return False  # all placeholder: any text matches, so none tells
            pattern = "(?s:.*)".join(re.escape(piece) for piece in pieces)
            return re.fullmatch(pattern, text) is not None
        searched = _trim(text)
        return searched is not None and any(searched in piece for piece in pieces)


@dataclass(frozen=True)
class Untraced:
    """What a reader whose producer cannot be traced is judged by (from the gather pass)."""

    left_alone: bool = False  # some error-looking dict of this file stays as it is
    templates: frozenset[str] = frozenset()  # of the migrated messages
    kept: frozenset[str] = frozenset()  # of the messages of the dicts left as they are
    # Does one of another file? Asked only where a reader needs it: the gathered facts
    # answer it, and an analysis that never asked holds whatever the answer.
    elsewhere: Callable[[], bool] = field(default=lambda: False, compare=False)

    def follows(self, expected: Iterable[Expected], *, any_function: bool = False) -> bool:
        """May a reader expecting these strings follow the migrated producers?
        ``any_function``: the response may come from any function the repository defines."""
        if not any_function and not self.left_alone and not self.elsewhere():
            return True
        return self.named(expected) is not None

    def named(self, expected: Iterable[Expected]) -> Expected | None:
        """The first expected string that names a migrated message and none of those left
        as they are (``"Template 'x' not found"`` may be either's), if any."""
        return next(
            (
                e
                for e in expected
                if any(e.names(t) for t in self.templates)
                and not any(e.names(t) for t in self.kept)
            ),
            None,
        )


def message_template(message: cst.BaseExpression) -> str | None:
    """The message expression as a lower-cased template, each placeholder a hole: the
    replacement fields of an f-string, a ``%`` or ``.format`` template, any part built at
    run time (``"Unknown tool: " + name``). None when it has no literal text at all."""
    pieces = list(_template(message))
    if not any(piece != HOLE for piece in pieces):
        return None
    text = "".join(pieces).lower()
    return re.sub(f"{HOLE}+", HOLE, text)


def expected_of(read: cst.CSTNode, parent: Parent) -> list[Expected]:
    """What the test expects of the message ``read`` gives (a read of a message key, or a
    comparison with a dict literal): nothing for a read of any other key."""
    if isinstance(read, cst.Comparison):
        return _compared_dict(read)
    if not isinstance(read, cst.Subscript) or string_key(read) not in MESSAGE_KEYS:
        return []
    value: cst.CSTNode = read
    node = parent(read)
    while isinstance(node, cst.Attribute) and node.value is value:
        call = parent(node)
        if not isinstance(call, cst.Call) or call.func is not node:
            return []
        if node.attr.value in _SEARCHES and call.args:
            return _expected(call.args[0].value, whole=False)
        if node.attr.value not in _KEEPS_TEXT or call.args:
            return []
        value, node = call, parent(call)  # ``x["error"].lower()``: the same text
    if isinstance(node, cst.ComparisonTarget):
        node = parent(node)
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        target = node.comparisons[0]
        if isinstance(target.operator, cst.Equal):
            other = target.comparator if node.left is value else node.left
            return _expected(other, whole=True)
        if isinstance(target.operator, cst.In) and target.comparator is value:
            return _expected(node.left, whole=False)
        return []
    if isinstance(node, cst.Arg):
        return _asserted(value, node, parent)
    return []


def _asserted(value: cst.CSTNode, arg: cst.Arg, parent: Parent) -> list[Expected]:
    """``self.assertEqual(read, "x")`` / ``self.assertIn("x", read)``."""
    call = parent(arg)
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return []
    values = [a.value for a in call.args if a.keyword is None][:2]
    if len(values) != 2:
        return []
    name = call.func.attr.value
    if name in _EQUALITY and value in values:
        return _expected(values[1] if values[0] is value else values[0], whole=True)
    if name in _CONTAINMENT and values[1] is value:
        return _expected(values[0], whole=False)
    return []


def _compared_dict(comparison: cst.Comparison) -> list[Expected]:
    """``resp == {"error": "note 41 not found", "id": 41}``: the message key's value."""
    if len(comparison.comparisons) != 1:
        return []
    literal = comparison.comparisons[0].comparator
    if not isinstance(literal, cst.Dict):
        return []
    shape = classify(literal)
    values = elements_by_key(literal)
    if shape is None or values is None or shape.message_key not in values:
        return []
    return _expected(values[shape.message_key], whole=True)


def _expected(node: cst.BaseExpression, *, whole: bool) -> list[Expected]:
    """A literal string expected whole or searched for; an f-string expected whole as
    its template (its fields as holes), or searched for by its literal pieces."""
    pieces = list(_template(node, literal=True))
    if not pieces or pieces == [HOLE]:
        return []
    if HOLE not in pieces:
        return [Expected("".join(pieces), whole)]
    if whole:
        return [Expected("".join(pieces), True)]
    return [Expected(p, False) for p in "".join(pieces).split(HOLE) if _trim(p)]


def _template(node: cst.BaseExpression, *, literal: bool = False) -> Iterator[str]:
    """Literal text, and a hole for each part only known at run time. ``literal``: a plain
    string is the text itself (a test's expected string), not a ``%`` / ``{}`` template."""
    if isinstance(node, cst.SimpleString):
        value = string_value(node)
        if isinstance(value, str):
            yield from [value] if literal else _holes(value)
        else:
            yield HOLE
    elif isinstance(node, cst.FormattedString):
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                yield from [part.value] if literal else _holes(part.value)
            else:
                yield HOLE
    elif isinstance(node, cst.ConcatenatedString):
        yield from _template(node.left, literal=literal)
        yield from _template(node.right, literal=literal)
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
        yield from _template(node.left)  # ``"Unknown tool: %s" % name``
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        yield from _template(node.left)  # ``"Unknown tool: " + name``
        yield from _template(node.right)
    elif (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "format"
    ):
        yield from _template(node.func.value)  # ``"Unknown tool: {}".format(name)``
    else:
        yield HOLE


def _holes(text: str) -> Iterator[str]:
    """``"Note %s not found"``: the text with its ``%`` / ``{}`` placeholders as holes."""
    for index, piece in enumerate(_PLACEHOLDER.split(text)):
        if index:
            yield HOLE
        if piece:
            yield piece


def _trim(text: str) -> str | None:
    trimmed = _EDGES.sub("", text.lower())
    return trimmed if len(trimmed) >= _MIN_FRAGMENT else None
