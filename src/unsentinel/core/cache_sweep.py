"""Keeping the check cache small: entries nobody uses are removed.

Every edit of a file adds entries under new keys (its bytes changed, so did the facts, the
packs of the rounds and the whole run's key) and never touches the old ones, and an upgrade
or a configuration change leaves every entry of before unreachable. Without a sweep a
cache used in a pre-commit hook grows by the size of a run's entries with each edit, for
ever. So, as ccache and pip's cache do:

* a run marks what it used: every entry it read gets its modification time set to now
  (an entry it wrote has one already);
* at most once a day (a run whose cache was swept within :data:`SWEEP_EVERY` skips it), a
  run removes every entry unused for :data:`MAX_AGE`, then, while the rest is larger than
  :data:`MAX_BYTES`, the least recently used, and temporary files a crashed run left;
* nothing this run used is ever removed, whatever the size.

A sweep is best effort like every other cache operation: a file another run removed or
replaced meanwhile is skipped, and an entry removed under a run that wanted it is a miss,
computed again. The cache's own ``.gitignore`` and ``CACHEDIR.TAG`` stay, and so do the
(empty) folders: a run may be about to write into one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

DAY = 24 * 60 * 60
MAX_AGE = 14 * DAY  # an entry no run used for two weeks
MAX_BYTES = 256 * 1024 * 1024  # least recently used beyond this go
SWEEP_EVERY = DAY
STALE_TEMPORARY = 60 * 60  # a ``.tmp-*.part`` this old belongs to no running write
MARKER = "last-sweep"  # its modification time says when the cache was last swept
KEEP = frozenset({".gitignore", "CACHEDIR.TAG", MARKER})


@dataclass(frozen=True)
class Swept:
    """What a sweep removed (entries and their bytes) and what it kept."""

    removed: int
    freed: int
    kept: int


def mark_used(paths: Iterable[Path], now: float) -> None:
    """Give each entry a run read the time ``now``: the sweep takes it for recently used."""
    for path in paths:
        try:
            os.utime(path, (now, now))
        except OSError:
            continue  # removed meanwhile: nothing to keep


def sweep_if_due(directory: Path, started: float, now: float | None = None) -> Swept | None:
    """Sweep ``directory`` unless it was swept within :data:`SWEEP_EVERY`; ``started``: when
    this run began (what it used since is never removed). None where no sweep ran."""
    now = time.time() if now is None else now
    marker = directory / MARKER
    try:
        if now - marker.stat().st_mtime < SWEEP_EVERY:
            return None
    except FileNotFoundError:
        pass
    except OSError:
        return None
    if not directory.is_dir():
        return None
    swept = sweep(directory, now, started)
    try:
        marker.touch()
        os.utime(marker, (now, now))
    except OSError:
        pass
    return swept


@dataclass(frozen=True)
class _Entry:
    path: Path
    used: float
    size: int


def sweep(
    directory: Path,
    now: float,
    started: float,
    max_age: float = MAX_AGE,
    max_bytes: int = MAX_BYTES,
) -> Swept:
    """Remove the entries of ``directory`` unused for ``max_age``, then the least recently
    used until the rest fits in ``max_bytes``; never one used since ``started``."""
    entries = sorted(_entries(directory), key=lambda entry: entry.used, reverse=True)
    kept: list[_Entry] = []
    removed = freed = total = 0
    for entry in entries:  # most recently used first: the first to exceed the size go
        recent = entry.used >= started
        too_old = now - entry.used > max_age
        too_big = total + entry.size > max_bytes
        if not recent and (too_old or too_big or _stale_temporary(entry, now)):
            if _remove(entry.path):
                removed += 1
                freed += entry.size
            continue
        kept.append(entry)
        total += entry.size
    return Swept(removed, freed, len(kept))


def _entries(directory: Path) -> Iterable[_Entry]:
    for folder, _, names in os.walk(directory):
        for name in names:
            if folder == str(directory) and name in KEEP:
                continue
            path = Path(folder) / name
            try:
                status = path.stat()
            except OSError:
                continue
            yield _Entry(path, status.st_mtime, status.st_size)


def _stale_temporary(entry: _Entry, now: float) -> bool:
    return entry.path.name.startswith(".tmp-") and now - entry.used > STALE_TEMPORARY


def _remove(path: Path) -> bool:
    try:
        path.unlink()
    except OSError:
        return False
    return True
