"""The error-dict feature's cross-file facts (see :mod:`unsentinel.core.facts`).

Two facts cross files: which functions return an error dict that UNS501 migrates, so
that readers of their results elsewhere switch to the new shape together with them, and
which functions also return an error-looking dict that is left alone: a reader fed by one
of those keeps the old shape (reported as skip), because one of its producers does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from unsentinel.errors.data_pins import DataFile, Pin, pins
from unsentinel.errors.key_places import missed_reads
from unsentinel.errors.returned import MODEL_DUMPS, linked_holds, reaching

if TYPE_CHECKING:
    from unsentinel.core.config import Config
    from unsentinel.core.facts import ReadFile
    from unsentinel.core.rule import RuleContext

_ADDED = frozenset({"success", "error"})  # the keys the envelope adds where they are absent


@dataclass
class ErrorNotes:
    """What UNS501 saw in one file (mutable, one per file)."""

    context: RuleContext
    error_functions: set[str] = field(default_factory=set)
    error_methods: set[str] = field(default_factory=set)  # of those, the ones in a class
    held_functions: set[str] = field(default_factory=set)
    moved_keys: set[tuple[str, str]] = field(default_factory=set)
    extra_reads: set[tuple[str, str]] = field(default_factory=set)
    failure_reads: set[tuple[str, str]] = field(default_factory=set)
    asserted: set[str] = field(default_factory=set)
    message_templates: set[str] = field(default_factory=set)
    kept_templates: set[str] = field(default_factory=set)
    left_alone: bool = False
    doubled: set[str] = field(default_factory=set)
    changed_keys: set[tuple[str, str, bool]] = field(default_factory=set)
    marker_tests: set[tuple[str, str]] = field(default_factory=set)
    param_reads: set[tuple[str, int, str, str, bool]] = field(default_factory=set)
    passes: set[tuple[str, str, int, str]] = field(default_factory=set)
    returns: set[tuple[str, str]] = field(default_factory=set)
    producing: set[str] = field(default_factory=set)
    key_places: set[tuple[str, str, str]] = field(default_factory=set)
    kept_keys: set[tuple[str, str]] = field(default_factory=set)
    test_reads: set[tuple[str, str, str, str]] = field(default_factory=set)
    parameters: set[tuple[str, str]] = field(default_factory=set)


@dataclass(frozen=True)
class ErrorFacts:
    error_functions: frozenset[str] = frozenset()  # functions returning a migrated error dict
    # functions that also return an error-looking dict UNS501 leaves alone: their readers
    # (and their other error dicts) stay as they are, reported as skip
    held_functions: frozenset[str] = frozenset()
    # (function, key): an extra key its migrated error dicts move into error.details
    moved_keys: frozenset[tuple[str, str]] = frozenset()
    # (callee, key): a reader checks the callee's result for failure and reads this key,
    # and no reader rewrite follows it there (errors/readers.py)
    extra_reads: frozenset[tuple[str, str]] = frozenset()
    # settled: moved keys that are read that way; their functions are held
    blocked: frozenset[tuple[str, str]] = frozenset()
    # (reader, callee): the reader checks the callee's result for failure (errors/readers.py)
    failure_reads: frozenset[tuple[str, str]] = frozenset()
    # settled: callees read that way by a held function (or by one of these), held in turn:
    # the held reader passes their error on in the old shape
    held_callees: frozenset[str] = frozenset()
    # error functions defined in a class (any ``x.name(...)`` may call one); the others
    # are module-level functions, called bare or through their module
    error_methods: frozenset[str] = frozenset()
    # callees whose failure a test asserts where no reader rewrite follows
    # (``self.assertEqual(result["status"], "error")``): held, wherever they are defined
    asserted: frozenset[str] = frozenset()
    # the migrated error messages as templates, and whether any error-looking dict is left
    # as it is: a reader whose producer cannot be traced follows only a message it expects
    # from a migrated one, where some are left alone (errors/untraced.py)
    message_templates: frozenset[str] = frozenset()
    left_alone: bool = False
    # functions a test double returns an old-shaped error dict for (errors/test_doubles.py):
    # held, wherever they are defined
    doubled: frozenset[str] = frozenset()
    # the messages of the error-looking dicts left as they are (noted): a reader expecting
    # one of those may read it, whatever migrated message it also names
    kept_templates: frozenset[str] = frozenset()
    # (function, key, presence changes): a top-level key of its error dicts that the
    # envelope changes -- gone from the top level or added (presence), or the ``error``
    # string turned into an object (value only) (errors/generic_checks.py)
    changed_keys: frozenset[tuple[str, str, bool]] = frozenset()
    # (check, key): a non-test function tests what it receives for failure by this marker
    # of the old shape (``status`` == "error", ``ok``, ``error_type``)
    marker_tests: frozenset[tuple[str, str]] = frozenset()
    # (function, position, parameter, key, read as value): what a function reads of a
    # parameter it reads an old error key of
    param_reads: frozenset[tuple[str, int, str, str, bool]] = frozenset()
    # (producer, receiver, position, keyword): a call hands a producer's result to receiver
    passes: frozenset[tuple[str, str, int, str]] = frozenset()
    # settled: (producer, reader, key) where a generic check or a helper handed its result
    # would read the producer's migrated error dicts differently; the producer is held
    detected: frozenset[tuple[str, str, str]] = frozenset()
    # (function, callee): the function returns the callee's result as it is
    # (``return _handle(e)``; errors/returned.py)
    returns: frozenset[tuple[str, str]] = frozenset()
    # functions with an error dict UNS501 would migrate, held or not
    producing: frozenset[str] = frozenset()
    # (function, old key, its place in the envelope) for the keys its error dicts move
    # (errors/key_places.py)
    key_places: frozenset[tuple[str, str, str]] = frozenset()
    # (function, key): a key of a success dict the function returns
    kept_keys: frozenset[tuple[str, str]] = frozenset()
    # (callee, key, how, succeeded): a test reads the key of the callee's result
    # (key_places.UNFOLLOWED, UNCHANGED or REWRITTEN), after checking that it succeeded on
    # the key ``succeeded`` ("" where it does not)
    test_reads: frozenset[tuple[str, str, str, str]] = frozenset()
    # settled: functions that return a migrated function's result (down a chain of
    # ``return f(...)``) without one of their own: their readers follow it too
    forwarders: frozenset[str] = frozenset()
    # settled: (function, key, place) a test reads where the migration would leave nothing
    test_blocked: frozenset[tuple[str, str, str]] = frozenset()
    # settled: (caller, callee) the caller returns the held callee's result: held too;
    # (callee, caller) the held caller returns the callee's result: held too
    held_returning: frozenset[tuple[str, str]] = frozenset()
    held_returned: frozenset[tuple[str, str]] = frozenset()
    # (function, parameter) of the functions with error dicts that change: a case of a data
    # file that names one may give its arguments by these names (errors/data_pins.py)
    parameters: frozenset[tuple[str, str]] = frozenset()
    # the run's test-data files (shown, path, stamp: errors/data_pins.py), from no Python file
    data_files: frozenset[DataFile] = frozenset()
    # settled: (function, data file, key, how) a case of a data file names the function with
    # a key its error dicts change or move: held, wherever it is defined
    pinned: frozenset[Pin] = frozenset()

    @classmethod
    def from_source(cls, data: bytes) -> ErrorFacts | None:
        return None  # the functions a file defines are core.defined.DefinedNames

    @classmethod
    def from_data(cls, files: Sequence[Path], config: Config) -> ErrorFacts | None:
        """The test-data files a case may pin a function's output in, each with a stamp
        that changes with its bytes (read only if there are error dicts to migrate)."""
        found = set()
        for path in files:
            try:
                stat = path.stat()
            except OSError:
                continue
            if stat.st_size <= config.max_file_size:
                found.add(
                    (_shown(path, config.root), str(path), f"{stat.st_mtime_ns}:{stat.st_size}")
                )
        return cls(data_files=frozenset(found)) if found else None

    @classmethod
    def from_context(cls, context: ReadFile) -> ErrorFacts:
        notes = context.shared(ErrorNotes)
        return cls(
            frozenset(notes.error_functions),
            frozenset(notes.held_functions),
            moved_keys=frozenset(notes.moved_keys),
            extra_reads=frozenset(notes.extra_reads),
            failure_reads=frozenset(notes.failure_reads),
            error_methods=frozenset(notes.error_methods),
            asserted=frozenset(notes.asserted),
            message_templates=frozenset(notes.message_templates),
            kept_templates=frozenset(notes.kept_templates),
            left_alone=notes.left_alone,
            doubled=frozenset(notes.doubled),
            changed_keys=frozenset(notes.changed_keys),
            marker_tests=frozenset(notes.marker_tests),
            param_reads=frozenset(notes.param_reads),
            passes=frozenset(notes.passes),
            returns=frozenset(notes.returns),
            producing=frozenset(notes.producing),
            key_places=frozenset(notes.key_places),
            kept_keys=frozenset(notes.kept_keys),
            test_reads=frozenset(notes.test_reads),
            parameters=frozenset(notes.parameters),
        )

    def merge(self, other: ErrorFacts) -> ErrorFacts:
        return ErrorFacts(
            self.error_functions | other.error_functions,
            self.held_functions | other.held_functions,
            self.moved_keys | other.moved_keys,
            self.extra_reads | other.extra_reads,
            self.blocked | other.blocked,
            self.failure_reads | other.failure_reads,
            self.held_callees | other.held_callees,
            self.error_methods | other.error_methods,
            self.asserted | other.asserted,
            self.message_templates | other.message_templates,
            self.left_alone or other.left_alone,
            self.doubled | other.doubled,
            changed_keys=self.changed_keys | other.changed_keys,
            marker_tests=self.marker_tests | other.marker_tests,
            param_reads=self.param_reads | other.param_reads,
            passes=self.passes | other.passes,
            detected=self.detected | other.detected,
            returns=self.returns | other.returns,
            producing=self.producing | other.producing,
            key_places=self.key_places | other.key_places,
            kept_keys=self.kept_keys | other.kept_keys,
            test_reads=self.test_reads | other.test_reads,
            forwarders=self.forwarders | other.forwarders,
            test_blocked=self.test_blocked | other.test_blocked,
            held_returning=self.held_returning | other.held_returning,
            held_returned=self.held_returned | other.held_returned,
            kept_templates=self.kept_templates | other.kept_templates,
            parameters=self.parameters | other.parameters,
            data_files=self.data_files | other.data_files,
            pinned=self.pinned | other.pinned,
        )

    def settle(self, config: Config) -> ErrorFacts:
        """A function whose moved key a reader reads where no rewrite follows is held.

        So is a function whose error dicts a generic check would read differently once
        migrated, a callee whose result a held function checks for failure, and, in turn,
        a callee read that way by one of those; a function that returns a held function's
        result, and one whose result a held function returns (errors/returned.py). A
        function returning a migrated one's result forwards it: its readers follow, and the
        keys the callee moves are read off it too (errors/key_places.py).
        """
        dumps = {callee for _caller, callee in self.returns if callee in MODEL_DUMPS}
        erroring = self.producing | self.held_functions | self.doubled | dumps
        moved = _by_function(self.moved_keys)
        places = _by_function((f, (k, p)) for f, k, p in self.key_places)
        kept = _by_function(self.kept_keys)
        reach = reaching(self.returns, erroring | set(moved) | set(places) | set(kept))
        moved_of = {f: _union(moved, sources) for f, sources in reach.items()}
        places_of = {f: _by_function(_union(places, sources)) for f, sources in reach.items()}
        kept_of = {f: _union(kept, sources) for f, sources in reach.items()}
        blocked = frozenset((f, k) for f, k in self.extra_reads if k in moved_of.get(f, set()))
        detected = self._detected()
        test_blocked = frozenset(missed_reads(self.test_reads, places_of, kept_of))
        pinned = frozenset(self._pinned(reach))
        held = set(self.held_functions | self.asserted | self.doubled) | dumps
        held |= {function for function, _file, _key, _how in pinned}
        held |= {function for function, _key in blocked}
        held |= {function for function, _check, _key in detected}
        held |= {function for function, _key, _place in test_blocked}
        linked = frozenset(f for f, sources in reach.items() if sources & erroring)
        callees, returning, returned = linked_holds(held, self.returns, self.failure_reads, linked)
        # A function with no error dict of its own passes a hold along the chain, but is no
        # held producer itself: its readers read the shape of the callee that made it.
        along = {f for f in (*returning, *returned) if f not in self.producing | held}
        forwarders = frozenset(
            f for f, sources in reach.items() if sources & self.error_functions
        ) - (self.error_functions | held | set(callees) | set(returning) | set(returned))
        return replace(
            self,
            held_functions=frozenset(held | set(callees) | set(returning) | set(returned))
            - along
            - dumps,
            blocked=blocked,
            held_callees=frozenset(callees),
            detected=detected,
            forwarders=forwarders,
            test_blocked=test_blocked,
            held_returning=frozenset(returning.items()),
            held_returned=frozenset(returned.items()),
            pinned=pinned,
        )

    def _pinned(self, reach: dict[str, set[str]]) -> set[Pin]:
        """A case of a test-data file names a function with a key its error dicts (or those
        of a function whose result it returns) change or move: the error string, or a key
        that leaves the top level and that no success dict of it has."""
        if not self.data_files or not self.producing:
            return set()
        kept = _by_function(self.kept_keys)
        changing: dict[str, set[str]] = {}
        for function, key, presence in self.changed_keys:
            # presence: the key leaves the top level, or is added (``success``, an absent
            # ``error``: nothing to pin); otherwise the ``error`` string becomes an object
            moved = presence and key not in _ADDED and key not in kept.get(function, ())
            if moved or not presence:
                changing.setdefault(function, set()).add(key)
        keys_of = {
            function: frozenset(_union(changing, sources))
            for function, sources in reaching(self.returns, changing).items()
        }
        return pins(sorted(self.data_files), keys_of, _by_function(self.parameters))

    def _detected(self) -> frozenset[tuple[str, str, str]]:
        """``(producer, reader, key)``: a generic check tests a marker the producer's error
        dicts carry, or a function handed the producer's result reads a key they change."""
        changed: dict[str, set[tuple[str, bool]]] = {}
        for function, key, presence in self.changed_keys:
            changed.setdefault(function, set()).add((key, presence))
        found = {
            (function, check, key)
            for check, key in self.marker_tests
            for function, keys in changed.items()
            if (key, True) in keys
        }
        reads: dict[str, list[tuple[int, str, str, bool]]] = {}
        for function, position, name, key, value in self.param_reads:
            reads.setdefault(function, []).append((position, name, key, value))
        for producer, receiver, slot, keyword in self.passes:
            keys = changed.get(producer, set())
            found |= {
                (producer, receiver, key)
                for position, name, key, value in reads.get(receiver, ())
                if (slot == position >= 0 or keyword == name)
                and ((key, True) in keys or value and (key, False) in keys)
            }
        return frozenset(found)

    def changed_functions(self, previous: ErrorFacts) -> set[str]:
        """Functions that now return a migrated error dict, or are held: their callers'
        files (a test reading ``result["stack_name"]`` spells no needle) must be read."""
        return (
            set(self.error_functions ^ previous.error_functions)
            | set(self.held_functions ^ previous.held_functions)
            | set(self.forwarders ^ previous.forwarders)
        )

    def function_names(self) -> frozenset[str]:
        """Functions whose error dicts migrate: a file that calls one may read a key the
        envelope moves (``result["stack_name"]``), though it spells no error needle; the
        prefilter must let it through, or the reader breaks after apply. So do the held
        ones (:meth:`_reported_readers`): their readers elsewhere are reported as held with
        them, with or without the prefilter."""
        migrated = (self.error_functions | self.forwarders) - self.held_functions
        return migrated | self._reported_readers()

    def module_function_names(self) -> frozenset[str]:
        """Of :meth:`function_names`, those no class defines: ``conn.request(...)`` on a
        local object calls no such function, ``request(...)`` or ``client.request(...)``
        through an imported module may (see :class:`~unsentinel.core.prefilter.Prefilter`)."""
        spelled = self.function_names() - self.error_methods - self.forwarders
        return spelled - self._reported_readers()

    def _reported_readers(self) -> frozenset[str]:
        """Functions whose readers are reported as held wherever they are: every held
        function (a test's assertion or read, a chain of returns, its own returned
        look-alike, a wrapper...) and those a test asserts the failure of or a double
        stands in for. Any call of the name counts, a method's included, as the readers
        are found by the called name."""
        return self.held_functions | self.asserted | self.doubled


T = TypeVar("T")


def _by_function(pairs: Iterable[tuple[str, T]]) -> dict[str, set[T]]:
    found: dict[str, set[T]] = {}
    for function, value in pairs:
        found.setdefault(function, set()).add(value)
    return found


def _union(table: dict[str, set[T]], functions: Iterable[str]) -> set[T]:
    return {value for function in functions for value in table.get(function, ())}


def _shown(path: Path, root: Path) -> str:
    """How a reason names a data file: from the project root, else as it is."""
    real = root.resolve()
    return path.relative_to(real).as_posix() if path.is_relative_to(real) else path.as_posix()
