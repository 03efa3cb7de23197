"""Per-file facts the warning rules share: what is a warnings list, which function a node
is in and what that function holds, which names the module defines.

Computed lazily once per file (``context.shared(FileAnalysis)``) and read by every rule.
The questions by concern live beside it: a function's parameters, loops and assignments
(:mod:`~unsentinel.warnings.function_facts`), which input field an expression denotes
(:mod:`~unsentinel.warnings.input_paths`) and which condition guards a statement
(:mod:`~unsentinel.warnings.guards`); :class:`FileAnalysis` is the one door to them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from unsentinel.core.syntax import NodeIndex, annotation_name, last_name, string_value
from unsentinel.warnings.caller_names import CallerNames
from unsentinel.warnings.function_facts import FunctionFacts, collect_body, gathered_pairs
from unsentinel.warnings.guards import guarding_condition, wording_tests
from unsentinel.warnings.input_leaves import InputLeaves
from unsentinel.warnings.input_paths import InputPaths
from unsentinel.warnings.module_names import target_names, warnings_module_names
from unsentinel.warnings.settings import warning_settings

if TYPE_CHECKING:
    from unsentinel.core.rule import RuleContext

__all__ = ["FileAnalysis", "FunctionFacts", "gathered_pairs"]
"""``FunctionFacts`` and ``gathered_pairs`` stay importable from here, as before the split."""


CONSTRUCTORS = frozenset({"__init__", "__new__"})


# ``errors_warnings = config.validate()``, ``errors_and_warnings``: a name for the pair of
# lists a validator returns, not for a warnings list.
_PAIRED_WITH = frozenset({"errors", "errs", "failures", "and"})


class FileAnalysis:
    """One file's shared analysis: built once per file, read by every warning rule."""

    def __init__(self, context: RuleContext) -> None:
        self.context = context
        self.config = context.config
        self._functions: dict[cst.FunctionDef, FunctionFacts] = {}
        self._building: set[cst.FunctionDef] = set()
        self._declared: dict[cst.FunctionDef, FunctionFacts] = {}
        self.index = context.shared(NodeIndex)
        self.paths = InputPaths(context, self.index)
        self.leaves = InputLeaves(context, self.index, self.paths)
        self.caller_names = CallerNames(self)

    # -- warnings lists ---------------------------------------------------------------
    def is_warning_list_name(self, name: str | None) -> bool:
        if not name:
            return False
        names = warning_settings(self.config).warning_list_names
        if name in names:
            return True
        for list_name in names:
            head = name.removesuffix(f"_{list_name}")
            if head != name and head.rpartition("_")[2] not in _PAIRED_WITH:
                return True
        return False

    def is_warning_list(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name) and self.names_module(expr.value):
            return False
        return self.is_warning_list_name(last_name(expr))

    def names_module(self, name: str) -> bool:
        """Is ``name`` the ``warnings`` module here (``import warnings``), never a list?"""
        return name in self._module_names

    @cached_property
    def loop_targets(self) -> frozenset[str]:
        """Every name a ``for`` loop or a comprehension binds in this file: a name that is
        none of them is no loop variable, and needs no walk up its ancestors to say so."""
        names: set[str] = set()
        for kind in (cst.For, cst.CompFor):
            for node in self.index.by_type.get(kind, []):
                target = node.target  # type: ignore[attr-defined]
                names.update(target_names(target))
        return frozenset(names)

    @cached_property
    def _module_names(self) -> frozenset[str]:
        return warnings_module_names(self.index.by_type)

    # -- functions and inputs ---------------------------------------------------------
    def enclosing_function(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        return self.index.owner_of(node)

    def callable_name(self, function: cst.FunctionDef) -> str:
        """The name callers call ``function`` by, which its parameters' facts are keyed by:
        a class's ``__init__`` is called as the class (``Report(warnings=w)``). Keyed by
        ``__init__``, every constructor of the repository shared one set of parameters, and
        a module passed to one (``Frame(module)``) held every other's warnings."""
        name = function.name.value
        owner = self._owning_class(function)
        return owner.name.value if owner is not None and name in CONSTRUCTORS else name

    def positional_params(self, function: cst.FunctionDef) -> list[cst.Param]:
        """The parameters a call fills by position, in order: a method's callers pass no
        ``self`` or ``cls`` (``printer.render(w)`` fills ``render(self, items)``'s second,
        ``Report(w)`` the second of ``__init__(self, notes)``); a static method's do."""
        params = [*function.params.posonly_params, *function.params.params]
        if params and self._owning_class(function) is not None and not _is_static(function):
            return params[1:]
        return params

    def is_method(self, function: cst.FunctionDef) -> bool:
        """Called through ``self.`` or ``cls.`` (a constructor is called as its class)."""
        return self._owning_class(function) is not None and function.name.value not in CONSTRUCTORS

    def _owning_class(self, function: cst.FunctionDef) -> cst.ClassDef | None:
        """The class whose body defines ``function`` directly (None: not a method)."""
        block = self.context.parent(function)
        owner = self.context.parent(block) if block is not None else None
        return owner if isinstance(owner, cst.ClassDef) else None

    def function(self, node: cst.FunctionDef) -> FunctionFacts:
        if node not in self._functions:
            if node in self._building:  # a cycle of calls: facts without the callers' view
                return self._function_facts(node, callers=False)
            self._building.add(node)
            try:
                self._functions[node] = self._function_facts(node)
            finally:
                self._building.discard(node)
        return self._functions[node]

    def declared_function(self, node: cst.FunctionDef) -> FunctionFacts:
        """``node``'s facts with every parameter as its name and type say, state or not."""
        if node not in self._declared:
            self._declared[node] = self._function_facts(node, callers=False)
        return self._declared[node]

    def _function_facts(self, node: cst.FunctionDef, *, callers: bool = True) -> FunctionFacts:
        facts = FunctionFacts(node)
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            facts.params[param.name.value] = param
            kind = self.paths.param_kind(param)
            if kind == "container" and self.paths.iterated_list(param, node):
                facts.inputs.add(param.name.value)  # ``for value in data:``: a list
            elif kind == "container":
                facts.containers.add(param.name.value)
            elif kind == "input":
                facts.inputs.add(param.name.value)
        if callers and (facts.inputs or facts.containers):
            # What every caller fills with a service's answer is state, not input.
            facts.stated = set(self.caller_names.state_params(node))
            facts.inputs -= facts.stated
            facts.containers -= facts.stated
        if len(facts.inputs) == 1 and not facts.containers:
            # ``validate(metadata)`` reading ``metadata.get("requires_dist")``: the one input
            # is a mapping of fields, as a request is. Beside other inputs its name says
            # which mapping (``filter_action.forward``), and stays.
            (only,) = facts.inputs
            if self.paths.read_by_key(only, node):
                facts.inputs.discard(only)
                facts.containers.add(only)
        collect_body(facts, self.index, self.context, self.paths.loop_container)
        return facts

    # -- what the parts of a function denote (input_paths.py, input_leaves.py, guards.py) -
    def input_path(
        self, expr: cst.BaseExpression, facts: FunctionFacts, site: cst.CSTNode
    ) -> tuple[str | None, bool]:
        """The field path ``expr`` denotes, and whether it lost a loop index it needed."""
        path, lost = self.paths.input_path(expr, facts, site)
        return (None if path is None else self.caller_names.rename(path, facts)), lost

    def input_references(
        self, expr: cst.CSTNode, facts: FunctionFacts, site: cst.CSTNode, *, whole: bool = False
    ) -> tuple[list[str], bool]:
        """Every input path referenced inside ``expr`` (outermost chains only), in order
        (``whole``: none reached through one element of what a call made from an input)."""
        paths, lost = self.paths.input_references(expr, facts, site, whole=whole)
        return [self.caller_names.rename(path, facts) for path in paths], lost

    def known_leaves(self, facts: FunctionFacts, site: cst.CSTNode) -> dict[str, str]:
        """Names a message may mention literally, mapped to the field path they denote."""
        leaves = self.leaves.known_leaves(facts, site)
        return {leaf: self.caller_names.rename(path, facts) for leaf, path in leaves.items()}

    def guarding_condition(self, node: cst.CSTNode) -> cst.BaseExpression | None:
        """The test of the nearest ``if`` (in the same function) that ``node`` depends on."""
        return guarding_condition(self.context, node)

    def fault_condition(self, node: cst.CSTNode) -> cst.BaseExpression | None:
        """The nearest test that decides *whether* ``node``'s warning is made: an
        ``if``/``else`` that appends either way only picks the wording (``guards.py``)."""
        return guarding_condition(self.context, node, skip_wording=True)

    def wording_tests(self, node: cst.CSTNode) -> list[cst.BaseExpression]:
        """The tests that only pick how ``node``'s warning reads (``guards.py``)."""
        return wording_tests(self.context, node)

    def single_assignment(self, name: str, facts: FunctionFacts) -> cst.BaseExpression | None:
        return facts.single_assignment(name)

    def tuple_assignments(
        self, function: cst.FunctionDef
    ) -> list[tuple[cst.Tuple, cst.BaseExpression]]:
        """``a, b = value`` statements of a function (``await`` unwrapped)."""
        facts = self.function(function)
        return facts.tuple_assignments

    @cached_property
    def warning_class(self) -> str:
        return "StructuredWarning" if self.uses_builtin_warning else "Warning"

    def str_parameters(self, function_name: str) -> dict[str | int, str]:
        """Parameters annotated ``str`` of a function defined in this module, by index and name."""
        found: dict[str | int, str] = {}
        for node in self._module_functions().get(function_name, []):
            params = [*node.params.posonly_params, *node.params.params]
            for index, param in enumerate(params):
                if annotation_name(param.annotation) == "str":
                    found[index] = found[param.name.value] = param.name.value
            for param in node.params.kwonly_params:
                if annotation_name(param.annotation) == "str":
                    found[param.name.value] = param.name.value
        return found

    def _module_functions(self) -> dict[str, list[cst.FunctionDef]]:
        return self._functions_by_name

    @cached_property
    def function_names(self) -> frozenset[str]:
        """The names this module defines functions (and methods) by."""
        return frozenset(self._functions_by_name)

    @cached_property
    def _functions_by_name(self) -> dict[str, list[cst.FunctionDef]]:
        table: dict[str, list[cst.FunctionDef]] = {}
        for node in self.index.by_type.get(cst.FunctionDef, []):
            assert isinstance(node, cst.FunctionDef)
            table.setdefault(node.name.value, []).append(node)
        return table

    @cached_property
    def lines(self) -> list[str]:
        return self.context.lines

    @cached_property
    def uses_builtin_warning(self) -> bool:
        """Does the module name the builtin ``Warning`` (``except Warning``, ``warn(m, Warning)``)?

        True when ``Warning`` appears and nothing imports that name.
        """
        return bool(re.search(r"\bWarning\b", self.context.text)) and not any(
            alias == "Warning" for alias in self._imported_names()
        )

    def _imported_names(self) -> Iterator[str]:
        for statement in self.context.module.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.ImportFrom) and not isinstance(
                        small.names, cst.ImportStar
                    ):
                        for alias in small.names:
                            yield alias.evaluated_alias or alias.evaluated_name

    @cached_property
    def module_string_constants(self) -> dict[str, str]:
        """Module-level ``NAME = "text"`` constants of this file."""
        constants: dict[str, str] = {}
        for statement in self.context.module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and isinstance(small.value, cst.SimpleString)
                ):
                    value = string_value(small.value)
                    if isinstance(value, str):
                        constants[small.targets[0].target.value] = value
        return constants


def _is_static(function: cst.FunctionDef) -> bool:
    return any(last_name(d.decorator) == "staticmethod" for d in function.decorators)
