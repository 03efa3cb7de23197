"""A cache for ``check``: what a file's check found, kept until anything it depends on changes.

Like ruff's cache, it lives under the project root (``.unsentinel_cache/``, git-ignored by a
``.gitignore`` of its own) and is keyed so that it can never be stale. ``check`` gathers
cross-file facts as ``plan`` does, so two kinds of entry are kept:

* a file's **gather output** (``gather/``): the facts one gather round read from it. Its
  key is the file's key -- a hash of its bytes, display path and module name, the tool's
  version (and LibCST's and Python's), and the effective configuration with the enabled
  rule codes -- with a digest of the facts the round started from. The first round starts
  from nothing, so a warm run merges every file's facts without reading a tree.
* a file's **check result**: under the file's key alone where the file never reached the
  rules (prefiltered, skipped), and under the file's key with a digest of the settled
  facts where it did. An edit in another file that changes what this file is told (its
  codes, its flow) changes the digest, so the entry simply misses; so do an edit of the
  file, a configuration change and an upgrade.

One small JSON file per key, written to a temporary file and renamed into place: two runs
at once never see half an entry, and the worst a race can do is write the same entry
twice. An entry that cannot be read or decoded (truncated, edited, from another format) is
a miss and gets rewritten; the cache never fails a run. Facts are stored as tagged JSON
and decoded only into the data classes the features' fact types name (never pickle: a
cache file is never code to run). Only ``check`` uses it.
"""

from __future__ import annotations

import enum
import hashlib
import json
import os
import sys
import tempfile
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields, is_dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Final

from unsentinel.core.config import Config
from unsentinel.core.model import (
    Action,
    Confidence,
    FileResult,
    FileTask,
    Inferred,
    Kind,
    Position,
    Site,
    Status,
)

CACHE_DIR = ".unsentinel_cache"
FORMAT = 2  # bump when the entry layout or the meaning of a result changes
_IGNORE_ALL = "# Created by unsentinel: the check cache, never committed.\n*\n"
# Results that depend on the bytes and the settings only; a failure may be a passing
# accident (a file that vanished, a read error) and is always recomputed.
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
    return _sha256(json.dumps(document, sort_keys=True).encode())


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


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Miss:
    """No entry: distinct from a cached ``None`` (a gather round that skipped the file)."""


MISS: Final = Miss()


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

    def key(self, task: FileTask, data: bytes) -> str:
        """The entry's key for the file with the bytes ``data``; the caller reads the file
        once, and the pipeline works on those same bytes, so a result is always stored
        under the key of the contents it was computed from."""
        parts = (self.settings, task.display, task.module_name, _sha256(data))
        return _sha256("\0".join(parts).encode())

    def with_facts(self, key: str, digest: str) -> str:
        """The key of a result that read the settled facts whose digest is ``digest``."""
        return _sha256(f"{key}\0facts\0{digest}".encode())

    def stamp(self, round_number: int, facts: Any, names: frozenset[str] | None) -> str | None:
        """What a gather round starts from: its number, its facts and the functions whose
        facts changed (None when the facts cannot be digested: the round is not cached)."""
        digest = self.codec.digest(facts)
        if digest is None:
            return None
        start = [round_number, digest, None if names is None else sorted(names)]
        return _sha256(json.dumps(start).encode())

    def load_gathered(self, key: str, stamp: str, task: FileTask) -> FileResult | None | Miss:
        """One gather round's output for the file with key ``key``: a result, ``None`` (the
        round skipped the file) or :data:`MISS`."""
        entry_key = self._gather_key(key, stamp)
        try:
            entry = json.loads(self._entry(entry_key, "gather").read_bytes())
            return self._decode_gathered(entry, entry_key, task.display)
        except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
            return MISS

    def store_gathered(self, key: str, stamp: str, result: FileResult | None) -> None:
        """Keep one gather round's output; failures are always recomputed."""
        if result is not None and result.status not in CACHEABLE:
            return
        entry_key = self._gather_key(key, stamp)
        entry: dict[str, Any] = {"format": FORMAT, "key": entry_key, "skipped": result is None}
        try:
            if result is not None:
                entry |= encode_result(result, entry_key)
                entry["facts"] = [self.codec.encode(value) for value in result.facts]
            path = self._entry(entry_key, "gather")
            self._prepare(path.parent)
            _write_atomic(path, json.dumps(entry).encode())
        except (OSError, TypeError, ValueError, RecursionError):
            return

    def _gather_key(self, key: str, stamp: str) -> str:
        return _sha256(f"{key}\0gather\0{stamp}".encode())

    def _decode_gathered(self, entry: Any, key: str, display: str) -> FileResult | None | Miss:
        if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
            return MISS
        if entry["skipped"] is True:
            return None
        result = decode_result(entry, key, display)
        if result is None:
            return MISS
        facts = tuple(self.codec.decode(value) for value in entry["facts"])
        if not all(type(value) in self.codec.kinds for value in facts):
            return MISS
        return FileResult(
            result.path,
            result.status,
            sites=result.sites,
            error=result.error,
            skip_reason=result.skip_reason,
            facts=facts,
        )

    def load(self, key: str, task: FileTask) -> FileResult | None:
        """The cached result, or None for a miss (absent, unreadable or corrupt)."""
        try:
            entry = json.loads(self._entry(key).read_bytes())
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
        if result.status not in CACHEABLE or result.changed:
            return
        try:
            path = self._entry(key)
            self._prepare(path.parent)
            _write_atomic(path, json.dumps(encode_result(result, key)).encode())
        except OSError:
            return

    def _entry(self, key: str, kind: str = "") -> Path:
        """Results at ``xx/key.json``; other kinds of entry in a folder of their own."""
        base = self.directory / kind if kind else self.directory
        return base / key[:2] / f"{key}.json"

    def _prepare(self, shard: Path) -> None:
        if shard.is_dir():
            return
        self.directory.mkdir(exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.is_file():
            _write_atomic(ignore, _IGNORE_ALL.encode())
        shard.mkdir(parents=True, exist_ok=True)


def _write_atomic(path: Path, data: bytes) -> None:
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# -- the entry format -----------------------------------------------------------------------


def encode_result(result: FileResult, key: str) -> dict[str, Any]:
    """A check result as JSON data (JSON, not pickle: a cache file is never code to run)."""
    return {
        "format": FORMAT,
        "key": key,
        "status": result.status.value,
        "sites": [_encode_site(site) for site in result.sites],
        "error": result.error,
        "skip_reason": result.skip_reason,
    }


def decode_result(entry: Any, key: str, display: str) -> FileResult | None:
    """The result an entry holds; None when it is not a well-formed entry for ``key``.

    Raises ``ValueError``, ``TypeError`` or ``KeyError`` on malformed data (the caller
    treats any of them as a miss).
    """
    if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
        return None
    return FileResult(
        display,
        Status(entry["status"]),
        sites=tuple(_decode_site(site) for site in entry["sites"]),
        error=_optional_str(entry["error"]),
        skip_reason=_optional_str(entry["skip_reason"]),
    )


def _encode_site(site: Site) -> dict[str, Any]:
    position = site.position
    return {
        "rule": site.rule,
        "kind": site.kind.value,
        "position": [position.line, position.column, position.end_line, position.end_column],
        "message": site.message,
        "action": site.action.value,
        "severity": _encode_inferred(site.severity),
        "field_path": _encode_inferred(site.field_path),
        "code": _encode_inferred(site.code),
        "reasons": list(site.reasons),
        "scope": site.scope,
    }


def _decode_site(data: dict[str, Any]) -> Site:
    line, column, end_line, end_column = (_int(n) for n in data["position"])
    return Site(
        rule=_str(data["rule"]),
        kind=Kind(data["kind"]),
        position=Position(line, column, end_line, end_column),
        message=_str(data["message"]),
        action=Action(data["action"]),
        severity=_decode_inferred(data["severity"]),
        field_path=_decode_inferred(data["field_path"]),
        code=_decode_inferred(data["code"]),
        reasons=tuple(_str(reason) for reason in data["reasons"]),
        scope=_str(data["scope"]),
    )


def _encode_inferred(value: Inferred | None) -> list[Any] | None:
    return None if value is None else [value.value, value.confidence.value, value.reason]


def _decode_inferred(data: Any) -> Inferred | None:
    if data is None:
        return None
    value, confidence, reason = data
    return Inferred(_optional_str(value), Confidence(confidence), _str(reason))


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _optional_str(value: Any) -> str | None:
    return None if value is None else _str(value)


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected an integer, got {type(value).__name__}")
    return value


# -- facts as JSON --------------------------------------------------------------------------


class FactCodec:
    """The features' fact values as tagged JSON, and back; knows no feature.

    A value is made of JSON scalars, tuples, lists, sets, mappings, enums and frozen data
    classes. Each container carries a one-letter tag so that it comes back as what it was
    (a tuple stays a tuple, a mapping keyed by data classes stays one). Decoding builds
    only the classes reachable from ``kinds`` through their fields' type hints: an entry
    can name no other class, so a cache file never makes the run import or call anything.
    :meth:`digest` hashes the canonical form (sets and mappings sorted), identical in
    every process whatever the hash seed.
    """

    def __init__(self, kinds: Iterable[type[Any]]) -> None:
        self.kinds = tuple(kinds)
        self._allowed: dict[str, type[Any]] | None = None

    def encode(self, value: Any, *, canonical: bool = False) -> Any:
        """``value`` as JSON data; raises ``TypeError`` for anything else."""
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, enum.Enum):
            return {"E": _name(type(value)), "v": self.encode(value.value, canonical=canonical)}
        if is_dataclass(value) and not isinstance(value, type):
            values = {
                item.name: self.encode(getattr(value, item.name), canonical=canonical)
                for item in fields(value)
                if item.init
            }
            return {"D": _name(type(value)), "f": values}
        if isinstance(value, tuple):
            return {"T": [self.encode(v, canonical=canonical) for v in value]}
        if isinstance(value, list):
            return {"L": [self.encode(v, canonical=canonical) for v in value]}
        if isinstance(value, (set, frozenset)):
            tag = "F" if isinstance(value, frozenset) else "S"
            return {tag: _sorted(self.encode(v, canonical=canonical) for v in value)}
        if isinstance(value, Mapping):
            pairs = [
                [self.encode(k, canonical=canonical), self.encode(v, canonical=canonical)]
                for k, v in value.items()
            ]
            return {"M": _sorted(pairs) if canonical else pairs}
        raise TypeError(f"cannot cache a {type(value).__name__}")

    def decode(self, data: Any) -> Any:
        """The value :meth:`encode` made ``data`` from; raises on anything malformed."""
        if data is None or isinstance(data, (bool, int, float, str)):
            return data
        if not isinstance(data, dict) or len(data) not in (1, 2):
            raise ValueError("not an encoded value")
        if "E" in data:
            return self._class(data["E"], enum=True)(self.decode(data["v"]))
        if "D" in data:
            cls = self._class(data["D"], enum=False)
            if not isinstance(data["f"], dict):
                raise ValueError("data class fields are not an object")
            return cls(**{str(k): self.decode(v) for k, v in data["f"].items()})
        [(tag, items)] = data.items()
        if not isinstance(items, list):
            raise ValueError("a container is not a list")
        if tag == "M":
            return {self._key(pair[0]): self.decode(pair[1]) for pair in items}
        builders: dict[str, Any] = {"T": tuple, "L": list, "F": frozenset, "S": set}
        return builders[tag](self.decode(v) for v in items)

    def digest(self, facts: Any) -> str | None:
        """A hash of a :class:`~unsentinel.core.facts.FactBook`'s entries (None: not data)."""
        try:
            entries = sorted(
                [_name(kind), self.encode(value, canonical=True)]
                for kind, value in facts.entries.items()
            )
            return _sha256(json.dumps([entries, bool(facts.gathered)]).encode())
        except (TypeError, ValueError, RecursionError, AttributeError):
            return None

    def _key(self, data: Any) -> Any:
        key = self.decode(data)
        hash(key)  # a mapping key must be hashable (raises TypeError otherwise)
        return key

    def _class(self, name: Any, *, enum: bool) -> type[Any]:
        if self._allowed is None:
            self._allowed = _reachable(self.kinds)
        cls = self._allowed.get(name) if isinstance(name, str) else None
        if cls is None or _is_enum(cls) != enum:
            raise ValueError(f"an entry names a class the facts do not use: {name!r}")
        return cls


def _is_enum(cls: type[Any]) -> bool:
    return issubclass(cls, enum.Enum)


def _name(cls: type[Any]) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _sorted(items: Iterable[Any]) -> list[Any]:
    """Encoded values in one order for every process: by their JSON spelling."""
    return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))


def _reachable(kinds: Iterable[type[Any]]) -> dict[str, type[Any]]:
    """Every data class and enum the fields of ``kinds`` name, transitively, by name."""
    found: dict[str, type[Any]] = {}
    todo = list(kinds)
    while todo:
        cls = todo.pop()
        if _name(cls) in found:
            continue
        found[_name(cls)] = cls
        if is_dataclass(cls):
            try:
                hints = typing.get_type_hints(cls)
            except (NameError, TypeError):  # a hint only a type checker can read
                continue
            todo.extend(_classes_in(hints.values()))
    return found


def _classes_in(hints: Iterable[Any]) -> list[type[Any]]:
    """The data classes and enums inside type hints (``Mapping[Carrier, Blocker]``)."""
    classes: list[type[Any]] = []
    for hint in hints:
        if isinstance(hint, type) and (is_dataclass(hint) or issubclass(hint, enum.Enum)):
            classes.append(hint)
        if typing.get_origin(hint) is not None or isinstance(hint, types.UnionType):
            classes.extend(_classes_in(typing.get_args(hint)))
    return classes
