"""What a reviewer decided in an edited plan, and how a run applies it.

``unsentinel plan -o migration-plan.toml`` writes every site with its inferred values and a
*fingerprint* of the source it was made from; the reviewer edits values or marks a site
``skip``; ``unsentinel apply --plan`` loads the file into a :class:`Decisions` value that
rides on the :class:`~unsentinel.core.facts.FactBook` to every rule. Rules ask
:meth:`~unsentinel.core.rule.RuleContext.decide` where they choose a value; the core skips
the sites the plan skips (or does not know). Nothing here knows a feature.

The fingerprint is a hash of the site's own source text and its enclosing function, so it
survives edits elsewhere in the file (lines moving) and breaks when the site itself, or the
function it sits in, changes: such an entry is refused rather than applied to other code.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import libcst as cst

from unsentinel.core.model import (
    Action,
    Confidence,
    FileResult,
    Inferred,
    Position,
    Severity,
    Site,
    Status,
)
from unsentinel.core.source import SourceError, decode_source

if TYPE_CHECKING:
    from unsentinel.core.rule import RuleContext

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DECIDABLE = ("severity", "field_path", "code")
"""The inferred values a plan may change; ``action`` may only become ``skip``."""

ENTRY_KEYS = frozenset(
    {
        "id",
        "path",
        "line",
        "column",
        "end_line",
        "rule",
        "kind",
        "action",
        "severity",
        "field_path",
        "code",
        "confidence",
        "reasons",
        "fingerprint",
    }
)
TOP_KEYS = frozenset({"version", "paths", "sites"})
FROM_THE_PLAN = "from the plan"
MARKER = "# TODO(unsentinel):"
"""Starts every review marker; ``check`` reports the ones left (UNS901)."""

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SEVERITIES = frozenset(s.value for s in Severity)
_RUNTIME_SEVERITY = re.compile(r"^(\w+) if (.+) else (\w+)$")
_UNSAFE_PATH = re.compile(r"[\"'\\\n\r]")


# -- fingerprints -------------------------------------------------------------------------


def site_source(text: str, position: Position) -> str:
    """The exact source text a position covers (columns are 1-based, end exclusive)."""
    lines = _LINE_BREAK.split(text)
    first, last = position.line - 1, position.end_line - 1
    if first == last:
        return lines[first][position.column - 1 : position.end_column - 1]
    middle = lines[first + 1 : last]
    return "\n".join(
        [lines[first][position.column - 1 :], *middle, lines[last][: position.end_column - 1]]
    )


def fingerprint(source: str, scope: str = "") -> str:
    """A short, stable hash of a site's source text and its enclosing scope."""
    digest = hashlib.sha256(f"{scope}\0{source}".encode()).hexdigest()
    return f"sha256:{digest[:16]}"


def site_fingerprint(text: str, site: Site) -> str:
    return fingerprint(site_source(text, site.position), site.scope)


def file_text(path: str | Path) -> str | None:
    """A file's text as the engine decodes it (BOM dropped), or None if it cannot be read."""
    try:
        text, _encoding = decode_source(Path(path).read_bytes())
    except (OSError, SourceError):
        return None
    return text.removeprefix("\ufeff")


# -- what the reviewer decided ------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One site of an edited plan: the values it sets (absent key: the value is none)."""

    id: str
    path: str
    rule: str
    fingerprint: str
    line: int  # in the plan file, for messages
    action: str = Action.REWRITE.value
    values: Mapping[str, str | None] = field(default_factory=dict)

    @property
    def skip(self) -> bool:
        return self.action == Action.SKIP.value


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


class PlanError(Exception):
    """An invalid plan file; the message names the entry and its line."""


# -- loading a plan file ------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """A plan file as written (before it is compared with the source)."""

    entries: tuple[Entry, ...]
    paths: tuple[str, ...] = ()


def load_plan(path: Path) -> Plan:
    """Read and validate a plan (TOML, or JSON for a ``.json`` file); raise :class:`PlanError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PlanError(f"{path}: cannot read the plan: {exc}") from exc
    if path.suffix == ".json":
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PlanError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from exc
    else:
        try:
            document = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise PlanError(f"{path}: invalid TOML: {exc}") from exc
    return _plan_of(document, _EntryLines(path, text))


class _EntryLines:
    """Where each ``[[sites]]`` entry (and a key in it) is in the file, for messages."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()
        self.starts = [n for n, line in enumerate(self.lines, 1) if line.strip() == "[[sites]]"]

    def of(self, index: int, key: str | None = None) -> int:
        if index >= len(self.starts):
            return 0
        start = self.starts[index]
        if key is None:
            return start
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        for number in range(start, len(self.lines) + 1):
            line = self.lines[number - 1]
            if number > start and line.lstrip().startswith("["):
                break
            if pattern.match(line):
                return number
        return start

    def where(self, index: int, key: str | None = None) -> str:
        line = self.of(index, key)
        return f"{self.path}:{line}" if line else f"{self.path}: sites[{index}]"


def _plan_of(document: Any, lines: _EntryLines) -> Plan:
    if not isinstance(document, dict):
        raise PlanError(f"{lines.path}: a plan is a table with a 'sites' list")
    unknown = sorted(set(document) - TOP_KEYS)
    if unknown:
        raise PlanError(f"{lines.path}: unknown top-level key {unknown[0]!r}")
    sites = document.get("sites", [])
    if not isinstance(sites, list):
        raise PlanError(f"{lines.path}: 'sites' must be a list of tables")
    paths = document.get("paths", [])
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise PlanError(f"{lines.path}: 'paths' must be a list of strings")
    entries = tuple(_entry(raw, index, lines) for index, raw in enumerate(sites))
    return Plan(entries, tuple(paths))


def _entry(raw: Any, index: int, lines: _EntryLines) -> Entry:
    if not isinstance(raw, dict):
        raise PlanError(f"{lines.where(index)}: sites[{index}] is not a table")
    name = str(raw.get("id", f"sites[{index}]"))

    def fail(key: str | None, problem: str) -> PlanError:
        return PlanError(f"{lines.where(index, key)}: entry {name!r}: {problem}")

    for key in raw:
        if key not in ENTRY_KEYS:
            raise fail(key, f"unknown key {key!r} (known: {', '.join(sorted(ENTRY_KEYS))})")
    for key in ("path", "rule", "fingerprint"):
        if not isinstance(raw.get(key), str):
            raise fail(None, f"missing {key!r} (regenerate the plan with `unsentinel plan`)")
    action = raw.get("action", Action.REWRITE.value)
    if action not in {a.value for a in Action}:
        raise fail("action", f"unknown action {action!r} (use 'skip' to leave a site alone)")
    values = {key: raw[key] for key in DECIDABLE if raw.get(key) is not None}
    for key, value in values.items():
        if not isinstance(value, str):
            raise fail(key, f"{key} must be a string")
    _check_values(values, fail)
    return Entry(
        name, raw["path"], raw["rule"], raw["fingerprint"], lines.of(index), action, values
    )


def _check_values(values: Mapping[str, Any], fail: Any) -> None:
    code = values.get("code")
    if code is not None and (not code.isidentifier() or code in _KEYWORDS):
        raise fail("code", f"code {code!r} is not a valid Python identifier")
    severity = values.get("severity")
    if severity is not None and not _valid_severity(severity):
        known = ", ".join(sorted(_SEVERITIES))
        raise fail("severity", f"unknown severity {severity!r} (one of: {known})")
    path = values.get("field_path")
    if path is not None and _UNSAFE_PATH.search(path):
        raise fail("field_path", f"field_path {path!r} may not contain quotes or backslashes")


def _valid_severity(value: str) -> bool:
    runtime = _RUNTIME_SEVERITY.match(value)
    if runtime is not None:
        return {runtime.group(1), runtime.group(3)} <= _SEVERITIES
    return value in _SEVERITIES


_KEYWORDS = frozenset(__import__("keyword").kwlist)


# -- comparing a plan with the source as it is now ----------------------------------------


@dataclass(frozen=True)
class Resolution:
    """A plan compared with a fresh run: what applies, and what is refused and why."""

    decisions: Decisions
    refused: tuple[str, ...] = ()


def resolve(plan: Plan, results: Iterable[FileResult], *, mark_review: bool = False) -> Resolution:
    """Match plan entries to the sites of a fresh run (no decisions) over the same paths.

    An entry no current site has the fingerprint of is refused. A code an entry changes
    becomes a rename; two entries renaming one code differently are an error.
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
    renames: dict[str, tuple[str, Entry]] = {}
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
        _add_rename(renames, found, entry)
    return Resolution(
        Decisions(
            kept, {old: new for old, (new, _e) in renames.items()}, True, mark_review=mark_review
        ),
        tuple(refused),
    )


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


# -- what the core does with the decisions, per file --------------------------------------


def apply_plan(context: RuleContext) -> bool:
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
        entry = decisions.entry(context.path, context.fingerprint(finding.node))
        if entry is not None and not entry.skip:
            continue
        del context.edits[finding.node]
        dropped = True
        finding.action = Action.SKIP
        finding.code = None  # a site left alone mints no constant
        reason = (
            "skip in the plan"
            if entry is not None
            else "not in the plan (new, or changed since the plan was made): left as it is"
        )
        finding.reasons = (*finding.reasons, reason)
    return dropped


def mark_review(context: RuleContext) -> None:
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


def _statement_of(context: RuleContext, node: cst.CSTNode) -> cst.SimpleStatementLine | None:
    for candidate in (node, *context.ancestors(node)):
        if isinstance(candidate, cst.SimpleStatementLine):
            return candidate
        if isinstance(candidate, cst.BaseCompoundStatement):
            return None  # a marker on a block header would read as the block's
    return None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _with_marker(text: str, updated: cst.CSTNode) -> cst.CSTNode:
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
