"""Does a parsed file use a warnings list at all? Asked of Python's own ``ast`` (a C parser),
so that files that merely *mention* ``warnings`` never reach LibCST.

The byte prefilter lets through every file whose text contains a warnings-list name:
the standard library alone has a hundred, nearly all ``import warnings`` followed by
``warnings.warn(...)``, or the word in a comment or docstring. This second look is exact
about code: it answers yes for a name, attribute, parameter, keyword or string key that is
named like a warnings list (``warnings``, ``*_warnings``), except the ``warnings`` module
itself where the file imports it and never rebinds the name.
"""

from __future__ import annotations

import ast
from functools import lru_cache

from unsentinel.core.config import Config
from unsentinel.warnings.settings import warning_settings


def uses_warning_list(tree: ast.Module, config: Config) -> bool:
    return _uses(tree, warning_settings(config).warning_list_names)


@lru_cache(maxsize=4)  # the rules that ask share one tree per file
def _uses(tree: ast.Module, names: tuple[str, ...]) -> bool:
    def named(name: str | None) -> bool:
        return bool(name) and (name in names or any(name.endswith(f"_{n}") for n in names))  # type: ignore[union-attr]

    module_aliases = _warnings_module_aliases(tree)
    # A name only ever called is a function (``catch_warnings()``), as the byte pattern says.
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        if id(node) in called:
            continue
        if isinstance(node, ast.Name) and named(node.id):
            if node.id not in module_aliases or not isinstance(node.ctx, ast.Load):
                return True
        elif isinstance(node, ast.Attribute) and named(node.attr):
            if not _is_module(node.value, module_aliases):  # warnings.catch_warnings
                return True
        elif isinstance(node, (ast.arg, ast.keyword)) and named(node.arg):
            return True
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and named(node.value):
            return True  # d["warnings"], {"warnings": [...]}, .get("warnings")
    return False


WARNINGS_MODULES = frozenset({"warnings", "_warnings"})


def _warnings_module_aliases(tree: ast.Module) -> set[str]:
    """Names bound to the standard library's ``warnings`` module (or its C half) by an import."""
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases |= {a.asname or a.name for a in node.names if a.name in WARNINGS_MODULES}
    return aliases


def _is_module(node: ast.expr, aliases: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in aliases
