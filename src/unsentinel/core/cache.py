"""A cache for ``check``: what a file's check found, kept until anything it depends on changes.

Like ruff's cache, it lives under the project root (``.unsentinel_cache/``, git-ignored by a
``.gitignore`` of its own) and is keyed so that it can never be stale: an entry's key is a
hash of the file's bytes, its display path and module name, the tool's version (and
LibCST's and Python's), and the effective configuration with the enabled rule codes. An
edit, a configuration change or an upgrade therefore simply misses.

One small JSON file per key, written to a temporary file and renamed into place: two runs
at once never see half an entry, and the worst a race can do is write the same entry
twice. An entry that cannot be read or decoded (truncated, edited, from another format) is
a miss and gets rewritten; the cache never fails a run. Only ``check`` uses it: ``diff``,
``plan`` and ``apply`` depend on facts gathered from the whole repository.
"""

from __future__ import annotations

import enum
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import fields
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

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
FORMAT = 1  # bump when the entry layout or the meaning of a result changes
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


class CheckCache:
    """The entries of one project for one set of settings; every method is best effort."""

    def __init__(self, root: Path, settings: str) -> None:
        self.directory = root / CACHE_DIR
        self.settings = settings
        self.hits = 0
        self.misses = 0

    def key(self, task: FileTask, data: bytes) -> str:
        """The entry's key for the file with the bytes ``data``; the caller reads the file
        once, and the pipeline works on those same bytes, so a result is always stored
        under the key of the contents it was computed from."""
        parts = (self.settings, task.display, task.module_name, _sha256(data))
        return _sha256("\0".join(parts).encode())

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

    def _entry(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def _prepare(self, shard: Path) -> None:
        if shard.is_dir():
            return
        self.directory.mkdir(exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.is_file():
            _write_atomic(ignore, _IGNORE_ALL.encode())
        shard.mkdir(exist_ok=True)


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
