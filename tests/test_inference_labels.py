"""The labelled set of real warnings (benchmarks/inference_labels.toml) is well formed.

No network: this reads the labels file only; the evaluation itself is
``benchmarks/inference.py``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

LABELS = Path(__file__).resolve().parents[1] / "benchmarks" / "inference_labels.toml"
SITE_KEYS = {
    "package",
    "path",
    "line",
    "severity",
    "field_path",
    "code",
    "holdout",
    "sentinel",
    "note",
}
REQUIRED = {"package", "path", "line", "severity", "field_path", "code"}
CODE = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$")
FIELD_PATH = re.compile(r"^$|^[A-Za-z_][\w-]*(\[i\])?(\.[A-Za-z_][\w-]*(\[i\])?)*$")
SHA256 = re.compile(r"^[0-9a-f]{64}$")


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return tomllib.loads(LABELS.read_text(encoding="utf-8"))


def test_packages_are_pinned(document: dict[str, Any]) -> None:
    packages = document["packages"]
    assert len(packages) >= 12
    for package in packages:
        assert set(package) == {"name", "version", "sha256", "list_names"}
        assert SHA256.match(package["sha256"]), package["name"]
        assert package["list_names"] and all(isinstance(n, str) for n in package["list_names"])


def test_sites_have_the_expected_keys_and_values(document: dict[str, Any]) -> None:
    pinned = {f"{p['name']}=={p['version']}" for p in document["packages"]}
    sites = document["sites"]
    assert len(sites) >= 200
    for site in sites:
        assert REQUIRED <= set(site) <= SITE_KEYS, site
        assert site["package"] in pinned
        assert site["severity"] in {"info", "advisory", "blocking"}
        assert isinstance(site["line"], int) and site["line"] >= 1
        assert CODE.match(site["code"]), site["code"]
        assert FIELD_PATH.match(site["field_path"]), site["field_path"]
        assert not Path(site["path"]).is_absolute() and ".." not in Path(site["path"]).parts


def test_every_package_has_sites_and_sites_are_unique(document: dict[str, Any]) -> None:
    sites = document["sites"]
    used = {site["package"] for site in sites}
    assert len(used) >= 12
    assert used == {f"{p['name']}=={p['version']}" for p in document["packages"]}
    keys = [(s["package"], s["path"], s["line"]) for s in sites]
    assert len(keys) == len(set(keys))


def test_holdout_is_about_a_fifth(document: dict[str, Any]) -> None:
    sites = document["sites"]
    share = sum(1 for site in sites if site.get("holdout")) / len(sites)
    assert 0.15 <= share <= 0.25


def test_sentinel_cases_are_blocking(document: dict[str, Any]) -> None:
    sites = document["sites"]
    marked = [site for site in sites if site.get("sentinel")]
    # Each batch draws about 15% of its sites (30 of the first 204, 11 of the second 75).
    assert 0.10 * len(sites) <= len(marked) <= 0.20 * len(sites)
    assert all(site["severity"] == "blocking" for site in marked)


def test_no_message_text_is_stored(document: dict[str, Any]) -> None:
    """References and short notes only: nothing long enough to be a copied message."""
    for site in document["sites"]:
        for key, value in site.items():
            if isinstance(value, str):
                assert len(value) <= 80 or key == "path", (key, value)
                assert '"' not in value and "`" not in value, (key, value)
