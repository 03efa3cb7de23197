"""Codes name a situation: no filler words, one code across rephrasings, old codes kept.

Hand-written messages only (issue 13, item 4): each case is a general signal, not a name
taken from a labelled package.
"""

from __future__ import annotations

import pytest

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
