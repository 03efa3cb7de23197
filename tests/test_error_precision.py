"""UNS501 on code it did not write: precision first, readers follow all their producers.

Each look-alike below was seen in real packages (restated in our own words): a dict with an
``error`` key among other data is not necessarily a response. Each comes as a pair: the
shape that must be rewritten next to the near miss that must only be noted. Then the group
rule: a function that returns one error-looking dict UNS501 leaves alone keeps all of its
error dicts, and the readers of its results keep theirs (reported as skip).
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from unsentinel.core.config import Config
from unsentinel.core.facts import FactBook
from unsentinel.core.model import Action, Kind, Site
from unsentinel.errors.facts import ErrorFacts
from unsentinel.errors.rules.error_dict import ErrorDict
from unsentinel.registry import rewrite_source

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "error_service" / "errsvc"


def _run(source: str, facts: FactBook | None = None) -> tuple[str, list[Site]]:
    text = textwrap.dedent(source).lstrip("\n")
    new, sites = rewrite_source(text, Config(), facts, rules=[ErrorDict])
    return new, sites


def _producer_actions(sites: list[Site]) -> list[Action]:
    return [s.action for s in sites if s.kind is Kind.ERROR]


PAIRS = [
    pytest.param(
        """
        def lookup(sku):
            try:
                return {"sku": sku, "error": str(find(sku))}
            except KeyError as e:
                return {"sku": sku, "error": str(e)}
        """,
        """
        def row(item, error):
            return {"id": item.id, "sku": item.sku, "error": error}
        """,
        id="table row whose error column may be None",
    ),
    pytest.param(
        """
        def tally(n_errors):
            return jsonify({"error": f"{n_errors} rows failed"}), 500
        """,
        """
        def tally(n_errors, n_warnings):
            return {"error": n_errors, "warning": n_warnings}
        """,
        id="severity counters with computed values",
    ),
    pytest.param(
        """
        def rename(title):
            return {"success": False, "message": f"cannot rename to {title}"}
        """,
        """
        def rename(title):
            return {"success": True, "message": f"renamed to {title}"}
        """,
        id="success response that carries a message",
    ),
    pytest.param(
        """
        def dev_info(key):
            return {"error": "dev-status is not installed", "issue": key}
        """,
        """
        def dev_info(key):
            return {"issue": key, "error": "dev-status is not installed", "branches": []}
        """,
        id="data response with an error column",
    ),
]


@pytest.mark.parametrize(("must_rewrite", "must_note"), PAIRS)
def test_clear_error_is_rewritten_and_its_near_miss_is_only_noted(
    must_rewrite: str, must_note: str
) -> None:
    rewritten, sites = _run(must_rewrite)
    assert "ErrorDetail(" in rewritten
    assert set(_producer_actions(sites)) <= {Action.REWRITE, Action.REVIEW}

    noted, sites = _run(must_note)
    assert noted == textwrap.dedent(must_note).lstrip("\n")
    # a success response with a message is not even error-looking: nothing to list
    assert set(_producer_actions(sites)) <= {Action.NOTE}


def test_success_message_is_not_reported_as_an_error() -> None:
    _new, sites = _run('def f():\n    return {"ok": True, "message": "no attachments"}\n')
    assert not [s for s in sites if s.action.is_finding]


def test_unclear_row_is_noted_with_why() -> None:
    _new, sites = _run("def row(item, error):\n    return {'id': item.id, 'error': error}\n")
    (site,) = sites
    assert site.action is Action.NOTE
    assert "may be None" in site.reasons[0]


MIXED = """
def fetch(key):
    if not key:
        return {"success": False, "error": "key is required"}
    try:
        return {"success": True, "value": load(key)}
    except OSError as e:
        return {"error": describe(e), "key": key}
"""


def test_function_with_an_unmigrated_error_dict_keeps_all_of_them() -> None:
    new, sites = _run(MIXED)
    assert new == textwrap.dedent(MIXED).lstrip("\n")
    actions = sorted(a.value for a in _producer_actions(sites))
    assert actions == ["note", "skip"]


READER = """
def show(key):
    result = fetch(key)
    if "error" in result:
        return result["error"]
    return result["value"]
"""


def test_reader_of_a_held_producer_stays_and_is_skipped() -> None:
    facts = FactBook().with_entries([ErrorFacts(frozenset({"fetch"}), frozenset({"fetch"}))])
    new, sites = _run(READER, facts)
    assert new == textwrap.dedent(READER).lstrip("\n")
    consumers = [s for s in sites if s.kind is Kind.CONSUMER]
    assert consumers and {s.action for s in consumers} == {Action.SKIP}
    assert "not migrated" in consumers[0].reasons[0]


def test_reader_of_a_fully_migrated_producer_follows_it() -> None:
    facts = FactBook().with_entries([ErrorFacts(frozenset({"fetch"}))])
    new, _sites = _run(READER, facts)
    assert 'result["error"]["message"]' in new


TEST_READER = """
def test_fetch_fails():
    result = fetch("")
    assert result["error"] == "key is required"
"""


def test_test_reader_of_our_unmigrated_helper_stays_as_a_note() -> None:
    facts = FactBook().with_entries([ErrorFacts(defined_functions=frozenset({"fetch"}))])
    new, sites = _run(TEST_READER, facts)
    assert new == textwrap.dedent(TEST_READER).lstrip("\n")
    assert {s.action for s in sites if s.kind is Kind.CONSUMER} == {Action.NOTE}


def test_test_reader_of_a_migrated_producer_follows_it() -> None:
    facts = FactBook().with_entries(
        [ErrorFacts(frozenset({"fetch"}), defined_functions=frozenset({"fetch"}))]
    )
    new, _sites = _run(TEST_READER, facts)
    assert 'result["error"]["message"] == "key is required"' in new


# -- comments inside a rewritten error dict survive -----------------------------------------

COMMENTED = """
def get(note_id):
    try:
        return store.get(note_id)
    except LookupError as e:
        return {
            # clients show this verbatim
            "error": str(e),  # the lookup's own words
            "note_id": note_id,  # echoed back
        }
"""


def _comments(code: str) -> list[str]:
    found: list[str] = []

    class _Collect(cst.CSTVisitor):
        def visit_Comment(self, node: cst.Comment) -> None:
            found.append(node.value)

    cst.parse_module(code).visit(_Collect())
    return sorted(found)


def _dict_comment_sources() -> list[tuple[str, str]]:
    cases = [("new case", textwrap.dedent(COMMENTED).lstrip("\n"))]
    for path in sorted(FIXTURE.glob("*.py")):
        cases.append((path.name, path.read_text(encoding="utf-8")))
    return cases


OPEN = "build.py rebuilds the envelope from fresh nodes: comments inside it are lost (open)"


@pytest.mark.parametrize(
    ("name", "source"),
    [
        pytest.param(*case, marks=pytest.mark.xfail(strict=True, reason=OPEN))
        if case[0] == "new case"
        else case
        for case in _dict_comment_sources()
    ],
)
def test_every_comment_survives_the_rewrite(name: str, source: str) -> None:
    new, _sites = rewrite_source(source, Config(), None, rules=[ErrorDict])
    assert _comments(new) == _comments(source), name


def test_a_multiline_error_dict_stays_multiline() -> None:
    new, _sites = _run(COMMENTED)
    line_length = Config().line_length
    rewritten = [line for line in new.splitlines() if re.search(r"ErrorDetail|error_codes\.", line)]
    assert rewritten
    assert all(len(line) <= line_length for line in new.splitlines())
