"""The error-dict feature's cross-file facts (see :mod:`unsentinel.core.facts`).

One fact crosses files: which functions return an error dict that UNS501 migrates, so
that readers of their results elsewhere switch to the new shape together with them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from unsentinel.core.config import Config
    from unsentinel.core.rule import RuleContext


@dataclass
class ErrorNotes:
    """What UNS501 saw in one file (mutable, one per file)."""

    context: RuleContext
    error_functions: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class ErrorFacts:
    error_functions: frozenset[str] = frozenset()  # functions returning a migrated error dict

    @classmethod
    def from_source(cls, data: bytes) -> ErrorFacts | None:
        return None

    @classmethod
    def from_context(cls, context: RuleContext) -> ErrorFacts:
        return cls(frozenset(context.shared(ErrorNotes).error_functions))

    def merge(self, other: ErrorFacts) -> ErrorFacts:
        return ErrorFacts(self.error_functions | other.error_functions)

    def settle(self, config: Config) -> ErrorFacts:
        return self

    def changed_functions(self, previous: ErrorFacts) -> set[str]:
        return set()  # callers learn nothing new from another round
