"""A whole run: discover files, gather cross-file facts, process every file, write back.

The worker pool maps :class:`~unsentinel.core.engine.Pipeline.process` over files; results come
back in input order whatever order they finish in, so output is deterministic. The pool starts
only when the work pays for it (:data:`POOL_MIN_BYTES`), and the largest files go first so
that no worker is left parsing a 10,000-line module while the others idle.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path

from unsentinel.core import journal
from unsentinel.core.cache import CheckCache, settings_key
from unsentinel.core.config import Config
from unsentinel.core.decisions import Decisions
from unsentinel.core.discovery import Discovery, discover
from unsentinel.core.engine import Pipeline
from unsentinel.core.facts import FactBook
from unsentinel.core.gather import changed_functions, merge_results
from unsentinel.core.lock import project_lock
from unsentinel.core.model import FileResult, FileTask, Mode, Status
from unsentinel.core.suite import Suite
from unsentinel.core.verify import Outcome, broken, run_check
from unsentinel.core.writer import (
    StaleFileError,
    dirty_files,
    outside_root,
    same_text,
    write_atomic,
)

GATHER_ROUNDS = 3  # each round follows warnings one call deeper; most repos converge in 2
# Below this much work a pool costs more than it saves: starting the workers and sending them
# the rules takes a few tenths of a second, about what LibCST needs for this many bytes.
POOL_MIN_BYTES = 256 * 1024
# A file the byte prefilter rejects is only read (and, when gathering, parsed by ``ast``):
# roughly this many times cheaper than one that reaches LibCST.
PREFILTERED_DISCOUNT = 16
CHUNKS_PER_WORKER = 4  # enough to even out the tail, few enough to keep messages cheap

Progress = Callable[[str, int], Callable[[], None]]
"""``progress(phase, total)`` returns an ``advance()`` callback; the CLI draws a bar."""


@dataclass(frozen=True)
class ApplyOptions:
    """How ``apply`` may write: past uncommitted changes, partially, and checked by a command."""

    allow_dirty: bool = False
    allow_partial: bool = False  # write what succeeded where no failed file shares its flow
    verify: str | None = None  # the user's command, run before and after writing


@dataclass(frozen=True)
class Verification:
    """``apply --verify``: the command's outcome before and after, and what broke."""

    command: str
    before: Outcome
    after: Outcome
    broken: tuple[str, ...]
    rolled_back: bool


@dataclass(frozen=True)
class RunResult:
    mode: Mode
    results: tuple[FileResult, ...]
    discovery: Discovery
    emitted: tuple[FileResult, ...] = ()
    written: tuple[str, ...] = ()
    write_errors: tuple[tuple[str, str], ...] = ()
    refused_dirty: tuple[str, ...] = ()
    held_back: tuple[str, ...] = ()  # changed files not written because another file failed
    conflicts: tuple[tuple[str, str], ...] = ()  # --allow-partial: held back, and why
    verification: Verification | None = None  # --verify: before, after, what broke
    facts: FactBook = field(default_factory=FactBook)
    peak_memory: tuple[int, ...] = ()  # the highest RSS, in bytes, of each process that worked
    cached: int = 0  # check: results taken from the cache (.unsentinel_cache/)

    @property
    def all_results(self) -> tuple[FileResult, ...]:
        return (*self.results, *self.emitted)

    @property
    def failed(self) -> list[tuple[str, str]]:
        failures = [(r.path, r.error or "") for r in self.results if r.status is Status.FAILED]
        return [*self.discovery.errors, *failures, *self.write_errors]

    @property
    def sites(self) -> list[tuple[str, object]]:
        return [(r.path, s) for r in self.results for s in r.sites]

    @property
    def findings(self) -> int:
        """Sites ``check`` reports (look-alikes noted for review don't count)."""
        return sum(1 for r in self.results for s in r.sites if s.action.is_finding)

    @property
    def changed(self) -> list[FileResult]:
        return [r for r in self.all_results if r.changed]

    @property
    def exit_code(self) -> int:
        """ruff's contract: 2 for errors, 1 for findings or changes, 0 when clean."""
        if self.failed or self.refused_dirty or self.held_back:
            return 2
        if self.mode is Mode.CHECK:
            return 1 if self.findings else 0
        if self.mode is Mode.APPLY:
            return 0  # everything it set out to write was written (the CLI: --exit-non-zero-on-fix)
        if self.mode is Mode.PLAN:
            return 0  # a listing, not a verdict
        return 1 if self.changed or self.findings else 0


def run(
    paths: Sequence[Path],
    config: Config,
    mode: Mode,
    suite: Suite,
    *,
    files_from: Iterable[str] = (),
    jobs: int | None = None,
    allow_dirty: bool = False,
    allow_partial: bool = False,
    verify: str | None = None,
    progress: Progress | None = None,
    decisions: Decisions | None = None,
    cache: bool = False,
) -> RunResult:
    """Run ``suite`` over ``paths`` (:func:`unsentinel.run` passes the registered one).

    ``cache``: ``check`` reuses and records per-file results under the project's
    ``.unsentinel_cache/`` (:mod:`unsentinel.core.cache`); other modes ignore it.
    ``apply`` holds the project's lock (:mod:`unsentinel.core.lock`) from discovery to the last
    write; a second ``apply`` on the same tree meanwhile raises
    :class:`~unsentinel.core.lock.LockError` at once (the CLI exits 2).
    """
    options = ApplyOptions(allow_dirty, allow_partial, verify)
    if mode is Mode.APPLY:
        with project_lock(config.root):  # raises LockError while another apply runs
            return _run(paths, config, mode, suite, files_from, jobs, options, progress, decisions)
    return _run(
        paths, config, mode, suite, files_from, jobs, options, progress, decisions, cache=cache
    )


def _run(
    paths: Sequence[Path],
    config: Config,
    mode: Mode,
    suite: Suite,
    files_from: Iterable[str],
    jobs: int | None,
    options: ApplyOptions,
    progress: Progress | None,
    decisions: Decisions | None = None,
    *,
    cache: bool = False,
) -> RunResult:
    discovery = discover(paths, config, files_from)
    tasks = list(discovery.tasks)
    facts = FactBook()
    usage = WorkerUsage()
    if mode.rewrites:
        facts = gather(
            tasks, config, suite, jobs=jobs, progress=progress, usage=usage, decisions=decisions
        )
    facts = _with_decisions(facts, decisions)
    pipeline = Pipeline(config, suite, facts, mode)
    checked: CheckCache | None = None
    if cache and mode is Mode.CHECK:
        checked = CheckCache(config.root, settings_key(config, [r.code for r in suite.rules]))
        pipeline_results = _check_cached(tasks, pipeline, checked, jobs, progress, usage)
    else:
        pipeline_results = tuple(_map(tasks, pipeline, jobs, progress, "Processing", usage))
    emitted: tuple[FileResult, ...] = ()
    if mode.rewrites:
        emitted = tuple(
            module for emit in suite.emitters for module in emit(pipeline_results, facts, config)
        )
    result = RunResult(
        mode,
        pipeline_results,
        discovery,
        emitted,
        facts=facts,
        peak_memory=usage.peaks(),
        cached=checked.hits if checked is not None else 0,
    )
    return _apply(result, config, options) if mode is Mode.APPLY else result


def _apply(result: RunResult, config: Config, options: ApplyOptions) -> RunResult:
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


def gather(
    tasks: Sequence[FileTask],
    config: Config,
    suite: Suite,
    *,
    jobs: int | None = None,
    progress: Progress | None = None,
    usage: WorkerUsage | None = None,
    decisions: Decisions | None = None,
) -> FactBook:
    """The read-only pass whose facts every file's rewrite may use.

    ``decisions`` (an edited plan) are seen by the gather pass too: a site the plan leaves
    alone keeps what it uses (a sentinel constant) in use.
    """
    facts = _with_decisions(FactBook(), decisions)
    results: dict[str, FileResult] = {}
    pending = list(tasks)
    for _round in range(GATHER_ROUNDS):
        pipeline = Pipeline(config, suite, facts, Mode.CHECK, gather=True)
        for result in _map(pending, pipeline, jobs, progress, "Gathering", usage):
            results[result.path] = result
        merged = merge_results(suite, config, results.values())
        changed = changed_functions(facts, merged)
        facts = _with_decisions(merged, decisions)
        if not changed:
            break
        # Only files that mention a helper whose facts changed can learn anything new.
        pending = [t for t in tasks if _mentions_any(t.path, changed)]
    return facts


def _with_decisions(facts: FactBook, decisions: Decisions | None) -> FactBook:
    """The reviewer's plan and options ride to every rule with the facts."""
    if decisions is None:
        return facts
    return FactBook({**facts.entries, Decisions: decisions}, gathered=facts.gathered)


def _mentions_any(path: Path, names: set[str]) -> bool:
    try:
        data = path.read_bytes()
    except OSError:
        return True  # let the pipeline report it
    return any(name.encode() in data for name in names)


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


# -- the check cache ------------------------------------------------------------------------


def _check_cached(
    tasks: Sequence[FileTask],
    pipeline: Pipeline,
    cache: CheckCache,
    jobs: int | None,
    progress: Progress | None,
    usage: WorkerUsage,
) -> tuple[FileResult, ...]:
    """``check`` through the cache: hits come from disk, misses from the pipeline (and are kept).

    A fresh result is kept only if the file still has the bytes its key was made from, so a
    file edited while it was being checked is never cached under its old contents.
    """
    limit = pipeline.config.max_file_size
    keys = [cache.key(task, limit) for task in tasks]
    found = [
        None if key is None else cache.load(key, task)
        for task, key in zip(tasks, keys, strict=True)
    ]
    missing = [index for index, result in enumerate(found) if result is None]
    fresh = _map([tasks[i] for i in missing], pipeline, jobs, progress, "Processing", usage)
    for index, result in zip(missing, fresh, strict=True):
        found[index] = result
        key = keys[index]
        if key is not None and cache.key(tasks[index], limit) == key:
            cache.store(key, result)
    return tuple(result for result in found if result is not None)


# -- the pool -----------------------------------------------------------------------------


@dataclass
class WorkerUsage:
    """The peak memory of every process that ran the pipeline, for ``--statistics``."""

    by_process: dict[int, int] = field(default_factory=dict)  # pid -> peak RSS in bytes

    def note(self, pid: int, peak: int) -> None:
        self.by_process[pid] = max(peak, self.by_process.get(pid, 0))

    def peaks(self) -> tuple[int, ...]:
        return tuple(sorted(self.by_process.values(), reverse=True))


def peak_rss() -> int:
    """This process's peak resident set size in bytes (0 where the platform cannot say)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux counts KiB


_worker_pipeline: Pipeline | None = None


def _init_worker(pipeline: Pipeline) -> None:
    global _worker_pipeline
    _worker_pipeline = pipeline


def _work(tasks: list[FileTask]) -> tuple[list[FileResult], int, int]:
    """One chunk in a worker: its results, and the worker's pid and peak memory so far."""
    assert _worker_pipeline is not None
    results = [_worker_pipeline.process(task) for task in tasks]
    return results, os.getpid(), peak_rss()


def effective_jobs(jobs: int | None) -> int:
    return jobs if jobs and jobs > 0 else (os.cpu_count() or 1)


def _map(
    tasks: Sequence[FileTask],
    pipeline: Pipeline,
    jobs: int | None,
    progress: Progress | None,
    phase: str,
    usage: WorkerUsage | None = None,
) -> Iterator[FileResult]:
    """``pipeline.process`` over ``tasks``, results in input order; a pool only when it pays."""
    usage = usage if usage is not None else WorkerUsage()
    advance = progress(phase, len(tasks)) if progress else (lambda: None)
    workers = min(effective_jobs(jobs), len(tasks))
    if workers <= 1 or not worth_a_pool(tasks, pipeline):
        for task in tasks:
            yield pipeline.process(task)
            advance()
        usage.note(os.getpid(), peak_rss())
        return
    chunks = schedule(tasks, workers)
    yield from _pooled(tasks, pipeline, min(workers, len(chunks)), chunks, advance, usage)


def worth_a_pool(tasks: Sequence[FileTask], pipeline: Pipeline) -> bool:
    """Is there at least :data:`POOL_MIN_BYTES` of work, by the bytes LibCST will see?

    Files the byte prefilter passes count in full, the others at a discount; the count
    stops as soon as the answer is yes, largest files first.
    """
    estimate = 0
    for task in sorted(tasks, key=_size, reverse=True):
        data = _head(task, pipeline.config.max_file_size)
        if data is None:
            continue
        matches = pipeline.prefilter.may_match(data)
        estimate += len(data) if matches else len(data) // PREFILTERED_DISCOUNT
        if estimate >= POOL_MIN_BYTES:
            return True
    return False


def schedule(tasks: Sequence[FileTask], workers: int) -> list[list[int]]:
    """Chunks of task indices, largest files first, each about an equal share of the bytes.

    A large file fills a chunk on its own and starts early; small files travel together,
    so a thousand of them cost a few dozen messages, not a thousand.
    """
    sizes = [_size(task) + _PER_FILE for task in tasks]
    budget = max(1, sum(sizes) // (workers * CHUNKS_PER_WORKER))
    chunks: list[list[int]] = []
    current: list[int] = []
    weight = 0
    for index in sorted(range(len(tasks)), key=lambda i: sizes[i], reverse=True):
        current.append(index)
        weight += sizes[index]
        if weight >= budget:
            chunks.append(current)
            current, weight = [], 0
    if current:
        chunks.append(current)
    return chunks


_PER_FILE = 2048  # opening, reading and reporting a file, in bytes' worth of parsing


def _size(task: FileTask) -> int:
    try:
        return os.stat(task.path).st_size
    except OSError:
        return 0


def _head(task: FileTask, limit: int) -> bytes | None:
    """The file's bytes, or None when it cannot be read, is not a regular file (a FIFO
    would block the read: the pipeline reports it) or will be skipped as too large."""
    try:
        info = os.stat(task.path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        return task.path.read_bytes()
    except OSError:
        return None


def _pooled(
    tasks: Sequence[FileTask],
    pipeline: Pipeline,
    workers: int,
    chunks: list[list[int]],
    advance: Callable[[], None],
    usage: WorkerUsage,
) -> Iterator[FileResult]:
    """Run ``chunks`` in a pool, in the order given; yield results in input order."""
    ready: dict[int, FileResult] = {}
    following = 0  # the next index to yield
    with ProcessPoolExecutor(
        max_workers=workers, initializer=_init_worker, initargs=(pipeline,)
    ) as pool:
        pending: dict[Future[tuple[list[FileResult], int, int]], list[int]] = {
            pool.submit(_work, [tasks[i] for i in chunk]): chunk for chunk in chunks
        }
        while pending:
            done, _running = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                chunk = pending.pop(future)
                results, pid, peak = future.result()
                usage.note(pid, peak)
                for index, result in zip(chunk, results, strict=True):
                    ready[index] = result
                    advance()
            while following in ready:
                yield ready.pop(following)
                following += 1
