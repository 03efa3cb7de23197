"""What a read of warnings is: its shape, the marker it tests, the prefix it removes.

UNS201 rewrites a read only when it knows what the read sees. These questions -- is this
expression a warning item or a list of them, as objects or dumped dicts; is this argument
exactly a sentinel marker; does this expression strip the marker off a warning's text;
what ``(severity, message)`` pair does a literal stand for -- are answered here, from the
file's flow and analysis and the gathered facts, so that the rule reads as its decisions.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.batch import read
from unsentinel.core.layout import expression_code
from unsentinel.core.model import Severity
from unsentinel.core.rule import RuleContext
from unsentinel.core.syntax import last_name, string_value
from unsentinel.warnings.facts import WarningShape as Shape
from unsentinel.warnings.inference.severity import infer_severity, producer_severity
from unsentinel.warnings.rule import WarningRule
from unsentinel.warnings.settings import warning_settings
from unsentinel.warnings.strings import (
    Marker,
    Stripped,
    is_stringish,
    pieces,
    strip_marker,
    template_text,
    text_marker,
)

STRIP_METHODS = frozenset({"strip", "lstrip", "rstrip"})
STR_METHODS = frozenset(
    {
        "startswith",
        "upper",
        "lower",
        "title",
        "split",
        "splitlines",
        "find",
        "index",
        "count",
        "endswith",
        "encode",
        "format",
        "casefold",
        "partition",
        "rpartition",
        "capitalize",
        "center",
        "ljust",
        "rjust",
        "zfill",
        "isupper",
        "islower",
    }
)


class WarningReads:
    """Classifies the reads of one file for a warning rule (its flow, analysis and facts)."""

    def __init__(self, rule: WarningRule) -> None:
        self.rule = rule
        self.config = rule.config

    def shape(self, expr: cst.BaseExpression) -> Shape | None:
        """How ``expr`` holds warnings (an item, a list, as objects or dicts), if it does."""
        shape: Shape | None = self.rule.flow.shape(expr)
        return shape

    def item_shape(self, expr: cst.BaseExpression) -> Shape | None:
        """The shape of ``expr`` when it is one warning (object or dict), else None."""
        shape = self.shape(expr)
        return shape if shape in (Shape.ITEM, Shape.DICT) else None

    def marker_only(self, expr: cst.BaseExpression) -> Marker | None:
        """Is ``expr`` exactly a marker: the constant, or a literal with nothing after it?"""
        name = last_name(expr)
        if name is not None and not isinstance(expr, cst.SimpleString):
            return self._constant_marker(name)
        if isinstance(expr, cst.SimpleString):
            literal = string_value(expr)
            if isinstance(literal, str):
                found = text_marker(literal, warning_settings(self.config).severity_markers)
                if found is not None and literal.strip() == found.text:
                    return found
        return None

    def _constant_marker(self, name: str) -> Marker | None:
        """A name that is a configured sentinel, or a constant holding just a marker."""
        if name in warning_settings(self.config).sentinel_constants:
            return Marker(name, Severity.BLOCKING)
        value = self.rule.facts.marker_constants.get(
            name
        ) or self.rule.analysis.module_string_constants.get(name)
        found = (
            text_marker(value, warning_settings(self.config).severity_markers) if value else None
        )
        if found is not None and value is not None and value.strip() == found.text:
            return Marker(name, found.severity)
        return None

    def strip(self, expr: cst.BaseExpression) -> Stripped | None:
        """The text of ``expr`` without its leading marker (None: it has none)."""
        return strip_marker(
            expr, warning_settings(self.config).severity_markers, self._constant, lambda _: None
        )

    def _constant(self, name: str) -> Marker | None:
        return self.marker_only(cst.Name(name))

    def prefix_removal(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """The warning whose marker ``node`` strips off (``w.removeprefix(P).lstrip()``,
        ``w[len(P):]``, ``w.replace(P, "")``), or None."""
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            method, value = node.func.attr.value, node.func.value
            if method in STRIP_METHODS:
                return self.prefix_removal(value)
            if (
                method in ("removeprefix", "replace")
                and node.args
                and self.marker_only(node.args[0].value)
                and self.item_shape(value)
            ):
                return value
        if isinstance(node, cst.Subscript) and self.item_shape(node.value):
            return self._sliced_past_marker(node)
        return None

    def _sliced_past_marker(self, node: cst.Subscript) -> cst.BaseExpression | None:
        """``w[len(P):]``: the warning ``w``, when the slice starts past a marker."""
        element = node.slice[0].slice if len(node.slice) == 1 else None
        if isinstance(element, cst.Slice) and element.upper is None and element.lower is not None:
            lower = element.lower
            if (
                isinstance(lower, cst.Call)
                and last_name(lower.func) == "len"
                and lower.args
                and self.marker_only(lower.args[0].value)
            ):
                return node.value
        return None

    def severity_message(self, expr: cst.BaseExpression) -> str | None:
        """``"BLOCK: x"`` -> ``("blocking", "x")``; a plain literal gets its inferred severity."""
        if not is_stringish(expr):
            return None
        stripped = self.strip(expr)
        if stripped is not None and stripped.marker is not None:
            return f'("{stripped.marker.severity}", {expression_code(stripped.message)})'
        text = template_text(pieces(expr, lambda _: None))
        severity = producer_severity(self.rule.facts.templates, text) or (
            infer_severity(text, None, None, warning_settings(self.config).info_keywords).value
        )  # the producer's when one appends this text: the test checks what it appended
        return f'("{severity}", {expression_code(expr)})'


def access(subject: str, field: str, shape: Shape) -> str:
    """``subject.field`` for a warning object, ``subject["field"]`` for a dumped one."""
    return f'{subject}["{field}"]' if shape.is_dict else f"{subject}.{field}"


def promises_text(annotation: cst.BaseExpression) -> bool:
    """Does an annotation name ``str`` (and nothing that could hold a warning object)?"""
    names: set[str] = set()

    class _Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

    read(annotation, _Names())
    return "str" in names and not names & {"Any", "object", "Warning", "StructuredWarning"}


def is_negated(node: cst.CSTNode, context: RuleContext) -> bool:
    """Is ``node`` the operand of a ``not``?"""
    parent = context.parent(node)
    return isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not)


def needs_parens(node: cst.CSTNode, context: RuleContext) -> bool:
    """Would an ``a and b`` put in place of ``node`` bind wrongly without parentheses?"""
    parent = context.parent(node)
    return isinstance(
        parent, (cst.BooleanOperation, cst.UnaryOperation, cst.Comparison, cst.Attribute)
    )
