"""Which project helpers return warnings: facts the producer rules record for the gather pass.

A helper that returns sentinel strings returns warnings once migrated, and so does one
whose result lands in a warnings list (``warnings.append(check(x))``,
``loc, note = resolve(...)`` then ``warnings.append(note)``). Callers in other files, tests
that mock the helper and its annotation learn that through the gather pass, so these
records are made in every pass; the values they link join one group of the flow graph.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

import libcst as cst

from unsentinel.core.defined import may_be_defined
from unsentinel.core.syntax import last_name
from unsentinel.warnings.analysis import FileAnalysis
from unsentinel.warnings.carriers import BUILTIN_CALLS, FileCarriers, is_helper_call
from unsentinel.warnings.facts import TupleSlot, WarningShape
from unsentinel.warnings.function_facts import gathered_pairs
from unsentinel.warnings.graph import ReturnCarrier, SlotCarrier
from unsentinel.warnings.rule import WarningRule

APPENDERS = {"append": 0, "insert": 1}
"""List methods that add one value, with the index of that value's argument."""
GROWERS = frozenset({*APPENDERS, "extend"})
"""List methods that grow a list in place: what they add lands in it."""

# Calls whose result in a warnings list says nothing about a helper returning warnings.
NOT_HELPERS = frozenset(
    [
        "field",
        "Field",
        "list",
        "dict",
        "set",
        "tuple",
        "sorted",
        "reversed",
        "copy",
        "deepcopy",
        "get",
        "pop",
        "default_factory",
        "object",  # builtins that construct: never a warning string
        "type",
    ]
)


class HelperReturns:
    """Records, for one file, which helpers return warnings and in which slot.

    ``is_marked`` tells whether a string carries a sentinel, as the rule reads markers.
    """

    def __init__(self, rule: WarningRule, is_marked: Callable[[cst.BaseExpression], bool]):
        self.rule = rule
        self.is_marked = is_marked

    @property
    def analysis(self) -> FileAnalysis:
        return self.rule.analysis

    @cached_property
    def carriers(self) -> FileCarriers:
        return self.rule.context.shared(FileCarriers)

    def _helper(self, expr: cst.BaseExpression) -> str | None:
        """The project helper ``expr`` calls: one the repository may define."""
        callee = helper_called(expr)
        if callee is None or not may_be_defined(self.rule.context.facts, callee):
            return None
        return callee

    def record_call(self, expr: cst.BaseExpression, shape: WarningShape) -> None:
        """A helper call whose result lands in a warnings list returns warnings."""
        callee = self._helper(expr)
        if callee is not None:
            self.rule.notes.returning.add(callee)
            self.rule.notes.return_shapes[callee] = shape

    def record_returning(self, function: cst.FunctionDef, marked: set[int | None]) -> None:
        """A helper that returns sentinel strings returns warnings: callers, tests that
        mock it and its annotation learn that through the gather pass."""
        name = function.name.value
        notes = self.rule.notes
        if None in marked and name not in notes.returning:
            notes.returning.add(name)
            shape = WarningShape.LIST if _returns_list(function) else WarningShape.ITEM
            notes.return_shapes.setdefault(name, shape)

    def record_unpacked(self, node: cst.Assign) -> None:
        """``loc, note = resolve(...)`` then ``warnings.append(note)``: resolve#1 is a warning.

        With ``asyncio.gather(check_x(), check_y())`` each unpacked part is its own
        coroutine's result: a name is what that helper returns, a tuple its slots.
        """
        target = node.targets[0].target if len(node.targets) == 1 else None
        if not isinstance(target, cst.Tuple) or not isinstance(node.value, (cst.Call, cst.Await)):
            return
        function = self.analysis.enclosing_function(node)
        if function is None:
            return
        pairs = gathered_pairs(target, node.value)
        if pairs is None:
            self._record_slots(target, node.value, function)
            return
        for element, value in pairs:
            if isinstance(element, cst.Tuple):
                self._record_slots(element, value, function)
            elif isinstance(element, cst.Name):
                self._record_gathered(element, value, function)

    def _record_gathered(
        self, name: cst.Name, value: cst.BaseExpression, function: cst.FunctionDef
    ) -> None:
        """One name of ``a, b = await asyncio.gather(check_a(), check_b())``: what its own
        helper returns. Appended, or only read where the helper is known to return a
        warning, the name and the helper's result are one group."""
        callee = self._helper(value)
        if self._flows_into_warnings(name.value, function):
            self.record_call(value, WarningShape.ITEM)
        elif callee is None or self.rule.facts.return_shape(callee) is not WarningShape.ITEM:
            return
        if callee is not None:
            self.carriers.link(self.carriers.of(name), (ReturnCarrier(callee),))

    def _record_slot(self, expr: cst.BaseExpression, index: int) -> None:
        """``loc, note = resolve(...)``: slot ``index`` of what the helper returns is a warning."""
        callee = self._helper(expr)
        if callee is not None:
            self.rule.notes.tuple_slots.add(TupleSlot(callee, index))

    def _record_slots(
        self, target: cst.Tuple, value: cst.BaseExpression, function: cst.FunctionDef
    ) -> None:
        """Slot ``index`` of what the helper returns is a warning where its name flows into a
        warnings list; the name and the slot are one group."""
        for index, element in enumerate(target.elements):
            if isinstance(element, cst.StarredElement):
                return  # the names after it are at unknown positions
            self._link_list_slot(element.value, value, index)
            if not isinstance(element.value, cst.Name):
                continue
            callee = self._helper(value)
            if self._flows_into_warnings(element.value.value, function):
                self._record_slot(value, index)
            elif callee is None or index not in self.rule.facts.slots_of(callee):
                continue
            # A name that holds the slot's warning -- appended, or only read (a test's
            # ``assert "9999" in warning``) -- changes only with the slot's producers.
            if callee is not None:
                slot = (SlotCarrier(callee, index),)
                self.carriers.link(self.carriers.of(element.value), slot)

    def _link_list_slot(
        self, target: cst.BaseExpression, value: cst.BaseExpression, index: int
    ) -> None:
        """``errors, warnings = check(...)``: the unpacked warnings list is the list ``check``
        returns in that slot (linked on the ``return`` side too): one group, so its readers
        here never change unless its producers there do."""
        callee = self._helper(value)
        if (
            callee is not None
            and self.analysis.is_warning_list(target)
            and not self.rule.facts.is_text_slot(callee, index)
        ):
            self.carriers.link(self.carriers.of(target), (SlotCarrier(callee, index),))

    def _flows_into_warnings(self, name: str, function: cst.FunctionDef) -> bool:
        """Is the local ``name`` appended, assigned or annotated into a warnings list?"""
        for call in self.analysis.index.within(cst.Call, function):
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value in APPENDERS
                and self.analysis.is_warning_list(func.value)
                and any(isinstance(a.value, cst.Name) and a.value.value == name for a in call.args)
            ):
                return True
        index = self.analysis.index
        for assign in index.within(cst.Assign, function):
            targets = [t.target for t in assign.targets]
            if any(self.analysis.is_warning_list(t) for t in targets) and _mentions(
                assign.value, name
            ):
                return True
        for annotated in index.within(cst.AnnAssign, function):
            value = annotated.value
            if (
                value is not None
                and self.analysis.is_warning_list(annotated.target)
                and _mentions(value, name)
            ):
                return True
        return False

    def marked_slots(self, function: cst.FunctionDef) -> set[int | None]:
        """Where a helper returns sentinel strings: ``None`` for the whole value (a list or a
        single string), an index for a slot of a returned tuple."""
        slots: set[int | None] = set()
        for statement in self.analysis.index.within(cst.Return, function):
            value = statement.value
            if isinstance(value, cst.Tuple):
                for index, element in enumerate(value.elements):
                    if self.is_marked(element.value):
                        slots.add(index)
            elif isinstance(value, cst.List):
                if any(self.is_marked(e.value) for e in value.elements):
                    slots.add(None)
            elif value is not None and self._marked_value(value):
                slots.add(None)
        return slots

    def _marked_value(self, value: cst.BaseExpression) -> bool:
        """A returned list, string or conditional of them that carries a sentinel."""
        if isinstance(value, cst.IfExp):
            return self._marked_value(value.body) or self._marked_value(value.orelse)
        if isinstance(value, (cst.List, cst.Tuple)):
            return any(self.is_marked(e.value) for e in value.elements)
        return self.is_marked(value)


def is_helper_name(callee: str | None, func: cst.BaseExpression) -> bool:
    """Is ``callee`` (called as ``func``) a project helper, not a container or accessor?"""
    return callee not in NOT_HELPERS and is_helper_call(callee, func)


def helper_called(expr: cst.BaseExpression) -> str | None:
    """The project helper ``expr`` calls (``await`` unwrapped), if it is one."""
    if isinstance(expr, cst.Await):
        expr = expr.expression
    if not isinstance(expr, cst.Call):
        return None
    callee = last_name(expr.func)
    if not callee or callee in NOT_HELPERS or callee in BUILTIN_CALLS or is_class_name(callee):
        return None
    if callee.startswith("__"):
        return None  # ``cm.__enter__()``: the language's protocol, one name for every class
    if isinstance(expr.func, cst.Attribute) and callee in TEXT_METHODS:
        return None
    return callee


# ``warnings = stderr.splitlines()``: methods of text (and of files of text) build new
# strings; their names are no project helper. Recorded as one, such a name would make its
# own call known as a warning, so it never blocked the group it joins, in every module.
TEXT_METHODS = frozenset(
    {
        *("split", "rsplit", "splitlines", "strip", "lstrip", "rstrip", "lower", "upper"),
        *("title", "casefold", "capitalize", "replace", "format", "format_map", "join"),
        *("encode", "decode", "partition", "rpartition", "removeprefix", "removesuffix"),
        *("expandtabs", "center", "ljust", "rjust", "zfill", "translate"),
        *("read", "readline", "readlines", "read_text", "getvalue"),
    }
)


def is_class_name(callee: str) -> bool:
    """``Decimal(...)``, ``TypeVar(...)``: a constructor (by the naming convention) returns
    an instance of its class, never a warning string, however its result is used."""
    return callee[0].isupper()


def _returns_list(function: cst.FunctionDef) -> bool:
    annotation = function.returns.annotation if function.returns is not None else None
    if isinstance(annotation, cst.Subscript):
        return last_name(annotation.value) in ("list", "List", "Sequence", "Iterable")
    return annotation is None


def _mentions(expr: cst.BaseExpression, name: str) -> bool:
    """Does the variable ``name`` occur in a (small) expression? A keyword (``Warning(
    message=...)``) or an attribute (``r.message``) of that name is no use of it: else a
    migrated ``warnings = [Warning(message=...)]`` would make every local ``message`` of
    the function a warning on the next run."""
    found = False

    class _Find(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            nonlocal found
            found = found or node.value == name

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

    expr.visit(_Find())
    return found
