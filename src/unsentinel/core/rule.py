"""What every rule is made of: the :class:`Rule` base, its examples, and the per-file context.

A rule is a read-only LibCST visitor. It never mutates the tree: it *reports* sites and
*schedules* edits on the context (ruff's "fix" model). The engine applies every edit of
every rule in one transform, keyed by the original node, so positions in reports always
refer to the file as it was on disk, and nested edits compose.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Protocol, TypeVar

import libcst as cst
from libcst.metadata import (
    CodeRange,
)

from unsentinel.core.config import Config
from unsentinel.core.decisions import (
    FROM_THE_PLAN,
    Decisions,
    apply_plan,
    fingerprint,
    site_source,
    skip_reason,
)
from unsentinel.core.decisions import mark_review as mark_review_lines
from unsentinel.core.facts import FactBook
from unsentinel.core.finding import Builder, Finding
from unsentinel.core.imports import ImportRequest
from unsentinel.core.model import Action, Inferred, Kind, Position, Site
from unsentinel.core.tree import TreeMemo

T = TypeVar("T")


class RuleDetector(Protocol):
    """What a rule class reads of its detector (:class:`~unsentinel.core.prefilter.Detector`
    has it): declared here, so that this module never imports the prefilter, which imports
    it."""

    def needles(self, config: Config) -> tuple[bytes, ...]: ...

    def patterns(self, config: Config) -> tuple[bytes, ...]: ...

    def refine(self, data: bytes, tree: ast.Module, config: Config) -> bool: ...


@dataclass(frozen=True)
class Example:
    """A rule example that doubles as a test case (Fixit's VALID / INVALID).

    Every example holds for its rule run alone, and -- unless ``alone`` gives the reason
    it cannot -- for the whole rule set too, which is what a user runs. An example with a
    reason shows what its rule sees when another rule does not take the site first.
    """

    before: str
    after: str | None = None  # None: reported, left unchanged
    id: str = ""
    config: Mapping[str, Any] = field(default_factory=dict)
    alone: str = ""  # why the whole rule set gives another result ("": it gives this one)

    @property
    def source(self) -> str:
        return textwrap.dedent(self.before).lstrip("\n")

    @property
    def expected(self) -> str | None:
        return None if self.after is None else textwrap.dedent(self.after).lstrip("\n")


class RuleContext:
    """Per-file state shared by all rules: the tree, its metadata, and the edit queue."""

    def __init__(
        self,
        wrapper: cst.MetadataWrapper,
        config: Config,
        facts: FactBook,
        path: str,
        module_name: str = "",
        text: str | None = None,
        memo: TreeMemo | None = None,
    ) -> None:
        self.wrapper = wrapper
        self.module = wrapper.module
        self.config = config
        self.facts = facts
        self.path = path
        self.module_name = module_name
        self.text = text if text is not None else wrapper.module.code
        self.pending: list[Finding] = []
        self.edits: dict[cst.CSTNode, Builder] = {}
        self.imports: list[ImportRequest] = []
        self.removed_imports: list[ImportRequest] = []
        self._shared: dict[type[Any], Any] = {}
        self.noqa_used: set[tuple[int, str]] = set()  # (line, code) a noqa comment silenced
        self._after_suppressions: list[Callable[[], None]] = []
        self._memo = memo if memo is not None else TreeMemo()
        self.parents: Mapping[cst.CSTNode, cst.CSTNode] = self._memo.parents(wrapper.module)

    @cached_property
    def lines(self) -> list[str]:
        """The module's lines (``str.splitlines``), split once per file: the rewrites ask
        for the line of each site they lay out, and splitting the whole text per site
        made a file of a thousand sites quadratic. Read only, never mutated."""
        return self.text.splitlines()

    @cached_property
    def is_test_file(self) -> bool:
        name = self.path.replace("\\", "/").rsplit("/", 1)[-1]
        parts = self.path.replace("\\", "/").split("/")
        return (
            name.startswith("test_")
            or name.endswith("_test.py")
            or name == "conftest.py"
            or "tests" in parts[:-1]
        )

    def shared(self, kind: type[T]) -> T:
        """The file's one instance of ``kind``, built on first use as ``kind(self)``.

        Per-file state that a feature's rules share (an analysis, the facts they record)
        lives here without the core knowing its type.
        """
        found: T | None = self._shared.get(kind)
        if found is None:
            found = self._shared[kind] = kind(self)  # type: ignore[call-arg]
        return found

    # -- navigation ---------------------------------------------------------------
    def position(self, node: cst.CSTNode) -> Position:
        # Positions are the costliest metadata; files that report nothing never need them.
        code_range: CodeRange = self._memo.position(self.module, node)
        return Position(
            code_range.start.line,
            code_range.start.column + 1,
            code_range.end.line,
            code_range.end.column + 1,
        )

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> list[cst.CSTNode]:
        chain = []
        current = self.parent(node)
        while current is not None:
            chain.append(current)
            current = self.parent(current)
        return chain

    def scope_of(self, node: cst.CSTNode) -> str:
        names = [
            a.name.value
            for a in reversed(self.ancestors(node))
            if isinstance(a, (cst.FunctionDef, cst.ClassDef))
        ]
        return ".".join(names)

    def code_for(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    # -- reporting and editing ------------------------------------------------------
    def report(
        self,
        rule: type[Rule] | Rule,
        node: cst.CSTNode,
        message: str,
        *,
        kind: Kind,
        action: Action = Action.REPORT,
        severity: Inferred | None = None,
        field_path: Inferred | None = None,
        code: Inferred | None = None,
        reasons: tuple[str, ...] = (),
        subject: object = None,
    ) -> None:
        """Record a site. Positions are computed later, and only for sites that are kept."""
        self.pending.append(
            Finding(
                node, rule.code, kind, message, action, severity, field_path, code, reasons, subject
            )
        )

    def drop_claimed_detections(self) -> None:
        """A detector finding inside a site another rule handles is reported there, not twice."""
        claimed = {
            id(f.node)
            for f in self.pending
            if f.kind is not Kind.DETECTOR and not self._left_alone_by_plan(f)
        }
        self.pending = [
            f
            for f in self.pending
            if f.kind is not Kind.DETECTOR
            or not any(id(n) in claimed for n in (f.node, *self.ancestors(f.node)))
        ]

    def apply_suppressions(self) -> None:
        """Drop what ``# noqa`` silences and what an edited plan skips, then mark the review.

        Rules that judge the outcome (unused ``noqa`` comments) run last, through
        :meth:`after_suppressions`.
        """
        self._apply_noqa()
        if apply_plan(self) and not self.edits:
            self._drop_imports()
        mark_review_lines(self)
        for callback in self._after_suppressions:
            callback()

    def after_suppressions(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once suppressions are applied (``noqa_used`` is complete)."""
        self._after_suppressions.append(callback)

    def _apply_noqa(self) -> None:
        """``# noqa`` / ``# noqa: UNS001,UNS101`` on any line of a site drops it and its edit."""
        if "noqa" not in self.text:
            return
        lines = self.lines
        kept = []
        for finding in self.pending:
            position = self.position(finding.node)
            span = lines[position.line - 1 : position.end_line]
            used = [
                n for n, line in enumerate(span, position.line) if _suppresses(line, finding.rule)
            ]
            if used:
                self.edits.pop(finding.node, None)
                self.noqa_used.update((n, finding.rule) for n in used)
            else:
                kept.append(finding)
        self.pending = kept
        if not self.edits:
            self._drop_imports()

    def _drop_imports(self) -> None:
        """Every rewrite was silenced: the imports they asked for go too."""
        self.imports.clear()
        self.removed_imports.clear()

    # -- the reviewer's decisions (``apply --plan``) -------------------------------------
    @property
    def decisions(self) -> Decisions:
        """Carried in the fact book (not a gathered fact: the run adds it after gathering)."""
        found = self.facts.entries.get(Decisions)
        return found if isinstance(found, Decisions) else _NO_DECISIONS

    def fingerprint(self, node: cst.CSTNode) -> str:
        """The plan's fingerprint of ``node``: its source text and enclosing scope."""
        return fingerprint(site_source(self.text, self.position(node)), self.scope_of(node))

    def _left_alone_by_plan(self, finding: Finding) -> bool:
        """A site an edited plan skips (or does not know) claims nothing: it stays as it is."""
        decisions = self.decisions
        if not decisions.active or finding.node not in self.edits:
            return False
        entry = decisions.entry(self.path, self.fingerprint(finding.node))
        return skip_reason(entry) is not None

    def left_alone_by_plan(self, node: cst.CSTNode) -> str | None:
        """Why an edited plan leaves the site ``node`` as it is (skip, or unknown), if it does.

        For a rule whose edits fall on nodes inside its site (an annotation edits each
        ``str`` in it): it asks before scheduling them, as the core drops only the edit on
        the site's own node.
        """
        decisions = self.decisions
        if not decisions.active:
            return None
        return skip_reason(decisions.entry(self.path, self.fingerprint(node)))

    def decide(self, node: cst.CSTNode, name: str, inferred: Inferred) -> Inferred:
        """The value of ``name`` at the site ``node``: the plan's where it changes it.

        Rules call this where they choose a value; without a plan it is ``inferred``.
        """
        decisions = self.decisions
        if not decisions.active:
            return inferred
        entry = decisions.entry(self.path, self.fingerprint(node))
        if entry is None:
            return inferred
        value = decisions.decided(entry, name)
        if value == inferred.value:
            return inferred
        return Inferred.high(value, FROM_THE_PLAN)

    @property
    def sites(self) -> list[Site]:
        """The reported sites with their positions in the original file."""
        return [
            Site(
                rule=f.rule,
                kind=f.kind,
                position=self.position(f.node),
                message=f.message,
                action=f.action,
                severity=f.severity,
                field_path=f.field_path,
                code=f.code,
                reasons=f.reasons,
                scope=self.scope_of(f.node),
            )
            for f in self.pending
        ]

    def replace(self, node: cst.CSTNode, builder: Builder) -> None:
        """Schedule ``node`` to be replaced by ``builder(updated_node)``."""
        self.edits[node] = builder

    def add_import(self, module: str, name: str | None = None, alias: str | None = None) -> None:
        request = ImportRequest(module, name, alias)
        if request not in self.imports:
            self.imports.append(request)

    def remove_import(self, module: str, name: str | None = None, alias: str | None = None) -> None:
        request = ImportRequest(module, name, alias)
        if request not in self.removed_imports:
            self.removed_imports.append(request)


_NO_DECISIONS = Decisions()

_NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)


def _suppresses(line: str, code: str) -> bool:
    """Does a ``# noqa`` comment on ``line`` cover ``code``? A bare ``# noqa`` covers all."""
    match = _NOQA.search(line)
    if match is None:
        return False
    codes = match.group("codes")
    return codes is None or code in re.split(r"[\s,]+", codes.upper())


class Rule(cst.BatchableCSTVisitor):
    """Base class: subclasses set the class attributes and visit the tree.

    All rules share one traversal (LibCST's batched visitor), so a ``visit_*`` method
    cannot prune the walk: its return value is ignored.

    The docstring of a rule is documentation in fixed sections (*What it does*, *Why*,
    *Example*, *Fix safety*); the docs reference is generated from it.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    VALID: ClassVar[tuple[Example, ...]] = ()
    INVALID: ClassVar[tuple[Example, ...]] = ()

    # Parents come from ``tree.parent_map`` (much cheaper than ParentNodeProvider) and
    # positions are resolved lazily, so rules declare no metadata of their own.
    METADATA_DEPENDENCIES = ()

    def __init__(self, context: RuleContext) -> None:
        super().__init__()
        self.context = context
        self.config = context.config

    # The rule's LibCST-free description (code, name, needles, patterns, refine), declared in
    # its feature's ``detect`` module so that the prefilter never imports this class.
    detector: ClassVar[RuleDetector | None] = None

    @classmethod
    def load(cls) -> type[Rule]:
        """A rule class is its own registry entry (see ``Detector.load``)."""
        return cls

    @classmethod
    def needles(cls, config: Config) -> tuple[bytes, ...]:
        """Byte strings of which at least one must occur in a file for this rule to matter:
        the detector's (see :class:`~unsentinel.core.prefilter.Detector`); a rule without
        one (a test's) overrides this."""
        if cls.detector is None:
            raise NotImplementedError
        return cls.detector.needles(config)

    @classmethod
    def patterns(cls, config: Config) -> tuple[bytes, ...]:
        """Regular expressions (bytes) for the prefilter; by default the needles, escaped."""
        if cls.detector is not None:
            return cls.detector.patterns(config)
        return tuple(re.escape(needle) for needle in cls.needles(config))

    @classmethod
    def refine(cls, data: bytes, tree: ast.Module, config: Config) -> bool:
        """Second look on Python's ``ast``: could the rule act on this code? Yes by default."""
        return cls.detector is None or cls.detector.refine(data, tree, config)

    def finish(self) -> None:
        """Called once after the visit, for rules that decide on whole-file evidence."""
