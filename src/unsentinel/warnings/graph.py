"""Where warnings live, how they move between those places, and which groups can migrate.

A value changes from ``str`` to ``Warning`` only when every producer and consumer connected
to it changes too. The flow model is therefore a graph: its nodes are *carriers* -- the
places a warning lives (a local list, a model field, a dict key, a helper's return value or
one slot of it, a parameter) -- and its edges are the flows seen in code (``append``,
``extend``, assignment, ``return``, argument passing, unpacking). Each file records its
edges and its *blockers* (sites that cannot be migrated) in ``WarningNotes``; the gather
pass merges them and :func:`settle_blocked` decides, per connected group, whether anything
blocks it. A rewrite of a site whose carrier lies in a blocked group is reported as
``skip`` naming the blocker, never half-applied.

The keys are typed values, never strings with a grammar. Function names are bare names,
as in the rest of the warning facts: two helpers with one name share a group, which can
only make the tool skip more, never migrate less consistently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from unsentinel.core.gather import module_token


@dataclass(frozen=True, order=True)
class LocalCarrier:
    """A variable of one function (``function`` is ``""`` at module level)."""

    module: str
    function: str
    name: str


@dataclass(frozen=True, order=True)
class FieldCarrier:
    """Every ``x.<name>`` attribute and every model field ``<name>``: one place per name."""

    name: str


@dataclass(frozen=True, order=True)
class KeyCarrier:
    """A dict entry ``{"<name>": ...}`` / ``d["<name>"]``, as built or as dumped."""

    name: str


@dataclass(frozen=True, order=True)
class ReturnCarrier:
    """What ``function`` returns (as a whole)."""

    function: str


@dataclass(frozen=True, order=True)
class SlotCarrier:
    """Element ``index`` of the tuple ``function`` returns."""

    function: str
    index: int


@dataclass(frozen=True, order=True)
class ParamCarrier:
    """A parameter of ``function``, by position or by name (the two are linked at the def)."""

    function: str
    key: int | str


Carrier = LocalCarrier | FieldCarrier | KeyCarrier | ReturnCarrier | SlotCarrier | ParamCarrier


def carrier_order(carrier: Carrier) -> tuple[str, str]:
    """A total order over carriers of different kinds (for deterministic settling)."""
    return type(carrier).__name__, repr(carrier)


def carrier_name(carrier: Carrier) -> str:
    """The name a file must mention to touch ``carrier`` (a function, a field or a key);
    a function's local is touched by its own module alone (a global, by its importers too)."""
    if isinstance(carrier, (FieldCarrier, KeyCarrier)):
        return carrier.name
    if isinstance(carrier, LocalCarrier):
        return module_token(carrier.module) if carrier.function else carrier.name
    return carrier.function


@dataclass(frozen=True)
class Link:
    """A flow between two carriers: whatever one holds, the other may hold too."""

    first: Carrier
    second: Carrier


@dataclass(frozen=True)
class Blocker:
    """A site whose value cannot be migrated: its whole group stays as it is."""

    path: str
    line: int
    why: str
    carrier: Carrier

    def order(self) -> tuple[str, int, str, tuple[str, str]]:
        return self.path, self.line, self.why, carrier_order(self.carrier)

    @property
    def reason(self) -> str:
        """What every other site of the group says about why it was skipped."""
        return f"connected to {self.path}:{self.line}: {self.why}"


@dataclass(frozen=True)
class KeyedEntries:
    """Entries written into a list under a dict key, as objects or as dumped dicts.

    ``view["warnings"].append(f"...")`` adds ``Warning`` objects once migrated; a test's
    ``{"warnings": ["Existing warning"]}`` is written as a dumped response (dicts). One list
    cannot hold both: a group with both kinds is blocked when it is settled.
    """

    path: str
    line: int
    carrier: Carrier
    dumped: bool
    # The parameters the dict is (an append into a parameter's key) or is passed to (a
    # stand-in): the two kinds collide only where they share one (keyed_entries.py).
    params: frozenset[ParamCarrier] = frozenset()

    def order(self) -> tuple[str, int, tuple[str, str]]:
        return self.path, self.line, carrier_order(self.carrier)


@dataclass(frozen=True)
class ConstantUse:
    """A producer at ``carrier`` that spells a sentinel constant: skipped, the use stays."""

    carrier: Carrier
    name: str


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[Carrier, Carrier] = {}

    def find(self, carrier: Carrier) -> Carrier:
        parent = self.parent.setdefault(carrier, carrier)
        if parent == carrier:
            return carrier
        root = self.find(parent)
        self.parent[carrier] = root
        return root

    def union(self, first: Carrier, second: Carrier) -> None:
        a, b = self.find(first), self.find(second)
        if a != b:  # the smaller key is the root: the result never depends on the order
            low, high = sorted((a, b), key=carrier_order)
            self.parent[high] = low


def settle_blocked(
    links: Iterable[Link], blockers: Iterable[Blocker], keyed: Iterable[KeyedEntries] = ()
) -> dict[Carrier, Blocker]:
    """Every carrier of a blocked group, mapped to the group's first blocker.

    A field and a dict key of the same name are one place: ``model_dump()`` turns the one
    into the other. A group whose keyed lists get both objects and dumped dicts is blocked
    too (:class:`KeyedEntries`).
    """
    groups = _UnionFind()
    for link in links:
        groups.union(link.first, link.second)
    keyed = sorted(keyed, key=KeyedEntries.order)
    for carrier in [*(b.carrier for b in blockers), *(k.carrier for k in keyed)]:
        groups.find(carrier)
    for carrier in list(groups.parent):
        if isinstance(carrier, KeyCarrier):
            groups.union(carrier, FieldCarrier(carrier.name))
        elif isinstance(carrier, FieldCarrier):
            groups.union(carrier, KeyCarrier(carrier.name))
    ordered = sorted([*blockers, *_mixed_entries(groups, keyed)], key=Blocker.order)
    first: dict[Carrier, Blocker] = {}
    for blocker in ordered:
        first.setdefault(groups.find(blocker.carrier), blocker)
    return {
        carrier: first[root] for carrier in groups.parent if (root := groups.find(carrier)) in first
    }


def _mixed_entries(groups: _UnionFind, keyed: list[KeyedEntries]) -> list[Blocker]:
    """A blocker for each group where objects are appended to a dict that a test's dumped
    stand-in is passed to as well (they share a parameter), at the first such append."""
    dumped: dict[Carrier, list[KeyedEntries]] = {}
    for entries in keyed:
        if entries.dumped:
            dumped.setdefault(groups.find(entries.carrier), []).append(entries)
    found: dict[Carrier, Blocker] = {}
    for entries in keyed:
        root = groups.find(entries.carrier)
        if entries.dumped or root in found:
            continue
        stand_in = next((d for d in dumped.get(root, ()) if d.params & entries.params), None)
        if stand_in is None:
            continue
        why = (
            "Warning objects are added to this keyed list, while "
            f"{stand_in.path}:{stand_in.line} passes it entries written as dumped dicts"
        )
        found[root] = Blocker(entries.path, entries.line, why, entries.carrier)
    return list(found.values())


def blocker_of(blocked: Mapping[Carrier, Blocker], carriers: Iterable[Carrier]) -> Blocker | None:
    """The blocker of the first blocked group among ``carriers``, if any."""
    found = sorted((blocked[c] for c in carriers if c in blocked), key=Blocker.order)
    return found[0] if found else None
