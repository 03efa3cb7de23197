"""Keys that readers take out of a call's result and no reader rewrite will follow.

A migrated error dict moves its extra keys into ``error.details``
(``{"error": M, "available_sections": s}`` -> ``x["error"]["details"]["available_sections"]``).
A reader elsewhere that looks at the failure (``"error" in x``, ``x["success"]``) and also
reads such a key (``x.get("available_sections")``) would silently get nothing after the
migration. Which keys a reader reads does not depend on any producer, so it is recorded in
the first gather round as ``(callee, key)`` pairs; :meth:`ErrorFacts.settle` meets them with
the producers' moved keys, and a producer whose moved key is read that way is held.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from unsentinel.core.syntax import NodeIndex, is_name, is_none_test, result_call, string_value
from unsentinel.errors.aliases import Aliases, aliases_of
from unsentinel.errors.key_places import (
    DETAIL_CONTAINERS,
    DISCRIMINATORS,
    MESSAGE_KEYS,
    REWRITTEN,
    UNCHANGED,
    UNFOLLOWED,
)
from unsentinel.errors.shapes import call_name, is_json_loads
from unsentinel.errors.tool_calls import tool_called

# A read of one of these says the reader looks at the failure side of the result.
FAILURE_KEYS = frozenset({*MESSAGE_KEYS, *DISCRIMINATORS, "status"})
# Keys the reader rewrites know how to move; any other key is an extra.
KNOWN_KEYS = FAILURE_KEYS | frozenset(DETAIL_CONTAINERS)
# Calls that serialise an object: the keys come from its class, not from an error dict.
SERIALISERS = frozenset(
    {"model_dump", "dict", "asdict", "to_dict", "_asdict", "vars", "model_dump_json"}
)


def extra_reads(
    index: NodeIndex,
    function: cst.FunctionDef | None,
    skip: frozenset[str] = frozenset(),
    defined: frozenset[str] = frozenset(),
) -> set[tuple[str, str]]:
    """``(callee, key)`` for the extra keys read of results that are checked for failure.

    ``skip`` names variables whose reads are rewritten anyway (a test with evidence);
    ``defined``, the functions the repository defines (a tool called by name is one).
    """
    callees, keys = _reads(index, function, skip, defined)
    return {
        (callees[variable], key)
        for variable, read in keys.items()
        if read & FAILURE_KEYS
        for key in read - KNOWN_KEYS
    }


def test_key_reads(
    index: NodeIndex,
    function: cst.FunctionDef,
    followed: frozenset[str],
    parent: Callable[[cst.CSTNode], cst.CSTNode | None],
    defined: frozenset[str] = frozenset(),
) -> set[tuple[str, str, str, str]]:
    """``(callee, key, how, succeeded)`` for every key a test reads of a call's result.

    ``how`` says whether a reader rewrite follows the result (``followed``: the variables
    it follows) and, if it does, whether this read is rewritten (``x["k"]``) or kept as it
    is (``"k" in x``, ``x.get("k")``, ``x["status"]`` not compared with ``"error"``).
    ``succeeded`` names the key of a check that the result succeeded, where the test makes
    one (``x["status"] == "success"``, ``x["ok"] is True``), else ``""``. See
    :mod:`~unsentinel.errors.key_places`."""
    callees = _bound(index.within(cst.Assign, function), defined, aliases_of(index, function))
    reads: list[tuple[cst.CSTNode, str, str]] = []
    succeeded: dict[str, str] = {}
    for kind in (cst.Subscript, cst.Call, cst.Comparison):
        for node in index.within(kind, function):
            read = _read(node)
            if read is None or read[0] not in callees:
                continue
            reads.append((node, *read))
            if _shows_success(node, read[1], parent):
                succeeded[read[0]] = min(read[1], succeeded.get(read[0], read[1]))
    found: set[tuple[str, str, str, str]] = set()
    for where, variable, key in reads:
        if variable not in followed:
            how = UNFOLLOWED
        elif isinstance(where, cst.Subscript) and (key != "status" or _equals_error(where, parent)):
            how = REWRITTEN
        else:
            how = UNCHANGED
        found.add((callees[variable], key, how, succeeded.get(variable, "")))
    return found


def _shows_success(
    node: cst.CSTNode, key: str, parent: Callable[[cst.CSTNode], cst.CSTNode | None]
) -> bool:
    """Is this read a check that the result succeeded? ``x["status"] == "success"`` (any
    text but ``"error"``), ``x["ok"] is True``, ``assert x["ok"]``, ``assertTrue(x["ok"])``."""
    if key != "status" and key not in DISCRIMINATORS:
        return False
    above = parent(node)
    if isinstance(above, cst.ComparisonTarget):
        above = parent(above)
    if key in DISCRIMINATORS and isinstance(above, cst.Assert) and above.test is node:
        return True
    around = _around(node, parent)
    call = around[0] if around else None
    if isinstance(call, cst.Call):
        name = call_name(call)
        if key in DISCRIMINATORS and name == "assertTrue":
            return True
        if name not in ("assertEqual", "assertIs"):
            return False
    elif not (
        isinstance(above, cst.Comparison)
        and len(above.comparisons) == 1
        and isinstance(above.comparisons[0].operator, (cst.Equal, cst.Is))
    ):
        return False
    others = [n for n in around if n is not node and n is not call]
    if key == "status":
        return any(isinstance(n, cst.SimpleString) and string_value(n) != "error" for n in others)
    return any(is_name(n, "True") for n in others)


def _equals_error(node: cst.CSTNode, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> bool:
    """``x["status"] == "error"`` (or ``self.assertEqual(x["status"], "error")``): the one
    status read the reader rewrites change (into ``x["success"] is False``)."""
    above = parent(node)
    if isinstance(above, cst.ComparisonTarget):
        above = parent(above)
    if isinstance(above, cst.Comparison):
        equal = len(above.comparisons) == 1 and isinstance(above.comparisons[0].operator, cst.Equal)
        return equal and _checks_failure("status", _around(node, parent))
    around = _around(node, parent)
    call = around[0] if around else None
    asserted = isinstance(call, cst.Call) and call_name(call) == "assertEqual"
    return asserted and _checks_failure("status", around)


def failure_reads(index: NodeIndex, function: cst.FunctionDef | None) -> set[str]:
    """The callees whose result this function checks for failure (``"error" in x``).

    Recorded for a function that keeps its old error shape: what it reads there it passes
    on in that shape, so the callee must keep it too (:meth:`ErrorFacts.settle`).
    """
    callees, keys = _reads(index, function, frozenset(), frozenset())
    return {callees[variable] for variable, read in keys.items() if read & FAILURE_KEYS}


def _reads(
    index: NodeIndex,
    function: cst.FunctionDef | None,
    skip: frozenset[str],
    defined: frozenset[str],
) -> tuple[dict[str, str], dict[str, set[str]]]:
    """Variables bound from a call (with the callee) and the string keys read of each."""
    callees = _bound(index.within(cst.Assign, function), defined, aliases_of(index, function))
    keys: dict[str, set[str]] = {}
    for kind in (cst.Subscript, cst.Call, cst.Comparison):
        for node in index.within(kind, function):
            found = _read(node)
            if found is not None and found[0] in callees and found[0] not in skip:
                keys.setdefault(found[0], set()).add(found[1])
    return callees, keys


def _bound(assigns: list[cst.Assign], defined: frozenset[str], aliases: Aliases) -> dict[str, str]:
    """Variables bound straight from a call (awaited or not), with the callee's bare name
    (a tool called by name: the function serving it; ``json.loads(result)``: the callee
    that bound ``result``; a local alias: the function it names)."""
    bound: dict[str, str] = {}
    tools: set[str] = set()  # bound by a tool called by name: their replies are dug into
    for node in assigns:
        value = result_call(node.value)
        if not isinstance(value, cst.Call):
            continue
        value = _parsed_call(value) or value
        tool = tool_called(value, defined)
        name = tool or aliases.callee(value)
        if not name or name in SERIALISERS or len(node.targets) != 1:
            continue
        target: cst.BaseExpression = node.targets[0].target
        if isinstance(target, (cst.Tuple, cst.List)) and target.elements:
            target = target.elements[0].value  # (body, status) = handler(...)
        if isinstance(target, cst.Name):
            bound[target.value] = bound.get(_loaded_from(value, tools) or "", name)
            if tool is not None:
                tools.add(target.value)
    return bound


def _parsed_call(value: cst.Call) -> cst.Call | None:
    """``json.loads(await query(...))``: the call whose text is parsed, read as the value
    bound (its callee built the dict)."""
    if not is_json_loads(value) or not value.args:
        return None
    inner = result_call(value.args[0].value)
    return inner if isinstance(inner, cst.Call) else None


def _loaded_from(value: cst.BaseExpression, tools: set[str]) -> str | None:
    """``json.loads(result)``: the variable whose text is parsed (its callee built the
    dict); ``json.loads(response.content[0].text)`` too where a tool's reply is dug into."""
    if not is_json_loads(value):
        return None
    assert isinstance(value, cst.Call)
    first = value.args[0].value if value.args else None
    if isinstance(first, cst.Name):
        return first.value
    while isinstance(first, (cst.Attribute, cst.Subscript)):
        first = first.value
    return first.value if isinstance(first, cst.Name) and first.value in tools else None


def _read(node: cst.CSTNode) -> tuple[str, str] | None:
    """``(variable, key)`` for ``x["k"]``, ``x.get("k", ...)`` and ``"k" in x``."""
    found = keyed_read(node)
    if found is None:
        return None
    key, base = found
    if key is None or not isinstance(base, cst.Name):
        return None
    return base.value, key


def keyed_read(node: cst.CSTNode) -> tuple[str | None, cst.BaseExpression] | None:
    """``(key, what is read)`` for ``x["k"]``, ``x.get("k", ...)`` and ``"k" in x``; the key
    is None where it is no string literal. None for any other node."""
    if isinstance(node, cst.Subscript):
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None
        return _string(node.slice[0].slice.value), node.value
    if isinstance(node, cst.Call):
        # isinstance, not a matcher: asked of every call of every analysed file (355,000
        # times over the standard library, where the matcher took 11 s of a 311 s profile)
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "get") or not node.args:
            return None
        return _string(node.args[0].value), func.value
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        if not isinstance(node.comparisons[0].operator, (cst.In, cst.NotIn)):
            return None
        return _string(node.left), node.comparisons[0].comparator
    return None


def _string(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = string_value(node)
        return value if isinstance(value, str) else None
    return None


def asserted_failures(
    index: NodeIndex,
    function: cst.FunctionDef | None,
    followed: frozenset[str],
    parent: Callable[[cst.CSTNode], cst.CSTNode | None],
    defined: frozenset[str] = frozenset(),
) -> set[str]:
    """The callees whose failure a test checks in reads the reader rewrites do not follow:
    ``assert result["status"] == "error"`` alone, ``"error" in result``,
    ``self.assertEqual(result["status"], "error")``, ``self.assertIn("x", result["error"])``,
    ``self.assertFalse(r["ok"])``.

    Left as they are, these reads see the old shape; the callee must keep it (held).
    ``followed``: variables whose reads are rewritten anyway.
    """
    callees, _keys = _reads(index, function, followed, defined)
    found: set[str] = set()
    for kind in (cst.Subscript, cst.Call, cst.Comparison):
        for node in index.within(kind, function):
            read = _read(node)
            if read is None or read[0] not in callees or read[0] in followed:
                continue
            if _still_reads_right(node, read[1], parent):
                continue
            if _checks_failure(read[1], _around(node, parent)):
                found.add(callees[read[0]])
    return found


def _still_reads_right(
    node: cst.CSTNode, key: str, parent: Callable[[cst.CSTNode], cst.CSTNode | None]
) -> bool:
    """Does this read of ``key`` give the same answer on the envelope? ``"error" in result``
    does (the envelope has an ``error``), and so does a truth test of ``result["error"]``
    (``assert result["error"]``, ``len(result["error"]) > 0``, ``is not None``): the error
    is a non-empty dict then; ``result["error"] is None`` (a success the test expects) holds
    too, as success dicts do not change. A string read (``"x" in result["error"]``) does not."""
    if key != "error":
        return False
    if isinstance(node, cst.Comparison):
        return True  # ``"error" in result``: the only comparison read is a membership test
    return _truth_tested(node, parent)


def _truth_tested(node: cst.CSTNode, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> bool:
    above = parent(node)
    if isinstance(above, (cst.Assert, cst.If, cst.While)):
        return True
    if isinstance(above, cst.UnaryOperation):
        return isinstance(above.operator, cst.Not)
    if isinstance(above, cst.Comparison) and above.left is node:
        return (
            isinstance(above, cst.Comparison)
            and len(above.comparisons) == 1
            and is_none_test(above.comparisons[0])
        )
    if isinstance(above, cst.Arg):
        call = parent(above)
        if not isinstance(call, cst.Call):
            return False
        name = call_name(call)
        if name in ("assertTrue", "assertIsNotNone", "assertIsNone", "bool"):
            return True
        return name == "len" and _non_empty(call, parent)
    return False


def _non_empty(call: cst.CSTNode, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> bool:
    """``len(x) > 0`` / ``len(x) != 0`` / ``len(x) >= 1`` / a bare ``assert len(x)``."""
    above = parent(call)
    if isinstance(above, cst.Assert):
        return True
    if not isinstance(above, cst.Comparison) or above.left is not call:
        return False
    if len(above.comparisons) != 1:
        return False
    target = above.comparisons[0]
    bound = target.comparator
    if not isinstance(bound, cst.Integer):
        return False
    if isinstance(target.operator, (cst.GreaterThan, cst.NotEqual)):
        return bound.value == "0"
    return isinstance(target.operator, cst.GreaterThanEqual) and bound.value == "1"


def _around(
    node: cst.CSTNode, parent: Callable[[cst.CSTNode], cst.CSTNode | None]
) -> list[cst.CSTNode]:
    """What a read is checked against: the other side of its comparison, the other
    arguments of a test-case assertion (``self.assertEqual(read, "error")``)."""
    above = parent(node)
    if isinstance(above, cst.ComparisonTarget):
        above = parent(above)
    if isinstance(above, cst.Comparison):
        return [above.left, *(target.comparator for target in above.comparisons)]
    if isinstance(above, cst.Arg):
        call = parent(above)
        if isinstance(call, cst.Call) and (call_name(call) or "").startswith("assert"):
            return [call, *(arg.value for arg in call.args)]
    return []


def _checks_failure(key: str, around: list[cst.CSTNode]) -> bool:
    if key == "error":  # ``result["error"]``, ``"error" in result``: only a failure has one
        return True
    if key == "status":
        return any(isinstance(n, cst.SimpleString) and string_value(n) == "error" for n in around)
    if key in DISCRIMINATORS:
        asserts_false = any(
            isinstance(n, cst.Call) and call_name(n) == "assertFalse" for n in around
        )
        return asserts_false or any(is_name(n, "False") for n in around)
    return False
