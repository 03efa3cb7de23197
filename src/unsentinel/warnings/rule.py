"""What every warning rule shares: the file's analysis, its flow, the facts, the prefilter."""

from __future__ import annotations

import ast
import re
from functools import cached_property

from unsentinel.core.config import Config
from unsentinel.core.rule import Rule
from unsentinel.warnings.analysis import FileAnalysis
from unsentinel.warnings.candidates import uses_warning_list
from unsentinel.warnings.facts import WarningFacts, WarningNotes
from unsentinel.warnings.flow import WarningFlow
from unsentinel.warnings.settings import warning_settings

_WARNINGS_MODULE_API = (
    b"warn|warn_explicit|simplefilter|filterwarnings|catch_warnings|resetwarnings"
    b"|showwarning|formatwarning|filters|WarningMessage"
)


def warning_list_patterns(config: Config) -> tuple[bytes, ...]:
    """Uses of a warnings-list name that can be a list: not ``import warnings``, not
    ``warnings.warn(...)``, not a call such as ``catch_warnings()``; ``location_warnings``
    and ``self.warnings`` still count."""
    return tuple(
        rb"(?<!import )(?<!from )(?<![A-Za-z0-9])"
        + re.escape(name.encode())
        + rb"(?![A-Za-z0-9_(])(?!\.(?:_|"
        + _WARNINGS_MODULE_API
        + rb")\b)(?! import)"
        for name in warning_settings(config).warning_list_names
    )


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

    @classmethod
    def needles(cls, config: Config) -> tuple[bytes, ...]:
        return tuple(n.encode() for n in warning_settings(config).warning_list_names)

    @classmethod
    def patterns(cls, config: Config) -> tuple[bytes, ...]:
        return warning_list_patterns(config)

    @classmethod
    def refine(cls, data: bytes, tree: ast.Module, config: Config) -> bool:
        return uses_warning_list(data, tree, config)
