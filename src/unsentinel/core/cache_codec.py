"""The check cache's entry format: results and facts as plain JSON, never pickle.

A cache file is data, never code to run: results are encoded field by field, and facts as
tagged JSON decoded only into the data classes and enums the features' fact types name
(:class:`FactCodec`). Anything else in an entry makes it a miss.
"""

from __future__ import annotations

import enum
import hashlib
import json
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import fields, is_dataclass
from typing import Any

from unsentinel.core.model import (
    Action,
    Confidence,
    FileResult,
    Inferred,
    Kind,
    Position,
    Site,
    Status,
)

FORMAT = 18  # bump when the entry layout or the meaning of a result changes


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def encode_result(result: FileResult, key: str) -> dict[str, Any]:
    """A check result as JSON data (JSON, not pickle: a cache file is never code to run)."""
    return {
        "format": FORMAT,
        "key": key,
        "status": result.status.value,
        "sites": [_encode_site(site) for site in result.sites],
        "error": result.error,
        "skip_reason": result.skip_reason,
        "lasting": result.lasting,
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
        lasting=_bool(entry["lasting"]),
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


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {type(value).__name__}")
    return value


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
            return {
                "E": class_name(type(value)),
                "v": self.encode(value.value, canonical=canonical),
            }
        if is_dataclass(value) and not isinstance(value, type):
            values = {
                item.name: self.encode(getattr(value, item.name), canonical=canonical)
                for item in fields(value)
                if item.init
            }
            return {"D": class_name(type(value)), "f": values}
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
        document = self.document(facts)
        return None if document is None else sha256(document)

    def document(self, facts: Any) -> bytes | None:
        """A :class:`~unsentinel.core.facts.FactBook` as canonical JSON (what
        :meth:`digest` hashes; :meth:`book` reads it back); None: not data."""
        try:
            entries = sorted(
                [class_name(kind), self.encode(value, canonical=True)]
                for kind, value in facts.entries.items()
            )
            return json.dumps([entries, bool(facts.gathered)]).encode()
        except (TypeError, ValueError, RecursionError, AttributeError):
            return None

    def book(self, document: bytes) -> tuple[dict[type[Any], Any], bool]:
        """The entries (in the order of ``kinds``) and the ``gathered`` flag of a
        :meth:`document`; raises ``ValueError`` (or ``TypeError``, ``KeyError``) for
        anything else, a kind the facts do not have included."""
        entries, gathered = json.loads(document)
        by_name = {class_name(kind): kind for kind in self.kinds}
        found = {by_name[name]: self.decode(value) for name, value in entries}
        if not isinstance(gathered, bool) or any(
            type(value) is not kind for kind, value in found.items()
        ):
            raise ValueError("not a fact book")
        return {kind: found[kind] for kind in self.kinds if kind in found}, gathered

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


def class_name(cls: type[Any]) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _sorted(items: Iterable[Any]) -> list[Any]:
    """Encoded values in one order for every process: by their ``repr``, which for JSON data
    built in a fixed order (fields in declaration order, sets and mappings sorted) depends
    on no hash seed. ``json.dumps`` per item said the same at five times the cost: 218,000
    calls, most of a warm check's fact digests over the standard library."""
    return sorted(items, key=repr)


def _reachable(kinds: Iterable[type[Any]]) -> dict[str, type[Any]]:
    """Every data class and enum the fields of ``kinds`` name, transitively, by name."""
    found: dict[str, type[Any]] = {}
    todo = list(kinds)
    while todo:
        cls = todo.pop()
        if class_name(cls) in found:
            continue
        found[class_name(cls)] = cls
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
