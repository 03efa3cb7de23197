"""UNS201: reads of a migrated warning use ``severity`` and ``message``, not the sentinel.

What a read is (:mod:`~unsentinel.warnings.reads`) and how it is changed or held back with
its group (:mod:`~unsentinel.warnings.read_rewrite`) live beside the rule; the rule holds
the decisions: which reads become which fields. Comparisons
(:mod:`~unsentinel.warnings.comparison_reads`) and uses of a warning as text
(:mod:`~unsentinel.warnings.text_uses`) are rewritten there.
"""

from __future__ import annotations

import functools
from functools import cached_property

import libcst as cst

from unsentinel.core.layout import expression_code
from unsentinel.core.model import Action, Kind
from unsentinel.core.rule import Example
from unsentinel.core.syntax import last_name
from unsentinel.warnings.carriers import FileCarriers, is_helper_call
from unsentinel.warnings.comparison_reads import ComparisonReads
from unsentinel.warnings.detect import CONSUMER
from unsentinel.warnings.facts import ParamSlot
from unsentinel.warnings.facts import WarningShape as Shape
from unsentinel.warnings.library_calls import LibraryCalls
from unsentinel.warnings.loop_names import fresh_loop_name, renamed
from unsentinel.warnings.read_rewrite import ReadRewriter
from unsentinel.warnings.reads import (
    STRIP_METHODS,
    WarningReads,
    access,
    is_negated,
    needs_parens,
    promises_text,
)
from unsentinel.warnings.rule import WarningListRule
from unsentinel.warnings.strings import is_stringish
from unsentinel.warnings.text_uses import TextUses


class WarningConsumer(WarningListRule):
    """Rewrite a read that matches the sentinel, or uses a warning as text, to the new fields.

    What it does
        Where code reads a warning that is now structured, rewrites the read:
        ``w.startswith(BLOCK_WARNING_PREFIX)`` and ``BLOCK_WARNING_PREFIX in w`` become
        ``w.severity == "blocking"`` (``!=`` when negated); ``w.removeprefix(PREFIX).lstrip()``,
        ``w[len(PREFIX):].strip()`` and ``w.replace(PREFIX, "")`` become ``w.message``; string
        uses of a warning (f-strings, ``+``, ``"sep".join(ws)``, ``"text" in w``, ``str(w)``,
        ``str`` methods, a ``str`` parameter, comparisons with literals, an append to a
        local list that also takes text, an argument of library code such as
        ``Badge(label=w)``) go through ``.message``; ``isinstance(w, str)``
        checks the new type. Dumped warnings (``model_dump()``, ``asdict``, ``json.loads``)
        use keys instead: ``w["severity"]``, ``w["message"]``.

    Why
        After the producers are migrated, ``w.startswith("BLOCK:")`` on a ``Warning`` raises
        ``AttributeError`` -- or, on a dict, silently stops blocking. Every consumer has to
        move in the same change as the producers.

    Example
        ```python
        blocked = any(w.startswith(BLOCK_WARNING_PREFIX) for w in resp.warnings)
        texts = [w[len(BLOCK_WARNING_PREFIX):].strip() for w in resp.warnings]
        ```

    Use instead
        ```python
        blocked = any(w.severity == "blocking" for w in resp.warnings)
        texts = [w.message for w in resp.warnings]
        ```

    Fix safety
        A read is rewritten only when the data it reads is known to be warnings, and whether
        they are objects or dicts is decided by following the data. A match on a configured
        marker that is not ``blocking`` becomes a severity check that also matches the other
        warnings of that severity (plain ones included): it is rewritten and listed for
        review. Anything else is reported and left as it is.
    """

    detector = CONSUMER
    code = detector.code
    name = detector.name
    summary = "Sentinel match or string use of a warning -> severity / message"

    VALID = (
        Example('ok = any(line.startswith("BLOCK:") for line in lines)', id="not warnings"),
        Example(
            'blocked = any(w.severity == "blocking" for w in resp.warnings)',
            id="already migrated",
        ),
    )
    INVALID = (
        Example(
            "blocked = any(w.startswith(BLOCK_WARNING_PREFIX) for w in resp.warnings)",
            'blocked = any(w.severity == "blocking" for w in resp.warnings)',
            id="gate in any()",
        ),
        Example(
            "ok = [w for w in resp.warnings if not w.startswith(BLOCK_WARNING_PREFIX)]",
            'ok = [w for w in resp.warnings if w.severity != "blocking"]',
            id="negated filter",
        ),
        Example(
            "texts = [w[len(BLOCK_WARNING_PREFIX):].strip() for w in resp.warnings]",
            "texts = [w.message for w in resp.warnings]",
            id="slice off the prefix",
        ),
        Example(
            'lines = [f"- {w}" for w in warnings]',
            'lines = [f"- {w.message}" for w in warnings]',
            id="f-string display",
        ),
        Example(
            """
            def report(warnings):
                lines = ["Warnings:"]
                for w in warnings:
                    lines.append(w)
                return lines
            """,
            """
            def report(warnings):
                lines = ["Warnings:"]
                for w in warnings:
                    lines.append(w.message)
                return lines
            """,
            id="appended to a list of text",
        ),
        Example(
            """
            from ui import Badge

            def show(warnings):
                for w in warnings:
                    Badge(label=w, variant="secondary")
            """,
            """
            from ui import Badge

            def show(warnings):
                for w in warnings:
                    Badge(label=w.message, variant="secondary")
            """,
            id="passed to library code",
        ),
        Example(
            'blocked = any(w.startswith("BLOCK:") for w in data["warnings"])',
            'blocked = any(w["severity"] == "blocking" for w in data["warnings"])',
            id="dumped dicts",
        ),
    )

    @cached_property
    def reads(self) -> WarningReads:
        return WarningReads(self)

    @cached_property
    def edit(self) -> ReadRewriter:
        return ReadRewriter(self, self.reads)

    @cached_property
    def comparisons(self) -> ComparisonReads:
        return ComparisonReads(self.analysis, self.reads, self.edit)

    @cached_property
    def text_uses(self) -> TextUses:
        library = LibraryCalls(self.context, self.analysis.index)
        return TextUses(self.analysis, self.reads, self.edit, library)

    # -- gather: which helper parameters receive warnings -------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        """Parameters named like a warnings list take warnings: callers may pass literals."""
        params = self.analysis.positional_params(node)
        name = self.analysis.callable_name(node)
        for index, param in enumerate(params):
            if self.analysis.is_warning_list_name(param.name.value):
                self.notes.params.add(ParamSlot(name, index, named=param.name.value))
                self.notes.params.add(ParamSlot(name, param.name.value))

    def visit_Call(self, node: cst.Call) -> None:
        self._record_parameters(node)
        if self.edit.claimed(node):
            return
        if self._severity_check(node) or self._display(node) or self.text_uses.join(node):
            return
        self.text_uses.string_method(node)
        self.text_uses.str_argument(node)
        self.text_uses.added_to_text(node)
        self.text_uses.passed_to_library(node)

    def _record_parameters(self, node: cst.Call) -> None:
        callee = last_name(node.func)
        if callee is None or not is_helper_call(callee, node.func):
            return
        if self.context.shared(FileCarriers).calls_a_builtin(node.func):
            return  # ``type(w)``: Python's own, whatever method of that name exists
        for index, arg in enumerate(node.args):
            shape = self.reads.shape(arg.value)
            if shape not in (Shape.LIST, Shape.DICT_LIST):
                continue
            key = arg.keyword.value if arg.keyword else index
            self.notes.params.add(ParamSlot(callee, key, dumped=shape.is_dict))

    # -- rewrites ----------------------------------------------------------------------------
    def _severity_check(self, node: cst.Call) -> bool:
        """``w.startswith(PREFIX)`` -> ``w.severity == "blocking"``."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "startswith" and node.args):
            return False
        shape = self.reads.item_shape(func.value)
        if shape is None:
            return False
        argument = node.args[0].value
        marker = self.reads.marker_only(argument)
        negated = is_negated(node, self.context)
        target = self.context.parent(node) if negated else node
        assert target is not None
        operator = "!=" if negated else "=="
        subject = expression_code(func.value)
        if marker is not None:
            new = f'{access(subject, "severity", shape)} {operator} "{marker.severity}"'
            if marker.severity != "blocking":
                self.edit.replace(
                    target, new, "marker match -> severity check", review=_SHARED_SEVERITY
                )
                return True
        else:
            stripped = self.reads.strip(argument)
            if stripped is None or stripped.marker is None:
                return False  # an ordinary prefix test on the text: a text use (text_uses)
            rest = expression_code(stripped.message)
            check = (
                f'{access(subject, "severity", shape)} == "{stripped.marker.severity}" and '
                f"{access(subject, 'message', shape)}.startswith({rest})"
            )
            new = (
                f"not ({check})"
                if negated
                else f"({check})"
                if needs_parens(node, self.context)
                else check
            )
        self.edit.replace(target, new, "sentinel match -> severity check")
        return True

    def _display(self, node: cst.CSTNode) -> bool:
        """``w.removeprefix(P).lstrip()``, ``w[len(P):]``, ``w.replace(P, "")`` -> ``w.message``."""
        if not isinstance(node, cst.BaseExpression):
            return False
        subject = self.reads.prefix_removal(node)
        if subject is None:
            return False
        parent = self.context.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr.value in STRIP_METHODS:
            return False  # the enclosing strip() call is the one to replace
        shape = self.reads.item_shape(subject)
        assert shape is not None
        self.edit.replace(
            node, access(expression_code(subject), "message", shape), "prefix removal -> message"
        )
        return True

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.edit.claimed(node) or self._display(node):
            return
        if self.reads.prefix_removal(node) is None:  # not ``w[len(P):]`` under a ``.strip()``
            self.edit.text_only(node, node.value, "a warning indexed or sliced as text")

    def visit_Return(self, node: cst.Return) -> None:
        """``-> dict[str, list[str]]`` promises text: warnings placed in it become messages."""
        function = self.analysis.enclosing_function(node)
        if function is None or function.returns is None or node.value is None:
            return
        if not promises_text(function.returns.annotation):
            return
        if self.reads.shape(node.value) is not None:
            return  # the whole value is warnings: the annotation rule retypes it instead
        self.text_uses.string_context(node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is None or self.analysis.is_warning_list(node.target):
            return
        if promises_text(node.annotation.annotation) and self.reads.shape(node.value) is None:
            self.text_uses.string_context(node.value)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        """``w.removeprefix(P) if blocked else w``: the display is text on *both* arms."""
        for shown, other in ((node.body, node.orelse), (node.orelse, node.body)):
            if self.reads.prefix_removal(shown) is not None or is_stringish(shown):
                self.edit.message_of(other, "the other arm of a display expression")

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        self.edit.message_of(node.expression, "warning shown in an f-string")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Add):
            if is_stringish(node.left):
                self.edit.message_of(node.right, "warning concatenated to text")
            if is_stringish(node.right):
                self.edit.message_of(node.left, "warning concatenated to text")

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if not self.edit.claimed(node):
            self.comparisons.rewrite(node)

    def leave_For(self, original_node: cst.For) -> None:
        """A loop over migrated warnings whose variable the function also binds to text
        gets a name of its own (``loop_names``): once its body is read, and the producers
        have scheduled what they change in the loop (``enumerate``)."""
        shape = self.reads.shape(original_node.iter)
        if shape not in (Shape.LIST, Shape.DICT_LIST) or original_node in self.context.edits:
            return
        carriers = self.context.shared(FileCarriers)
        if carriers.blocker(carriers.of(original_node.iter)) is not None:
            return
        fresh = fresh_loop_name(
            self.context,
            original_node,
            lambda other: isinstance(other, cst.For) and self.reads.shape(other.iter) is shape,
        )
        if fresh is None:
            return
        old = cst.ensure_type(original_node.target, cst.Name).value
        self.context.replace(original_node, functools.partial(renamed, old=old, new=fresh))
        self.context.report(
            self,
            original_node,
            f"Loop variable renamed {old} -> {fresh}: the function binds {old} to text in "
            "another loop, and a type checker gives a name one type",
            kind=Kind.CONSUMER,
            action=Action.REWRITE,
        )


_SHARED_SEVERITY = (
    "the marker maps to a severity other warnings share: the check now matches them too"
)
