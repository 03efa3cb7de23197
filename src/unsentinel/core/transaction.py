"""Writing an ``apply``: all or nothing, journalled, optionally checked by the user's command.

A migration half-written is worse than none. If any file failed, nothing is written (or,
with ``--allow-partial``, all but the files that share flow with a failure); otherwise the
generated modules go first, then each file atomically, after the journal
(:mod:`unsentinel.core.journal`) has recorded what to restore. ``--verify`` runs a command
before and after, and rolls the whole apply back if anything that passed broke.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from unsentinel.core import journal
from unsentinel.core.config import Config
from unsentinel.core.model import FileResult
from unsentinel.core.verify import Outcome, Verification, broken, run_check
from unsentinel.core.writer import (
    StaleFileError,
    dirty_files,
    outside_root,
    same_text,
    write_atomic,
)

if TYPE_CHECKING:
    from unsentinel.core.result import RunResult


@dataclass(frozen=True)
class ApplyOptions:
    """How ``apply`` may write: past uncommitted changes, partially, and checked by a command."""

    allow_dirty: bool = False
    allow_partial: bool = False  # write what succeeded where no failed file shares its flow
    verify: str | None = None  # the user's command, run before and after writing


def apply(result: RunResult, config: Config, options: ApplyOptions) -> RunResult:
    """Write the run's changes: all or nothing, or (``--allow-partial``) all but conflicts."""
    skip: frozenset[str] = frozenset()
    if result.failed:
        if not options.allow_partial:
            # A migration half-written is worse than none: list the failures, hold back
            # every change, move nothing on disk.
            return replace(result, held_back=tuple(r.path for r in result.changed))
        conflicts = partial_conflicts(result)
        skip = frozenset(path for path, _reason in conflicts)
        result = replace(result, conflicts=conflicts, held_back=tuple(sorted(skip)))
    before = run_check(options.verify, config.root) if options.verify else None
    result = write_changes(result, config, allow_dirty=options.allow_dirty, skip=skip)
    if options.verify and before is not None and result.written:
        result = _verified(result, config, options.verify, before)
    return result


def _verified(result: RunResult, config: Config, command: str, before: Outcome) -> RunResult:
    """Run the user's check again; roll the whole apply back if anything that passed broke."""
    after = run_check(command, config.root)
    broke = tuple(broken(before, after))
    if not broke:
        return replace(result, verification=Verification(command, before, after, (), False))
    journal.undo(config.root)
    verification = Verification(command, before, after, broke, rolled_back=True)
    return replace(result, verification=verification, held_back=result.written, written=())


_DEFINITION = re.compile(
    rb"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.M
)


def partial_conflicts(result: RunResult) -> tuple[tuple[str, str], ...]:
    """Changed files that share flow with a failed file, and why (``--allow-partial``).

    A failed file could not be migrated; a file that uses a function or class it defines
    (a helper whose callers were rewritten) must not be migrated without it. The test is
    textual -- the failed file may not parse -- and errs on the side of holding back.
    """
    defined: dict[str, str] = {}
    for path, _reason in result.failed:
        for name in _definitions(Path(path)):
            defined.setdefault(name, path)
    if not defined:
        return ()
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(defined))) + r")\b")
    conflicts = []
    for changed in result.results:
        found = pattern.search(changed.original or "") if changed.changed else None
        if found is not None:
            name = found.group(1)
            reason = f"uses {name}, defined in {defined[name]}, which failed"
            conflicts.append((changed.path, reason))
    return tuple(conflicts)


def _definitions(path: Path) -> set[str]:
    try:
        data = path.read_bytes()
    except OSError:
        return set()
    return {match.group(1).decode() for match in _DEFINITION.finditer(data)}


def write_changes(
    result: RunResult, config: Config, *, allow_dirty: bool, skip: frozenset[str] = frozenset()
) -> RunResult:
    """Write every changed file, all or nothing, unless one of them has uncommitted changes.

    Each file is replaced atomically; the run as a whole is made atomic by the journal
    (:mod:`unsentinel.core.journal`), recorded before the first write: if any write fails,
    the files already written are restored from it and nothing is left half-migrated.
    Generated modules go first, so that even a killed run never leaves a file importing a
    module that was never written (``unsentinel undo`` then restores the rest).
    """
    changed = [r for r in result.emitted if r.changed] + [
        r for r in result.results if r.changed and r.path not in skip
    ]
    if not changed:
        return result  # nothing to write: no journal either
    targets = [Path(r.path) for r in changed]
    if not allow_dirty:
        dirty = dirty_files(config.root, [t for t in targets if t.exists()])
        if dirty:
            refused = tuple(sorted(os.path.relpath(p) for p in dirty))
            return replace(result, refused_dirty=refused)
    problems = [
        problem
        for r, t in zip(changed, targets, strict=True)
        if (problem := _unwritable(r, t, config)) is not None
    ]
    if problems:
        unwritable = {path for path, _reason in problems}
        held = tuple(r.path for r in changed if r.path not in unwritable)
        return replace(result, write_errors=tuple(problems), held_back=held)
    entries = [_journal_entry(r, t, config.root) for r, t in zip(changed, targets, strict=True)]
    try:
        journal.record(config.root, entries)
    except OSError as exc:
        reason = f"cannot record the journal of this apply: {exc.strerror or exc}; nothing written"
        return replace(
            result,
            write_errors=((str(journal.journal_path(config.root)), reason),),
            held_back=tuple(r.path for r in changed),
        )
    written: list[str] = []
    for file_result, target in zip(changed, targets, strict=True):
        error = _write_one(file_result, target)
        if error is not None:
            journal.restore(config.root, entries[: len(written)])
            journal.forget(config.root)
            held = tuple(r.path for r in changed if r.path != file_result.path)
            return replace(result, write_errors=((file_result.path, error),), held_back=held)
        written.append(file_result.path)
    return replace(result, written=tuple(written))


def _unwritable(file_result: FileResult, target: Path, config: Config) -> tuple[str, str] | None:
    """Why ``target`` must not be written at all, checked before anything is."""
    if outside_root(target, config.root):
        return (file_result.path, f"outside the project root {config.root}; not written")
    if file_result.original is not None and not target.exists():
        return (file_result.path, "vanished before it could be written; not recreated")
    return None


def _journal_entry(file_result: FileResult, target: Path, root: Path) -> journal.Entry:
    assert file_result.new_source is not None
    try:
        original: bytes | None = target.read_bytes()
    except FileNotFoundError:
        original = None
    relative = Path(os.path.relpath(os.path.realpath(target), os.path.realpath(root))).as_posix()
    return journal.Entry(relative, original, journal.sha256(file_result.new_source))


def _write_one(file_result: FileResult, target: Path) -> str | None:
    """Write one file atomically; the reason it could not be, or None."""
    assert file_result.new_source is not None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, file_result.new_source, unchanged=same_text(file_result.original))
    except StaleFileError:
        return "changed on disk while unsentinel ran; nothing written (run apply again)"
    except OSError as exc:
        return f"cannot write: {exc.strerror or exc}; nothing written"
    return None
