"""Error dicts built in steps: a literal changed later is noted, never half migrated.

Seen on a real package and restated in our own words: a response literal with a default
message that later branches overwrite by key. Rewriting the literal alone put the old keys
back beside the envelope, and a second run then rewrote ``r["message"] = ...`` again.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

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


# A success response that an ``except`` branch turns into an error, key by key, beside a
# literal error dict the rule would migrate.
ERROR_WRITTEN_KEY_BY_KEY = """
def fetch_events(client, name):
    try:
        response = {"status": "success", "name": name, "events": []}
        try:
            response["events"] = client.events(name)
            return response
        except LookupError as e:
            response["status"] = "error"
            response["error"] = f"API error: {e}"
            return response
    except Exception as e:
        return {"status": "error", "error": str(e)}
"""

READS_THE_EVENTS_ERROR = """
from app import fetch_events


def test_api_error(client):
    result = fetch_events(client, "x")
    assert result["status"] == "error"
    assert "API error" in result["error"]
"""


def test_an_error_written_key_by_key_holds_its_function_and_readers(tmp_path: Path) -> None:
    """``response["error"] = f"API error: {e}"`` then ``return response``: an error no
    rewrite follows. Migrating the function's other error dict and rewriting the readers
    of its result (``result["error"]["message"]``) broke the package's own test on
    awslabs-ecs-mcp-server (the ecosystem's ``tests`` invariant): the function is held,
    with its readers, and the writes are noted."""
    from unsentinel.core.model import Mode
    from unsentinel.errors.facts import ErrorFacts
    from unsentinel.registry import load_config, run

    (tmp_path / "app.py").write_text(textwrap.dedent(ERROR_WRITTEN_KEY_BY_KEY).lstrip("\n"))
    (tmp_path / "test_app.py").write_text(textwrap.dedent(READS_THE_EVENTS_ERROR).lstrip("\n"))
    result = run([tmp_path], load_config((tmp_path,)), Mode.DIFF, jobs=1)
    assert [r.path for r in result.results if r.changed] == []
    assert "fetch_events" in result.facts.get(ErrorFacts).held_functions
    notes = [s for r in result.results for s in r.sites if s.action is Action.NOTE]
    assert {s.position.line for s in notes} == {8, 9}
    assert all("key by key" in s.reasons[0] for s in notes)


def test_a_builtin_read_in_a_held_function_is_no_held_callee(tmp_path: Path) -> None:
    """A held function that checks ``next(...)``'s result for failure holds no ``next``:
    a callee the repository does not define is no function of ours."""
    from unsentinel.core.model import Mode
    from unsentinel.errors.facts import ErrorFacts
    from unsentinel.registry import load_config, run

    source = ERROR_WRITTEN_KEY_BY_KEY.replace(
        '            response["events"] = client.events(name)',
        "            first = next((e for e in client.events(name) if e), None)\n"
        '            if first and first["error"]:\n'
        '                response["events"] = [first]',
    )
    (tmp_path / "app.py").write_text(textwrap.dedent(source).lstrip("\n"))
    result = run([tmp_path], load_config((tmp_path,)), Mode.DIFF, jobs=1)
    facts = result.facts.get(ErrorFacts)
    assert "fetch_events" in facts.held_functions
    assert "next" not in facts.held_callees
