"""One site's change, as ``apply --interactive`` shows it: the lines before and after.

A run computes whole new files; a reviewer decides one site at a time. This cuts the
changed lines that overlap a site out of its file's diff, so each prompt shows only what
accepting that site writes (plus whatever other edit shares those lines).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from unsentinel.core.decisions import file_text, site_fingerprint
from unsentinel.core.model import Action, FileResult, Position, Site, Status

REVIEWED_ACTIONS = frozenset({Action.REWRITE, Action.REVIEW})
"""Sites ``apply`` changes; the others (skip, report, note) have nothing to accept."""

Groups = Mapping[tuple[str, Position], str]
"""A group name per site (path, position): sites of one group are skipped together."""


@dataclass(frozen=True)
class SiteChange:
    """A site to review: where it is, its plan fingerprint, and its lines before / after."""

    path: str
    site: Site
    fingerprint: str
    before: tuple[str, ...]
    after: tuple[str, ...]
    group: str | None = None  # the connected group: a skip of one site skips them all

    @property
    def key(self) -> tuple[str, str]:
        """What a plan entry is matched by (two identical sites of a function share it)."""
        return self.path, self.fingerprint

    @property
    def where(self) -> str:
        position = self.site.position
        return f"{self.path}:{position.line}:{position.column}"


def site_changes(results: Iterable[FileResult], groups: Groups | None = None) -> list[SiteChange]:
    """Every site a run would change, in file order (path, then position).

    ``groups`` (from :func:`unsentinel.registry.site_groups`) names each site's connected
    group; a site it does not name stands alone.
    """
    groups = groups or {}
    changes: list[SiteChange] = []
    for result in sorted(results, key=lambda r: r.path):
        sites = [s for s in result.sites if s.action in REVIEWED_ACTIONS]
        if result.status is not Status.PARSED or not sites:
            continue
        text = file_text(result.path)
        if text is None:
            continue
        old = text.splitlines()
        new = result.new_text.splitlines() if result.new_text is not None else old
        opcodes = _split(old, new, difflib.SequenceMatcher(None, old, new, autojunk=False))
        for site in sorted(sites, key=lambda s: (s.position.line, s.position.column)):
            before, after = _lines_of(site, old, new, opcodes)
            print_ = site_fingerprint(text, site)
            group = groups.get((result.path, site.position))
            changes.append(SiteChange(result.path, site, print_, before, after, group))
    return changes


Opcode = tuple[str, int, int, int, int]


def _split(old: list[str], new: list[str], matcher: difflib.SequenceMatcher[str]) -> list[Opcode]:
    """The diff's opcodes, a block that replaces several lines cut into one per old line.

    difflib joins adjacent changed lines into one block; two sites on neighbouring lines
    (an annotation and the append below it) would each show both. Each old line takes the
    new lines from the first one that starts as it does (``    warnings.append(``).
    """
    opcodes: list[Opcode] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        starts = _starts(old[i1:i2], new[j1:j2]) if tag == "replace" and i2 - i1 > 1 else None
        if starts is None:
            opcodes.append((tag, i1, i2, j1, j2))
            continue
        ends = [*starts[1:], j2 - j1]
        opcodes.extend(
            ("replace", i1 + k, i1 + k + 1, j1 + a, j1 + b)
            for k, (a, b) in enumerate(zip(starts, ends, strict=True))
        )
    return opcodes


def _starts(old: list[str], new: list[str]) -> list[int] | None:
    """Where each old line's replacement starts among ``new`` (None: no clear match)."""
    starts = [0]
    for k, line in enumerate(old[1:], 1):
        room = len(new) - (len(old) - k)  # leave a line for each old line still to place
        candidates = range(starts[-1] + 1, room + 1)
        scored = [(_common_prefix(line, new[j]), -j) for j in candidates]
        if not scored or max(scored)[0] <= _indent(line):
            return None
        starts.append(-max(scored)[1])
    return starts


def _common_prefix(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _lines_of(
    site: Site, old: list[str], new: list[str], opcodes: Sequence[Opcode]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The changed lines overlapping the site, before and after (its own lines if none)."""
    first, last = site.position.line - 1, site.position.end_line  # 0-based, end exclusive
    touching = [
        (i1, i2, j1, j2)
        for tag, i1, i2, j1, j2 in opcodes
        if tag != "equal" and ((i1 < last and i2 > first) or (i1 == i2 and first <= i1 <= last))
    ]
    if not touching:
        lines = tuple(old[first:last])
        return lines, lines
    i1, i2 = min(t[0] for t in touching), max(t[1] for t in touching)
    j1, j2 = min(t[2] for t in touching), max(t[3] for t in touching)
    return tuple(old[i1:i2]), tuple(new[j1:j2])
