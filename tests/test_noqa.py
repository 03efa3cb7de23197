"""``# noqa`` comments silence a site on their line, as in ruff."""

from __future__ import annotations

import pytest

from unsentinel.registry import rewrite_source


@pytest.mark.parametrize(
    ("line", "silenced"),
    [
        pytest.param('log.info("BLOCK: shown to operators")  # noqa', True, id="bare noqa"),
        pytest.param('log.info("BLOCK: shown")  # noqa: UNS001', True, id="the site's code"),
        pytest.param(
            'log.info("BLOCK: shown")  # noqa: E501, UNS001', True, id="among other codes"
        ),
        pytest.param('log.info("BLOCK: shown")  # noqa: UNS002', False, id="another code"),
        pytest.param('log.info("BLOCK: shown")  # a comment', False, id="no noqa"),
    ],
)
def test_noqa_silences_a_finding(line: str, silenced: bool) -> None:
    _, sites = rewrite_source(line + "\n")
    assert (sites == []) is silenced


def test_noqa_also_keeps_the_rewrite_away() -> None:
    source = 'warnings = []\nwarnings.append("BLOCK: keep as text")  # noqa: UNS101\n'
    new, sites = rewrite_source(source)
    assert new == source
    assert sites == []
