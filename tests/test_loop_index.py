"""A loop over an input list that keeps no index gets one when a warning inside names an item.

``for tool in tools:`` with ``f"Tool {tool.name} has no title"`` inside: the path of the item
needs an index, so the rewrite enumerates the loop (``warnings/loop_index.py``). Only a plain
``for`` over the input itself is changed, once, and a second run finds nothing to do.
"""

from __future__ import annotations

import textwrap

import pytest

from unsentinel.core.config import Config
from unsentinel.registry import rewrite_source


def _rewrite(source: str) -> str:
    new, _sites = rewrite_source(textwrap.dedent(source).lstrip("\n"), Config())
    return new


CHECKS_TOOLS = """
def check_tools(tools: list) -> list[str]:
    warnings: list[str] = []
    for tool in tools:
        if not tool.title:
            warnings.append(f"Tool {tool.name} needs a title")
        if len(tool.name) > 64:
            warnings.append(f"Tool {tool.name} has a name over 64 characters")
    return warnings
"""


def test_a_loop_whose_item_a_warning_names_is_enumerated_once() -> None:
    new = _rewrite(CHECKS_TOOLS)
    assert "    for i, tool in enumerate(tools):\n" in new
    assert new.count("enumerate(") == 1
    assert 'field_path=f"tools[{i}].name"' in new


def test_the_enumerated_loop_is_a_fixed_point() -> None:
    once = _rewrite(CHECKS_TOOLS)
    assert _rewrite(once) == once


def test_an_index_name_the_module_uses_is_never_taken() -> None:
    source = CHECKS_TOOLS.replace("list[str]:\n", "list[str]:\n    i = index = 0\n", 1)
    new = _rewrite(source)
    assert "    for idx, tool in enumerate(tools):\n" in new
    assert 'field_path=f"tools[{idx}].name"' in new


@pytest.mark.parametrize(
    ("loop", "why"),
    [
        ("for tool in sorted(tools):", "positions of a sorted copy are not the input's"),
        ("for tool in tools[1:]:", "positions of a slice are shifted"),
        ("for tool in filter(None, tools):", "a filter drops items"),
        ("for tool, extra in zip(tools, extras):", "two names are bound"),
    ],
)
def test_a_loop_not_over_the_input_itself_keeps_its_header(loop: str, why: str) -> None:
    new = _rewrite(CHECKS_TOOLS.replace("for tool in tools:", loop))
    assert loop in new, why
    assert "enumerate(" not in new


def test_an_async_loop_keeps_its_header() -> None:
    source = CHECKS_TOOLS.replace("def check_tools", "async def check_tools").replace(
        "for tool in tools:", "async for tool in tools:"
    )
    new = _rewrite(source)
    assert "async for tool in tools:" in new
    assert "enumerate(" not in new


def test_a_path_through_an_index_the_rewrite_adds_is_flagged_for_review() -> None:
    """The index is the tool's, not the author's: the item it points at is worth a look
    (on the labelled set, a helper's ``request_rows`` was the caller's ``request.rows``)."""
    _new, sites = rewrite_source(textwrap.dedent(CHECKS_TOOLS).lstrip("\n"), Config())
    [first, _second] = [s.field_path for s in sites if s.field_path is not None]
    assert first is not None
    # "Tool {tool.name} needs a title" under ``if not tool.title:``: the name only says
    # which tool, the title is what is missing.
    assert first.value == "tools[{i}].title"
    assert first.confidence.value == "low"
    assert "the rewrite gives it one (enumerate)" in first.reason
