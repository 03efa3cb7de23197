"""Warnings used as text (UNS201): each such use reads the warning's message instead.

``str(w)``, a ``text: str`` parameter, string methods, ``"; ".join(warnings)``, an append
to a local list that also takes text, an argument of library code (``Badge(label=w)``) and
a value where an annotation promises ``str`` all get ``w.message`` (``w["message"]`` for
dumped warnings); ``isinstance(w, str)`` checks the new type. Split from the rule
(``rules/consumer.py``), which finds the reads and decides which rewrite each one gets;
sentinel matches and prefix removals stay there.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.layout import expression_code
from unsentinel.core.syntax import last_name
from unsentinel.warnings.analysis import FileAnalysis
from unsentinel.warnings.facts import WarningShape as Shape
from unsentinel.warnings.library_calls import LibraryCalls
from unsentinel.warnings.read_rewrite import ReadRewriter
from unsentinel.warnings.reads import STR_METHODS, WarningReads, access
from unsentinel.warnings.strings import is_stringish


class TextUses:
    """Rewrites the uses of one file's warnings as text to their messages."""

    def __init__(
        self,
        analysis: FileAnalysis,
        reads: WarningReads,
        edit: ReadRewriter,
        library: LibraryCalls,
    ) -> None:
        self.analysis = analysis
        self.reads = reads
        self.edit = edit
        self.library = library

    def join(self, node: cst.Call) -> bool:
        """``"; ".join(warnings)`` -> ``"; ".join(w.message for w in warnings)``."""
        func = node.func
        if not (
            isinstance(func, cst.Attribute) and func.attr.value == "join" and len(node.args) == 1
        ):
            return False
        if not is_stringish(func.value):
            return False
        argument = node.args[0].value
        shape = self.reads.shape(argument)
        if shape not in (Shape.LIST, Shape.DICT_LIST):
            return False
        if isinstance(argument, (cst.GeneratorExp, cst.ListComp)):
            # ``"; ".join(w for w in warnings if w.startswith("No"))``: the element becomes
            # its message; the ``if`` clauses are reads of their own, rewritten by their rules.
            self.edit.replace(
                argument.elt,
                access(expression_code(argument.elt), "message", shape.item),
                "join of warnings -> messages",
            )
            return True
        items = expression_code(argument)
        message = access("w", "message", shape.item)
        separator = expression_code(func.value)
        self.edit.replace(
            node, f"{separator}.join({message} for w in {items})", "join of warnings -> messages"
        )
        return True

    def string_method(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in STR_METHODS:
            self.edit.message_of(func.value, "string method on a warning")

    def str_argument(self, node: cst.Call) -> None:
        """A warning passed where a ``str`` is expected (``str(w)``, a ``text: str`` parameter)."""
        callee = last_name(node.func)
        if callee == "str" and len(node.args) == 1:
            shape = self.reads.item_shape(node.args[0].value)
            if shape is not None:
                self.edit.replace(
                    node,
                    access(expression_code(node.args[0].value), "message", shape),
                    "str(warning) -> message",
                )
            return
        if callee == "isinstance" and len(node.args) == 2:
            self._isinstance(node)
            return
        if callee == "len" and len(node.args) == 1:
            self.edit.text_only(node, node.args[0].value, "the length of a warning's text")
            return
        parameters = self.analysis.str_parameters(callee) if callee else {}
        for index, arg in enumerate(node.args):
            key: str | int = arg.keyword.value if arg.keyword else index
            if key in parameters:
                self.edit.message_of(arg.value, "warning passed as a str argument")

    def _isinstance(self, node: cst.Call) -> None:
        subject, kind = node.args[0].value, node.args[1].value
        shape = self.reads.item_shape(subject)
        if shape is None or not (isinstance(kind, cst.Name) and kind.value == "str"):
            return
        replaced = self.edit.replace(
            kind,
            "dict" if shape.is_dict else self.analysis.warning_class,
            "isinstance check on the new type",
        )
        if replaced and not shape.is_dict:
            self.edit.import_warning()

    def passed_to_library(self, node: cst.Call) -> None:
        """``Badge(label=w)``, ``log.info(w)``: library code written for text keeps getting
        text (:mod:`~unsentinel.warnings.library_calls` says which calls those are)."""
        if not self.library.takes_text(node):
            return
        for arg in node.args:
            if not arg.star:
                self.edit.message_of(arg.value, "warning passed to library code")

    def added_to_text(self, node: cst.Call) -> None:
        """``lines.append(w)`` where ``lines`` also takes text (``lines.append("end")``): a
        list of text, so the warning goes in as its message. A local that only ever collects
        warnings is a warnings list itself (its annotation says so), and is left alone."""
        func = node.func
        if not (
            isinstance(func, cst.Attribute)
            and func.attr.value in ("append", "insert")
            and isinstance(func.value, cst.Name)
            and node.args
        ):
            return
        if self.analysis.is_warning_list(func.value) or self.reads.shape(func.value) is not None:
            return
        if self.analysis.enclosing_function(node) is None:
            return
        self.edit.message_of(node.args[-1].value, "warning added to a list of text")

    def string_context(self, expr: cst.BaseExpression) -> None:
        """Bare warnings where text is promised: list elements, dict values, comprehension items."""
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            self.edit.message_of(expr.elt, "warning where the annotation promises str")
        elif isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            for element in expr.elements:
                self.string_context(element.value)
        elif isinstance(expr, cst.Dict):
            for entry in expr.elements:
                if isinstance(entry, cst.DictElement):
                    self.string_context(entry.value)
        elif isinstance(expr, cst.IfExp):
            self.string_context(expr.body)
            self.string_context(expr.orelse)
        else:
            self.edit.message_of(expr, "warning where the annotation promises str")
