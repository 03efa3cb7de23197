"""Field paths through lookups, choices and wording tests (issue 13, item 3), on
hand-written code.

A mapping that indexes an input list's items by a key hands out those items; a local
that picks between a service's answer and a literal is still the service's answer; and a
word a wording-only ``if``/``else`` put into the message names a mode, not the culprit.
"""

from __future__ import annotations

import pytest
from projects import planned_field_paths

SOURCE = """
from dataclasses import dataclass


@dataclass
class Fix:
    slot: int
    parts: list[int]


@dataclass
class PackRequest:
    fixes: list[Fix]
    late_by: int
    confirmed: bool


def _parts_of(stored, chosen):
    return chosen.parts if chosen is not None else stored.parts


def _bin_warnings(stored_bins, fixes):
    warnings = []
    by_slot = {f.slot: f for f in fixes}
    for stored in stored_bins:
        chosen = by_slot.get(stored.slot)
        parts = _parts_of(stored, chosen)
        if not parts:
            warnings.append(f"empty bin {stored.slot} has no parts")
    return warnings


def _tag_warnings(wanted):
    warnings = []
    if len(made_tags()) != wanted:
        warnings.append("short tag run came back from the printer")
    return warnings


def _late_warnings(late_by, confirmed):
    warnings = []
    if late_by <= 3:
        return warnings
    if confirmed:
        warnings.append(f"noted (confirmed): the stamp is {late_by} minutes late")
    else:
        warnings.append(f"BLOCK: the stamp is {late_by} minutes late")
    return warnings


async def pack(request: PackRequest, api) -> list[str]:
    stored = await api.get_bins()
    warnings = _bin_warnings(stored.bins, request.fixes)
    box = await api.make_box()
    size = box.size
    wanted = size if size else 1
    warnings += _tag_warnings(wanted)
    warnings += _late_warnings(request.late_by, request.confirmed)
    return warnings


def made_tags() -> list[str]:
    return []
"""


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """First word of the message -> the field path the plan infers for it."""
    return planned_field_paths(tmp_path_factory.mktemp("lookups"), SOURCE)


def test_the_run_reads_the_tmp_project(paths: dict[str, object]) -> None:
    assert set(paths) == {"empty", "short", "noted", "BLOCK:"}


def test_an_item_looked_up_in_an_index_of_an_input_list_is_that_lists(
    paths: dict[str, object],
) -> None:
    """``by_slot = {f.slot: f for f in fixes}``, ``by_slot.get(stored.slot)``: the value is
    one of ``fixes``' own items (which one, the key says, not a position: no index)."""
    assert paths["empty"] == "fixes"


def test_a_choice_between_a_services_answer_and_a_literal_is_state(
    paths: dict[str, object],
) -> None:
    """``wanted = size if size else 1`` of a box the service made: the helper's ``wanted``
    is the service's state, not an input, and a test of it names no field."""
    assert paths["short"] is None


def test_a_mode_the_wording_test_puts_into_the_message_is_no_culprit(
    paths: dict[str, object],
) -> None:
    """``if confirmed:`` only picks how the warning reads; "(confirmed)" says the mode. The
    warning is about the lateness it shows, in both wordings."""
    assert paths["noted"] == "late_by"
    assert paths["BLOCK:"] == "late_by"
