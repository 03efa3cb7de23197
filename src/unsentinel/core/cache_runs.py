"""The check cache's whole-run entry: when nothing a check reads has changed, its answer.

A check's results are a function of what it reads: the tool and its settings (the
settings key), every file's display path, module name and bytes (the per-file keys), and
the files the features read back when they settle their facts: the modules the
configuration names (the codes a human kept in ``warning_codes.py``) and the tests' data
files (:mod:`unsentinel.core.data_files`). With all of them as they were, the
per-file entries would lead, round by round, to the answer already known: each gather
round's outputs looked up and merged, the merged facts digested to key the next round,
every result decoded. On the standard library plus site-packages that took two of the
warm check's 2.7 seconds. One entry keyed by every input answers for the cost of reading
and hashing the files, which the per-file keys need anyway.

Only a run that saw no accident writes one (every result :func:`cacheable`); any edit, a
new or deleted file, another configuration or an upgrade makes it miss, and the per-file
entries take over. ``RunResult.facts`` of a run answered so is empty: a check reports
sites, and nothing downstream of ``check`` reads the facts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from unsentinel.core.cache import CheckCache, cacheable
from unsentinel.core.cache_codec import FORMAT, decode_result, encode_result, sha256
from unsentinel.core.model import FileResult, FileTask, Status

KIND = "runs"  # the entries' folder under .unsentinel_cache/


def run_key(
    cache: CheckCache,
    tasks: Sequence[FileTask],
    keys: Mapping[Path, str],
    early: Mapping[int, FileResult],
    configured: str,
) -> str | None:
    """The key of everything a check of ``tasks`` reads; None where a file failed by
    accident before the pipeline (unreadable, vanished): such a run is not kept.

    ``keys``: each read file's per-file key; ``early``: the results of files that end
    before the pipeline (too large, generated), by index; ``configured``: the
    :func:`configured_digest` of the modules the configuration names.
    """
    parts = [cache.settings]
    for index, task in enumerate(tasks):
        result = early.get(index)
        if result is not None:
            if not cacheable(result):
                return None
            parts.append(json.dumps(encode_result(result, ""), sort_keys=True))
        else:
            parts.append(keys[task.path])
    parts.append(configured)
    return sha256("\0".join(parts).encode())


def configured_digest(paths: Iterable[Path]) -> str:
    """A digest of the modules the configuration names and of the tests' data files (their
    paths and bytes), whether or not they exist: the features read them back when they
    settle their facts."""
    return sha256("\0".join(f"{path}\0{_digest_of(path)}" for path in paths).encode())


def _digest_of(path: Path) -> str:
    try:
        return sha256(path.read_bytes())
    except OSError:
        return "-"  # absent (or unreadable): the features read it as empty


def load_run(cache: CheckCache, key: str, tasks: Sequence[FileTask]) -> list[FileResult] | None:
    """Every file's result, in the tasks' order; None for a miss (absent or malformed)."""
    try:
        entry = json.loads(cache.read_entry(key, KIND))
        if entry.get("format") != FORMAT or entry.get("key") != key:
            return None
        if entry["files"] != len(tasks):
            return None
        results = [FileResult(task.display, Status.PREFILTERED) for task in tasks]
        for index, data in entry["results"]:
            result = decode_result(data, key, tasks[index].display)
            if result is None:
                return None
            results[index] = result
    except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError):
        return None
    return results


def store_run(cache: CheckCache, key: str, results: Sequence[FileResult]) -> None:
    """Keep a run's results, where every one of them is what the same inputs always give.

    Most files end at the prefilter, and those are left out: a missing index reads as
    prefiltered, so the entry grows with the findings, not with the tree.
    """
    if not all(cacheable(result) and not result.changed for result in results):
        return
    document: dict[str, Any] = {
        "format": FORMAT,
        "key": key,
        "files": len(results),
        "results": [
            [index, encode_result(result, key)]
            for index, result in enumerate(results)
            if not _plainly_prefiltered(result)
        ],
    }
    cache.write_entry(key, KIND, json.dumps(document).encode())


def _plainly_prefiltered(result: FileResult) -> bool:
    plain = FileResult(result.path, Status.PREFILTERED)
    return result == plain
