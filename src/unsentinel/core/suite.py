"""What the core runs, handed in from outside: the rules, the facts, the emitters.

The core knows no feature. :mod:`unsentinel.registry` builds a :class:`Suite` from the
``warnings`` and ``errors`` features and passes it to the engine and the runner, so the
dependency points one way: features -> core, never back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from unsentinel.core.config import Config, Section
    from unsentinel.core.facts import FactBook
    from unsentinel.core.model import FileResult
    from unsentinel.core.prefilter import Detects
    from unsentinel.core.rule import Rule

Emitter = Callable[["Sequence[FileResult]", "FactBook", "Config"], "list[FileResult]"]
"""Generated modules (new or updated) for a run's results, as file results to write."""


@dataclass(frozen=True)
class Suite:
    """``rules`` are what the prefilter reads (each a LibCST-free
    :class:`~unsentinel.core.prefilter.Detector`, or a rule class); ``rule_classes`` imports
    the rule modules, on first use: a run whose files all stop at the prefilter never does."""

    rules: tuple[Detects, ...] = ()
    facts: tuple[type[Any], ...] = ()  # each a :class:`~unsentinel.core.facts.Facts` class
    emitters: tuple[Emitter, ...] = ()
    sections: tuple[Section, ...] = ()  # each feature's settings, and the modules it generates
    # The run's test-data files (core/data_files.py), and the facts the features read from
    # them (:meth:`~unsentinel.core.facts.Facts.from_data`): merged with every round's.
    data_files: tuple[Path, ...] = ()
    seed: tuple[Any, ...] = ()

    @cached_property
    def rule_classes(self) -> tuple[type[Rule], ...]:
        """The rules' classes, in order, for a file that reaches LibCST."""
        return tuple(rule.load() for rule in self.rules)
