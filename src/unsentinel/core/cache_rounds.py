"""A cached ``check``'s side of the run: keys, gather rounds and results from the cache.

:class:`CachedRounds` is what :mod:`unsentinel.core.runner` asks when ``check`` uses the
cache: it reads every file once for its key, answers a whole unchanged run from one entry
(:mod:`unsentinel.core.cache_runs`), and otherwise gives each gather round the outputs its
pack (:mod:`unsentinel.core.cache_packs`) holds for the files and facts of this run.

Each file's output after a round has an *identity*, a hash of its canonical encoding, so
the facts a round starts from are named by the identities of the outputs they are merged
from (with the modules the configuration names and the tests' data files, which the
features read when they settle).
What a round learnt is kept under those names (:mod:`unsentinel.core.cache_facts`): where
an edit changed no file's output, a warm run neither merges nor digests the facts, and
reads a file's facts from its pack only where it merges them. A later round whose output
for a file is the one the file already had is kept as a reference to that output, which
only a run where the file had the same output takes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from unsentinel.core.cache import CheckCache, Miss, Recalled, cacheable
from unsentinel.core.cache_answers import (
    Answers,
    Kept,
    Mode,
    holding,
    kept_output,
    kept_result,
    load_kept,
    store_kept,
)
from unsentinel.core.cache_codec import sha256
from unsentinel.core.cache_facts import Step, fold, load_fold, load_step, store_step
from unsentinel.core.cache_packs import Pack
from unsentinel.core.cache_runs import configured_digest, load_run, run_key
from unsentinel.core.config import Config, generated_modules
from unsentinel.core.facts import FactBook
from unsentinel.core.gather import changed_functions, merge_results
from unsentinel.core.model import FileResult, FileTask, Status
from unsentinel.core.prefilter import whole_word
from unsentinel.core.store import read_source
from unsentinel.core.suite import Suite

_WORD = re.compile(rb"\w+")  # a word of ASCII letters, digits and underscores, as in bytes


def _spells_none(data: bytes, plain: frozenset[bytes], others: Sequence[bytes]) -> bool:
    r"""Do the bytes spell none of the names as a word of its own (:func:`whole_word`)? An
    ASCII name does exactly where it is one of the bytes' maximal runs of ``\w``."""
    if not plain.isdisjoint(_WORD.findall(data)):
        return False
    return not any(name in data and whole_word(name).search(data) for name in others)


class BrokenEntry(Exception):
    """Facts the cache held for a file do not read (found only when they are merged)."""


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
    # the digest of the modules the configuration names and of the tests' data files
    configured: str | None = None
    name: str | None = None  # the name of the facts the round starts from
    digest: str | None = None  # their digest, where a step said it or a fold was kept
    step: Step | None = None  # the kept step that led to them
    unread: dict[int, tuple[FileResult, bytes]] = field(default_factory=dict)  # facts to read
    lines: dict[bytes, str] | None = None
    # analyses kept by their answers (:mod:`unsentinel.core.cache_answers`), by file key:
    # as earlier runs kept them, and as this run made them
    kept: dict[str, tuple[Kept, ...]] = field(default_factory=dict)
    made: dict[str, list[Kept]] = field(default_factory=dict)

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
        self.configured = configured_digest([*paths, *suite.data_files])
        self.run = run_key(self.cache, tasks, self.keys, early, self.configured)
        answer = load_run(self.cache, self.run, tasks) if self.run is not None else None
        if answer is None:
            return None
        self.cache.hits += len(tasks) - len(early)  # early results were computed just now
        return tuple(answer)

    # -- the gather rounds ------------------------------------------------------------------

    def stamp(
        self, number: int, facts: FactBook | None, names: frozenset[str] | None
    ) -> str | None:
        """The stamp of a round that starts from ``facts`` (None: the round is not cached;
        ``facts`` None: not read, their digest is known)."""
        if number == 0:
            self.name = None if self.configured is None else sha256(b"no facts yet")
            self.step = None
        digest = self.digest if number and self.digest is not None else None
        if digest is None and facts is not None:
            digest = self.cache.codec.digest(facts)
        return self.cache.stamp(number, digest, names)

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

    def unchanged(
        self,
        misses: Sequence[FileTask],
        names: frozenset[str],
        results: dict[Path, FileResult],
        config: Config,
        stamp: str | None,
    ) -> dict[Path, Recalled]:
        """Of a later round's misses, the files the prefilter stopped whose bytes spell none
        of ``names`` (the functions whose facts just changed) as a word: the round would
        leave them as they are (:func:`~unsentinel.core.regather.later_round` sends such a
        file back to the rules only where it spells a function the facts know, and any it
        spells besides those was known when the prefilter stopped it). Telling them apart
        on the bytes needs no facts, which a warm run after a one-file edit then never reads.

        Each file's words are read once, whatever the number of names (every function the
        facts know, in the second round): where the facts changed, the thousands of
        prefiltered files are told apart here instead of parsed by the rounds' pipeline.
        Each is added to the round's pack (``stamp``) as the pipeline's answer would be, so
        the next run with these facts finds its line.
        """
        spelled = [name.encode() for name in names if name.isidentifier()]
        plain = frozenset(name for name in spelled if name.isascii())
        others = [name for name in spelled if not name.isascii()]
        found: dict[Path, Recalled] = {}
        for task in misses:
            earlier = results.get(task.path)
            if earlier is None or earlier.status is not Status.PREFILTERED:
                continue
            data = read_source(task, config)
            key = self.keys.get(task.path)
            if isinstance(data, FileResult) or key != self.cache.key(task, data):
                continue  # changed since its key was taken: the pipeline reads it as it is
            if _spells_none(data, plain, others):
                found[task.path] = Recalled(None, self.identities.get(task.path))
                if stamp is not None:
                    self.cache.store_gathered(self._pack(stamp), key, task, None)
        return found

    def kept_for(self, tasks: Sequence[FileTask]) -> dict[Path, tuple[Kept, ...]]:
        """The analyses earlier runs kept of ``tasks``' bytes, for the pipeline to take
        where their answers hold (read once per file and run)."""
        found: dict[Path, tuple[Kept, ...]] = {}
        for task in tasks:
            key = self.keys.get(task.path)
            if key is None:
                continue
            if key not in self.kept:
                self.kept[key] = load_kept(self.cache, key)
            gather = tuple(kept for kept in self.kept[key] if kept.mode == "gather")
            if gather:  # only these go to the pipeline: check's are tested here
                found[task.path] = gather
        return found

    def _made(self, task: FileTask, mode: Mode, result: FileResult) -> None:
        """Note an analysis this run made (or took) of ``task``, by what it was told."""
        key = self.keys.get(task.path)
        if key is None or result.answered is None or result.status is not Status.PARSED:
            return
        try:
            output = kept_output(mode, result, self.cache.codec)
        except (TypeError, ValueError, RecursionError):
            return
        self.made.setdefault(key, []).append(Kept(mode, result.answered, output))

    def store_kept(self) -> None:
        """Write the kept analyses of the files this run analysed: its own first, then
        those earlier runs kept."""
        for key, made in self.made.items():
            earlier = self.kept.get(key)
            if earlier is None:
                earlier = load_kept(self.cache, key)
            if made != list(earlier[: len(made)]):
                store_kept(self.cache, key, [*made, *earlier])

    def keep(self, task: FileTask, stamp: str | None, result: FileResult | None) -> Recalled:
        """Add a computed output to its round's pack (written by :meth:`end_round`)."""
        self.computed.add(task.path)
        if result is not None:
            self._made(task, "gather", result)
        key = self.keys.get(task.path)
        identity = None
        if key is not None and stamp is not None:
            before = self.identities.get(task.path)
            identity = self.cache.store_gathered(self._pack(stamp), key, task, result, before)
        return Recalled(result, identity)

    def note(self, task: FileTask, output: Recalled) -> None:
        """The file's output after this round (a None result: the one it had)."""
        if output.result is None:
            return
        self.identities[task.path] = output.identity
        if output.facts is not None:  # decoded when the facts are merged, if ever
            self.unread[id(output.result)] = (output.result, output.facts)

    def end_round(
        self,
        stamp: str | None,
        results: dict[Path, FileResult],
        facts: FactBook | None,
        earlier: dict[Path, FileResult] | None,
        suite: Suite,
        config: Config,
    ) -> tuple[FactBook | None, set[str], bool]:
        """Close a round: write its pack, name the facts the next round starts from, and
        say what changed (the new facts, None where a kept step says it all; the functions
        whose facts changed; whether the facts know any of them).

        ``facts``: what the round started from (None: not read; ``earlier``, the outputs
        they merge, gives them where they are needed).
        """
        if stamp is not None:
            self.cache.store_pack(self._pack(stamp), self._lines())
        start, end = self.name, self._name(results)
        step = load_step(self.cache, start, end) if start and end else None
        if step is not None:
            self.name, self.digest, self.step = end, step.digest, step
            return None, set(step.changed), step.again
        if facts is None:
            assert earlier is not None
            facts = self.facts(suite, config, earlier)
        merged = merge_results(suite, config, self.decoded(results.values()))
        changed = changed_functions(facts, merged)
        again = bool(changed & merged.function_names())
        self.name, self.step = end, None
        self.digest = fold(self.cache, end, merged) if end else None
        if start and end and self.digest:
            names = (merged.function_names(), merged.module_function_names())
            step = Step(self.digest, frozenset(changed), again, names)
            store_step(self.cache, start, end, step)
        return merged, changed, again

    def facts(self, suite: Suite, config: Config, results: dict[Path, FileResult]) -> FactBook:
        """The facts named now, merged from ``results``: kept by a run before, or merged."""
        kept = load_fold(self.cache, self.name, self.step) if self.name and self.step else None
        if kept is not None:
            return kept
        return merge_results(suite, config, self.decoded(results.values()))

    def decoded(self, results: Iterable[FileResult]) -> list[FileResult]:
        """``results`` with the facts the cache held for them read (raises
        :class:`BrokenEntry` where they do not read: the run gathers again without the
        cache)."""
        found = []
        for result in results:
            unread = self.unread.get(id(result))
            if unread is not None and unread[0] is result:
                try:
                    read = self.cache.decode_facts(unread[1])
                except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
                    raise BrokenEntry(str(exc)) from exc
                result = replace(result, facts=read)
            found.append(result)
        return found

    def abandon(self) -> None:
        """Forget what the rounds took from the cache: nothing of it counts as a hit, and
        the last pass digests the facts it is given."""
        self.computed.update(self.keys)
        self.name = self.digest = self.step = None

    def _name(self, results: dict[Path, FileResult]) -> str | None:
        """The name of the facts merged from ``results`` (None: an output has no identity)."""
        identities = [self.identities.get(path) for path in results]
        if self.configured is None or None in identities:
            return None
        named = "\0".join([self.configured, *(i for i in identities if i is not None)])
        return sha256(named.encode())

    def _lines(self) -> dict[bytes, str]:
        """Each file's key by its display path, as a pack line spells it."""
        if self.lines is None:
            self.lines = {
                json.dumps(display).encode(): key for display, key in self.displays.items()
            }
        return self.lines

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
        facts: Callable[[], FactBook],
    ) -> dict[int, FileResult]:
        """``check``'s results that need no rule run: cache hits, and files that never reach
        the rules (their gather output already says what check reports about them:
        prefiltered, skipped, or failing for their bytes alone; it counts as from the cache
        where every round's output for the file was).

        A file the rules read is keyed with the digest of the settled facts as well, so an
        edit elsewhere that changes what it is told makes its entry miss; then a result
        kept with the answers its analysis was given is taken where the settled facts
        (``facts()``, read only then) give them all again.
        """
        answers: list[Answers] = []
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
            if not digests:  # where a kept step said the digest, the facts were not read
                if self.digest is None:
                    self.digest = self.cache.codec.digest(facts())
                digests.append(self.digest)
            if digests[0] is None:
                continue
            by_digest = self.cache.with_facts(key, digests[0])
            hit = self.cache.load(by_digest, task)
            if hit is None:
                if not answers:
                    answers.append(Answers(facts(), self.cache.codec))
                hit = self._answered(task, key, answers[0])
                if hit is not None:  # the result under these facts: the next run hits it
                    self.cache.store(by_digest, hit)
            if hit is not None:
                found[index] = hit
            else:
                self.result_keys[task.path] = by_digest
        return found

    def _answered(self, task: FileTask, key: str, answers: Answers) -> FileResult | None:
        """The result of a kept analysis of the file whose answers hold (a hit), or None."""
        if key not in self.kept:
            self.kept[key] = load_kept(self.cache, key)
        kept = holding(self.kept[key], "check", answers)
        if kept is None:
            return None
        try:
            result = kept_result(kept, task.display, self.cache.codec)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
            return None
        self.cache.hits += 1
        return result

    def keep_results(self, tasks: Sequence[FileTask], fresh: Sequence[FileResult]) -> None:
        """Record the fresh results under the keys of the bytes (and facts) they came from."""
        for task, result in zip(tasks, fresh, strict=True):
            key = self.result_keys.get(task.path)
            if key is not None:
                self.cache.store(key, result)
            if cacheable(result) and not result.changed:
                self._made(task, "check", result)
        self.store_kept()
