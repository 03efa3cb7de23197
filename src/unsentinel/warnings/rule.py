"""What every warning rule shares: the file's analysis, its flow, the facts, the prefilter."""

from __future__ import annotations

from functools import cached_property

from unsentinel.core.rule import Rule
from unsentinel.warnings.analysis import FileAnalysis
from unsentinel.warnings.facts import WarningFacts, WarningNotes
from unsentinel.warnings.flow import WarningFlow


class WarningRule(Rule):
    """A rule of the warnings feature, with the per-file state its rules share."""

    @cached_property
    def analysis(self) -> FileAnalysis:
        return self.context.shared(FileAnalysis)

    @cached_property
    def flow(self) -> WarningFlow:
        return self.context.shared(WarningFlow)

    @cached_property
    def facts(self) -> WarningFacts:
        """What the gather pass learned about the whole repository."""
        return self.context.facts.get(WarningFacts)

    @cached_property
    def notes(self) -> WarningNotes:
        """Where this file's facts for the gather pass are recorded."""
        return self.context.shared(WarningNotes)


class WarningListRule(WarningRule):
    """A rule that needs a warnings list in the file (consumers, annotations)."""
