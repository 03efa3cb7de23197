"""Look-alikes UNS501 leaves alone: listed in ``plan`` with the reason, not ``check`` findings."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from unsentinel.cli import main
from unsentinel.core.config import Config
from unsentinel.core.model import Action
from unsentinel.errors.rules.error_dict import ErrorDict
from unsentinel.registry import rewrite_source


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        pytest.param(
            'def f(name):\n    metrics.inc(labels={"tool": name, "status": "error"})\n',
            "metric labels (labels=)",
            id="metric labels",
        ),
        pytest.param(
            'def f(c, exc):\n    return "%(error)s" % {"component": c, "error": exc}\n',
            "%-format mapping",
            id="percent-format mapping",
        ),
        pytest.param(
            'summary = {"error": 0, "warning": 0}\n',
            "counters",
            id="severity counters",
        ),
        pytest.param(
            'HANDLERS = {"error": handle_error, "info": handle_info}\n',
            "name-keyed table",
            id="routing table",
        ),
        pytest.param(
            "def f(e):\n    r = e.response()\n"
            '    return {"error": r.message, "kind": r.kind, "code": r.code}\n',
            "returned, but UNS501 cannot tell that its error value `r.message` is a message text",
            id="returned fields of an object, not a table of names",
        ),
        pytest.param(
            'def f(crash):\n    log.warning("x", extra={"error": str(crash)})\n',
            "log extra= fields",
            id="log extra",
        ),
        pytest.param(
            'def f(mid):\n    return {"jsonrpc": "2.0", "id": mid, "error": {"code": -32601}}\n',
            "JSON-RPC protocol error",
            id="json-rpc protocol error",
        ),
        pytest.param(
            'def health(down):\n    return jsonify({"status": "error" if down else "ok"})\n',
            "status probe",
            id="status probe",
        ),
        pytest.param(
            'def f(repo):\n    audit.record("denied", details={"error": "not owner"})\n',
            "passed as details= to a helper",
            id="details argument",
        ),
        pytest.param(
            'def f(exc):\n    audit.record("x", metadata={"status": "error", "message": str(exc)})'
            "\n",
            "passed as metadata= to a helper",
            id="metadata argument",
        ),
        pytest.param(
            'def f(results, i):\n    results.append({"index": i, "error": "missing title"})\n'
            '    return {"success": True, "results": results}\n',
            "per-item result collected with .append()",
            id="per-item result in a successful batch",
        ),
        pytest.param(
            "def f(letters):\n"
            '    letters.append(json.dumps({"delivery": 1, "error": "unrouted"}))\n',
            "serialised with json.dumps but never returned",
            id="dead letter serialised into a list",
        ),
        pytest.param(
            "def handle_exceptions(func):\n"
            "    async def wrapper(*args, **kwargs):\n"
            "        try:\n"
            "            return await func(*args, **kwargs)\n"
            "        except Exception as e:\n"
            '            return {"error": str(e), "tool": func.__name__}\n'
            "    return wrapper\n",
            "returned by wrapper(), which handle_exceptions() hands out",
            id="a decorator's wrapper",
        ),
    ],
)
def test_lookalike_is_noted_with_its_reason(source: str, reason: str) -> None:
    new, sites = rewrite_source(source, Config(), rules=[ErrorDict])
    assert new == source
    (site,) = sites
    assert site.action is Action.NOTE
    assert not site.action.is_finding
    assert reason in site.reasons[0]
    assert reason in site.message


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            "def f(e):\n"
            '    return {"success": False, "error": ErrorDetail(code=X, message=m).to_dict()}\n',
            id="already migrated envelope",
        ),
        pytest.param('config = {"message": "hello", "retries": 3}\n', id="a message key alone"),
        pytest.param(
            'def test_x():\n    assert resp == {"error": "note 7 not found"}\n',
            id="expected value in an assertion",
        ),
    ],
)
def test_ordinary_dicts_get_no_note(source: str) -> None:
    assert rewrite_source(source, Config(), rules=[ErrorDict])[1] == []


def test_error_in_a_success_envelope_stays_a_report() -> None:
    source = 'def f():\n    return {"success": True, "error": "title ignored"}\n'
    (site,) = rewrite_source(source, Config(), rules=[ErrorDict])[1]
    assert site.action is Action.REPORT
    assert site.action.is_finding


def test_notes_are_in_plan_but_do_not_fail_check(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.unsentinel]\nselect = ["UNS501"]\n', "utf-8")
    (tmp_path / "metrics.py").write_text(
        textwrap.dedent(
            """
            def record(name):
                counter.inc(labels={"tool": name, "status": "error"})
            """
        ),
        encoding="utf-8",
    )
    runner = CliRunner()
    check = runner.invoke(main, ["check", "-j", "1", str(tmp_path)])
    assert check.exit_code == 0, check.stdout + check.stderr
    plan = runner.invoke(main, ["plan", "-j", "1", "--format", "json", str(tmp_path)])
    assert '"action": "note"' in plan.stdout
    assert "metric labels" in plan.stdout
