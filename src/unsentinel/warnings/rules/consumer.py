"""UNS201: reads of a migrated warning use ``severity`` and ``message``, not the sentinel."""

from __future__ import annotations

from functools import cached_property

import libcst as cst

from unsentinel.core.discovery import module_name
from unsentinel.core.layout import expression_code
from unsentinel.core.model import Action, Kind, Severity
from unsentinel.core.rule import Example
from unsentinel.core.syntax import last_name
from unsentinel.warnings.carriers import FileCarriers, is_helper_call
from unsentinel.warnings.facts import ParamSlot
from unsentinel.warnings.facts import WarningShape as Shape
from unsentinel.warnings.rule import WarningListRule
from unsentinel.warnings.settings import warning_settings
from unsentinel.warnings.strings import Marker, is_stringish, strip_marker, text_marker

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


class WarningConsumer(WarningListRule):
    """Rewrite a read that matches the sentinel, or uses a warning as text, to the new fields.

    What it does
        Where code reads a warning that is now structured, rewrites the read:
        ``w.startswith(BLOCK_WARNING_PREFIX)`` and ``BLOCK_WARNING_PREFIX in w`` become
        ``w.severity == "blocking"`` (``!=`` when negated); ``w.removeprefix(PREFIX).lstrip()``,
        ``w[len(PREFIX):].strip()`` and ``w.replace(PREFIX, "")`` become ``w.message``; string
        uses of a warning (f-strings, ``+``, ``"sep".join(ws)``, ``"text" in w``, ``str(w)``,
        ``str`` methods, a ``str`` parameter, comparisons with literals) go through
        ``.message``; ``isinstance(w, str)`` checks the new type. Dumped warnings
        (``model_dump()``, ``asdict``, ``json.loads``) use keys instead: ``w["severity"]``,
        ``w["message"]``.

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

    code = "UNS201"
    name = "warning-consumer"
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
            'blocked = any(w.startswith("BLOCK:") for w in data["warnings"])',
            'blocked = any(w["severity"] == "blocking" for w in data["warnings"])',
            id="dumped dicts",
        ),
    )

    def _shape(self, expr: cst.BaseExpression) -> Shape | None:
        shape: Shape | None = self.flow.shape(expr)
        return shape

    @cached_property
    def carriers(self) -> FileCarriers:
        return self.context.shared(FileCarriers)

    # -- gather: which helper parameters receive warnings -------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        """Parameters named like a warnings list take warnings: callers may pass literals."""
        params = [*node.params.posonly_params, *node.params.params]
        for index, param in enumerate(params):
            if self.analysis.is_warning_list_name(param.name.value):
                self.notes.params.add(ParamSlot(node.name.value, index))
                self.notes.params.add(ParamSlot(node.name.value, param.name.value))

    def visit_Call(self, node: cst.Call) -> None:
        self._record_parameters(node)
        if self._claimed(node):
            return
        if self._severity_check(node) or self._display(node) or self._join(node):
            return
        self._string_method(node)
        self._str_argument(node)

    def _record_parameters(self, node: cst.Call) -> None:
        callee = last_name(node.func)
        if callee is None or not is_helper_call(callee, node.func):
            return
        for index, arg in enumerate(node.args):
            shape = self._shape(arg.value)
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
        shape = self._item_shape(func.value)
        if shape is None:
            return False
        argument = node.args[0].value
        marker = self._marker_only(argument)
        negated = _negated(node, self.context)
        target = self.context.parent(node) if negated else node
        assert target is not None
        operator = "!=" if negated else "=="
        subject = expression_code(func.value)
        if marker is not None:
            new = f'{_access(subject, "severity", shape)} {operator} "{marker.severity}"'
            if marker.severity != "blocking":
                self._replace(
                    target, new, "marker match -> severity check", review=_SHARED_SEVERITY
                )
                return True
        else:
            stripped = self._strip(argument)
            if stripped is None or stripped.marker is None:
                return False  # an ordinary prefix test on the text: _string_method's job
            rest = expression_code(stripped.message)
            check = (
                f'{_access(subject, "severity", shape)} == "{stripped.marker.severity}" and '
                f"{_access(subject, 'message', shape)}.startswith({rest})"
            )
            new = (
                f"not ({check})"
                if negated
                else f"({check})"
                if _needs_parens(node, self.context)
                else check
            )
        self._replace(target, new, "sentinel match -> severity check")
        return True

    def _display(self, node: cst.CSTNode) -> bool:
        """``w.removeprefix(P).lstrip()``, ``w[len(P):]``, ``w.replace(P, "")`` -> ``w.message``."""
        if not isinstance(node, cst.BaseExpression):
            return False
        subject = self._prefix_removal(node)
        if subject is None:
            return False
        parent = self.context.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr.value in STRIP_METHODS:
            return False  # the enclosing strip() call is the one to replace
        shape = self._item_shape(subject)
        assert shape is not None
        self._replace(
            node, _access(expression_code(subject), "message", shape), "prefix removal -> message"
        )
        return True

    def _prefix_removal(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            method, value = node.func.attr.value, node.func.value
            if method in STRIP_METHODS:
                return self._prefix_removal(value)
            if (
                method in ("removeprefix", "replace")
                and node.args
                and self._marker_only(node.args[0].value)
                and self._item_shape(value)
            ):
                return value
        if isinstance(node, cst.Subscript) and self._item_shape(node.value):
            element = node.slice[0].slice if len(node.slice) == 1 else None
            if (
                isinstance(element, cst.Slice)
                and element.upper is None
                and element.lower is not None
            ):
                lower = element.lower
                if (
                    isinstance(lower, cst.Call)
                    and last_name(lower.func) == "len"
                    and lower.args
                    and self._marker_only(lower.args[0].value)
                ):
                    return node.value
        return None

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self._claimed(node) or self._display(node):
            return
        if self._prefix_removal(node) is None:  # not ``w[len(P):]`` under a ``.strip()``
            self._text_only(node, node.value, "a warning indexed or sliced as text")

    def _join(self, node: cst.Call) -> bool:
        """``"; ".join(warnings)`` -> ``"; ".join(w.message for w in warnings)``."""
        func = node.func
        if not (
            isinstance(func, cst.Attribute) and func.attr.value == "join" and len(node.args) == 1
        ):
            return False
        if not is_stringish(func.value):
            return False
        shape = self._shape(node.args[0].value)
        if shape not in (Shape.LIST, Shape.DICT_LIST):
            return False
        items = expression_code(node.args[0].value)
        message = _access("w", "message", shape.item)
        separator = expression_code(func.value)
        self._replace(
            node, f"{separator}.join({message} for w in {items})", "join of warnings -> messages"
        )
        return True

    def _string_method(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in STR_METHODS:
            self._message_of(func.value, "string method on a warning")

    def _str_argument(self, node: cst.Call) -> None:
        """A warning passed where a ``str`` is expected (``str(w)``, a ``text: str`` parameter)."""
        callee = last_name(node.func)
        if callee == "str" and len(node.args) == 1:
            shape = self._item_shape(node.args[0].value)
            if shape is not None:
                self._replace(
                    node,
                    _access(expression_code(node.args[0].value), "message", shape),
                    "str(warning) -> message",
                )
            return
        if callee == "isinstance" and len(node.args) == 2:
            self._isinstance(node)
            return
        if callee == "len" and len(node.args) == 1:
            self._text_only(node, node.args[0].value, "the length of a warning's text")
            return
        parameters = self.analysis.str_parameters(callee) if callee else {}
        for index, arg in enumerate(node.args):
            key: str | int = arg.keyword.value if arg.keyword else index
            if key in parameters:
                self._message_of(arg.value, "warning passed as a str argument")

    def _isinstance(self, node: cst.Call) -> None:
        subject, kind = node.args[0].value, node.args[1].value
        shape = self._item_shape(subject)
        if shape is None or not (isinstance(kind, cst.Name) and kind.value == "str"):
            return
        replaced = self._replace(
            kind,
            "dict" if shape.is_dict else self.analysis.warning_class,
            "isinstance check on the new type",
        )
        if replaced and not shape.is_dict:
            self._import_warning()

    def _import_warning(self) -> None:
        """The check names the migrated model: import it (as the annotation rule does), or the
        name is Python's builtin ``Warning`` and every migrated warning fails the check."""
        models_module = module_name(
            self.config.root / warning_settings(self.config).models_module, self.config.root
        )
        if self.context.module_name == models_module:
            return
        alias = self.analysis.warning_class
        self.context.add_import(models_module, "Warning", None if alias == "Warning" else alias)

    def visit_Return(self, node: cst.Return) -> None:
        """``-> dict[str, list[str]]`` promises text: warnings placed in it become messages."""
        function = self.analysis.enclosing_function(node)
        if function is None or function.returns is None or node.value is None:
            return
        if not _promises_text(function.returns.annotation):
            return
        if self._shape(node.value) is not None:
            return  # the whole value is warnings: the annotation rule retypes it instead
        self._string_context(node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is None or self.analysis.is_warning_list(node.target):
            return
        if _promises_text(node.annotation.annotation) and self._shape(node.value) is None:
            self._string_context(node.value)

    def _string_context(self, expr: cst.BaseExpression) -> None:
        """Bare warnings where text is promised: list elements, dict values, comprehension items."""
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            self._message_of(expr.elt, "warning where the annotation promises str")
        elif isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            for element in expr.elements:
                self._string_context(element.value)
        elif isinstance(expr, cst.Dict):
            for entry in expr.elements:
                if isinstance(entry, cst.DictElement):
                    self._string_context(entry.value)
        elif isinstance(expr, cst.IfExp):
            self._string_context(expr.body)
            self._string_context(expr.orelse)
        else:
            self._message_of(expr, "warning where the annotation promises str")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        """``w.removeprefix(P) if blocked else w``: the display is text on *both* arms."""
        for shown, other in ((node.body, node.orelse), (node.orelse, node.body)):
            if self._prefix_removal(shown) is not None or is_stringish(shown):
                self._message_of(other, "the other arm of a display expression")

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        self._message_of(node.expression, "warning shown in an f-string")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Add):
            if is_stringish(node.left):
                self._message_of(node.right, "warning concatenated to text")
            if is_stringish(node.right):
                self._message_of(node.left, "warning concatenated to text")

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if self._claimed(node) or len(node.comparisons) != 1:
            return
        comparison = node.comparisons[0]
        left, right, operator = node.left, comparison.comparator, comparison.operator
        if isinstance(operator, (cst.In, cst.NotIn)):
            self._membership(node, left, right, negated=isinstance(operator, cst.NotIn))
        elif isinstance(operator, (cst.Equal, cst.NotEqual)):
            self._equality(left, right)
            self._equality(right, left)

    def _membership(
        self,
        node: cst.Comparison,
        left: cst.BaseExpression,
        right: cst.BaseExpression,
        *,
        negated: bool,
    ) -> None:
        if isinstance(left, cst.SimpleString) and self.analysis.is_warning_list_name(
            str(left.evaluated_value)
        ):
            return  # ``"warnings" in result``: a test for a dict key, not a read of warnings
        item = self._item_shape(right)
        if item is not None and self._marker_only(left) is not None:
            marker = self._marker_only(left)
            assert marker is not None
            operator = "!=" if negated else "=="
            self._replace(
                node,
                f"{_access(expression_code(right), 'severity', item)} {operator} "
                f'"{marker.severity}"',
                "sentinel membership -> severity check",
            )
        elif item is not None and is_stringish(left):
            self._message_of(right, "substring test on a warning")
        elif is_stringish(left):
            shape = self._shape(right)
            if shape in (Shape.LIST, Shape.DICT_LIST):
                message = _access("w", "message", shape.item)
                self._replace(
                    right,
                    f"[{message} for w in {expression_code(right)}]",
                    "membership in warnings -> in messages",
                )

    def _equality(self, subject: cst.BaseExpression, other: cst.BaseExpression) -> None:
        shape = self._shape(subject)
        if shape in (Shape.ITEM, Shape.DICT) and is_stringish(other):
            pair = self._severity_message(other)
            if pair is not None:
                sev = _access(expression_code(subject), "severity", shape)
                msg = _access(expression_code(subject), "message", shape)
                self._replace(
                    subject, f"({sev}, {msg})", "comparison with a literal -> (severity, message)"
                )
                self._replace(other, pair, "comparison with a literal -> (severity, message)")
        elif (
            shape in (Shape.LIST, Shape.DICT_LIST)
            and isinstance(other, cst.List)
            and other.elements
        ):
            pairs = [
                self._severity_message(e.value) if not isinstance(e, cst.StarredElement) else None
                for e in other.elements
            ]
            if all(p is not None for p in pairs):
                item = shape.item
                sev, msg = _access("w", "severity", item), _access("w", "message", item)
                self._replace(
                    subject,
                    f"[({sev}, {msg}) for w in {expression_code(subject)}]",
                    "list equality -> (severity, message) pairs",
                )
                self._replace(
                    other,
                    "[" + ", ".join(p for p in pairs if p) + "]",
                    "list equality -> (severity, message) pairs",
                )

    def _severity_message(self, expr: cst.BaseExpression) -> str | None:
        """``"BLOCK: x"`` -> ``("blocking", "x")``; a plain literal gets its inferred severity."""
        if not is_stringish(expr):
            return None
        stripped = self._strip(expr)
        if stripped is not None and stripped.marker is not None:
            return f'("{stripped.marker.severity}", {expression_code(stripped.message)})'
        from unsentinel.warnings.inference.severity import infer_severity
        from unsentinel.warnings.strings import pieces, template_text

        text = template_text(pieces(expr, lambda _: None))
        severity = infer_severity(text, None, None, warning_settings(self.config).info_keywords)
        return f'("{severity.value}", {expression_code(expr)})'

    # -- helpers ------------------------------------------------------------------------------
    def _message_of(self, expr: cst.BaseExpression, reason: str) -> None:
        shape = self._item_shape(expr)
        if shape is None or self._claimed(expr):
            return
        self._replace(expr, _access(expression_code(expr), "message", shape), reason)

    def _item_shape(self, expr: cst.BaseExpression) -> Shape | None:
        shape = self._shape(expr)
        return shape if shape in (Shape.ITEM, Shape.DICT) else None

    def _marker_only(self, expr: cst.BaseExpression) -> Marker | None:
        """Is ``expr`` exactly a marker: the constant, or a literal with nothing after it?"""
        name = last_name(expr)
        if name is not None and not isinstance(expr, cst.SimpleString):
            if name in warning_settings(self.config).sentinel_constants:
                return Marker(name, Severity.BLOCKING)
            value = self.facts.marker_constants.get(
                name
            ) or self.analysis.module_string_constants.get(name)
            found = (
                text_marker(value, warning_settings(self.config).severity_markers)
                if value
                else None
            )
            if found is not None and value is not None and value.strip() == found.text:
                return Marker(name, found.severity)
            return None
        if isinstance(expr, cst.SimpleString):
            literal = expr.evaluated_value
            if isinstance(literal, str):
                found = text_marker(literal, warning_settings(self.config).severity_markers)
                if found is not None and literal.strip() == found.text:
                    return found
        return None

    def _strip(self, expr: cst.BaseExpression):  # type: ignore[no-untyped-def]
        return strip_marker(
            expr, warning_settings(self.config).severity_markers, self._constant, lambda _: None
        )

    def _constant(self, name: str) -> Marker | None:
        return self._marker_only(cst.Name(name))

    def _claimed(self, node: cst.CSTNode) -> bool:
        """Already inside (or equal to) a node another rewrite of this rule replaces."""
        if node in self.context.edits:
            return True
        return any(a in self.context.edits for a in self.context.ancestors(node))

    def _text_only(self, node: cst.CSTNode, subject: cst.BaseExpression, why: str) -> None:
        """A use of a warning item that only a string supports and ``.message`` cannot stand
        in for here: it blocks the warning's whole group (nothing connected migrates)."""
        if self._shape(subject) is not Shape.ITEM:
            return
        carriers = self.carriers.of(subject)
        self.carriers.block(node, carriers, why)
        self.context.report(
            self,
            node,
            f"Warning consumer: {why}; the warning's group is left as it is",
            kind=Kind.CONSUMER,
            action=Action.SKIP,
            reasons=(f"{why}: rewrite it by hand, then run again",),
        )

    def _replace(
        self, node: cst.CSTNode, code: str, reason: str, *, review: str | None = None
    ) -> bool:
        """Schedule the rewrite, unless the warnings read here belong to a blocked group."""
        blocker = self.carriers.blocker(self.carriers.around(node))
        if blocker is not None:
            self.context.report(
                self,
                node,
                f"Warning consumer left as it is ({reason}): its group cannot be migrated whole",
                kind=Kind.CONSUMER,
                action=Action.SKIP,
                reasons=(blocker.reason,),
            )
            return False
        new = cst.parse_expression(code)

        def build(updated: cst.CSTNode) -> cst.CSTNode:
            if isinstance(updated, cst.BaseExpression) and updated.lpar:
                return new.with_changes(lpar=updated.lpar, rpar=updated.rpar)
            return new

        self.context.replace(node, build)
        action = Action.REVIEW if review else Action.REWRITE
        reasons = (reason, review) if review else (reason,)
        self.context.report(
            self,
            node,
            f"Warning consumer: {reason}",
            kind=Kind.CONSUMER,
            action=action,
            reasons=reasons,
        )
        return True


_SHARED_SEVERITY = (
    "the marker maps to a severity other warnings share: the check now matches them too"
)


def _access(subject: str, field: str, shape: Shape) -> str:
    return f'{subject}["{field}"]' if shape.is_dict else f"{subject}.{field}"


def _promises_text(annotation: cst.BaseExpression) -> bool:
    """Does an annotation name ``str`` (and nothing that could hold a warning object)?"""
    names: set[str] = set()

    class _Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

    annotation.visit(_Names())
    return "str" in names and not names & {"Any", "object", "Warning", "StructuredWarning"}


def _negated(node: cst.CSTNode, context) -> bool:  # type: ignore[no-untyped-def]
    parent = context.parent(node)
    return isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not)


def _needs_parens(node: cst.CSTNode, context) -> bool:  # type: ignore[no-untyped-def]
    parent = context.parent(node)
    return isinstance(
        parent, (cst.BooleanOperation, cst.UnaryOperation, cst.Comparison, cst.Attribute)
    )
