"""Table-driven tests for the pure inference functions, and for inference in context."""

from __future__ import annotations

import ast
import json
import os
import shutil
from pathlib import Path

import pytest

from unsentinel import Mode, load_config, run
from unsentinel.core.model import Confidence
from unsentinel.core.config import Config
from unsentinel.warnings.inference.code import (
    GENERIC_ENTITY_NOUNS,
    Template,
    assign_codes,
    entity_nouns,
    slug_for,
)
from unsentinel.warnings.inference.field_path import infer_field_path
from unsentinel.warnings.inference.severity import infer_severity

FIXTURES = Path(__file__).parent.parent / "fixtures"
INFO = ("default", "defaulted", "dry-run", "dry run", "preview", "sandbox", "cache")


# -- severity ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "marker", "marker_severity", "expected"),
    [
        pytest.param(
            "MO {} is already completed.",
            "BLOCK:",
            "blocking",
            "blocking",
            id="sentinel means blocking",
        ),
        pytest.param(
            "over-receipt accepted",
            "NOTE (overridden):",
            "advisory",
            "advisory",
            id="configured marker",
        ),
        pytest.param(
            "MO {} is blocked - review before completing",
            None,
            None,
            "advisory",
            id="plain is advisory",
        ),
        pytest.param(
            "No location given; defaulted to primary location",
            None,
            None,
            "info",
            id="auto-selected default",
        ),
        pytest.param(
            "Preview only - no stock has been moved", None, None, "info", id="operating mode"
        ),
        pytest.param("dry run: 3 orders would be released", None, None, "info", id="dry run"),
        pytest.param(
            "the defaultdict is empty",
            None,
            None,
            "advisory",
            id="keyword inside a word does not count",
        ),
    ],
)
def test_severity(
    message: str, marker: str | None, marker_severity: str | None, expected: str
) -> None:
    assert infer_severity(message, marker, marker_severity, INFO).value == expected


# -- field_path --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mentioned", "interpolated", "guarding", "severity", "expected", "confidence"),
    [
        pytest.param(
            ["serial_numbers", "actual_quantity"],
            [],
            [],
            "blocking",
            "serial_numbers",
            "high",
            id="the subject of the message wins",
        ),
        pytest.param(
            [],
            ["destination_location_id"],
            [],
            "blocking",
            "destination_location_id",
            "high",
            id="one interpolated input",
        ),
        pytest.param(
            [],
            ["quantity", "sku"],
            [],
            "blocking",
            "quantity",
            "low",
            id="several interpolated inputs are flagged",
        ),
        pytest.param([], [], ["rows"], "blocking", "rows", "high", id="the guarding condition"),
        pytest.param(
            [],
            [],
            ["source_location_id", "destination_location_id"],
            "blocking",
            "destination_location_id",
            "low",
            id="a comparison of two inputs is flagged",
        ),
        pytest.param([], [], [], "blocking", None, "high", id="state-driven"),
        pytest.param(
            ["location_id"], [], [], "info", None, "high", id="info warnings have no culprit"
        ),
        pytest.param(
            ["rows[{i}].sales_order_row_id"],
            [],
            [],
            "blocking",
            "rows[{i}].sales_order_row_id",
            "high",
            id="indexed path",
        ),
    ],
)
def test_field_path(
    mentioned: list[str],
    interpolated: list[str],
    guarding: list[str],
    severity: str,
    expected: str | None,
    confidence: str,
) -> None:
    inferred = infer_field_path(mentioned, interpolated, guarding, severity=severity)
    assert (inferred.value, inferred.confidence.value) == (expected, confidence)


def test_field_path_without_a_loop_index_is_flagged() -> None:
    inferred = infer_field_path([], ["rows"], [], severity="blocking", unindexed_loop=True)
    assert inferred.confidence is Confidence.LOW
    assert "index" in inferred.reason


# -- code --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "slug"),
    [
        pytest.param(
            "MO {} is already completed. No further action will mark it DONE again.",
            "already_completed",
            id="first sentence, entity noun dropped",
        ),
        pytest.param(
            "Sales order {} has no rows to fulfill.", "no_rows_fulfill", id="stop-words dropped"
        ),
        pytest.param("wave has no orders", "wave_no_orders", id="a negated entity noun stays"),
        pytest.param(
            "Row {}: sales_order_row_id={} does not belong to {}.",
            "sales_order_row_id_not_belong",
            id="a label clause is skipped",
        ),
        pytest.param("dry run: {} order(s) would be released", "dry_run", id="parentheses dropped"),
        pytest.param(
            "Source and destination are the same location",
            "source_destination_same_location",
            id="at most four words",
        ),
    ],
)
def test_code_slug(template: str, slug: str) -> None:
    assert slug_for(template, nouns=ORDER_NOUNS) == slug


ORDER_NOUNS = GENERIC_ENTITY_NOUNS | {"mo", "po", "order", "orders", "sales"}  # a project's own


def test_domain_nouns_come_from_configuration() -> None:
    template = "MO {} is already completed."
    assert slug_for(template) == "mo_already_completed"  # no order-domain words built in
    assert (
        slug_for(template, nouns=entity_nouns(Config(entity_nouns=("MO",)))) == "already_completed"
    )


@pytest.mark.parametrize(
    ("template", "slug"),
    [
        pytest.param("Café {} is closed", "cafe_closed", id="accents keep their letter"),
        pytest.param("Größe {} überschritten", "grosse_uberschritten", id="umlauts and sharp s"),
    ],
)
def test_codes_keep_non_ascii_letters_sensibly(template: str, slug: str) -> None:
    assert slug_for(template) == slug


def test_shared_template_shares_a_code_and_different_templates_never_do() -> None:
    templates = [
        Template("Not enough {} at {}: need {}", ""),
        Template("Not enough {} at {}: need {}", ""),
        Template("Not enough {} at {} for this MO: need {}, have {}", ""),
    ]
    codes, values = assign_codes(templates)
    assert len(codes) == 2
    assert len(set(codes.values())) == 2
    assert all(name.isupper() for name in codes.values())
    assert set(values) == set(codes.values())


def test_code_assignment_is_deterministic_and_keeps_human_names() -> None:
    templates = [
        Template("MO {} is already completed.", ""),
        Template("PO {} is already completed.", ""),
    ]
    first, _ = assign_codes(templates, nouns=ORDER_NOUNS)
    second, _ = assign_codes(list(reversed(templates)), nouns=ORDER_NOUNS)
    assert first == second
    renamed, values = assign_codes(templates, {"MO_DONE": "already_completed"}, ORDER_NOUNS)
    assert "MO_DONE" in renamed.values()
    assert values["MO_DONE"] == "already_completed"


# -- in context: the proposal's call-site table, on the fixture ----------------------------

CALL_SITE_TABLE = {
    # code in the proposal: (severity, field_path) it prescribes
    "already_completed": ("blocking", None),
    "blocked_status": ("advisory", None),
    "serial_qty_not_integer": ("blocking", "actual_quantity"),
    "serial_numbers_required": ("blocking", "serial_numbers"),
    "serial_count_mismatch": ("blocking", "serial_numbers"),
    "unknown_row_id": ("blocking", "rows[{i}].sales_order_row_id"),
    "duplicate_row_overrides": ("blocking", "rows"),
    "same_source_destination": ("blocking", "destination_location_id"),
    "empty_order": ("blocking", None),
}


def _plan_sites(
    fixture: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, list[dict[str, object]]]:
    copy = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, copy)
    monkeypatch.chdir(copy)
    from unsentinel.output.plan import plan_document

    result = run([Path(".")], load_config((Path("."),)), Mode.PLAN)
    return copy, plan_document(result.results)["sites"]


def _site_for(
    root: Path, sites: list[dict[str, object]], expected: dict[str, str]
) -> dict[str, object]:
    """The one producer site that builds the message the needle is taken from.

    Either the site's own lines hold the needle, or the needle is in the value of a local
    (``core = (f"...")``) and the site is the one producer of that file that reads the local.
    Nothing else counts: a site that merely comes next in the file is not the one.
    """
    source = (root / expected["file"]).read_text(encoding="utf-8")
    lines = source.splitlines()
    needle_lines = [i for i, line in enumerate(lines, 1) if expected["needle"] in line]
    assert len(needle_lines) == 1, f"needle {expected['needle']!r} is not unique: {needle_lines}"
    [needle_line] = needle_lines
    producers = [
        s
        for s in sites
        if s["kind"] == "producer"
        and os.path.normpath(str(s["path"])) == os.path.normpath(expected["file"])
    ]
    covering = [s for s in producers if _span(s).start <= needle_line < _span(s).stop]
    if covering:
        assert len(covering) == 1, (expected["needle"], covering)
        return covering[0]
    [local] = [
        node.targets[0].id
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.lineno <= needle_line <= (node.end_lineno or node.lineno)
    ]
    readers = {
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id == local
    }
    [site] = [s for s in producers if readers & set(_span(s))]
    return site


def _span(site: dict[str, object]) -> range:
    return range(int(str(site["line"])), int(str(site["end_line"])) + 1)


def test_every_row_of_the_call_site_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, sites = _plan_sites("mcp_orders", tmp_path, monkeypatch)
    expected_sites = json.loads((root / "expected_sites.json").read_text())
    rows: dict[str, dict[str, str]] = {}
    for entry in expected_sites:  # the first site with a table code is the table's row
        if entry["code"] in CALL_SITE_TABLE:
            rows.setdefault(entry["code"], entry)
    assert set(rows) == set(CALL_SITE_TABLE), "the fixture covers every row of the table"
    for code, (severity, field_path) in CALL_SITE_TABLE.items():
        site = _site_for(root, sites, rows[code])
        assert (site["severity"], site["field_path"]) == (severity, field_path), code
        assert site["code"], code


@pytest.mark.parametrize(
    ("fixture", "minimum"),
    [
        pytest.param("mcp_orders", 0.9, id="mcp_orders"),
        pytest.param("fulfillment_svc", 0.65, id="fulfillment_svc"),
    ],
)
def test_inference_agrees_with_the_fixture_authors(
    fixture: str,
    minimum: float,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A quality measure, not a tuning target: the fixture authors wrote down what they expect
    independently. Disagreements are printed; each must be either right or flagged low."""
    root, sites = _plan_sites(fixture, tmp_path, monkeypatch)
    expected_sites = json.loads((root / "expected_sites.json").read_text())
    agreed = 0
    for expected in expected_sites:
        site = _site_for(root, sites, expected)
        severity_ok = (
            " if " in str(site["severity"])
            if expected["severity"] == "conditional"
            else site["severity"] == expected["severity"]
        )
        if severity_ok and site["field_path"] == expected["field_path"]:
            agreed += 1
        else:
            print(
                f"disagree: {expected['needle']!r}: {site['severity']}/{site['field_path']} vs {expected['severity']}/{expected['field_path']}"
            )
    with capsys.disabled():
        print(
            f"\n{fixture}: inference agrees with the authors on {agreed}/{len(expected_sites)} sites"
        )
    assert agreed / len(expected_sites) >= minimum
