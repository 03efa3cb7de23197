"""Field paths through derived locals (issue 13, item 3), on hand-written code.

A local computed from one input stands for that input; a loop over an alias of an input
list is a loop over the list; two inputs feeding one local tie, and name neither.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from projects import planned_field_paths

from unsentinel import Mode, load_config, run
from unsentinel.core.model import Confidence
from unsentinel.warnings.inference.derived import derivation_sources, element_sources
from unsentinel.warnings.inference.field_path import infer_field_path, spelled_path

SOURCE = """
from dataclasses import dataclass


@dataclass
class Line:
    code: str
    amount: int
    price: int


@dataclass
class QuoteRequest:
    items: list[Line]
    surcharges: list[Line]
    payment_kind: str
    links: list[str]
    tags: str


def normalize(text: str) -> str:
    return text.strip().upper()


def quote(request: QuoteRequest, limit: int) -> list[str]:
    warnings = []
    for i, item in enumerate(request.items):
        code = normalize(item.code)
        if code not in KNOWN:
            warnings.append(f"unknown code {code}")
        total = item.price * limit
        if total > 100:
            warnings.append(f"total {total} is high")
    charges = request.surcharges
    for n, charge in enumerate(charges, 1):
        if charge.amount < 0:
            warnings.append(f"surcharge {n} is negative: {charge.amount}")
    kind = request.payment_kind or "card"
    if kind not in ("card", "invoice"):
        warnings.append(f"payment kind {kind} is not supported")
    order = fetch_order(request.payment_kind)
    if order.status == "closed":
        warnings.append(f"closed order {order.status}")
    for row in fetch_rows(request.items):
        warnings.append(f"fetched {row.code}")
    free = [c for c in request.surcharges if c.amount == 0]
    if free:
        warnings.append(f"zero surcharges: {len(free)}")
    stamp = stamp_of(stamp)  # a name derived from itself: the analysis must not loop
    warnings.append(f"stamped {stamp}")
    return warnings


def resolve(code: str) -> tuple[str, str | None]:
    return code.upper(), None


def unpack(request: QuoteRequest, client: object) -> list[str]:
    warnings = []
    for i, item in enumerate(request.items):
        code, issue = resolve(item.code)
        if code not in KNOWN:
            warnings.append(f"unpacked {code} is unknown")
    for n, entry in enumerate(request.links):
        name, url = entry.split(",", 1)
        url = url.strip()
        if not url.startswith("https://"):
            warnings.append(f"reassigned {url} is not https")
    for part in request.tags.split(","):
        if part not in KNOWN:
            warnings.append(f"split {part} is unknown")
    stock = client.stock_of(request.payment_kind)
    if stock < 1:
        warnings.append(f"stock {stock} is low")
    found = resolve(request.payment_kind)
    if not found:
        warnings.append("empty lookup")
    if (kind := normalize(request.payment_kind)) not in KNOWN:
        warnings.append(f"walrus {kind} is unknown")
    label = request.payment_kind
    if not label:
        label = "card"
    warnings.append(f"labelled {label} is odd")
    return warnings


def check_fees(fees: list[Line]) -> list[str]:
    warnings = []
    for idx, fee in enumerate(fees, start=1):
        if fee.amount < 0:
            warnings.append(f"spelled shipping_fees[{idx}].amount ({fee.amount}) is negative")
    if len(fees) > 9:
        warnings.append(f"literal shipping_fees[9] is the last one: cut {fees[9:]}")
    return warnings


def stamp_of(value: object) -> str:
    return str(value)


def fetch_order(kind: str) -> Line:
    return Line(kind, 0, 0)


def fetch_rows(items: list[Line]) -> list[Line]:
    return items


KNOWN = {"A"}
"""


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Message start -> the field path the plan infers for it."""
    return planned_field_paths(tmp_path_factory.mktemp("derived"), SOURCE)


def test_a_local_computed_from_one_input_points_at_the_input(paths: dict[str, object]) -> None:
    assert paths["unknown"] == "items[{i}].code"


def test_a_loop_over_an_alias_points_at_the_list_with_a_zero_based_index(
    paths: dict[str, object],
) -> None:
    assert paths["surcharge"] == "surcharges[{n - 1}].amount"


def test_a_default_keeps_the_input(paths: dict[str, object]) -> None:
    assert paths["payment"] == "payment_kind"


def test_a_filtered_input_list_is_still_that_list(paths: dict[str, object]) -> None:
    """``free = [c for c in request.surcharges if ...]`` keeps the input's own items."""
    assert paths["zero"] == "surcharges"


def test_two_inputs_feeding_one_local_tie_and_name_neither(paths: dict[str, object]) -> None:
    assert paths["total"] is None


def test_a_local_derived_from_itself_names_none(paths: dict[str, object]) -> None:
    assert paths["stamped"] is None


@pytest.mark.parametrize(
    ("value", "sources"),
    [
        pytest.param("request.surcharges", ["request.surcharges"], id="alias"),
        pytest.param("normalize(item.code)", ["item.code"], id="call"),
        pytest.param("item.code.strip().upper()", ["item.code"], id="method"),
        pytest.param("request.kind or 'card'", ["request.kind"], id="default"),
        pytest.param("await fetch(order.id)", ["order.id"], id="await"),
        pytest.param("lookup(session, line.sku)", ["session", "line.sku"], id="every argument"),
        pytest.param("[c for c in request.items if c.price]", ["request.items"], id="a filter"),
        pytest.param("(c for c in xs or [])", ["xs"], id="a filtering generator"),
        pytest.param("[c.code for c in request.items]", [], id="a mapping computes"),
        pytest.param("{c.code: c for c in request.items}", ["request.items"], id="an index"),
        pytest.param("{c.code: c.price for c in request.items}", [], id="a table computes"),
        pytest.param("actual if actual else 1", ["actual"], id="a choice with a default"),
        pytest.param("a.kind if flag else b.kind", ["a.kind", "b.kind"], id="a choice of two"),
        pytest.param("[c for r in rows for c in r.items]", [], id="two loops"),
        pytest.param("price * quantity", [], id="arithmetic is no derivation"),
        pytest.param("destination.split()[0].upper()", ["destination"], id="a part"),
        pytest.param("mo['order_no']", [], id="a record read by key is state"),
        pytest.param("metadata.get('description')", ["metadata.description"], id="a key read"),
        pytest.param("metadata.get('package-mode')", ["metadata"], id="a key no field"),
        pytest.param("'text'", [], id="a literal"),
    ],
)
def test_derivation_sources(value: str, sources: list[str]) -> None:
    expr = cst.parse_expression(value)
    module = cst.Module([])
    assert [module.code_for_node(s.expr) for s in derivation_sources(expr)] == sources


@pytest.mark.parametrize(
    ("value", "computed"),
    [
        pytest.param("request.surcharges", False, id="an alias has the input's fields"),
        pytest.param("request.kind or 'card'", False, id="so does a default"),
        pytest.param("fetch(order_id)", True, id="a call's result has none"),
    ],
)
def test_a_computed_value_has_no_fields_of_the_input(value: str, computed: bool) -> None:
    [source] = derivation_sources(cst.parse_expression(value))
    assert source.computed is computed


@pytest.mark.parametrize(
    ("value", "sources"),
    [
        pytest.param("resolve(store, line.sku)", ["store", "line.sku"], id="a call's element"),
        pytest.param("(left.strip(), right.strip())", ["left", "right"], id="a literal tuple"),
        pytest.param("parts", ["parts"], id="a name's element"),
    ],
)
def test_an_element_has_none_of_the_fields_of_the_whole(value: str, sources: list[str]) -> None:
    found = element_sources(cst.parse_expression(value))
    assert [cst.Module([]).code_for_node(s.expr) for s in found] == sources
    assert all(s.computed for s in found)


def test_a_field_of_a_fetched_record_is_state(paths: dict[str, object]) -> None:
    """``order = fetch_order(request.x)``: ``order.status`` is the record's, not an input."""
    assert paths["closed"] is None


def test_a_loop_over_a_call_is_no_loop_over_the_input(paths: dict[str, object]) -> None:
    assert paths["fetched"] is None


def test_the_run_reads_the_tmp_project(paths: dict[str, object]) -> None:
    expected = {"unknown", "total", "surcharge", "payment", "stamped", "closed", "fetched", "zero"}
    unpacking = {"unpacked", "reassigned", "split", "stock", "empty", "walrus", "labelled"}
    assert set(paths) == expected | unpacking | {"spelled", "literal"}


def test_a_name_unpacked_from_a_call_on_an_input_points_at_the_input(
    paths: dict[str, object],
) -> None:
    """``code, issue = resolve(item.code)``: each name is one element of what the call
    made from ``item.code``."""
    assert paths["unpacked"] == "items[{i}].code"


def test_a_name_reassigned_from_itself_keeps_its_input(paths: dict[str, object]) -> None:
    """``name, url = entry.split(",", 1)`` then ``url = url.strip()``: still the entry's."""
    assert paths["reassigned"] == "links[{n}]"


def test_a_loop_over_a_value_computed_from_an_input_walks_that_input(
    paths: dict[str, object],
) -> None:
    """``for part in request.tags.split(",")``: each part is a piece of ``tags`` (no index:
    the positions are the split's, not the input's)."""
    assert paths["split"] == "tags"


def test_what_plumbing_answers_is_state_not_the_input(paths: dict[str, object]) -> None:
    """``stock = client.stock_of(request.payment_kind)``: the stock is the service's."""
    assert paths["stock"] is None


def test_a_guard_on_a_value_computed_from_an_input_points_at_the_input(
    paths: dict[str, object],
) -> None:
    """``found = resolve(request.payment_kind)``, ``if not found:``: the local stands for
    the input it was made from (a call on plumbing would be the service's state)."""
    assert paths["empty"] == "payment_kind"


def test_a_name_confirmed_only_through_a_computed_value_is_low() -> None:
    """``values`` named, but the condition tests ``value`` of ``(fields or {}).items()``
    of an element of ``values``: a call stands between the two signals."""
    found = infer_field_path(["values"], [], ["values"], text="values", through_element=["values"])
    assert (found.value, found.confidence) == ("values", Confidence.LOW)
    confirmed = infer_field_path(["values"], [], ["values"], text="values")
    assert confirmed.confidence == Confidence.HIGH


def test_a_walrus_binds_a_derived_local(paths: dict[str, object]) -> None:
    assert paths["walrus"] == "payment_kind"


def test_a_literal_default_keeps_the_input(paths: dict[str, object]) -> None:
    """``label = request.payment_kind``, then ``label = "card"`` when it is empty."""
    assert paths["labelled"] == "payment_kind"


def test_a_path_the_message_writes_out_is_the_field_path(paths: dict[str, object]) -> None:
    """The author named the culprit: ``shipping_fees[{idx}].amount`` with a 1-based
    counter is item ``idx - 1`` of ``shipping_fees``, though the parameter is ``fees``."""
    assert paths["spelled"] == "shipping_fees[{idx - 1}].amount"
    assert paths["literal"] == "shipping_fees[9]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rows[0].sku is missing", "rows[0].sku"),
        ("list[str] is not a path", None),  # no index: a type, not a field
        ("see the docs[1]", "docs[1]"),
        ("a.rows[0] inside a dotted name", None),
        ("nothing spelled", None),
    ],
)
def test_spelled_path(text: str, expected: str | None) -> None:
    assert spelled_path([text], lambda index: "i") == expected


def test_a_tie_goes_to_the_input_the_message_names_in_part() -> None:
    found = infer_field_path(
        [], [], ["order_id", "payment_kind"], text="payment kind {} is not supported"
    )
    assert (found.value, found.confidence) == ("payment_kind", Confidence.LOW)


def test_a_tie_nothing_breaks_keeps_the_last_guard_and_is_low() -> None:
    found = infer_field_path([], [], ["order_id", "payment_kind"], text="cannot proceed")
    assert (found.value, found.confidence) == ("payment_kind", Confidence.LOW)
    assert "tie" in found.reason


def test_two_inputs_named_in_part_stay_a_tie() -> None:
    found = infer_field_path(
        [], ["unit_price", "list_price"], [], text="price {} is above the price {}"
    )
    assert found.value == "unit_price"
    assert "tie" in found.reason


def test_a_spelled_path_gives_way_to_one_that_refines_it() -> None:
    found = infer_field_path(
        ["rows[{i}].purchase_order_row_id"],
        [],
        ["rows[{i}].purchase_order_row_id"],
        text="rows[{}]: purchase_order_row_id={} is not on the order",
        spelled="rows[{i}]",
    )
    assert found.value == "rows[{i}].purchase_order_row_id"


def test_a_tested_input_the_message_says_beats_a_shown_label() -> None:
    """``if not tool.title:`` "{tool.name}: missing title": the name says which tool."""
    found = infer_field_path([], ["tools[{i}].name"], ["tools[{i}].title"], text=": missing title")
    assert (found.value, found.confidence) == ("tools[{i}].title", Confidence.LOW)
    assert found.reason.startswith("said and guarding")


def test_a_tested_input_the_message_says_beats_an_input_it_only_names() -> None:
    """``if not issue_key:`` "missing issue key for attachments"."""
    found = infer_field_path(
        ["attachments"], [], ["issue_key"], text="missing issue key for attachments"
    )
    assert (found.value, found.confidence) == ("issue_key", Confidence.LOW)


def test_a_shown_input_the_condition_tests_still_wins() -> None:
    found = infer_field_path(
        [], ["tools[{i}].name"], ["tools[{i}].name", "tools[{i}].title"], text=": title too long"
    )
    assert found.value == "tools[{i}].name"


def test_a_tested_input_the_message_says_only_in_part_does_not_win() -> None:
    """ "serial" is said, "generate" is not: ``generate_serial_numbers`` is not said."""
    found = infer_field_path(
        [], ["order_number"], ["generate_serial_numbers"], text="needs a serial-tracked product"
    )
    assert found.value == "order_number"


def test_a_named_input_whose_part_the_condition_tests_points_at_the_part() -> None:
    """ "[section.timeout] must be a number" under a test of ``section.timeout``."""
    found = infer_field_path(
        ["section"], [], ["section.timeout"], text="[section.timeout] must be a number"
    )
    assert (found.value, found.confidence) == ("section.timeout", Confidence.LOW)
    assert found.reason.startswith("named and guarding")


def test_of_several_tested_parts_of_a_named_input_only_a_said_one_wins() -> None:
    both = ["section.timeout", "section.retries"]
    said = infer_field_path(["section"], [], both, text="[section] retries must be positive")
    assert said.value == "section.retries"
    unsaid = infer_field_path(["section"], [], both, text="[section] is inconsistent")
    assert unsaid.value == "section"


CONFIG_CHECK = """
def check_section(section: dict, report: dict[str, list[str]]) -> None:
    if (timeout := section.get("timeout")) is not None:
        if not isinstance(timeout, int):
            report["warnings"].append("[section.timeout] must be whole seconds.")
    for mirror in section.get("mirrors", []):
        if mirror.startswith("http://"):
            report["warnings"].append("Plain-HTTP mirrors in [section] are deprecated.")
"""


def test_a_config_section_named_in_the_message_points_at_the_key_tested(tmp_path: Path) -> None:
    """A mapping the function reads by key, named by the message: the key its condition
    tests is the field, and an item of a list under a key gets its index."""
    from unsentinel.output.plan import plan_document

    root = tmp_path
    (root / "pyproject.toml").write_text('[tool.unsentinel]\nwarning-list-names = ["warnings"]\n')
    (root / "m.py").write_text(CONFIG_CHECK)
    result = run([root], load_config((root,)), Mode.PLAN)
    paths = [site["field_path"] for site in plan_document(result.results)["sites"]]
    assert paths == ["section.timeout", "section.mirrors[{i}]"]
