"""The rewriting half of the producer rules (UNS101 / UNS102): one warning string in,
one ``Warning(...)`` construction out, with severity, field_path and code inferred.

Kept apart from ``producer_flow`` (which finds *where* warnings flow) so each reads in
one sitting; see that module for the rule documentation. What one site's severity,
field_path and code are is read in ``inference/producer_site.py``; this module strips
the marker, applies an edited plan's decisions and writes the new call.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import libcst as cst

from unsentinel.core.layout import after_parens, before_parens, call_code, expression_code
from unsentinel.core.model import Action, Confidence, Inferred, Kind, Severity
from unsentinel.core.own_line import Hugging, OwnLine, place_argument
from unsentinel.core.syntax import last_name
from unsentinel.warnings.inference.producer_site import (
    local_resolver,
    site_code,
    site_field_path,
    site_severity,
    template_record,
)
from unsentinel.warnings.inference.structure import structure_of
from unsentinel.warnings.loop_index import enumerated
from unsentinel.warnings.rule import WarningRule
from unsentinel.warnings.settings import warning_settings
from unsentinel.warnings.strings import (
    Marker,
    RuntimePrefix,
    Stripped,
    pieces,
    strip_marker,
    template_text,
)


class WarningRewriter(WarningRule):
    sentinel_only: bool = True
    _as_dict: bool = False  # render the next producers as dumped dicts, not Warning(...)

    def _strip(
        self, expr: cst.BaseExpression, site: cst.BaseExpression | None = None
    ) -> Stripped | None:
        """``site`` is the node in the original tree (``expr`` may be a rebuilt copy)."""
        return strip_marker(
            expr,
            warning_settings(self.config).severity_markers,
            self._constant_marker,
            self._runtime_prefix(site if site is not None else expr),
        )

    def _constant_marker(self, name: str) -> Marker | None:
        if name in warning_settings(self.config).sentinel_constants:
            return Marker(name, Severity.BLOCKING)
        value = self.facts.marker_constants.get(name)
        if value is None:
            value = self.analysis.module_string_constants.get(name)
        if value is None:
            return None
        from unsentinel.warnings.strings import text_marker

        found = text_marker(value, warning_settings(self.config).severity_markers)
        return None if found is None else Marker(name, found.severity)

    def _runtime_prefix(self, site: cst.BaseExpression) -> Callable[[str], RuntimePrefix | None]:
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
                true_marker.severity if true_marker else Severity.ADVISORY,
                false_marker.severity if false_marker else Severity.ADVISORY,
            )

        return lookup

    def _marker_of_value(self, expr: cst.BaseExpression) -> Marker | None:
        name = last_name(expr)
        if name is not None and not isinstance(expr, cst.SimpleString):
            return self._constant_marker(name)
        stripped = strip_marker(
            expr,
            warning_settings(self.config).severity_markers,
            self._constant_marker,
            lambda _: None,
        )
        return stripped.marker if stripped else None

    def _producer(self, expr: cst.BaseExpression, source: cst.BaseExpression | None = None) -> None:
        """Rewrite ``expr`` into a ``Warning``; ``source``: the string its text comes from,
        when ``expr`` is a local that stays text (inference reads the template there)."""
        stripped = self._strip(expr)
        if self.sentinel_only != (stripped is not None):
            return
        if expr in self.context.edits:
            return
        stripped = stripped or Stripped(expr)
        function = self.analysis.enclosing_function(expr)
        facts = self.analysis.function(function) if function is not None else None
        resolve = local_resolver(self.analysis, facts)
        parts = pieces(source if source is not None else stripped.message, resolve)
        template = template_text(parts)
        structure = structure_of(expr, self.analysis, facts)
        severity, severity_code = site_severity(
            stripped,
            template,
            structure,
            repository=self.facts,
            test_file=self.context.is_test_file,
            config=self.config,
        )
        decided = self.context.decide(expr, "severity", severity)  # an edited plan's value
        if decided is not severity:
            severity, severity_code = decided, _severity_code(decided.value)
        field_path = site_field_path(
            self.analysis, expr, parts, facts, severity.value, structure.none_guard
        )
        field_path = self.context.decide(expr, "field_path", field_path)
        if self.context.is_test_file:
            # Test data stands for real warnings; it must not mint codes of its own.
            code = Inferred.high(None, "test data: no code of its own")
        else:
            code = site_code(template, function, repository=self.facts, config=self.config)
            self.notes.templates.append(template_record(template, severity, stripped))
        code = self.context.decide(expr, "code", code)
        self._schedule(expr, stripped, severity_code, field_path, code, as_dict=self._as_dict)
        kind = "sentinel warning" if stripped.marker or stripped.runtime else "plain warning"
        reasons = [f"template: {template!r}"]
        low = any(v.confidence is Confidence.LOW for v in (severity, field_path, code))
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

        def build(updated: cst.CSTNode) -> cst.CSTNode | OwnLine:
            # Layout needs positions, which only a rewrite pays for (not check or gather).
            assert isinstance(updated, cst.BaseExpression)
            position = self.context.position(expr)
            # The replacement takes the expression's parentheses with it: lay it out from
            # its opening one (``note = (`` / ``f"..."`` / ``f"..."`` / ``)``).
            parens = len(getattr(expr, "lpar", ()))
            line, column = before_parens(
                self.analysis.lines, position.line, position.column, parens
            )
            end_line, end_column = after_parens(
                self.analysis.lines, position.end_line, position.end_column, parens
            )
            line_text = self.analysis.lines[line - 1]
            end_line_text = self.analysis.lines[end_line - 1]
            suffix_length = len(end_line_text.rstrip()) - (end_column - 1)
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
            unit = self.context.module.default_indent
            layout = functools.partial(
                call_code,
                class_name,
                arguments,
                indent_unit=unit,
                block_indent=block_indent,
                line_length=self.config.line_length,
            )
            text = layout(
                line_text=line_text,
                column=column - 1,
                suffix_length=max(0, suffix_length),
            )
            # Where ``warnings.append(Warning(`` no longer fits, the formatter's split puts
            # the construction (and the call's other arguments) on lines of their own.
            indentation = line_text[: len(line_text) - len(line_text.lstrip())]

            def alone(suffix: int) -> cst.BaseExpression:
                own_line = indentation + unit
                laid = layout(line_text=own_line, column=len(own_line), suffix_length=suffix)
                return cst.parse_expression(laid)

            def call_indentation(call: Hugging) -> str:
                start = self.context.lines[self.context.position(call).line - 1]
                return start[: len(start) - len(start.lstrip())][block_indent:]

            return place_argument(
                cst.parse_expression(text),
                expr,
                parent_of=self.context.parent,
                one_line=position.line == position.end_line,
                alone=alone,
                call_indentation=call_indentation,
                unit=unit,
            )

        self.context.replace(expr, build)
        if stripped.runtime is not None:
            self._remove_runtime_prefix(expr, stripped.runtime)
        self._index_loops(expr, field_path.value)

    def _index_loops(self, expr: cst.BaseExpression, path: str | None) -> None:
        """``tools[{i}].title`` from a loop that keeps no index: the loop gets one."""
        indexes = self.analysis.paths.loop_indexes
        for loop, name in indexes.loops_to_enumerate(expr, path, self.context.parent):
            indexes.enumerated.add(loop)
            self.context.replace(loop, functools.partial(enumerated, name=name))

    def _block_indent(self, expr: cst.CSTNode) -> int:
        """Indentation of the statement that holds ``expr`` (its block's indentation)."""
        for ancestor in self.context.ancestors(expr):
            if isinstance(ancestor, cst.BaseStatement):
                line = self.analysis.lines[self.context.position(ancestor).line - 1]
                return len(line) - len(line.lstrip())
        return 0

    def _remove_runtime_prefix(self, site: cst.CSTNode, runtime: RuntimePrefix) -> None:
        function = self.analysis.enclosing_function(site)
        if function is None:
            return
        uses = [
            n for n in self.analysis.index.within(cst.Name, function) if n.value == runtime.name
        ]
        if len(uses) != 2:  # the assignment and this one use
            return
        for statement in self.analysis.index.within(cst.SimpleStatementLine, function):
            if any(
                isinstance(s, cst.Assign)
                and any(
                    isinstance(t.target, cst.Name) and t.target.value == runtime.name
                    for t in s.targets
                )
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

    def _models_module(self) -> str:
        """The dotted module of the ``Warning`` model that a rewrite imports."""
        from unsentinel.core.discovery import module_name  # files -> engine -> rules: import late

        root = self.config.root
        return module_name(root / warning_settings(self.config).models_module, root)

    def _add_imports(self, *, with_codes: bool = True, with_model: bool = True) -> str:
        from unsentinel.core.discovery import module_name  # files -> engine -> rules: import late

        config = self.config
        codes_module = module_name(config.root / warning_settings(config).codes_module, config.root)
        package, _, name = codes_module.rpartition(".")
        if self.context.module_name == codes_module:
            return name
        if not with_codes:
            pass
        elif package:
            self.context.add_import(package, name)
        else:
            self.context.add_import(name)
        models_module = self._models_module()
        if with_model and self.context.module_name != models_module:
            alias = self._warning_class_name()
            self.context.add_import(models_module, "Warning", None if alias == "Warning" else alias)
        return name

    def _warning_class_name(self) -> str:
        return "StructuredWarning" if self.analysis.uses_builtin_warning else "Warning"


# -- the Python code of the new call's arguments ---------------------


_RUNTIME_SEVERITY = re.compile(r"^(\w+) if (.+) else (\w+)$")


def _severity_code(value: str | None) -> str:
    """The code for a severity a plan decided: ``"blocking"``, or the run-time choice."""
    runtime = _RUNTIME_SEVERITY.match(value or "")
    if runtime is None:
        return f'"{value}"'
    when_true, test, when_false = runtime.groups()
    return f'"{when_true}" if {test} else "{when_false}"'


def _path_code(path: str | None) -> str:
    if path is None:
        return "None"
    return f'f"{path}"' if "{" in path else f'"{path}"'
