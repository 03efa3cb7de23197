"""Integer literals in any spelling Python allows (``0o600``, ``0x1``, ``4_04``).

Found by running ``plan`` over our own tests: ``int(node.value)`` on LibCST's raw token text
raised on ``0o600`` and took the whole file down with an internal error. Every rule that
reads a number reads its value, never its spelling.
"""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from unsentinel.errors.shapes import status_value
from unsentinel.registry import rewrite_source

STATUS_TEST = """
    def test_mode(tmp_path):
        result = {"error": "denied"}
        assert result["error"]
        assert tmp_path.stat().st_mode == 0o600
"""
ERROR_STATUS = """
    def handler():
        return {"error": "not found", "status": 0x194}
"""
ENUMERATE_START = """
    BLOCK_WARNING_PREFIX = "BLOCK:"

    def check(request, warnings: list[str]) -> None:
        for n, row in enumerate(request.rows, start=0x1):
            if not row.sku:
                warnings.append(f"{BLOCK_WARNING_PREFIX} row {n} has no sku")
"""


@pytest.mark.parametrize(
    "source",
    [STATUS_TEST, ERROR_STATUS, ENUMERATE_START],
    ids=["octal-status-comparison", "hex-status-in-error-dict", "hex-enumerate-start"],
)
def test_a_number_in_another_base_is_read_by_value(source: str) -> None:
    new, sites = rewrite_source(textwrap.dedent(source).lstrip("\n"))
    assert new  # no internal error: the rewrite ran to the end
    assert all(site.rule.startswith("UNS") for site in sites)


@pytest.mark.parametrize("spelling", ["404", "0x194", "0o624", "4_04"])
def test_a_status_is_read_by_value_in_any_base(spelling: str) -> None:
    assert status_value(cst.parse_expression(spelling)) == 404


def test_a_hex_enumerate_start_gives_a_zero_based_path() -> None:
    _, sites = rewrite_source(textwrap.dedent(ENUMERATE_START).lstrip("\n"))
    paths = {site.field_path.value for site in sites if site.field_path is not None}
    assert paths == {"rows[{n - 1}].sku"}
