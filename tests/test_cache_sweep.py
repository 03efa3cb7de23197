"""The check cache stays small: what no run used for long, and the least recently used
beyond a size, are removed; nothing a run used, and never the cache's correctness."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from unsentinel.core.cache import CACHE_DIR
from unsentinel.core.cache_sweep import DAY, MARKER, MAX_AGE, sweep, sweep_if_due
from unsentinel.core.model import Mode
from unsentinel.core.runner import RunResult
from unsentinel.registry import load_config, run

ORDERS = """\
BLOCK_WARNING_PREFIX = "BLOCK: "


def cancel(order_id: str, warnings: list[str]) -> None:
    if not order_id:
        warnings.append(f"{BLOCK_WARNING_PREFIX}order {order_id} does not exist.")
"""


def write(path: Path, size: int, used: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    os.utime(path, (used, used))
    return path


def files(directory: Path) -> set[str]:
    return {str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file()}


NOW = 2_000_000_000.0
STARTED = NOW - 10


def test_entries_unused_for_two_weeks_go_and_the_rest_stays(tmp_path: Path) -> None:
    write(tmp_path / "ab" / "old.json", 10, NOW - MAX_AGE - DAY)
    write(tmp_path / "runs" / "cd" / "old.json", 10, NOW - MAX_AGE - 1)
    write(tmp_path / "ab" / "week.json", 10, NOW - 7 * DAY)
    write(tmp_path / "rounds" / "ef" / "now.pack", 10, NOW)
    write(tmp_path / ".gitignore", 1, NOW - 100 * DAY)  # the cache's own files stay
    write(tmp_path / "CACHEDIR.TAG", 1, NOW - 100 * DAY)

    swept = sweep(tmp_path, NOW, STARTED)

    assert files(tmp_path) == {".gitignore", "CACHEDIR.TAG", "ab/week.json", "rounds/ef/now.pack"}
    assert (swept.removed, swept.freed, swept.kept) == (2, 20, 2)


def test_beyond_the_size_the_least_recently_used_go_but_never_what_this_run_used(
    tmp_path: Path,
) -> None:
    write(tmp_path / "aa" / "this-run-1.json", 40, NOW)
    write(tmp_path / "aa" / "this-run-2.json", 40, STARTED)
    write(tmp_path / "bb" / "yesterday.json", 40, NOW - DAY)
    write(tmp_path / "cc" / "last-week.json", 40, NOW - 7 * DAY)

    sweep(tmp_path, NOW, STARTED, max_bytes=100)

    # 80 bytes used by this run, over the limit once yesterday's is counted: the older go
    assert files(tmp_path) == {"aa/this-run-1.json", "aa/this-run-2.json"}

    sweep(tmp_path, NOW + 1, NOW + 1, max_bytes=50)  # a later run that used neither
    assert files(tmp_path) == {"aa/this-run-1.json"}  # the most recently used fits


def test_a_crashed_writes_temporary_file_goes_after_an_hour(tmp_path: Path) -> None:
    write(tmp_path / "ab" / ".tmp-old.part", 5, NOW - 2 * 60 * 60)
    write(tmp_path / "ab" / ".tmp-writing.part", 5, NOW - 60)  # another run is writing it

    sweep(tmp_path, NOW, NOW)

    assert files(tmp_path) == {"ab/.tmp-writing.part"}


def test_a_sweep_runs_at_most_once_a_day(tmp_path: Path) -> None:
    write(tmp_path / "ab" / "old.json", 10, NOW - MAX_AGE - DAY)
    write(tmp_path / MARKER, 0, NOW - DAY / 2)

    assert sweep_if_due(tmp_path, STARTED, NOW) is None
    assert "ab/old.json" in files(tmp_path)

    swept = sweep_if_due(tmp_path, STARTED, NOW + DAY)
    assert swept is not None and swept.removed == 1
    assert (tmp_path / MARKER).stat().st_mtime == NOW + DAY  # the next is a day away
    assert sweep_if_due(tmp_path, STARTED, NOW + DAY + 60) is None


# -- through check ---------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.unsentinel]\n")
    (tmp_path / "orders.py").write_text(ORDERS)
    (tmp_path / "clean.py").write_text("def add(a: int, b: int) -> int:\n    return a + b\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("UNSENTINEL_NO_CACHE", raising=False)
    return tmp_path


def check(root: Path, cache: bool = True) -> RunResult:
    return run([root], load_config((root,)), Mode.CHECK, jobs=1, cache=cache)


def entries(root: Path) -> set[Path]:
    found = {p for p in (root / CACHE_DIR).rglob("*") if p.is_file()}
    return {p for p in found if p.parent != root / CACHE_DIR}


def age(paths: set[Path], seconds: float) -> None:
    then = time.time() - seconds
    for path in paths:
        os.utime(path, (then, then))


def test_check_marks_what_it_read_and_sweeps_what_no_run_used(project: Path) -> None:
    fresh = check(project, cache=False)
    check(project)
    before_edit = entries(project)
    assert before_edit

    (project / "orders.py").write_text(ORDERS.replace("does not exist", "is gone"))
    check(project)
    after_edit = entries(project) - before_edit  # the edited tree's entries
    age(entries(project), MAX_AGE + DAY)  # a month on, the sweep is due
    age({project / CACHE_DIR / MARKER}, 2 * DAY)

    (project / "orders.py").write_text(ORDERS)  # back to the first tree: its entries are read
    warm = check(project)

    left = entries(project)
    assert left, "what this run read stays"
    assert left <= before_edit, "the edited tree's entries, unused for a month, are gone"
    assert after_edit.isdisjoint(left)
    assert [(r.path, r.sites) for r in warm.results] == [(r.path, r.sites) for r in fresh.results]
    assert warm.cached, "answered from the entries the sweep kept"


def test_a_swept_cache_still_answers_like_a_fresh_check(project: Path) -> None:
    fresh = check(project, cache=False)
    check(project)
    age(entries(project), MAX_AGE + DAY)
    age({project / CACHE_DIR / MARKER}, 2 * DAY)
    (project / "clean.py").write_text("X = 1\n")  # no run read the old entries since

    again = check(project)

    assert [(r.path, r.sites) for r in again.results if r.path.endswith("orders.py")] == [
        (r.path, r.sites) for r in fresh.results if r.path.endswith("orders.py")
    ]


def test_the_cache_folder_is_tagged_for_backup_tools(project: Path) -> None:
    check(project)
    tag = (project / CACHE_DIR / "CACHEDIR.TAG").read_text()
    assert tag.startswith("Signature: 8a477f597d28d172789f06886806bc55")


def test_clean_removes_the_cache_and_check_rebuilds_it(project: Path) -> None:
    from click.testing import CliRunner

    from unsentinel.cli import main

    check(project)
    assert (project / CACHE_DIR).is_dir()
    (project / "pkg").mkdir()

    removed = CliRunner().invoke(main, ["clean", "pkg"])  # any folder inside the project

    assert removed.exit_code == 0, removed.output
    assert not (project / CACHE_DIR).exists()
    assert f"removed {project / CACHE_DIR}" in removed.stderr
    again = CliRunner().invoke(main, ["clean"])
    assert again.exit_code == 0 and "no cache at" in again.stderr
    assert check(project).results, "check runs, and writes a new cache"
    assert (project / CACHE_DIR).is_dir()
