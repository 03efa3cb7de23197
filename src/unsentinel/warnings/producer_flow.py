"""Where warning strings flow: the base of the producer rules (UNS101 sentinel, UNS102 plain).

:class:`WarningProducer` follows values into warnings lists (appends, extends, list
literals, keyword arguments, helper returns, test doubles) and hands each string to
:class:`~unsentinel.warnings.rewrite.WarningRewriter`, which turns it into a ``Warning``.
The two rules differ only in which strings they take. Which parts of a value are warnings
(a literal's elements, both sides of ``or`` and ``+``) is
:mod:`~unsentinel.warnings.elements`; which helpers return warnings (the gather pass's
records) is :mod:`~unsentinel.warnings.helper_returns`; where what they return flows
(``return`` statements, tuple slots, test doubles) is
:mod:`~unsentinel.warnings.return_links`; where an appended local comes from is
:mod:`~unsentinel.warnings.local_flow`; a value of unknown type blocking its group is
:mod:`~unsentinel.warnings.unknown_values`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property

import libcst as cst

from unsentinel.core.layout import expression_code
from unsentinel.core.model import Action, Kind
from unsentinel.core.reach import outside_package
from unsentinel.core.syntax import last_name, string_value
from unsentinel.warnings.carriers import FileCarriers
from unsentinel.warnings.elements import ElementWalk
from unsentinel.warnings.facts import LIST_SHAPES
from unsentinel.warnings.flow import is_empty
from unsentinel.warnings.graph import (
    Carrier,
    ConstantUse,
    FieldCarrier,
    KeyCarrier,
    ParamCarrier,
)
from unsentinel.warnings.helper_returns import (
    APPENDERS,
    GROWERS,
    HelperReturns,
    is_helper_name,
)
from unsentinel.warnings.keyed_entries import record_appended, record_stand_in
from unsentinel.warnings.local_flow import LocalFlow
from unsentinel.warnings.return_links import ReturnLinks
from unsentinel.warnings.returned_dicts import ReturnedDicts
from unsentinel.warnings.rewrite import WarningRewriter
from unsentinel.warnings.scalar_names import holds_text, is_text
from unsentinel.warnings.settings import warning_settings
from unsentinel.warnings.strings import is_stringish, text_marker
from unsentinel.warnings.unknown_values import block_unknown


class WarningProducer(ElementWalk, WarningRewriter):
    """Finds where warnings flow; ``WarningRewriter`` turns each string into a Warning.

    The two rules built on it differ only in ``sentinel_only``: which strings they take.
    """

    _into: tuple[Carrier, ...] = ()  # where the values being followed now end up

    @cached_property
    def carriers(self) -> FileCarriers:
        return self.context.shared(FileCarriers)

    @cached_property
    def returned_dicts(self) -> ReturnedDicts:
        """Warnings stored in dicts the functions return, and reads of their keys."""
        return ReturnedDicts(self.context, self.analysis, self.carriers, self.flow)

    @cached_property
    def helpers(self) -> HelperReturns:
        """Which helpers return warnings: recorded here, read through the gather pass."""
        return HelperReturns(self, self._is_marked)

    @cached_property
    def return_links(self) -> ReturnLinks:
        """Where what helpers return flows: ``return`` statements and test doubles."""
        return ReturnLinks(
            self.analysis,
            self.flow,
            self.facts,
            self.notes,
            self.carriers,
            self.helpers,
            follow_candidate=self._follow_candidate,
            follow_elements=self._follow_elements,
        )

    @cached_property
    def local_flow(self) -> LocalFlow:
        """Where an appended local comes from: the strings assigned to it."""
        return LocalFlow(
            self.analysis,
            self.context,
            self.carriers,
            self.helpers,
            strip=self._strip,
            produce=self._producer,
            follow_candidate=self._candidate,
            unless_known=self._unless_known,
        )

    @contextmanager
    def _flowing_into(self, carriers: tuple[Carrier, ...]) -> Iterator[None]:
        """Values followed inside the block land in ``carriers`` (a group of the graph)."""
        outer = self._into
        self._into = carriers
        try:
            yield
        finally:
            self._into = outer

    def _follow_candidate(self, into: tuple[Carrier, ...], value: cst.BaseExpression) -> None:
        """``value`` may be one warning: its producer lands in ``into``."""
        with self._flowing_into(into):
            self._candidate(value)

    def _follow_elements(
        self, into: tuple[Carrier, ...], value: cst.BaseExpression, *, single: bool = False
    ) -> None:
        """``value`` holds warnings (with ``single``, or is one): its producers land in ``into``."""
        with self._flowing_into(into):
            self._elements(value, single=single)

    def _sink(self, carriers: tuple[Carrier, ...], value: cst.BaseExpression) -> None:
        """Follow ``value`` into ``carriers``: its producers, and the link between them."""
        self.carriers.link(carriers, self.carriers.of(value))
        self._follow_elements(carriers, value)

    def visit_Module(self, node: cst.Module) -> None:
        for name, value in self.analysis.module_string_constants.items():
            if text_marker(value, warning_settings(self.config).severity_markers) is not None:
                self.notes.marker_constants[name] = value

    # -- where warnings flow --------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        self.return_links.link_test_double(node)
        func = node.func
        self.returned_dicts.got_by_key(node)
        # Only a method that grows a list can put a warning in one: the receiver of any
        # other (``self.save()``, ``path.read_text()``) is not asked what it holds.
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in GROWERS
            and self._is_list_of_warnings(func.value)
        ):
            self._grown(node, func.attr.value, self.carriers.of(func.value))
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Subscript):
            self._added_to_a_key(node, func)
        callee = last_name(func)
        for index, arg in enumerate(node.args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            key: int | str = keyword if keyword else index
            param: tuple[Carrier, ...] = ()
            if (
                callee is not None
                and is_helper_name(callee, func)
                and not self.carriers.calls_a_builtin(func)
            ):
                param = (ParamCarrier(callee, key),)
            if keyword is not None and self.analysis.is_warning_list_name(keyword):
                self._sink((FieldCarrier(keyword), *param), arg.value)
            elif (
                callee
                and isinstance(arg.value, (cst.List, cst.Tuple))  # else the facts go unasked
                and self.facts.takes_warnings(callee, key)
            ):
                # A literal list handed to a helper that takes warnings (often in tests).
                self._sink(param, arg.value)
            elif param and self.flow.shape(arg.value) is not None:
                self.carriers.link(param, self.carriers.of(arg.value))

    def _grown(self, node: cst.Call, method: str, into: tuple[Carrier, ...]) -> bool:
        """``warnings.append(x)`` / ``insert`` / ``extend``: what is added lands in ``into``.

        False where ``method`` adds nothing to a list (``warnings.clear()``, ``.count(x)``)."""
        if method in APPENDERS and len(node.args) > APPENDERS[method]:
            value = node.args[APPENDERS[method]].value
            self.carriers.link(into, self.carriers.of(value))
            self._follow_candidate(into, value)
        elif method == "extend" and node.args:
            self._sink(into, node.args[0].value)
        else:
            return False
        return True

    def _added_to_a_key(self, node: cst.Call, func: cst.Attribute) -> None:
        """``view["warnings"].append(f"...")``: a list under a key grows like any warnings
        list, and what is added becomes a ``Warning``. Where a test writes the same key's
        entries as dumped dicts (``{"warnings": ["Existing warning"]}``) one list would hold
        both; the gather pass holds such a group (:class:`KeyedEntries`)."""
        keyed = tuple(c for c in self.carriers.of(func.value) if isinstance(c, KeyCarrier))
        if keyed and self._grown(node, func.attr.value, keyed):
            assert isinstance(func.value, cst.Subscript)
            record_appended(self.carriers, node, func.value, keyed)
            self.returned_dicts.stored(node, func.value)

    def _is_list_of_warnings(self, expr: cst.BaseExpression) -> bool:
        """A warnings list by its name, or a local that only ever collects warnings."""
        if self.analysis.is_warning_list(expr):
            return True
        return isinstance(expr, cst.Name) and self.flow.shape(expr) in LIST_SHAPES

    def visit_DictElement(self, node: cst.DictElement) -> None:
        """``{"warnings": [...]}``: a view splatted into a model, or -- in tests -- a
        hand-written stand-in for a dumped response, whose entries become dicts."""
        key = string_value(node.key) if isinstance(node.key, cst.SimpleString) else None
        if isinstance(key, str) and self.analysis.is_warning_list_name(key):
            if is_text(node.value):
                return  # ``{"has_warnings": n > 0}``: a flag or a count, not the list
            self._as_dict = self.context.is_test_file
            if self._as_dict and not is_empty(node.value):
                record_stand_in(self.carriers, node, KeyCarrier(key))
            elif not self._as_dict:
                self.returned_dicts.built(node, key)
            self._sink((KeyCarrier(key),), node.value)
            self._as_dict = False

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self.returned_dicts.read_by_key(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        """``monkeypatch.setattr("app.log.warning", warnings.append)``: the list's own method
        handed to other code, which fills it with values nobody follows (log format
        strings, here). Its group stays as it is."""
        method = node.attr.value
        if method not in GROWERS or not self._is_list_of_warnings(node.value):
            return
        called = self.context.parent(node)
        if isinstance(called, cst.Call) and called.func is node:
            return
        why = f"`{expression_code(node)}` is handed to other code, which fills the list"
        self.carriers.block(node, self.carriers.of(node.value), why)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not isinstance(node.operator, cst.AddAssign):
            return
        target = node.target
        if self.analysis.is_warning_list(target):
            if holds_text(self.carriers, target, node.value):
                return
            self._sink(self.carriers.of(target), node.value)
        elif isinstance(target, cst.Subscript):
            self._extended_under_a_key(node, target)

    def _extended_under_a_key(self, node: cst.AugAssign, target: cst.Subscript) -> None:
        """``result["errors"] += ["poetry.lock was not found."]`` grows the list under the
        key as ``result["errors"].extend([...])`` does (:meth:`_added_to_a_key`)."""
        keyed = tuple(c for c in self.carriers.of(target) if isinstance(c, KeyCarrier))
        if keyed and not holds_text(self.carriers, target, node.value):
            self._sink(keyed, node.value)
            record_appended(self.carriers, node, target, keyed)
            self.returned_dicts.stored(node, target)

    def visit_Assign(self, node: cst.Assign) -> None:
        if _joins_itself(node) and self._only_shown_after(node):
            return  # ``reasons = "; ".join(reasons)``: the name is rebound to the joined text
        lists = [t.target for t in node.targets if self.analysis.is_warning_list(t.target)]
        texts = [t for t in lists if holds_text(self.carriers, t, node.value)]
        if lists and not texts:
            self._sink(tuple(c for t in lists for c in self.carriers.of(t)), node.value)
        elif not lists:
            for target in node.targets:
                self._record_local(target.target, node.value)
        if not texts:
            self.returned_dicts.assigned(node)
        self.helpers.record_unpacked(node)

    def _only_shown_after(self, node: cst.Assign) -> bool:
        """Every later use of the rebound name in its function is inside an f-string's
        placeholder (``msg += f"\\n - {reasons}"``): the text goes nowhere a list could.
        Returned, passed on or stored, it stays a value of unknown type, as before."""
        target = node.targets[0].target
        assert isinstance(target, cst.Name)
        function = self.analysis.enclosing_function(node)
        if function is None:
            return False
        line = self.context.position(node).line
        for name in self.analysis.index.within(cst.Name, function):
            if name.value != target.value or name is target:
                continue
            if self.context.position(name).line <= line:
                continue
            ancestors = self.context.ancestors(name)
            if not any(isinstance(a, cst.FormattedStringExpression) for a in ancestors):
                return False
        return True

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None and holds_text(self.carriers, node.target, node.value):
            return
        if node.value is not None and self.analysis.is_warning_list(node.target):
            self._sink(self.carriers.of(node.target), node.value)
        elif node.value is not None:
            self._record_local(node.target, node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        """A parameter is one place whether a caller passes it by position or by name."""
        name = self.analysis.callable_name(node)
        for index, param in enumerate(self.analysis.positional_params(node)):
            key = param.name.value
            if self.analysis.is_warning_list_name(key) or self.facts.takes_warnings(name, index):
                self.carriers.link((ParamCarrier(name, index),), (ParamCarrier(name, key),))

    def _record_local(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """``note = helper(...)``: the local holds what the helper returns (when warnings).

        A field or a key the flow does not follow (``self.lines = warnings``: only fields
        named like a warnings list are) would hand warnings to readers nobody rewrites
        (``"\\n".join(self.lines)``): the group stays as it is."""
        if not isinstance(target, (cst.Name, cst.Attribute, cst.Subscript)):
            return
        if self.flow.shape(value) is None:
            return
        held = self.carriers.of(target)
        if held:
            self.carriers.link(held, self.carriers.of(value))
        elif not isinstance(target, cst.Name):
            stored = expression_code(target)
            why = f"stored in `{stored}`, whose readers are not followed"
            self.carriers.block(target, self.carriers.of(value), why)

    def visit_Return(self, node: cst.Return) -> None:
        self.return_links.link_return(node)

    def _producer(self, expr: cst.BaseExpression, source: cst.BaseExpression | None = None) -> None:
        """A string of a blocked group stays a string (reported ``skip``, naming why)."""
        stripped = self._strip(expr)
        if self.sentinel_only != (stripped is not None) or expr in self.context.edits:
            return
        if stripped is not None and stripped.marker is not None:
            for carrier in self._into:  # kept in use if the group turns out blocked
                self.notes.constant_uses.add(ConstantUse(carrier, stripped.marker.text))
        unreachable = outside_package(self.context, self._models_module())
        if unreachable is not None:  # its whole group stays: nothing it meets changes
            self.carriers.block(expr, self._into, unreachable)
        blocker = self.carriers.blocker(self._into)
        if blocker is None and unreachable is None:
            super()._producer(expr, source)
            return
        kind = "Sentinel warning" if stripped is not None else "Plain warning"
        self.context.report(
            self,
            expr,
            f"{kind} string left as it is: its group cannot be migrated whole",
            kind=Kind.PRODUCER,
            action=Action.SKIP,
            reasons=(blocker.reason if blocker is not None else unreachable or "",),
        )

    def _unless_known(self, expr: cst.BaseExpression) -> None:
        """A value of unknown type blocks its group (:func:`block_unknown`); the sentinel
        rule takes marked strings only and leaves that to the plain rule."""
        if not self.sentinel_only:
            block_unknown(self, self.carriers, self._into, expr)

    def _is_marked(self, expr: cst.BaseExpression) -> bool:
        return is_stringish(expr) and self._strip(expr) is not None


# -- small helpers --------------------------------------------------------------------


def _joins_itself(node: cst.Assign) -> bool:
    """``reasons = "\\n - ".join(reasons)``: a list's name rebound to the text its own items
    join into. Nothing goes into the list (the join reads it, a consumer like any join);
    the name holds a string from here on."""
    if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
        return False
    value = node.value
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "join"
        and isinstance(value.func.value, (cst.SimpleString, cst.ConcatenatedString))
        and len(value.args) == 1
        and isinstance(value.args[0].value, cst.Name)
        and value.args[0].value.value == node.targets[0].target.value
    )
