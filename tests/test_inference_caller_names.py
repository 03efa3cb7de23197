"""A helper's parameter under its caller's name (issue 13, item 3), on hand-written code.

The field path names what the operation's caller handed in: a private helper given
``request.rows`` as ``request_rows`` reports about ``rows``. A helper called with
different values, or with a value computed in the caller, keeps its parameter's name.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import planned_field_paths

from unsentinel import Mode, load_config, run
from unsentinel.output.plan import plan_document

SOURCE = """
from dataclasses import dataclass


@dataclass
class Row:
    sku: str
    quantity: int


@dataclass
class ShipRequest:
    rows: list[Row]
    note: str
    carrier: str


def _row_warnings(request_rows: list[Row], limit: int) -> list[str]:
    warnings = []
    for i, row in enumerate(request_rows):
        if row.quantity > limit:
            warnings.append(f"quantity {row.quantity} over {limit}")
    if not request_rows:
        warnings.append("request_rows is empty")
    return warnings


def _note_warnings(text: str) -> list[str]:
    warnings = []
    if len(text) > 10:
        warnings.append(f"generic text {text} is long")
    return warnings


def _zone_warnings(zone: str) -> list[str]:
    warnings = []
    if not zone:
        warnings.append("part zone is empty")
    return warnings


def _carrier_warnings(carrier_code: str) -> list[str]:
    warnings = []
    if carrier_code not in ("ups", "dhl"):
        warnings.append(f"computed carrier_code {carrier_code} is unknown")
    return warnings


def ship(request: ShipRequest, other: str, address) -> list[str]:  # a plain input
    warnings = _row_warnings(request_rows=request.rows or [], limit=5)
    warnings += _note_warnings(request.note)
    warnings += _note_warnings(other)
    warnings += _carrier_warnings(request.carrier.lower())
    warnings += _zone_warnings(address.zone)
    return warnings
"""


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """First word of the message -> the field path the plan infers for it."""
    return planned_field_paths(tmp_path_factory.mktemp("callers"), SOURCE)


def test_the_run_reads_the_tmp_project(paths: dict[str, object]) -> None:
    assert set(paths) == {"quantity", "request_rows", "generic", "computed", "part"}


def test_a_parameter_given_one_field_of_the_request_takes_its_name(
    paths: dict[str, object],
) -> None:
    """``request_rows=request.rows or []``: the loop's items are the request's rows, and a
    message naming ``request_rows`` names ``rows``."""
    assert paths["quantity"] == "rows[{i}].quantity"
    assert paths["request_rows"] == "rows"


def test_a_helper_called_with_different_values_keeps_its_parameter(
    paths: dict[str, object],
) -> None:
    assert paths["generic"] == "text"


def test_a_value_the_caller_computed_is_not_its_field(paths: dict[str, object]) -> None:
    """``request.carrier.lower()`` is made from ``carrier``, not ``carrier`` itself."""
    assert paths["computed"] == "carrier_code"


def test_a_part_of_a_plain_input_leaves_the_helper_its_own_name(
    paths: dict[str, object],
) -> None:
    """``_zone_warnings(address.zone)``: ``zone`` says it better than ``address.zone``."""
    assert paths["part"] == "zone"


STATE_SOURCE = """
async def _order_warnings(order_rows, limit, label):
    warnings = []
    for row in order_rows:
        if row.quantity > limit:
            warnings.append(f"quantity {row.quantity} of {label} over {limit}")
        if not row.sku:
            warnings.append(f"Row of {label} is incomplete")
    if not order_rows:
        warnings.append(f"order_rows of {label} is empty")
    warnings.append(f"Checked {label}")
    return warnings


async def ship(order_id: int, limit: int, api) -> list[str]:
    order = await api.get_order(order_id)
    rows = order.rows or []
    return await _order_warnings(rows, limit, unwrap(order.number, "?"))


async def ship_twice(order_id: int, limit: int, api, rows) -> list[str]:
    return await _row_warnings(rows, limit) + await _row_warnings(
        (await api.get_order(order_id)).rows, limit
    )


class Shipper:
    async def _cleaned(self, rows):
        return [row for row in rows if row]

    async def ship(self, order_rows) -> list[str]:
        cleaned = await self._cleaned(order_rows)
        return await _own_rows_warnings(cleaned)


async def _own_rows_warnings(own_rows):
    warnings = []
    if len(own_rows) > 3:
        warnings.append(f"Too many: {own_rows}")
    return warnings


async def _row_warnings(order_rows, limit):
    warnings = []
    if not order_rows:
        warnings.append("mixed order_rows is empty")
    return warnings
"""


@pytest.fixture(scope="module")
def state_sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """First word of the message -> the plan's site for it."""
    root: Path = tmp_path_factory.mktemp("state")
    (root / "pyproject.toml").write_text('[tool.unsentinel]\nwarning-list-names = ["warnings"]\n')
    (root / "m.py").write_text(STATE_SOURCE)
    result = run([root], load_config((root,)), Mode.PLAN)
    lines = STATE_SOURCE.splitlines()
    found: dict[str, dict[str, object]] = {}
    for site in plan_document(result.results)["sites"]:
        if site["kind"] == "producer":
            text = lines[int(str(site["line"])) - 1].split('"', 1)[1]
            found[text.split(" ")[0]] = site
    return found


def test_a_parameter_every_caller_fills_with_a_services_answer_is_state(
    state_sites: dict[str, dict[str, object]],
) -> None:
    """``rows = order.rows`` of ``order = await api.get_order(order_id)``: the helper's
    rows are the order the service holds; a test of one of them, or the order's number
    shown, reports state. ``limit``, handed in by the caller's own caller, stays an input."""
    assert state_sites["Row"]["field_path"] is None
    assert state_sites["Checked"]["field_path"] is None
    assert state_sites["quantity"]["field_path"] == "limit"


def test_state_the_message_names_and_the_condition_tests_is_what_it_is_about(
    state_sites: dict[str, dict[str, object]],
) -> None:
    """ "order_rows ... is empty" under ``if not order_rows:``: both signals say the rows,
    wherever they came from. Low: the callers' state disagrees."""
    site = state_sites["order_rows"]
    assert site["field_path"] == "order_rows"
    assert site["confidence"] == {**site["confidence"], "field_path": "low"}  # type: ignore[dict-item]
    assert any("fills it with state" in reason for reason in site["reasons"])  # type: ignore[attr-defined]


def test_a_parameter_one_caller_fills_with_its_input_stays_an_input(
    state_sites: dict[str, dict[str, object]],
) -> None:
    assert state_sites["mixed"]["field_path"] == "order_rows"


def test_what_a_method_of_self_hands_back_when_awaited_is_no_state(
    state_sites: dict[str, dict[str, object]],
) -> None:
    """``await self._cleaned(order_rows)`` is the object's own code at work on its input."""
    assert state_sites["Too"]["field_path"] == "own_rows"
