"""Consumers outside test functions: migrated with their producer, or reported (never half)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from unsentinel.cli import main
from unsentinel.core.config import Config
from unsentinel.core.facts import FactBook
from unsentinel.core.model import Action, Kind
from unsentinel.errors.facts import ErrorFacts
from unsentinel.errors.rules.error_dict import ErrorDict
from unsentinel.registry import rewrite_source

PRODUCER = """
def get_note(note_id):
    if note_id is None:
        return {"ok": False, "message": "note_id is required"}
    return {"ok": True, "note": note_id}

"""
# In another module: the gather pass says get_note returns migrated errors.
FACTS = FactBook().with_entries([ErrorFacts(frozenset({"get_note"}))])


def _client(source: str) -> tuple[str, list[Action]]:
    text = textwrap.dedent(source).lstrip("\n")
    new, sites = rewrite_source(text, Config(), FACTS, rules=[ErrorDict])
    again, _ = rewrite_source(new, Config(), FACTS, rules=[ErrorDict])
    assert again == new  # a fixed point
    return new, [s.action for s in sites if s.kind is Kind.CONSUMER]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            """
            def show(n):
                resp = notes.get_note(n)
                if resp.get("ok") is False:
                    raise RuntimeError(resp["message"])
                return resp["note"]
            """,
            """
            def show(n):
                resp = notes.get_note(n)
                if resp.get("success") is False:
                    raise RuntimeError(resp["error"]["message"])
                return resp["note"]
            """,
            id="message read inside a failed check",
        ),
        pytest.param(
            """
            def show(n):
                resp = get_note(n)
                if resp["ok"]:
                    return resp["note"]
                log.warning(resp.get("message"))
            """,
            """
            def show(n):
                resp = get_note(n)
                if resp.get("success") is not False:
                    return resp["note"]
                log.warning(resp["error"]["message"])
            """,
            id="message read after an early return on success",
        ),
        pytest.param(
            """
            def show(n):
                resp = get_note(n)
                if "error" in resp:
                    return None, resp["error"]
                return resp["note"], None
            """,
            """
            def show(n):
                resp = get_note(n)
                if "error" in resp:
                    return None, resp["error"]["message"]
                return resp["note"], None
            """,
            id="error key test stays, the string read follows the envelope",
        ),
        pytest.param(
            """
            def show(n):
                body = get_note(n)
                return body["message"] if body.get("status") == "error" else body["note"]
            """,
            """
            def show(n):
                body = get_note(n)
                return body["error"]["message"] if body.get("success") is False else body["note"]
            """,
            id="status error in a conditional expression",
        ),
        pytest.param(
            """
            def show(n):
                resp = get_note(n)
                if "error" in resp:
                    return f"error: {resp['error']}"
            """,
            """
            def show(n):
                resp = get_note(n)
                if "error" in resp:
                    return f"error: {resp['error']['message']}"
            """,
            id="read inside an f-string keeps its quotes apart",
        ),
    ],
)
def test_client_is_migrated_with_its_producer(before: str, after: str) -> None:
    new, actions = _client(before)
    assert new == textwrap.dedent(after).lstrip("\n")
    assert actions and set(actions) == {Action.REWRITE}


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            """
            def show(n):
                resp = get_note(n)
                print(resp["message"])
                if resp.get("ok") is False:
                    raise RuntimeError(resp["message"])
            """,
            id="one read reached by success responses too",
        ),
        pytest.param(
            """
            def show(n):
                resp = get_note(n)
                return bool(resp.get("ok"))
            """,
            id="flag read outside an error check",
        ),
        pytest.param(
            """
            def show(n):
                resp = get_note(n)
                if resp.get("message"):
                    raise RuntimeError(resp["message"])
            """,
            id="message key used as the error check",
        ),
    ],
)
def test_client_that_cannot_be_migrated_is_reported_and_left_whole(source: str) -> None:
    new, actions = _client(source)
    assert new == textwrap.dedent(source).lstrip("\n")
    assert actions and set(actions) == {Action.SKIP}


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            """
            def show(n):
                resp = other_call(n)
                if resp.get("ok") is False:
                    raise RuntimeError(resp["message"])
            """,
            id="callee that returns no migrated error",
        ),
        pytest.param(
            """
            def show(n):
                resp = get_note(n)
                if resp.get("success") is False:
                    raise RuntimeError(resp["error"]["message"])
            """,
            id="already reads the envelope",
        ),
        pytest.param(
            """
            def show(event):
                if event.get("ok") is False:
                    raise RuntimeError(event["message"])
            """,
            id="a parameter, not a call result",
        ),
    ],
)
def test_unrelated_readers_are_left_alone(source: str) -> None:
    new, actions = _client(source)
    assert new == textwrap.dedent(source).lstrip("\n")
    assert actions == []


def test_producer_in_the_same_file_is_enough() -> None:
    source = PRODUCER + (
        "def show(n):\n    resp = get_note(n)\n    if resp.get('ok') is False:\n"
        "        return resp['message']\n"
    )
    new, _sites = rewrite_source(source, Config(), rules=[ErrorDict])
    assert "if resp.get(\"success\") is False:\n        return resp['error']['message']" in (
        new.replace('resp["error"]["message"]', "resp['error']['message']")
    )


def test_relayed_error_keeps_the_client_edit() -> None:
    source = PRODUCER + (
        "def relay(n):\n    resp = get_note(n)\n    if resp.get('ok') is False:\n"
        "        return {'error': str(resp['message'])}, 400\n    return resp, 200\n"
    )
    new, _sites = rewrite_source(source, Config(), rules=[ErrorDict])
    assert 'message=str(resp["error"]["message"])' in new  # the producer's edit carries it


def test_cross_file_client_through_the_gather_pass(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.unsentinel]\nselect = ["UNS501"]\n', "utf-8")
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "__init__.py").write_text("", "utf-8")
    (tmp_path / "svc" / "notes.py").write_text(textwrap.dedent(PRODUCER), "utf-8")
    client = tmp_path / "svc" / "cli.py"
    client.write_text(
        "from .notes import get_note\n\n\ndef show(n):\n    resp = get_note(n)\n"
        '    if not resp.get("ok"):\n        return "error: " + resp["message"]\n'
        '    return str(resp["note"])\n',
        "utf-8",
    )
    result = CliRunner().invoke(main, ["apply", "-j", "1", "--allow-dirty", str(tmp_path)])
    assert result.exit_code == 0, result.stderr  # apply: everything it set out to write was written
    text = client.read_text("utf-8")
    assert 'if resp.get("success") is False:' in text
    assert 'return "error: " + resp["error"]["message"]' in text
