"""Reading an edited plan file: its entries, checked before anything runs.

``unsentinel plan -o migration-plan.toml`` writes every site with its inferred values and a
fingerprint (:mod:`unsentinel.core.fingerprints`); the reviewer edits values or marks a
site ``skip``. :func:`load_plan` reads the file back (TOML, or JSON for ``.json``) and
refuses anything it cannot apply -- an unknown key, a code that is no identifier, a
severity that is none -- with the entry's line, so a typo fails before any file is read.
Matching the entries with the source as it is now is :mod:`unsentinel.core.decisions`.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from unsentinel.core.model import Action, Severity

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DECIDABLE = ("severity", "field_path", "code")
"""The inferred values a plan may change; ``action`` may only become ``skip``."""

ENTRY_KEYS = frozenset(
    {
        "id",
        "path",
        "line",
        "column",
        "end_line",
        "rule",
        "kind",
        "action",
        "severity",
        "field_path",
        "code",
        "confidence",
        "reasons",
        "fingerprint",
    }
)
TOP_KEYS = frozenset({"version", "paths", "sites"})

_SEVERITIES = frozenset(s.value for s in Severity)
_RUNTIME_SEVERITY = re.compile(r"^(\w+) if (.+) else (\w+)$")
_UNSAFE_PATH = re.compile(r"[\"'\\\n\r]")
_KEYWORDS = frozenset(keyword.kwlist)


@dataclass(frozen=True)
class Entry:
    """One site of an edited plan: the values it sets (absent key: the value is none)."""

    id: str
    path: str
    rule: str
    fingerprint: str
    line: int  # in the plan file, for messages
    action: str = Action.REWRITE.value
    values: Mapping[str, str | None] = field(default_factory=dict)

    @property
    def skip(self) -> bool:
        return self.action == Action.SKIP.value


class PlanError(Exception):
    """An invalid plan file; the message names the entry and its line."""


@dataclass(frozen=True)
class Plan:
    """A plan file as written (before it is compared with the source)."""

    entries: tuple[Entry, ...]
    paths: tuple[str, ...] = ()


def load_plan(path: Path) -> Plan:
    """Read and validate a plan (TOML, or JSON for a ``.json`` file); raise :class:`PlanError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PlanError(f"{path}: cannot read the plan: {exc}") from exc
    if path.suffix == ".json":
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PlanError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from exc
    else:
        try:
            document = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise PlanError(f"{path}: invalid TOML: {exc}") from exc
    return _plan_of(document, _EntryLines(path, text))


class _EntryLines:
    """Where each ``[[sites]]`` entry (and a key in it) is in the file, for messages."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()
        self.starts = [n for n, line in enumerate(self.lines, 1) if line.strip() == "[[sites]]"]

    def of(self, index: int, key: str | None = None) -> int:
        if index >= len(self.starts):
            return 0
        start = self.starts[index]
        if key is None:
            return start
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        for number in range(start, len(self.lines) + 1):
            line = self.lines[number - 1]
            if number > start and line.lstrip().startswith("["):
                break
            if pattern.match(line):
                return number
        return start

    def where(self, index: int, key: str | None = None) -> str:
        line = self.of(index, key)
        return f"{self.path}:{line}" if line else f"{self.path}: sites[{index}]"


def _plan_of(document: Any, lines: _EntryLines) -> Plan:
    if not isinstance(document, dict):
        raise PlanError(f"{lines.path}: a plan is a table with a 'sites' list")
    unknown = sorted(set(document) - TOP_KEYS)
    if unknown:
        raise PlanError(f"{lines.path}: unknown top-level key {unknown[0]!r}")
    sites = document.get("sites", [])
    if not isinstance(sites, list):
        raise PlanError(f"{lines.path}: 'sites' must be a list of tables")
    paths = document.get("paths", [])
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise PlanError(f"{lines.path}: 'paths' must be a list of strings")
    entries = tuple(_entry(raw, index, lines) for index, raw in enumerate(sites))
    return Plan(entries, tuple(paths))


def _entry(raw: Any, index: int, lines: _EntryLines) -> Entry:
    if not isinstance(raw, dict):
        raise PlanError(f"{lines.where(index)}: sites[{index}] is not a table")
    name = str(raw.get("id", f"sites[{index}]"))

    def fail(key: str | None, problem: str) -> PlanError:
        return PlanError(f"{lines.where(index, key)}: entry {name!r}: {problem}")

    for key in raw:
        if key not in ENTRY_KEYS:
            raise fail(key, f"unknown key {key!r} (known: {', '.join(sorted(ENTRY_KEYS))})")
    for key in ("path", "rule", "fingerprint"):
        if not isinstance(raw.get(key), str):
            raise fail(None, f"missing {key!r} (regenerate the plan with `unsentinel plan`)")
    action = raw.get("action", Action.REWRITE.value)
    if action not in {a.value for a in Action}:
        raise fail("action", f"unknown action {action!r} (use 'skip' to leave a site alone)")
    values = {key: raw[key] for key in DECIDABLE if raw.get(key) is not None}
    for key, value in values.items():
        if not isinstance(value, str):
            raise fail(key, f"{key} must be a string")
    _check_values(values, fail)
    return Entry(
        name, raw["path"], raw["rule"], raw["fingerprint"], lines.of(index), action, values
    )


def _check_values(values: Mapping[str, str], fail: Callable[[str, str], PlanError]) -> None:
    for key in _CHECK_ORDER:
        value = values.get(key)
        problem = None if value is None else value_problem(key, value)
        if problem is not None:
            raise fail(key, problem)


_CHECK_ORDER = ("code", "severity", "field_path")
"""The order a plan entry's values are checked in: the first problem is the one reported."""


def value_problem(name: str, value: str) -> str | None:
    """Why ``value`` cannot be the plan's ``name`` (one of :data:`DECIDABLE`); None: it can.

    Public so that whoever builds a plan without a file (``apply --interactive``) checks
    an edited value by the very rule a plan file's value is checked by.
    """
    if name == "code" and (not value.isidentifier() or value in _KEYWORDS):
        return f"code {value!r} is not a valid Python identifier"
    if name == "severity" and not _valid_severity(value):
        known = ", ".join(sorted(_SEVERITIES))
        return f"unknown severity {value!r} (one of: {known})"
    if name == "field_path" and _UNSAFE_PATH.search(value):
        return f"field_path {value!r} may not contain quotes or backslashes"
    return None


def _valid_severity(value: str) -> bool:
    runtime = _RUNTIME_SEVERITY.match(value)
    if runtime is not None:
        return {runtime.group(1), runtime.group(3)} <= _SEVERITIES
    return value in _SEVERITIES
