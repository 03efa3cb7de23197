"""The check cache: never stale, never fatal, safe with two runs at once, invisible to git."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

import pytest
from click.testing import CliRunner, Result
from projects import CALLER, HELPERS

import unsentinel.core.cache
import unsentinel.core.cache_facts
import unsentinel.core.cache_packs
import unsentinel.core.cache_rounds
import unsentinel.core.engine
from unsentinel import registry
from unsentinel.cli import main
from unsentinel.core.cache import CACHE_DIR
from unsentinel.core.cache_codec import FORMAT, FactCodec, decode_result, encode_result
from unsentinel.core.facts import FactBook
from unsentinel.core.gather import changed_functions
from unsentinel.core.model import FileResult, Mode, Status
from unsentinel.core.runner import RunResult
from unsentinel.errors.facts import ErrorFacts
from unsentinel.registry import load_config, run
from unsentinel.warnings.facts import TupleSlot, WarningFacts

if TYPE_CHECKING:
    from typing_extensions import Unpack

FIXTURES = Path(__file__).parent.parent / "fixtures"

ORDERS = """\
BLOCK_WARNING_PREFIX = "BLOCK: "


def cancel(order_id: str, warnings: list[str]) -> None:
    if not order_id:
        warnings.append(f"{BLOCK_WARNING_PREFIX}order {order_id} does not exist.")
    warnings.append("BLOCK: the order is locked.")
"""
CLEAN = "def add(a: int, b: int) -> int:\n    return a + b\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project root with one module that has findings, one without, and one that fails."""
    (tmp_path / "pyproject.toml").write_text("[tool.unsentinel]\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "orders.py").write_text(ORDERS)
    (tmp_path / "pkg" / "clean.py").write_text(CLEAN)
    (tmp_path / "broken.py").write_text('print "BLOCK: py2"\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("UNSENTINEL_NO_CACHE", raising=False)
    return tmp_path


class Overrides(TypedDict, total=False):
    """The configuration overrides the tests pass to :func:`load_config`."""

    ignore: tuple[str, ...]
    select: tuple[str, ...]
    sentinel_prefixes: tuple[str, ...]
    warning_list_names: tuple[str, ...]


def check(root: Path, *, cache: bool = True, **overrides: Unpack[Overrides]) -> RunResult:
    return run([root], load_config((root,), **overrides), Mode.CHECK, jobs=1, cache=cache)


def reported(result: RunResult) -> list[tuple[str, str, object, tuple[object, ...]]]:
    """Everything check reports about each file, in order (the cache must reproduce it)."""
    return [(r.path, r.status.value, r.error, r.sites) for r in result.results]


def entries(root: Path) -> list[Path]:
    """The per-file result entries (other kinds live a folder deeper)."""
    return sorted((root / CACHE_DIR).glob("*/*.json"))


def answer_entries(root: Path) -> list[Path]:
    """The analyses kept by their answers (:mod:`unsentinel.core.cache_answers`)."""
    return sorted((root / CACHE_DIR / "answers").glob("*/*.json"))


def run_entries(root: Path) -> list[Path]:
    return sorted((root / CACHE_DIR / "runs").glob("*/*.json"))


def packs(root: Path) -> list[Path]:
    """The gather rounds' packs (:mod:`unsentinel.core.cache_packs`)."""
    return sorted((root / CACHE_DIR / "rounds").glob("*/*.pack"))


def pack_lines(pack: Path) -> tuple[bytes, list[list[bytes]]]:
    """A pack's header and its lines, each split in key, display path, entry and facts."""
    header, *lines = pack.read_bytes().splitlines()
    return header, [line.split(b"\t", 3) for line in lines]


def rewrite_pack(pack: Path, header: bytes, lines: list[list[bytes]]) -> None:
    pack.write_bytes(b"\n".join([header, *(b"\t".join(line) for line in lines)]) + b"\n")


def check_by_file(root: Path, **overrides: Unpack[Overrides]) -> RunResult:
    """A cached check without the whole-run entries: the per-file entries answer."""
    shutil.rmtree(root / CACHE_DIR / "runs", ignore_errors=True)
    return check(root, **overrides)


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(main, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


# -- a hit is exactly what a fresh check would say ------------------------------------------


def test_a_second_check_is_served_from_the_cache(project: Path) -> None:
    cold = check(project)
    warm = check(project)
    assert cold.cached == 0
    assert warm.cached == 4  # broken.py too: its syntax error is its bytes'
    assert reported(warm) == reported(cold) == reported(check(project, cache=False))
    assert warm.findings == cold.findings > 0


def test_a_file_that_does_not_parse_is_served_from_the_cache(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = check(project)
    [broken] = [r for r in cold.results if r.path == "broken.py"]
    assert broken.status is Status.FAILED and broken.lasting and broken.error
    monkeypatch.setattr(
        unsentinel.core.engine.Pipeline,
        "process",
        lambda *_args: pytest.fail("a warm check parsed a file again"),
    )
    warm = check(project)
    assert reported(warm) == reported(cold)
    assert warm.exit_code == cold.exit_code == 2


def test_a_failure_by_accident_is_never_served_from_the_cache(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(*_args: object) -> None:
        raise RuntimeError("out of luck")

    with monkeypatch.context() as patched:
        patched.setattr(unsentinel.core.engine.Pipeline, "_analysis", crash)
        crashed = check(project)
    [orders] = [r for r in crashed.results if r.path.endswith("orders.py")]
    assert orders.status is Status.FAILED and not orders.lasting
    again = check(project)
    assert reported(again) == reported(check(project, cache=False))
    assert [r.status for r in again.results if r.path.endswith("orders.py")] == [Status.PARSED]


def test_an_edited_file_is_checked_again(project: Path) -> None:
    check(project)
    orders = project / "pkg" / "orders.py"
    orders.write_text(ORDERS.replace("BLOCK: the order is locked.", "the order is locked."))
    edited = check(project)
    assert edited.cached == 3  # only orders.py changed
    assert reported(edited) == reported(check(project, cache=False))
    assert not any("locked" in site.message for r in edited.results for site in r.sites)


def test_an_edit_back_to_the_old_text_hits_the_old_entry(project: Path) -> None:
    first = check(project)
    orders = project / "pkg" / "orders.py"
    orders.write_text(CLEAN)
    check(project)
    orders.write_text(ORDERS)
    again = check(project)
    assert again.cached == 4
    assert reported(again) == reported(first)


@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param({"ignore": ("UNS101",)}, id="a rule ignored"),
        pytest.param({"select": ("UNS001",)}, id="one rule selected"),
        pytest.param({"sentinel_prefixes": ("BLOCK:", "STOP:")}, id="another sentinel prefix"),
        pytest.param({"warning_list_names": ("notes",)}, id="other warnings list names"),
    ],
)
def test_a_configuration_change_is_never_served_stale(project: Path, overrides: Overrides) -> None:
    check(project)
    changed = check(project, **overrides)
    assert changed.cached == 0
    assert reported(changed) == reported(check(project, cache=False, **overrides))
    assert check(project, **overrides).cached == 4  # the new settings have entries of their own


def test_a_pyproject_change_is_never_served_stale(project: Path) -> None:
    before = check(project)
    # UNS401: the constant goes once every use is migrated (check gathers, as plan does).
    (project / "pyproject.toml").write_text('[tool.unsentinel]\nignore = ["UNS401"]\n')
    after = check(project)
    assert after.cached == 0
    assert reported(after) == reported(check(project, cache=False))
    assert reported(after) != reported(before)


def test_an_upgrade_is_never_served_stale(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    check(project)
    monkeypatch.setattr(unsentinel.core.cache, "tool_version", lambda: "999.0.0")
    upgraded = check(project)
    assert upgraded.cached == 0
    assert check(project).cached == 4


def test_the_same_text_under_another_path_is_not_shared(project: Path) -> None:
    check(project)
    shutil.copy(project / "pkg" / "orders.py", project / "pkg" / "orders_copy.py")
    result = check(project)
    # The copy's templates join the repository's facts, which changes their digest; but
    # orders.py's analysis gets the same answers from them, so its result is kept as well
    # (the copy alone is checked: its key names its own path).
    assert result.cached == 4
    [copy] = [r for r in result.results if r.path.endswith("orders_copy.py")]
    assert copy.sites and copy.path == os.path.join("pkg", "orders_copy.py")
    assert reported(result) == reported(check(project, cache=False))


# -- an edit in another file: check gathers, so a result depends on what other files say --


@pytest.fixture
def flow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``caller.py`` reads warnings that ``helpers.resolve`` returns: cross-file flow."""
    (tmp_path / "pyproject.toml").write_text("[tool.unsentinel]\n")
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "caller.py").write_text(CALLER)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def sites_of(result: RunResult, name: str) -> list[tuple[str, str | None]]:
    [found] = [r for r in result.results if r.path == name]
    return [(s.rule, s.code.value if s.code else None) for s in found.sites]


def test_an_edit_in_another_file_that_changes_the_flow_is_never_served_stale(
    flow: Path,
) -> None:
    check(flow)
    warm = check(flow)
    assert warm.cached == 2
    assert [rule for rule, _code in sites_of(warm, "caller.py")] == ["UNS201"]
    (flow / "helpers.py").write_text("def resolve(order: str) -> list[str]:\n    return [order]\n")
    edited = check(flow)  # caller.py's bytes did not change; what it is told did
    assert reported(edited) == reported(check(flow, cache=False))
    assert sites_of(edited, "caller.py") != sites_of(warm, "caller.py")
    assert edited.cached == 0


def test_an_edit_in_another_file_that_changes_a_code_is_never_served_stale(
    flow: Path,
) -> None:
    check(flow)
    assert ("UNS101", "ORDER_LOCKED") in sites_of(check(flow), "helpers.py")
    (flow / "warning_codes.py").write_text('ORDER_FROZEN = "order_locked"\n')  # a human's code
    edited = check(flow)
    assert reported(edited) == reported(check(flow, cache=False))
    assert ("UNS101", "ORDER_FROZEN") in sites_of(edited, "helpers.py")


def test_a_warm_check_reads_the_facts_from_the_cache(
    flow: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = check(flow)
    monkeypatch.setattr(
        unsentinel.core.engine.Pipeline,
        "process",
        lambda *_args: pytest.fail("a warm check ran the pipeline"),
    )
    warm = check_by_file(flow)
    assert reported(warm) == reported(cold)
    # Every result came from the cache: the facts were never needed, so never read (nothing
    # after ``check`` reads ``RunResult.facts``; a whole-run answer leaves them empty too).
    assert warm.facts == FactBook()
    shutil.rmtree(flow / CACHE_DIR / "steps")  # the facts are merged again, from the packs
    assert reported(check_by_file(flow)) == reported(cold)


# -- the whole-run entry: every input unchanged, one entry answers ---------------------------


def test_an_unchanged_tree_is_answered_by_one_entry(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = check(project)
    assert len(run_entries(project)) == 1
    assert reported(cold) == reported(check(project, cache=False))
    for name in ("load", "load_gathered"):
        monkeypatch.setattr(
            unsentinel.core.cache.CheckCache,
            name,
            lambda *_args: pytest.fail("an unchanged tree was looked up file by file"),
        )
    monkeypatch.setattr(
        unsentinel.core.engine.Pipeline,
        "process",
        lambda *_args: pytest.fail("a warm check ran the pipeline"),
    )
    warm = check(project)
    assert reported(warm) == reported(cold)
    assert warm.cached == len(warm.results) == 4
    assert warm.exit_code == cold.exit_code == 2


def test_a_file_skipped_before_the_pipeline_is_not_counted_from_the_cache(project: Path) -> None:
    marker = "@" + "generated"  # spelled apart, or this test module would be generated
    (project / "pkg" / "made.py").write_text(f"# {marker}\n" + ORDERS)
    cold = check(project)
    warm = check(project)  # the whole-run entry answers; made.py was looked at just now
    assert reported(warm) == reported(cold)
    assert [r.status for r in warm.results if r.path.endswith("made.py")] == [Status.SKIPPED]
    assert warm.cached == len(warm.results) - 1 == 4


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda root: (root / "pkg" / "new.py").write_text(ORDERS), id="a new file"),
        pytest.param(lambda root: (root / "pkg" / "orders.py").unlink(), id="a deleted file"),
        pytest.param(
            lambda root: (root / "pkg" / "clean.py").write_text(CLEAN + "# edited\n"),
            id="an edit without findings",
        ),
        pytest.param(
            lambda root: (root / "pkg" / "clean.py").rename(root / "pkg" / "moved.py"),
            id="a renamed file",
        ),
    ],
)
def test_any_change_to_the_files_misses_the_run_entry(
    project: Path, edit: Callable[[Path], object]
) -> None:
    check(project)
    edit(project)
    changed = check(project)
    assert reported(changed) == reported(check(project, cache=False))
    assert len(run_entries(project)) == 2  # the new tree's answer is kept beside the old


def test_a_code_module_outside_the_checked_files_is_never_served_stale(flow: Path) -> None:
    """The features read the configured codes module when they settle the facts: the run
    key holds its bytes, whether or not the run checks that file."""
    checked = [flow / "helpers.py", flow / "caller.py"]

    def check_files(*, cache: bool = True) -> RunResult:
        return run(checked, load_config((flow,)), Mode.CHECK, jobs=1, cache=cache)

    check_files()
    assert check_files().cached == 2
    (flow / "warning_codes.py").write_text('ORDER_FROZEN = "order_locked"\n')  # a human's code
    edited = check_files()
    assert reported(edited) == reported(check_files(cache=False))
    assert ("UNS101", "ORDER_FROZEN") in sites_of(edited, "helpers.py")


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b'{"format": 8, "key": "', id="truncated"),
        pytest.param(b'{"format": 8}', id="no key"),
        pytest.param(b"[1, 2, 3]", id="not an object"),
    ],
)
def test_a_corrupt_run_entry_is_a_miss_and_rewritten(project: Path, damage: bytes) -> None:
    fresh = check(project)
    [entry] = run_entries(project)
    entry.write_bytes(damage)
    rebuilt = check(project)
    assert reported(rebuilt) == reported(fresh)
    assert json.loads(entry.read_bytes())["format"] == FORMAT


def test_a_run_entry_with_wrong_values_is_a_miss(project: Path) -> None:
    fresh = check(project)
    [entry] = run_entries(project)
    data = json.loads(entry.read_bytes())
    assert data["files"] == 4 and len(data["results"]) == 2  # orders.py and broken.py
    data["results"][0][1]["status"] = "no such status"
    entry.write_text(json.dumps(data))
    for kind in ("rounds", "answers"):
        shutil.rmtree(project / CACHE_DIR / kind)
    for result_entry in entries(project):
        result_entry.unlink()
    assert check(project).cached == 0
    assert reported(check(project)) == reported(fresh)


READS_PROBE = """
import os, sys
from pathlib import Path
from unsentinel import registry
from unsentinel.core import runner
from unsentinel.core.config import generated_modules
from unsentinel.core.discovery import discover
from unsentinel.core.model import Mode

root = Path(sys.argv[1]).resolve()
config = registry.load_config((root,))
opened = set()
data = set()
discovered = runner.discover
def discover_then_watch(*args, **kwargs):
    found = discovered(*args, **kwargs)
    sys.addaudithook(watch)
    return found
def watch(event, args):
    if event == "open" and isinstance(args[0], (str, os.PathLike)):
        opened.add(os.path.realpath(args[0]))
runner.discover = discover_then_watch
split = runner.with_data
def note_data(*args, **kwargs):
    found, suite = split(*args, **kwargs)
    data.update(os.path.realpath(path) for path in suite.data_files)
    return found, suite
runner.with_data = note_data
result = registry.run([root], config, Mode.CHECK, jobs=1)
assert result.findings > 0
tasks = {os.path.realpath(task.path) for task in result.discovery.tasks}
suite = registry.suite(config)
configured = {os.path.realpath(root / p) for p in generated_modules(config, suite.sections)}
inside = {path for path in opened if Path(path).is_relative_to(root)}
assert tasks <= inside, "the hook saw the files read"
assert data, "the tests' data files were found"
print(*sorted(inside - tasks - configured - data), sep="\\n")
"""


def test_a_check_reads_no_file_the_run_key_leaves_out(tmp_path: Path) -> None:
    """After discovery (whose inputs decide the files, hence the key), a check opens only
    the files it checks, the modules the configuration names and the tests' data files: the
    run key's inputs."""
    root = tmp_path / "mcp_orders"
    shutil.copytree(FIXTURES / "mcp_orders", root)
    (root / "warning_codes.py").write_text('ORDER_FROZEN = "order_locked"\n')
    (root / "tests" / "cases.json").write_text('[{"tool": "create_order", "error": "x"}]\n')
    probe = subprocess.run(
        [sys.executable, "-c", READS_PROBE, str(root)], capture_output=True, text=True
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == ""


def test_facts_in_a_pack_that_do_not_read_are_never_used(flow: Path) -> None:
    """A file's facts are decoded only where the run merges them; if they do not read then
    (or name a class the facts do not use), the run gathers again without the cache."""
    fresh = check(flow)
    assert packs(flow)
    for pack in packs(flow):
        header, lines = pack_lines(pack)
        for line in lines:
            facts = json.loads(line[3] or b"[]")
            if facts:
                facts[0] = {"D": "os:system", "f": {"command": "false"}}
            line[3] = json.dumps(facts).encode()
        rewrite_pack(pack, header, lines)
    for entry in entries(flow):
        entry.unlink()  # the results must be computed from the gather pass again
    for kind in ("steps", "folds", "answers"):
        shutil.rmtree(flow / CACHE_DIR / kind)  # the facts must be merged again
    again = check_by_file(flow)
    assert reported(again) == reported(fresh)
    assert again.cached == 0  # nothing the rounds took from the cache counts


def test_facts_survive_the_round_trip_and_digest_alike_in_every_process() -> None:
    config = load_config((FIXTURES / "mcp_orders",))
    result = run([FIXTURES / "mcp_orders"], config, Mode.PLAN, jobs=1)
    codec = FactCodec(registry.FACTS)
    for value in result.facts.entries.values():
        assert codec.decode(json.loads(json.dumps(codec.encode(value)))) == value
    probe = (
        "import json, sys; from pathlib import Path; from unsentinel import registry;"
        "from unsentinel.core.cache_codec import FactCodec; from unsentinel.core.model import Mode;"
        "root = Path(sys.argv[1]); config = registry.load_config((root,));"
        "facts = registry.run([root], config, Mode.PLAN, jobs=1).facts;"
        "print(FactCodec(registry.FACTS).digest(facts))"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", probe, str(FIXTURES / "mcp_orders")],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert digests == {codec.digest(result.facts)}


# -- corrupt, unwritable, concurrent --------------------------------------------------------


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"\x00\xff not json", id="garbage"),
        pytest.param(b'{"format": 1, "key": "', id="truncated"),
        pytest.param(b"[1, 2, 3]", id="not an object"),
        pytest.param(b'{"format": 1}', id="no key"),
    ],
)
def test_a_corrupt_entry_is_ignored_and_rewritten(project: Path, damage: bytes) -> None:
    fresh = check(project)
    assert len(entries(project)) == len(answer_entries(project)) == 1  # orders.py
    for entry in [*entries(project), *packs(project), *answer_entries(project)]:
        entry.write_bytes(damage)
    rebuilt = check_by_file(project)
    assert rebuilt.cached == 0
    assert reported(rebuilt) == reported(fresh)
    for entry in [*entries(project), *answer_entries(project)]:
        assert json.loads(entry.read_bytes())["format"] == FORMAT
    for pack in packs(project):
        header, lines = pack_lines(pack)
        assert json.loads(header)["format"] == FORMAT and lines
    assert check_by_file(project).cached == 4


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda line: line[:2], id="a line cut short"),
        pytest.param(lambda line: [*line[:2], line[2][:-3], line[3]], id="an entry cut short"),
        pytest.param(lambda line: [*line[:2], b"[1, 2, 3]", line[3]], id="an entry not an object"),
        pytest.param(
            lambda line: [*line[:2], line[2].replace(b'"prefiltered"', b'"no such"'), line[3]],
            id="no such status",
        ),
    ],
)
def test_a_broken_line_of_a_pack_is_a_miss_for_its_file_alone(
    project: Path, damage: Callable[[list[bytes]], list[bytes]]
) -> None:
    fresh = check(project)
    [(first, header, lines)] = [  # the first round's: every file has an output there
        (pack, *pack_lines(pack)) for pack in packs(project) if len(pack_lines(pack)[1]) == 4
    ]
    [clean] = [line for line in lines if b"clean.py" in line[1]]
    lines[lines.index(clean)] = damage(clean)
    rewrite_pack(first, header, lines)
    rebuilt = check_by_file(project)
    assert reported(rebuilt) == reported(fresh)
    assert rebuilt.cached == 3  # every file but clean.py
    assert check_by_file(project).cached == 4  # its line was written again


def damage_results(root: Path, damage: Callable[[dict[str, Any]], None]) -> None:
    """Damage every result entry, and every result kept with its answers, alike."""
    for entry in entries(root):
        data = json.loads(entry.read_bytes())
        damage(data)
        entry.write_text(json.dumps(data))
    for entry in answer_entries(root):
        data = json.loads(entry.read_bytes())
        for kept in data["kept"]:
            if kept["mode"] == "check":
                damage(kept["output"])
        entry.write_text(json.dumps(data))


def test_an_entry_with_wrong_values_is_a_miss(project: Path) -> None:
    fresh = check(project)

    def no_status(data: dict[str, Any]) -> None:
        data["status"] = "no such status"

    def bad_position(data: dict[str, Any]) -> None:
        if data["sites"]:
            data["sites"][0]["position"] = ["1", 1, 1, 1]

    damage_results(project, no_status)
    # The three files the rules never read take their results from the gather packs.
    assert check_by_file(project).cached == 3
    damage_results(project, bad_position)
    damaged = check_by_file(project)
    assert damaged.cached == 3  # every entry but the one whose site was damaged
    assert reported(damaged) == reported(fresh)


def test_an_entry_for_another_key_is_a_miss(project: Path) -> None:
    check(project)
    for pack in packs(project):
        header, lines = pack_lines(pack)
        entries_in_turn = [line[2] for line in lines]
        shifted = [*entries_in_turn[1:], entries_in_turn[0]]
        # every line now holds its neighbour's entry
        rewrite_pack(pack, header, [[*line[:2], e] for line, e in zip(lines, shifted, strict=True)])
    assert check_by_file(project).cached == 1  # orders.py's result entry: the same facts


def test_a_pack_under_another_key_is_a_miss(project: Path) -> None:
    check(project)
    for pack in packs(project):
        header, lines = pack_lines(pack)
        head = json.loads(header)
        head["key"] = "0" * 64  # another round's pack, copied over this one's
        rewrite_pack(pack, json.dumps(head).encode(), lines)
    assert check_by_file(project).cached == 1  # orders.py's result entry: the same facts


def test_a_cache_that_cannot_be_written_is_not_an_error(project: Path) -> None:
    (project / CACHE_DIR).write_text("a file where the folder should be")
    fresh = check(project, cache=False)
    result = check(project)
    assert reported(result) == reported(fresh)
    assert check(project).cached == 0


def test_two_checks_at_once_both_succeed(project: Path) -> None:
    for i in range(40):
        (project / "pkg" / f"orders_{i}.py").write_text(ORDERS.replace("order", f"order{i}"))
    command = [sys.executable, "-m", "unsentinel", "check", "-j", "1", "."]
    env = {k: v for k, v in os.environ.items() if k != "UNSENTINEL_NO_CACHE"}
    runs = [
        subprocess.Popen(command, cwd=project, env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [process.communicate(timeout=300)[0] for process in runs]
    assert [process.returncode for process in runs] == [2, 2]  # findings, and broken.py
    uncached = subprocess.run(
        [*command, "--no-cache"], cwd=project, env=env, capture_output=True, text=True, timeout=300
    )
    assert outputs[0] == outputs[1] == uncached.stdout
    assert uncached.stdout.count("UNS") > 40
    warm = check(project)
    assert warm.cached == len(warm.results)  # broken.py's syntax error included
    assert not list((project / CACHE_DIR).glob("*/.tmp-*"))  # no temporary file left behind


# -- the command line -----------------------------------------------------------------------


def test_check_writes_the_cache_and_no_cache_writes_nothing(project: Path) -> None:
    uncached = invoke("check", ".", "--no-cache")
    assert not (project / CACHE_DIR).exists()
    cold = invoke("check", ".")
    assert (project / CACHE_DIR / ".gitignore").read_text().splitlines()[-1] == "*"
    assert len(entries(project)) == 1  # orders.py; the others' results are their gather output
    assert packs(project)
    warm = invoke("check", ".", "--statistics")
    assert uncached.stdout == cold.stdout == warm.stdout
    assert uncached.exit_code == cold.exit_code == warm.exit_code == 2
    assert any(line.split() == ["from", "cache", "4"] for line in warm.stderr.splitlines())


def test_the_environment_can_turn_the_cache_off(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UNSENTINEL_NO_CACHE", "1")
    invoke("check", ".")
    assert not (project / CACHE_DIR).exists()


@pytest.mark.parametrize("command", ["diff", "plan"])
def test_only_check_uses_the_cache(project: Path, command: str) -> None:
    invoke(command, ".")
    assert not (project / CACHE_DIR).exists()


def test_the_cache_never_shows_in_git_status(project: Path) -> None:
    def git(*args: str) -> str:
        completed = subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=project,
            capture_output=True,
            text=True,
            check=True,
        )
        return completed.stdout

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "initial")
    invoke("check", ".")
    assert entries(project)
    assert git("status", "--porcelain", "--untracked-files=all") == ""


def test_the_fixture_reports_the_same_through_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "mcp_orders"
    shutil.copytree(FIXTURES / "mcp_orders", root)
    monkeypatch.chdir(root)
    monkeypatch.delenv("UNSENTINEL_NO_CACHE", raising=False)
    outputs = [invoke("check", ".", "-j", "1", *extra) for extra in ((), (), ("--no-cache",))]
    assert outputs[0].stdout.count("\n") > 50
    assert outputs[0].stdout == outputs[1].stdout == outputs[2].stdout
    for fmt in ("json", "sarif"):
        cached = invoke("check", ".", "-j", "1", "--output-format", fmt)
        assert cached.stdout == invoke("check", ".", "--no-cache", "--output-format", fmt).stdout


# -- the entry format -----------------------------------------------------------------------


def test_every_fixture_site_survives_the_round_trip() -> None:
    config = load_config((FIXTURES / "mcp_orders",))
    result = run([FIXTURES / "mcp_orders"], config, Mode.PLAN, jobs=1)
    sites = [site for r in result.results for site in r.sites]
    assert any(site.severity and site.field_path and site.code for site in sites)
    for file_result in result.results:
        compact = FileResult(file_result.path, file_result.status, sites=file_result.sites)
        encoded = json.loads(json.dumps(encode_result(compact, "k")))
        assert decode_result(encoded, "k", file_result.path) == compact
        assert decode_result(encoded, "other key", file_result.path) is None
    failed = FileResult("broken.py", Status.FAILED, error="syntax error at 1:7", lasting=True)
    encoded = json.loads(json.dumps(encode_result(failed, "k")))
    assert decode_result(encoded, "k", "broken.py") == failed


# -- the gather rounds' packs: one file per round, digests kept by the outputs' names -------


def step_entries(root: Path) -> list[Path]:
    """What each round learnt and the facts it led to (:mod:`unsentinel.core.cache_facts`)."""
    return sorted((root / CACHE_DIR).glob("[sf][to][el][pd]s/*/*.json"))


def test_a_warm_check_after_an_edit_reads_one_pack_per_round(
    flow: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every gather round's outputs come from one file, and the facts the rounds start from
    are not digested again (the old cache read one file per file and round, and digested
    the merged facts of every round)."""
    (flow / "clean.py").write_text(CLEAN)
    cold = check(flow)
    (flow / "clean.py").write_text(CLEAN + "# edited\n")
    read: list[str] = []
    digested: list[object] = []
    round_pack = unsentinel.core.cache.CheckCache.round_pack
    digest = FactCodec.digest

    def reading(self: unsentinel.core.cache.CheckCache, stamp: str) -> object:
        read.append(stamp)
        return round_pack(self, stamp)

    def digesting(self: FactCodec, facts: object) -> str | None:
        digested.append(facts)
        return digest(self, facts)

    monkeypatch.setattr(unsentinel.core.cache.CheckCache, "round_pack", reading)
    monkeypatch.setattr(FactCodec, "digest", digesting)
    edited = check(flow)
    assert reported(edited) == reported(cold)
    assert len(read) == len(set(read)) == len(packs(flow)) >= 2
    assert not (flow / CACHE_DIR / "gather").exists()
    # Only the first round's facts (empty) are digested: the others' digests are kept.
    assert digested and not any(facts.entries for facts in digested)  # type: ignore[attr-defined]


def test_an_edit_that_changes_a_fact_changes_a_dependant_file_through_the_packs(
    flow: Path,
) -> None:
    first = check_by_file(flow)
    assert [rule for rule, _code in sites_of(first, "caller.py")] == ["UNS201"]
    (flow / "helpers.py").write_text("def resolve(order: str) -> list[str]:\n    return [order]\n")
    edited = check_by_file(flow)  # caller.py's bytes did not change; what it is told did
    assert reported(edited) == reported(check(flow, cache=False))
    assert sites_of(edited, "caller.py") != sites_of(first, "caller.py")
    (flow / "helpers.py").write_text(HELPERS)
    back = check_by_file(flow)
    assert reported(back) == reported(first)


def test_a_pack_keeps_one_line_per_file(project: Path) -> None:
    check(project)
    counts = [len(pack_lines(pack)[1]) for pack in packs(project)]
    for n in range(3):
        (project / "pkg" / "clean.py").write_text(CLEAN + f"# edit {n}\n")
        check(project)
    assert max(len(pack_lines(pack)[1]) for pack in packs(project)) == max(counts) == 4


def test_a_check_of_some_files_keeps_the_others_lines(project: Path) -> None:
    check(project)
    one = run(
        [project / "pkg" / "clean.py"], load_config((project,)), Mode.CHECK, jobs=1, cache=True
    )
    assert [r.path for r in one.results] == [os.path.join("pkg", "clean.py")]
    assert check_by_file(project).cached == 4


def test_a_code_module_outside_the_checked_files_is_never_served_stale_by_file(
    flow: Path,
) -> None:
    """The kept digests of the facts are named by the outputs they merge and by the modules
    the configuration names: a new code module makes them miss."""
    checked = [flow / "helpers.py", flow / "caller.py"]

    def check_files(*, cache: bool = True) -> RunResult:
        shutil.rmtree(flow / CACHE_DIR / "runs", ignore_errors=True)
        return run(checked, load_config((flow,)), Mode.CHECK, jobs=1, cache=cache)

    check_files()
    assert check_files().cached == 2
    (flow / "warning_codes.py").write_text('ORDER_FROZEN = "order_locked"\n')  # a human's code
    edited = check_files()
    assert reported(edited) == reported(check_files(cache=False))
    assert ("UNS101", "ORDER_FROZEN") in sites_of(edited, "helpers.py")


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: data[: len(data) // 2], id="cut short"),
        pytest.param(lambda data: data.replace(b'"again": false', b'"again": 1'), id="not a flag"),
        pytest.param(lambda data: data.replace(b'"digest": "', b'"digest": "0'), id="a digest"),
        pytest.param(lambda data: data.replace(b'"changed": [', b'"changed": [1, '), id="a name"),
        pytest.param(lambda data: data.replace(b"DefinedNames", b"Undefined"), id="a kind"),
    ],
)
def test_a_kept_step_that_is_wrong_or_broken_is_never_served_stale(
    flow: Path, damage: Callable[[bytes], bytes]
) -> None:
    fresh = check(flow)
    assert {entry.parent.parent.name for entry in step_entries(flow)} == {"steps", "folds"}
    for entry in step_entries(flow):
        entry.write_bytes(damage(entry.read_bytes()))
    for entry in entries(flow):
        entry.unlink()
    assert reported(check_by_file(flow)) == reported(fresh)
    assert reported(check_by_file(flow)) == reported(fresh)


def test_a_warm_check_after_an_edit_merges_no_facts(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the edit changed no file's output, each round's step is kept: the facts are
    neither merged nor decoded, and where no file needs them (the edited file is one the
    prefilter stops, and spells no function whose facts changed) never read at all."""
    cold = check(project)
    (project / "pkg" / "clean.py").write_text(CLEAN + "# edited\n")
    monkeypatch.setattr(
        unsentinel.core.cache_rounds,
        "merge_results",
        lambda *_args: pytest.fail("a warm check merged the facts"),
    )
    monkeypatch.setattr(
        unsentinel.core.cache.CheckCache,
        "decode_facts",
        lambda *_args: pytest.fail("a warm check decoded a file's facts"),
    )
    monkeypatch.setattr(
        unsentinel.core.cache_rounds,
        "load_fold",
        lambda *_args: pytest.fail("a warm check read the facts"),
    )
    edited = check(project)
    assert reported(edited) == reported(cold)
    assert edited.facts == FactBook()  # no file needed them


def test_a_later_round_that_learns_nothing_names_the_output_it_keeps(project: Path) -> None:
    """A later round's output equal to the file's earlier one is kept as a reference to it,
    which is taken only where the file's output so far is that one."""
    cache = unsentinel.core.cache.CheckCache(project, "settings", registry.FACTS)
    checked = run([project / "pkg" / "clean.py"], load_config((project,)), Mode.CHECK, jobs=1)
    [done] = checked.results
    done = dataclasses.replace(done, facts=tuple(checked.facts.entries.values()))
    [task] = checked.discovery.tasks
    pack = cache.round_pack("a stamp")
    first = cache.store_gathered(pack, "first", task, done)
    assert first is not None
    found = cache.load_gathered(pack, "first", task, None)
    assert isinstance(found, unsentinel.core.cache.Recalled) and found.identity == first
    assert found.result == dataclasses.replace(done, facts=())  # the facts are read when merged
    assert found.facts is not None and cache.decode_facts(found.facts) == done.facts
    same = cache.store_gathered(pack, "later", task, done, first)
    assert same == first
    taken = cache.load_gathered(pack, "later", task, first)
    assert taken == unsentinel.core.cache.Recalled(None, first)
    assert cache.load_gathered(pack, "later", task, "another output") is unsentinel.core.cache.MISS
    assert cache.load_gathered(pack, "later", task, None) is unsentinel.core.cache.MISS


@pytest.mark.parametrize(
    ("text", "status"),
    [
        pytest.param("def check() -> None:\n    assert resolve('')\n", "parsed", id="calls it"),
        pytest.param("def check() -> None:\n    assert True  # no call\n", "prefiltered", id="not"),
        pytest.param("# a comment\n", "prefiltered", id="a comment"),
    ],
)
def test_an_edited_file_the_prefilter_stopped_comes_back_if_it_calls_a_changed_function(
    flow: Path, monkeypatch: pytest.MonkeyPatch, text: str, status: str
) -> None:
    """A later round tests the edited file's bytes for the functions whose facts changed
    (here ``resolve``, which returns warnings): one that spells one goes to the pipeline.
    Where the edit changed no output (a comment), the facts come from the kept fold, whose
    names the prefilter takes from the step: decoded only for a file the rules read."""
    (flow / "reader.py").write_text("from helpers import resolve\n")
    check(flow)
    (flow / "reader.py").write_text("from helpers import resolve\n\n\n" + text)
    folds: list[object] = []
    decoded: list[bytes] = []
    load_fold = unsentinel.core.cache_facts.load_fold
    book = FactCodec.book

    def loading(*args: Any) -> object:
        folds.append(args)
        return load_fold(*args)

    def reading(self: FactCodec, document: bytes) -> object:
        decoded.append(document)
        return book(self, document)

    monkeypatch.setattr(unsentinel.core.cache_rounds, "load_fold", loading)
    monkeypatch.setattr(FactCodec, "book", reading)
    edited = check(flow)
    assert reported(edited) == reported(check(flow, cache=False))
    assert [r.status.value for r in edited.results if r.path == "reader.py"] == [status]
    if text.startswith("#"):
        assert folds and not decoded  # the facts were needed, but never read


def test_a_skipped_line_is_recognised_as_json_spells_it() -> None:
    key = "0123456789abcdef" * 4
    entry = {"format": FORMAT, "key": key, "skipped": True}
    assert unsentinel.core.cache_packs.skipped(key) == json.dumps(entry).encode()


# -- a function the prefilter admits anew is a changed function ----------------------------

# ``lookup`` is held for a look-alike of its own (not a name the prefilter admits files
# by); ``other`` migrates, so a file calling it is read from the second round on.
HELD_AND_MIGRATING = """\
def fetch(name: str) -> str:
    return name.upper()


def lookup(name: str) -> dict:
    try:
        return {"stack_name": name, "status": fetch(name)}
    except OSError as e:
        return {"region": name, "error": str(e)}
    except ValueError as e:
        return {"success": True, "error": str(e)}


def other(name: str) -> dict:
    try:
        return {"stack_name": name, "status": fetch(name)}
    except OSError as e:
        return {"region": name, "error": str(e)}
"""
# Spells no error-dict needle and calls only ``lookup``: admitted by that name alone.
DESCRIBE = """\
from app import lookup


def describe(name):
    result = lookup(name)
    if result.get("status") != "done":
        return result.get("message")
    return result["stack_name"]
"""
# Reads ``region`` of ``lookup``'s failure, which the migration would move: ``lookup`` is
# then held by that read too (``test_blocked``), and named to the prefilter. The test spells
# no needle either: the second round reads it, for its call of ``other``.
READS_THE_REGION = """\
from app import lookup, other


def test_lookup_region() -> None:
    result = lookup("missing")
    assert result["region"] == "missing"
"""

# ``other`` held for the same read: a change in the same round, which took the later
# rounds back to the files spelling ``other`` alone.
READS_OTHERS_REGION = """\


def test_other_region() -> None:
    result = other("missing")
    assert result["region"] == "missing"
"""


@pytest.fixture
def held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.unsentinel]\n")
    (tmp_path / "app.py").write_text(HELD_AND_MIGRATING)
    (tmp_path / "describe.py").write_text(DESCRIBE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("UNSENTINEL_NO_CACHE", raising=False)
    return tmp_path


def site_lines(result: RunResult) -> list[tuple[str, tuple[int, ...]]]:
    return [(r.path, tuple(s.position.line for s in r.sites)) for r in result.results]


@pytest.mark.parametrize(
    "also",
    [
        pytest.param(READS_OTHERS_REGION, id="with another change"),
        pytest.param("    other('missing')\n", id="alone"),
    ],
)
def test_a_function_held_anew_for_a_test_admits_its_readers_warm_and_cold(
    held: Path, also: str
) -> None:
    """A later round's test reads make ``lookup`` (held already) a name the prefilter admits
    files by, with no fact its feature compares changed. Found only in the rounds that
    re-read files spelling a changed function: ``describe.py`` was served prefiltered by a
    warm check where ``other`` changed with it, and by every screened check where nothing
    else did (``--no-prefilter`` reported its reads)."""
    check(held)
    (held / "test_app.py").write_text(READS_THE_REGION + also)
    warm = check(held)
    fresh = check(held, cache=False)
    whole = run([held], load_config((held,)), Mode.CHECK, jobs=1, screen=False)
    assert reported(warm) == reported(fresh)
    assert site_lines(fresh) == site_lines(whole)
    assert dict(site_lines(fresh))["describe.py"] == (6, 7)  # held readers, reported
    (held / "test_app.py").unlink()  # and back
    assert reported(check(held)) == reported(check(held, cache=False))


def test_an_edit_that_changes_no_output_still_keeps_every_step(
    held: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Comparing the prefilter's names costs a warm check after a comment nothing: the
    steps kept say what changed, and the facts are never merged."""
    (held / "test_app.py").write_text(READS_THE_REGION + "    other('missing')\n")
    cold = check(held)
    (held / "describe.py").write_text(DESCRIBE + "# edited\n")
    monkeypatch.setattr(
        unsentinel.core.cache_rounds,
        "merge_results",
        lambda *_args: pytest.fail("a warm check merged the facts"),
    )
    assert site_lines(check(held)) == site_lines(cold)


def _errors(**fields: Any) -> FactBook:
    return FactBook().with_entries([ErrorFacts(**fields)])


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param({}, {"asserted": {"lookup"}}, id="asserted"),
        pytest.param({}, {"doubled": {"lookup"}}, id="doubled"),
        pytest.param({}, {"held_functions": {"lookup"}}, id="held"),
        pytest.param({"error_functions": {"lookup"}}, {"error_methods": {"lookup"}}, id="method"),
    ],
)
def test_every_error_function_the_prefilter_admits_otherwise_is_a_changed_one(
    before: dict[str, Any], after: dict[str, Any]
) -> None:
    """``ErrorFacts.function_names`` and ``module_function_names`` read fields its
    ``changed_functions`` does not compare (``asserted``, ``doubled``, ``error_methods``):
    a name one of them adds to, or takes from, the prefilter's names is changed all the
    same."""
    old = _errors(**{k: frozenset(v) for k, v in before.items()})
    new = _errors(**{k: frozenset(v) for k, v in {**before, **after}.items()})
    admitted = (old.function_names(), old.module_function_names())
    assert admitted != (new.function_names(), new.module_function_names())
    assert "lookup" in changed_functions(old, new)
    assert "lookup" in changed_functions(new, old)


def test_a_held_function_is_admitted_by_any_call_whatever_held_it() -> None:
    """Held by its own look-alike, by a test's read, along a chain of returns: its readers
    anywhere are reported as held, method calls included, so the prefilter admits every
    call of the name; what held it more changes nothing the prefilter asks."""
    held = _errors(held_functions=frozenset({"lookup"}))
    assert "lookup" in held.function_names()
    assert "lookup" not in held.module_function_names()
    more = _errors(
        held_functions=frozenset({"lookup"}),
        test_blocked=frozenset({("lookup", "region", "details")}),
        held_returned=frozenset({("lookup", "wrap")}),
    )
    assert (more.function_names(), more.module_function_names()) == (
        held.function_names(),
        held.module_function_names(),
    )


@pytest.mark.parametrize(
    "after",
    [
        pytest.param({"returning": frozenset({"resolve"})}, id="returning"),
        pytest.param({"tuple_slots": frozenset({TupleSlot("resolve", 1)})}, id="tuple slot"),
    ],
)
def test_every_warnings_function_the_prefilter_admits_anew_is_changed_for_its_feature(
    after: dict[str, Any],
) -> None:
    """``WarningFacts.function_names`` reads only what its ``changed_functions`` compares
    (it has no module-level names): the feature reports each such name itself."""
    old, new = WarningFacts(), WarningFacts(**after)
    assert new.function_names() - old.function_names() == {"resolve"}
    assert new.changed_functions(old) == old.changed_functions(new) == {"resolve"}
