"""Error dicts read by code that receives them: a generic check, or a helper handed one.

Readers of a call's result are followed where they bind it (``resp = get_note(...)``). A
function that *receives* the result -- a parameter, or a value taken from one, such as
``await call_next(context)`` in a middleware -- reads it where no reader rewrite follows.
Migrated, an error dict reaching it reads differently: ``status`` is gone, ``error_type``
moved into ``error.details``, the ``error`` string became an object. Two ways it may reach:

* **A generic check** tests what it is given for failure by a marker of the old shape:
  ``result.structured_content.get("status") == "error"``, ``not result["ok"]``,
  ``response.get("error_type")``. A framework may hand it any tool's result, so every
  error dict that carries the marker is held, wherever it is produced
  (:attr:`ErrorFacts.marker_tests`). A check that also tests ``success`` tells the
  envelope as a failure: its ``status`` / ``ok`` / ``succeed`` tests hold nothing (a
  key that names an error still does: it moves).
* **A helper handed a result**: ``describe(get_note(7))``, or ``r = get_note(7)`` ...
  ``describe(r)``, in a test or not. What the helper reads of that parameter -- the
  ``error`` string, the message, a moved key, a marker -- holds the producer passed to it
  (:attr:`ErrorFacts.param_reads` met with :attr:`ErrorFacts.passes`).

A producer records which top-level keys of its error dicts the envelope changes
(:attr:`ErrorFacts.changed_keys`); :meth:`ErrorFacts.settle` meets the three.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libcst as cst

from unsentinel.core.syntax import NodeIndex, is_name, is_none_test, result_call
from unsentinel.errors.aliases import aliases_of
from unsentinel.errors.candidates import CHECKED_KEYS, ERROR_NAMED, READ_KEYS
from unsentinel.errors.readers import keyed_read
from unsentinel.errors.shapes import is_error_string, is_json_loads

Parent = Callable[[cst.CSTNode], cst.CSTNode | None]

# Keys whose test a check that also tests ``success`` no longer needs: ``success`` tells it.
_TOLD_BY_SUCCESS = frozenset({"status", "ok", "succeed"})
_HOPS = 4  # ``content = result.structured_content`` ... a bounded chain of locals

ParamRead = tuple[int, str, str, bool]  # (position, parameter, key, read as value)
Pass = tuple[str, str, int, str]  # (producer, receiver, position, keyword)


def changed_keys(keys: frozenset[str]) -> set[tuple[str, bool]]:
    """``(key, presence changes)`` for the top-level keys of an error dict the envelope
    changes: every key but ``success`` and ``error`` leaves the top level, those two appear
    where absent, and an ``error`` that was there becomes an object (its value changes)."""
    changed = {(key, True) for key in keys - {"success", "error"}}
    changed |= {(key, True) for key in {"success", "error"} - keys}
    if "error" in keys:
        changed.add(("error", False))
    return changed


class ReceivedReads:
    """What one non-test function reads of the values it receives."""

    def __init__(self, index: NodeIndex, function: cst.FunctionDef, parent: Parent) -> None:
        self.parent = parent
        self.params = _positions(function)
        origin = _received(index, function, set(self.params))
        # (origin parameter or "" for a closure's, key, read node) of each keyed read
        self._reads: list[tuple[str, str, cst.CSTNode]] = []
        for node in _keyed_reads(index, function, parent):
            found = keyed_read(node)
            assert found is not None and found[0] is not None
            root = _root(found[1])
            if root in origin:
                self._reads.append((origin[root], found[0], node))

    def markers(self) -> set[str]:
        """The markers of the old shape this function tests what it receives for: a generic
        check (``status`` compared with ``"error"``, ``ok`` / ``succeed``, ``error_type``)."""
        knows_envelope = any(key == "success" for _origin, key, _node in self._reads)
        found: set[str] = set()
        for _origin, key, node in self._reads:
            if ERROR_NAMED.match(key):
                found.add(key)
            elif knows_envelope:
                continue
            elif key in ("ok", "succeed") or key == "status" and self._with_error(node):
                found.add(key)
        return found

    def param_reads(self) -> set[ParamRead]:
        """``(position, parameter, key, read as value)`` for each parameter this function
        reads an old error key of: every key it reads of that parameter."""
        found: set[ParamRead] = set()
        for name, position in self.params.items():
            reads = [(key, node) for origin, key, node in self._reads if origin == name]
            if not any(self._reads_an_old_key(key, node) for key, node in reads):
                continue
            knows_envelope = any(key == "success" for key, _node in reads)
            for key, node in reads:
                if _reads_the_envelope(node, self.parent):
                    continue  # ``x["error"]["message"]``: already the new shape
                value = not (isinstance(node, cst.Comparison) or _truth_tested(node, self.parent))
                told = key in _TOLD_BY_SUCCESS or key == "error" and not value
                if key == "success" or knows_envelope and told:
                    continue
                found.add((position, name, key, value))
        return found

    def _reads_an_old_key(self, key: str, node: cst.CSTNode) -> bool:
        """A read that says the value is an error dict: a flag, ``error`` or a key named
        for one, a message subscript, ``status`` compared with ``"error"`` (each one the
        prefilter lets through: errors/candidates.py)."""
        if key in CHECKED_KEYS or ERROR_NAMED.match(key):
            return True
        if key in READ_KEYS:
            return isinstance(node, cst.Subscript)
        return key == "status" and self._with_error(node)

    def _with_error(self, node: cst.CSTNode) -> bool:
        above = self.parent(node)
        if isinstance(above, cst.ComparisonTarget):
            above = self.parent(above)
        if not isinstance(above, cst.Comparison):
            return False
        operands = [above.left, *(target.comparator for target in above.comparisons)]
        return any(is_error_string(operand) for operand in operands if operand is not node)


def passes(
    index: NodeIndex, function: cst.FunctionDef | None, defined: Callable[[str], bool]
) -> set[Pass]:
    """``(producer, receiver, position, keyword)``: a call hands the result of a call of
    ``producer`` to ``receiver`` (``describe(get_note(7))``; ``r = get_note(7)`` ...
    ``describe(r)``). ``defined``: may the repository define the name?"""
    aliases = aliases_of(index, function)
    bound: dict[str, list[str]] = {}
    for assign in index.within(cst.Assign, function):
        value = result_call(assign.value)
        for target in assign.targets:
            if isinstance(target.target, cst.Name):
                callee = aliases.callee(value) if isinstance(value, cst.Call) else None
                bound.setdefault(target.target.value, []).append(callee or "")
    found: set[Pass] = set()
    for call in index.within(cst.Call, function):
        receiver = aliases.callee(call)
        if receiver is None or not defined(receiver):
            continue
        for position, arg in enumerate(call.args):
            if arg.star:
                break
            value = result_call(arg.value)
            if isinstance(value, cst.Call):
                producer = aliases.callee(value)
            elif isinstance(value, cst.Name) and len(bound.get(value.value, ())) == 1:
                producer = bound[value.value][0]
            else:
                continue
            if producer and defined(producer):
                keyword = arg.keyword.value if arg.keyword is not None else ""
                found.add((producer, receiver, -1 if keyword else position, keyword))
    return found


def _positions(function: cst.FunctionDef) -> dict[str, int]:
    """Parameter -> position in a call (``self`` / ``cls`` not counted; keyword-only -1)."""
    params = function.params
    positional = [*params.posonly_params, *params.params]
    if positional and positional[0].name.value in ("self", "cls"):
        positional = positional[1:]
    found = {param.name.value: position for position, param in enumerate(positional)}
    found.update({param.name.value: -1 for param in params.kwonly_params})
    return found


def _received(index: NodeIndex, function: cst.FunctionDef, params: set[str]) -> dict[str, str]:
    """Name -> the parameter it was taken from: the parameters themselves, and the locals
    taken from them (``content = result.structured_content``, ``result = await
    call_next(ctx)``); a closure's parameters (a decorator's ``func``) map to ""."""
    origin = {name: name for name in params}
    outer = index.owner_of(function)
    while outer is not None:
        origin.update({p.name.value: "" for p in index.within(cst.Param, outer)})
        outer = index.owner_of(outer)
    origin.pop("self", None)
    origin.pop("cls", None)
    bound: list[tuple[str, cst.BaseExpression]] = []
    for assign in index.within(cst.Assign, function):
        for target in assign.targets:
            if isinstance(target.target, cst.Name):
                bound.append((target.target.value, assign.value))
    for loop in index.within(cst.For, function):
        if isinstance(loop.target, cst.Name):
            bound.append((loop.target.value, loop.iter))
    for _ in range(_HOPS):
        more = {
            name: origin[root]
            for name, value in bound
            if (root := _root(value)) in origin and name not in origin
        }
        if not more:
            break
        origin.update(more)
    return origin


def _root(node: cst.BaseExpression) -> str | None:
    """The name a value is taken from: ``result`` of ``result.content[0]``, of
    ``result.get("data")``, of ``json.loads(result)``; ``call_next`` of ``await
    call_next(ctx)``. None through any other call (``client.fetch()``: the client's
    answer, not what was received)."""
    current: cst.BaseExpression = node
    while True:
        if isinstance(current, cst.Name):
            return current.value
        if isinstance(current, cst.Await):
            current = current.expression
        elif isinstance(current, (cst.Attribute, cst.Subscript)):
            current = current.value
        elif isinstance(current, cst.Call) and is_json_loads(current) and current.args:
            current = current.args[0].value
        elif isinstance(current, cst.Call) and isinstance(current.func, cst.Name):
            current = current.func  # a received callable called: ``call_next(ctx)``
        elif (
            isinstance(current, cst.Call)
            and isinstance(current.func, cst.Attribute)
            and is_name(current.func.attr, "get")
        ):
            current = current.func.value
        else:
            return None


def _keyed_reads(
    index: NodeIndex, function: cst.FunctionDef, parent: Parent
) -> Iterator[cst.CSTNode]:
    """``x["k"]``, ``x.get("k")`` and ``"k" in x`` in ``function``, writes left out."""
    for kind in (cst.Subscript, cst.Call, cst.Comparison):
        for node in index.within(kind, function):
            found = keyed_read(node)
            if found is None or found[0] is None or _written(node, parent):
                continue
            yield node


def _written(node: cst.CSTNode, parent: Parent) -> bool:
    """``x["error"] = ...`` / ``del x["k"]`` / ``x["n"] += 1``: a write, not a read."""
    above = parent(node)
    if isinstance(above, (cst.AssignTarget, cst.Del)):
        return True
    return isinstance(above, (cst.AugAssign, cst.AnnAssign)) and above.target is node


def _reads_the_envelope(node: cst.CSTNode, parent: Parent) -> bool:
    """``x["error"]["code"]`` / ``x.get("error", {}).get("message")``: the new shape."""
    above = parent(node)
    if isinstance(above, cst.Subscript) and above.value is node:
        return True
    return isinstance(above, cst.Attribute) and above.value is node and above.attr.value == "get"


def _truth_tested(node: cst.CSTNode, parent: Parent) -> bool:
    """Is the value read only for its truth (``if x.get("error"):``, ``not x["ok"]``, ``and``,
    ``is None``, ``bool(...)``), not for what it holds?"""
    above = parent(node)
    if isinstance(above, (cst.If, cst.While, cst.Assert, cst.IfExp)):
        return getattr(above, "test", None) is node
    if isinstance(above, cst.UnaryOperation):
        return isinstance(above.operator, cst.Not)
    if isinstance(above, cst.BooleanOperation):
        return True
    if isinstance(above, cst.ComparisonTarget):
        above = parent(above)
    if isinstance(above, cst.Comparison) and len(above.comparisons) == 1:
        return above.left is node and is_none_test(above.comparisons[0])
    if isinstance(above, cst.Arg):
        call = parent(above)
        return isinstance(call, cst.Call) and is_name(call.func, "bool")
    return False
