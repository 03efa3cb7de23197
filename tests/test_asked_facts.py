"""A file's analysis is reused only while every question it asked the facts gets the same
answer (:mod:`unsentinel.core.asked`).

A later gather round and the final pass take a file's last analysis instead of running the
rules again when the facts answer it the same; a change in another file's helper must still
reach every file that asks about it. The run tests compare each result with a run that never
reuses an analysis, and check that the reuse really happened (else they prove nothing).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from operator import and_, or_, sub, xor
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import unsentinel.core.engine as engine
from unsentinel.cli import main
from unsentinel.core.asked import Asked, asking, same
from unsentinel.core.config import Config
from unsentinel.core.facts import FactBook, ReadFile

# -- the record and its test ---------------------------------------------------------------


@dataclass(frozen=True)
class Helpers:
    """A stand-in feature's facts: what some helpers return."""

    returning: frozenset[str] = frozenset()
    shapes: dict[str, str] = field(default_factory=dict)

    # -- the protocol (unsentinel.core.facts.Facts), unused here
    @classmethod
    def from_source(cls, data: bytes) -> Helpers | None:
        return None

    @classmethod
    def from_context(cls, context: ReadFile) -> Helpers:
        return cls()

    def merge(self, other: Helpers) -> Helpers:
        return Helpers(self.returning | other.returning, {**self.shapes, **other.shapes})

    def settle(self, config: Config) -> Helpers:
        return self

    def changed_functions(self, previous: Helpers) -> set[str]:
        return set(self.returning ^ previous.returning)

    def function_names(self) -> frozenset[str]:
        return self.returning

    # -- questions
    def returns(self, name: str) -> bool:
        return name in self.returning

    def names(self) -> list[str]:
        return sorted(self.returning)

    def shapes_of(self, names: list[str]) -> list[str]:
        return [self.shapes.get(name, "") for name in names]


def _book(*returning: str, gathered: bool = True) -> FactBook:
    return FactBook({Helpers: Helpers(frozenset(returning))}, gathered=gathered)


def _asked(book: FactBook, name: str) -> Asked:
    reading, asked = asking(book, (Helpers,))
    assert reading.get(Helpers).returns(name) is book.get(Helpers).returns(name)
    return asked


def test_an_unchanged_answer_holds_though_other_facts_changed() -> None:
    asked = _asked(_book("load"), "load")
    assert asked.holds_under(_book("load", "save"))


def test_a_changed_answer_does_not_hold() -> None:
    asked = _asked(_book("load"), "save")  # not known to return: False
    assert not asked.holds_under(_book("load", "save"))


def test_a_membership_test_asks_about_one_name() -> None:
    reading, asked = asking(_book("load"), (Helpers,))
    assert "load" in reading.get(Helpers).returning
    assert "save" not in reading.get(Helpers).returning
    assert asked.holds_under(_book("load", "close"))
    assert not asked.holds_under(_book("load", "save"))
    assert not asked.holds_under(_book())


def test_a_mapping_read_by_key_asks_about_that_key() -> None:
    book = FactBook({Helpers: Helpers(shapes={"load": "list"})})
    reading, asked = asking(book, (Helpers,))
    shapes = reading.get(Helpers).shapes
    assert shapes.get("load") == "list"
    assert shapes["load"] == "list"
    assert "save" not in shapes
    assert asked.holds_under(FactBook({Helpers: Helpers(shapes={"load": "list", "x": "y"})}))
    assert not asked.holds_under(FactBook({Helpers: Helpers(shapes={"load": "item"})}))
    assert not asked.holds_under(FactBook({Helpers: Helpers(shapes={"load": "list", "save": ""})}))


def test_a_collection_iterated_is_read_whole() -> None:
    for use in (sorted, list, lambda names: list(names | frozenset({"x"}))):
        reading, asked = asking(_book("load"), (Helpers,))
        use(reading.get(Helpers).returning)
        assert asked.holds_under(_book("load"))
        assert not asked.holds_under(_book("load", "save")), use


def test_its_size_is_a_question_of_its_own() -> None:
    reading, asked = asking(_book("load"), (Helpers,))
    assert len(reading.get(Helpers).returning) == 1
    assert asked.holds_under(_book("save"))
    assert not asked.holds_under(_book("load", "save"))


def test_whether_it_is_empty_is_a_question_of_its_own() -> None:
    reading, asked = asking(_book("load"), (Helpers,))
    assert reading.get(Helpers).returning
    assert asked.holds_under(_book("save", "close"))
    assert not asked.holds_under(_book())


def test_a_union_tested_for_a_name_asks_each_set_about_that_name() -> None:
    reading, asked = asking(_book("load"), (Helpers,))
    names = frozenset({"local"}) | reading.get(Helpers).returning
    assert "load" in names
    assert "local" in names
    assert names  # a union is empty only where both sets are
    assert asked.holds_under(_book("load", "save"))
    assert not asked.holds_under(_book("save"))


def test_a_difference_tested_for_a_name_asks_both_sets() -> None:
    reading, asked = asking(_book("load"), (Helpers,))
    names = reading.get(Helpers).returning - frozenset({"save"})
    assert "load" in names
    assert asked.holds_under(_book("load", "close"))
    assert not asked.holds_under(_book())


@pytest.mark.parametrize(
    ("left", "right"),
    [
        pytest.param(frozenset({"a", "b", "c"}), set("cdefgh"), id="frozenset and set"),
        pytest.param(set("xyz"), frozenset("abcx"), id="set and frozenset"),
        pytest.param(frozenset(), frozenset("ab"), id="an empty one"),
    ],
)
def test_set_operators_answer_what_the_real_values_answer(left: set[Any], right: set[Any]) -> None:
    probes = ["a", "c", "x", "z", "nowhere"]
    for operator in (or_, and_, sub, xor):
        for recorded_left in (True, False):
            facts = Helpers(returning=frozenset(left if recorded_left else right))
            reading, _asked = asking(FactBook({Helpers: facts}), (Helpers,))
            recorded = reading.get(Helpers).returning
            a, b = (recorded, right) if recorded_left else (left, recorded)
            real_a, real_b = (frozenset(left), right) if recorded_left else (left, frozenset(right))
            result, expected = operator(a, b), operator(real_a, real_b)
            assert [p in result for p in probes] == [p in expected for p in probes]
            assert bool(result) is bool(expected)
            assert len(result) == len(expected)
            assert list(result) == list(expected)  # built as the real one: same order
            assert type(result.copy()) is type(expected.copy())


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        pytest.param({"a": 1, "b": 2}, {"a": 1, "b": 2}, True, id="equal dicts"),
        pytest.param({"a": 1, "b": 2}, {"b": 2, "a": 1}, False, id="a dict in another order"),
        pytest.param([1, 2], [1, True + 1], True, id="equal lists"),
        pytest.param([1], [True], False, id="one and True are equal, not the same"),
        pytest.param((frozenset({"x"}),), (frozenset({"x"}),), True, id="nested sets"),
        pytest.param(Helpers(frozenset({"a"})), Helpers(frozenset({"a"})), True, id="dataclass"),
        pytest.param(
            Helpers(shapes={"a": "x", "b": "y"}),
            Helpers(shapes={"b": "y", "a": "x"}),
            False,
            id="a dataclass whose dict iterates in another order",
        ),
    ],
)
def test_same_is_equality_with_types_and_order(a: object, b: object, expected: bool) -> None:
    assert same(a, b) is expected


def test_a_fresh_mutable_answer_is_kept_as_answered() -> None:
    reading, asked = asking(_book("load"), (Helpers,))
    answer = reading.get(Helpers).names()
    answer.append("save")  # after the rules read it: not what they were told
    assert asked.holds_under(_book("load"))
    assert not asked.holds_under(_book("load", "save"))


# -- whole runs ------------------------------------------------------------------------------

HELPERS = """\
def collect(order: dict[str, str]) -> list[str]:
    warnings: list[str] = []
    if not order:
        warnings.append("BLOCK: no such order")
    return warnings
"""
# The same helper, returning plain lines: no warnings reach the files that call it.
PLAIN_HELPERS = """\
def collect(order: dict[str, str]) -> list[str]:
    lines: list[str] = []
    if not order:
        lines.append("no such order")
    return lines
"""
# Spells no warning: a gather round learns that ``cancel`` returns ``collect``'s warnings.
ORDERS = """\
from helpers import collect


def cancel(order: dict[str, str]) -> list[str]:
    return collect(order)
"""
# Analysed from the first round (``blocked`` takes warnings) and in the second (``collect``'s
# facts change), before any round knows what ``cancel`` returns: the third must not take
# the second's analysis, whose answer about ``cancel`` is out of date.
CALLS = """\
from helpers import collect
from orders import cancel


def count(order: dict[str, str]) -> int:
    return len(collect(order))


def blocked(warnings: list[str]) -> bool:
    return bool(warnings)


def first(order: dict[str, str]) -> str:
    found = cancel(order)
    return found[0] if found else ""
"""
SHOWS = """\
from calls import first


def show(order: dict[str, str]) -> str:
    text = first(order)
    return text.upper()
"""


def _project(root: Path, helpers: str) -> Path:
    files = {"helpers.py": helpers, "orders.py": ORDERS, "calls.py": CALLS, "shows.py": SHOWS}
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def _check(root: Path) -> str:
    """``check``'s JSON report of ``root``, as printed."""
    result = CliRunner().invoke(
        main, ["check", str(root), "-j", "1", "--no-cache", "--output-format", "json"]
    )
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def _findings(root: Path) -> list[tuple[str, int, str]]:
    found = json.loads(_check(root))
    return sorted((Path(f["path"]).name, f["line"], f["code"]) for f in found)


@pytest.fixture
def analyses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The path of every analysis the run makes (a reused one makes none)."""
    seen: list[str] = []
    real = engine.analyze

    def counting(*args: object, **kwargs: object) -> object:
        seen.append(str(kwargs.get("path")))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "analyze", counting)
    return seen


def _never_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Asked, "holds_under", lambda self, book: False)


def test_check_reports_what_a_run_without_reuse_reports(
    tmp_path: Path, analyses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path, HELPERS)
    reused = _check(root)
    with_reuse = len(analyses)
    analyses.clear()
    _never_reused(monkeypatch)
    assert reused == _check(root)
    assert with_reuse < len(analyses), "no analysis was reused: the test proves nothing"


def test_a_helper_that_changes_still_changes_the_files_that_ask_about_it(tmp_path: Path) -> None:
    (tmp_path / "warned").mkdir()
    (tmp_path / "plain").mkdir()
    warned = _findings(_project(tmp_path / "warned", HELPERS))
    plain = _findings(_project(tmp_path / "plain", PLAIN_HELPERS))
    # ``calls.py`` spells no warning: what it reports comes from ``cancel``'s facts, which
    # come from ``note``'s in another file, learnt in a later round.
    assert ("calls.py", 15, "UNS201") in warned
    assert ("calls.py", 15, "UNS201") not in plain


def test_plan_rewrites_as_a_run_without_reuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path, HELPERS)
    result = CliRunner().invoke(main, ["plan", str(root), "-j", "1", "--format", "json"])
    _never_reused(monkeypatch)
    again = CliRunner().invoke(main, ["plan", str(root), "-j", "1", "--format", "json"])
    assert result.stdout == again.stdout


def _diff(root: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["diff", str(root), "-j", "1"])
    return result.exit_code, result.stdout


def test_a_rewrite_is_built_from_the_last_rounds_analysis_where_it_holds(
    tmp_path: Path, analyses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path, HELPERS)
    reused = _diff(root)
    with_reuse = Counter(Path(path).name for path in analyses)
    analyses.clear()
    _never_reused(monkeypatch)
    assert reused == _diff(root)
    assert reused[0] == 1 and "+++ " in reused[1], "nothing rewritten: the test proves nothing"
    afresh = Counter(Path(path).name for path in analyses)
    # helpers.py changes: its last pass took the last round's analysis, so the rules ran
    # once fewer over it (the fixed-point run over its output is an analysis of its own).
    assert with_reuse["helpers.py"] == afresh["helpers.py"] - 1


def test_a_rewrite_whose_edits_were_told_something_else_is_built_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The edit builders ask the facts while they build, after the record was tested: the
    record is tested again once the rewrite is built, and where an answer changed (here:
    made to, for every rewrite built from a gather round's analysis) the file is analysed
    and rewritten afresh."""
    root = _project(tmp_path, HELPERS)
    expected = _diff(root)
    built: list[Any] = []  # the contexts whose edits were applied
    reusing: list[bool] = []  # inside a rewrite from a gather round's analysis, built yet?
    thrown: list[bool] = []  # one per rewrite built from a gather round's analysis
    real_apply, real_holds = engine.apply_edits, Asked.holds_under
    real_rewritten_from = engine.Pipeline._rewritten_from

    def apply(*args: Any, **kwargs: Any) -> Any:
        built.append(args[0])
        if reusing:
            reusing[-1] = True
        return real_apply(*args, **kwargs)

    def holds(self: Asked, book: FactBook) -> bool:
        return real_holds(self, book) and not (reusing and reusing[-1])

    def rewritten_from(*args: Any) -> Any:
        reusing.append(False)
        try:
            return real_rewritten_from(*args)
        finally:
            if reusing.pop():
                thrown.append(True)

    monkeypatch.setattr(engine, "apply_edits", apply)
    monkeypatch.setattr(Asked, "holds_under", holds)
    monkeypatch.setattr(engine.Pipeline, "_rewritten_from", rewritten_from)
    assert _diff(root) == expected
    assert thrown, "no rewrite came from a gather round's analysis: the test proves nothing"
    # Each rewrite built from a gather round's analysis was built again, afresh.
    assert len(built) == len({context.path for context in built}) + len(thrown)


# -- the first round is told what the bytes say -------------------------------------------

# An error dict producer: the facts learn of it in the first round.
API = """\
def fetch(item: str) -> dict[str, object]:
    if not item:
        return {"success": False, "error": "missing item"}
    return {"success": True, "item": item}
"""
# Calls no producer and asks about no helper: what it asks (a message's code, a call it
# keeps the result of) the first round answers as the last pass does.
ALONE = """\
class Reply:
    warnings: list[str]


def build(order: dict[str, str], reply: Reply) -> None:
    total = len(order)
    if not total:
        reply.warnings.append("BLOCK: the order has no lines")
"""


def test_a_file_asking_nothing_the_rounds_learn_is_analysed_once(
    tmp_path: Path, analyses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first gather round is told what every file's bytes say (with the gathered flag
    the last pass has), and its questions are narrow: whether the repository has any error
    producer is not one (each callee is asked about), nor the code settled for a message
    whose own words name it. Its analysis is the last pass's."""
    (tmp_path / "api.py").write_text(API, encoding="utf-8")
    (tmp_path / "alone.py").write_text(ALONE, encoding="utf-8")
    reused = _check(tmp_path)
    assert "UNS501" in reused and "UNS101" in reused, "the rules found nothing: proves nothing"
    once = Counter(Path(path).name for path in analyses)
    assert once["alone.py"] == 1
    analyses.clear()
    _never_reused(monkeypatch)
    assert reused == _check(tmp_path)
