"""``check`` and ``plan`` agree on every site's rule, severity and code (issue 12, item 5).

Over every fixture repository, a site is keyed by file, line, column and rule; both commands
must report the same sites with the same inferred severity and code.

``check`` gathers cross-file facts over the files it checks, as ``plan`` does, so it sees the
repository-wide code assignment (``WarningFacts.settle``: ``NOT_ENOUGH_NEED``, not a code
made up from one file) and warnings that flow in from another file (helpers' parameters and
return values). The first test shows the rules and the inference agree given the same
facts; the others pin the command as it runs, without and with the check cache (cold and
warm: a result served from the cache must be the one a fresh run computes).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from unsentinel import registry
from unsentinel.core.discovery import discover
from unsentinel.core.engine import Pipeline
from unsentinel.core.model import FileResult, Mode, Status
from unsentinel.core.runner import RunResult
from unsentinel.registry import load_config

FIXTURES = Path(__file__).parent.parent / "fixtures"
NAMES = ["mcp_orders", "fulfillment_svc", "error_service"]

Key = tuple[str, int, int, str]
Values = tuple[str | None, str | None]


def _sites(results: tuple[FileResult, ...] | list[FileResult]) -> dict[Key, Values]:
    """(path, line, column, rule) -> (severity, code) of every site."""
    found: dict[Key, Values] = {}
    for result in results:
        assert result.error is None, f"{result.path}: {result.error}"
        for site in result.sites:
            key = (result.path, site.position.line, site.position.column, site.rule)
            severity = site.severity.value if site.severity else None
            code = site.code.value if site.code else None
            found[key] = (severity, code)
    return found


def _plan(root: Path) -> tuple[dict[Key, Values], RunResult]:
    ran = registry.run([root], load_config((root,)), Mode.PLAN, jobs=1)
    return _sites(ran.results), ran


def _disagreements(check: dict[Key, Values], plan: dict[Key, Values]) -> list[str]:
    return [
        f"{key}: check {check.get(key)} plan {plan.get(key)}"
        for key in sorted(set(check) | set(plan))
        if check.get(key) != plan.get(key)
    ]


@pytest.mark.parametrize("name", NAMES)
def test_check_with_the_gathered_facts_agrees_with_plan(name: str) -> None:
    root = FIXTURES / name
    plan, ran = _plan(root)
    assert plan, "the fixture has sites"
    config = load_config((root,))
    pipeline = Pipeline(config, registry.suite(config), ran.facts, Mode.CHECK)
    check = _sites([pipeline.process(task) for task in discover([root], config).tasks])
    assert _disagreements(check, plan) == []


@pytest.mark.parametrize("name", NAMES)
def test_check_as_it_runs_agrees_with_plan(name: str) -> None:
    root = FIXTURES / name
    check = _sites(registry.run([root], load_config((root,)), Mode.CHECK, jobs=1).results)
    assert _disagreements(check, _plan(root)[0]) == []


@pytest.mark.parametrize("name", NAMES)
def test_check_through_the_cache_agrees_with_plan(name: str, tmp_path: Path) -> None:
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    plan = _plan(root)[0]
    config = load_config((root,))
    cold = registry.run([root], config, Mode.CHECK, jobs=1, cache=True)
    warm = registry.run([root], config, Mode.CHECK, jobs=1, cache=True)
    assert cold.cached == 0 and warm.cached == len(warm.results)
    assert _disagreements(_sites(cold.results), plan) == []
    assert _disagreements(_sites(warm.results), plan) == []


@pytest.mark.parametrize("name", NAMES)
def test_check_without_the_prefilter_agrees_with_check(name: str) -> None:
    """Every file that parses sent to the rules (``check --no-prefilter``): the byte and
    ``ast`` screens hide no site, and no fact another file needs (benchmarks/ecosystem.py
    asserts the same over every package, as its ``prefilter`` invariant)."""
    root = FIXTURES / name
    config = load_config((root,))
    screened = registry.run([root], config, Mode.CHECK, jobs=1)
    whole = registry.run([root], config, Mode.CHECK, jobs=1, screen=False)
    prefiltered = [r for r in screened.results if r.status is Status.PREFILTERED]
    assert prefiltered, "the prefilter screened nothing out here: the test proves nothing"
    assert not [r for r in whole.results if r.status is Status.PREFILTERED]
    assert _sites(whole.results) == _sites(screened.results)


LOOKALIKE_HELD = {
    "tools.py": (
        "class Client:\n"
        "    def fetch(self, key):\n"
        "        if not key:\n"
        '            return {"status": "failed", "message": "missing key"}\n'
        '        return {"id": key, "error": None, "rows": 3}\n'
        "\n"
        "\n"
        "def lookup(key):\n"
        '    return {"id": key, "error": None}\n'
    ),
    # Spells no needle of UNS501: only the calls of the held functions can admit it.
    "use.py": (
        "def describe(name, client):\n"
        "    result = client.fetch(name)\n"
        '    if result.get("status") != "done":\n'
        '        return result.get("message")\n'
        '    return result["rows"]\n'
        "\n"
        "\n"
        "def show(name):\n"
        "    found = lookup(name)\n"
        '    return found.get("message")\n'
    ),
}


def test_a_function_held_by_its_own_look_alike_admits_its_readers(tmp_path: Path) -> None:
    """A function held only because it returns a look-alike (an ``error`` column that may
    be ``None``) has its readers elsewhere reported as held, with or without the prefilter;
    the prefilter once served ``use.py`` as screened out, so ``check`` missed three sites
    that ``check --no-prefilter`` reported."""
    for name, text in LOOKALIKE_HELD.items():
        (tmp_path / name).write_text(text)
    config = load_config((tmp_path,))
    screened = registry.run([tmp_path], config, Mode.CHECK, jobs=1)
    whole = registry.run([tmp_path], config, Mode.CHECK, jobs=1, screen=False)
    assert _sites(screened.results) == _sites(whole.results)
    readers = sorted(
        line for path, line, _column, _rule in _sites(whole.results) if path.endswith("use.py")
    )
    assert readers == [3, 4, 10]
