"""Functions that return another function's result as it is: ``return _handle(e)``.

Such a function returns whatever error dicts its callee returns, so the two are one group:

* readers of the caller follow the callee's migration (a test's ``_call`` wrapper, a tool
  whose failures all come from ``return handle_error(e)``): the caller *forwards* it;
* if either keeps an old error shape (held), the other must keep it too. A caller that
  returns a held callee's result beside a literal of its own would return two shapes once
  the literal migrated; a held caller whose readers keep the old keys would meet the new
  shape of a migrated callee.

The calls are recorded per function in the first gather round (:func:`returned_callees`);
:meth:`~unsentinel.errors.facts.ErrorFacts.settle` closes over them (:func:`reaching`,
:func:`linked_holds`). Functions are keyed by bare name, as every cross-file error fact is.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from unsentinel.errors.dispatch import handler_tables, looked_up_table

# A model's dump returned as it is (``return found.model_dump(...)``): its fields (a
# response model's ``success`` and ``message``) keep their old shape, like a held callee's
# error dicts, so a function returning one beside error dicts of its own is held with it.
MODEL_DUMPS = frozenset({"model_dump", "asdict", "_asdict"})

if TYPE_CHECKING:  # the gather facts use the graph below: no LibCST at import
    import libcst as cst

    from unsentinel.core.syntax import LocalBindings


def returned_callees(bindings: LocalBindings, function: cst.FunctionDef) -> set[str]:
    """The callees whose result ``function`` returns as it is: ``return f(...)``, ``return
    await f(...)``, the body of a returned tuple (``return f(...), 500``), a local that
    holds such a result (``response = f(...)`` ... ``return response``), or the handlers of
    a table it calls through (``return _DISPATCH[action](params)``: errors/dispatch.py)."""
    import libcst as cst

    held_by = _locals_holding_calls(bindings, function)
    handlers = _handlers_called(bindings, function)
    found: set[str] = set()
    for node in bindings.index.within(cst.Return, function):
        value = node.value
        if isinstance(value, cst.Tuple) and value.elements:
            value = value.elements[0].value
        if isinstance(value, cst.Name):
            found |= held_by.get(value.value, set())
        else:
            found |= _called(value) | handlers(value)
    return found


def _handlers_called(
    bindings: LocalBindings, function: cst.FunctionDef
) -> Callable[[cst.BaseExpression | None], set[str]]:
    """What a returned call may run when it calls a handler out of a table: the table read
    in the call itself (``_DISPATCH[action](...)``) or by a local that holds it (``handler
    = _DISPATCH.get(action)`` ... ``handler(...)``)."""
    import libcst as cst

    tables = handler_tables(bindings.index)
    picked: dict[str, str] = {}  # local -> the table it holds a handler of
    for assignment in bindings.of(function) if tables else ():
        if assignment.augmented or assignment.name is None:
            continue
        table = looked_up_table(assignment.value)
        if table in tables:
            picked[assignment.name] = table

    def handlers(value: cst.BaseExpression | None) -> set[str]:
        if isinstance(value, cst.Await):
            value = value.expression
        if not tables or not isinstance(value, cst.Call):
            return set()
        callee = value.func
        table = picked.get(callee.value) if isinstance(callee, cst.Name) else None
        return tables.get(table or looked_up_table(callee) or "", set())

    return handlers


def _locals_holding_calls(
    bindings: LocalBindings, function: cst.FunctionDef
) -> dict[str, set[str]]:
    """For each local assigned a call's result in ``function``, the callees: any one of
    them may be what a later ``return name`` hands back."""
    found: dict[str, set[str]] = {}
    for assignment in bindings.of(function):
        callees = set() if assignment.augmented else _called(assignment.value)
        if callees and assignment.name is not None:
            found.setdefault(assignment.name, set()).update(callees)
    return found


def _called(value: cst.BaseExpression | None) -> set[str]:
    """The callee of ``f(...)`` or ``await f(...)``; empty for anything else."""
    import libcst as cst

    from unsentinel.errors.shapes import call_name

    if isinstance(value, cst.Await):
        value = value.expression
    name = call_name(value) if isinstance(value, cst.Call) else None
    return {name} if name else set()


def reaching(returns: Iterable[tuple[str, str]], sources: Iterable[str]) -> dict[str, set[str]]:
    """Every function that returns (directly or down a chain) the result of a function in
    ``sources``, with the ones it reaches; a source reaches itself."""
    callers = _adjacent((callee, caller) for caller, callee in returns)
    reached: dict[str, set[str]] = {name: {name} for name in sources}
    work = list(reached)
    while work:
        callee = work.pop()
        for caller in callers.get(callee, ()):
            new = reached[callee] - reached.setdefault(caller, set())
            if new:
                reached[caller] |= new
                work.append(caller)
    return reached


def linked_holds(
    held: set[str],
    returns: Iterable[tuple[str, str]],
    failure_reads: Iterable[tuple[str, str]],
    erroring: frozenset[str],
) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """What the holds in ``held`` spread to, each with the function it came from.

    Down a failure read (a held reader passes its callee's error on), down a return (a held
    caller returns its callee's result), and up a return (a caller of a held function
    returns its result). A return links only functions that return error dicts
    (``erroring``: their own, or down a chain): ``return self.cache.get(key)`` links nothing.
    Returns three tables -- held callees of a failure read, held callers, held callees of
    a return -- each mapping a function to the one that held it.
    """
    linked = [(caller, callee) for caller, callee in returns if callee in erroring]
    edges = {
        "passed_on": _adjacent(failure_reads),  # reader -> callee
        "returned": _adjacent(linked),  # caller -> callee
        "returning": _adjacent((callee, caller) for caller, callee in linked),
    }
    tables: dict[str, dict[str, str]] = {name: {} for name in edges}
    done = set(held)
    work = deque(sorted(held))  # breadth first: each hold names its nearest source
    while work:
        source = work.popleft()
        for table, adjacent in edges.items():
            for name in sorted(adjacent.get(source, ())):
                if name not in done:
                    done.add(name)
                    tables[table][name] = source
                    work.append(name)
    return tables["passed_on"], tables["returning"], tables["returned"]


def _adjacent(pairs: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for first, second in pairs:
        if first != second:
            found.setdefault(first, set()).add(second)
    return found
