"""What a reviewer decided in an edited plan, and how a run applies it.

:func:`~unsentinel.core.plan_file.load_plan` reads the plan; :func:`resolve` compares it
with a fresh run (entries whose fingerprint matches no site are refused) into a
:class:`Decisions` value that rides on the :class:`~unsentinel.core.facts.FactBook` to
every rule. Rules ask :meth:`~unsentinel.core.rule.RuleContext.decide` where they choose a
value; :func:`apply_plan` skips the sites the plan skips (or does not know) and
:func:`mark_review` leaves review markers. Nothing here knows a feature.

The plan file's names (:mod:`~unsentinel.core.plan_file`) and the fingerprints
(:mod:`~unsentinel.core.fingerprints`) stay importable from here, as before the split.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Protocol

from unsentinel.core.finding import Builder, Finding
from unsentinel.core.fingerprints import file_text, fingerprint, site_fingerprint, site_source
from unsentinel.core.model import Action, Confidence, FileResult, Inferred, Position, Site, Status
from unsentinel.core.plan_file import (
    DECIDABLE,
    ENTRY_KEYS,
    TOP_KEYS,
    Entry,
    Plan,
    PlanError,
    load_plan,
)

if TYPE_CHECKING:
    import libcst as cst  # used where review markers are laid: on a file LibCST parsed

FROM_THE_PLAN = "from the plan"
MARKER = "# TODO(unsentinel):"
"""Starts every review marker; ``check`` reports the ones left (UNS901)."""

SKIPPED = "skip in the plan"
"""Why a site the reviewer marked ``skip`` is left as it is."""
NOT_IN_THE_PLAN = "not in the plan (new, or changed since the plan was made): left as it is"
"""Why a site no entry knows is left as it is, while a plan is in force."""


@dataclass(frozen=True)
class Decisions:
    """The reviewer's decisions for one run; the empty value decides nothing.

    ``entries`` are keyed by ``(path, fingerprint)``; when a plan is in force (``active``),
    a site without an entry is left as it is, so ``apply --plan`` writes exactly what was
    reviewed. ``renames`` maps an old code to the new one: codes are repository-wide
    constants, so every site sharing a renamed code follows. ``mark_review`` asks for a
    ``# TODO(unsentinel)`` comment on each rewritten line with a low-confidence value.
    """

    entries: Mapping[tuple[str, str], Entry] = field(default_factory=dict)
    renames: Mapping[str, str] = field(default_factory=dict)
    active: bool = False
    mark_review: bool = False

    def entry(self, path: str, print_: str) -> Entry | None:
        return self.entries.get((path, print_))

    def decided(self, entry: Entry, name: str) -> str | None:
        """The value ``entry`` sets for ``name`` (a renamed code follows its rename)."""
        value = entry.values.get(name)
        if name == "code" and value is not None:
            return self.renames.get(value, value)
        return value


# -- comparing a plan with the source as it is now ----------------------------------------


@dataclass(frozen=True)
class Resolution:
    """A plan compared with a fresh run: what applies, and what is refused and why."""

    decisions: Decisions
    refused: tuple[str, ...] = ()


def resolve(
    plan: Plan,
    results: Iterable[FileResult],
    *,
    mark_review: bool = False,
    groups: Mapping[tuple[str, Position], str] | None = None,
) -> Resolution:
    """Match plan entries to the sites of a fresh run (no decisions) over the same paths.

    An entry no current site has the fingerprint of is refused. A code an entry changes
    becomes a rename; two entries renaming one code differently are an error. ``groups``
    (a group name per site: the sites that change together) widens a skip to the skipped
    site's whole group, so a plan can never leave a string among migrated warnings.
    """
    current: dict[tuple[str, str], Site] = {}
    for result in results:
        if result.status is not Status.PARSED or not result.sites:
            continue
        text = file_text(result.path)
        if text is None:
            continue
        for site in result.sites:
            current.setdefault((result.path, site_fingerprint(text, site)), site)
    kept: dict[tuple[str, str], Entry] = {}
    refused = []
    for entry in plan.entries:
        key = (entry.path, entry.fingerprint)
        found = current.get(key)
        if found is None or found.rule != entry.rule:
            refused.append(
                f"{entry.id}: the source changed since the plan was made (fingerprint "
                f"{entry.fingerprint} matches no site in {entry.path}); not applied"
            )
            continue
        kept.setdefault(key, entry)
    if groups:
        kept = _skip_whole_groups(kept, current, groups)
    renames: dict[str, tuple[str, Entry]] = {}
    for key, entry in kept.items():
        _add_rename(renames, current[key], entry)
    return Resolution(
        Decisions(
            kept, {old: new for old, (new, _e) in renames.items()}, True, mark_review=mark_review
        ),
        tuple(refused),
    )


def _skip_whole_groups(
    kept: Mapping[tuple[str, str], Entry],
    current: Mapping[tuple[str, str], Site],
    groups: Mapping[tuple[str, Position], str],
) -> dict[tuple[str, str], Entry]:
    """Every entry in the group of a skipped entry is skipped too."""

    def group(key: tuple[str, str]) -> str | None:
        return groups.get((key[0], current[key].position))

    skipped = {group(key) for key, entry in kept.items() if entry.skip} - {None}
    return {
        key: replace(entry, action=Action.SKIP.value)
        if not entry.skip and group(key) in skipped
        else entry
        for key, entry in kept.items()
    }


def _add_rename(renames: dict[str, tuple[str, Entry]], site: Site, entry: Entry) -> None:
    old = site.code.value if site.code is not None else None
    new = entry.values.get("code")
    if old is None or new is None or new == old or entry.skip:
        return
    earlier = renames.setdefault(old, (new, entry))
    if earlier[0] != new:
        raise PlanError(
            f"entries {earlier[1].id!r} (line {earlier[1].line}) and {entry.id!r} (line "
            f"{entry.line}) rename code {old} to both {earlier[0]} and {new}; a code is one "
            "constant for the whole repository: choose one name"
        )


def skip_reason(entry: Entry | None) -> str | None:
    """Why a plan in force leaves a site with ``entry`` as it is (None: the plan applies).

    One definition for the core's drop (:func:`apply_plan`) and for the rules that ask
    before scheduling edits inside a site, so both report the same words.
    """
    if entry is None:
        return NOT_IN_THE_PLAN
    return SKIPPED if entry.skip else None


# -- what the core does with the decisions, per file --------------------------------------


class PlannedFile(Protocol):
    """What :func:`apply_plan` and :func:`mark_review` need from a file's rule context.

    A protocol rather than the context class, so that this module never imports
    :mod:`unsentinel.core.rule` (which imports it): the dependency runs one way.
    """

    @property
    def path(self) -> str: ...

    @property
    def decisions(self) -> Decisions: ...

    @property
    def pending(self) -> Sequence[Finding]: ...

    @property
    def edits(self) -> dict[cst.CSTNode, Builder]: ...

    def fingerprint(self, node: cst.CSTNode) -> str: ...

    def ancestors(self, node: cst.CSTNode) -> list[cst.CSTNode]: ...

    def replace(self, node: cst.CSTNode, builder: Builder) -> None: ...


def apply_plan(context: PlannedFile) -> bool:
    """Leave alone every site the plan skips, or does not know (new or changed since).

    Returns whether any edit was dropped.
    """
    decisions = context.decisions
    if not decisions.active:
        return False
    dropped = False
    for finding in context.pending:
        if finding.node not in context.edits:
            continue
        reason = skip_reason(decisions.entry(context.path, context.fingerprint(finding.node)))
        if reason is None:
            continue
        del context.edits[finding.node]
        dropped = True
        finding.action = Action.SKIP
        finding.code = None  # a site left alone mints no constant
        finding.reasons = (*finding.reasons, reason)
    return dropped


def mark_review(context: PlannedFile) -> None:
    """A ``# TODO(unsentinel)`` comment on each rewritten line with a low-confidence value."""
    if not context.decisions.mark_review:
        return
    notes: dict[cst.SimpleStatementLine, list[str]] = {}
    for finding in context.pending:
        if finding.node not in context.edits:
            continue
        values = {"severity": finding.severity, "field_path": finding.field_path}
        values["code"] = finding.code
        low = [(n, v) for n, v in values.items() if v is not None and _is_low(v)]
        statement = _statement_of(context, finding.node)
        if low and statement is not None and statement not in context.edits:
            notes.setdefault(statement, []).extend(
                f"{name} inferred from {_one_line(value.reason)}" for name, value in low
            )
    for statement, parts in notes.items():
        context.replace(statement, partial(_with_marker, f"{MARKER} {'; '.join(parts)}; check it"))


def _is_low(value: Inferred) -> bool:
    return value.confidence is Confidence.LOW


def _statement_of(context: PlannedFile, node: cst.CSTNode) -> cst.SimpleStatementLine | None:
    import libcst as cst

    for candidate in (node, *context.ancestors(node)):
        if isinstance(candidate, cst.SimpleStatementLine):
            return candidate
        if isinstance(candidate, cst.BaseCompoundStatement):
            return None  # a marker on a block header would read as the block's
    return None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _with_marker(text: str, updated: cst.CSTNode) -> cst.CSTNode:
    import libcst as cst

    assert isinstance(updated, cst.SimpleStatementLine)
    trailing = updated.trailing_whitespace
    if trailing.comment is not None:
        comment = cst.Comment(f"{trailing.comment.value}  {text}")
        return updated.with_changes(trailing_whitespace=trailing.with_changes(comment=comment))
    return updated.with_changes(
        trailing_whitespace=trailing.with_changes(
            whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(text)
        )
    )


__all__ = [
    "DECIDABLE",
    "ENTRY_KEYS",
    "FROM_THE_PLAN",
    "MARKER",
    "NOT_IN_THE_PLAN",
    "SKIPPED",
    "TOP_KEYS",
    "Decisions",
    "Entry",
    "Plan",
    "PlanError",
    "PlannedFile",
    "Resolution",
    "apply_plan",
    "file_text",
    "fingerprint",
    "load_plan",
    "mark_review",
    "resolve",
    "site_fingerprint",
    "site_source",
    "skip_reason",
]
