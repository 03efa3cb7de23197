"""Whether an error dict bound to a local is changed after it is built.

``r = {"status": "error", "message": "An error occurred"}`` followed by
``r["message"] = f"Access denied for {op}"`` builds its response in steps: the literal is
only the first of them. Rewriting the literal alone would leave the later writes putting
the old keys back beside the new envelope (and a second run would then take
``r["message"] = ...`` for an error of its own). Such a dict is left as it is and noted;
the one form built in steps that UNS501 does follow, ``r = {"success": False, "error":
None}`` ... ``r["error"] = E``, is not error-shaped at its literal and never reaches
:func:`later_change`; its two tests live here too (:func:`open_message_keys` for the
literal, :func:`writes_an_error` for a later write that makes a dict an error).
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.syntax import string_key
from unsentinel.errors.key_places import DISCRIMINATORS, MESSAGE_KEYS
from unsentinel.errors.shapes import (
    Parent,
    elements_by_key,
    enclosing_function,
    is_error_string,
    is_false,
    is_stringish,
)

# Methods that change a dict in place.
_MUTATORS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__"})


def bound_name(node: cst.Dict, parent: cst.CSTNode | None) -> str | None:
    """The local a dict literal is assigned to (``r = {...}``, ``r: dict = {...}``), if any."""
    if isinstance(parent, cst.Assign) and parent.value is node and len(parent.targets) == 1:
        target = parent.targets[0].target
        return target.value if isinstance(target, cst.Name) else None
    if isinstance(parent, cst.AnnAssign) and parent.value is node:
        return parent.target.value if isinstance(parent.target, cst.Name) else None
    return None


def later_change(node: cst.Dict, parent: Parent) -> str | None:
    """How the local the dict is bound to is changed in its function, or None.

    The first change found is described as the code reads (``r["message"] = ...``,
    ``r.update(...)``), for the note in ``plan``.
    """
    name = bound_name(node, parent(node))
    if name is None:
        return None
    function = enclosing_function(node, parent)
    if function is None:
        return None
    finder = _Changes(name)
    function.body.visit(finder)
    return finder.found


class _Changes(cst.CSTVisitor):
    """Finds the first in-place change of one name: a keyed store, ``del`` or a mutator."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.found: str | None = None

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._store(target.target, "=")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._store(node.target, node.operator.__class__.__name__)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._store(node.target, "=")

    def visit_Del(self, node: cst.Del) -> None:
        self._store(node.target, "del")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            self.found is None
            and isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == self.name
            and func.attr.value in _MUTATORS
        ):
            self.found = f"{self.name}.{func.attr.value}(...)"

    def _store(self, target: cst.BaseExpression, how: str) -> None:
        if self.found is not None or not isinstance(target, cst.Subscript):
            return
        if not (isinstance(target.value, cst.Name) and target.value.value == self.name):
            return
        key = string_key(target)
        shown = repr(key) if key is not None else "..."
        self.found = f"del {self.name}[{shown}]" if how == "del" else f"{self.name}[{shown}] = ..."


# -- a dict built one key at a time: ``r = {"success": False, "error": None}`` ... ----------
def open_message_keys(value: cst.Dict) -> frozenset[str]:
    """The message keys a failure literal leaves open (``None``) to be filled in later.

    Only a literal that says it failed (``success``/``ok``/``succeed`` is ``False``)
    counts, and only a key left open: a dict that already holds its error (a migrated
    envelope, too) is not one built in steps.
    """
    values = elements_by_key(value)
    if not values or not any(
        k in values and is_false(values[k]) for k in ("success", "ok", "succeed")
    ):
        return frozenset()
    return frozenset(k for k in MESSAGE_KEYS if k in values and _is_open(values[k]))


def _is_open(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Name) and value.value == "None"


def writes_an_error(key: str | None, value: cst.BaseExpression) -> bool:
    """Does ``d[key] = value`` make ``d`` an error response? A message under ``error``, a
    ``status`` of ``"error"``, or ``success`` (``ok``) set to ``False``."""
    if key == "error":
        return is_stringish(value)
    if key == "status":
        return is_error_string(value)
    return key in DISCRIMINATORS and is_false(value)
