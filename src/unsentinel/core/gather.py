"""The gather pass's bookkeeping: facts per file, merged into the repository's view.

What a fact *is* belongs to the features (see :mod:`unsentinel.core.facts`); this module
only asks each feature's :class:`~unsentinel.core.facts.Facts` class for its part and
folds the parts together.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from unsentinel.core.facts import FactBook
from unsentinel.core.pywalk import walk

if TYPE_CHECKING:
    from unsentinel.core.config import Config
    from unsentinel.core.model import FileResult
    from unsentinel.core.rule import RuleContext
    from unsentinel.core.suite import Suite


def facts_of_source(suite: Suite, data: bytes) -> tuple[Any, ...]:
    """What each feature reads from a file's bytes alone (parsed or not)."""
    found = (kind.from_source(data) for kind in suite.facts)
    return tuple(value for value in found if value is not None)


def facts_of_context(
    suite: Suite, context: RuleContext, source_facts: tuple[Any, ...] = ()
) -> tuple[Any, ...]:
    """Everything one parsed file contributes: its source facts and what the rules recorded."""
    by_kind = {type(value): value for value in source_facts}
    result = []
    for kind in suite.facts:
        value = kind.from_context(context)
        earlier = by_kind.get(kind)
        result.append(value if earlier is None else earlier.merge(value))
    return tuple(result)


def merge_facts(suite: Suite, config: Config, per_file: Iterable[tuple[Any, ...]]) -> FactBook:
    """Fold every file's facts (and the suite's seed, read from its data files) into one
    value per feature, then let each feature settle."""
    parts: dict[type[Any], list[Any]] = {kind: [kind()] for kind in suite.facts}
    for values in (suite.seed, *per_file):
        for value in values:
            parts.setdefault(type(value), []).append(value)
    merged = {kind: _merge_all(values) for kind, values in parts.items()}
    return FactBook({kind: value.settle(config) for kind, value in merged.items()}, gathered=True)


def _merge_all(values: list[Any]) -> Any:
    """Merge in pairs, round by round: a value that grows with every file (the names a
    repository defines) is copied log(n) times, not once per file as a left fold does.
    ``merge`` is associative, so the order of pairs does not matter."""
    while len(values) > 1:
        paired = [a.merge(b) for a, b in zip(values[::2], values[1::2], strict=False)]
        values = paired + values[len(paired) * 2 :]
    return values[0]


def merge_results(suite: Suite, config: Config, results: Iterable[FileResult]) -> FactBook:
    return merge_facts(suite, config, (r.facts for r in results if r.facts))


def module_token(module_name: str) -> str:
    """How changed facts name the state inside one module's functions (a local variable's
    group became blocked): no code spells it, and only that module asks about it, so a
    later round re-reads that file alone instead of every file spelling the function's name
    (``__init__``, ``check``, ``main``)."""
    return f"<locals of {module_name}>"


def spelled_names(data: bytes, tree: ast.Module | None = None) -> frozenset[str]:
    """Every name a module's code spells, and the value of every string literal in it.

    A later gather round re-analyses a file only if it spells a name whose facts changed:
    the rules look facts up by names read off the code (a callee's last name, a parameter,
    an attribute, a variable) or by a string key (``d["warnings"]``), so a file that spells
    none of them asks the same questions and gets the same answers. Comments, docstrings
    and sentences in strings are not names, unlike in a test of the raw bytes (``run`` in
    "rerun", ``get`` in a comment). A file Python cannot parse gives every word in it, and
    so does a file with non-ASCII bytes too (``ast`` normalises identifiers, LibCST does not).
    ``tree``: the file already parsed by ``ast`` (the prefilter's parse), not parsed again.
    """
    words = _words(data) if not data.isascii() else frozenset()
    if tree is None:
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return _words(data)
    found: set[str] = set(words)
    for node in walk(tree):
        if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, bool)):
            found.add(repr(node.value))  # LibCST reads ``None``, ``True``, ``False`` as names
        for _field, value in ast.iter_fields(node):
            for item in value if isinstance(value, list) else (value,):
                if isinstance(item, str):
                    found.add(item)
                    found.update(item.split("."))  # ``import a.b``, ``from a.b import c``
    return frozenset(found)


def _words(data: bytes) -> frozenset[str]:
    return frozenset(_WORD.findall(data.decode("utf-8", "replace")))


_WORD = re.compile(r"\w+")


def changed_functions(old: FactBook, new: FactBook) -> set[str]:
    """Functions whose facts changed between two gather rounds, over all features, and
    those the prefilter now admits otherwise (:func:`admission_changed`)."""
    names = admission_changed(old, new)
    for kind, value in new.entries.items():
        names |= value.changed_functions(old.get(kind))
    return names


def admission_changed(old: FactBook, new: FactBook) -> set[str]:
    """Functions that joined or left the prefilter's names, or its module-level ones.

    A later round re-reads only files that spell a changed function, so one the prefilter
    admits anew must be among them. A feature's own comparison may miss it: an
    ``ErrorFacts`` name enters ``function_names`` when a test starts asserting on it, is
    doubled or is held through a link, with nothing its ``changed_functions`` compares
    changed (the function was held already).
    """
    names = set(old.function_names() ^ new.function_names())
    return names | (old.module_function_names() ^ new.module_function_names())
