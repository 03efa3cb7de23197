"""An error dict a test double returns stands in for the function it replaces.

``patch.object(mixin, "upload_attachment", side_effect=[{"success": False, "error":
"File not found"}, ...])`` makes ``upload_attachment`` return that dict in its old shape
while the code under test reads its result. Migrated, ``upload_attachment``'s readers
(``result["error"]["message"]`` in ``upload_attachments``) got the double's string
(mcp-atlassian). The double is test data UNS501 leaves alone, so the function it stands in
for is held: its error dicts and their readers keep the shape the double has.

The doubles recognised: ``patch("pkg.mod.name", return_value=...)``, ``patch.object(obj,
"name", side_effect=...)``, ``setattr(obj, "name", ...)``, ``mock.name.return_value =
...`` (``side_effect`` too) and ``fake.return_value = ...`` where ``fake`` is bound to a
patcher (``with patch("pkg.mod.name", new=AsyncMock()) as fake:``, ``fake =
mocker.patch("pkg.mod.name")``), with the dict given there, in a list given there, or
through the local bound to either.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.syntax import string_value
from unsentinel.errors.shapes import Parent, call_name, enclosing_function

_PATCHERS = frozenset({"patch", "object", "setattr"})
_RESULTS = frozenset({"return_value", "side_effect"})


def doubled_function(node: cst.Dict, parent: Parent) -> str | None:
    """The function a test double returning ``node`` stands in for, if any."""
    value = _outermost_literal(node, parent)
    above = parent(value)
    if isinstance(above, cst.Assign) and len(above.targets) == 1:
        target = above.targets[0].target
        if isinstance(target, cst.Name):
            return _passed_to_a_double(target.value, node, parent)
        return _mocked_attribute(target, node, parent)
    if isinstance(above, cst.Arg):
        return _patched(above, parent)
    return None


def _outermost_literal(node: cst.CSTNode, parent: Parent) -> cst.CSTNode:
    """``[ok, {"error": ...}, ok]``: the list the dict is an element of (nested too)."""
    while isinstance(element := parent(node), cst.Element):
        container = parent(element)
        if not isinstance(container, (cst.List, cst.Tuple)):
            break
        node = container
    return node


def _mocked_attribute(
    target: cst.BaseAssignTargetExpression, node: cst.CSTNode, parent: Parent
) -> str | None:
    """``mock.upload_attachment.return_value = ...``: ``upload_attachment``; ``fake.return_value
    = ...`` with ``fake`` bound to a patcher: the name it patches."""
    if not (isinstance(target, cst.Attribute) and target.attr.value in _RESULTS):
        return None
    inner = target.value
    if isinstance(inner, cst.Attribute):
        return inner.attr.value
    if isinstance(inner, cst.Name):
        return _bound_to_a_patcher(inner.value, node, parent)
    return None


def _patched(arg: cst.Arg, parent: Parent) -> str | None:
    call = parent(arg)
    if not isinstance(call, cst.Call):
        return None
    if arg.keyword is not None and arg.keyword.value not in _RESULTS:
        return None
    return _patched_name(call)


def _patched_name(call: cst.Call) -> str | None:
    """The name a patcher call replaces: the last part of its first string argument."""
    if call_name(call) not in _PATCHERS:
        return None
    for other in call.args:
        if isinstance(other.value, cst.SimpleString):
            name = string_value(other.value)
            if isinstance(name, str):
                return name.rsplit(".", 1)[-1]
    return None


def _bound_to_a_patcher(local: str, node: cst.CSTNode, parent: Parent) -> str | None:
    function = enclosing_function(node, parent)
    if function is None:
        return None
    finder = _PatcherBindings(local)
    function.body.visit(finder)
    return finder.patched


class _PatcherBindings(cst.CSTVisitor):
    """What ``local`` patches, where a ``with`` or an assignment binds it to a patcher
    (``patch(...)``, ``mocker.patch(...)``, ``patch(...).start()``)."""

    def __init__(self, local: str) -> None:
        self.local = local
        self.patched: str | None = None

    def visit_WithItem(self, node: cst.WithItem) -> None:
        bound = node.asname.name if node.asname is not None else None
        if isinstance(bound, cst.Name) and bound.value == self.local:
            self._bound(node.item)

    def visit_Assign(self, node: cst.Assign) -> None:
        names = [t.target for t in node.targets]
        if any(isinstance(n, cst.Name) and n.value == self.local for n in names):
            self._bound(node.value)

    def _bound(self, value: cst.BaseExpression) -> None:
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "start"
        ):  # ``patch("pkg.name").start()``
            value = value.func.value
        if isinstance(value, cst.Call):
            self.patched = _patched_name(value) or self.patched


def _passed_to_a_double(local: str, node: cst.CSTNode, parent: Parent) -> str | None:
    function = enclosing_function(node, parent)
    if function is None:
        return None
    finder = _LocalUses(local)
    function.body.visit(finder)
    for arg in finder.args:
        found = _patched(arg, finder.parents.get)
        if found is not None:
            return found
    return None


class _LocalUses(cst.CSTVisitor):
    """The arguments that pass ``local``, with the parents needed to read their calls."""

    def __init__(self, local: str) -> None:
        self.local = local
        self.args: list[cst.Arg] = []
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}

    def visit_Call(self, node: cst.Call) -> None:
        for arg in node.args:
            self.parents[arg] = node
            if isinstance(arg.value, cst.Name) and arg.value.value == self.local:
                self.args.append(arg)
