"""Can a file import the modules a migration generates inside the project's package?

A rewrite imports what it generates (``from shop import error_codes``). That import only
resolves where the package can be imported: in the package itself, in its tests, and in
code that already imports from it. A file beside the package that imports nothing from it
is self-contained -- a handler deployed from its own directory, a script run as ``python
examples/x.py`` -- and the rewrite would give it a dependency it does not have where it
runs (``ModuleNotFoundError`` there, while the project's own tests still pass).

Read statically from the file's path and its import statements; nothing is imported.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.rule import RuleContext
from unsentinel.core.syntax import dotted


def outside_package(context: RuleContext, module: str) -> str | None:
    """Why the file of ``context`` may be unable to import ``module`` (a dotted module the
    rewrite would import): it lies outside the package that holds ``module``, below the
    project's import root, is no test, and imports nothing from that package. None when
    it can, when ``module`` is a top-level module (no package to reach), when the file is
    a top-level module itself (beside the package, where Python finds it from the file's
    own directory), or when the file's place is not known (a source rewritten on its own)."""
    package = module.rpartition(".")[0]
    if not package or "." not in context.module_name or context.is_test_file:
        return None
    if _within(context.module_name, package):
        return None
    if any(_within(name, package) for name in context.shared(_ImportedModules).names):
        return None
    return (
        f"this file is outside the package {package} and imports nothing from it (code "
        f"that runs on its own): the rewrite would make it import {module}, which may not "
        "be importable where it runs; migrate it by hand"
    )


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


class _ImportedModules:
    """The modules a file imports by absolute name, anywhere in it (``import a.b``,
    ``from a.b import c`` give ``a.b`` and ``a.b.c``); relative imports are left out."""

    def __init__(self, context: RuleContext) -> None:
        collector = _Collector()
        context.module.visit(collector)
        self.names = frozenset(collector.names)


class _Collector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            self.names.add(dotted(alias.name) or "")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            return
        base = dotted(node.module) or ""
        self.names.add(base)
        if not isinstance(node.names, cst.ImportStar):
            self.names.update(f"{base}.{dotted(alias.name)}" for alias in node.names)
