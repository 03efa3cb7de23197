"""Error dicts built in steps: a literal changed later is noted, never half migrated.

Seen on a real package and restated in our own words: a response literal with a default
message that later branches overwrite by key. Rewriting the literal alone put the old keys
back beside the envelope, and a second run then rewrote ``r["message"] = ...`` again.
"""

from __future__ import annotations

import textwrap

import pytest

from unsentinel.core.config import Config
from unsentinel.core.model import Action, Site
from unsentinel.errors.rules.error_dict import ErrorDict
from unsentinel.registry import rewrite_source


def _run(source: str) -> tuple[str, str, list[Site]]:
    text = textwrap.dedent(source).lstrip("\n")
    new, sites = rewrite_source(text, Config(), rules=[ErrorDict])
    return text, new, sites


OVERWRITTEN = """
def describe(code, operation):
    response = {
        "status": "error",
        "message": "An error occurred",  # replaced below
        "data": {"operation": operation},
    }
    if code == "AccessDenied":
        response["message"] = f"Access denied for {operation}"
    return response
"""

UPDATED = """
def describe(exc, hint):
    body = {"error": str(exc)}
    body.update(hint=hint)
    return body
"""

DELETED = """
def describe(exc, verbose):
    body = {"success": False, "error": str(exc), "trace": exc.trace}
    if not verbose:
        del body["trace"]
    return body
"""


@pytest.mark.parametrize(
    ("source", "change"),
    [
        pytest.param(OVERWRITTEN, "response['message'] = ...", id="a key overwritten later"),
        pytest.param(UPDATED, "body.update(...)", id="updated in place"),
        pytest.param(DELETED, "del body['trace']", id="a key deleted later"),
    ],
)
def test_a_dict_changed_after_it_is_built_is_noted(source: str, change: str) -> None:
    before, after, sites = _run(source)
    assert after == before
    [site] = sites
    assert site.action is Action.NOTE
    assert change in site.reasons[0]


def test_a_dict_returned_as_built_is_still_migrated() -> None:
    before, after, sites = _run(
        """
        def describe(exc):
            response = {"status": "error", "message": str(exc)}
            log(response["message"])
            return response
        """
    )
    assert '"error": ErrorDetail(' in after
    assert [site.action for site in sites] == [Action.REVIEW]


def test_a_migrated_envelope_with_a_later_write_is_a_fixed_point() -> None:
    before, after, sites = _run(
        """
        import error_codes
        from error_model import ErrorDetail

        def describe(operation):
            response = {
                "success": False,
                "error": ErrorDetail(code=error_codes.INTERNAL_ERROR, message="failed").to_dict(),
            }
            response["message"] = f"Access denied for {operation}"
            return response
        """
    )
    assert after == before
    assert not [site for site in sites if site.action is not Action.NOTE]


def test_a_message_key_left_open_is_filled_in_later() -> None:
    _, after, sites = _run(
        """
        def tag(tag):
            r = {"success": False, "error": None}
            if not tag:
                r["error"] = "tag must be a non-empty string"
            return r
        """
    )
    assert 'r = {"success": False, "error": None}' in after
    assert 'r["error"] = ErrorDetail(' in after
    assert [site.action for site in sites] == [Action.REWRITE]


def test_the_dicts_error_type_decides_the_code() -> None:
    _, after, sites = _run(
        """
        def failing():
            return {"status": "error", "error_type": "ThrottlingException", "message": "slow"}
        """
    )
    assert "code=error_codes.RATE_LIMIT_EXCEEDED" in after
    assert [site.action for site in sites] == [Action.REWRITE]
