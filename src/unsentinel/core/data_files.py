"""The data files of a project's tests: inputs a feature may read besides the Python files.

A suite that keeps its cases in ``tests/eval_cases.json`` (the tool each case calls, the
keys its output must have) pins the output of the functions it names as surely as a
``assert result["error"] == ...`` does, though no Python code shows the read. The runner
finds such files under the run's paths, the same way it finds Python files (ignore files and
excludes honoured), and hands them to every feature whose facts read them
(:meth:`~unsentinel.core.facts.Facts.from_data`); the check cache digests them like the
modules the configuration names, so an edit of one is an edit of the run's inputs.

A data file is a JSON or YAML file under a test directory (``tests/``, ``test/``,
``testing/``) or named like a test (``test_cases.json``). Other JSON files (a package's
resources, a schema) are not test data: nothing in them says a test reads them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from unsentinel.core.config import Config
from unsentinel.core.discovery import discover
from unsentinel.core.suite import Suite

DATA_SUFFIXES = (".json", ".yaml", ".yml")
TEST_DIRECTORIES = frozenset({"tests", "test", "testing"})


def with_data(
    suite: Suite, paths: Iterable[Path], config: Config, files_from: Iterable[str] = ()
) -> Suite:
    """``suite`` with the run's test-data files and what its features read from them (no
    walk for a suite whose facts read none)."""
    readers = [kind.from_data for kind in suite.facts if hasattr(kind, "from_data")]
    if not readers:
        return suite
    files = data_files(paths, config, files_from)
    seed = (reader(files, config) for reader in readers)
    return replace(suite, data_files=files, seed=tuple(v for v in seed if v is not None))


def data_files(
    paths: Iterable[Path], config: Config, files_from: Iterable[str] = ()
) -> tuple[Path, ...]:
    """The test-data files under ``paths`` and among ``files_from`` (each a real path), in
    a stable order."""
    root = config.root.resolve()
    found = discover(paths, config, files_from, suffixes=DATA_SUFFIXES)
    real = (task.path.resolve() for task in found.tasks)
    return tuple(
        path for path in real if path.name.endswith(DATA_SUFFIXES) and _of_tests(path, root)
    )


def _of_tests(path: Path, root: Path) -> bool:
    """Is ``path`` where tests keep their data: below a test directory of the project, or
    named like a test?"""
    parts = path.relative_to(root).parts if path.is_relative_to(root) else path.parts
    return path.name.startswith("test") or any(part in TEST_DIRECTORIES for part in parts[:-1])
