"""The data files of a project's tests: inputs a feature may read besides the Python files.

A suite that keeps its cases in ``tests/eval_cases.json`` (the tool each case calls, the
keys its output must have) pins the output of the functions it names as surely as a
``assert result["error"] == ...`` does, though no Python code shows the read. The runner
finds such files under the run's paths in the walk that finds its Python files (ignore
files and excludes honoured), and hands them to every feature whose facts read them
(:meth:`~unsentinel.core.facts.Facts.from_data`); the check cache digests them like the
modules the configuration names, so an edit of one is an edit of the run's inputs.

A data file is a JSON or YAML file under a test directory (``tests/``, ``test/``,
``testing/``) or named like a test (``test_cases.json``). Other JSON files (a package's
resources, a schema) are not test data: nothing in them says a test reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from unsentinel.core.config import Config
from unsentinel.core.discovery import PYTHON_SUFFIXES, Discovery
from unsentinel.core.suite import Suite

DATA_SUFFIXES = (".json", ".yaml", ".yml")
TEST_DIRECTORIES = frozenset({"tests", "test", "testing"})


def discovery_suffixes(suite: Suite) -> tuple[str, ...]:
    """What the run's walk takes: the data files too where a feature reads them (one walk
    finds both; a second walk of the tree cost a warm check as much as the first)."""
    return PYTHON_SUFFIXES + DATA_SUFFIXES if _readers(suite) else PYTHON_SUFFIXES


def with_data(
    found: Discovery, paths: Sequence[Path], files_from: Sequence[str], config: Config, suite: Suite
) -> tuple[Discovery, Suite]:
    """The run's Python files, and ``suite`` with its test-data files and what its features
    read from them, out of a walk that took both (:func:`discovery_suffixes`)."""
    readers = _readers(suite)
    if not readers:
        return found, suite
    named = _named(paths, files_from)
    python = [t for t in found.tasks if not _is_data(t.path) or t.path.resolve() in named]
    root = config.root.resolve()
    data = (task.path for task in found.tasks if _is_data(task.path))
    files = tuple(path.resolve() for path in data if _of_tests(path, root))
    seed = tuple(v for v in (reader(files, config) for reader in readers) if v is not None)
    return replace(found, tasks=tuple(python)), replace(suite, data_files=files, seed=seed)


def _readers(suite: Suite) -> list[Callable[[Sequence[Path], Config], Any]]:
    return [kind.from_data for kind in suite.facts if hasattr(kind, "from_data")]


def _is_data(path: Path) -> bool:
    return path.name.endswith(DATA_SUFFIXES)


def _named(paths: Iterable[Path], files_from: Iterable[str]) -> set[Path]:
    """The files the command line names: taken whatever their suffix, as before."""
    named = [*paths, *(Path(line) for line in files_from if line.strip())]
    return {path.resolve() for path in named if path.is_file()}


def _of_tests(path: Path, root: Path) -> bool:
    """Is ``path`` where tests keep their data: below a test directory of the project, or
    named like a test?"""
    parts = path.relative_to(root).parts if path.is_relative_to(root) else path.parts
    return path.name.startswith("test") or any(part in TEST_DIRECTORIES for part in parts[:-1])
