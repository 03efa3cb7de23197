"""Checking ``[tool.unsentinel]`` values, and the :class:`ConfigError` that reports a bad one.

``config.py`` finds the settings file and reads its table; this module decides whether what
it read is acceptable. It refuses keys no one owns, checks the common keys every run has,
and offers the checks each feature's ``Section`` reader uses, so that every section words
its errors alike: the file and the key named, the nearest known key or value suggested.

It is kept apart from loading so that each reads on its own: loading is about where the
settings come from, this about what a value may be. It needs no ``Config``, so
``config.py`` imports it and never the other way round.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence, Set
from pathlib import Path
from typing import Any

from unsentinel.core.pyversion import parse_target


class ConfigError(Exception):
    """A configuration problem the user must fix (exit code 2)."""


# The common keys by the kind of value each takes (a feature's keys belong to its section).
_LIST_KEYS = {"select", "ignore", "exclude", "extend-exclude"}
_INT_KEYS = {"max-file-size"}
_VERSION_KEYS = {"target-version"}
_BOOL_KEYS = {"include-generated"}
COMMON_KEYS = frozenset(_LIST_KEYS | _INT_KEYS | _BOOL_KEYS | _VERSION_KEYS)


# -- the table as a whole, and the common keys ----------------------------------------------


def check_known_keys(table: Mapping[str, Any], prefix: str, source: Path, known: Set[str]) -> None:
    """Refuse the first key of ``table`` not in ``known``, suggesting the nearest known one."""
    for key in table:
        if key not in known:
            raise ConfigError(
                f"{source}: unknown key '{prefix}{key}'{did_you_mean(key, known)} "
                f"(known keys: {', '.join(sorted(known))})"
            )


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the nearest choice, or nothing when none is near."""
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def check_common_settings(
    table: Mapping[str, Any], prefix: str, source: Path | None
) -> dict[str, Any]:
    """The common keys of ``table``, checked, as ``Config`` fields (snake_case names)."""
    return {
        key.replace("-", "_"): _check_common_value(value, f"{source}: '{prefix}{key}'", key)
        for key, value in table.items()
    }


def _check_common_value(value: Any, where: str, key: str) -> Any:
    """``value`` checked against the kind of value the common key ``key`` takes."""
    if key in _LIST_KEYS:
        return check_strings(value, where)
    if key in _VERSION_KEYS:
        return _check_target_version(value, where)
    if key in _INT_KEYS:
        return _check_positive_int(value, where)
    return _check_bool(value, where)


def _check_target_version(value: object, where: str) -> str:
    if not isinstance(value, str) or parse_target(value) is None:
        raise ConfigError(f'{where} must look like "py310", got {value!r}')
    return value


def _check_positive_int(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise wrong_type(where, "a positive integer", value)
    return value


def _check_bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise wrong_type(where, "true or false", value)
    return value


# -- checks a feature's reader uses, so every section words its errors alike ---------------


def wrong_type(where: str, expected: str, value: object) -> ConfigError:
    return ConfigError(f"{where} must be {expected}, got {type(value).__name__}")


def check_strings(value: object, where: str) -> tuple[str, ...]:
    """A list of strings, as a tuple."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise wrong_type(where, "a list of strings", value)
    return tuple(value)


def check_text(value: object, where: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value:
        raise wrong_type(where, "a non-empty string", value)
    return value


def check_choice(value: object, choices: Sequence[str], where: str) -> str:
    """One of ``choices``; a near miss is named in the message."""
    if not isinstance(value, str) or value not in choices:
        hint = did_you_mean(value, choices) if isinstance(value, str) else ""
        raise ConfigError(f"{where} must be one of {', '.join(choices)}, got {value!r}{hint}")
    return value


def check_table(value: object, where: str, expected: str) -> dict[str, Any]:
    """A TOML table (``expected`` says what its entries are, for the message)."""
    if not isinstance(value, dict):
        raise wrong_type(where, expected, value)
    return value
