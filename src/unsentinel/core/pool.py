"""Where a run's files are worked: in this process, or in a pool when the work pays for it.

The pool starts only when the work is large enough (:data:`POOL_MIN_BYTES`), and the largest
files go first so that no worker is left parsing a 10,000-line module while the others idle.
Each file stays in one worker for the whole run (a *lane*: a single-process executor with
its own :class:`~unsentinel.core.store.FileStore`), so the gather rounds and the rewrite
find the file already read and parsed there: LibCST parses it once per run, and only a
file's results cross between processes, never its tree. Results come back in input order
whatever order they finish in, so output is deterministic.
"""

from __future__ import annotations

import gc
import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from unsentinel.core.engine import Pipeline
from unsentinel.core.model import FileResult, FileTask
from unsentinel.core.prefilter import Prefilter
from unsentinel.core.store import FileStore

# Below this much work a pool costs more than it saves: starting the workers and sending them
# the rules takes a few tenths of a second, about what LibCST needs for this many bytes.
POOL_MIN_BYTES = 256 * 1024
# A file the byte prefilter rejects is only read (and, when gathering, parsed by ``ast``):
# roughly this many times cheaper than one that reaches LibCST.
PREFILTERED_DISCOUNT = 16
CHUNKS_PER_WORKER = 4  # enough to even out the tail, few enough to keep messages cheap
_PER_FILE = 2048  # opening, reading and reporting a file, in bytes' worth of parsing

# A run keeps every parsed tree in its store: millions of LibCST nodes, each a container
# the cyclic collector walks. With Python's default thresholds (700, 10, 10) the collector
# ran so often over them that it took about a tenth of ``check`` over the standard library.
GC_THRESHOLDS = (100_000, 50, 1000)

Progress = Callable[[str, int], Callable[[], None]]
"""``progress(phase, total)`` returns an ``advance()`` callback; the CLI draws a bar."""


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


def effective_jobs(jobs: int | None) -> int:
    return jobs if jobs and jobs > 0 else (os.cpu_count() or 1)


# -- the estimate and the schedule ----------------------------------------------------------


def worth_a_pool(
    tasks: Sequence[FileTask],
    prefilter: Prefilter,
    limit: int,
    seen: dict[Path, bytes] | None = None,
) -> bool:
    """Is there at least :data:`POOL_MIN_BYTES` of work, by the bytes LibCST will see?

    Files the byte prefilter passes count in full, the others at a discount; the count
    stops as soon as the answer is yes, largest files first (by their ``stat`` size). The
    bytes it reads go into ``seen`` (and bytes already there are not read again), so the
    pipeline reads no file a second time: it takes them from there, in this process or
    sent along to the worker.
    """
    seen = seen if seen is not None else {}
    estimate = 0
    for task in sorted(tasks, key=_size, reverse=True):
        data = seen.get(task.path)
        if data is None:
            data = _head(task, limit)
            if data is None:
                continue
            seen[task.path] = data
        matches = prefilter.may_match(data)
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


# -- the workers ----------------------------------------------------------------------------

Step = tuple[FileTask, bytes | None]  # a file, and its bytes when this process read them
Chunk = tuple[list[FileResult | None], int, int]  # results, the worker's pid and peak RSS

_lane_pipeline: Pipeline | None = None
_lane_store = FileStore()


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect cycles less often while a run holds its trees (this process's thresholds
    come back afterwards: the library may run inside a user's program)."""
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _collect_less() -> None:
    """A lane's worker process lives for one run: its thresholds stay."""
    gc.set_threshold(*GC_THRESHOLDS)


def _use(pipeline: Pipeline) -> None:
    """Set the pipeline for the chunks that follow in this lane (one per pass)."""
    global _lane_pipeline
    _lane_pipeline = pipeline


def _work(steps: list[Step], names: frozenset[str] | None) -> Chunk:
    """One chunk in a lane's worker: its results, and the worker's pid and peak memory."""
    assert _lane_pipeline is not None
    for task, data in steps:
        if data is not None:
            _lane_store.seeded[task.path] = data
    results = [_step(_lane_pipeline, task, _lane_store, names) for task, _data in steps]
    return results, os.getpid(), peak_rss()


def _step(
    pipeline: Pipeline, task: FileTask, store: FileStore, names: frozenset[str] | None
) -> FileResult | None:
    """A first pass over the file, or (``names``) a later gather round that may skip it."""
    if names is None:
        return pipeline.process(task, store)
    return pipeline.regather(task, store, names)


class Workers:
    """The processes one run works its files in, each file in the same one all run long.

    Serial (``lanes == 0``): this process, with one :class:`FileStore`. Pooled: one
    single-process executor per lane; a file's lane is fixed the first time it is sent, so
    its later passes find it loaded. Use as a context manager: the lanes stop on exit.
    """

    def __init__(self, lanes: int, store: FileStore) -> None:
        self.store = store
        self.usage = WorkerUsage()
        self._executors = [
            ProcessPoolExecutor(max_workers=1, initializer=_collect_less) for _ in range(lanes)
        ]
        self._lane_of: dict[Path, int] = {}
        self._load = [0] * lanes  # bytes assigned to each lane so far

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *_exception: object) -> None:
        for executor in self._executors:
            executor.shutdown(cancel_futures=True)

    def map(
        self,
        tasks: Sequence[FileTask],
        pipeline: Pipeline,
        progress: Progress | None,
        phase: str,
        names: frozenset[str] | None = None,
    ) -> Iterator[FileResult | None]:
        """One pass over ``tasks``, results in input order (None: a skipped regather).

        No tasks, no work: a pool's lanes are not even started (a warm ``check``).
        """
        if not tasks:
            return
        advance = progress(phase, len(tasks)) if progress else (lambda: None)
        if not self._executors:
            for task in tasks:
                yield _step(pipeline, task, self.store, names)
                advance()
            self.usage.note(os.getpid(), peak_rss())
            return
        yield from self._pooled(tasks, pipeline, names, advance)

    def forget(self, tasks: Sequence[FileTask]) -> None:
        """Drop what this process keeps of files no later pass needs (a cache hit's tree
        and bytes); a lane's copies go when the lanes stop."""
        for task in tasks:
            self.store.entries.pop(task.path, None)
            self.store.seeded.pop(task.path, None)

    def _pooled(
        self,
        tasks: Sequence[FileTask],
        pipeline: Pipeline,
        names: frozenset[str] | None,
        advance: Callable[[], None],
    ) -> Iterator[FileResult | None]:
        """Send ``tasks`` to their lanes in chunks, largest first; yield in input order."""
        for executor in self._executors:
            executor.submit(_use, pipeline)  # a lane runs its queue in order
        pending: dict[Future[Chunk], list[int]] = {}
        for lane, chunk in self._chunks(tasks):
            steps = [(tasks[i], self.store.take(tasks[i])) for i in chunk]
            pending[self._executors[lane].submit(_work, steps, names)] = chunk
        ready: dict[int, FileResult | None] = {}
        following = 0  # the next index to yield
        while pending:
            done, _running = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                chunk = pending.pop(future)
                results, pid, peak = future.result()
                self.usage.note(pid, peak)
                for index, result in zip(chunk, results, strict=True):
                    ready[index] = result
                    advance()
            while following in ready:
                yield ready.pop(following)
                following += 1

    def _chunks(self, tasks: Sequence[FileTask]) -> list[tuple[int, list[int]]]:
        """Each lane's share of ``tasks`` in chunks, largest first within the lane.

        A file new to the run joins the least loaded lane, its chunk taken largest first
        (the classic longest-first greedy balance); a file seen before stays in its lane.
        """
        new = [i for i, task in enumerate(tasks) if task.path not in self._lane_of]
        for chunk in schedule([tasks[i] for i in new], len(self._executors)):
            lane = min(range(len(self._load)), key=self._load.__getitem__)
            for index in chunk:
                self._lane_of[tasks[new[index]].path] = lane
                self._load[lane] += _size(tasks[new[index]]) + _PER_FILE
        by_lane: dict[int, list[int]] = {}
        for index, task in enumerate(tasks):
            by_lane.setdefault(self._lane_of[task.path], []).append(index)
        return [
            (lane, [indices[i] for i in chunk])
            for lane, indices in sorted(by_lane.items())
            for chunk in schedule([tasks[i] for i in indices], 1)
        ]
