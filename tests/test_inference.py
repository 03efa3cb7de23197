"""Table-driven tests for the pure inference functions, and for inference in context."""

from __future__ import annotations

import ast
import json
import os
import shutil
from pathlib import Path

import libcst as cst
import pytest

from unsentinel import Mode, load_config, run
from unsentinel.core.model import Confidence, Severity
from unsentinel.registry import configured
from unsentinel.warnings.inference.code import (
    Template,
    assign_codes,
    code_confidence,
    entity_nouns,
    slug_for,
)
from unsentinel.warnings.inference.code_words import GENERIC_ENTITY_NOUNS
from unsentinel.warnings.inference.field_path import attributes_tested, infer_field_path, situates
from unsentinel.warnings.inference.severity import infer_severity
from unsentinel.warnings.inference.structure import Structure

FIXTURES = Path(__file__).parent.parent / "fixtures"
INFO = ("default", "defaulted", "dry-run", "dry run", "preview", "sandbox", "cache")


# -- severity ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "marker", "marker_severity", "expected"),
    [
        pytest.param(
            "MO {} is already completed.",
            "BLOCK:",
            Severity.BLOCKING,
            "blocking",
            id="sentinel means blocking",
        ),
        pytest.param(
            "over-receipt accepted",
            "NOTE (overridden):",
            Severity.ADVISORY,
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
    message: str, marker: str | None, marker_severity: Severity | None, expected: str
) -> None:
    assert infer_severity(message, marker, marker_severity, INFO).value == expected


@pytest.mark.parametrize(
    "message",
    [
        pytest.param(
            "Order saved, but the local cache could not be updated; it shows after the next sync",
            id="cache inside a partial failure",
        ),
        pytest.param(
            "Could not load the previous version; the preview shows only the requested values",
            id="preview inside a degraded result",
        ),
    ],
)
def test_an_incidental_info_word_does_not_make_a_failure_info(message: str) -> None:
    inferred = infer_severity(message, None, None, INFO)
    assert (inferred.value, inferred.confidence) == ("advisory", Confidence.LOW)


@pytest.mark.parametrize(
    ("structure", "expected", "confidence", "signal"),
    [
        pytest.param(Structure(list_name="failed"), "blocking", "high", "list name", id="failed"),
        pytest.param(Structure(list_name="warned"), "advisory", "high", "list name", id="warned"),
        pytest.param(
            Structure(list_name="errors", raised_on=True), "blocking", "high", "raise", id="raise"
        ),
        pytest.param(
            Structure(list_name="warnings", stops_after="raise"),
            "blocking",
            "low",
            "branch",
            id="raises right after",
        ),
        pytest.param(
            Structure(list_name="issues", stops_after="return"),
            "info",
            "low",
            "keyword",
            id="a return right after is not enough (a dry run returns too)",
        ),
        pytest.param(
            Structure(list_name="problems"),
            "info",
            "low",
            "keyword",
            id="problems is not an errors list",
        ),
        pytest.param(
            Structure(list_name="warnings", in_except=True),
            "advisory",
            "low",
            "except",
            id="except branch",
        ),
        pytest.param(Structure(list_name="errors"), "blocking", "low", "list name", id="errors"),
        pytest.param(Structure(list_name="warnings"), "advisory", "low", "fallback", id="none"),
        pytest.param(
            Structure(list_name="probs", function_name="validate_project_urls"),
            "blocking",
            "low",
            "validator",
            id="what a validator collects blocks",
        ),
        pytest.param(
            Structure(list_name="problems", function_name="_validate_readme", in_except=True),
            "blocking",
            "low",
            "validator",
            id="a private validator too, before the except branch",
        ),
        pytest.param(
            Structure(list_name="warnings", function_name="validate_project"),
            "advisory",
            "low",
            "fallback",
            id="a validator's warnings list stays advisory",
        ),
        pytest.param(
            Structure(list_name="out", function_name="__call__", class_name="_SizeCheck"),
            "blocking",
            "low",
            "validator",
            id="what a check class's method collects blocks",
        ),
        pytest.param(
            Structure(list_name="warnings", function_name="run", class_name="UrlValidator"),
            "advisory",
            "low",
            "fallback",
            id="a check class's warnings list stays advisory",
        ),
        pytest.param(
            Structure(list_name="out", function_name="__call__", class_name="CheckRunner"),
            "info",
            "low",
            "keyword",
            id="a class named for running checks is no check",
        ),
        pytest.param(
            Structure(list_name="problems", function_name="invalidate_cache"),
            "info",
            "low",
            "keyword",
            id="invalidate is no validator",
        ),
    ],
)
def test_severity_from_structure(
    structure: Structure, expected: str, confidence: str, signal: str
) -> None:
    """The structure decides before the words; only a verdict list or a raise is high."""
    inferred = infer_severity("the default cache was used", None, None, INFO, structure)
    if signal == "fallback":  # no structural signal: the words decide, low
        expected = "info"
        signal = "keyword"
    assert (inferred.value, inferred.confidence.value) == (expected, confidence)
    assert inferred.reason.startswith(f"{signal}:")


def test_a_marker_beats_the_structure_and_is_high() -> None:
    inferred = infer_severity("x", "BLOCK:", Severity.BLOCKING, INFO, Structure(list_name="warned"))
    assert (inferred.value, inferred.confidence) == ("blocking", Confidence.HIGH)
    assert inferred.reason.startswith("marker:")


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
            "low",
            id="the subject of the message wins",
        ),
        pytest.param(
            [],
            ["destination_location_id"],
            [],
            "blocking",
            "destination_location_id",
            "low",
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
        pytest.param([], [], ["rows"], "blocking", "rows", "low", id="the guarding condition"),
        pytest.param(
            [],
            [],
            ["source_location_id", "destination_location_id"],
            "blocking",
            "destination_location_id",
            "low",
            id="a comparison of two inputs is flagged",
        ),
        pytest.param([], [], [], "blocking", None, "low", id="state-driven"),
        pytest.param(
            ["location_id"], [], [], "info", None, "low", id="info warnings have no culprit"
        ),
        pytest.param(
            ["rows[{i}].sales_order_row_id"],
            [],
            ["rows[{i}].sales_order_row_id"],
            "blocking",
            "rows[{i}].sales_order_row_id",
            "high",
            id="indexed path, named and guarding",
        ),
        pytest.param(
            ["actual_quantity"],
            [],
            ["actual_quantity"],
            "blocking",
            "actual_quantity",
            "high",
            id="named and guarding: the only high signal",
        ),
        pytest.param(
            [],
            ["region", "cluster_name"],
            ["cluster_name"],
            "blocking",
            "cluster_name",
            "low",
            id="interpolated context loses to the guarded input, still low",
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


@pytest.mark.parametrize(
    ("condition", "text", "expected"),
    [
        pytest.param(
            "not settings.dbt_token",
            "DBT_TOKEN environment variable is required",
            "dbt_token",
            id="a setting named in any case",
        ),
        pytest.param(
            "config.api_key and not config.api_url",
            "api_url must be set with api_key",
            None,
            id="two tested settings named: a tie names neither",
        ),
        pytest.param(
            "not settings.actual_host", "DBT_HOST is required", None, id="not the tested field"
        ),
        pytest.param("not job.name", "the name is required", None, id="a plain word is no name"),
        pytest.param(
            "ToolName.TEXT_TO_SQL not in (settings.disable_tools or [])",
            "TEXT_TO_SQL needs a token",
            None,
            id="a class's member is a constant, no setting",
        ),
        pytest.param(
            "snapshot.status == Status.PARTIALLY_RECEIVED.value",
            "PO is PARTIALLY_RECEIVED",
            None,
            id="an enum member's value is a constant too",
        ),
    ],
)
def test_a_setting_the_condition_tests_and_the_message_names(
    condition: str, text: str, expected: str | None
) -> None:
    """No input at all (``settings`` is plumbing): the field the condition reads on it,
    named by the message, is the best there is -- low."""
    tested = attributes_tested(cst.parse_expression(condition))
    inferred = infer_field_path([], [], [], severity="blocking", text=text, tested=tested)
    assert (inferred.value, inferred.confidence) == (expected, Confidence.LOW)


@pytest.mark.parametrize(
    ("before", "expected"),
    [
        pytest.param("Query failed in ", True, id="in a place"),
        pytest.param("Chunk in region ", True, id="in a place named by one noun"),
        pytest.param("stopped at line ", True, id="at a point"),
        pytest.param("Invalid cluster name: ", False, id="the value the message judges"),
        pytest.param("Failed to create folder ", False, id="the object of the failed action"),
        pytest.param("Invalid string in environment marker: ", False, id="in, then a colon"),
        pytest.param("price for ", False, id="for names the subject as often as not"),
    ],
)
def test_a_preposition_of_place_situates_the_value_after_it(before: str, expected: bool) -> None:
    assert situates(before) is expected


def test_a_value_shown_only_as_where_it_arose_is_no_field() -> None:
    """``f"Query failed in {region} ..."`` after a failed call: the region is where the
    query ran, which nothing says was wrong."""
    inferred = infer_field_path([], ["region"], [], text="Query failed in  ", situated=["region"])
    assert (inferred.value, inferred.confidence) == (None, Confidence.LOW)
    assert inferred.reason.startswith("context:")


def test_a_situated_value_the_condition_tests_is_still_the_field() -> None:
    inferred = infer_field_path([], ["zone"], ["zone"], text="no carrier in ", situated=["zone"])
    assert inferred.value == "zone"


def test_a_situated_value_shown_again_elsewhere_is_still_shown() -> None:
    """``f"{region} is closed; retry in {region}-2"``: once it is the subject."""
    inferred = infer_field_path([], ["region", "region"], [], situated=["region"])
    assert inferred.value == "region"


def test_a_situated_value_gives_way_to_the_guarding_input() -> None:
    inferred = infer_field_path([], ["region"], ["query"], situated=["region"])
    assert inferred.value == "query"


def test_an_input_beats_a_named_setting() -> None:
    tested = attributes_tested(cst.parse_expression("not settings.dbt_token"))
    inferred = infer_field_path([], [], ["token"], text="DBT_TOKEN is required", tested=tested)
    assert inferred.value == "token"


def test_an_absent_optional_input_is_the_path_of_an_info_warning() -> None:
    inferred = infer_field_path([], [], [], severity="info", absent="ship_by")
    assert (inferred.value, inferred.confidence) == ("ship_by", Confidence.LOW)
    assert inferred.reason.startswith("guard:")


def test_a_named_and_guarding_input_without_a_loop_index_is_flagged() -> None:
    inferred = infer_field_path(["rows"], [], ["rows"], severity="blocking", unindexed_loop=True)
    assert inferred.confidence is Confidence.LOW
    assert "index" in inferred.reason


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
        pytest.param(
            "Java requires code_unit (the package name).",
            "code_unit_required",
            id="one field and a condition: whose rule it is dropped",
        ),
        pytest.param(
            "Python requires code_unit (the module path).",
            "code_unit_required",
            id="the same situation for another runtime",
        ),
        pytest.param(
            "serial-tracked item with actual_quantity {} that is not a whole number",
            "actual_quantity_not_whole_number",
            id="from the field on",
        ),
        pytest.param("no line_id given", "line_id_missing", id="an opening no says missing"),
    ],
)
def test_code_slug(template: str, slug: str) -> None:
    assert slug_for(template, nouns=ORDER_NOUNS) == slug


ORDER_NOUNS = GENERIC_ENTITY_NOUNS | {"mo", "po", "order", "orders", "sales"}  # a project's own


@pytest.mark.parametrize(
    ("template", "slug"),
    [
        pytest.param("The broker can't complete the request", "broker_cant_complete", id="can't"),
        pytest.param("Katana's current rate is applied", "katana_current_rate_applied", id="'s"),
        pytest.param(
            "Config manifest version value for the release is missing",
            "config_manifest_version_missing",
            id="the condition word is kept",
        ),
    ],
)
def test_codes_keep_contractions_and_condition_words(template: str, slug: str) -> None:
    assert slug_for(template) == slug


@pytest.mark.parametrize(
    ("template", "trusted"),
    [
        pytest.param("Invalid region format: {}", True, id="subject and condition"),
        pytest.param("Query history was capped at {} queries", True, id="capped"),
        pytest.param("The revert merges rows that are identical", False, id="no condition word"),
        pytest.param("Invalid", False, id="one word"),
    ],
)
def test_a_code_is_trusted_only_with_a_condition_word(template: str, trusted: bool) -> None:
    assert (code_confidence(template) is not None) is trusted


def test_domain_nouns_come_from_configuration() -> None:
    template = "MO {} is already completed."
    assert slug_for(template) == "mo_already_completed"  # no order-domain words built in
    assert (
        slug_for(template, nouns=entity_nouns(configured(entity_nouns=("MO",))))
        == "already_completed"
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


def test_one_rule_stated_for_two_runtimes_is_one_situation() -> None:
    """The words before a field and its condition say whose rule it is: "Java requires
    code_unit" and "Python requires code_unit" share a code, and a different field does not."""
    templates = [
        Template("Java requires code_unit (the package name).", ""),
        Template("Python requires code_unit (the module path).", ""),
        Template("Java requires method_name.", ""),
    ]
    codes, _values = assign_codes(templates)
    assert codes[templates[0].text] == codes[templates[1].text] == "CODE_UNIT_REQUIRED"
    assert codes[templates[2].text] == "METHOD_NAME_REQUIRED"


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
        pytest.param("fulfillment_svc", 0.85, id="fulfillment_svc"),
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
            got = f"{site['severity']}/{site['field_path']}"
            want = f"{expected['severity']}/{expected['field_path']}"
            print(f"disagree: {expected['needle']!r}: {got} vs {want}")
    with capsys.disabled():
        total = len(expected_sites)
        print(f"\n{fixture}: inference agrees with the authors on {agreed}/{total} sites")
    assert agreed / len(expected_sites) >= minimum


# -- in context: structure and data flow on a small project --------------------------------

STRUCTURE_SOURCE = """
def build(filter_action: dict, url: str):
    notes = []
    if filter_action.get("forward"):
        notes.append("Forwarding is not applied to existing mail.")
    if url.split("/")[0] == "x":
        notes.append(f"odd scheme in {url.split('/')}")
    errors = []
    if not url:
        errors.append("url missing")
    if errors:
        raise ValueError(errors)
    return notes


def lint(names: list[str]):
    failed = []
    warned = []
    for name in names:
        if not name.isidentifier():
            failed.append(f"{name} is not an identifier")
        elif name.isupper():
            warned.append(f"{name} is all upper case")
    return failed, warned
"""


def test_structure_and_data_flow_in_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.unsentinel]\nwarning-list-names = ["notes", "errors", "failed", "warned"]\n'
    )
    (tmp_path / "m.py").write_text(STRUCTURE_SOURCE)
    monkeypatch.chdir(tmp_path)
    from unsentinel.output.plan import plan_document

    result = run([Path(".")], load_config((Path("."),)), Mode.PLAN)
    sites = {
        s["line"]: s for s in plan_document(result.results)["sites"] if s["kind"] == "producer"
    }

    def values(line: int) -> tuple[object, ...]:
        site = sites[line]
        confidence = site["confidence"]
        assert isinstance(confidence, dict)
        return site["severity"], confidence["severity"], site["field_path"]

    # .get("forward") reads a field; a method call is never a path
    assert values(5) == ("advisory", "low", "filter_action.forward")
    assert values(7)[2] == "url"
    # the function raises on the list: blocking, high; named and guarding: high
    assert values(10) == ("blocking", "high", "url")
    assert sites[10]["confidence"]["field_path"] == "high"
    # verdict lists
    assert values(21)[:2] == ("blocking", "high")
    assert values(23)[:2] == ("advisory", "high")
    # codes are suggestions: always low
    assert all(s["confidence"]["code"] == "low" for s in sites.values())


VALIDATOR_SOURCE = """\
def validate_urls(urls):
    problems = []
    for url in urls:
        if "," not in url:
            problems.append(f"No name for URL {url!r}")
    return problems


def collect_urls(urls):
    problems = []
    for url in urls:
        if "," not in url:
            problems.append(f"No name for URL {url!r}")
    return problems
"""


def test_what_a_validator_collects_blocks_in_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The function's name is the signal: the same body outside a validator stays advisory."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.unsentinel]\nwarning-list-names = ["problems"]\n'
    )
    (tmp_path / "m.py").write_text(VALIDATOR_SOURCE)
    monkeypatch.chdir(tmp_path)
    from unsentinel.output.plan import plan_document

    result = run([Path(".")], load_config((Path("."),)), Mode.PLAN)
    sites = {
        s["line"]: s for s in plan_document(result.results)["sites"] if s["kind"] == "producer"
    }
    assert (sites[5]["severity"], sites[5]["confidence"]["severity"]) == ("blocking", "low")
    assert sites[5]["reasons"][1].startswith("severity: validator:")
    assert sites[13]["severity"] == "advisory"


GUARD_SOURCE = """\
import os


def check_order(rows, weight_grams, output_path, lines):
    warnings = []
    if not rows:
        warnings.append("An order needs at least one row.")
    if len(lines) == 0 or weight_grams <= 0:
        warnings.append("The shipment has no weight.")
    if not os.path.exists(output_path):
        warnings.append("The export could not be written; try again later.")
    if any(line.rate is not None for line in lines):
        warnings.append("Re-created entries may take today's conversion rate.")
    return warnings
"""


def test_a_guard_alone_points_at_an_input_it_tests_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With nothing in the message, only a condition on the input's own value (its truth,
    its size, a comparison) names the culprit. A test through a call (the file system) or
    over the items (the state of each line) is about something else: no field path."""
    (tmp_path / "m.py").write_text(GUARD_SOURCE)
    monkeypatch.chdir(tmp_path)
    from unsentinel.output.plan import plan_document

    result = run([Path(".")], load_config((Path("."),)), Mode.PLAN)
    sites = {s["line"]: s for s in plan_document(result.results)["sites"]}
    assert sites[7]["field_path"] == "rows"
    assert sites[9]["field_path"] == "weight_grams"  # of two, the one the message names
    assert sites[11]["field_path"] is None
    assert sites[13]["field_path"] is None
    assert any(r.startswith("field_path: indirect:") for r in sites[13]["reasons"])


CONTEXT_SOURCE = """\
def run_query(region, sql, fetch):
    warnings = []
    try:
        fetch(sql)
    except OSError as exc:
        warnings.append(f"Query failed in {region}: {exc}")
    if len(sql) > 100:
        warnings.append(f"Too long in {region}")
    if region not in ("eu", "us"):
        warnings.append(f"Unknown region {region}")
    return warnings
"""


def test_a_value_shown_as_where_a_failure_arose_is_no_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The region after "in" is where the query ran: no field, unless the condition tests
    it; the guarding input still wins over it, and a region the message judges stays."""
    (tmp_path / "m.py").write_text(CONTEXT_SOURCE)
    monkeypatch.chdir(tmp_path)
    from unsentinel.output.plan import plan_document

    result = run([Path(".")], load_config((Path("."),)), Mode.PLAN)
    sites = {s["line"]: s for s in plan_document(result.results)["sites"]}
    assert sites[6]["field_path"] is None
    assert any(r.startswith("field_path: context:") for r in sites[6]["reasons"])
    assert sites[8]["field_path"] == "sql"
    assert sites[10]["field_path"] == "region"


@pytest.mark.parametrize(
    ("condition", "tested"),
    [
        pytest.param("not rows", ["rows"], id="truth"),
        pytest.param("len(rows) == 0", ["rows"], id="size"),
        pytest.param("req.qty <= 0 and not req.sku", ["req.qty", "req.sku"], id="and"),
        pytest.param("os.path.exists(path)", [], id="a call"),
        pytest.param("any(r.rate for r in rows)", [], id="over the items"),
        pytest.param("(base / name).exists()", [], id="a method of a computed value"),
        pytest.param("a * b > limit", ["a", "b", "limit"], id="arithmetic"),
        pytest.param('options.get("forward")', ['options.get("forward")'], id="a key read"),
        pytest.param("options.get(name)", [], id="a computed key"),
    ],
)
def test_what_a_condition_tests_as_it_is(condition: str, tested: list[str]) -> None:
    from unsentinel.core.layout import expression_code
    from unsentinel.warnings.guards import tested_directly

    found = tested_directly(cst.parse_expression(condition))
    assert [expression_code(node) for node in found] == tested


def test_the_class_a_warning_is_appended_in_is_read_from_the_code(tmp_path: Path) -> None:
    """``class SizeCheck`` with ``__call__`` collecting ``out``: the method's name says
    nothing, its class says it runs a check, so what it collects fails it (blocking, low).
    Before, nothing in the code said so, and it was advisory."""
    (tmp_path / "pyproject.toml").write_text('[tool.unsentinel]\nwarning-list-names = ["out"]\n')
    (tmp_path / "m.py").write_text(
        "class SizeCheck:\n"
        "    def __call__(self, size: int, limit: int) -> list[str]:\n"
        "        out = []\n"
        "        if size > limit:\n"
        '            out.append(f"Archive of {size} bytes is over the limit")\n'
        "        return out\n"
    )
    from unsentinel.output.plan import plan_document

    result = run([tmp_path], load_config((tmp_path,)), Mode.PLAN)
    (site,) = [s for s in plan_document(result.results)["sites"] if s["kind"] == "producer"]
    assert (site["severity"], site["confidence"]["severity"]) == ("blocking", "low")
