"""Work that grows with the input as it should: linear analysis, a pool only when it pays.

The linear-time tests count Python function calls (``cProfile``), never wall time: the
count is the same on a busy CI machine and on a laptop, and a step that scans every node
once per node shows up as a count that grows with the square of the module's size.
"""

from __future__ import annotations

import cProfile
import os
import pstats
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import unsentinel.core.pool as pool
from unsentinel.cli import main
from unsentinel.core.config import Config
from unsentinel.core.engine import Pipeline
from unsentinel.core.facts import FactBook
from unsentinel.core.model import FileTask, Mode
from unsentinel.registry import load_config, run, suite

HEADER = """\
from typing import Any

from pydantic import BaseModel

BLOCK_WARNING_PREFIX = "BLOCK: "
"""

# One copy of everything the warning and error rules act on, in functions of its own.
FUNCTIONS = """

class Response{n}(BaseModel):
    order_id: str
    warnings: list[str] = []


def cancel_{n}(request: Any, client: Any) -> Response{n}:
    record = client.get(request.order_id)
    warnings: list[str] = []
    if record is None:
        warnings.append(f"{{BLOCK_WARNING_PREFIX}}order {{request.order_id}} does not exist.")
        return Response{n}(order_id=request.order_id, warnings=warnings)
    for i, line in enumerate(request.lines):
        if line.quantity <= 0:
            warnings.append(f"{{BLOCK_WARNING_PREFIX}}Line {{i + 1}}: quantity must be positive.")
        elif line.quantity > 10:
            warnings.append(f"Line {{i + 1}}: {{line.quantity}} is above 10; double-check it.")
    if any(w.startswith(BLOCK_WARNING_PREFIX) for w in warnings):
        return Response{n}(order_id=record["id"], warnings=warnings)
    return Response{n}(order_id=record["id"], warnings=warnings)


def blocked_{n}(warnings: list[str]) -> bool:
    return any(w.startswith(BLOCK_WARNING_PREFIX) for w in warnings)


def tool_{n}(arguments: dict[str, Any], service: Any) -> dict[str, Any]:
    try:
        result = service.run(int(arguments["order_id"]))
    except KeyError as e:
        return {{"error": str(e)}}
    return {{"success": True, "order": result}}
"""

# The same steps again and again inside one function: sites, loops and locals all grow.
ONE_FUNCTION_HEADER = (
    HEADER
    + """

def check_everything(request: Any, client: Any) -> list[str]:
    warnings: list[str] = []
"""
)
STEPS = """\
    record_{n} = client.get(request.item_{n}_id)
    if record_{n} is None:
        warnings.append(f"{{BLOCK_WARNING_PREFIX}}item {{request.item_{n}_id}} does not exist.")
    for i, line in enumerate(request.lines_{n}):
        if line.quantity <= 0:
            warnings.append(f"BLOCK: line {{i + 1}} of item {n}: quantity must be positive.")
    if any(w.startswith(BLOCK_WARNING_PREFIX) for w in warnings):
        return warnings
"""
ONE_FUNCTION_FOOTER = "    return warnings\n"


def many_functions(copies: int) -> str:
    return HEADER + "".join(FUNCTIONS.format(n=n) for n in range(copies))


def one_function(copies: int) -> str:
    steps = "".join(STEPS.format(n=n) for n in range(copies))
    return ONE_FUNCTION_HEADER + steps + ONE_FUNCTION_FOOTER


def profiled_plan(root: Path, source: str) -> pstats.Stats:
    """The profile of ``plan`` over a project holding one module."""
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.unsentinel]\n")
    (root / "module.py").write_text(source)
    config = load_config((root,))
    profile = cProfile.Profile()
    profile.enable()
    result = run([root], config, Mode.PLAN, jobs=1)
    profile.disable()
    assert not result.failed
    return pstats.Stats(profile)


def plan_calls(root: Path, source: str) -> int:
    """Python function calls made by ``plan`` over a project holding one module."""
    return profiled_plan(root, source).total_calls  # type: ignore[attr-defined, no-any-return]


def calls_by_function(root: Path, source: str) -> Counter[str]:
    """How often ``plan`` over one module called each of unsentinel's own functions."""
    stats = profiled_plan(root, source).stats  # type: ignore[attr-defined]
    counts: Counter[str] = Counter()
    for (path, line, name), (_primitive, calls, *_times) in stats.items():
        if f"{os.sep}unsentinel{os.sep}" in path:
            counts[f"{path.rsplit(f'{os.sep}unsentinel{os.sep}', 1)[1]}:{line}({name})"] = calls
    return counts


@pytest.mark.parametrize(
    ("build", "copies"),
    [
        pytest.param(many_functions, 3, id="more functions"),
        pytest.param(one_function, 8, id="one longer function"),
    ],
)
def test_plan_on_a_module_four_times_larger_does_at_most_five_times_the_work(
    tmp_path: Path, build: Callable[[int], str], copies: int
) -> None:
    plan_calls(tmp_path / "warm-up", build(1))  # imports and first-use caches, not counted
    empty = plan_calls(tmp_path / "empty", build(0))
    small = plan_calls(tmp_path / "small", build(copies))
    large = plan_calls(tmp_path / "large", build(4 * copies))
    assert small > empty
    # The run's fixed cost (discovery, the rule set, the generated modules) is subtracted:
    # what is left is the work the module's size causes.
    ratio = (large - empty) / (small - empty)
    assert ratio <= 5.0, f"4x the module made {ratio:.1f}x the calls"


def test_no_function_is_called_per_function_per_function(tmp_path: Path) -> None:
    """A module with 4x the functions calls no function of ours more than ~5x as often.

    The total above hides a step that scans the whole file for each function while the
    scan is cheap per item: at 1,000 functions (the benchmark's 10,029-line module) the
    callers of every helper found by testing every call of the file (11 million tests),
    and the module's dispatch tables read again for every function, took a third of
    ``plan``. Counted per function, such a step grows with the square of the module."""
    calls_by_function(tmp_path / "warm-up", many_functions(1))
    empty = calls_by_function(tmp_path / "empty", many_functions(0))
    small = calls_by_function(tmp_path / "small", many_functions(5))
    large = calls_by_function(tmp_path / "large", many_functions(20))
    grown = {}
    for name, calls in large.items():
        before, after = small[name] - empty[name], calls - empty[name]
        if after >= 50 and after > 5 * max(before, 1):
            grown[name] = (small[name], calls)
    assert not grown, f"called (5 copies, 20 copies) times: {grown}"


def test_the_larger_module_has_four_times_the_sites(tmp_path: Path) -> None:
    """The scaling test above measures real work: every copy adds the same sites."""
    for build in (many_functions, one_function):
        counts = []
        for copies in (0, 2, 8):
            root = tmp_path / f"{build.__name__}{copies}"
            root.mkdir()
            (root / "module.py").write_text(build(copies))
            result = run([root], Config(root=root), Mode.PLAN, jobs=1)
            counts.append(sum(len(r.sites) for r in result.results))
        assert counts[1] > counts[0]
        assert counts[2] - counts[0] == 4 * (counts[1] - counts[0])


# -- the pool -----------------------------------------------------------------------------

SENTINEL = 'x = "BLOCK: {n}"\n'
CLEAN = "def add(a: int, b: int) -> int:\n    return a + b\n"


class CountingPool(ProcessPoolExecutor):
    started: list[int] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        CountingPool.started.append(1)
        super().__init__(*args, **kwargs)


@pytest.fixture
def pools(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    CountingPool.started = []
    monkeypatch.setattr(pool, "ProcessPoolExecutor", CountingPool)
    return CountingPool.started


def worth_a_pool(tasks: list[FileTask], root: Path) -> bool:
    config = Config(root=root)
    prefilter = Pipeline(config, suite(config), FactBook(), Mode.CHECK).prefilter
    return pool.worth_a_pool(tasks, prefilter, config.max_file_size)


def tasks_for(root: Path, files: dict[str, str]) -> list[FileTask]:
    for name, text in files.items():
        (root / name).write_text(text)
    return [FileTask(root / name, name) for name in sorted(files)]


def test_many_small_files_stay_in_this_process(tmp_path: Path, pools: list[int]) -> None:
    tasks_for(tmp_path, {f"m{n:03}.py": SENTINEL.format(n=n) for n in range(60)})
    result = run([tmp_path], Config(root=tmp_path), Mode.CHECK, jobs=2)
    assert len(result.results) == 60 and result.findings == 60
    assert not pools
    [peak] = result.peak_memory  # this process did all the work
    assert peak > 2**20


def test_the_estimate_counts_the_bytes_that_reach_libcst(tmp_path: Path) -> None:
    big_clean = CLEAN * (pool.POOL_MIN_BYTES // len(CLEAN) + 1)  # over the limit, prefiltered
    clean = tasks_for(tmp_path, {"clean.py": big_clean})
    assert not worth_a_pool(clean, tmp_path)
    half = SENTINEL.format(n=0) * (pool.POOL_MIN_BYTES // 2 // len(SENTINEL.format(n=0)))
    one = tasks_for(tmp_path, {"half.py": half})
    assert not worth_a_pool(one, tmp_path)
    two = tasks_for(tmp_path, {"half.py": half, "other_half.py": half + half})
    assert worth_a_pool(two, tmp_path)


def test_large_files_are_scheduled_first(tmp_path: Path) -> None:
    sizes = [3, 40_000, 10, 900, 120_000, 5, 5, 7_000, 60]
    files = {f"m{n}.py": "#" * size + "\n" for n, size in enumerate(sizes)}
    tasks = tasks_for(tmp_path, files)
    chunks = pool.schedule(tasks, workers=2)
    order = [index for chunk in chunks for index in chunk]
    assert sorted(order) == list(range(len(tasks)))  # every file exactly once
    ranked = sorted(range(len(tasks)), key=lambda i: -(tmp_path / tasks[i].display).stat().st_size)
    assert order == ranked
    assert chunks[0] == [ranked[0]]  # the largest file travels alone, first
    assert len(chunks[-1]) > 1  # the small ones together


def test_a_pool_returns_results_in_input_order_and_compactly(
    tmp_path: Path, pools: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool, "POOL_MIN_BYTES", 0)
    files = {f"m{n:02}.py": SENTINEL.format(n=n) * (30 - n) for n in range(20)}
    files.update({f"z{n:02}.py": CLEAN for n in range(5)})
    tasks_for(tmp_path, files)
    serial = run([tmp_path], Config(root=tmp_path), Mode.DIFF, jobs=1)
    assert not pools
    pooled = run([tmp_path], Config(root=tmp_path), Mode.DIFF, jobs=2)
    assert pools
    assert [Path(r.path).name for r in pooled.results] == sorted(files)
    assert pooled.results == serial.results
    unchanged = [r for r in pooled.results if not r.changed]
    assert len(unchanged) == 5
    for result in unchanged:  # only what a file's report needs comes back from a worker
        assert (result.original, result.new_text, result.new_source, result.facts) == (
            None,
            None,
            None,
            (),
        )
    assert all(r.original is not None and r.new_text is not None for r in pooled.changed)
    assert 1 <= len(pooled.peak_memory) <= 2 * len(pools)  # one peak per worker process
    assert all(peak > 2**20 for peak in pooled.peak_memory)


def test_statistics_report_peak_memory_per_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks_for(tmp_path, {"m.py": SENTINEL.format(n=1)})
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", ".", "--no-cache", "--statistics"])
    [line] = [line for line in result.stderr.splitlines() if "peak memory per worker" in line]
    assert "(1 process)" in line
    assert int(line.split()[-1]) > 1  # MiB


RECEIVERS = """\
from typing import Any


class Store:
    def save(self, path: Any) -> None:
        self.flush()
        path.write_text("saved")
        self.items.sort()


def collect() -> list[str]:
    found: list[str] = []
    found.append("BLOCK: the order is empty")
    return found
"""


def test_only_a_method_that_grows_a_list_has_its_receiver_asked_what_it_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``self.flush()`` puts nothing in a list, whatever ``self`` holds: asking the flow
    about every receiver was a tenth of the analyses over the standard library."""
    import libcst as cst

    from unsentinel.warnings.flow import WarningFlow

    methods: list[str] = []  # the method of each call whose receiver the flow was asked
    real = WarningFlow.shape

    def shape(self: WarningFlow, expr: cst.BaseExpression) -> Any:
        above = self.context.parent(expr)
        if isinstance(above, cst.Attribute) and above.value is expr:
            call = self.context.parent(above)
            if isinstance(call, cst.Call) and call.func is above:
                methods.append(above.attr.value)
        return real(self, expr)

    monkeypatch.setattr(WarningFlow, "shape", shape)
    (tmp_path / "module.py").write_text(RECEIVERS)
    result = run([tmp_path], load_config((tmp_path,)), Mode.PLAN, jobs=1)
    assert not result.failed
    assert "append" in methods, "the growing call was never asked about: the test proves nothing"
    assert set(methods) <= {"append", "insert", "extend"}
