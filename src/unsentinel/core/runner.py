"""A whole run: discover files, gather cross-file facts, process every file, write back.

This module keeps the order of things; where the files are worked (this process or a pool
of lanes that each keep their files parsed) is :mod:`unsentinel.core.pool`, and how an
``apply`` writes (all or nothing, journalled) is :mod:`unsentinel.core.transaction`.
Each file is read once and parsed by LibCST at most once per run: the gather rounds and
the rewrite share what :class:`~unsentinel.core.store.FileStore` kept. Every command
gathers, ``check`` included, so that it reports what ``plan`` reports; a cached ``check``
takes each file's gather output and result from :mod:`unsentinel.core.cache` where the
file, and the facts it was told, are the same as then.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from unsentinel.core.cache import CheckCache, Recalled, settings_key
from unsentinel.core.cache_answers import Kept
from unsentinel.core.cache_rounds import BrokenEntry, CachedRounds
from unsentinel.core.cache_runs import store_run
from unsentinel.core.config import Config, unshipped_outputs
from unsentinel.core.data_files import discovery_suffixes, with_data
from unsentinel.core.decisions import Decisions
from unsentinel.core.discovery import discover
from unsentinel.core.engine import Pipeline
from unsentinel.core.facts import FactBook
from unsentinel.core.gather import changed_functions, merge_results
from unsentinel.core.lock import project_lock
from unsentinel.core.model import FileResult, FileTask, Mode, Status
from unsentinel.core.pool import Progress as Progress  # re-exported: the CLI draws it
from unsentinel.core.pool import Workers, effective_jobs, fewer_collections, worth_a_pool
from unsentinel.core.prefilter import Prefilter
from unsentinel.core.result import RunResult as RunResult  # re-exported: the public result
from unsentinel.core.store import FileStore
from unsentinel.core.suite import Suite
from unsentinel.core.transaction import ApplyOptions, apply

GATHER_ROUNDS = 3  # each round follows warnings one call deeper; most repos converge in 2


@dataclass(frozen=True)
class RunOptions:
    """How a run goes, besides what it runs over: one value from the library entry points
    to the runner, instead of the same keywords repeated at every layer."""

    files_from: Iterable[str] = ()
    jobs: int | None = None
    allow_dirty: bool = False
    allow_partial: bool = False  # write what succeeded where no failed file shares its flow
    verify: str | None = None  # the user's command, run before and after writing
    progress: Progress | None = None
    decisions: Decisions | None = None  # an edited plan (apply --plan), review markers
    cache: bool = False  # check: reuse results from .unsentinel_cache/
    screen: bool = True  # False: no prefilter, every file to the rules (a soundness test)

    @property
    def apply(self) -> ApplyOptions:
        return ApplyOptions(self.allow_dirty, self.allow_partial, self.verify)


def run(
    paths: Sequence[Path],
    config: Config,
    mode: Mode,
    suite: Suite,
    options: RunOptions | None = None,
) -> RunResult:
    """Run ``suite`` over ``paths`` (:func:`unsentinel.run` passes the registered one).

    ``options.cache``: ``check`` reuses and records per-file results under the project's
    ``.unsentinel_cache/`` (:mod:`unsentinel.core.cache`); other modes ignore it.
    ``apply`` holds the project's lock (:mod:`unsentinel.core.lock`) from discovery to the last
    write; a second ``apply`` on the same tree meanwhile raises
    :class:`~unsentinel.core.lock.LockError` at once (the CLI exits 2).
    """
    options = options or RunOptions()
    with fewer_collections():
        if mode is Mode.APPLY:
            with project_lock(config.root):  # raises LockError while another apply runs
                return _run(paths, config, mode, suite, options)
        return _run(paths, config, mode, suite, options)


def _run(
    paths: Sequence[Path], config: Config, mode: Mode, suite: Suite, options: RunOptions
) -> RunResult:
    files_from = tuple(options.files_from)
    discovery = discover(paths, config, files_from, suffixes=discovery_suffixes(suite))
    discovery, suite = with_data(discovery, paths, files_from, config, suite)
    tasks = list(discovery.tasks)
    seen: dict[Path, bytes] = {}  # bytes read before the pipeline: it reads none twice
    done: dict[int, FileResult] = {}  # results that need no pipeline (index in tasks)
    memo: CachedRounds | None = None
    if options.cache and options.screen and mode is Mode.CHECK:
        cache = CheckCache(
            config.root, settings_key(config, [r.code for r in suite.rules]), suite.facts
        )
        memo = CachedRounds(cache)
        done = memo.read(tasks, config, seen)
        answer = memo.whole_run(tasks, done, config, suite) if options.decisions is None else None
        if answer is not None:  # nothing the check reads has changed since a run kept it
            cache.finish()
            return RunResult(mode, answer, discovery, cached=cache.hits)
    todo = [task for index, task in enumerate(tasks) if index not in done]
    # A warm check pools only for the files whose first gather round the cache lacks.
    if memo is not None:
        first = memo.stamp(0, _with_decisions(FactBook(), options.decisions), None)
        busy = memo.first_misses(todo, first)
    else:
        busy = todo
    with _workers(busy, config, suite, options.jobs, seen) as workers:
        try:
            gathered = _gather(todo, config, suite, workers, options, memo)
        except BrokenEntry:  # facts in a pack that do not read: gather without the cache
            assert memo is not None
            memo.abandon()
            gathered = _gather(todo, config, suite, workers, options, None)
        settled = _Settled(gathered, memo, suite, config, options.decisions)
        if memo is not None:
            done |= memo.results(tasks, done, gathered.results, settled.read)
        rest = [task for index, task in enumerate(tasks) if index not in done]
        workers.forget([task for index, task in enumerate(tasks) if index in done])
        # A cached check whose files all come from the cache never reads the facts: nothing
        # after ``check`` does (``RunResult.facts`` is empty then, as for a whole-run answer).
        facts = settled.read() if rest or memo is None else settled.known()
        # A cached check keeps what it analyses (its rounds' kept analyses were tested).
        kept: dict[Path, tuple[Kept, ...]] | None = {} if memo is not None else None
        pipeline = Pipeline(config, suite, facts, mode, screen=options.screen, kept=kept)
        fresh = _complete(workers.map(rest, pipeline, options.progress, "Processing"))
    pipeline_results = _in_order(tasks, done, fresh)
    if memo is not None:
        memo.keep_results(rest, fresh)
        if memo.run is not None:
            store_run(memo.cache, memo.run, pipeline_results)
        memo.cache.finish()
    emitted: tuple[FileResult, ...] = ()
    notices: list[str] = []
    if mode.rewrites:
        emitted = tuple(
            module for emit in suite.emitters for module in emit(pipeline_results, facts, config)
        )
        written = {Path(module.path).resolve() for module in emitted if module.changed}
        notices = unshipped_outputs(config, suite.sections, written)
    result = RunResult(
        mode,
        pipeline_results,
        discovery,
        emitted,
        facts=facts,
        peak_memory=workers.usage.peaks(),
        cached=memo.cache.hits if memo is not None else 0,
        notices=tuple(notices),
    )
    return apply(result, config, options.apply) if mode is Mode.APPLY else result


class _Settled:
    """The facts the last pass reads, with the reviewer's decisions: read from the cache
    the first time they are needed, where the rounds left them unread."""

    def __init__(
        self,
        gathered: Gathered,
        memo: CachedRounds | None,
        suite: Suite,
        config: Config,
        decisions: Decisions | None,
    ) -> None:
        self._gathered = gathered
        self._memo = memo
        self._suite = suite
        self._config = config
        self._decisions = decisions
        self._facts = gathered.facts

    def read(self) -> FactBook:
        if self._facts is None:  # the cache knew what the rounds learnt: read it now
            assert self._memo is not None
            self._facts = self._memo.facts(self._suite, self._config, self._gathered.results)
        return self.known()

    def known(self) -> FactBook:
        """The facts as far as they were read (empty where they never were)."""
        return _with_decisions(self._facts or FactBook(), self._decisions)


def _workers(
    tasks: Sequence[FileTask],
    config: Config,
    suite: Suite,
    jobs: int | None,
    seen: dict[Path, bytes],
) -> Workers:
    """This process, or a pool of lanes when the work pays for it (its estimate's reads
    land in ``seen``, so the pipeline takes those bytes instead of reading again)."""
    lanes = min(effective_jobs(jobs), len(tasks))
    prefilter = Prefilter(suite.rules, config)
    if lanes > 1 and worth_a_pool(tasks, prefilter, config.max_file_size, seen):
        return Workers(lanes, FileStore(seen))
    return Workers(0, FileStore(seen))


def _complete(results: Iterable[FileResult | None]) -> list[FileResult]:
    """A first pass's results: every file has one (only a later gather round skips files)."""
    return [result for result in results if result is not None]


def _in_order(
    tasks: Sequence[FileTask], done: dict[int, FileResult], fresh: list[FileResult]
) -> tuple[FileResult, ...]:
    """Cached (or early) and fresh results together, in the tasks' order."""
    remaining = iter(fresh)
    return tuple(done[i] if i in done else next(remaining) for i in range(len(tasks)))


@dataclass(frozen=True)
class Gathered:
    """What the gather pass learned: the repository's facts (None: a cached check's, not
    read: the cache knows their digest), and each file's last output (its status tells
    ``check`` whether the file reached the rules at all)."""

    facts: FactBook | None
    results: dict[Path, FileResult]


def gather(
    tasks: Sequence[FileTask],
    config: Config,
    suite: Suite,
    workers: Workers,
    options: RunOptions,
) -> FactBook:
    """The read-only pass whose facts every file's rewrite (or check) may use."""
    facts = _gather(tasks, config, suite, workers, options, None).facts
    assert facts is not None  # only a cached check leaves them unread
    return facts


def _gather(
    tasks: Sequence[FileTask],
    config: Config,
    suite: Suite,
    workers: Workers,
    options: RunOptions,
    memo: CachedRounds | None,
) -> Gathered:
    """The gather rounds; with ``memo`` (a cached ``check``) a file's round comes from the
    cache when the file and the facts the round starts from are the same as then.

    ``options.decisions`` (an edited plan) are seen by the gather pass too: a site the plan
    leaves alone keeps what it uses (a sentinel constant) in use. A later round revisits
    only parsed files that mention a function whose facts changed (the lanes test the
    mention on the bytes they hold), and the rounds stop as soon as nothing changes.
    Without the cache a reading pass comes first (:func:`_read`); a cached check's first
    round starts from nothing, as the packs it keeps are keyed.
    """
    start = _with_decisions(FactBook(), options.decisions)
    facts: FactBook | None = start
    results: dict[Path, FileResult] = {}
    pending: list[FileTask] = list(tasks)
    if memo is None:
        # The first round's rules are told what every file's bytes say (the names the
        # repository defines, its models' fields), as the last pass will be: where the
        # rounds after learn nothing a file asks about, its first analysis is its last.
        results = _read(tasks, config, suite, workers, options, start)
        facts = _with_decisions(merge_results(suite, config, results.values()), options.decisions)
        pending = [task for task in tasks if results[task.path].status is Status.PARSED]
    names: frozenset[str] | None = None  # None: the first round, every file
    for number in range(GATHER_ROUNDS):
        stamp = memo.stamp(number, facts, names) if memo is not None else None
        known = memo.recall(pending, stamp) if memo is not None and stamp else {}
        misses = [task for task in pending if task.path not in known]
        if memo is not None and names is not None and misses:
            known |= memo.unchanged(misses, names, results, config, stamp)
            misses = [task for task in misses if task.path not in known]
        if memo is not None and facts is None and misses:
            facts = memo.facts(suite, config, results)  # the files the cache lacks need them
        earlier = dict(results) if facts is None else None  # what the round starts from
        found = iter(
            workers.map(
                misses,
                Pipeline(
                    *(config, suite, facts, Mode.CHECK),
                    gather=True,
                    screen=options.screen,
                    kept=memo.kept_for(misses) if memo is not None else None,
                ),
                options.progress,
                "Gathering",
                names,
            )
            if facts is not None and misses
            else ()
        )
        for task in pending:
            output = known.get(task.path)
            if output is None:
                computed = next(found)
                output = memo.keep(task, stamp, computed) if memo else Recalled(computed)
            if memo is not None:
                memo.note(task, output)
            if output.result is not None:
                results[task.path] = output.result
        if memo is not None:
            merged, changed, again = memo.end_round(stamp, results, facts, earlier, suite, config)
        else:
            assert facts is not None  # only a cached round leaves them unread
            merged = merge_results(suite, config, results.values())
            # After the first round, what changed since nothing was known: the prefilter
            # screened every file knowing nothing, so a name the bytes' facts (or the
            # tests' data) made known must bring back the files that spell it.
            changed = changed_functions(start if names is None else facts, merged)
            again = bool(changed & merged.function_names())
        facts = _with_decisions(merged, options.decisions) if merged is not None else None
        if not changed:
            break
        # Failed files carry the facts of their bytes alone: settled. A prefiltered file
        # comes back (read again, parsed only if it spells one) when the facts have just
        # learned about a function.
        pending = [
            t for t in tasks if results[t.path].status in (_REGATHERED if again else _PARSED)
        ]
        names = frozenset(changed)
    return Gathered(facts, results)


def _read(
    tasks: Sequence[FileTask],
    config: Config,
    suite: Suite,
    workers: Workers,
    options: RunOptions,
    facts: FactBook,
) -> dict[Path, FileResult]:
    """Every file loaded where it will be worked (read, prefiltered, parsed), with the
    facts of its bytes: what the first gather round's rules are told."""
    pipeline = Pipeline(
        *(config, suite, facts, Mode.CHECK), gather=True, analyse=False, screen=options.screen
    )
    found = _complete(workers.map(tasks, pipeline, options.progress, "Reading"))
    return {task.path: result for task, result in zip(tasks, found, strict=True)}


_PARSED = frozenset({Status.PARSED})
_REGATHERED = frozenset({Status.PARSED, Status.PREFILTERED})


def _with_decisions(facts: FactBook, decisions: Decisions | None) -> FactBook:
    """The reviewer's plan and options ride to every rule with the facts."""
    if decisions is None:
        return facts
    return FactBook({**facts.entries, Decisions: decisions}, gathered=facts.gathered)
