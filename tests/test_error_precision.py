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
from unsentinel.core.defined import DefinedNames
from unsentinel.core.facts import FactBook
from unsentinel.core.model import Action, Kind, Site
from unsentinel.errors.facts import ErrorFacts
from unsentinel.errors.rules.error_dict import ErrorDict
from unsentinel.registry import configured, rewrite_source

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
    pytest.param(
        """
        def find(client, query):
            if client is None:
                reason = "the client is not set up"
                return {"error": reason}
            reason = f"nothing matches {query!r}"
            reason += " (try a shorter query)"
            return {"error": reason}
        """,
        """
        def find(client, query):
            reason = None
            if client is None:
                reason = "the client is not set up"
            return {"error": reason}
        """,
        id="a local that only ever holds text, next to one that may be None",
    ),
    pytest.param(
        """
        def metadata(cache):
            if cache is None:
                return JSONResponse({"error": "metadata is unavailable"}, status_code=502)
            return JSONResponse(cache)
        """,
        """
        def metadata(cache):
            if cache is None:
                return JSONResponse({"error": "metadata_unavailable"}, status_code=502)
            return JSONResponse(cache)
        """,
        id="an error value that is a code (OAuth 2.0's shape), not a message",
    ),
]


@pytest.mark.parametrize(
    "binding",
    [
        "reason = lookup(query)",  # a call's result may be None
        "reason, _ = split(query)",  # an unpacked value is not known to be text
        "for reason in query: pass",  # a loop target
        "global reason",  # rebound anywhere
        "reason += 1",  # not a text concatenation
    ],
)
def test_a_local_with_one_binding_that_is_not_text_stays_a_note(binding: str) -> None:
    source = f"""
        def find(client, query):
            reason = "the client is not set up"
            {binding}
            return {{"error": reason}}
        """
    noted, sites = _run(source)
    assert noted == textwrap.dedent(source).lstrip("\n")
    assert _producer_actions(sites) == [Action.NOTE]


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
    facts = FactBook().with_entries([DefinedNames(functions=frozenset({"fetch"}))])
    new, sites = _run(TEST_READER, facts)
    assert new == textwrap.dedent(TEST_READER).lstrip("\n")
    assert {s.action for s in sites if s.kind is Kind.CONSUMER} == {Action.NOTE}


def test_test_reader_of_a_migrated_producer_follows_it() -> None:
    facts = FactBook().with_entries(
        [ErrorFacts(frozenset({"fetch"})), DefinedNames(functions=frozenset({"fetch"}))]
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


@pytest.mark.parametrize(("name", "source"), _dict_comment_sources())
def test_every_comment_survives_the_rewrite(name: str, source: str) -> None:
    new, _sites = rewrite_source(source, Config(), None, rules=[ErrorDict])
    assert _comments(new) == _comments(source), name


def test_a_multiline_error_dict_stays_multiline() -> None:
    new, _sites = _run(COMMENTED)
    line_length = Config().line_length
    rewritten = [line for line in new.splitlines() if re.search(r"ErrorDetail|error_codes\.", line)]
    assert rewritten
    assert all(len(line) <= line_length for line in new.splitlines())


def test_each_comment_lands_on_the_argument_that_took_its_value() -> None:
    new, _sites = _run(COMMENTED)
    lines = new.splitlines()

    def line_of(comment: str) -> str:
        (line,) = [line for line in lines if comment in line]
        return line

    assert line_of("# the lookup's own words").strip().startswith("message=str(e),")
    assert line_of("# echoed back").strip().startswith('"note_id": note_id,')
    assert line_of("# clients show this verbatim").strip() == "# clients show this verbatim"
    below = lines[lines.index(line_of("# clients show this verbatim")) + 1]
    assert below.strip().startswith("message=")


EVERY_PLACE = """
def summarize(owner):
    return {  # the old shape
        "succeed": False,  # always false here
        # the message
        "error": "Repository not found",
        "errorDetails": {  # who asked
            # owner login
            "owner": owner  # as given
        },
        "status": "error"  # dropped with its key
        # the end
    }
"""


@pytest.mark.parametrize("target", ["envelope", "helper"])
def test_comments_in_every_place_of_a_dict_survive(target: str) -> None:
    source = textwrap.dedent(EVERY_PLACE).lstrip("\n")
    new, _sites = rewrite_source(source, configured(error_target=target), None, rules=[ErrorDict])
    assert ("ErrorDetail(" if target == "envelope" else "error_response(") in new
    assert _comments(new) == _comments(source)
    (flag,) = [line for line in new.splitlines() if "# always false here" in line]
    assert flag.strip().startswith(('"success": False,', "error_codes."))
    (owner,) = [line for line in new.splitlines() if "# as given" in line]
    assert owner.strip() == '"owner": owner,  # as given'
    again, _ = rewrite_source(new, configured(error_target=target), None, rules=[ErrorDict])
    assert again == new


def test_a_one_line_dict_without_comments_keeps_its_layout() -> None:
    source = 'def create(p):\n    return {"ok": False, "message": "x is required"}\n'
    new, _sites = _run(source)
    assert new.count("\n") > source.count("\n")  # too long for one line: broken as before
    short = 'def f(e):\n    return jsonify({"error": str(e)}), 500\n'
    new, _sites = rewrite_source(short, Config(line_length=200), None, rules=[ErrorDict])
    assert [line for line in new.splitlines() if "ErrorDetail(" in line] == [
        '    return jsonify({"success": False, "error": ErrorDetail('
        "code=error_codes.INTERNAL_ERROR, message=str(e)).to_dict()}), 500"
    ]


def test_a_multiline_dict_without_comments_stays_multiline() -> None:
    source = 'def f(e):\n    return jsonify({\n        "error": str(e),\n    }), 500\n'
    new, _sites = rewrite_source(source, Config(line_length=200), None, rules=[ErrorDict])
    assert '    return jsonify({\n        "success": False,\n' in new


MULTI_LINE_VALUES = """
def handle(error, api_name):
    if error:
        return {
            'status': 'error',
            'message': (
                f'Access denied for Billing {api_name}. '
                'Ask the owner of the account for the permission.'
            ),
            'request_id': error.response.get('ResponseMetadata', {}).get(
                'RequestIdentifierOfTheCall', 'Unknown'
            ),
        }
"""

MULTI_LINE_VALUES_MOVED = """
def handle(error, api_name):
    if error:
        return {
            "success": False,
            "error": ErrorDetail(
                code=error_codes.PERMISSION_DENIED,
                message=(
                    f'Access denied for Billing {api_name}. '
                    'Ask the owner of the account for the permission.'
                ),
                details={
                    'request_id': error.response.get('ResponseMetadata', {}).get(
                        'RequestIdentifierOfTheCall', 'Unknown'
                    ),
                },
            ).to_dict(),
        }
"""


def test_a_multi_line_value_moves_with_its_key() -> None:
    """A value laid over several lines keeps its lines, indented as deep as its new place
    (its closing bracket lines up with the line that opens it); no line is left holding
    only blanks; a key the dict had keeps its own quotes."""
    new, _sites = rewrite_source(
        textwrap.dedent(MULTI_LINE_VALUES).lstrip("\n"),
        Config(line_length=99),
        None,
        rules=[ErrorDict],
    )
    assert new[new.index("def handle") :] == textwrap.dedent(MULTI_LINE_VALUES_MOVED).lstrip("\n")
    assert [line for line in new.splitlines() if line != line.rstrip()] == []


def test_the_code_of_a_local_message_is_read_from_the_text_bound_just_above() -> None:
    """``error_msg = f"No ... found"`` then ``return {"error": error_msg}``: the words of
    the local say what the error is; where a line between may rebind it, they do not."""
    source = """
        def locate(client, place, strict):
            if not place:
                error_msg = f"No coordinates found for {place}"
                log(error_msg)
                return {"error": error_msg}
            error_msg = f"No coordinates found for {place}"
            if strict:
                error_msg = "the client refused " + place
            return {"error": error_msg}
        """
    rewritten, _sites = _run(source)
    codes = re.findall(r"code=error_codes\.(\w+)", rewritten)
    assert codes == ["NOT_FOUND_RESOURCE", "INTERNAL_ERROR"]
    assert "details=" not in rewritten  # evidence for the code only: no placeholders added
