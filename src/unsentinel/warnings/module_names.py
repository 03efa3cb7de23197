"""Names bound to the standard library's ``warnings`` module: never a warnings list.

A warnings list is recognised by its name (``warnings``, ``*_warnings``), and so is the
module a file imports to call ``warnings.warn``. A file that does both used to read the
module as a list: ``hasattr(warnings, "filters")`` made ``hasattr``'s parameter a place
for warnings, and ``c_warnings = import_fresh_module("warnings")`` made that helper one
that returns warnings, so every module it imported elsewhere joined the group.

A name is the module where the file binds it to the module (``import warnings``,
``import warnings as w``, ``c_warnings = import_module("warnings")``) and binds it to
nothing else anywhere: a local list of the same name shadows the module in its function,
and telling scopes apart is not worth a guess -- the name stays a list name there, as
before. The prefilter's second look (:mod:`~unsentinel.warnings.candidates`) applies the
same rule on Python's ``ast``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

import libcst as cst

from unsentinel.core.syntax import string_value
from unsentinel.warnings.candidates import WARNINGS_MODULES


def warnings_module_names(
    by_type: Mapping[type[cst.CSTNode], Sequence[cst.CSTNode]],
) -> frozenset[str]:
    """Names the file binds to the warnings module only (``by_type``: the file's nodes by type)."""
    module = set(_imported(by_type.get(cst.Import, ()))) | set(_loaded(by_type.get(cst.Assign, ())))
    if not module:
        return frozenset()
    return frozenset(module - set(_other_bindings(by_type)))


def _imported(imports: Iterable[cst.CSTNode]) -> Iterator[str]:
    for node in imports:
        assert isinstance(node, cst.Import)
        for alias in node.names:
            if _dotted(alias.name) in WARNINGS_MODULES:
                yield _bound_name(alias) or _dotted(alias.name)


def _loaded(assigns: Iterable[cst.CSTNode]) -> Iterator[str]:
    """``c_warnings = import_fresh_module("warnings", ...)``: a call whose first argument is
    the module's name, bound to a plain name."""
    for node in assigns:
        assert isinstance(node, cst.Assign)
        name = _loaded_name(node)
        if name is not None:
            yield name


def _loaded_name(node: cst.Assign) -> str | None:
    """The plain name ``node`` binds to a call naming the module, if it is such a load."""
    target = node.targets[0].target if len(node.targets) == 1 else None
    if isinstance(target, cst.Name) and _names_the_module(node.value):
        return target.value
    return None


def _names_the_module(value: cst.BaseExpression) -> bool:
    if not isinstance(value, cst.Call) or not value.args or value.args[0].keyword is not None:
        return False
    first = value.args[0].value
    return isinstance(first, cst.SimpleString) and string_value(first) in WARNINGS_MODULES


def _other_bindings(by_type: Mapping[type[cst.CSTNode], Sequence[cst.CSTNode]]) -> Iterator[str]:
    """Every name bound some other way: assigned, a parameter, a loop or ``with`` target,
    imported from a module, defined."""
    for node in by_type.get(cst.Assign, ()):
        assert isinstance(node, cst.Assign)
        if _loaded_name(node) is not None:
            continue  # the module's own binding
        for target in node.targets:
            yield from target_names(target.target)
    targets: tuple[type[cst.CSTNode], ...] = (cst.AnnAssign, cst.AugAssign, cst.For)
    targets += (cst.CompFor, cst.NamedExpr)
    for kind in targets:
        for node in by_type.get(kind, ()):
            yield from target_names(node.target)  # type: ignore[attr-defined]
    defined: tuple[type[cst.CSTNode], ...] = (cst.Param, cst.FunctionDef, cst.ClassDef)
    for kind in defined:
        for node in by_type.get(kind, ()):
            yield node.name.value  # type: ignore[attr-defined]
    for node in by_type.get(cst.WithItem, ()):
        assert isinstance(node, cst.WithItem)
        if node.asname is not None:
            yield from target_names(node.asname.name)
    handlers: tuple[type[cst.CSTNode], ...] = (cst.ExceptHandler, cst.ExceptStarHandler)
    for kind in handlers:
        for node in by_type.get(kind, ()):
            name = node.name  # type: ignore[attr-defined]
            if name is not None and isinstance(name.name, cst.Name):
                yield name.name.value
    for node in by_type.get(cst.ImportFrom, ()):
        assert isinstance(node, cst.ImportFrom)
        if not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                yield _bound_name(alias) or _dotted(alias.name)


def target_names(target: cst.BaseExpression) -> Iterator[str]:
    """The names an assignment target binds (``a``, ``a, b``, ``[a, *rest]``)."""
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from target_names(target.value)


def _bound_name(alias: cst.ImportAlias) -> str | None:
    asname = alias.asname
    return asname.name.value if asname is not None and isinstance(asname.name, cst.Name) else None


def _dotted(name: cst.BaseExpression) -> str:
    if isinstance(name, cst.Attribute):
        return f"{_dotted(name.value)}.{name.attr.value}"
    return name.value if isinstance(name, cst.Name) else ""
