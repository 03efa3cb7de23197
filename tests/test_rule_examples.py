"""Every rule's VALID / INVALID examples, run as tests (Fixit and ruff style).

valid: unchanged and not reported (a note for review is allowed); invalid: reported, and rewritten to exactly ``after`` (or left alone when
``after`` is None); ``after`` is a fixed point of the whole rule set.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from unsentinel.core.config import Config
from unsentinel.core.rule import Example, Rule
from unsentinel.registry import ALL_RULES, rewrite_source


def _cases(kind: str) -> list[object]:
    return [
        pytest.param(rule, example, id=f"{rule.code} {example.id or index}")
        for rule in ALL_RULES
        for index, example in enumerate(getattr(rule, kind))
    ]


def _config(example: Example) -> Config:
    return replace(Config(), **dict(example.config))


@pytest.mark.parametrize(("rule", "example"), _cases("VALID"))
def test_valid_example_is_left_alone(rule: type[Rule], example: Example) -> None:
    new, sites = rewrite_source(example.source, _config(example), rules=[rule])
    assert new == example.source
    # A look-alike may be *noted* for review in plan (Action.NOTE), never reported.
    assert [s for s in sites if s.rule == rule.code and s.action.is_finding] == []


@pytest.mark.parametrize(("rule", "example"), _cases("INVALID"))
def test_invalid_example_is_reported_and_rewritten(rule: type[Rule], example: Example) -> None:
    new, sites = rewrite_source(example.source, _config(example), rules=[rule])
    assert any(s.rule == rule.code for s in sites)
    assert new == (example.expected if example.expected is not None else example.source)


@pytest.mark.parametrize(("rule", "example"), _cases("INVALID"))
def test_after_is_a_fixed_point(rule: type[Rule], example: Example) -> None:
    after = example.expected if example.expected is not None else example.source
    again, _ = rewrite_source(after, _config(example), rules=[rule])
    assert again == after


def test_every_rule_documents_itself() -> None:
    import sys

    for rule in ALL_RULES:
        doc = sys.modules[rule.__module__].__doc__ or ""
        for section in ("What it does", "Why", "Example", "Fix safety"):
            assert section in doc, f"{rule.code} lacks a {section!r} section"
        assert rule.INVALID, f"{rule.code} has no INVALID example"
