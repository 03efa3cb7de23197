"""A test-data file that names a function and a key of its output pins that output.

A suite can keep its cases in a data file and call each case's function through a table
built at run time::

    [{"tool": "get_incident_details", "params": {"snapshot_id": "snap_1"},
      "assertions": {"output_contains_keys": ["snapshot_id", "error"],
                     "output_value": {"error": "No data found"}}}]

    func = funcs[case["tool"]]
    assert output[key] == expected

Neither the call nor the read is in the code, so no reader rewrite follows them: migrated,
``output["error"]`` is an object where the case expects the string, and ``snapshot_id``
has moved into ``error.details`` (awslabs-cloudwatch-applicationsignals-mcp-server). The
file is a wire contract of its own format, and the function it names is held with its
readers, for a reason that names the file and the key.

What counts, in one object of the file (a *case*): a string value that is exactly the name
of a function with error dicts to migrate (``"tool": "get_item"``; not ``"get_item_v2"``,
not a sentence), and, anywhere in that object, a key its error dicts change or move, as a
key (``"error": "No data found"``) or as a string (``["item_id", "error"]``). The key alone
elsewhere in the file, or the name in another case, pins nothing; nor does a key the
function's success dicts have too, nor one of the function's parameters given as a key
(``"params": {"item_id": ...}``: the case's argument, not its expectation).

The files are the run's test-data files (:mod:`unsentinel.core.data_files`); each is read
and parsed once per content (keyed by its stamp), and only when the repository has error
dicts to migrate. YAML needs PyYAML (the ``yaml`` extra); without it a YAML file pins nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# How a key appears in a case, the strongest first: what the reason says.
COMPARED = "compared with a string"
KEYED = "a key"
LISTED = "listed"
RANK = {COMPARED: 0, KEYED: 1, LISTED: 2}
_AS_KEYS = frozenset({COMPARED, KEYED})

DataFile = tuple[str, str, str]  # (as the reason shows it, real path, stamp)
Pin = tuple[str, str, str, str]  # (function, data file as shown, key, how it appears)


@dataclass(frozen=True)
class Case:
    """One object of a data file that names functions: the names, and every key and string
    in it (nested) with the ways it appears."""

    names: frozenset[str]
    keys: Mapping[str, frozenset[str]]


_READ: dict[tuple[str, str], tuple[Case, ...]] = {}  # each file's cases, by path and stamp
_KEPT = 256


def pins(
    files: Iterable[DataFile],
    keys_of: Mapping[str, frozenset[str]],
    parameters: Mapping[str, set[str]],
) -> set[Pin]:
    """Each function of ``keys_of`` a case names with one of its keys (the keys its error
    dicts change or move). A key that is also one of the function's ``parameters`` counts
    only as a string (``["item_id"]``): as a key, it is as likely the case's argument
    (``"params": {"item_id": ...}``)."""
    found: set[Pin] = set()
    for shown, path, stamp in files:
        for case in cases(path, stamp):
            for name in case.names & keys_of.keys():
                for key in keys_of[name] & case.keys.keys():
                    hows = case.keys[key]
                    if key in parameters.get(name, ()):
                        hows -= _AS_KEYS
                    if hows:
                        found.add((name, shown, key, min(hows, key=RANK.__getitem__)))
    return found


def cases(path: str, stamp: str) -> tuple[Case, ...]:
    """The cases of the data file at ``path``, read once per ``stamp``."""
    found = _READ.get((path, stamp))
    if found is None:
        if len(_READ) >= _KEPT:  # a long-lived process (a test session) reads many projects
            _READ.clear()
        found = _READ[path, stamp] = _cases_of(_load(Path(path)))
    return found


def _load(path: Path) -> Any:
    """The document, or None where it does not read (not UTF-8, not JSON or YAML, no PyYAML)."""
    try:
        text = path.read_text("utf-8-sig")
        return json.loads(text) if path.suffix == ".json" else _yaml(text)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None


def _yaml(text: str) -> Any:
    try:
        import yaml
    except ImportError:
        return None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


def _cases_of(document: Any) -> tuple[Case, ...]:
    found: list[Case] = []
    try:
        _keys(document, found)
    except RecursionError:
        return ()
    return tuple(found)


_Seen = dict[str, set[str]]


def _keys(value: Any, found: list[Case]) -> _Seen:
    """Every key and identifier-like string in ``value``, with the ways it appears; each
    object that names a function (a string value of its own) is recorded in ``found``."""
    seen: _Seen = {}
    if isinstance(value, dict):
        names = set()
        for key, item in value.items():
            if isinstance(key, str):
                seen.setdefault(key, set()).add(COMPARED if isinstance(item, str) else KEYED)
            if isinstance(item, str) and item.isidentifier():
                names.add(item)
            _add(seen, _keys(item, found))
        if names:
            found.append(Case(frozenset(names), {k: frozenset(v) for k, v in seen.items()}))
    elif isinstance(value, list):
        for item in value:
            _add(seen, _keys(item, found))
    elif isinstance(value, str) and value.isidentifier():
        seen[value] = {LISTED}
    return seen


def _add(seen: _Seen, inner: _Seen) -> None:
    for key, hows in inner.items():
        seen.setdefault(key, set()).update(hows)
