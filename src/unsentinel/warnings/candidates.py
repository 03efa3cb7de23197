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
from bisect import bisect_left
from functools import lru_cache

from unsentinel.core.config import Config
from unsentinel.warnings.settings import warning_settings


def uses_warning_list(data: bytes, tree: ast.Module, config: Config) -> bool:
    return _uses(data, tree, warning_settings(config).warning_list_names)


@lru_cache(maxsize=4)  # the rules that ask share one tree per file
def _uses(data: bytes, tree: ast.Module, names: tuple[str, ...]) -> bool:
    def named(name: str | None) -> bool:
        return bool(name) and (name in names or any(name.endswith(f"_{n}") for n in names))  # type: ignore[union-attr]

    nodes = _nodes_on_lines(tree, _lines_mentioning(data, names))
    module_aliases, loading = _warnings_module_aliases(nodes)
    # A name only ever called is a function (``catch_warnings()``), as the byte pattern says.
    called = {id(node.func) for node in nodes if isinstance(node, ast.Call)}
    for node in nodes:
        if id(node) in called or id(node) in loading:
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
"""The module and its C half, as an import or an ``import_module("...")`` names them."""


def _warnings_module_aliases(nodes: list[ast.AST]) -> tuple[set[str], set[int]]:
    """Names bound to the standard library's ``warnings`` module (or its C half) by an
    import or a load (``c_warnings = import_fresh_module("warnings")``), and the nodes of
    those loads (no use of a list), as ``module_names`` reads them."""
    aliases: set[str] = set()
    loading: set[int] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            aliases |= {a.asname or a.name for a in node.names if a.name in WARNINGS_MODULES}
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, first = node.targets[0], _first_argument(node.value)
            if isinstance(target, ast.Name) and first is not None:
                aliases.add(target.id)  # its arguments name modules (``fresh=["_warnings"]``)
                loading |= {id(target), *(id(n) for n in ast.walk(node.value))}
    return aliases, loading


def _first_argument(value: ast.expr) -> ast.Constant | None:
    """The module's name as the first argument of a call, if that is what ``value`` is."""
    if not isinstance(value, ast.Call) or not value.args:
        return None
    first = value.args[0]
    if isinstance(first, ast.Constant) and first.value in WARNINGS_MODULES:
        return first
    return None


def _is_module(node: ast.expr, aliases: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in aliases


# -- a walk of only the lines that matter ---------------------------------------------------
#
# ``ast.walk`` over a whole module costs about 2.5 µs a node in Python; a module that
# mentions ``warnings`` twice is mostly other code. Every node this module asks about
# contains a list name in its own text, so a subtree whose lines hold none is skipped.


def _lines_mentioning(data: bytes, names: tuple[str, ...]) -> list[int] | None:
    """The sorted 1-based line numbers on which any name occurs; None: lines are not
    countable by ``\\n`` alone (a lone carriage return ends a line for Python too)."""
    if b"\r" in data.replace(b"\r\n", b""):
        return None
    lines: set[int] = set()
    for name in names:
        needle = name.encode()
        line, counted, at = 1, 0, data.find(needle)
        while at != -1:
            line += data.count(b"\n", counted, at)
            counted = at
            lines.add(line)
            at = data.find(needle, at + 1)
    return sorted(lines)


def _nodes_on_lines(tree: ast.Module, lines: list[int] | None) -> list[ast.AST]:
    """Every node whose line span holds one of ``lines`` (all nodes when None), parents
    before children."""
    if lines is None:
        return list(ast.walk(tree))
    found: list[ast.AST] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        found.append(node)
        # Positions inside an f-string are unreliable before 3.12: look at all of it.
        whole = isinstance(node, ast.JoinedStr)
        todo.extend(
            child for child in ast.iter_child_nodes(node) if whole or _spans_one_of(child, lines)
        )
    return found


def _spans_one_of(node: ast.AST, lines: list[int]) -> bool:
    start = getattr(node, "lineno", None)
    if start is None:  # arguments, comprehensions, operators: no position of their own
        return True
    end = getattr(node, "end_lineno", None) or start
    at = bisect_left(lines, start)
    return at < len(lines) and lines[at] <= end
