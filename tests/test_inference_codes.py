"""Codes name a situation: no filler words, one code across rephrasings, old codes kept.

Hand-written messages only (issue 13, item 4): each case is a general signal, not a name
taken from a labelled package.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from unsentinel.core.model import Mode
from unsentinel.registry import load_config, run
from unsentinel.warnings.inference.code import (
    Template,
    assign_codes,
    situation_key,
    slug_for,
)


@pytest.mark.parametrize(
    ("template", "slug"),
    [
        pytest.param("Quantity must be positive, got {}", "quantity_positive", id="got"),
        pytest.param("PO {} is fully received", "po_fully_received", id="received stays"),
        pytest.param("SKU {} appears more than once", "sku_duplicate", id="more than once"),
        pytest.param("Coupon {} was given twice", "coupon_duplicate", id="twice"),
        pytest.param("Tag {} is repeated", "tag_duplicate", id="repeated"),
        pytest.param("Lane {} used multiple times", "lane_duplicate", id="multiple times"),
        pytest.param("No delivery date specified", "delivery_date_missing", id="no ... specified"),
        pytest.param("No name for label {}", "name_label_missing", id="an opening no"),
        pytest.param("Carton has no lid", "carton_no_lid", id="no inside the clause stays"),
        pytest.param("No stock has been moved", "no_stock_moved", id="no with a verb stays"),
        pytest.param("no records returned for {}", "no_records_returned", id="an event stays"),
        pytest.param("No match found", "no_match_found", id="found is an event"),
        pytest.param("Label {} longer than 32 characters", "label_too_long", id="longer than"),
        pytest.param("{}: title exceeds 64 characters", "title_too_long", id="exceeds a length"),
        pytest.param("API_TOKEN environment variable is required", "api_token_required", id="env"),
        pytest.param("Invalid depot code {}", "depot_code_invalid", id="subject, then condition"),
        pytest.param("Missing label for crate {}", "label_crate_missing", id="missing moves"),
        pytest.param(
            "Unknown carrier zone {} in tariff {} table", "carrier_zone_tariff_unknown", id="kept"
        ),
        pytest.param("Not enough pallets", "not_enough_pallets", id="a negation stays"),
        pytest.param("Already shipped: {}", "already_shipped", id="already stays"),
        pytest.param(
            "HUB_URL is required when relay mode is on", "hub_url_required", id="when clause"
        ),
        pytest.param(
            "Crate {} is blocked because customs hold it", "crate_blocked", id="because clause"
        ),
        pytest.param(
            "Weight must be positive if declared", "weight_positive_declared", id="no condition"
        ),
        pytest.param(
            "Scanner is not paired or not charged",
            "scanner_not_paired_charged",
            id="a repeated word",
        ),
    ],
)
def test_filler_words_and_idioms_leave_the_situation(template: str, slug: str) -> None:
    assert slug_for(template) == slug


def test_more_keeps_its_meaning_outside_the_idiom() -> None:
    assert slug_for("Basket holds more than {} lines") == "basket_holds_more_lines"


def test_rephrasings_of_one_situation_share_a_code() -> None:
    templates = [
        Template("Quantity must be positive, got {}", ""),
        Template("{} quantity must be positive", ""),
        Template("quantity must be positive: {}", ""),
    ]
    codes, values = assign_codes(templates)
    assert set(codes.values()) == {"QUANTITY_POSITIVE"}
    assert values == {"QUANTITY_POSITIVE": "quantity_positive"}


def test_different_situations_about_one_subject_keep_their_own_codes() -> None:
    templates = [
        Template("Quantity must be positive, got {}", ""),
        Template("Quantity must be a whole number, got {}", ""),
    ]
    codes, _ = assign_codes(templates)
    assert len(set(codes.values())) == 2


def test_one_situation_with_different_advice_shares_a_code() -> None:
    """The first sentence says what is wrong; later ones advise (a flag that overrides, a
    consequence): "(acknowledged)" and "Pass force=true to override" are one situation."""
    templates = [
        Template("WARNING (acknowledged): Pick date {} is before pack date {}. Stock dips.", ""),
        Template(
            "Pick date {} is before pack date {}. Stock dips. Pass force=true to override.", ""
        ),
    ]
    codes, _ = assign_codes(templates)
    assert len(set(codes.values())) == 1


def test_two_situations_told_apart_within_the_sentence_keep_two_codes() -> None:
    templates = [
        Template("Invalid value {}: must be positive. Fix the row.", ""),
        Template("Invalid value {}: must be a number. Fix the row.", ""),
    ]
    codes, _ = assign_codes(templates)
    assert len(set(codes.values())) == 2


def test_an_existing_code_wins_even_when_the_slug_lost_a_filler_word() -> None:
    """A re-run after the slug rules changed keeps the constant the module already has."""
    existing = {"QTY_NOT_POSITIVE": "quantity_positive_got"}
    codes, values = assign_codes([Template("Quantity must be positive, got {}", "")], existing)
    assert codes == {"Quantity must be positive, got {}": "QTY_NOT_POSITIVE"}
    assert values == existing


def test_situation_key_ignores_order_plural_and_filler() -> None:
    assert situation_key(["positive_quantities_got"]) == situation_key(["quantity", "positive"])
    assert situation_key(["address_missing"]) != situation_key(["address_invalid"])


def test_one_setting_required_for_different_features_is_one_situation() -> None:
    """What needs the setting says when it is required, not what is wrong."""
    templates = [
        Template("HUB_URL is required when relay mode is on.", ""),
        Template("HUB_URL is required if tracking is enabled.", ""),
    ]
    codes, values = assign_codes(templates)
    assert set(codes.values()) == {"HUB_URL_REQUIRED"}
    assert values == {"HUB_URL_REQUIRED": "hub_url_required"}


def test_not_valid_and_invalid_are_one_condition() -> None:
    """A message that says "invalid" twice ("Invalid {} code {} is not a valid EAN") is
    the situation its shorter rephrasing names: one code, not a second one grown from
    the repeated word."""
    templates = [
        Template("Invalid {} code {} is not a valid EAN.", ""),
        Template("{} code {} is not a valid EAN", ""),
    ]
    codes, values = assign_codes(templates)
    assert set(codes.values()) == {"CODE_EAN_INVALID"}
    assert values == {"CODE_EAN_INVALID": "code_ean_invalid"}


@pytest.mark.parametrize(
    "template",
    [
        "Could not fetch price lists: {}",
        "Failed to fetch price lists: {}",
        "Unable to fetch price lists",
        "Cannot fetch price lists ({})",
        "couldn't fetch price lists",
    ],
)
def test_a_failed_action_names_its_object_then_the_action(template: str) -> None:
    assert slug_for(template) == "price_lists_fetch_failed"


def test_a_failed_action_on_a_value_alone_is_the_action_failed() -> None:
    assert slug_for("Could not fetch {}") == slug_for("Failed to fetch: {}") == "fetch_failed"
    assert slug_for("Could not be parsed: {}") == "not_parsed"  # no action named


def test_rephrasings_of_a_failed_action_share_a_code() -> None:
    templates = [
        Template("Could not fetch price lists: {}", ""),
        Template("Failed to fetch price lists for {}", ""),
        Template("Fetching price lists failed: {}", ""),
    ]
    codes, values = assign_codes(templates)
    assert set(codes.values()) == {"PRICE_LISTS_FETCH_FAILED"}
    assert values == {"PRICE_LISTS_FETCH_FAILED": "price_lists_fetch_failed"}


def test_expected_to_be_is_the_subject_not_being_it() -> None:
    assert slug_for("Expected depth to be a number, got {}") == "depth_not_number"
    assert slug_for("Expected {} to be a list") == "not_list"
    codes, _ = assign_codes(
        [Template("Expected depth to be a number, got {}", ""), Template("depth not a number", "")]
    )
    assert len(set(codes.values())) == 1


def test_does_not_exist_is_missing() -> None:
    assert slug_for("Manifest file does not exist: {}") == "manifest_file_missing"
    codes, _ = assign_codes(
        [Template("Manifest file does not exist: {}", ""), Template("Manifest file is missing", "")]
    )
    assert len(set(codes.values())) == 1


@pytest.mark.parametrize(
    ("template", "slug"),
    [
        pytest.param("shelf layout: aisle {} not found.", "aisle_not_found", id="label"),
        pytest.param("shelf layout: bay {} is unknown", "bay_unknown", id="label, condition"),
        pytest.param("crate-size: {} is not one of [S, M]", "crate_size", id="label is subject"),
        pytest.param("Invalid depot code: {}", "depot_code_invalid", id="condition first"),
    ],
)
def test_a_label_before_a_colon_gives_way_to_the_clause_that_says_what_is_wrong(
    template: str, slug: str
) -> None:
    assert slug_for(template) == slug


DIFFERENT_SITUATIONS = [
    "Deadline missing for {}",
    "Deadline missed for {}",
    "Feature {} disabled",
    "Feature {} enabled",
    "Price {} is not valid",
    "Price {} is not positive",
    "Could not fetch price lists: {}",
    "Could not parse price lists: {}",
    "shelf layout: aisle {} not found.",
    "shelf layout: bay {} not found.",
    "{} value is not a valid EAN",
    "{} value is not a valid UPC",
    "Manifest file does not exist: {}",
    "Manifest file is empty",
    "Crate {} exceeds the weight limit",
    "Crate {} exceeds the height limit",
    "Mode {} is locked",
    "Mod {} is locked",
    "Plane {} not ready",
    "Plan {} not ready",
    "Add tags: {}",
    "Added tags: {}",
    "called by: {}",
    "calls: {}",
]


def test_different_situations_never_share_a_code_and_codes_are_stable() -> None:
    templates = [Template(text, "") for text in DIFFERENT_SITUATIONS]
    codes, values = assign_codes(templates)
    assert len(set(codes.values())) == len(DIFFERENT_SITUATIONS)
    assert all(name.isidentifier() and value.isidentifier() for name, value in values.items())
    again, _ = assign_codes(list(reversed(templates)))
    assert again == codes


@pytest.mark.parametrize(
    ("existing", "template"),
    [
        pytest.param({"SKU_BAD": "sku_not_valid"}, "SKU {} is not valid", id="not valid"),
        pytest.param(
            {"PRICES_UNFETCHED": "not_fetch_price_lists"},
            "Could not fetch price lists: {}",
            id="failed action",
        ),
        pytest.param(
            {"NO_MANIFEST": "manifest_file_not_exist"},
            "Manifest file does not exist: {}",
            id="does not exist",
        ),
    ],
)
def test_a_code_minted_before_a_rewording_rule_still_wins(
    existing: dict[str, str], template: str
) -> None:
    """A re-run after these rules changed a slug keeps the constant the module has."""
    codes, values = assign_codes([Template(template, "")], existing)
    assert codes == {template: next(iter(existing))}
    assert values == existing


def test_inflections_of_one_word_are_one_situation() -> None:
    templates = [
        Template("Exporting the ledger failed: {}", ""),
        Template("Ledger export failed", ""),
        Template("Tag {} duplicated", ""),
        Template("Duplicate tag {}", ""),
    ]
    codes, _ = assign_codes(templates)
    assert codes["Exporting the ledger failed: {}"] == codes["Ledger export failed"]
    assert codes["Tag {} duplicated"] == codes["Duplicate tag {}"]
    assert len(set(codes.values())) == 2


@pytest.mark.parametrize(
    ("template", "slug"),
    [
        pytest.param("Found crate containing loose screws", "crate_loose_screws", id="found"),
        pytest.param("Expired voucher detected in {}", "voucher_expired", id="detected"),
        pytest.param("Voucher {} not found", "voucher_not_found", id="an absence stays"),
        pytest.param("No voucher detected", "no_voucher_detected", id="no ... detected stays"),
        pytest.param("Did not find any crates tagged {}", "crates_tagged_not_found", id="did not"),
        pytest.param("Legacy hook detected in `{}.toml`", "legacy_hook", id="file suffix"),
    ],
)
def test_how_a_check_noticed_is_no_part_of_the_situation(template: str, slug: str) -> None:
    assert slug_for(template) == slug


def test_a_rerun_keeps_the_module_s_constant_for_a_reworded_slug(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: a ``warning_codes`` module written before "Could not fetch" read as a
    failed action still names the message; no second constant is minted."""
    (tmp_path / "pyproject.toml").write_text("[tool.unsentinel]\n")
    (tmp_path / "warning_codes.py").write_text('PRICES_UNFETCHED = "not_fetch_price_lists"\n')
    (tmp_path / "prices.py").write_text(
        "def load(shop: str, warnings: list[str]) -> None:\n"
        '    warnings.append(f"Could not fetch price lists: {shop}")\n'
    )
    monkeypatch.chdir(tmp_path)
    result = run([tmp_path], load_config((tmp_path,)), Mode.CHECK, jobs=1, cache=False)
    [found] = [r for r in result.results if r.path == "prices.py"]
    assert [s.code.value for s in found.sites if s.code] == ["PRICES_UNFETCHED"]


def test_settled_codes_name_only_what_a_templates_own_words_would_not(tmp_path: Path) -> None:
    """The facts keep a template's code only where it is not the one its own words name
    (a code a human kept in the module, a template with no words): a first gather round,
    told no codes yet, asks the same question and gets the same answer for the rest."""
    from unsentinel.warnings.facts import WarningFacts
    from unsentinel.warnings.inference.code import entity_nouns, own_code
    from unsentinel.warnings.settings import warning_settings

    (tmp_path / "pyproject.toml").write_text("[tool.unsentinel]\n", encoding="utf-8")
    config = load_config((tmp_path,))
    module = tmp_path / warning_settings(config).codes_module
    module.parent.mkdir(parents=True, exist_ok=True)
    module.write_text('PRICE_NOT_POSITIVE = "price_positive"\n', encoding="utf-8")
    templates = (
        Template("Quantity must be positive, got {}", ""),
        Template("Price must be positive", ""),  # the module's constant names it
        Template("{}", ""),  # no words of its own
    )
    settled = WarningFacts(templates=templates).settle(config)
    assert dict(settled.codes) == {"Price must be positive": "PRICE_NOT_POSITIVE", "{}": "WARNING"}
    # What a site is told is what it was before: the settled code, else its own name.
    expected, _ = assign_codes(templates, {"PRICE_NOT_POSITIVE": "price_positive"})
    nouns = entity_nouns(config)
    for template in templates:
        told = settled.codes.get(template.text) or own_code(template.text, nouns)
        assert told == expected[template.text]
