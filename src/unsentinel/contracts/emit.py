"""The contracts emitter: schema files as file results, reported or updated.

It runs as one more :data:`~unsentinel.core.suite.Emitter`, after every Python file's
rewrite is known, so it sees exactly what the run migrates and nothing else: a migration
that rewrites no warnings touches (and reports) no ``warnings`` schema. Its results travel
the generated modules' path: ``diff`` shows them, ``apply`` writes them in the same
all-or-nothing, journalled transaction, ``plan`` lists their sites. A location that is not
updated is a site with action ``report`` ("held for manual change"), never dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from unsentinel.contracts import json_source, yaml_source
from unsentinel.contracts.shapes import Hit, Target, find_hits, is_schema_document, json_pointer
from unsentinel.core.config import Config
from unsentinel.core.discovery import discover, display_path
from unsentinel.core.facts import FactBook
from unsentinel.core.fields import ModelField
from unsentinel.core.model import Action, FileResult, Kind, Position, Site, Status

RULE = "schema"  # the ``rule`` of a schema site in plan output: not a Python rule's code
JSON_SUFFIXES = (".json",)
YAML_SUFFIXES = (".yaml", ".yml")
HELD = "held for manual change: rerun with `apply --update-schemas` to update it"
INDIRECT_HELD = (
    "held for manual change: declared through a $ref or an anyOf/oneOf, which other "
    "properties may share; update it by hand"
)
YAML_HELD = "held for manual change: YAML schemas are reported, never rewritten"


@dataclass(frozen=True)
class Migration:
    """One migration as the contracts see it; the registry fills it from a feature."""

    kind: str  # "warnings" or "error": what the messages call it
    names: tuple[str, ...]  # property names that carry it on the wire
    fields: tuple[ModelField, ...]  # the generated model's fields
    model: str  # the model's name: "Warning"
    in_items: bool  # strings in an array (warnings) or one string (error)
    migrated: Callable[[Sequence[FileResult]], bool]  # does this run migrate it?

    def target(self) -> Target:
        return Target(self.kind, self.names, self.fields, self.model, self.in_items)


@dataclass(frozen=True)
class Contracts:
    """Where to look for schema files, and whether to update them."""

    paths: tuple[Path, ...]
    files_from: tuple[str, ...] = ()
    update: bool = False  # apply/diff --update-schemas
    migrations: tuple[Migration, ...] = ()


def emit_contracts(
    contracts: Contracts, results: Sequence[FileResult], _facts: FactBook, config: Config
) -> list[FileResult]:
    """A file result for every schema file the run's migration breaks; none if it breaks none."""
    targets = [m.target() for m in contracts.migrations if m.migrated(results)]
    if not targets:
        return []
    found = discover(
        contracts.paths,
        config,
        contracts.files_from,
        suffixes=JSON_SUFFIXES + YAML_SUFFIXES,
    )
    emitted = []
    for task in found.tasks:
        if task.path.name.endswith(JSON_SUFFIXES + YAML_SUFFIXES):
            result = schema_result(task.path, targets, update=contracts.update, config=config)
            if result is not None:
                emitted.append(result)
    return emitted


def schema_result(
    path: Path, targets: Sequence[Target], *, update: bool, config: Config
) -> FileResult | None:
    """The file's sites (and new text when updating), or None when nothing in it breaks."""
    try:
        if path.stat().st_size > config.max_file_size:
            return None
        text = path.read_bytes().decode("utf-8")  # a BOM stays, as U+FEFF
    except (OSError, UnicodeDecodeError):
        return None  # not a schema this run could have read: no claim about it
    if path.name.endswith(YAML_SUFFIXES):
        return _yaml_result(path, text, targets)
    return _json_result(path, text, targets, update=update)


def _json_result(
    path: Path, text: str, targets: Sequence[Target], *, update: bool
) -> FileResult | None:
    bom, body = ("\ufeff", text[1:]) if text.startswith("\ufeff") else ("", text)
    try:
        document = json.loads(body)
        hits = find_hits(document, targets) if is_schema_document(document) else []
    except (ValueError, RecursionError):
        return None
    if not hits:
        return None
    spans = json_source.spans(body)
    sites = tuple(
        _site(hit, json_source.position(body, spans[hit.property_pointer].key), update=update)
        for hit in hits
    )
    display = display_path(path)
    replacements: dict[json_source.Pointer, Any] = {
        hit.pointer: hit.replacement for hit in hits if hit.replacement is not None
    }
    if not update or not replacements:
        return FileResult(display, Status.PARSED, sites=sites)
    new_text = bom + json_source.replace_values(body, replacements)
    return FileResult(
        display,
        Status.PARSED,
        sites=sites,
        original=text,
        new_source=new_text.encode("utf-8"),
        new_text=new_text,
    )


def _yaml_result(path: Path, text: str, targets: Sequence[Target]) -> FileResult | None:
    display = display_path(path)
    try:
        document, positions = yaml_source.load(text)
        hits = find_hits(document, targets) if is_schema_document(document) else []
    except yaml_source.YamlUnavailable:
        if not any(name in text for target in targets for name in target.names):
            return None
        return FileResult(display, Status.PARSED, sites=(_unread_yaml(targets),))
    except (ValueError, RecursionError):
        return None
    if not hits:
        return None
    sites = tuple(
        _site(hit, positions.get(hit.property_pointer, (1, 1)), update=False, held=YAML_HELD)
        for hit in hits
    )
    return FileResult(display, Status.PARSED, sites=sites)


def _site(hit: Hit, where: tuple[int, int], *, update: bool, held: str = HELD) -> Site:
    if hit.replacement is None:
        held = INDIRECT_HELD
    target = hit.target
    pointer = json_pointer(hit.property_pointer)
    declared = "an array of strings" if target.in_items else "a string"
    becomes = f"{target.model} objects" if target.in_items else f"an {target.model} object"
    reason = (
        f"{pointer}: `{target.kind}` is declared {declared}; the migrated code returns {becomes}"
    )
    action = Action.REWRITE if update and held == HELD else Action.REPORT
    outcome = f"updated to the {target.model} object schema" if action is Action.REWRITE else held
    line, column = where
    return Site(
        rule=RULE,
        kind=Kind.ANNOTATION,
        position=Position(line, column, line, column),
        message=reason,
        action=action,
        reasons=(reason, outcome),
        scope=pointer,
    )


def _unread_yaml(targets: Sequence[Target]) -> Site:
    kinds = " and ".join(f"`{t.kind}`" for t in targets)
    reason = (
        f"may declare {kinds} as strings, but PyYAML is not installed to read it "
        "(pip install 'unsentinel[yaml]')"
    )
    return Site(
        rule=RULE,
        kind=Kind.ANNOTATION,
        position=Position(1, 1, 1, 1),
        message=reason,
        action=Action.REPORT,
        reasons=(reason, YAML_HELD),
    )
