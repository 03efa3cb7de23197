"""The real-corpus sweep: ``check``, ``plan`` and ``diff`` over the standard library and every
installed package of the test environment (``-m corpus`` selects it, ``-m 'not corpus'``
skips it).

``check`` sweeps every file (over 50 KB by default: skipped, as max-file-size does); ``plan`` and
``diff`` an evenly spread sample of the files ``check`` parsed (``UNSENTINEL_CORPUS_SAMPLE``,
0 for all), because their gather pass costs several times a ``check``. Zero crashes and
zero internal errors (a file the corpus itself cannot parse, such as the standard library's
deliberately broken test modules, is a per-file error and is counted); every diff produced
parses; plan and diff agree on the sites; no sentinel findings (this corpus has no
``BLOCK:`` warnings).
The number of files and lines swept is printed into the test output and was copied to
docs/reliability.md.
"""

from __future__ import annotations

import ast
import json
import os
import sysconfig
import time
import warnings
from collections import Counter
from pathlib import Path

import pytest

from unsentinel.core.config import Config
from unsentinel.core.model import Mode, Status
from unsentinel.core.runner import RunResult
from unsentinel.output.plan import render_plan
from unsentinel.registry import run

pytestmark = pytest.mark.corpus

JOBS = int(os.environ.get("UNSENTINEL_CORPUS_JOBS") or os.cpu_count() or 1)
# plan and diff run a whole-repository gather pass first, several times the cost of check:
# they sweep an evenly spread sample of the files check parsed (0: all of them).
SAMPLE = int(os.environ.get("UNSENTINEL_CORPUS_SAMPLE", "30"))
# The few giant modules (mypy/checker.py: 450 KB) would take most of the time budget.
MAX_FILE_SIZE = int(os.environ.get("UNSENTINEL_CORPUS_MAX_FILE_SIZE", "50000"))
SENTINEL_RULES = {"UNS001", "UNS002"}
# Per-file errors that describe the corpus, not unsentinel.
CORPUS_ERRORS = ("syntax error at", "cannot decode as", "bad coding declaration", "contains NUL")


def _corpora() -> list[Path]:
    paths = {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"]}
    return sorted(Path(p).resolve() for p in paths if Path(p).is_dir())


def _config(root: Path) -> Config:
    # The default excludes keep the stdlib's own site-packages (swept as purelib) out.
    return Config(root=root, max_file_size=MAX_FILE_SIZE)


def _line_count(paths: list[str]) -> int:
    total = 0
    for path in paths:
        try:
            with open(path, "rb") as handle:
                total += sum(1 for _ in handle)
        except OSError:
            pass
    return total


def _internal(run_result: RunResult) -> list[tuple[str, str]]:
    return [(p, why) for p, why in run_result.failed if not why.startswith(CORPUS_ERRORS)]


def _sample(paths: list[str]) -> list[str]:
    if SAMPLE <= 0 or len(paths) <= SAMPLE:
        return paths
    step = len(paths) / SAMPLE
    return [paths[int(i * step)] for i in range(SAMPLE)]


@pytest.mark.parametrize("root", _corpora(), ids=lambda p: p.name)
def test_corpus_sweep(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(root)
    warnings.simplefilter("ignore", SyntaxWarning)
    config = _config(root)
    started = time.monotonic()
    check = run([root], config, Mode.CHECK, jobs=JOBS)
    check_seconds = time.monotonic() - started
    assert _internal(check) == []
    sentinels = [(p, s) for p, s in check.sites if getattr(s, "rule", "") in SENTINEL_RULES]
    assert sentinels == []

    parsed = [r.path for r in check.results if r.status is Status.PARSED]
    sample = [Path(p) for p in _sample(parsed)]
    started = time.monotonic()
    plan = run(sample, config, Mode.PLAN, jobs=JOBS)
    diff = run(sample, config, Mode.DIFF, jobs=JOBS)
    rewrite_seconds = time.monotonic() - started
    for result in (plan, diff):
        assert _internal(result) == []
        assert len(result.results) == len(sample)
    json.loads(render_plan(plan))
    assert sorted(map(repr, plan.sites)) == sorted(map(repr, diff.sites))
    for changed in diff.changed:
        assert changed.new_text is not None
        ast.parse(changed.new_text.lstrip("\ufeff"), changed.path)

    statuses = Counter(r.status.value for r in check.results)
    rules = Counter(getattr(s, "rule", "") for _, s in check.sites)
    with capsys.disabled():  # the figures belong in CI's log, not only under ``pytest -s``
        _report(
            f"\ncorpus {root}: check swept {len(check.results)} files, "
            f"{_line_count([r.path for r in check.results])} lines ({dict(statuses)}; "
            f"{len(check.failed)} per-file corpus errors; sites by rule {dict(rules)}) in "
            f"{check_seconds:.0f} s; plan + diff over {len(sample)} of the {len(parsed)} parsed "
            f"files ({_line_count([str(p) for p in sample])} lines): {len(diff.changed)} diffs, "
            f"all parse, in {rewrite_seconds:.0f} s; {JOBS} jobs"
        )


def _report(text: str) -> None:
    print(text)
