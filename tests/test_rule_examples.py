"""Every rule's VALID / INVALID examples, run as tests (Fixit and ruff style).

valid: unchanged and not reported (a note for review is allowed); invalid: reported, and
rewritten to exactly ``after`` (or left alone when ``after`` is None); ``after`` is a fixed
point. Each example holds for its rule alone and -- what a user runs -- for the whole rule
set; an example marked ``alone`` (with the reason) must really differ under the whole set,
so a mark that has gone stale fails too.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import pytest

from unsentinel.core.config import Config
from unsentinel.core.model import Site
from unsentinel.core.rule import Example, Rule
from unsentinel.registry import ALL_RULES, configured, rewrite_source

SECTIONS = ("What it does", "Why", "Example", "Use instead", "Fix safety")


def _cases(kind: str, *, whole_set: bool | None = None) -> list[object]:
    """``whole_set``: only the examples that hold (True) or are marked to differ (False)
    under the whole rule set; None: all of them."""
    return [
        pytest.param(rule, example, id=f"{rule.code} {example.id or index}")
        for rule in ALL_RULES
        for index, example in enumerate(getattr(rule, kind))
        if whole_set is None or whole_set is not bool(example.alone)
    ]


def _config(example: Example) -> Config:
    return configured(**example.config)


def _after(example: Example) -> str:
    return example.expected if example.expected is not None else example.source


def _is_reported(rule: type[Rule], sites: Sequence[Site]) -> bool:
    return any(s.rule == rule.code for s in sites)


def _is_a_finding(rule: type[Rule], sites: Sequence[Site]) -> bool:
    # A look-alike may be *noted* for review in plan (Action.NOTE), never reported.
    return any(s.rule == rule.code and s.action.is_finding for s in sites)


def _whole_set(example: Example) -> tuple[str, list[Site]]:
    return rewrite_source(example.source, _config(example))


# -- each rule alone -----------------------------------------------------------------------


@pytest.mark.parametrize(("rule", "example"), _cases("VALID"))
def test_valid_example_is_left_alone(rule: type[Rule], example: Example) -> None:
    new, sites = rewrite_source(example.source, _config(example), rules=[rule])
    assert new == example.source
    assert not _is_a_finding(rule, sites)


@pytest.mark.parametrize(("rule", "example"), _cases("INVALID"))
def test_invalid_example_is_reported_and_rewritten(rule: type[Rule], example: Example) -> None:
    new, sites = rewrite_source(example.source, _config(example), rules=[rule])
    assert _is_reported(rule, sites)
    assert new == _after(example)


@pytest.mark.parametrize(("rule", "example"), _cases("INVALID"))
def test_after_is_a_fixed_point_of_its_rule(rule: type[Rule], example: Example) -> None:
    after = _after(example)
    again, _ = rewrite_source(after, _config(example), rules=[rule])
    assert again == after


# -- the whole rule set, as a user runs it ---------------------------------------------------


@pytest.mark.parametrize(("rule", "example"), _cases("VALID", whole_set=True))
def test_valid_example_is_left_alone_by_the_whole_rule_set(
    rule: type[Rule], example: Example
) -> None:
    new, sites = _whole_set(example)
    assert new == example.source
    assert not _is_a_finding(rule, sites)


@pytest.mark.parametrize(("rule", "example"), _cases("INVALID", whole_set=True))
def test_invalid_example_holds_under_the_whole_rule_set(rule: type[Rule], example: Example) -> None:
    new, sites = _whole_set(example)
    assert _is_reported(rule, sites)
    assert new == _after(example)


@pytest.mark.parametrize(("rule", "example"), _cases("INVALID", whole_set=True))
def test_after_is_a_fixed_point_of_the_whole_rule_set(rule: type[Rule], example: Example) -> None:
    after = _after(example)
    again, _ = rewrite_source(after, _config(example))
    assert again == after


@pytest.mark.parametrize(
    ("rule", "example"), [*_cases("VALID", whole_set=False), *_cases("INVALID", whole_set=False)]
)
def test_example_marked_alone_differs_under_the_whole_rule_set(
    rule: type[Rule], example: Example
) -> None:
    new, sites = _whole_set(example)
    if example in rule.VALID:
        holds = new == example.source and not _is_a_finding(rule, sites)
    else:
        holds = new == _after(example) and _is_reported(rule, sites)
    assert not holds, f"stale mark, the whole rule set agrees: {example.alone}"


# -- documentation ---------------------------------------------------------------------------


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_rule_documents_itself(rule: type[Rule]) -> None:
    """The rule's own docstring feeds docs/rules.md; its module's says one line."""
    doc = rule.__dict__.get("__doc__") or ""
    for section in SECTIONS:
        assert f"\n    {section}\n" in doc, f"{rule.code} lacks a {section!r} section"
    assert rule.INVALID, f"{rule.code} has no INVALID example"
    module_doc = sys.modules[rule.__module__].__doc__ or ""
    assert "What it does" not in module_doc, f"{rule.code}: move the docs to the class"


# Examples are read in docs/rules.md: a case that needs more lines is a multi-file or
# snapshot case (tests/test_migration_shapes.py, tests/test_flow_groups.py), not an example.
MAX_EXAMPLE_LINES = 20  # one screen, imports included


@pytest.mark.parametrize(("rule", "example"), _cases("VALID") + _cases("INVALID"))
def test_example_is_short_enough_to_read_in_the_docs(rule: type[Rule], example: Example) -> None:
    for text in (example.source, example.expected or ""):
        assert len(text.splitlines()) <= MAX_EXAMPLE_LINES, f"{rule.code}: move it to a test file"
