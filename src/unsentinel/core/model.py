"""The plain data that flows between the engine, the rules and the output layer.

Everything here is frozen and picklable: results cross process boundaries
(the worker pool) and are rendered long after the CST that produced them is gone.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class Mode(enum.Enum):
    """What a run does with the rewrites it computes (black's ``WriteBack``)."""

    CHECK = "check"  # report sites, write nothing
    DIFF = "diff"  # print the unified diff apply would make
    APPLY = "apply"  # write the changes
    PLAN = "plan"  # list every site with its inferred values

    @property
    def rewrites(self) -> bool:
        return self is not Mode.CHECK


class Confidence(str, enum.Enum):
    HIGH = "high"
    LOW = "low"


class Severity(str, enum.Enum):
    """How much a warning matters to the caller: the values generated code spells out."""

    INFO = "info"  # context only (an auto-selected default, the operating mode)
    ADVISORY = "advisory"  # worth showing; nothing was blocked
    BLOCKING = "blocking"  # the operation did not (or will not) go through

    # Render as the value in str() and f-strings (as ``enum.StrEnum`` does from 3.11), so
    # generated code reads ``severity="blocking"``.
    def __str__(self) -> str:
        return self.value

    def __format__(self, format_spec: str) -> str:
        return format(self.value, format_spec)


class Action(str, enum.Enum):
    """What the rewrite does with a site."""

    REWRITE = "rewrite"  # changed automatically
    REVIEW = "review"  # changed, but an inferred value is low-confidence
    SKIP = "skip"  # left as it is; the reason says why
    REPORT = "report"  # only reported (check-only rules, comments, ...)
    NOTE = "note"  # listed in ``plan`` for review (a look-alike left alone); not a finding

    @property
    def is_finding(self) -> bool:
        """Does ``check`` report it (and fail on it)?"""
        return self is not Action.NOTE


class Kind(str, enum.Enum):
    DETECTOR = "detector"
    PRODUCER = "producer"
    CONSUMER = "consumer"
    ANNOTATION = "annotation"
    CONSTANT = "constant"
    ERROR = "error"


@dataclass(frozen=True)
class Inferred:
    """An inferred value with how sure we are and why."""

    value: str | None
    confidence: Confidence
    reason: str

    @classmethod
    def high(cls, value: str | None, reason: str) -> Inferred:
        return cls(value, Confidence.HIGH, reason)

    @classmethod
    def low(cls, value: str | None, reason: str) -> Inferred:
        return cls(value, Confidence.LOW, reason)


@dataclass(frozen=True)
class Position:
    line: int  # 1-based
    column: int  # 1-based, as editors and ruff show it
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Site:
    """One place a rule found, with what it would do there."""

    rule: str
    kind: Kind
    position: Position
    message: str
    action: Action
    severity: Inferred | None = None
    field_path: Inferred | None = None
    code: Inferred | None = None
    reasons: tuple[str, ...] = ()
    scope: str = ""  # dotted name of the enclosing function or class, if any

    @property
    def inferred(self) -> dict[str, Inferred]:
        values = {"severity": self.severity, "field_path": self.field_path, "code": self.code}
        return {name: value for name, value in values.items() if value is not None}

    @property
    def low_confidence(self) -> dict[str, Inferred]:
        return {n: v for n, v in self.inferred.items() if v.confidence is Confidence.LOW}


class Status(str, enum.Enum):
    """How far a file got through the pipeline."""

    PREFILTERED = "prefiltered"  # nothing any rule cares about; never parsed
    SKIPPED = "skipped"  # deliberately left alone (generated, too large, ...)
    PARSED = "parsed"
    FAILED = "failed"


@dataclass(frozen=True)
class FileResult:
    """Everything a run learned about one file. The runner never raises; errors land here."""

    path: str
    status: Status
    sites: tuple[Site, ...] = ()
    original: str | None = None  # decoded text, kept only when the file changes
    new_source: bytes | None = None  # encoded new contents, only when they differ
    new_text: str | None = None
    error: str | None = None
    skip_reason: str | None = None
    facts: tuple[Any, ...] = ()  # the gather pass's facts, one value per feature
    # A failure the bytes decide (a syntax error, undecodable text, nesting too deep): every
    # run says the same until the file changes, so the check cache may keep it. Other
    # failures (a file that vanished, an internal error) are computed again.
    lasting: bool = False
    # A cached check's record of the analysis behind the result (an
    # :class:`~unsentinel.core.cache_answers.Answered`): its questions and their answers,
    # so the cache keeps the output by what it was told. None elsewhere.
    answered: Any = field(default=None, compare=False, repr=False)

    @property
    def changed(self) -> bool:
        return self.new_source is not None


@dataclass(frozen=True)
class FileTask:
    """One file to process: where it is, how to show it, and its dotted module name."""

    path: Path
    display: str
    module_name: str = ""
