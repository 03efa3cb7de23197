"""UNS301: annotations that carry warnings say ``Warning`` instead of ``str``."""

from __future__ import annotations

from functools import cached_property

import libcst as cst

from unsentinel.core.batch import read
from unsentinel.core.discovery import module_name
from unsentinel.core.model import Action, Kind
from unsentinel.core.rule import Example
from unsentinel.warnings.carriers import FileCarriers
from unsentinel.warnings.detect import ANNOTATION
from unsentinel.warnings.dict_locals import DictLocals, annotated_with_any
from unsentinel.warnings.facts import WarningShape as Shape
from unsentinel.warnings.helper_returns import APPENDERS
from unsentinel.warnings.local_uses import LocalUses
from unsentinel.warnings.rule import WarningListRule
from unsentinel.warnings.settings import warning_settings


class WarningAnnotation(WarningListRule):
    """Rewrite the ``str`` of an annotation that holds warnings to ``Warning``.

    What it does
        Rewrites the ``str`` in the annotations of everything that holds warnings: model and
        dataclass fields and annotated locals named like a warnings list
        (``warnings: list[str] = Field(...)``), parameters that receive warnings (by name,
        or because a caller passes them: a gather fact), and the return annotations of
        helpers whose results land in a warnings list (``-> list[str]``, ``-> str | None``,
        the warning's slot in ``-> tuple[int, str | None]``). Parameters that receive
        *dumped* warnings become ``list[dict[str, Any]]``. A local bound to a dict display
        that later takes a warnings list under a key (``result["warnings"] = warnings``)
        is annotated ``dict[str, Any]``. The ``Warning`` model is imported where it is
        named.

    Why
        The producers now build ``Warning`` objects; an annotation that still says ``str``
        makes the type checker reject the migrated code, or -- worse -- hides a consumer
        that still treats a warning as text. A dict display's value type is inferred from
        its values alone (``str | list[str]``), which took a list of strings under a new key
        but not a list of ``Warning`` objects.

    Example
        ```python
        warnings: list[str] = Field(default_factory=list)
        ```

    Use instead
        ```python
        warnings: list[Warning] = Field(default_factory=list)
        ```

    Fix safety
        Only the ``str`` element changes; ``Field(...)`` arguments, defaults and the rest of
        the annotation stay byte-identical. Sibling ``list[str]`` fields that are not
        warnings (``next_actions``), and tuples whose ``str`` slots mean something else, are
        left alone.
    """

    detector = ANNOTATION
    code = detector.code
    name = detector.name
    summary = "list[str] / str | None that carries warnings -> Warning"

    VALID = (
        Example("next_actions: list[str] = []", id="sibling list that is not warnings"),
        Example("warnings: list[Warning] = []", id="already migrated"),
    )
    INVALID = (
        Example(
            """
            class Response(BaseModel):
                warnings: list[str] = Field(default_factory=list, description="Problems.")
                next_actions: list[str] = Field(default_factory=list)
            """,
            """
            from warning_model import Warning


            class Response(BaseModel):
                warnings: list[Warning] = Field(default_factory=list, description="Problems.")
                next_actions: list[str] = Field(default_factory=list)
            """,
            id="model field",
        ),
        Example(
            """
            def has_blocking(warnings: Iterable[str]) -> bool:
                return False
            """,
            """
            from warning_model import Warning


            def has_blocking(warnings: Iterable[Warning]) -> bool:
                return False
            """,
            id="parameter named warnings",
        ),
        Example(
            """
            def summary(applied: list[str], warnings: list[Warning]) -> dict[str, Any]:
                result = {"message": f"{len(applied)} applied", "applied": applied}
                if warnings:
                    result["warnings"] = warnings
                return result
            """,
            """
            from typing import Any


            def summary(applied: list[str], warnings: list[Warning]) -> dict[str, Any]:
                result: dict[str, Any] = {"message": f"{len(applied)} applied", "applied": applied}
                if warnings:
                    result["warnings"] = warnings
                return result
            """,
            id="dict display that takes warnings under a new key",
        ),
    )

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        # By name alone only a collection is a warnings list: ``warnings: str | None`` in
        # unittest's stubs is a filter setting, not a list of warnings.
        if not _is_collection(node.annotation):
            if self._holds_one_warning(node):
                self._rewrite(node.annotation, dict_items=False)
            return
        if self.analysis.is_warning_list(node.target):
            self._rewrite(node.annotation, dict_items=self._holds_dicts(node))
        elif isinstance(node.target, cst.Name):  # ``regulars: list[str] = []`` that only
            collected = self.flow.shape(node.target)  # ever collects warnings
            if collected in (Shape.LIST, Shape.DICT_LIST):
                self._rewrite(node.annotation, dict_items=collected is Shape.DICT_LIST)

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self.dict_locals.needs_annotation(node):
            return
        # The edit is on the site's own node: a plan that skips the site drops it.
        self.context.replace(node, annotated_with_any)
        self.context.add_import("typing", "Any")
        self.context.report(
            self,
            node,
            "Dict that takes warnings under a key annotated: dict[str, Any]",
            kind=Kind.ANNOTATION,
            action=Action.REWRITE,
        )

    def _holds_one_warning(self, node: cst.AnnAssign) -> bool:
        """``block: str | None = None`` ... ``warnings.append(block)``: the local's strings
        become ``Warning`` objects where they are assigned, so it holds one. Not where the
        local is also used as text: the append wraps it then, and it stays a string."""
        target = node.target
        function = self.analysis.enclosing_function(node)
        if not isinstance(target, cst.Name) or function is None:
            return False
        appended = self._appended(target.value, function)
        if appended is None:
            return False
        uses = LocalUses(self.analysis.index, self.context.parent, self.analysis.is_warning_list)
        return uses.as_text(appended, function) is None

    def _appended(self, name: str, function: cst.FunctionDef) -> cst.Name | None:
        """The ``name`` in ``warnings.append(name)`` (into a warnings list), if any."""
        for call in self.analysis.index.within(cst.Call, function):
            func = call.func
            if not (
                isinstance(func, cst.Attribute)
                and func.attr.value in APPENDERS
                and len(call.args) > APPENDERS[func.attr.value]
            ):
                continue
            value = call.args[APPENDERS[func.attr.value]].value
            if (
                isinstance(value, cst.Name)
                and value.value == name
                and (
                    self.analysis.is_warning_list(func.value)
                    or self.flow.shape(func.value) is Shape.LIST
                )
            ):
                return value
        return None

    def visit_Param(self, node: cst.Param) -> None:
        if node.annotation is None:
            return
        function = self.analysis.enclosing_function(node)
        shape = self._param_shape(node, function)
        if shape in (Shape.LIST, Shape.DICT_LIST) and _is_collection(node.annotation):
            self._rewrite(node.annotation, dict_items=shape.is_dict)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.returns is None:
            return
        name = node.name.value
        if self._returns_warnings(node):
            # Other modules' calls to this helper now yield warnings too (a gather fact).
            self.notes.returning.add(name)
            self.notes.return_shapes[name] = Shape.LIST
        if name in self.facts.returning or self._returns_warnings(node):
            self._rewrite(node.returns, dict_items=False)
        for index in sorted(self.facts.slots_of(name)):
            self._rewrite(node.returns, dict_items=False, tuple_index=index)
        for index, shape in sorted(self._list_slots(node).items()):
            if index not in self.facts.slots_of(name):
                self._rewrite(node.returns, dict_items=shape.is_dict, tuple_index=index)

    # -- decisions ------------------------------------------------------------------------
    def _param_shape(self, param: cst.Param, function: cst.FunctionDef | None) -> Shape | None:
        if function is None:
            return None
        return self.flow.shape(param.name) if self._is_parameter_of(param, function) else None

    def _is_parameter_of(self, param: cst.Param, function: cst.FunctionDef) -> bool:
        return param in (
            *function.params.posonly_params,
            *function.params.params,
            *function.params.kwonly_params,
        )

    def _holds_dicts(self, node: cst.AnnAssign) -> bool:
        if node.value is None:
            return False
        return self.flow.shape(node.value) is Shape.DICT_LIST

    def _returns_warnings(self, function: cst.FunctionDef) -> bool:
        """``return [w for w in items if ...]`` over a warnings list returns warnings."""
        flow = self.flow
        returns = self.analysis.index.within(cst.Return, function)
        shapes = {flow.shape(r.value) for r in returns if r.value is not None}
        return bool(shapes) and shapes <= {Shape.LIST}

    def _list_slots(self, function: cst.FunctionDef) -> dict[int, Shape]:
        """``return errors, warnings``: the slots that every returned tuple fills with a
        warnings list of one shape, or an empty list (``tuple[list[str], list[str]]`` ->
        ``tuple[list[str], list[Warning]]``)."""
        returns = [
            r.value for r in self.analysis.index.within(cst.Return, function) if r.value is not None
        ]
        if not returns or not all(isinstance(value, cst.Tuple) for value in returns):
            return {}
        shapes: dict[int, set[Shape]] = {}
        filled: dict[int, int] = {}  # how many returns put a list (or ``[]``) in the slot
        for value in returns:
            assert isinstance(value, cst.Tuple)
            for index, element in enumerate(value.elements):
                if isinstance(element, cst.StarredElement):
                    break  # the slots after it are at unknown positions
                shape = self.flow.shape(element.value)
                if shape in (Shape.LIST, Shape.DICT_LIST):
                    shapes.setdefault(index, set()).add(shape)
                elif not _is_empty_list(element.value):
                    continue
                filled[index] = filled.get(index, 0) + 1
        return {
            index: next(iter(found))
            for index, found in shapes.items()
            if len(found) == 1 and filled.get(index) == len(returns)
        }

    @cached_property
    def carriers(self) -> FileCarriers:
        return self.context.shared(FileCarriers)

    @cached_property
    def dict_locals(self) -> DictLocals:
        return DictLocals(self.context, self._takes_objects)

    def _takes_objects(self, value: cst.BaseExpression) -> bool:
        """Will ``value`` be a list of ``Warning`` objects once migrated?"""
        if self.flow.shape(value) is not Shape.LIST:
            return False
        return self.carriers.blocker(self.carriers.of(value)) is None

    # -- the rewrite ----------------------------------------------------------------------
    def _rewrite(
        self, annotation: cst.Annotation, *, dict_items: bool, tuple_index: int | None = None
    ) -> None:
        target: cst.BaseExpression | None = annotation.annotation
        if tuple_index is not None and target is not None:
            target = _tuple_slot(target, tuple_index)
        if target is None:
            return
        names = _str_names(target)
        if not names:
            return
        blocker = self.carriers.blocker(self.carriers.annotated(annotation, tuple_index))
        if blocker is not None:
            # An annotation changes only where the value flowing there is migrated.
            self.context.report(
                self,
                annotation,
                "Annotation left as it is: the warnings it describes stay strings",
                kind=Kind.ANNOTATION,
                action=Action.SKIP,
                reasons=(blocker.reason,),
            )
            return
        skipped = self.context.left_alone_by_plan(annotation)
        if skipped is not None:  # its edits are on the names inside: the plan asks here
            self.context.report(
                self,
                annotation,
                "Annotation left as it is: the plan skips it",
                kind=Kind.ANNOTATION,
                action=Action.SKIP,
                reasons=(skipped,),
            )
            return
        replacement = "dict[str, Any]" if dict_items else self.analysis.warning_class

        def build(_updated: cst.CSTNode) -> cst.CSTNode:
            return cst.parse_expression(replacement)

        for name in names:
            if name not in self.context.edits:
                self.context.replace(name, build)
        if dict_items:
            self.context.add_import("typing", "Any")
        else:
            self._import_warning()
        self.context.report(
            self,
            annotation,
            f"Annotation carries warnings: str -> {replacement}",
            kind=Kind.ANNOTATION,
            action=Action.REWRITE,
        )

    def _import_warning(self) -> None:
        config = self.config
        models_module = module_name(
            config.root / warning_settings(config).models_module, config.root
        )
        if self.context.module_name == models_module:
            return
        alias = self.analysis.warning_class
        self.context.add_import(models_module, "Warning", None if alias == "Warning" else alias)


def _is_empty_list(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.List) and not expr.elements


def _is_collection(annotation: cst.Annotation) -> bool:
    node = annotation.annotation
    if isinstance(node, cst.BinaryOperation):  # ``list[str] | None``
        node = node.left
    return isinstance(node, cst.Subscript)


def _str_names(annotation: cst.BaseExpression) -> list[cst.Name]:
    """The ``str`` names an annotation uses as an element type (not as a dict key)."""
    found: list[cst.Name] = []

    class _Find(cst.CSTVisitor):
        def visit_Subscript(self, node: cst.Subscript) -> bool:
            if isinstance(node.value, cst.Name) and node.value.value in ("dict", "Dict", "Mapping"):
                for element in node.slice[1:]:
                    read(element, self)
                return False
            return True

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == "str":
                found.append(node)

    read(annotation, _Find())
    return found


def _tuple_slot(annotation: cst.BaseExpression, index: int) -> cst.BaseExpression | None:
    node = annotation
    if (
        isinstance(node, cst.Subscript)
        and isinstance(node.value, cst.Name)
        and node.value.value in ("tuple", "Tuple")
    ) and index < len(node.slice):
        element = node.slice[index].slice
        if isinstance(element, cst.Index):
            return element.value
    return None
