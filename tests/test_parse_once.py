"""Each file is parsed by LibCST at most once per run, and a file with no candidates never.

LibCST's parser is most of a run's cost (issue 11): the gather rounds and the rewrite share
one tree per file (:class:`~unsentinel.core.engine.FileStore`), in this process or in the
pool lane that owns the file. The test patches ``libcst.parse_module`` to log what it is
asked to parse (to a file, so that forked pool workers log too), and compares the log with
the project's files. The only other parse a run makes is of a rewrite's output, once, to
validate it; the test checks that too.
"""

from __future__ import annotations

import ast
import hashlib
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import libcst
import pytest
from click.testing import CliRunner

import unsentinel.core.pool as pool
import unsentinel.core.runner as runner
from unsentinel.cli import main

# helpers.py's facts change in the first gather round (``note`` turns out to take a
# warnings list), so the gather pass runs a second round over the files that call it.
HELPERS = """\
BLOCK_WARNING_PREFIX = "BLOCK: "


def note(warnings: list[str], text: str) -> None:
    warnings.append(f"{BLOCK_WARNING_PREFIX}{text}")
"""
ORDERS = """\
from helpers import BLOCK_WARNING_PREFIX, note


def cancel(order: dict[str, str]) -> list[str]:
    warnings: list[str] = []
    if not order:
        note(warnings, "no such order")
    warnings.append(f"{BLOCK_WARNING_PREFIX}order {order['id']} is closed")
    return warnings


def blocked(warnings: list[str]) -> bool:
    return any(w.startswith(BLOCK_WARNING_PREFIX) for w in warnings)
"""
# Passes the byte prefilter (the words are there) but Python's own parser finds no code
# any rule acts on: LibCST must never see it.
WORDS_ONLY = '''\
"""Mentions warnings and {"error": ...} only in prose."""

# warnings: list[str] = [] is not code here


def add(a: int, b: int) -> int:
    return a + b
'''
CLEAN = "def add(a: int, b: int) -> int:\n    return a + b\n"
SOURCES = {
    "helpers.py": HELPERS,
    "orders.py": ORDERS,
    "words_only.py": WORDS_ONLY,
    "clean.py": CLEAN,
}
CANDIDATES = ("helpers.py", "orders.py")


def _digest(source: str | bytes) -> str:
    data = source.encode() if isinstance(source, str) else source
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[], Counter[str]]:
    """Log every ``libcst.parse_module`` call's source digest; return a reader of the log."""
    log = tmp_path.parent / f"{tmp_path.name}-parses.log"
    real = libcst.parse_module

    def counting(source: str | bytes, *args: object, **kwargs: object) -> libcst.Module:
        with open(log, "a", encoding="ascii") as handle:  # one short line: atomic append
            handle.write(f"{_digest(source)} {os.getpid()}\n")
        return real(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(libcst, "parse_module", counting)

    def read() -> Counter[str]:
        lines = log.read_text(encoding="ascii").split() if log.exists() else []
        return Counter(lines[::2])

    return read


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in SOURCES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def rounds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many files each gather round revisited after the first (to prove there was one)."""
    seen: list[int] = []
    real = pool.Workers.map

    def counting(
        self: pool.Workers, tasks: list[object], *args: object, **kwargs: object
    ) -> object:
        names = kwargs.get("names", args[3] if len(args) > 3 else None)
        if names is not None:
            seen.append(len(tasks))
        return real(self, tasks, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pool.Workers, "map", counting)
    return seen


def _originals(root: Path) -> dict[str, str]:
    return {_digest((root / name).read_bytes()): name for name in SOURCES}


def _assert_parsed_once(counts: Counter[str], originals: dict[str, str], changed: int) -> None:
    by_name = {originals[digest]: n for digest, n in counts.items() if digest in originals}
    assert by_name == {name: 1 for name in CANDIDATES}
    outputs = [n for digest, n in counts.items() if digest not in originals]
    assert outputs == [1] * changed  # each rewrite's output, validated once


@pytest.mark.parametrize("jobs", ["1", "2"], ids=["serial", "pool"])
def test_plan_parses_each_candidate_once(
    project: Path,
    parses: Callable[[], Counter[str]],
    rounds: list[int],
    jobs: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pool, "POOL_MIN_BYTES", 0)  # a pool even for a tree this small
    started: list[int] = []
    real_workers = pool.Workers

    def workers(lanes: int, *args: object) -> pool.Workers:
        started.append(lanes)
        return real_workers(lanes, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "Workers", workers)
    originals = _originals(project)
    result = CliRunner().invoke(main, ["plan", ".", "-j", jobs, "--format", "json"])
    assert result.exit_code == 0, result.output
    assert started == [0 if jobs == "1" else 2]
    assert rounds, "the gather pass never needed a second round: the test proves nothing"
    assert rounds[0] <= len(CANDIDATES)  # only parsed files are revisited
    _assert_parsed_once(parses(), originals, changed=len(CANDIDATES))


@pytest.mark.parametrize("jobs", ["1", "2"], ids=["serial", "pool"])
def test_apply_parses_each_candidate_once(
    project: Path,
    parses: Callable[[], Counter[str]],
    jobs: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pool, "POOL_MIN_BYTES", 0)
    originals = _originals(project)
    result = CliRunner().invoke(main, ["apply", ".", "-j", jobs])
    assert result.exit_code == 0, result.output
    assert (project / "orders.py").read_text() != ORDERS  # it did migrate
    # The generated modules are written, not parsed; the migrated files are parsed twice
    # only in the sense above: their original once, their output once.
    _assert_parsed_once(parses(), originals, changed=len(CANDIDATES))


def test_check_never_parses_a_file_without_candidates(
    project: Path, parses: Callable[[], Counter[str]]
) -> None:
    originals = _originals(project)
    result = CliRunner().invoke(main, ["check", ".", "-j", "1", "--no-cache"])
    assert result.exit_code == 1, result.output
    _assert_parsed_once(parses(), originals, changed=0)


@pytest.mark.parametrize("jobs", ["1", "2"], ids=["serial", "pool"])
def test_check_gathers_and_parses_each_candidate_once(
    project: Path,
    parses: Callable[[], Counter[str]],
    rounds: list[int],
    jobs: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``check`` gathers as ``plan`` does (a second round included) on the same one tree."""
    monkeypatch.setattr(pool, "POOL_MIN_BYTES", 0)
    monkeypatch.delenv("UNSENTINEL_NO_CACHE", raising=False)
    originals = _originals(project)
    result = CliRunner().invoke(main, ["check", ".", "-j", jobs])
    assert result.exit_code == 1, result.output
    assert rounds, "check ran no second gather round: it does not gather"
    _assert_parsed_once(parses(), originals, changed=0)


def test_a_warm_check_of_an_unchanged_tree_parses_nothing(
    project: Path, parses: Callable[[], Counter[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Facts and results both come from the cache: not even Python's own parser runs."""
    monkeypatch.delenv("UNSENTINEL_NO_CACHE", raising=False)
    cold = CliRunner().invoke(main, ["check", ".", "-j", "1"])
    assert sum(parses().values()) == len(CANDIDATES)
    asts: list[int] = []
    real_ast_parse = ast.parse

    def counting_ast(*args: Any, **kwargs: Any) -> ast.Module:
        asts.append(1)
        tree: ast.Module = real_ast_parse(*args, **kwargs)
        return tree

    monkeypatch.setattr(ast, "parse", counting_ast)
    warm = CliRunner().invoke(main, ["check", ".", "-j", "1"])
    assert warm.output == cold.output and warm.exit_code == cold.exit_code == 1
    assert sum(parses().values()) == len(CANDIDATES)  # no new LibCST parse
    assert asts == []
