"""The gather pass's bookkeeping: facts per file, merged into the repository's view.

What a fact *is* belongs to the features (see :mod:`unsentinel.core.facts`); this module
only asks each feature's :class:`~unsentinel.core.facts.Facts` class for its part and
folds the parts together.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from unsentinel.core.facts import FactBook

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
    """Fold every file's facts into one value per feature, then let each feature settle."""
    merged: dict[type[Any], Any] = {kind: kind() for kind in suite.facts}
    for values in per_file:
        for value in values:
            kind = type(value)
            merged[kind] = merged[kind].merge(value) if kind in merged else value
    return FactBook({kind: value.settle(config) for kind, value in merged.items()}, gathered=True)


def merge_results(suite: Suite, config: Config, results: Iterable[FileResult]) -> FactBook:
    return merge_facts(suite, config, (r.facts for r in results if r.facts))


def changed_functions(old: FactBook, new: FactBook) -> set[str]:
    """Functions whose facts changed between two gather rounds, over all features."""
    names: set[str] = set()
    for kind, value in new.entries.items():
        names |= value.changed_functions(old.get(kind))
    return names
