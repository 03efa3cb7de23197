"""UNS101 / UNS102: turn warning strings into ``Warning(...)`` constructions.

What it does
    Finds every string that flows into a warnings list -- ``warnings.append(...)``,
    ``.extend([...])``, ``+= [...]``, list literals, ``warnings=[...]`` keyword arguments,
    ``return [...]`` / ``return "..."`` from helpers whose results feed a warnings list --
    and rewrites it into ``Warning(severity=..., message=..., field_path=..., code=...)``.
    UNS101 covers strings that start with a sentinel or marker (``BLOCK:``), UNS102 plain
    warning strings.

Why
    A sentinel prefix mixes a machine signal into human text. A structured warning says
    the same thing in fields a consumer can read without parsing: how to react
    (``severity``), what to show (``message``), which input to fix (``field_path``) and a
    stable identifier (``code``).

Example
    ``warnings.append(f"{BLOCK_WARNING_PREFIX} MO {n} is already completed.")`` becomes
    ``warnings.append(Warning(severity="blocking", message=f"MO {n} is already completed.",
    field_path=None, code=warning_codes.ALREADY_COMPLETED))``.

Use instead
    Construct ``Warning`` directly; pick a code from ``warning_codes``.

Fix safety
    The message keeps its placeholders, concatenation and layout; only the marker and the
    blank after it go. A prefix chosen at run time becomes a conditional severity. Values
    inferred with low confidence are listed for review.

Inference
    severity from the marker (or, for plain strings, ``info`` keywords, else advisory);
    field_path from the inputs the message names, interpolates, or is guarded by;
    code from the message template, shared across the repository.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import libcst as cst

from ..analysis import FileAnalysis, FunctionFacts, last_name
from ..config import Config
from ..inference.code import constant_name, slug_for
from ..inference.field_path import infer_field_path
from ..inference.severity import infer_severity
from ..model import Action, Inferred, Kind
from ._base import Example, Rule, warning_list_patterns
from ._layout import call_code, expression_code
from ._strings import (
    Marker,
    RuntimePrefix,
    Stripped,
    is_stringish,
    pieces,
    strip_marker,
    template_text,
)

APPENDERS = {"append": 0, "insert": 1}
# Calls whose result in a warnings list says nothing about a helper returning warnings.
NOT_HELPERS = frozenset(
    ["field", "Field", "list", "dict", "set", "tuple", "sorted", "reversed", "copy", "deepcopy", "get", "pop", "default_factory"]
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(=?)")


class WarningProducer(Rule):
    """Shared visitor; the two subclasses differ only in which strings they take."""

    sentinel_only: bool = True
    _as_dict: bool = False  # render the next producers as dumped dicts, not Warning(...)

    @classmethod
    def needles(cls, config: Config) -> tuple[bytes, ...]:
        markers = tuple(m.rstrip().encode() for m in config.severity_markers if m.strip())
        constants = tuple(c.encode() for c in config.sentinel_constants)
        lists = tuple(n.encode() for n in config.warning_list_names)
        return markers + constants + (lists if not cls.sentinel_only else ())

    @classmethod
    def patterns(cls, config: Config) -> tuple[bytes, ...]:
        markers = tuple(re.escape(m.rstrip().encode()) for m in config.severity_markers if m.strip())
        constants = tuple(re.escape(c.encode()) for c in config.sentinel_constants)
        lists = warning_list_patterns(config) if not cls.sentinel_only else ()
        return markers + constants + lists

    def visit_Module(self, node: cst.Module) -> None:
        from ._strings import text_marker

        for name, value in self.analysis.module_string_constants.items():
            if text_marker(value, self.config.severity_markers) is not None:
                self.context.marker_constants[name] = value

    # -- where warnings flow --------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        self._mocked_helper(node)
        func = node.func
        if isinstance(func, cst.Attribute) and self.analysis.is_warning_list(func.value):
            method = func.attr.value
            if method in APPENDERS and len(node.args) > APPENDERS[method]:
                self._candidate(node.args[APPENDERS[method]].value)
            elif method == "extend" and node.args:
                self._elements(node.args[0].value)
        callee = last_name(func)
        params = self.context.facts.warning_params
        for index, arg in enumerate(node.args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword is not None and self.analysis.is_warning_list_name(keyword):
                self._elements(arg.value)
            elif callee and f"{callee}@{keyword if keyword else index}" in params:
                # A literal list handed to a helper that takes warnings (often in tests).
                if isinstance(arg.value, (cst.List, cst.Tuple)):
                    self._elements(arg.value)

    def _mocked_helper(self, node: cst.Call) -> None:
        """``patch("pkg.mod.check", return_value=[...])`` / ``setattr(mod, "check", lambda
        *a: [...])``: a test double of a helper that returns warnings returns them too."""
        if last_name(node.func) not in ("patch", "object", "setattr"):
            return
        names = [a.value.evaluated_value for a in node.args if isinstance(a.value, cst.SimpleString)]
        target = next((n.rsplit(".", 1)[-1] for n in names if isinstance(n, str)), None)
        if target is None or target not in self.context.facts.warning_functions:
            return
        single = self.context.facts.function_shapes.get(target) == "item"
        for arg in node.args:
            value = arg.value
            if isinstance(value, cst.Lambda):
                value = value.body
            elif not (arg.keyword is not None and arg.keyword.value == "return_value"):
                continue
            if single:
                self._candidate(value)
            else:
                self._elements(value)

    def visit_DictElement(self, node: cst.DictElement) -> None:
        """``{"warnings": [...]}``: a view splatted into a model, or -- in tests -- a
        hand-written stand-in for a dumped response, whose entries become dicts."""
        key = node.key.evaluated_value if isinstance(node.key, cst.SimpleString) else None
        if isinstance(key, str) and self.analysis.is_warning_list_name(key):
            self._as_dict = self.context.is_test_file
            self._elements(node.value)
            self._as_dict = False

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.operator, cst.AddAssign) and self.analysis.is_warning_list(node.target):
            self._elements(node.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(self.analysis.is_warning_list(t.target) for t in node.targets):
            self._elements(node.value)
        self._record_unpacked_flow(node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None and self.analysis.is_warning_list(node.target):
            self._elements(node.value)

    def visit_Return(self, node: cst.Return) -> None:
        function = self.analysis.enclosing_function(node)
        if function is None or node.value is None:
            return
        name = function.name.value
        marked = self._marked_slots(function)
        if None in marked and name not in self.context.warning_functions:
            # A helper that returns sentinel strings returns warnings: callers, tests that
            # mock it and its annotation learn that through the gather pass.
            self.context.warning_functions.append(name)
            if _returns_list(function):
                self.context.function_shapes.setdefault(name, "list")
            else:
                self.context.function_shapes.setdefault(name, "item")
        if isinstance(node.value, cst.Tuple):
            slots = {int(f.split("#")[1]) for f in self.context.facts.warning_functions if f.startswith(f"{name}#")}
            for index in sorted(slots | {m for m in marked if m is not None}):
                if index < len(node.value.elements):
                    self._candidate(node.value.elements[index].value)
        elif name in self.context.facts.warning_functions or None in marked:
            self._elements(node.value, single=True)

    # -- candidates ----------------------------------------------------------------------
    @property
    def analysis(self) -> FileAnalysis:
        return self.context.analysis

    def _elements(self, expr: cst.BaseExpression, *, single: bool = False) -> None:
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            for element in expr.elements:
                if not isinstance(element, cst.StarredElement):
                    self._candidate(element.value)
        elif isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
            self._candidate(expr.elt)
        elif isinstance(expr, cst.IfExp):
            self._elements(expr.body, single=single)
            self._elements(expr.orelse, single=single)
        elif single:
            self._candidate(expr)
        else:
            self._record_call_flow(expr, "", shape="list")

    def _candidate(self, expr: cst.BaseExpression) -> None:
        if isinstance(expr, cst.IfExp):
            self._candidate(expr.body)
            self._candidate(expr.orelse)
        elif is_stringish(expr):
            self._producer(expr)
        elif isinstance(expr, cst.Name):
            self._local_flow(expr)
        else:
            self._record_call_flow(expr, "", shape="item")
            self._unless_known(expr)

    def _local_flow(self, name: cst.Name) -> None:
        """``warnings.append(note)``: follow ``note`` to its assignment in this function."""
        function = self.analysis.enclosing_function(name)
        facts = self.analysis.function(function) if function is not None else None
        value = self.analysis.single_assignment(name.value, facts) if facts is not None else None
        if value is not None and is_stringish(value):
            self._producer(value)
            return
        if value is not None:
            self._record_call_flow(value, "", shape="item")
        self._unless_known(name)

    def _unless_known(self, expr: cst.BaseExpression) -> None:
        """Never half-migrate: a value of unknown type going into a migrated warnings list is
        reported, because after the rewrite it would be the one string among objects."""
        if not self.context.facts.gathered or self.sentinel_only or self._is_known_warning(expr):
            return
        self.context.report(
            self,
            expr,
            "Value of unknown type added to a warnings list: check it is a Warning",
            kind=Kind.PRODUCER,
            action=Action.SKIP,
            reasons=("cannot tell whether this is a string; left as it is",),
        )

    def _is_known_warning(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name) and expr.value == "None":
            return True  # "no warning" in a ``str | None`` helper
        if self.analysis.flow.shape(expr) is not None:
            return True
        if isinstance(expr, cst.Await):
            expr = expr.expression
        if isinstance(expr, cst.Call):
            callee = last_name(expr.func)
            return callee in ("Warning", "StructuredWarning") or callee in self.context.facts.warning_functions
        if isinstance(expr, cst.Name):
            function = self.analysis.enclosing_function(expr)
            facts = self.analysis.function(function) if function is not None else None
            value = self.analysis.single_assignment(expr.value, facts) if facts is not None else None
            return value is not None and self._is_known_warning(value)
        return False

    def _record_call_flow(self, expr: cst.BaseExpression, suffix: str, shape: str = "") -> None:
        """A helper call whose result lands in a warnings list returns warnings."""
        if isinstance(expr, cst.Await):
            expr = expr.expression
        if isinstance(expr, cst.Call):
            callee = last_name(expr.func)
            if callee and callee not in NOT_HELPERS:
                self.context.warning_functions.append(callee + suffix)
                if shape and not suffix:
                    self.context.function_shapes[callee] = shape

    def _record_unpacked_flow(self, node: cst.Assign) -> None:
        """``loc, note = resolve(...)`` then ``warnings.append(note)``: resolve#1 is a warning."""
        target = node.targets[0].target if len(node.targets) == 1 else None
        if not isinstance(target, cst.Tuple) or not isinstance(node.value, (cst.Call, cst.Await)):
            return
        function = self.analysis.enclosing_function(node)
        if function is None:
            return
        for index, element in enumerate(target.elements):
            if isinstance(element.value, cst.Name) and self._flows_into_warnings(
                element.value.value, function
            ):
                self._record_call_flow(node.value, f"#{index}")

    def _flows_into_warnings(self, name: str, function: cst.FunctionDef) -> bool:
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
            if any(self.analysis.is_warning_list(t) for t in targets) and _mentions(assign.value, name):
                return True
        for annotated in index.within(cst.AnnAssign, function):
            value = annotated.value
            if value is not None and self.analysis.is_warning_list(annotated.target) and _mentions(value, name):
                return True
        return False

    def _marked_slots(self, function: cst.FunctionDef) -> set[int | None]:
        """Where a helper returns sentinel strings: ``None`` for the whole value (a list or a
        single string), an index for a slot of a returned tuple."""
        slots: set[int | None] = set()
        for statement in self.analysis.index.within(cst.Return, function):
            value = statement.value
            if isinstance(value, cst.Tuple):
                for index, element in enumerate(value.elements):
                    if self._is_marked(element.value):
                        slots.add(index)
            elif isinstance(value, cst.List):
                if any(self._is_marked(e.value) for e in value.elements):
                    slots.add(None)
            elif value is not None and self._marked_value(value):
                slots.add(None)
        return slots

    def _marked_value(self, value: cst.BaseExpression) -> bool:
        """A returned list, string or conditional of them that carries a sentinel."""
        if isinstance(value, cst.IfExp):
            return self._marked_value(value.body) or self._marked_value(value.orelse)
        if isinstance(value, (cst.List, cst.Tuple)):
            return any(self._is_marked(e.value) for e in value.elements)
        return self._is_marked(value)

    def _is_marked(self, expr: cst.BaseExpression) -> bool:
        return is_stringish(expr) and self._strip(expr) is not None

    # -- the rewrite -------------------------------------------------------------------
    def _strip(self, expr: cst.BaseExpression, site: cst.BaseExpression | None = None) -> Stripped | None:
        """``site`` is the node in the original tree (``expr`` may be a rebuilt copy)."""
        return strip_marker(
            expr,
            self.config.severity_markers,
            self._constant_marker,
            self._runtime_prefix(site if site is not None else expr),
        )

    def _constant_marker(self, name: str) -> Marker | None:
        if name in self.config.sentinel_constants:
            return Marker(name, "blocking")
        value = self.context.facts.marker_constants.get(name)
        if value is None:
            value = self.analysis.module_string_constants.get(name)
        if value is None:
            return None
        from ._strings import text_marker

        found = text_marker(value, self.config.severity_markers)
        return None if found is None else Marker(name, found.severity)

    def _runtime_prefix(self, site: cst.BaseExpression):  # type: ignore[no-untyped-def]
        def lookup(name: str) -> RuntimePrefix | None:
            function = self.analysis.enclosing_function(site)
            if function is None:
                return None
            value = self.analysis.single_assignment(name, self.analysis.function(function))
            if not isinstance(value, cst.IfExp):
                return None
            true_marker = self._marker_of_value(value.body)
            false_marker = self._marker_of_value(value.orelse)
            if true_marker is None and false_marker is None:
                return None
            return RuntimePrefix(
                name,
                value.test,
                true_marker.severity if true_marker else "advisory",
                false_marker.severity if false_marker else "advisory",
            )

        return lookup

    def _marker_of_value(self, expr: cst.BaseExpression) -> Marker | None:
        name = last_name(expr)
        if name is not None and not isinstance(expr, cst.SimpleString):
            return self._constant_marker(name)
        stripped = strip_marker(expr, self.config.severity_markers, self._constant_marker, lambda _: None)
        return stripped.marker if stripped else None

    def _producer(self, expr: cst.BaseExpression) -> None:
        stripped = self._strip(expr)
        if self.sentinel_only != (stripped is not None):
            return
        if expr in self.context.edits:
            return
        stripped = stripped or Stripped(expr)
        function = self.analysis.enclosing_function(expr)
        facts = self.analysis.function(function) if function is not None else None
        parts = pieces(stripped.message, self._resolver(facts))
        template = template_text(parts)
        severity, severity_code = self._severity(stripped, template)
        field_path = self._field_path(expr, parts, facts, severity.value)
        if self.context.is_test_file:
            # Test data stands for real warnings; it must not mint codes of its own.
            code = Inferred.high(None, "test data: no code of its own")
        else:
            code = self._code(template, function)
            self.context.templates.append(_template(template))
        self._schedule(expr, stripped, severity_code, field_path, code, as_dict=self._as_dict)
        kind = "sentinel warning" if stripped.marker or stripped.runtime else "plain warning"
        reasons = [f"template: {template!r}"]
        low = any(v.confidence.value == "low" for v in (severity, field_path, code))
        self.context.report(
            self,
            expr,
            f"{kind.capitalize()} string -> Warning(severity={severity.value}, code={code.value})",
            kind=Kind.PRODUCER,
            action=Action.REVIEW if low else Action.REWRITE,
            severity=severity,
            field_path=field_path,
            code=code,
            reasons=tuple(reasons),
        )

    def _resolver(self, facts: FunctionFacts | None):  # type: ignore[no-untyped-def]
        def resolve(expr: cst.BaseExpression) -> cst.BaseExpression | None:
            if facts is None or not isinstance(expr, cst.Name):
                return None
            return self.analysis.single_assignment(expr.value, facts)

        return resolve

    def _severity(self, stripped: Stripped, template: str) -> tuple[Inferred, str]:
        runtime = stripped.runtime
        if runtime is not None:
            test = expression_code(runtime.test)
            code = f'"{runtime.when_true}" if {test} else "{runtime.when_false}"'
            reason = f"prefix {runtime.name!r} is chosen at run time by `{test}`"
            return Inferred.high(f"{runtime.when_true} if {test} else {runtime.when_false}", reason), code
        marker = stripped.marker
        severity = infer_severity(
            template,
            marker.text if marker else None,
            marker.severity if marker else None,
            self.config.info_keywords,
        )
        return severity, f'"{severity.value}"'

    def _field_path(
        self,
        site: cst.BaseExpression,
        parts: list[str | cst.BaseExpression],
        facts: FunctionFacts | None,
        severity: str | None,
    ) -> Inferred:
        if facts is None:
            return Inferred.high(None, "module-level warning: no function inputs")
        leaves = self.analysis.known_leaves(facts, site)
        mentioned = [leaves[w] for w in _mentioned_words(parts, leaves, facts.inputs)]
        interpolated: list[str] = []
        lost = False
        for part in parts:
            if not isinstance(part, str):
                found, lost_here = self.analysis.input_references(part, facts, site)
                interpolated.extend(found)
                lost = lost or lost_here
        guard = self.analysis.guarding_condition(site)
        guarding: list[str] = []
        if guard is not None:
            guarding, lost_guard = self.analysis.input_references(guard, facts, site)
            lost = lost or lost_guard
        return infer_field_path(
            mentioned, interpolated, guarding, severity=severity, unindexed_loop=lost
        )

    def _code(self, template: str, function: cst.FunctionDef | None) -> Inferred:
        known = self.context.facts.codes.get(template)
        if known is not None:
            if "_" not in known:
                return Inferred.low(known, "the template yields a one-word code")
            return Inferred.high(known, "from the message template")
        if re.search(r"[A-Za-z]{2,}", template.replace("{}", "")):
            slug = slug_for(template)
            if "_" not in slug:
                return Inferred.low(constant_name(slug), "the template yields a one-word code")
            return Inferred.high(constant_name(slug), "from the message template")
        fallback = constant_name(function.name.value if function else "warning")
        return Inferred.low(fallback, "message has no literal words; named after the function")

    def _schedule(
        self,
        expr: cst.BaseExpression,
        stripped: Stripped,
        severity_code: str,
        field_path: Inferred,
        code: Inferred,
        *,
        as_dict: bool = False,
    ) -> None:
        message = stripped.message
        codes_import = self._add_imports(with_codes=code.value is not None, with_model=not as_dict)
        class_name = "" if as_dict else self._warning_class_name()

        def build(updated: cst.CSTNode) -> cst.CSTNode:
            # Layout needs positions, which only a rewrite pays for (not check or gather).
            assert isinstance(updated, cst.BaseExpression)
            position = self.context.position(expr)
            line_text = self.context.analysis.lines[position.line - 1]
            end_line_text = self.context.analysis.lines[position.end_line - 1]
            suffix_length = len(end_line_text.rstrip()) - (position.end_column - 1)
            block_indent = self._block_indent(expr)
            if updated is expr or not (stripped.marker or stripped.runtime):
                new_message = message if updated is expr else updated
            else:  # an inner edit rebuilt the node: strip the rebuilt copy the same way
                restripped = self._strip(updated, site=expr)
                new_message = restripped.message if restripped else message
            arguments = [
                ("severity", severity_code),
                ("message", expression_code(new_message)),
                ("field_path", _path_code(field_path.value)),
                ("code", f"{codes_import}.{code.value}" if code.value else "None"),
            ]
            text = call_code(
                class_name,
                arguments,
                line_text=line_text,
                column=position.column - 1,
                indent_unit=self.context.module.default_indent,
                suffix_length=max(0, suffix_length),
                block_indent=block_indent,
            )
            return cst.parse_expression(text)

        self.context.replace(expr, build)
        if stripped.runtime is not None:
            self._remove_runtime_prefix(expr, stripped.runtime)

    def _block_indent(self, expr: cst.CSTNode) -> int:
        """Indentation of the statement that holds ``expr`` (its block's indentation)."""
        for ancestor in self.context.ancestors(expr):
            if isinstance(ancestor, cst.BaseStatement):
                line = self.context.analysis.lines[self.context.position(ancestor).line - 1]
                return len(line) - len(line.lstrip())
        return 0

    def _remove_runtime_prefix(self, site: cst.CSTNode, runtime: RuntimePrefix) -> None:
        function = self.analysis.enclosing_function(site)
        if function is None:
            return
        uses = [n for n in self.analysis.index.within(cst.Name, function) if n.value == runtime.name]
        if len(uses) != 2:  # the assignment and this one use
            return
        for statement in self.analysis.index.within(cst.SimpleStatementLine, function):
            if any(
                isinstance(s, cst.Assign)
                and any(isinstance(t.target, cst.Name) and t.target.value == runtime.name for t in s.targets)
                for s in statement.body
            ):
                self.context.replace(statement, lambda _: cst.RemoveFromParent())
                self.context.report(
                    self,
                    statement,
                    f"Run-time prefix {runtime.name!r} removed: the severity is conditional now",
                    kind=Kind.PRODUCER,
                    action=Action.REWRITE,
                )

    def _add_imports(self, *, with_codes: bool = True, with_model: bool = True) -> str:
        from ..files import module_name  # files -> engine -> rules: import late

        config = self.config
        codes_module = module_name(config.root / config.codes_module, config.root)
        package, _, name = codes_module.rpartition(".")
        if self.context.module_name == codes_module:
            return name
        if not with_codes:
            pass
        elif package:
            self.context.add_import(package, name)
        else:
            self.context.add_import(name)
        models_module = module_name(config.root / config.models_module, config.root)
        if with_model and self.context.module_name != models_module:
            alias = self._warning_class_name()
            self.context.add_import(models_module, "Warning", None if alias == "Warning" else alias)
        return name

    def _warning_class_name(self) -> str:
        return "StructuredWarning" if self.analysis.uses_builtin_warning else "Warning"


class SentinelWarningProducer(WarningProducer):
    code = "UNS101"
    name = "sentinel-warning-producer"
    summary = "Sentinel-prefixed warning string -> Warning(...)"
    sentinel_only = True

    VALID = (
        Example(
            """
            def f(warnings):
                warnings.append(Warning(severity="blocking", message="x", field_path=None, code=warning_codes.X))
            """,
            id="already migrated",
        ),
        Example('log.info("BLOCK: not a warning list")', id="not flowing into a warnings list"),
    )
    INVALID = (
        Example(
            """
            def complete(mo, warnings):
                if mo["status"] == "DONE":
                    warnings.append(f"{BLOCK_WARNING_PREFIX} MO {mo['order_no']} is already completed.")
            """,
            """
            import warning_codes
            from warning_model import Warning

            def complete(mo, warnings):
                if mo["status"] == "DONE":
                    warnings.append(Warning(
                        severity="blocking",
                        message=f"MO {mo['order_no']} is already completed.",
                        field_path=None,
                        code=warning_codes.ALREADY_COMPLETED,
                    ))
            """,
            id="state-driven f-string with the prefix constant",
        ),
        Example(
            """
            def check(serial_numbers, actual_quantity):
                warnings = []
                if len(serial_numbers) != actual_quantity:
                    warnings.append(
                        BLOCK_WARNING_PREFIX
                        + f" serial_numbers count ({len(serial_numbers)}) "
                        + f"must equal actual_quantity ({actual_quantity})."
                    )
                return warnings
            """,
            """
            import warning_codes
            from warning_model import Warning

            def check(serial_numbers, actual_quantity):
                warnings = []
                if len(serial_numbers) != actual_quantity:
                    warnings.append(
                        Warning(
                            severity="blocking",
                            message=f"serial_numbers count ({len(serial_numbers)}) "
                                    + f"must equal actual_quantity ({actual_quantity}).",
                            field_path="serial_numbers",
                            code=warning_codes.SERIAL_NUMBERS_COUNT_EQUAL_ACTUAL_QUANTITY,
                        )
                    )
                return warnings
            """,
            id="concatenation; the subject of the message is the field",
        ),
        Example(
            """
            def receive(request, warnings):
                for i, row in enumerate(request.rows):
                    if row.sales_order_row_id not in known:
                        warnings.append(f"BLOCK: unknown sales_order_row_id={row.sales_order_row_id}")
            """,
            """
            import warning_codes
            from warning_model import Warning

            def receive(request, warnings):
                for i, row in enumerate(request.rows):
                    if row.sales_order_row_id not in known:
                        warnings.append(Warning(
                            severity="blocking",
                            message=f"unknown sales_order_row_id={row.sales_order_row_id}",
                            field_path=f"rows[{i}].sales_order_row_id",
                            code=warning_codes.UNKNOWN_SALES_ORDER_ROW_ID,
                        ))
            """,
            id="literal prefix in a loop: the field path carries the index",
        ),
    )


class PlainWarningProducer(WarningProducer):
    code = "UNS102"
    name = "plain-warning-producer"
    summary = "Plain warning string in a warnings list -> Warning(...)"
    sentinel_only = False

    VALID = (Example('next_actions.append("call again")', id="not a warnings list"),)
    INVALID = (
        Example(
            """
            warnings = []
            warnings.append("Preview only - nothing was saved")
            """,
            """
            import warning_codes
            from warning_model import Warning

            warnings = []
            warnings.append(Warning(
                severity="info",
                message="Preview only - nothing was saved",
                field_path=None,
                code=warning_codes.NOTHING_SAVED,
            ))
            """,
            id="info keyword",
        ),
    )


# -- small helpers --------------------------------------------------------------------


def _template(text: str):  # type: ignore[no-untyped-def]
    from ..model import Template

    return Template(text, slug_for(text))


def _path_code(path: str | None) -> str:
    if path is None:
        return "None"
    return f'f"{path}"' if "{" in path else f'"{path}"'


def _mentioned_words(
    parts: list[str | cst.BaseExpression], leaves: dict[str, str], inputs: set[str]
) -> Iterator[str]:
    for position, part in enumerate(parts):
        if not isinstance(part, str):
            continue
        before_placeholder = position + 1 < len(parts) and not isinstance(parts[position + 1], str)
        for match in _WORD.finditer(part):
            word = match.group(0).rstrip("=")
            # "sales_order_row_id={x}" names the field whose value follows; "force=true" is
            # an instruction, not the culprit.
            assigns_value = match.group(1) == "=" and before_placeholder and match.end() == len(part)
            named = ("_" in word and match.group(1) != "=") or assigns_value or word in inputs
            if word in leaves and named:
                yield word




def _returns_list(function: cst.FunctionDef) -> bool:
    annotation = function.returns.annotation if function.returns is not None else None
    if isinstance(annotation, cst.Subscript):
        return last_name(annotation.value) in ("list", "List", "Sequence", "Iterable")
    return annotation is None


def _mentions(expr: cst.BaseExpression, name: str) -> bool:
    """Does ``name`` occur in a (small) expression?"""
    found = False

    class _Find(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            nonlocal found
            found = found or node.value == name

    expr.visit(_Find())
    return found
