"""The check cache's facts between gather rounds: what each round learnt, kept by name.

After a round, the facts the next round starts from are the merge of every file's output
so far. :mod:`unsentinel.core.cache_rounds` names them by the identities of those outputs
(and the bytes of the modules the configuration names, which the features read when they
settle), so a warm check after an edit that changed no file's output (a comment, a
docstring) meets the same names as the run before it. Two kinds of entry are kept:

* a **step** (``steps/``), from the facts named ``start`` to the facts named ``end``: the
  digest of the new facts (the next round's stamp), the functions whose facts changed,
  and whether the facts know any of them (prefiltered files come back then). A few bytes,
  read every round: with it the round neither merges nor digests anything.
* a **fold** (``folds/``): the facts named ``end`` themselves, as the canonical JSON the
  digest hashes. Read only where a file the cache lacks needs the facts: a round's
  misses, or the last pass.

Both are pure functions of their names, so a kept one is never stale; one that does not
read is a miss, and the facts are merged and digested as without a cache.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from unsentinel.core.cache import CheckCache
from unsentinel.core.cache_codec import FORMAT, FactCodec, sha256
from unsentinel.core.facts import FactBook


@dataclass(frozen=True)
class Step:
    """From one round's facts to the next: the new facts' digest, the functions whose facts
    changed, whether the facts know any of them, and the names the prefilter takes from
    the new facts (:meth:`FactBook.function_names`, :meth:`FactBook.module_function_names`)."""

    digest: str
    changed: frozenset[str]
    again: bool
    names: tuple[frozenset[str], frozenset[str]]


def load_step(cache: CheckCache, start: str, end: str) -> Step | None:
    """The step kept from the facts named ``start`` to those named ``end``; None: a miss."""
    key = _key(cache, "step", start, end)
    try:
        entry = json.loads(cache.read_entry(key, "steps"))
        if entry["format"] != FORMAT or entry["key"] != key:
            return None
        digest, changed, again = entry["digest"], entry["changed"], entry["again"]
        names, module_names = entry["names"], entry["module_names"]
    except (OSError, ValueError, TypeError, KeyError, RecursionError):
        return None
    if not isinstance(digest, str) or not isinstance(again, bool):
        return None
    if not all(_names(value) for value in (changed, names, module_names)):
        return None
    return Step(digest, frozenset(changed), again, (frozenset(names), frozenset(module_names)))


def _names(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(name, str) for name in value)


def store_step(cache: CheckCache, start: str, end: str, step: Step) -> None:
    """Keep the step from the facts named ``start`` to those named ``end``."""
    key = _key(cache, "step", start, end)
    entry = {
        "format": FORMAT,
        "key": key,
        "digest": step.digest,
        "changed": sorted(step.changed),
        "again": step.again,
        "names": sorted(step.names[0]),
        "module_names": sorted(step.names[1]),
    }
    cache.write_entry(key, "steps", json.dumps(entry).encode())


def fold(cache: CheckCache, end: str, facts: FactBook) -> str | None:
    """Keep the facts named ``end`` and return their digest (None: they are not data)."""
    document = cache.codec.document(facts)
    if document is None:
        return None
    key = _key(cache, "fold", end)
    header = json.dumps({"format": FORMAT, "key": key}).encode()
    cache.write_entry(key, "folds", header + b"\n" + document)
    return sha256(document)


def load_fold(cache: CheckCache, end: str, step: Step) -> FactBook | None:
    """The facts named ``end``, where a run kept them and they hash to ``step``'s digest;
    None: a miss. Their entries are decoded when a rule first asks (a round whose files
    the prefilter stops needs only the names the step holds)."""
    key = _key(cache, "fold", end)
    try:
        header, _, document = cache.read_entry(key, "folds").partition(b"\n")
        head = json.loads(header)
        if head["format"] != FORMAT or head["key"] != key:
            return None
    except (OSError, ValueError, TypeError, KeyError, RecursionError):
        return None
    # The document the step's digest names, as a run wrote it from facts it had: it reads.
    if sha256(document) != step.digest or not document.endswith((b", true]", b", false]")):
        return None
    gathered = document.endswith(b", true]")
    return FactBook(_Unread(cache.codec, document), gathered=gathered, names=step.names)


class _Unread(Mapping[type[Any], Any]):
    """A fold's entries, decoded the first time they are read."""

    def __init__(self, codec: FactCodec, document: bytes) -> None:
        self._codec = codec
        self._document = document
        self._entries: dict[type[Any], Any] | None = None

    def _read(self) -> dict[type[Any], Any]:
        if self._entries is None:
            self._entries, _gathered = self._codec.book(self._document)
        return self._entries

    def __getitem__(self, kind: type[Any]) -> Any:
        return self._read()[kind]

    def __iter__(self) -> Iterator[type[Any]]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


def _key(cache: CheckCache, kind: str, *names: str) -> str:
    return sha256("\0".join([cache.settings, kind, *names]).encode())
