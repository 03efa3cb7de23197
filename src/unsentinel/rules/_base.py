"""What every rule is made of: the :class:`Rule` base, its examples, and the per-file context.

A rule is a read-only LibCST visitor. It never mutates the tree: it *reports* sites and
*schedules* edits on the context (ruff's "fix" model). The engine applies every edit of
every rule in one transform, keyed by the original node, so positions in reports always
refer to the file as it was on disk, and nested edits compose.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import libcst as cst
from libcst.metadata import (
    CodeRange,
    PositionProvider,
    ScopeProvider,
)

from ..config import Config
from ..imports import ImportRequest
from ..model import Action, Inferred, Kind, Position, RepoFacts, Site, Template
from ..tree import parent_map

if TYPE_CHECKING:
    from ..analysis import FileAnalysis

Builder = Callable[[cst.CSTNode], "cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[Any]"]


@dataclass(frozen=True)
class Example:
    """A rule example that doubles as a test case (Fixit's VALID / INVALID)."""

    before: str
    after: str | None = None  # None: reported, left unchanged
    id: str = ""
    config: Mapping[str, Any] = field(default_factory=dict)

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
        facts: RepoFacts,
        path: str,
        module_name: str = "",
        text: str | None = None,
    ) -> None:
        self.wrapper = wrapper
        self.module = wrapper.module
        self.config = config
        self.facts = facts
        self.path = path
        self.module_name = module_name
        self.text = text if text is not None else wrapper.module.code
        self.pending: list[tuple[cst.CSTNode, dict[str, Any]]] = []
        self.edits: dict[cst.CSTNode, Builder] = {}
        self.imports: list[ImportRequest] = []
        self.removed_imports: list[ImportRequest] = []
        self.templates: list[Template] = []
        self.warning_functions: list[str] = []
        self.marker_constants: dict[str, str] = {}
        self.warning_params: set[str] = set()
        self.function_shapes: dict[str, str] = {}
        self.constant_leftovers: set[str] = set()
        self.error_functions: set[str] = set()  # UNS501: functions returning migrated errors
        self.parents: Mapping[cst.CSTNode, cst.CSTNode] = parent_map(wrapper.module)

    @cached_property
    def _positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        # Positions are the costliest metadata; files that report nothing never need them.
        return self.wrapper.resolve(PositionProvider)

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

    @cached_property
    def scopes(self) -> Mapping[cst.CSTNode, Any]:
        return self.wrapper.resolve(ScopeProvider)

    @cached_property
    def analysis(self) -> FileAnalysis:
        from ..analysis import FileAnalysis

        return FileAnalysis(self)

    # -- navigation ---------------------------------------------------------------
    def position(self, node: cst.CSTNode) -> Position:
        code_range: CodeRange = self._positions[node]
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
    ) -> None:
        """Record a site. Positions are computed later, and only for sites that are kept."""
        fields = dict(
            rule=rule.code,
            kind=kind,
            message=message,
            action=action,
            severity=severity,
            field_path=field_path,
            code=code,
            reasons=reasons,
        )
        self.pending.append((node, fields))

    def drop_claimed_detections(self) -> None:
        """A detector finding inside a site another rule handles is reported there, not twice."""
        claimed = {id(node) for node, fields in self.pending if fields["kind"] is not Kind.DETECTOR}
        self.pending = [
            (node, fields)
            for node, fields in self.pending
            if fields["kind"] is not Kind.DETECTOR
            or not any(id(n) in claimed for n in (node, *self.ancestors(node)))
        ]

    def apply_suppressions(self) -> None:
        """``# noqa`` / ``# noqa: UNS001,UNS101`` on any line of a site drops it and its edit."""
        if "noqa" not in self.text:
            return
        lines = self.text.splitlines()
        kept = []
        for node, fields in self.pending:
            position = self.position(node)
            span = lines[position.line - 1 : position.end_line]
            if any(_suppresses(line, fields["rule"]) for line in span):
                self.edits.pop(node, None)
            else:
                kept.append((node, fields))
        self.pending = kept
        if not self.edits:  # every rewrite was silenced: the imports they asked for go too
            self.imports.clear()
            self.removed_imports.clear()

    @property
    def sites(self) -> list[Site]:
        """The reported sites with their positions in the original file."""
        return [
            Site(position=self.position(node), scope=self.scope_of(node), **fields)
            for node, fields in self.pending
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


_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def _suppresses(line: str, code: str) -> bool:
    """Does a ``# noqa`` comment on ``line`` cover ``code``? A bare ``# noqa`` covers all."""
    match = _NOQA.search(line)
    if match is None:
        return False
    codes = match.group("codes")
    return codes is None or code in re.split(r"[\s,]+", codes.upper())


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
        + rb"(?![A-Za-z0-9_(])(?!\.(?:_|" + _WARNINGS_MODULE_API + rb")\b)(?! import)"
        for name in config.warning_list_names
    )


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

    @classmethod
    def needles(cls, config: Config) -> tuple[bytes, ...]:
        """Byte strings of which at least one must occur in a file for this rule to matter.

        The prefilter uses these to keep files away from the LibCST parser entirely.
        """
        raise NotImplementedError

    @classmethod
    def patterns(cls, config: Config) -> tuple[bytes, ...]:
        """Regular expressions (bytes) for the prefilter; by default the needles, escaped.

        A rule whose needle is a common word (``warnings``) narrows it to the uses it
        cares about, so that ``import warnings`` alone does not cost a parse.
        """
        return tuple(re.escape(needle) for needle in cls.needles(config))

    def finish(self) -> None:
        """Called once after the visit, for rules that decide on whole-file evidence."""


class WarningListRule(Rule):
    """A rule that needs a warnings list in the file (consumers, annotations)."""

    @classmethod
    def needles(cls, config: Config) -> tuple[bytes, ...]:
        return tuple(n.encode() for n in config.warning_list_names)

    @classmethod
    def patterns(cls, config: Config) -> tuple[bytes, ...]:
        return warning_list_patterns(config)
