"""Handlers called through a table: ``handler = _DISPATCH.get(action)`` ... ``return
handler(config, params)``.

A tool that dispatches on an action returns whatever the handler it picks returns, so for
its error dicts it is one function with every handler in its table: a reader of the
dispatcher's result meets the error shape of the handler it reached. The call itself names
no handler (``handler(...)``), so the table it came from is read instead: a module-level
(or class-level) dict literal whose values are all functions named
(``{"read": _do_read, "list": _do_list}``), or a table filled outside any function
after the handlers are defined (``_ACTION_MAP.update({"get": _get, ...})``,
``_ACTION_MAP["get"] = _get``).

Used by :func:`~unsentinel.errors.returned.returned_callees`: the handlers count as callees
whose result the dispatcher returns as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

if TYPE_CHECKING:  # the gather facts use the graph: no LibCST at import
    import libcst as cst

    from unsentinel.core.syntax import NodeIndex


_TABLES: WeakKeyDictionary[NodeIndex, dict[str, set[str]]] = WeakKeyDictionary()


def handler_tables(index: NodeIndex) -> dict[str, set[str]]:
    """Each name bound outside any function to a dict literal of functions, with their
    names: ``_DISPATCH = {"read": _do_read, "list": handlers.do_list}`` gives ``_DISPATCH
    -> {"_do_read", "do_list"}``. A dict holding anything else is no handler table.

    Read at module level only, so found once per file's index (every function asks: a
    file of a thousand functions read its module-level statements a thousand times) and
    shared: callers only read it."""
    tables = _TABLES.get(index)
    if tables is None:
        tables = _TABLES[index] = _module_tables(index)
    return tables


def _module_tables(index: NodeIndex) -> dict[str, set[str]]:
    import libcst as cst

    tables: dict[str, set[str]] = {}
    for assign in index.within(cst.Assign, None):
        handlers = _function_names(assign.value)
        for target in assign.targets if handlers else ():
            if isinstance(target.target, cst.Name):
                tables[target.target.value] = handlers
    for annotated in index.within(cst.AnnAssign, None):
        handlers = _function_names(annotated.value) if annotated.value is not None else set()
        if handlers and isinstance(annotated.target, cst.Name):
            tables[annotated.target.value] = handlers
    for table, handlers in _filled_later(index):
        tables.setdefault(table, set()).update(handlers)
    return tables


def _filled_later(index: NodeIndex) -> list[tuple[str, set[str]]]:
    """Handlers added to a table outside any function: ``TABLE.update({"k": handler})``
    and ``TABLE["k"] = handler``."""
    import libcst as cst

    found: list[tuple[str, set[str]]] = []
    for call in index.within(cst.Call, None):
        func = call.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "update"
            and isinstance(func.value, cst.Name)
            and len(call.args) == 1
        ):
            handlers = _function_names(call.args[0].value)
            if handlers:
                found.append((func.value.value, handlers))
    for assign in index.within(cst.Assign, None):
        for target in assign.targets:
            table = target.target
            if isinstance(table, cst.Subscript) and isinstance(table.value, cst.Name):
                handler = _handler_name(assign.value)
                if handler is not None:
                    found.append((table.value.value, {handler}))
    return found


def looked_up_table(node: cst.BaseExpression) -> str | None:
    """The table a handler is taken from: ``TABLE[key]``, ``TABLE.get(key)`` (also with a
    default) or ``self.TABLE[...]``; None for anything else."""
    import libcst as cst

    if isinstance(node, cst.Subscript):
        return _table_name(node.value)
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "get"
    ):
        return _table_name(node.func.value)
    return None


def _table_name(node: cst.BaseExpression) -> str | None:
    import libcst as cst

    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        return node.attr.value if node.value.value in ("self", "cls") else None
    return None


def _function_names(value: cst.BaseExpression | None) -> set[str]:
    """The functions a dict literal maps its keys to, or empty unless every value names one
    (``_do_read``, ``module.do_list``)."""
    import libcst as cst

    if not isinstance(value, cst.Dict) or not value.elements:
        return set()
    names: set[str] = set()
    for element in value.elements:
        if not isinstance(element, cst.DictElement):
            return set()  # ``**other``: the table's contents are not all here
        handler = _handler_name(element.value)
        if handler is None:
            return set()
        names.add(handler)
    return names


def _handler_name(value: cst.BaseExpression) -> str | None:
    """The function ``value`` names (``_do_read``, ``module.do_list``), if it names one."""
    import libcst as cst

    if isinstance(value, cst.Name) and value.value not in ("None", "True", "False"):
        return value.value
    if isinstance(value, cst.Attribute):
        return value.attr.value
    return None
