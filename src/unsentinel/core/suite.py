"""What the core runs, handed in from outside: the rules, the facts, the emitters.

The core knows no feature. :mod:`unsentinel.registry` builds a :class:`Suite` from the
``warnings`` and ``errors`` features and passes it to the engine and the runner, so the
dependency points one way: features -> core, never back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from unsentinel.core.config import Config, Section
    from unsentinel.core.facts import FactBook
    from unsentinel.core.model import FileResult
    from unsentinel.core.rule import Rule

Emitter = Callable[["Sequence[FileResult]", "FactBook", "Config"], "list[FileResult]"]
"""Generated modules (new or updated) for a run's results, as file results to write."""


@dataclass(frozen=True)
class Suite:
    rules: tuple[type[Rule], ...] = ()
    facts: tuple[type[Any], ...] = ()  # each a :class:`~unsentinel.core.facts.Facts` class
    emitters: tuple[Emitter, ...] = ()
    sections: tuple[Section, ...] = ()  # each feature's settings, and the modules it generates
