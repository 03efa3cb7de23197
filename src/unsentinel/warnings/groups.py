"""Which reported warning sites belong to one connected group, for a reviewer's skips.

A warning changes from ``str`` to ``Warning`` only together with everything it meets
(:mod:`unsentinel.warnings.graph`), so a reviewer who skips one site of a group
(``apply --interactive``) must skip the whole group, or the code would mix strings and
objects. Sites do not carry their carriers; this places each site by what it does carry:
the function it sits in (every carrier of that function: its locals, parameters, return
value and tuple slots) or, for a model field annotation, the field its line names. A
function with two unrelated lists joins their groups: a skip can only reach further.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import PurePosixPath

from unsentinel.core.decisions import file_text
from unsentinel.core.model import FileResult, Kind, Position, Site
from unsentinel.warnings.facts import WarningFacts
from unsentinel.warnings.graph import (
    Carrier,
    FieldCarrier,
    KeyCarrier,
    LocalCarrier,
    ParamCarrier,
    ReturnCarrier,
    SlotCarrier,
    carrier_order,
)

GROUPED_KINDS = frozenset({Kind.PRODUCER, Kind.CONSUMER, Kind.ANNOTATION})
_FIELD = re.compile(r"^\s*(\w+)\s*:")

SiteKey = tuple[str, Position]


def site_groups(facts: WarningFacts, results: Iterable[FileResult]) -> dict[SiteKey, str]:
    """A group name for each warning site of ``results``, keyed by path and position.

    Two sites with one name change together. A site the gather pass knows no carrier for
    is its function's own group.
    """
    groups = _Groups()
    for link in facts.links:
        groups.union(link.first, link.second)
    known: dict[str, list[Carrier]] = {}
    for carrier in groups.carriers():
        if isinstance(carrier, (FieldCarrier, KeyCarrier)):  # one place: model_dump()
            groups.union(FieldCarrier(carrier.name), KeyCarrier(carrier.name))
        else:
            known.setdefault(carrier.function, []).append(carrier)
    placed: dict[SiteKey, Carrier | str] = {}
    for path, site, line in _warning_sites(results):
        carriers = list(_carriers_of(path, site, line, known))
        for carrier in carriers[1:]:
            groups.union(carriers[0], carrier)
        placed[(path, site.position)] = carriers[0] if carriers else f"{path}:{site.scope}"
    return {
        key: value if isinstance(value, str) else repr(groups.find(value))
        for key, value in placed.items()
    }


def _warning_sites(results: Iterable[FileResult]) -> Iterator[tuple[str, Site, str]]:
    """Each warning site with its first source line (where a model field is named)."""
    for result in results:
        sites = [s for s in result.sites if s.kind in GROUPED_KINDS]
        lines = (file_text(result.path) or "").splitlines() if sites else []
        for site in sites:
            number = site.position.line
            yield result.path, site, lines[number - 1] if number <= len(lines) else ""


def _carriers_of(
    path: str, site: Site, line: str, known: dict[str, list[Carrier]]
) -> Iterator[Carrier]:
    function = site.scope.rpartition(".")[2]
    module = PurePosixPath(path).with_suffix("").as_posix().replace("/", ".")
    found = False
    for carrier in known.get(function, ()):
        if _belongs(carrier, module):
            found = True
            yield carrier
    field = _FIELD.match(line)
    if not found and site.kind is Kind.ANNOTATION and field is not None:
        yield FieldCarrier(field.group(1))  # a model field: ``warnings: list[str] = ...``
        yield KeyCarrier(field.group(1))


def _belongs(carrier: Carrier, module: str) -> bool:
    """A carrier of the site's function name: a local only of the site's own module."""
    if isinstance(carrier, LocalCarrier):
        return bool(carrier.module) and (
            f".{module}".endswith(f".{carrier.module}")
            or f".{carrier.module}".endswith(f".{module}")
        )
    return isinstance(carrier, (ParamCarrier, ReturnCarrier, SlotCarrier)) and bool(
        carrier.function
    )


class _Groups:
    """Union-find over carriers; the smallest carrier of a group names it (stable output)."""

    def __init__(self) -> None:
        self.parent: dict[Carrier, Carrier] = {}

    def find(self, carrier: Carrier) -> Carrier:
        parent = self.parent.setdefault(carrier, carrier)
        if parent != carrier:
            parent = self.parent[carrier] = self.find(parent)
        return parent

    def union(self, first: Carrier, second: Carrier) -> None:
        a, b = self.find(first), self.find(second)
        if a != b:
            low, high = sorted((a, b), key=carrier_order)
            self.parent[high] = low

    def carriers(self) -> list[Carrier]:
        return list(self.parent)
