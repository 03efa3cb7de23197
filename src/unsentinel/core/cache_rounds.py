"""A cached ``check``'s side of the run: keys, gather rounds and results from the cache.

:class:`CachedRounds` is what :mod:`unsentinel.core.runner` asks when ``check`` uses the
cache: it reads every file once for its key, answers a whole unchanged run from one entry
(:mod:`unsentinel.core.cache_runs`), and otherwise gives each gather round the outputs its
pack (:mod:`unsentinel.core.cache_packs`) holds for the files and facts of this run.

Each file's output after a round has an *identity*, a hash of its canonical encoding, so
the facts a round starts from are named by the identities of the outputs they are merged
from (with the modules the configuration names, which the features read when they settle).
A round's stamp needs the digest of those facts; :meth:`CheckCache.digest_of` keeps it
under that name, so a warm run merges the facts but does not digest them again. A later
round whose output for a file is the one the file already had is kept as a reference to
that output, which only a run where the file had the same output takes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from unsentinel.core.cache import CheckCache, Miss, Recalled, cacheable
from unsentinel.core.cache_codec import sha256
from unsentinel.core.cache_packs import Pack
from unsentinel.core.cache_runs import configured_digest, load_run, run_key
from unsentinel.core.config import Config, generated_modules
from unsentinel.core.facts import FactBook
from unsentinel.core.model import FileResult, FileTask, Status
from unsentinel.core.store import read_source
from unsentinel.core.suite import Suite


@dataclass
class CachedRounds:
    """What a cached ``check`` knows of its files: each file's key (of the bytes read once,
    here), the packs and outputs already looked up, and the identity of each output."""

    cache: CheckCache
    keys: dict[Path, str] = field(default_factory=dict)
    displays: dict[str, str] = field(default_factory=dict)  # each file's key, by display path
    recalled: dict[tuple[Path, str], Recalled | Miss] = field(default_factory=dict)
    packs: dict[str, Pack] = field(default_factory=dict)  # each round's, by its stamp
    identities: dict[Path, str | None] = field(default_factory=dict)  # each file's output's
    computed: set[Path] = field(default_factory=set)  # files with a gather output not cached
    result_keys: dict[Path, str] = field(default_factory=dict)
    run: str | None = None  # the whole run's key (:mod:`unsentinel.core.cache_runs`)
    configured: str | None = None  # the digest of the modules the configuration names
    facts_identity: str | None = None  # what the facts the next round starts from merge

    def read(
        self, tasks: Sequence[FileTask], config: Config, seen: dict[Path, bytes]
    ) -> dict[int, FileResult]:
        """Read each file once, for its key; return the files that end before any pipeline.

        The bytes go to ``seen``, so every result is computed from exactly the bytes its
        key was made from.
        """
        early: dict[int, FileResult] = {}
        for index, task in enumerate(tasks):
            data = read_source(task, config)
            if isinstance(data, FileResult):
                early[index] = data  # unreadable, too large or generated: nothing to cache
                continue
            seen[task.path] = data
            self.keys[task.path] = self.displays[task.display] = self.cache.key(task, data)
        return early

    def whole_run(
        self, tasks: Sequence[FileTask], early: dict[int, FileResult], config: Config, suite: Suite
    ) -> tuple[FileResult, ...] | None:
        """The results a run with the same inputs kept, if any; remembers the run's key so
        that this run keeps its own results when the answer is not there."""
        paths = [config.root / path for path in generated_modules(config, suite.sections)]
        self.configured = configured_digest(paths)
        self.run = run_key(self.cache, tasks, self.keys, early, self.configured)
        answer = load_run(self.cache, self.run, tasks) if self.run is not None else None
        if answer is None:
            return None
        self.cache.hits += len(tasks) - len(early)  # early results were computed just now
        return tuple(answer)

    # -- the gather rounds ------------------------------------------------------------------

    def stamp(self, number: int, facts: FactBook, names: frozenset[str] | None) -> str | None:
        """The stamp of a round that starts from ``facts`` (None: the round is not cached)."""
        known = self.facts_identity if number else None  # the first round's facts are empty
        return self.cache.stamp(number, self.cache.digest_of(known, facts), names)

    def recall(self, tasks: Sequence[FileTask], stamp: str) -> dict[Path, Recalled]:
        """The cached outputs of one gather round for ``tasks``."""
        pack = self._pack(stamp)
        known: dict[Path, Recalled] = {}
        for task in tasks:
            key = self.keys.get(task.path)
            if key is None:
                continue
            if (task.path, stamp) not in self.recalled:
                before = self.identities.get(task.path)
                found = self.cache.load_gathered(pack, key, task, before)
                self.recalled[task.path, stamp] = found
            hit = self.recalled[task.path, stamp]
            if not isinstance(hit, Miss):
                known[task.path] = hit
        return known

    def first_misses(self, tasks: Sequence[FileTask], stamp: str | None) -> list[FileTask]:
        """The files whose first gather round is not cached: the work a pool would get."""
        if stamp is None:
            return list(tasks)
        known = self.recall(tasks, stamp)
        return [task for task in tasks if task.path not in known]

    def keep(
        self,
        task: FileTask,
        stamp: str | None,
        result: FileResult | None,
        before: FileResult | None,
    ) -> Recalled:
        """Add a computed output to its round's pack (written by :meth:`end_round`);
        ``before``: the file's output so far in this run."""
        self.computed.add(task.path)
        key = self.keys.get(task.path)
        identity = None
        if key is not None and stamp is not None:
            earlier = Recalled(before, self.identities.get(task.path))
            identity = self.cache.store_gathered(self._pack(stamp), key, task, result, earlier)
        return Recalled(result, identity)

    def note(self, task: FileTask, output: Recalled) -> None:
        """The file's output after this round (a None result: the one it had)."""
        if output.result is not None:
            self.identities[task.path] = output.identity

    def end_round(self, stamp: str | None, results: dict[Path, FileResult]) -> None:
        """Write the round's pack, if this run added to it, and name the facts the next
        round starts from by the outputs ``results`` holds (in their order)."""
        if stamp is not None:
            self.cache.store_pack(self._pack(stamp), self.displays)
        identities = [self.identities.get(path) for path in results]
        if self.configured is None or None in identities:
            self.facts_identity = None
            return
        named = "\0".join([self.configured, *(i for i in identities if i is not None)])
        self.facts_identity = sha256(named.encode())

    def _pack(self, stamp: str) -> Pack:
        """The round's pack, read once per run."""
        if stamp not in self.packs:
            self.packs[stamp] = self.cache.round_pack(stamp)
        return self.packs[stamp]

    # -- the results --------------------------------------------------------------------------

    def results(
        self,
        tasks: Sequence[FileTask],
        done: dict[int, FileResult],
        gathered: dict[Path, FileResult],
        facts: FactBook,
    ) -> dict[int, FileResult]:
        """``check``'s results that need no rule run: cache hits, and files that never reach
        the rules (their gather output already says what check reports about them:
        prefiltered, skipped, or failing for their bytes alone; it counts as from the cache
        where every round's output for the file was).

        A file the rules read is keyed with the digest of the settled facts as well, so an
        edit elsewhere that changes what it is told makes its entry miss.
        """
        digests: list[str | None] = []  # the facts' digest, taken once a file needs it
        found: dict[int, FileResult] = {}
        for index, task in enumerate(tasks):
            output = gathered.get(task.path)
            key = self.keys.get(task.path)
            if index in done or output is None or key is None or not cacheable(output):
                continue
            if output.status is not Status.PARSED:
                found[index] = replace(output, facts=())
                if task.path not in self.computed:
                    self.cache.hits += 1
                continue
            if not digests:
                digests.append(self.cache.digest_of(self.facts_identity, facts))
            if digests[0] is None:
                continue
            key = self.cache.with_facts(key, digests[0])
            hit = self.cache.load(key, task)
            if hit is not None:
                found[index] = hit
            else:
                self.result_keys[task.path] = key
        return found

    def keep_results(self, tasks: Sequence[FileTask], fresh: Sequence[FileResult]) -> None:
        """Record the fresh results under the keys of the bytes (and facts) they came from."""
        for task, result in zip(tasks, fresh, strict=True):
            key = self.result_keys.get(task.path)
            if key is not None:
                self.cache.store(key, result)
