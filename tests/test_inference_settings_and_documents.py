"""Field paths around settings, models and chains of cases (issue 13), on hand-written code.

A message that names a setting by its environment name ("SHOP_URL") is about that field
of the settings model, even where the condition reads a value the model computes from it;
an ``if``/``elif``/``else`` chain appending in every arm only picks the words; a name the
message quotes as code is the field where no input is in sight; and a value a model
computes (a property) is no field of it.
"""

from __future__ import annotations

from pathlib import Path

from projects import planned_field_paths

SETTINGS = """
from pydantic_settings import BaseSettings


class ShopSettings(BaseSettings):
    shop_url: str | None = None
    shop_region: str | None = None
    retry_limit: int = 3

    @property
    def resolved_url(self) -> str:
        return (self.shop_url or "").rstrip("/")


def check_settings(settings: ShopSettings) -> list[str]:
    warnings = []
    if settings.resolved_url.startswith("http:"):
        warnings.append("Plain: SHOP_URL must use https.")
    if not settings.resolved_url:
        warnings.append("Either: SHOP_URL or SHOP_REGION must be given.")
    if settings.resolved_url.endswith(".test"):
        warnings.append("Unnamed: the shop address points at a test host.")
    return warnings
"""


def test_a_message_naming_a_setting_the_condition_reads_through_a_property(
    tmp_path: Path,
) -> None:
    found = planned_field_paths(tmp_path, SETTINGS)
    assert found["Plain:"] == "shop_url"
    assert found["Either:"] is None  # two settings named: neither is the one
    assert found["Unnamed:"] is None  # no setting named: nothing to say


CHAINS = """
def route_notes(kind, parcel):
    warnings = []
    if parcel.weight > 30:
        if kind == "air":
            warnings.append("Air: heavy parcels fly as cargo.")
        elif kind == "sea":
            warnings.append("Sea: heavy parcels need a pallet.")
        else:
            warnings.append("Road: heavy parcels need a lift.")
    if kind == "air":
        warnings.append("Fly: air is checked.")
    elif kind == "sea":
        warnings.append("Sail: sea is checked.")
    return warnings
"""


def test_an_elif_chain_that_appends_in_every_arm_only_picks_the_words(tmp_path: Path) -> None:
    """Every arm, the final ``else`` too, appends: a warning is made whatever ``kind`` is,
    and the case only chose the diagnosis. The test that decides is the one outside."""
    found = planned_field_paths(tmp_path, CHAINS)
    assert found["Air:"] == found["Sea:"] == found["Road:"] == "parcel.weight"
    assert found["Fly:"] == found["Sail:"] == "kind"  # no final else: the case decides


QUOTED = """
def check_upload(name, client):
    warnings = []
    meta = client.fetch_metadata(name)
    if not meta.get("summary"):
        warnings.append("Summary: `long_summary` missing.")
    if meta.get("stale"):
        warnings.append("Stale: run `refresh_all` first.")
    return warnings


def refresh_all():
    return None
"""


def test_a_name_the_message_quotes_as_code_is_the_field_when_no_input_is(
    tmp_path: Path,
) -> None:
    """The metadata a service returned is state the analysis cannot follow; the author
    quoted the field's name, so that is the path (low). A function of the module quoted
    as code is an instruction to run it, no field."""
    found = planned_field_paths(tmp_path, QUOTED)
    assert found["Summary:"] == "long_summary"
    assert found["Stale:"] is None


COMPUTED = """
from dataclasses import dataclass


@dataclass
class Bundle:
    name: str
    sizes: list[int]

    @property
    def total(self) -> int:
        return sum(self.sizes)


def check_bundle(bundle: Bundle) -> list[str]:
    warnings = []
    if bundle.total > 100:
        warnings.append(f"Heavy: the bundle weighs {bundle.total}.")
    if not bundle.name:
        warnings.append("Nameless: the bundle has no name.")
    return warnings
"""


def test_a_value_a_model_computes_is_no_field(tmp_path: Path) -> None:
    """``bundle.total`` is a property: no model declares it, so it is computed from
    fields the analysis cannot name, not an input the caller set."""
    found = planned_field_paths(tmp_path, COMPUTED)
    assert found["Heavy:"] is None
    assert found["Nameless:"] == "name"
