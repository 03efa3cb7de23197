"""A cache for ``check``: what a file's check found, kept until anything it depends on changes.

Like ruff's cache, it lives under the project root (``.unsentinel_cache/``, git-ignored by a
``.gitignore`` of its own) and is keyed so that it can never be stale. ``check`` gathers
cross-file facts as ``plan`` does, so four kinds of entry are kept:

* a file's **gather output**, in one *pack* per gather round (``rounds/``,
  :mod:`unsentinel.core.cache_packs`): the facts one round read from each file, under the
  file's key -- a hash of its bytes, display path and module name, the tool's version (and
  LibCST's and Python's), and the effective configuration with the enabled rule codes --
  in the pack of what the round started from (its stamp: a digest of the facts, kept by
  the names of the outputs they merge, :mod:`unsentinel.core.cache_rounds`). The first
  round starts from nothing, so a warm run merges every file's facts without reading a tree.
* a file's **check result**: where the file never reached the rules (prefiltered, skipped,
  failing for its bytes) that is its gather output; where it did, an entry under the
  file's key with a digest of the settled facts. An edit in another file that changes what
  this file is told (its codes, its flow) changes the digest, so the entry simply misses;
  so do an edit of the file, a configuration change and an upgrade.
* a file's **kept analyses** (``answers/``, :mod:`unsentinel.core.cache_answers`): each
  gather round's output and the check result of the file's bytes, with the questions its
  analysis asked the facts and a digest of their answers. Where the facts' digest changed
  (a function added anywhere), an output whose questions get the same answers is taken
  instead of parsing and analysing the file again.
* a whole run's results (``runs/``, :mod:`unsentinel.core.cache_runs`): under a key of
  every input the check reads, so an unchanged tree is answered without the entries above.

Every file is written whole to a temporary name and renamed into place: two runs at once
never see half an entry, and the worst a race can do is write an entry twice (or drop the
other run's new lines of a pack, which are then missed and written again). An entry that
cannot be read or decoded (truncated, edited, from another format) is a miss and gets
rewritten; the cache never fails a run. Facts are stored as tagged JSON and decoded only
into the data classes the features' fact types name (never pickle: a cache file is never
code to run). Only ``check`` uses it. Entries no run used for two weeks, and the least
recently used beyond a size, are removed (:mod:`unsentinel.core.cache_sweep`).
"""

from __future__ import annotations

import enum
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Final

from unsentinel.core.cache_codec import FORMAT, FactCodec, decode_result, encode_result, sha256
from unsentinel.core.cache_packs import SUFFIX, Pack, decode_pack
from unsentinel.core.cache_sweep import Swept, mark_used, sweep_if_due
from unsentinel.core.config import Config
from unsentinel.core.model import (
    FileResult,
    FileTask,
    Status,
)

CACHE_DIR = ".unsentinel_cache"
_IGNORE_ALL = "# Created by unsentinel: the check cache, never committed.\n*\n"
# Backup and archiving tools skip a folder holding this (https://bford.info/cachedir/).
_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by unsentinel.\n"
)
# Results that depend on the bytes and the settings only; a failure may be a passing
# accident (a file that vanished, a read error) and is recomputed, unless it is lasting.
CACHEABLE = frozenset({Status.PARSED, Status.PREFILTERED, Status.SKIPPED})
_UNSETTINGS = frozenset({"root", "source"})  # where the project is, not how it is checked


def tool_version() -> str:
    """The installed unsentinel's version (a separate function so tests can pretend an upgrade)."""
    return _version("unsentinel")


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


def settings_key(config: Config, rule_codes: Sequence[str]) -> str:
    """A stable hash of everything besides the file that decides what ``check`` reports."""
    settings = {
        item.name: _plain(getattr(config, item.name))
        for item in fields(config)
        if item.name not in _UNSETTINGS
    }
    document = {
        "format": FORMAT,
        "unsentinel": tool_version(),
        "libcst": _version("libcst"),
        "python": list(sys.version_info[:2]),
        "rules": sorted(rule_codes),
        "settings": settings,
    }
    return sha256(json.dumps(document, sort_keys=True).encode())


def _plain(value: Any) -> Any:
    """``value`` as JSON data with one spelling per meaning (tuples as lists, maps sorted)."""
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def cacheable(result: FileResult) -> bool:
    """Is ``result`` what every run over the same bytes, settings and facts would say?"""
    return result.status in CACHEABLE or result.lasting


class Miss:
    """No entry: distinct from a cached ``None`` (a gather round that skipped the file)."""


MISS: Final = Miss()


@dataclass(frozen=True)
class Recalled:
    """A gather round's output for a file, from the cache or just computed: ``None`` where
    the round changed nothing for the file; ``identity`` names the output the file has after
    the round (None: no identity, the outputs cannot key the facts' digest). ``facts``: the
    output's facts as the cache holds them, where they are not decoded yet (the result's
    ``facts`` are empty until :meth:`CheckCache.decode_facts` reads them)."""

    result: FileResult | None
    identity: str | None = None
    facts: bytes | None = None


def _identity(body: Mapping[str, Any], facts: bytes) -> str:
    return sha256(json.dumps(body, sort_keys=True).encode() + b"\0" + facts)


class CheckCache:
    """The entries of one project for one set of settings; every method is best effort.

    ``kinds``: the fact classes a gather entry may hold (the suite's); only they, and the
    data classes and enums their fields name, are ever built from an entry.
    """

    def __init__(self, root: Path, settings: str, kinds: Sequence[type[Any]] = ()) -> None:
        self.directory = root / CACHE_DIR
        self.settings = settings
        self.codec = FactCodec(kinds)
        self.hits = 0
        self.misses = 0
        self.used: set[Path] = set()  # entries read: marked used at the end (``finish``)
        self.started = time.time()

    def key(self, task: FileTask, data: bytes) -> str:
        """The entry's key for the file with the bytes ``data``; the caller reads the file
        once, and the pipeline works on those same bytes, so a result is always stored
        under the key of the contents it was computed from."""
        parts = (self.settings, task.display, task.module_name, sha256(data))
        return sha256("\0".join(parts).encode())

    def with_facts(self, key: str, digest: str) -> str:
        """The key of a result that read the settled facts whose digest is ``digest``."""
        return sha256(f"{key}\0facts\0{digest}".encode())

    def stamp(
        self, round_number: int, digest: str | None, names: frozenset[str] | None
    ) -> str | None:
        """What a gather round starts from: its number, the digest of its facts and the
        functions whose facts changed (None when the facts cannot be digested: the round is
        not cached)."""
        if digest is None:
            return None
        start = [round_number, digest, None if names is None else sorted(names)]
        return sha256(json.dumps(start).encode())

    def round_pack(self, stamp: str) -> Pack:
        """The pack of one gather round's outputs (empty where there is none, or a broken
        one): every file's output for the round that starts from ``stamp``."""
        key = sha256(f"{self.settings}\0round\0{stamp}".encode())
        try:
            return decode_pack(key, self._read(self._entry(key, "rounds", SUFFIX)))
        except OSError:
            return Pack(key)

    def load_gathered(
        self, pack: Pack, key: str, task: FileTask, before: str | None
    ) -> Recalled | Miss:
        """One gather round's output for the file with key ``key``, or :data:`MISS`.

        ``before``: the identity of the file's output in this run so far, which an entry
        that says "the same output as before" must name (it was written by a run where the
        file's output before this round was that one).
        """
        entry, facts = pack.entry(key)
        try:
            return self._decode_gathered(entry, facts, key, task.display, before)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
            return MISS

    def store_gathered(
        self,
        pack: Pack,
        key: str,
        task: FileTask,
        result: FileResult | None,
        before: str | None = None,
    ) -> str | None:
        """Add one gather round's output to its pack (a failure only where the bytes decide
        it); returns the output's identity (None: not kept). ``before``: the identity of the
        file's output so far in this run, which an equal output is kept as a reference to."""
        if result is not None and not cacheable(result):
            return None
        entry: dict[str, Any] = {"format": FORMAT, "key": key}
        facts = b""
        try:
            if result is None:
                entry["skipped"] = True
            else:
                body = encode_result(result, "")  # equal outputs are encoded alike
                facts = json.dumps(
                    [self.codec.encode(value, canonical=True) for value in result.facts]
                ).encode()
                identity = _identity(body, facts)
                if identity == before:
                    entry["same"] = identity  # a later round that learnt nothing new
                    facts = b""
                else:
                    entry |= body | {"key": key, "id": identity}
            pack.add(key, task.display, entry, facts)
        except (TypeError, ValueError, RecursionError):
            return None
        return entry.get("id") or entry.get("same")

    def decode_facts(self, data: bytes) -> tuple[Any, ...]:
        """A gather output's facts as :meth:`store_gathered` encoded them; raises
        ``ValueError`` (or ``TypeError``, ``KeyError``) for anything else."""
        facts = tuple(self.codec.decode(value) for value in json.loads(data))
        if not all(type(value) in self.codec.kinds for value in facts):
            raise ValueError("an entry holds a value of no fact kind")
        return facts

    def store_pack(self, pack: Pack, current: Mapping[bytes, str]) -> None:
        """Write a pack this run added to (``current``: each file's key, by its display
        path as a pack line spells it)."""
        if not pack.added:
            return
        self.write_entry(pack.key, "rounds", pack.encoded(current), SUFFIX)

    def _decode_gathered(
        self, entry: Any, facts: bytes, key: str, display: str, before: str | None
    ) -> Recalled | Miss:
        if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
            return MISS
        if entry.get("skipped") is True:
            return Recalled(None, None)
        if "same" in entry:
            same = entry["same"]
            return Recalled(None, same) if before is not None and same == before else MISS
        result = decode_result(entry, key, display)
        identity = entry["id"]
        if result is None or not isinstance(identity, str) or not facts.startswith(b"["):
            return MISS
        return Recalled(result, identity, facts)

    def load(self, key: str, task: FileTask) -> FileResult | None:
        """The cached result, or None for a miss (absent, unreadable or corrupt)."""
        try:
            entry = json.loads(self._read(self._entry(key)))
            result = decode_result(entry, key, task.display)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            result = None
        if result is None:
            self.misses += 1
        else:
            self.hits += 1
        return result

    def store(self, key: str, result: FileResult) -> None:
        """Write the entry atomically; a cache that cannot be written is simply not used."""
        if not cacheable(result) or result.changed:
            return
        try:
            path = self._entry(key)
            self._prepare(path.parent)
            _write_atomic(path, json.dumps(encode_result(result, key)).encode())
        except OSError:
            return

    def read_entry(self, key: str, kind: str) -> bytes:
        """The bytes of an entry of another kind (raises ``OSError`` when there is none)."""
        return self._read(self._entry(key, kind))

    def finish(self) -> Swept | None:
        """End of the run: mark every entry it read as used, and sweep the cache if it is
        due (:mod:`unsentinel.core.cache_sweep`); best effort, never fails the run."""
        now = time.time()
        mark_used(self.used, now)
        return sweep_if_due(self.directory, self.started, now)

    def _read(self, path: Path) -> bytes:
        data = path.read_bytes()
        self.used.add(path)
        return data

    def write_entry(self, key: str, kind: str, data: bytes, suffix: str = ".json") -> None:
        """Write an entry of another kind atomically; best effort, as every write here."""
        try:
            path = self._entry(key, kind, suffix)
            self._prepare(path.parent)
            _write_atomic(path, data)
        except OSError:
            return

    def _entry(self, key: str, kind: str = "", suffix: str = ".json") -> Path:
        """Results at ``xx/key.json``; other kinds of entry in a folder of their own."""
        base = self.directory / kind if kind else self.directory
        return base / key[:2] / f"{key}{suffix}"

    def _prepare(self, shard: Path) -> None:
        if shard.is_dir():
            return
        self.directory.mkdir(exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.is_file():
            _write_atomic(ignore, _IGNORE_ALL.encode())
            _write_atomic(self.directory / "CACHEDIR.TAG", _CACHEDIR_TAG.encode())
        shard.mkdir(parents=True, exist_ok=True)


def remove_cache(root: Path) -> bool:
    """Delete the project's check cache (``unsentinel clean``); False where there was none.
    Always safe: the next ``check`` computes what it needs again. Only the cache's own
    folder goes (a file of that name is not the cache's and stays)."""
    folder = root / CACHE_DIR
    if not folder.is_dir() or folder.is_symlink():
        return False
    shutil.rmtree(folder)
    return True


def _write_atomic(path: Path, data: bytes) -> None:
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
