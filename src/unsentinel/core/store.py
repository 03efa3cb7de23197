"""What one process keeps of the run's files: bytes read once, each file parsed once.

:func:`read_source` reads a file as the pipeline takes it (or ends it early: unreadable,
too large, generated); :class:`FileStore` holds what :class:`~unsentinel.core.engine.Pipeline`
learned loading each file -- a :class:`Loaded` module, or that early result -- so that the
gather rounds and the rewrite reuse it.
"""

from __future__ import annotations

import ast
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from unsentinel.core.config import Config
from unsentinel.core.gather import spelled_names
from unsentinel.core.model import FileResult, FileTask, Status
from unsentinel.core.source import is_generated

if TYPE_CHECKING:
    import libcst as cst

    from unsentinel.core.asked import Asked
    from unsentinel.core.prefilter import CallNames
    from unsentinel.core.rule import RuleContext
    from unsentinel.core.tree import TreeMemo


@dataclass
class Loaded:
    """A file read, decoded and parsed by LibCST: what every later pass of the run reuses.

    The module is never mutated (edits build a new tree), so the gather rounds and the
    rewrite can all analyse the same one: a file is parsed by LibCST once per run.
    """

    data: bytes
    text: str
    module: cst.Module | None  # None: not parsed yet (a cached check may never need it)
    source_facts: tuple[object, ...]
    memo: TreeMemo  # parents and positions, resolved once for every pass
    tree: ast.Module | None = None  # the prefilter's ``ast`` parse, kept for ``mentions``
    spelled: frozenset[str] | None = None  # the names its code spells (a later round's test)
    last: Analysed | None = None  # the latest gather round's analysis, for the passes after

    def mentions(self, names: frozenset[str]) -> bool:
        """Does the code name any of ``names``? (its vocabulary is read once, when asked)"""
        if self.spelled is None:
            self.spelled = spelled_names(self.data, self.tree)
            self.tree = None  # read once; the names are all a later round needs
        return not self.spelled.isdisjoint(names)


@dataclass(frozen=True)
class Analysed:
    """The rules' reading of a loaded file in one gather round, with every question it
    asked the facts: a later pass whose facts answer them all the same takes it as is."""

    context: RuleContext
    asked: Asked


class FileStore:
    """One process's memory of the run's files, so that each is read and parsed once.

    ``seeded`` holds bytes the caller has already read (the pool estimate, the check cache's
    key); :meth:`take` hands it over once. Entries are what :class:`Pipeline` learned
    loading a file: a :class:`Loaded` module, or the early result (failed, skipped,
    prefiltered) that every later pass would reach again.
    """

    def __init__(self, seeded: dict[Path, bytes] | None = None) -> None:
        self.seeded = seeded if seeded is not None else {}
        self.entries: dict[Path, Loaded | FileResult] = {}
        # What a file the prefilter stopped calls, once a round has parsed it with ``ast``.
        self.calls: dict[Path, CallNames] = {}
        # The facts of the bytes of a file read again (they were taken the first time).
        self.source_facts: dict[Path, tuple[object, ...]] = {}

    def take(self, task: FileTask) -> bytes | None:
        """Bytes already read for ``task``, handed over once (None: read the file)."""
        return self.seeded.pop(task.path, None)


def read_source(task: FileTask, config: Config) -> bytes | FileResult:
    """The file's bytes as the pipeline takes them, or the result that ends it early; also
    for callers that read before the pipeline runs (the check cache's key)."""
    try:
        info = os.stat(task.path)
    except FileNotFoundError:
        return failed_result(task, "file vanished before it could be read")
    except OSError as exc:
        return failed_result(task, f"cannot stat: {exc.strerror}")
    if stat.S_ISDIR(info.st_mode):
        return failed_result(task, "is a directory, not a Python file")
    if not stat.S_ISREG(info.st_mode):
        return failed_result(task, "not a regular file (FIFO, socket or device)")
    if info.st_size > config.max_file_size:
        reason = f"larger than max-file-size ({info.st_size} > {config.max_file_size} bytes)"
        return FileResult(task.display, Status.SKIPPED, skip_reason=reason)
    try:
        data = task.path.read_bytes()
    except FileNotFoundError:
        return failed_result(task, "file vanished before it could be read")
    except OSError as exc:
        return failed_result(task, f"cannot read: {exc.strerror}")
    return unless_generated(task, data, config)


def unless_generated(task: FileTask, data: bytes, config: Config) -> bytes | FileResult:
    """``data``, unless the file says it is generated and the project skips such files."""
    if not config.include_generated and is_generated(data):
        return FileResult(task.display, Status.SKIPPED, skip_reason="generated file (@generated)")
    return data


def failed_result(
    task: FileTask, reason: str, facts: tuple[object, ...] = (), *, lasting: bool = False
) -> FileResult:
    """A file no rule could read; ``facts``: what its bytes still tell the others (the
    functions a module that does not parse defines are still the repository's).
    ``lasting``: the bytes alone decide the failure (see :attr:`FileResult.lasting`)."""
    return FileResult(task.display, Status.FAILED, error=reason, facts=facts, lasting=lasting)
