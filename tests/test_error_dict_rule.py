"""UNS501 through the pure seam: its VALID / INVALID examples, look-alikes, and the prefilter."""

from __future__ import annotations

import textwrap

import pytest

from unsentinel.core.config import Config
from unsentinel.core.model import Action, Kind
from unsentinel.core.prefilter import Prefilter
from unsentinel.core.rule import Example
from unsentinel.errors.rules.error_dict import ErrorDict
from unsentinel.registry import ALL_RULES, configured, rewrite_source

RULES = [ErrorDict]


def _config(example: Example) -> Config:
    return configured(**example.config)


def _params(examples: tuple[Example, ...]) -> list[object]:
    return [pytest.param(e, id=e.id or e.source.splitlines()[0]) for e in examples]


@pytest.mark.parametrize("example", _params(ErrorDict.VALID))
def test_valid_example_is_unchanged(example: Example) -> None:
    new, sites = rewrite_source(example.source, _config(example), rules=RULES)
    assert new == example.source
    assert not [s for s in sites if s.action in (Action.REWRITE, Action.REVIEW)]


@pytest.mark.parametrize("example", _params(ErrorDict.INVALID))
def test_invalid_example_gives_after(example: Example) -> None:
    new, sites = rewrite_source(example.source, _config(example), rules=RULES)
    assert sites
    assert new == (example.expected if example.expected is not None else example.source)


@pytest.mark.parametrize("example", _params(ErrorDict.INVALID))
def test_after_is_a_fixed_point(example: Example) -> None:
    after = example.expected if example.expected is not None else example.source
    again, _sites = rewrite_source(after, _config(example), rules=RULES)
    assert again == after


def _rewrite(source: str, config: Config | None = None) -> str:
    return rewrite_source(textwrap.dedent(source).lstrip("\n"), config or Config(), rules=RULES)[0]


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            'def f(component, exc):\n    return "%(error)s" % {"component": component, "error": exc}\n',  # noqa: E501
            id="percent mapping returned as text",
        ),
        pytest.param(
            "def f(store, log):\n"
            '    store.append(json.dumps({"delivery": 1, "error": "unrouted"}))\n'
            '    return json.dumps({"received": True}), 202\n',
            id="dead letter serialised but not returned",
        ),
        pytest.param(
            'def f(exc):\n    audit.record("x", metadata={"status": "error", "message": str(exc)})\n',  # noqa: E501
            id="metadata argument",
        ),
        pytest.param(
            'def f():\n    metrics.inc(labels={"status": "error"})\n    alerts.dispatch("error", "x")\n',  # noqa: E501
            id="labels and alert level",
        ),
        pytest.param(
            'def f(line):\n    return json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})\n',  # noqa: E501
            id="json-rpc parse error through json.dumps",
        ),
        pytest.param(
            'def f(e):\n    return {"success": False, "error": ErrorDetail(code=error_codes.INTERNAL_ERROR, message=str(e)).to_dict()}\n',  # noqa: E501
            id="already migrated",
        ),
        pytest.param(
            'def test_batch(note):\n    body, status = batch.import_notes(req)\n    results = body.data["results"]\n'  # noqa: E501
            '    assert results[1] == {"index": 1, "error": "missing title"}\n',
            id="per-item result read in a test",
        ),
        pytest.param(
            'def test_audit():\n    (event,) = audit.events("x")\n    assert event["metadata"]["status"] == "error"\n'  # noqa: E501
            '    assert event["metadata"]["message"]\n    assert event["details"] == {"error": "not owner"}\n',  # noqa: E501
            id="audit entry read in a test",
        ),
        pytest.param(
            'def test_health():\n    body = health.health()\n    assert body.data["status"] == "error"\n'  # noqa: E501
            '    assert body.data["down"] == ["note_store"]\n',
            id="status probe read in a test",
        ),
    ],
)
def test_lookalikes_stay_untouched(source: str) -> None:
    assert _rewrite(source) == source


def test_status_from_jsonresponse_keyword_and_httpstatus() -> None:
    new = _rewrite(
        """
        def f(owner):
            return JSONResponse(status_code=HTTPStatus.FORBIDDEN, content={"error": "nope"})
        """
    )
    assert "error_codes.PERMISSION_DENIED" in new
    assert "status_code=HTTPStatus.FORBIDDEN" in new


def test_variable_returned_with_status_later() -> None:
    new = _rewrite(
        """
        def f():
            body = json.dumps({"error": "webhook signature mismatch"})
            return body, 401
        """
    )
    assert "error_codes.PERMISSION_DENIED" in new


def test_configured_modules_become_package_imports() -> None:
    config = configured(
        error_codes_module="src/svc/error_codes.py", error_model_module="svc/models/errors.py"
    )
    new = _rewrite('def f():\n    return {"error": "boom"}\n', config)
    assert "from svc import error_codes\n" in new
    assert "from svc.models.errors import ErrorDetail\n" in new


def test_low_confidence_is_review() -> None:
    _new, sites = rewrite_source(
        'def f():\n    return {"error": "disk on fire"}\n', Config(), rules=RULES
    )
    (site,) = sites
    assert site.action is Action.REVIEW
    assert site.kind is Kind.ERROR
    assert site.code is not None and site.code.value == "INTERNAL_ERROR"


def test_message_in_success_envelope_is_reported_not_moved() -> None:
    source = 'def f():\n    return {"success": True, "error": "title ignored"}\n'
    new, sites = rewrite_source(source, Config(), rules=RULES)
    assert new == source
    assert [s.action for s in sites] == [Action.REPORT]


def test_rule_is_registered() -> None:
    assert ErrorDict in ALL_RULES


@pytest.mark.parametrize(
    ("data", "parsed"),
    [
        pytest.param(b'log.error("x")\nmessage = "hello"\n', False, id="no error-ish keys"),
        pytest.param(b'status = {"state": "ok"}\n', False, id="plain dict"),
        pytest.param(b'return {"error": str(e)}\n', True, id="error key"),
        pytest.param(b"return {'ok': False, 'message': m}\n", True, id="ok False"),
        pytest.param(b'assert body.data["message"] == "x"\n', True, id="consumer read"),
        pytest.param(b'return jsonify({"detail": m}), 404\n', True, id="jsonify"),
    ],
)
def test_needles_keep_the_prefilter_tight(data: bytes, parsed: bool) -> None:
    assert Prefilter([ErrorDict], Config()).may_match(data) is parsed
