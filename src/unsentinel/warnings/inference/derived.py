"""Derived locals: which expression a local's value was computed from.

A warning about ``code`` after ``code = normalize(item.code)`` is about the input
``item.code``; ``charges = request.surcharges`` makes a loop over ``charges`` a loop over
``surcharges``. The field path should name the input, not the local that renamed it: the
caller of the operation knows ``surcharges``, not ``charges``.

This module only reads the assigned value's shape; ``FileAnalysis`` resolves the sources
it names (and keeps one only when exactly one of them is an input, so that
``lookup(request.a, request.b)`` stays unresolved: two inputs tie, no one is the subject).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst


@dataclass(frozen=True)
class Source:
    """An expression a local derives from. ``computed``: a call made the value from it, so
    the local stands for the input as a whole but has none of its fields --
    ``order = fetch(order_id)`` is about ``order_id``, ``order.status`` is remote state."""

    expr: cst.BaseExpression
    computed: bool = False


def derivation_sources(value: cst.BaseExpression) -> list[Source]:
    """The expressions ``value`` derives from, in order; empty when it is not a derivation.

    - an alias: ``charges = request.surcharges`` -> ``request.surcharges``;
    - a default: ``kind = request.kind or "card"`` -> ``request.kind``;
    - ``await``: its operand;
    - a call on inputs (computed): ``normalize(item.code)`` -> ``item.code`` (every
      argument; the caller keeps the ones that are inputs);
    - a method on a value (computed): ``item.code.strip().upper()`` -> ``item.code``;
    - a filter: ``absent = [a for a in attributes if a not in known]`` -> ``attributes``
      (the items it keeps are the input's own, so the list is still that input's);
    - an index of the items by a key: ``by_id = {row.id: row for row in rows}`` ->
      ``rows`` (its values are the input's own items: ``by_id.get(key)`` is one of them);
    - a choice: ``qty = actual if actual else 1`` -> ``actual``, as a default is (each
      arm is a value the local may hold; the test only picks one);
    - a read by key: ``metadata.get("description")`` -> ``metadata.description`` (a field
      like any other: of an input it is the input's field, of a computed value it is none);
    - a part (computed): ``destination.split()[0]`` -> ``destination``. A string key
      (``mo["order_no"]``) reads a record, which is state, not a part of the input.
    """
    if isinstance(value, cst.Await):
        return derivation_sources(value.expression)
    if isinstance(value, (cst.Name, cst.Attribute)):
        return [Source(value)]
    if isinstance(value, cst.BooleanOperation):
        return derivation_sources(value.left)
    if isinstance(value, cst.IfExp):
        return derivation_sources(value.body) + derivation_sources(value.orelse)
    kept = _filtered(value)
    if kept is not None:
        return derivation_sources(kept)
    if isinstance(value, cst.Call):
        read = _read_by_key(value)
        if read is not None:
            return [Source(read)]
        return [Source(s.expr, computed=True) for s in _call_sources(value)]
    if isinstance(value, cst.Subscript) and not _keyed(value):
        return [Source(s.expr, computed=True) for s in derivation_sources(value.value)]
    return []


def element_sources(value: cst.BaseExpression) -> list[Source]:
    """What a name holding one *element* of ``value`` derives from (``a, b = value``, ``for
    a in value``): a literal tuple's elements, each a value the name may hold (``for var in
    (left.strip(), right.strip())``), else ``value`` itself -- computed, since an element
    has none of the whole's fields."""
    if isinstance(value, (cst.Tuple, cst.List)):
        return [
            source
            for element in value.elements
            if isinstance(element, cst.Element)
            for source in derivation_sources(element.value)
        ]
    return [Source(s.expr, computed=True) for s in derivation_sources(value)]


def _read_by_key(call: cst.Call) -> cst.Attribute | None:
    """``x.get("key")`` / ``x.get("key", default)`` as the field it reads, ``x.key``."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "get" and call.args):
        return None
    if len(call.args) > 2 or any(arg.keyword is not None or arg.star for arg in call.args):
        return None
    key = call.args[0].value
    text = key.evaluated_value if isinstance(key, cst.SimpleString) else None
    if not (isinstance(text, str) and text.isidentifier()):
        return None
    return cst.Attribute(value=func.value, attr=cst.Name(text))


def _keyed(subscript: cst.Subscript) -> bool:
    """``record["key"]``: a read of a record by a string key."""
    return any(
        isinstance(element.slice, cst.Index)
        and isinstance(element.slice.value, (cst.SimpleString, cst.FormattedString))
        for element in subscript.slice
    )


def _filtered(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """The iterable of a comprehension that only filters it (``[a for a in xs if ...]``)
    or indexes its items by a key (``{a.id: a for a in xs}``): one ``for``, whose target is
    the element (the mapping's value) itself. ``[a.id for a in xs]`` computes."""
    if isinstance(value, cst.DictComp):
        element = value.value
    elif isinstance(value, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        element = value.elt
    else:
        return None
    loop = value.for_in
    if loop.inner_for_in is not None or not isinstance(loop.target, cst.Name):
        return None
    return (
        loop.iter if isinstance(element, cst.Name) and element.value == loop.target.value else None
    )


def _call_sources(call: cst.Call) -> list[Source]:
    func = call.func
    sources: list[Source] = []
    if isinstance(func, cst.Attribute):
        # ``item.code.strip()``: the receiver is the value. ``json.loads(x)`` names a
        # module, which resolves to no input and is dropped by the caller.
        sources.extend(derivation_sources(func.value))
    for arg in call.args:
        if not arg.star:
            sources.extend(derivation_sources(arg.value))
    return sources
