"""Each file is parsed by LibCST at most once per run, and a file with no candidates never.

LibCST's parser is most of a run's cost (issue 11): the gather rounds and the rewrite share
one tree per file (:class:`~unsentinel.core.store.FileStore`), in this process or in the
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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import libcst
import pytest
from click.testing import CliRunner
from libcst.metadata import CodeRange

import unsentinel.core.pool as pool
import unsentinel.core.runner as runner
from unsentinel.cli import main
from unsentinel.core.engine import Pipeline
from unsentinel.core.facts import FactBook
from unsentinel.core.model import FileResult, FileTask, Mode, Status
from unsentinel.core.store import FileStore

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
# Spells no needle: the prefilter stops it in the first round. Once the facts learn that
# ``cancel`` returns warnings, the second round reads it again and parses it (once).
CALLS_NOTE = """\
from orders import cancel


def count(order: dict[str, str]) -> int:
    return len(cancel(order))
"""
SOURCES = {
    "helpers.py": HELPERS,
    "orders.py": ORDERS,
    "words_only.py": WORDS_ONLY,
    "clean.py": CLEAN,
    "calls_note.py": CALLS_NOTE,
}
CANDIDATES = ("helpers.py", "orders.py", "calls_note.py")
REWRITTEN = ("helpers.py", "orders.py")


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
    # A function's facts changed: parsed files are revisited, and prefiltered ones are
    # read again (parsed only where they spell a helper that returns warnings: calls_note.py).
    assert rounds[0] == len(SOURCES)
    _assert_parsed_once(parses(), originals, changed=len(REWRITTEN))


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
    _assert_parsed_once(parses(), originals, changed=len(REWRITTEN))


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


# -- later gather rounds revisit only the files that spell a changed name ----------------

# Spells ``note`` only in a docstring, a comment and a sentence (the old test of the raw
# bytes revisited it), and defines no function with warning facts of its own.
NAMES_NOTE_IN_PROSE = '''\
"""Please note: nothing here calls the helper."""

# a caller would note(warnings, ...) here


def is_blocked(text: str) -> bool:
    return text.startswith("BLOCK: ") and text != "note this"
'''
# Calls ``note`` as a method: the warning facts key helpers by their bare name (see
# warnings/graph.py), so the analysis does ask about ``note`` here and must be revisited.
CALLS_A_NOTE_METHOD = """\
def review(log: object, order: dict[str, str]) -> list[str]:
    warnings: list[str] = []
    log.note(warnings, order["id"])
    return warnings
"""


@pytest.fixture
def analysed(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times the rules ran over each file (every gather round and the last pass)."""
    import unsentinel.core.engine as engine

    seen: Counter[str] = Counter()
    real = engine.analyze

    def counting(*args: Any, **kwargs: Any) -> Any:
        seen[Path(kwargs.get("path", "<string>")).name] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "analyze", counting)
    return seen


def test_a_later_round_skips_a_file_naming_the_changed_function_only_in_prose(
    project: Path, analysed: Counter[str], rounds: list[int]
) -> None:
    (project / "prose.py").write_text(NAMES_NOTE_IN_PROSE, encoding="utf-8")
    (project / "method.py").write_text(CALLS_A_NOTE_METHOD, encoding="utf-8")
    result = CliRunner().invoke(main, ["plan", ".", "-j", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert rounds, "the gather pass never needed a second round: the test proves nothing"
    # Revisited: the caller (orders.py), the method caller, and helpers.py (defines it).
    assert analysed["orders.py"] == analysed["method.py"] == analysed["helpers.py"] >= 3
    # The first round only: not revisited, and its analysis holds for the last pass (the
    # first round is told what the bytes say, as the last pass is).
    assert analysed["prose.py"] == 1


def test_spelled_names_are_the_codes_names_and_strings() -> None:
    from unsentinel.core.gather import spelled_names

    source = (
        "import os.path as p\n"
        "x = None  # run(x)\n"
        'd["warnings"] = f(flag=True, text="rerun it")\n'
        "obj.get(x)\n"
    )
    names = spelled_names(source.encode())
    assert {"os", "path", "p", "x", "None", "True", "d", "warnings", "f", "flag"} <= names
    assert {"obj", "get", "rerun it"} <= names
    assert "run" not in names and "rerun" not in names  # a comment, a word in a sentence
    # LibCST keeps an identifier as written, ``ast`` normalises it: both count.
    assert {"ｎｏｔｅ", "note"} <= spelled_names("ｎｏｔｅ(1)\n".encode())
    assert "note" in spelled_names(b"def note(:\n")  # unparsable: every word


# -- positions are resolved once per file, whatever the number of passes ---------------


# A blocker records its line in the gather pass's facts: positions are needed before the
# last pass, which needs them again for the sites it reports.
BLOCKED_IN_GATHER = """\
def collect(note: object) -> list[str]:
    warnings: list[str] = []
    warnings.append("BLOCK: closed")
    warnings.append(note)
    return warnings
"""


def test_positions_are_resolved_once_per_parsed_file(
    project: Path, monkeypatch: pytest.MonkeyPatch, rounds: list[int]
) -> None:
    """Each statement's positions at most once per run, and only in files with sites."""
    from unsentinel.core.tree import StatementPositions

    by_statement: Counter[tuple[str, str]] = Counter()
    real = StatementPositions._positions_in

    def counting(
        self: StatementPositions, statement: libcst.CSTNode, top: libcst.CSTNode
    ) -> Mapping[libcst.CSTNode, CodeRange]:
        by_statement[_digest(self.module.code), self.module.code_for_node(statement)] += 1
        return real(self, statement, top)

    monkeypatch.setattr(StatementPositions, "_positions_in", counting)
    (project / "blocked.py").write_text(BLOCKED_IN_GATHER, encoding="utf-8")
    originals = {**_originals(project), _digest(BLOCKED_IN_GATHER): "blocked.py"}
    result = CliRunner().invoke(main, ["plan", ".", "-j", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "connected to blocked.py:4" in result.output  # the gather pass needed a line
    assert rounds  # more than one pass read each candidate
    assert set(by_statement.values()) == {1}
    files = {originals[digest] for digest, _statement in by_statement if digest in originals}
    # calls_note.py has no site: nothing asks for its positions.
    assert files == {*REWRITTEN, "blocked.py"}


def test_a_later_round_reads_a_module_again_for_its_own_locals(project: Path) -> None:
    """A local's group that became blocked concerns the module holding the local alone: the
    changed names carry a token for that module (no code spells it), not the function's
    name, which every module defining an ``__init__`` or a ``check`` spells."""
    from unsentinel.core.gather import module_token
    from unsentinel.registry import load_config, suite
    from unsentinel.warnings.graph import LocalCarrier, carrier_name

    assert carrier_name(LocalCarrier("orders", "cancel", "warnings")) == module_token("orders")
    assert carrier_name(LocalCarrier("orders", "", "LIMITS")) == "LIMITS"  # importers spell it

    config = load_config((project,))
    pipeline = Pipeline(config, suite(config), FactBook(), Mode.CHECK, gather=True)
    store = FileStore()
    task = FileTask(project / "orders.py", "orders.py", "orders")
    pipeline.process(task, store)  # the first round loads and parses it
    assert pipeline.regather(task, store, frozenset({"unrelated"})) is None
    assert pipeline.regather(task, store, frozenset({module_token("helpers")})) is None
    assert pipeline.regather(task, store, frozenset({module_token("orders")})) is not None


def test_positions_are_libcsts_without_the_extra_walk() -> None:
    """``tree.syntactic_positions`` skips ``MetadataWrapper.resolve``'s batched walk (it
    walks the whole tree even with no batchable provider to feed): the ranges must be the
    ones LibCST's own resolution gives, for every node of real modules (this guards the
    private ``_gen`` it calls against a LibCST upgrade)."""
    import sysconfig

    from libcst.metadata import PositionProvider

    from unsentinel.core.tree import syntactic_positions

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in ("argparse.py", "dataclasses.py", "tokenize.py"):
        module = libcst.parse_module((stdlib / name).read_bytes())
        ours = syntactic_positions(libcst.MetadataWrapper(module, unsafe_skip_copy=True))
        theirs = libcst.MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        assert len(ours) > 1000 and dict(ours) == dict(theirs), name


ODD_LAYOUTS = {
    "windows line ends": "# header\r\n\r\nimport os\r\n\r\nclass A:\r\n    x = [\r\n        1]\r\n",
    "old mac line ends": "a = 1\rdef f():\r    return 'x'\r",
    "no trailing newline": "# a comment\nx = (\n  1,\n)\ny = 2",
    "header, footer and tabs": "#!/usr/bin/env python\n\nif x:\n\tpass  # why\n\n# the end\n",
    "one line": "warnings.append('BLOCK: x'); y = 1\n",
    # nested statements: each node's range from its innermost statement alone
    "nested blocks": (
        "class A:\n"
        "  '''doc\n  more'''\n"
        "  @dec(\n      1)\n"
        "  # a comment\n"
        "  def f(self, x=(1,\n      2)):\n"
        "  \tif x:  # tab\n"
        "  \t\ty = 1; z = [\n3]\n"
        "  \telif x > \\\n  1:\n"
        "  \t\tpass\n"
        "  \telse:\n"
        "  \t\t# inside\n"
        '  \t\treturn """a\nb"""\n'
        "  async def g(self):\n"
        "      try:\n          pass\n      except (A,\n B) as e:\n          raise\n"
        "      finally:\n          x = 2\n"
        "      while True:\n          break\n      else:\n          pass\n"
        "      async with a as b, c:\n          class B: pass\n"
        "x = 1\n"
    ),
    "match": (
        "def f(p):\n"
        "    match p:\n"
        "      case {'k': [1, *rest]} if rest:\n"
        "            return rest\n"
        "      case _:\n"
        "            # none\n"
        "            return None\n"
    ),
}


@pytest.mark.parametrize(
    "name", ["argparse.py", "dataclasses.py", "tokenize.py", "inspect.py", *ODD_LAYOUTS]
)
def test_positions_one_statement_at_a_time_are_the_whole_modules(name: str) -> None:
    """Every node's range from :class:`~unsentinel.core.tree.TreeMemo` (one top-level
    statement at a time) is the one LibCST's provider gives over the whole module."""
    import sysconfig

    from libcst.metadata import PositionProvider

    from unsentinel.core.tree import TreeMemo

    source = ODD_LAYOUTS.get(name)
    if source is None:
        source = (Path(sysconfig.get_paths()["stdlib"]) / name).read_text("utf-8")
    module = libcst.parse_module(source)
    theirs = libcst.MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    memo = TreeMemo()
    parents = memo.parents(module)

    def in_body(node: libcst.CSTNode) -> bool:
        while node in parents and parents[node] is not module:
            node = parents[node]
        return node in module.body

    inside = [node for node in theirs if in_body(node)]

    # the deepest node first: a node's innermost statement is computed alone, from its first
    # line and indentation, before an outer statement's question covers it
    def depth(node: libcst.CSTNode) -> int:
        return 0 if node not in parents else 1 + depth(parents[node])

    fresh = TreeMemo()
    deepest_first = sorted(inside, key=depth, reverse=True)
    assert {fresh.position(module, node) == theirs[node] for node in deepest_first} == {True}
    assert {memo.position(module, node) == theirs[node] for node in inside} == {True}
    # and the module itself, its header and footer, from the whole module's positions
    assert {memo.position(module, node) == theirs[node] for node in theirs} == {True}


def _stopped_then_asked_about_request(
    root: Path, source: str
) -> tuple[Pipeline, FileTask, FileStore]:
    """``client.py`` (``source``) stopped by a first round's prefilter, and the pipeline of a
    later round whose facts have just learnt that ``request`` returns error dicts."""
    from unsentinel.errors.facts import ErrorFacts
    from unsentinel.registry import load_config, suite

    (root / "client.py").write_text(source)
    config = load_config((root,))
    task = FileTask(root / "client.py", "client.py", "client")
    store = FileStore()
    first = Pipeline(config, suite(config), FactBook(), Mode.CHECK, gather=True)
    assert first.process(task, store).status is Status.PREFILTERED
    knows = FactBook({ErrorFacts: ErrorFacts(error_functions=frozenset({"request"}))})
    return Pipeline(config, suite(config), knows, Mode.CHECK, gather=True), task, store


def test_a_prefiltered_file_is_not_read_again_for_a_name_it_only_spells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file the prefilter stopped comes back in a later round only if it calls a function
    the facts have just learned about. Once a round has parsed it with ``ast``, what it
    calls is kept: a round learning about ``request`` does not read and parse again a file
    whose code only spells ``urllib.request`` (its comment spells a call: the bytes alone
    cannot tell)."""
    import unsentinel.core.engine as engine
    import unsentinel.core.regather as regather
    from unsentinel.core.config import Config
    from unsentinel.core.store import read_source

    later, task, store = _stopped_then_asked_about_request(
        tmp_path,
        "import urllib.request\n\n# not the request() of the API\n"
        "def fetch(url):\n    return urllib.request.urlopen(url)\n",
    )
    reads: list[Path] = []
    real = read_source

    def counting(task: FileTask, config: Config) -> bytes | FileResult:
        reads.append(task.path)
        return real(task, config)

    monkeypatch.setattr(engine, "read_source", counting)
    monkeypatch.setattr(regather, "read_source", counting)  # where a later round reads
    names = frozenset({"request"})
    again = later.regather(task, store, names)  # read and parsed: it calls no ``request``
    assert again is not None and again.status is Status.PREFILTERED
    assert later.regather(task, store, names) is None  # what it calls is known now
    assert len(reads) == 1


def test_a_prefiltered_file_that_only_spells_a_name_is_never_parsed_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the bytes show no call of a function the facts name (``urllib.request`` is
    an attribute read, never ``request(...)``), a later round reads the file and leaves it
    without parsing it at all."""
    import unsentinel.core.engine as engine
    from unsentinel.core.validate import python_parse as real

    later, task, store = _stopped_then_asked_about_request(
        tmp_path,
        "import urllib.request\n\ndef fetch(url):\n    return urllib.request.urlopen(url)\n",
    )
    parses: list[bytes] = []

    def counting(data: bytes) -> Any:
        parses.append(data)
        return real(data)

    monkeypatch.setattr(engine, "python_parse", counting)
    assert later.prefilter.spells_fact_name(task.path.read_bytes())  # it does spell it
    assert later.regather(task, store, frozenset({"request"})) is None
    assert parses == []
