"""Readers of error dicts on code we did not write: they follow their producers or nothing moves.

Each case restates, in our own words, a shape seen in real packages: a test reading a
model's dump, a test reading an awaited tool's result, and a reader in another module that
reads a key the migration would move into ``error.details``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner
from projects import LOOKUP

from unsentinel.cli import main
from unsentinel.core.config import Config
from unsentinel.core.facts import FactBook
from unsentinel.core.model import Action, Kind, Mode
from unsentinel.core.runner import RunResult
from unsentinel.errors.facts import ErrorFacts
from unsentinel.errors.rules.error_dict import ErrorDict
from unsentinel.registry import load_config, rewrite_source, run


def _diff_project(root: Path, files: dict[str, str]) -> RunResult:
    """``diff`` over a project of these (dedented) files."""
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text), "utf-8")
    return run([root], load_config((root,)), Mode.DIFF, jobs=1)


def _reasons(result: RunResult, action: Action) -> list[str]:
    """The first reason of every site with ``action``."""
    return [s.reasons[0] for r in result.results for s in r.sites if s.action is action]


def _run(source: str, facts: FactBook | None = None) -> str:
    text = textwrap.dedent(source).lstrip("\n")
    new, _sites = rewrite_source(text, Config(), facts, rules=[ErrorDict])
    return new


MODEL_DUMP = """
def test_dump_keeps_the_error_field():
    outcome = Outcome(command="ls", error="Command failed")
    dumped = outcome.model_dump()
    assert dumped["command"] == "ls"
    assert dumped["error"] == "Command failed"
"""


def test_a_models_dump_is_not_an_error_response() -> None:
    """The keys of ``model_dump()`` come from a class, even where other producers migrate."""
    facts = FactBook().with_entries([ErrorFacts(frozenset({"fetch"}))])
    assert _run(MODEL_DUMP, facts) == textwrap.dedent(MODEL_DUMP).lstrip("\n")


CLIENT_READ = """
def test_failed_call():
    resp = client.get("/notes/7")
    assert resp.json()["error"] == "note 7 not found"
"""


def test_a_reader_with_no_migrated_producer_in_the_run_stays() -> None:
    assert _run(CLIENT_READ) == textwrap.dedent(CLIENT_READ).lstrip("\n")


def test_a_reader_of_a_client_follows_once_a_producer_migrates() -> None:
    facts = FactBook().with_entries([ErrorFacts(frozenset({"fetch"}))])
    assert 'resp.json()["error"]["message"] == "note 7 not found"' in _run(CLIENT_READ, facts)


SERIALISED_TOOLS = """
import json


def handle_error(error):
    return {"error": f"Error writing: {error}"}


def package(path):
    try:
        return json.dumps({"status": "success", "path": write(path)})
    except OSError as e:
        return json.dumps(handle_error(e))


def lookup(name):
    try:
        return {"success": True, "name": fetch(name)}
    except OSError as e:
        return {"success": False, "error": str(e)}
"""

PARSES_THE_TEXT = """
import json

from tools import package


def test_package_error():
    result = package("x")
    parsed = json.loads(result)
    assert "error" in parsed
    assert "disk full" in parsed["error"]
"""


def test_a_parsed_result_is_read_as_its_producers(tmp_path: Path) -> None:
    """``parsed = json.loads(result)`` after ``result = package(...)``: the dict comes from
    ``package``, which the run leaves as it is, not from ``loads``. Taken as a client's
    response, the reads were rewritten because another producer migrated, and six of
    awslabs-aws-healthomics-mcp-server's tests failed after apply."""
    files = {"tools.py": SERIALISED_TOOLS, "test_tools.py": PARSES_THE_TEXT}
    result = _diff_project(tmp_path, files)
    changed = [Path(r.path).name for r in result.results if r.changed]
    assert changed == ["tools.py"]  # ``lookup`` migrates; the test reads ``package``
    test = next(r for r in result.results if r.path.endswith("test_tools.py"))
    assert any("package() is defined here" in s.reasons[0] for s in test.sites)


AWAITED = """
async def test_rejects_missing_credential():
    result = await create_rule(name="x", credential=None)
    assert result["success"] is False
    assert result["rule"] is None
    assert "credential" in result["message"].lower()
"""


def test_an_awaited_result_is_read_like_a_called_one() -> None:
    facts = FactBook().with_entries([ErrorFacts(frozenset({"create_rule"}))])
    new = _run(AWAITED, facts)
    assert 'result["error"]["details"]["rule"] is None' in new
    assert '"credential" in result["error"]["message"].lower()' in new


PRODUCER = """
def find_table(html, section):
    sections = headings(html)
    if section not in sections:
        return {"error": f"Section {section} not found", "available": sections}
    return {"rows": rows_of(html, section)}
"""

READER = """
from .tables import find_table


def show(html, section):
    table = find_table(html, section)
    if "error" in table:
        return table["error"] + "; try " + ", ".join(table.get("available", []))
    return str(table["rows"])
"""


def _plan(tmp_path: Path, reader: str) -> list[dict[str, object]]:
    (tmp_path / "pyproject.toml").write_text('[tool.unsentinel]\nselect = ["UNS501"]\n', "utf-8")
    package = tmp_path / "docs_tool"
    package.mkdir()
    (package / "__init__.py").write_text("", "utf-8")
    (package / "tables.py").write_text(textwrap.dedent(PRODUCER), "utf-8")
    (package / "server.py").write_text(textwrap.dedent(reader), "utf-8")
    result = CliRunner().invoke(main, ["plan", "--format", "json", "-j", "1", str(tmp_path)])
    assert result.exit_code == 0, result.output
    sites: list[dict[str, object]] = json.loads(result.stdout)["sites"]
    return [s for s in sites if s["rule"] == "UNS501"]


def test_a_key_read_elsewhere_that_would_move_into_details_holds_its_producer(
    tmp_path: Path,
) -> None:
    """``table.get("available")`` would find nothing after the move: nothing changes."""
    sites = _plan(tmp_path, READER)
    producer = [s for s in sites if s["kind"] == Kind.ERROR.value]
    assert [s["action"] for s in producer] == [Action.SKIP.value]
    assert "'available'" in str(producer[0]["reasons"])
    assert {s["action"] for s in sites if s["kind"] == Kind.CONSUMER.value} == {"skip"}


def test_a_reader_of_the_message_only_lets_its_producer_migrate(tmp_path: Path) -> None:
    reader = READER.replace(' + "; try " + ", ".join(table.get("available", []))', "")
    sites = _plan(tmp_path, reader)
    assert {s["action"] for s in sites if s["kind"] == Kind.ERROR.value} == {"rewrite"}
    assert {s["action"] for s in sites if s["kind"] == Kind.CONSUMER.value} == {"rewrite"}


CONNECTION = """
class Connection:
    async def send_request(self, method):
        try:
            return await self._send(method)
        except Exception as e:
            return {"error": str(e)}
"""

FORWARDER = """
class Client:
    async def lineage(self, name):
        result = await self.connection.send_request("lineage")
        if "error" in result and result["error"] is not None:
            return {"error": result["error"]}
        return {"nodes": result["nodes"]}
"""


def _plan_two(tmp_path: Path, first: str, second: str) -> list[dict[str, object]]:
    (tmp_path / "pyproject.toml").write_text('[tool.unsentinel]\nselect = ["UNS501"]\n', "utf-8")
    package = tmp_path / "lsp"
    package.mkdir()
    (package / "conn.py").write_text(textwrap.dedent(first), "utf-8")
    (package / "client.py").write_text(textwrap.dedent(second), "utf-8")
    result = CliRunner().invoke(main, ["plan", "--format", "json", "-j", "1", str(tmp_path)])
    assert result.exit_code == 0, result.output
    sites: list[dict[str, object]] = json.loads(result.stdout)["sites"]
    return [s for s in sites if s["rule"] == "UNS501"]


def test_a_producer_whose_error_a_held_function_passes_on_is_held(tmp_path: Path) -> None:
    sites = _plan_two(tmp_path, CONNECTION, FORWARDER)
    [producer] = [s for s in sites if str(s["path"]).endswith("conn.py")]
    assert producer["action"] == "skip"
    assert "send_request()" in str(producer["reasons"])
    assert not [s for s in sites if s["action"] in ("rewrite", "review")]


def test_a_producer_read_only_by_a_migrating_function_still_migrates(tmp_path: Path) -> None:
    reader = FORWARDER.replace('return {"error": result["error"]}', "raise LookupError(name)")
    sites = _plan_two(tmp_path, CONNECTION, reader)
    [producer] = [s for s in sites if str(s["path"]).endswith("conn.py")]
    assert producer["action"] == "rewrite"


# Spells no error-dict needle: the prefilter alone would never let the rules read it.
READS_THE_NAME = """
from app import lookup


def test_lookup_failure_keeps_the_name() -> None:
    result = lookup("missing")
    assert result["stack_name"] == "missing"
    assert "error" in result
"""


def test_a_reader_the_prefilter_would_stop_still_holds_its_producer(tmp_path: Path) -> None:
    """The test reads ``stack_name`` off the failure, which the envelope would move into
    ``error.details``: its file spells no error-dict needle, so the facts name ``lookup`` (a
    function whose error dicts migrate) and a later round reads every file calling it.
    Without that, ``apply`` rewrote the dict and the test raised ``KeyError`` (found by the
    ecosystem's ``prefilter`` invariant on awslabs-ecs-mcp-server)."""
    (tmp_path / "app.py").write_text(textwrap.dedent(LOOKUP), "utf-8")
    (tmp_path / "test_app.py").write_text(textwrap.dedent(READS_THE_NAME), "utf-8")
    result = CliRunner().invoke(main, ["plan", "--format", "json", "-j", "1", str(tmp_path)])
    assert result.exit_code == 0, result.output
    sites = [s for s in json.loads(result.stdout)["sites"] if s["rule"] == "UNS501"]
    producer = [s for s in sites if s["kind"] == Kind.ERROR.value]
    assert [s["action"] for s in producer] == [Action.SKIP.value]
    assert "'stack_name'" in str(producer[0]["reasons"])


# A method of the same name on an object of its own: no caller of ``app.lookup``.
CALLS_A_METHOD = """
def warm(cache) -> None:
    entry = cache.lookup("primary")
    print(entry)
"""


def test_a_module_functions_callers_are_read_and_a_same_named_methods_are_not(
    tmp_path: Path,
) -> None:
    """``lookup`` is a module-level function whose error dicts migrate: a file calling it
    (bare, or through the module) is read in a later round, though it spells no needle. A
    file that only calls a method named ``lookup`` on another object is not: on the
    standard library, ``conn.request("GET", ...)`` admitted every http test for the error
    helper ``request`` of mypy's daemon client."""
    from unsentinel.core.model import Status

    (tmp_path / "app.py").write_text(textwrap.dedent(LOOKUP), "utf-8")
    (tmp_path / "cache.py").write_text(textwrap.dedent(CALLS_A_METHOD), "utf-8")
    (tmp_path / "test_app.py").write_text(
        "import app\n\n\ndef test_lookup() -> None:\n    assert app.lookup('x')['stack_name']\n",
        "utf-8",
    )
    result = run([tmp_path], load_config((tmp_path,)), Mode.CHECK, jobs=1)
    facts = result.facts.get(ErrorFacts)
    assert facts.module_function_names() == {"lookup"}
    status = {Path(r.path).name: r.status for r in result.results}
    assert status["test_app.py"] is Status.PARSED
    assert status["cache.py"] is Status.PREFILTERED


def test_an_error_method_admits_every_call_of_its_name(tmp_path: Path) -> None:
    """Defined in a class, ``lookup`` may be called on any object: every call counts."""
    from unsentinel.core.model import Status

    method = "class Stacks:\n" + textwrap.indent(textwrap.dedent(LOOKUP), "    ")
    method = method.replace("(name: str)", "(self, name: str)")
    (tmp_path / "app.py").write_text(method, "utf-8")
    (tmp_path / "cache.py").write_text(textwrap.dedent(CALLS_A_METHOD), "utf-8")
    result = run([tmp_path], load_config((tmp_path,)), Mode.CHECK, jobs=1)
    facts = result.facts.get(ErrorFacts)
    assert "lookup" in facts.error_methods
    status = {Path(r.path).name: r.status for r in result.results}
    assert status["cache.py"] is Status.PARSED


ASSERTS_THROUGH_TESTCASE = """
import unittest

from app import lookup


class TestLookup(unittest.TestCase):
    def test_lookup_failure(self):
        result = lookup("missing")
        self.assertEqual(result["status"], "error")
        self.assertIn("not found", result["error"])
"""


def test_a_failure_asserted_through_test_case_methods_is_followed(tmp_path: Path) -> None:
    """``self.assertEqual(result["status"], "error")`` and ``self.assertIn("not found",
    result["error"])`` are the comparisons they stand for: evidence of an error response,
    rewritten with their producer. (Not followed, they held the producer, and every
    ``TestCase`` suite held its functions: awslabs-ecs-mcp-server.)"""
    files = {"app.py": LOOKUP, "test_app.py": ASSERTS_THROUGH_TESTCASE}
    result = _diff_project(tmp_path, files)
    assert result.facts.get(ErrorFacts).asserted == frozenset()
    test = next(r for r in result.results if r.path.endswith("test_app.py"))
    assert test.new_text is not None
    assert 'self.assertIs(result["success"], False)' in test.new_text
    assert 'self.assertIn("not found", result["error"]["message"])' in test.new_text


ASSERTS_STATUS_THROUGH_TESTCASE = """
import unittest

from app import lookup


class TestLookup(unittest.TestCase):
    def test_lookup_failure(self):
        result = lookup("missing")
        self.assertEqual(result["status"], "error")
        self.assertNotEqual(result["status"], "done")
"""


def test_a_status_asserted_alone_through_a_test_case_method_holds_the_producer(
    tmp_path: Path,
) -> None:
    """``self.assertEqual(result["status"], "error")`` with no read of the message is too
    little for the reader rewrites to follow (a job's status may be ``"error"`` too), and
    reads the old shape: the producer is held with its readers."""
    (tmp_path / "app.py").write_text(textwrap.dedent(LOOKUP), "utf-8")
    test = textwrap.dedent(ASSERTS_STATUS_THROUGH_TESTCASE)
    (tmp_path / "test_app.py").write_text(test, "utf-8")
    result = run([tmp_path], load_config((tmp_path,)), Mode.DIFF, jobs=1)
    assert [r.path for r in result.results if r.changed] == []
    assert "lookup" in result.facts.get(ErrorFacts).asserted
    skipped = _reasons(result, Action.SKIP)
    assert any("a test checks the failure of lookup()" in why for why in skipped)


ASSERTS_STATUS_ONLY = """
from app import lookup


def test_lookup_failure():
    result = lookup("missing")
    assert result["status"] == "error"
    assert "error" in result
"""


def test_a_failure_checked_on_too_little_evidence_to_follow_holds_the_producer(
    tmp_path: Path,
) -> None:
    """``assert result["status"] == "error"`` and ``"error" in result``, with no message
    read: too little for the reader rewrites to follow, and the old shape after all
    (awslabs-ecs-mcp-server's ``test_general_exception_handling``)."""
    files = {"app.py": LOOKUP, "test_app.py": ASSERTS_STATUS_ONLY}
    result = _diff_project(tmp_path, files)
    assert [r.path for r in result.results if r.changed] == []
    assert "lookup" in result.facts.get(ErrorFacts).asserted


CHECKS_THAT_HOLD_ON_THE_ENVELOPE = """
import unittest

from app import lookup


def test_lookup_failure():
    result = lookup("missing")
    assert "error" in result
    assert len(result["error"]) > 0
    assert result["error"] is not None
    assert result.get("error")


def test_lookup_success():
    result = lookup("present")
    assert result.get("error") is None


class TestLookup(unittest.TestCase):
    def test_lookup_failure(self):
        result = lookup("missing")
        self.assertTrue(result["error"])
        self.assertIsNotNone(result.get("error"))

    def test_lookup_success(self):
        self.assertIsNone(lookup("present").get("error"))
"""


def test_a_failure_check_that_holds_on_the_envelope_holds_nothing(tmp_path: Path) -> None:
    """``"error" in result``, ``len(result["error"]) > 0``, ``result["error"] is not None``:
    each still holds once the error is the envelope's non-empty dict, so the producer
    migrates and the test stays as it is. Held for them, awslabs-aws-healthomics-mcp-server
    kept every ``call`` wrapper's error dicts back (150 tests read them that way)."""
    (tmp_path / "app.py").write_text(textwrap.dedent(LOOKUP), "utf-8")
    test = tmp_path / "test_app.py"
    test.write_text(textwrap.dedent(CHECKS_THAT_HOLD_ON_THE_ENVELOPE), "utf-8")
    result = run([tmp_path], load_config((tmp_path,)), Mode.DIFF, jobs=1)
    assert result.facts.get(ErrorFacts).asserted == frozenset()
    assert [Path(r.path).name for r in result.results if r.changed] == ["app.py"]


@pytest.mark.parametrize(
    "check",
    [
        'assert "not found" in result["error"]',
        'assert result["error"] == "not found"',
        'assert len(result["error"]) == 9',
        'assert isinstance(result["error"], str)',
    ],
)
def test_a_string_read_of_the_error_still_holds_the_producer(tmp_path: Path, check: str) -> None:
    """The error as a string -- compared, searched, measured -- reads the old shape where no
    reader rewrite follows (no string evidence of the kind the rewrites take): held."""
    (tmp_path / "app.py").write_text(textwrap.dedent(LOOKUP), "utf-8")
    test = f"from app import lookup\n\n\ndef test_it():\n    result = lookup('x')\n    {check}\n"
    (tmp_path / "test_app.py").write_text(test, "utf-8")
    result = run([tmp_path], load_config((tmp_path,)), Mode.DIFF, jobs=1)
    changed = [Path(r.path).name for r in result.results if r.changed]
    asserted = "lookup" in result.facts.get(ErrorFacts).asserted
    # Either the reader rewrite follows the read (both files change) or the producer is held.
    assert (
        asserted and changed == [] or not asserted and sorted(changed) == ["app.py", "test_app.py"]
    )


FORMATS_THE_ERROR = """
from app import lookup


def test_lookup_logs_its_failure():
    result = lookup("missing")
    if "error" in result:
        print(f"lookup failed: {result['error']}")
"""


def test_an_error_formatted_into_an_f_string_is_read_as_a_message(tmp_path: Path) -> None:
    """``f"... {result['error']}"`` reads the error as text, as ``"x" in result["error"]``
    does: evidence the reader rewrite follows, so the read becomes the message and the
    producer migrates. Without it, a test that only logs the failure (a live integration
    test of awslabs-aws-location-mcp-server) held two tools' error dicts back."""
    files = {"app.py": LOOKUP, "test_app.py": FORMATS_THE_ERROR}
    result = _diff_project(tmp_path, files)
    assert result.facts.get(ErrorFacts).asserted == frozenset()
    test = next(r for r in result.results if Path(r.path).name == "test_app.py")
    assert test.new_text is not None
    assert "{result['error']['message']}" in test.new_text
    assert sorted(Path(r.path).name for r in result.results if r.changed) == [
        "app.py",
        "test_app.py",
    ]


READS_THE_RESULT_ELSEWHERE = """
from app import lookup


def describe(name):
    result = lookup(name)
    if result.get("status") != "done":
        return result.get("message")
    return result["stack_name"]
"""


def test_the_readers_of_an_asserted_function_are_reported_with_or_without_the_prefilter(
    tmp_path: Path,
) -> None:
    """A test asserts ``lookup``'s failure where no rewrite follows: ``lookup`` is held, and
    so is a reader in a module that spells no error-dict needle. ``check`` must find that
    reader with the prefilter as without it. (This small project agrees without the fix
    too -- its gather rounds admit the reader early; the case that did not,
    awslabs-aws-healthomics-mcp-server, is pinned by the ecosystem's ``prefilter``
    invariant: since asserted functions admit their callers, its runs agree.)"""
    (tmp_path / "app.py").write_text(textwrap.dedent(LOOKUP), "utf-8")
    (tmp_path / "test_app.py").write_text(textwrap.dedent(ASSERTS_STATUS_ONLY), "utf-8")
    (tmp_path / "describe.py").write_text(textwrap.dedent(READS_THE_RESULT_ELSEWHERE), "utf-8")
    config = load_config((tmp_path,))
    found = []
    for screen in (True, False):
        result = run([tmp_path], config, Mode.CHECK, jobs=1, screen=screen)
        found.append(
            sorted((r.path, s.position.line, s.rule) for r in result.results for s in r.sites)
        )
    assert found[0] == found[1]
    assert any(path.endswith("describe.py") for path, _line, _rule in found[0])


@pytest.mark.parametrize(
    ("call", "evidence"),
    [
        ('self.assertEqual(r["error"], "API error")', "string"),
        ('self.assertEqual("API error", r["error"])', "string"),
        ('self.assertIn("timed out", r["error"])', "string"),
        ('self.assertEqual(r["status"], "error")', "error"),
        ('self.assertIs(r["ok"], False)', "false"),
        ('self.assertFalse(r["ok"])', "false"),
        # not the comparison a reader rewrite may take as evidence:
        ('self.assertNotEqual(r["status"], "error")', "other"),
        ('self.assertIn(r["error"], messages)', "other"),
        ('self.assertEqual(r["error"], expected)', "other"),
        ('assertEqual(r["error"], "API error")', "other"),
        ('self.assertTrue(r["error"])', "other"),
    ],
)
def test_a_test_case_assertion_is_evidence_as_its_comparison(call: str, evidence: str) -> None:
    from unsentinel.errors.case_assertions import assertion_evidence

    module = cst.parse_module(call + "\n")
    parents: dict[cst.CSTNode, cst.CSTNode] = {}

    class _Parents(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            for child in node.children:
                parents[child] = node
            return True

    module.visit(_Parents())
    read = next(n for n in parents if isinstance(n, cst.Subscript))
    assert assertion_evidence(read, parents.get).value == evidence


UNTRACED_SERVER = """
import json


def send_error(send, status: int, message: str) -> None:
    body = json.dumps({"error": message})
    send({"type": "http.response.body", "status": status, "body": body})


def get_page(page_id: int) -> dict:
    try:
        return {"success": True, "page": fetch(page_id)}
    except OSError as e:
        return {"success": False, "error": f"Failed to retrieve page {page_id}: {e}"}
"""

UNTRACED_TESTS = """
import json

from server import send_error


def test_empty_token_is_refused():
    sent = []
    send_error(sent.append, 401, "Unauthorized: Empty Bearer token")
    body = json.loads(sent[0]["body"])
    assert "error" in body
    assert "Empty Bearer token" in body["error"]


def test_a_tool_call_fails():
    data = json.loads(client.call_tool("get_page", {"page_id": 7}))
    assert "Failed to retrieve page" in data["error"]
"""


def test_an_untraced_response_follows_only_a_message_of_a_migrated_producer(
    tmp_path: Path,
) -> None:
    """Two responses the flow cannot trace to their producer (a body captured from an ASGI
    ``send``, a tool called by name). The run leaves one error dict as it is (the one
    ``json.dumps`` sends), so each reader is judged by the message it expects: the
    middleware's stays (mcp-atlassian's middleware tests failed after apply when it was
    rewritten), the tool's names a migrated message and follows it."""
    files = {"server.py": UNTRACED_SERVER, "test_server.py": UNTRACED_TESTS}
    result = _diff_project(tmp_path, files)
    test = next(r for r in result.results if r.path.endswith("test_server.py"))
    assert test.new_text is not None
    assert 'assert "Empty Bearer token" in body["error"]\n' in test.new_text
    assert 'assert "Failed to retrieve page" in data["error"]["message"]' in test.new_text
    notes = [s.reasons[0] for s in test.sites if s.action is Action.NOTE]
    assert any("its producer cannot be traced" in why for why in notes)


def test_an_untraced_response_follows_on_evidence_where_every_error_dict_migrates(
    tmp_path: Path,
) -> None:
    """With no error dict left as it is, any response is a migrated one: the reader
    follows on the test's evidence alone, whatever message it expects."""
    server = UNTRACED_SERVER.replace(
        '    body = json.dumps({"error": message})\n', "    body = message\n"
    )
    files = {"server.py": server, "test_server.py": UNTRACED_TESTS}
    result = _diff_project(tmp_path, files)
    test = next(r for r in result.results if r.path.endswith("test_server.py"))
    assert test.new_text is not None
    assert '"Empty Bearer token" in body["error"]["message"]' in test.new_text


HANDS_BACK = """
def call_api(func, error_value=None):
    try:
        return func()
    except OSError:
        return error_value


def get_resource(client, method):
    try:
        error_value = {"error": "API Error"}
        result = call_api(getattr(client, method), error_value)
        return result if result is not None else {"error": "No response"}
    except Exception as e:
        return {"error": f"API Error: {e}"}
"""

READS_THE_HANDED_BACK_ERROR = """
import unittest

from api import get_resource


class TestResource(unittest.TestCase):
    def test_errors_are_returned(self):
        result = get_resource(client, "describe")
        self.assertIn("error", result)
        self.assertEqual(result["error"], "API Error")
"""


def test_an_error_dict_handed_to_a_call_whose_result_is_returned_holds_its_function(
    tmp_path: Path,
) -> None:
    """``error_value = {"error": "API Error"}`` goes into ``call_api(func, error_value)``,
    which hands it back on failure, and ``get_resource`` returns that result: its result may
    be the old shape, so its other error dicts and the test reading them stay as they are
    (awslabs-ecs-mcp-server's ``get_ec2_resource``: its test failed after apply)."""
    files = {"api.py": HANDS_BACK, "test_api.py": READS_THE_HANDED_BACK_ERROR}
    result = _diff_project(tmp_path, files)
    assert [r.path for r in result.results if r.changed] == []
    assert "get_resource" in result.facts.get(ErrorFacts).held_functions
    notes = _reasons(result, Action.NOTE)
    assert any("handed to a call whose result" in why for why in notes)


UPLOADS = """
class Attachments:
    def upload_attachment(self, key, path):
        if not path:
            return {"success": False, "error": "No file path provided"}
        return {"success": True, "id": self.client.add(key, path)}

    def upload_attachments(self, key, paths):
        failed = []
        for path in paths:
            result = self.upload_attachment(key, path)
            if not result["success"]:
                failed.append({"path": path, "error": result["error"]})
        return {"success": not failed, "failed": failed}
"""

DOUBLES_THE_UPLOAD = """
from unittest.mock import patch

from uploads import Attachments


def test_mixed_results():
    mixin = Attachments()
    results = [{"success": True, "id": "1"}, {"success": False, "error": "File not found"}]
    with patch.object(mixin, "upload_attachment", side_effect=results):
        result = mixin.upload_attachments("T-1", ["a", "b"])
    assert result["failed"][0]["error"] == "File not found"


def test_a_single_failure():
    mixin = Attachments()
    mixin.upload_attachment = MagicMock()
    mixin.upload_attachment.return_value = {"success": False, "error": "File not found"}
"""


def test_an_error_dict_a_test_double_returns_holds_the_function_it_stands_for(
    tmp_path: Path,
) -> None:
    """``patch.object(mixin, "upload_attachment", side_effect=[..., {"success": False,
    "error": "File not found"}])``: the code under test reads the double's old shape, so
    ``upload_attachment`` keeps it (mcp-atlassian: ``upload_attachments`` read
    ``result["error"]["message"]`` of the double's string after apply)."""
    files = {"uploads.py": UPLOADS, "test_uploads.py": DOUBLES_THE_UPLOAD}
    result = _diff_project(tmp_path, files)
    assert [r.path for r in result.results if r.changed] == []
    assert "upload_attachment" in result.facts.get(ErrorFacts).doubled
    notes = _reasons(result, Action.NOTE)
    doubled = "a test double returns it for upload_attachment()"
    assert sum(doubled in why for why in notes) == 2
    skipped = _reasons(result, Action.SKIP)
    assert any("a test double returns an old-shaped error dict" in why for why in skipped)


MCP_TOOLS = """
import json


async def get_user_profile(user_identifier: str) -> str:
    try:
        return json.dumps({"success": True, "user": lookup(user_identifier)})
    except LookupError:
        return json.dumps({"success": False, "error": f"User {user_identifier!r} not found."})


async def get_all_projects() -> str:
    try:
        return json.dumps(list_projects())
    except OSError as e:
        error_result = {"success": False, "error": f"Projects not found: {e}"}
        return json.dumps(error_result)
"""

CALLS_THE_TOOLS = """
import json


async def test_profile_not_found(client):
    response = await client.call_tool("jira_get_user_profile", {"user_identifier": "x"})
    result_data = json.loads(response.content[0].text)
    assert result_data["success"] is False
    assert "not found" in result_data["error"]


async def test_projects_api_error(client):
    response = await client.call_tool("jira_get_all_projects", {})
    data = json.loads(response.content[0].text)
    assert "not found" in data["error"]
"""


def test_a_tool_called_by_name_is_read_as_its_function(tmp_path: Path) -> None:
    """``client.call_tool("jira_get_user_profile", ...)`` runs ``get_user_profile``: its
    test follows that function, which migrates, and the ``get_all_projects`` test stays
    with its function, which keeps the old shape (its dict is built in a local), though it
    expects words a migrated message has too. Judged as untraced responses by the message
    they expect, mcp-atlassian's server tests broke both ways after apply."""
    files = {"tools.py": MCP_TOOLS, "test_tools.py": CALLS_THE_TOOLS}
    result = _diff_project(tmp_path, files)
    test = next(r for r in result.results if r.path.endswith("test_tools.py"))
    assert test.new_text is not None
    assert '"not found" in result_data["error"]["message"]' in test.new_text
    assert 'assert "not found" in data["error"]\n' in test.new_text
    tools = next(r for r in result.results if Path(r.path).name == "tools.py")
    assert tools.new_text is not None and "ErrorDetail(" in tools.new_text


SEARCH_TOOL = """
def search(query):
    return {"status": "success", "data": run(query), "meta": {}}
"""

OWN_CLIENT = """
class Client:
    async def call_tool(self, name, arguments):
        try:
            return {"status": "success", "data": await self.fetch(name), "meta": {}}
        except OSError as e:
            return {"status": "error", "error": str(e), "data": [], "meta": {}}


async def test_search(client):
    result = await client.call_tool("search", {"query": "x"})
    assert "data" in result
    if result.get("status") == "error":
        print(f"search failed: {result.get('error')}")
"""


def test_a_dispatcher_the_repository_defines_is_what_its_call_runs(tmp_path: Path) -> None:
    """A test's own client whose ``call_tool`` builds its answers: the result is that
    method's, not the named tool's, so the test's read of ``data`` (which the envelope
    would move into ``error.details``) holds ``call_tool``. Read as a call of ``search``
    (rootly-mcp-server's remote tests), ``call_tool`` migrated and the reads broke."""
    files = {"tools.py": SEARCH_TOOL, "test_client.py": OWN_CLIENT}
    result = _diff_project(tmp_path, files)
    assert ("call_tool", "data") in result.facts.get(ErrorFacts).blocked
    assert [Path(r.path).name for r in result.results if r.changed] == []


CHECKS_A_TOOL_TOO_LITTLE = """
import json


async def test_profile_failure(client):
    response = await client.call_tool("jira_get_user_profile", {"user_identifier": "x"})
    data = json.loads(response.content[0].text)
    assert data["status"] == "error"
"""


def test_a_tool_failure_checked_where_no_rewrite_follows_holds_the_tool(tmp_path: Path) -> None:
    """The holds that read a test's failure checks know a tool called by name as its
    function too: ``data["status"] == "error"`` alone is too little to follow, so
    ``get_user_profile`` keeps its shape (``ErrorFacts.asserted``)."""
    tools = MCP_TOOLS.replace(
        '{"success": False, "error": f"User', '{"status": "error", "error": f"User'
    )
    files = {"tools.py": tools, "test_tools.py": CHECKS_A_TOOL_TOO_LITTLE}
    result = _diff_project(tmp_path, files)
    assert "get_user_profile" in result.facts.get(ErrorFacts).asserted
    assert [Path(r.path).name for r in result.results if r.changed] == []
    why = "a test checks the failure of get_user_profile()"
    assert any(why in reason for reason in _reasons(result, Action.SKIP))


END_TO_END_HELPER = """
async def call_tool(session, name, arguments):
    return await session.call_tool(name, arguments)


async def test_live_profile(session):
    assert await call_tool(session, "jira_get_user_profile", {"user_identifier": "me"})
"""


def test_a_module_function_named_like_the_dispatcher_elsewhere_is_not_what_a_client_runs(
    tmp_path: Path,
) -> None:
    """An end-to-end module's own ``async def call_tool(session, ...)`` helper cannot be what
    ``client.call_tool("jira_get_user_profile", ...)`` in another test module runs: that
    call still runs the tool, whose failure check holds it (mcp-atlassian: the helper made
    every client call untraced, the tools migrated and two unit tests broke)."""
    tools = MCP_TOOLS.replace(
        '{"success": False, "error": f"User', '{"status": "error", "error": f"User'
    )
    files = {
        "tools.py": tools,
        "test_tools.py": CHECKS_A_TOOL_TOO_LITTLE,
        "test_live_e2e.py": END_TO_END_HELPER,
    }
    result = _diff_project(tmp_path, files)
    assert "get_user_profile" in result.facts.get(ErrorFacts).asserted
    assert [r.path for r in result.results if r.changed] == []


BATCH = """
def batch_update(requests):
    if not requests:
        return {"error": "requests list cannot be empty"}
    return {"replies": []}
"""

COMPARES_THROUGH_TESTCASE = """
import unittest

from batch import batch_update


class TestBatch(unittest.TestCase):
    def test_empty(self):
        result = batch_update([])
        self.assertEqual(result, {"error": "requests list cannot be empty"})

    def test_empty_the_other_way_round(self):
        result = batch_update([])
        self.assertDictEqual({"error": "requests list cannot be empty"}, result, "empty")

    def test_not_empty(self):
        result = batch_update([1])
        self.assertNotEqual(result, {"error": "requests list cannot be empty"})


def test_plain_comparison():
    result = batch_update([])
    assert result == {"error": "requests list cannot be empty"}
"""

COMPARED_ON_THE_ENVELOPE = """
import unittest

from batch import batch_update


class TestBatch(unittest.TestCase):
    def test_empty(self):
        result = batch_update([])
        self.assertTrue(
            result["success"] is False
            and result["error"]["message"] == "requests list cannot be empty"
        )

    def test_empty_the_other_way_round(self):
        result = batch_update([])
        self.assertTrue(
            result["success"] is False
            and result["error"]["message"] == "requests list cannot be empty",
            "empty",
        )

    def test_not_empty(self):
        result = batch_update([1])
        self.assertFalse(
            result.get("success") is False
            and result["error"]["message"] == "requests list cannot be empty"
        )


def test_plain_comparison():
    result = batch_update([])
    assert (
        result["success"] is False
        and result["error"]["message"] == "requests list cannot be empty"
    )
"""


def test_a_dict_compared_through_test_case_methods_is_rewritten_as_the_comparison(
    tmp_path: Path,
) -> None:
    """``self.assertEqual(result, {"error": M})`` (and ``assertDictEqual``, either way
    round) is ``result == {"error": M}``: the same checks on the envelope, laid out as the
    project's formatter would. ``assertNotEqual`` is their negation, which a success
    response without a ``success`` key passes. The expected dicts are not look-alikes."""
    files = {"batch.py": BATCH, "test_batch.py": COMPARES_THROUGH_TESTCASE}
    result = _diff_project(tmp_path, files)
    test = next(r for r in result.results if r.path.endswith("test_batch.py"))
    assert test.new_text == textwrap.dedent(COMPARED_ON_THE_ENVELOPE)
    assert _reasons(result, Action.NOTE) == []


def test_the_rewritten_test_case_passes_after_apply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the test asserted before the migration, it asserts after: its suite passes."""
    for name, text in {"batch.py": BATCH, "test_batch.py": COMPARES_THROUGH_TESTCASE}.items():
        (tmp_path / name).write_text(textwrap.dedent(text), "utf-8")
    monkeypatch.chdir(tmp_path)
    applied = CliRunner().invoke(main, ["apply", ".", "-q"])
    assert applied.exit_code == 0, applied.output
    assert "ErrorDetail(" in (tmp_path / "batch.py").read_text("utf-8")
    suite = subprocess.run(
        [sys.executable, "-m", "unittest", "-q", "test_batch"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert suite.returncode == 0, suite.stderr


def test_the_call_shapes_read_without_matchers_are_the_matchers() -> None:
    """``x.get("k")`` and ``json.loads(...)`` are recognised by isinstance tests (the matchers
    were a twentieth of ``check``'s time); every call of the fixtures gets the matcher's
    answer."""
    import libcst.matchers as m

    from unsentinel.errors.readers import keyed_read
    from unsentinel.errors.shapes import is_json_loads

    fixtures = Path(__file__).parent.parent / "fixtures"
    extra = "json.loads(t); x.json.loads(t); loads(t); json.dumps(t); d.get(); d.get('k'); g('k')\n"
    sources = [extra] + [path.read_text("utf-8") for path in sorted(fixtures.rglob("*.py"))]
    calls = [
        node
        for source in sources
        for node in m.findall(cst.parse_module(source), m.Call())
        if isinstance(node, cst.Call)
    ]
    assert len(calls) > 1000
    for call in calls:
        json_loads = m.matches(call, m.Call(m.Attribute(m.Name("json"), m.Name("loads"))))
        assert is_json_loads(call) == json_loads
        is_get = m.matches(call.func, m.Attribute(attr=m.Name("get"))) and bool(call.args)
        assert (keyed_read(call) is not None) == is_get
    assert sum(map(is_json_loads, calls)) >= 2


FETCHER = """
import logging


async def fetch_structure():
    try:
        return {"constructs": await download()}
    except OSError as e:
        return {"error": f"Error fetching the structure: {e}"}


async def list_constructs():
    structure = await fetch_structure()
    if "error" in structure:
        logging.error(f"Cannot list: {structure['error']}")
        return []
    return structure["constructs"]
"""

BOUND_DOUBLES = {
    "with": """
from unittest.mock import AsyncMock, patch

from fetcher import list_constructs


async def test_an_error_lists_nothing():
    with patch("fetcher.fetch_structure", new=AsyncMock()) as fake:
        fake.return_value = {"error": "Test error"}
        assert await list_constructs() == []
""",
    "mocker": """
from fetcher import list_constructs


async def test_an_error_lists_nothing(mocker):
    fake = mocker.patch("fetcher.fetch_structure")
    fake.return_value = {"error": "Test error"}
    assert await list_constructs() == []
""",
}


@pytest.mark.parametrize("binding", sorted(BOUND_DOUBLES))
def test_a_double_bound_to_a_patcher_holds_the_function_it_stands_for(
    tmp_path: Path, binding: str
) -> None:
    """``with patch("pkg.fetch_structure", new=AsyncMock()) as fake:`` then
    ``fake.return_value = {"error": "Test error"}``: the double returns the old shape to
    ``list_constructs``, whose read of ``["error"]`` must stay (awslabs-cdk-mcp-server: the
    migrated reader took ``["message"]`` of the double's string)."""
    files = {"fetcher.py": FETCHER, "test_fetcher.py": BOUND_DOUBLES[binding]}
    result = _diff_project(tmp_path, files)
    assert [r.path for r in result.results if r.changed] == []
    assert "fetch_structure" in result.facts.get(ErrorFacts).doubled


SERVICE_CHECK = """
import json


async def check(name):
    try:
        return json.dumps({"ok": True, "data": await fetch(name)})
    except Exception as e:
        return json.dumps({"error": str(e), "error_type": "service_error"})
"""

PARSES_THE_AWAITED_TEXT = """
import json

from tools import check


async def test_a_service_error():
    result = json.loads(await check("x"))
    assert result.get("error_type") == "service_error"
"""


def test_text_parsed_straight_from_a_call_is_read_as_that_calls_result(tmp_path: Path) -> None:
    """``result = json.loads(await check("x"))`` binds what ``check`` built: the test's
    read of ``error_type`` (which the envelope moves into ``error.details``) holds it.
    Read as the result of ``loads``, it was untraced and ``check`` migrated
    (awslabs-cloudwatch-applicationsignals-mcp-server)."""
    files = {"tools.py": SERVICE_CHECK, "test_tools.py": PARSES_THE_AWAITED_TEXT}
    result = _diff_project(tmp_path, files)
    assert [r.path for r in result.results if r.changed] == []
    assert "check" in result.facts.get(ErrorFacts).held_functions


LIST_TABLES = """
import json


async def list_tables(database):
    if database != "main":
        return json.dumps(
            {
                "success": False,
                "database": database,
                "error": f"Database not found: {database}",
                "errorType": "NotFoundError",
            }
        )
    return json.dumps({"success": True, "tables": []})
"""

PARSES_THROUGH_ITS_OWN_HELPER = """
import json


def parse_json_result(result):
    text = result.content[0].text
    return json.loads(text)


async def test_missing_database(client):
    result = await client.call_tool_mcp("list_tables", {"database": "nope"})
    data = parse_json_result(result)
    assert data["success"] is False
    assert data["errorType"] == "NotFoundError"
"""


def test_a_reply_parsed_by_the_tests_own_helper_is_read_as_parsed_text(tmp_path: Path) -> None:
    """``data = parse_json_result(result)``, a helper of the test module that returns
    ``json.loads(...)``, reads the dict the tool built: ``errorType``, which the envelope
    moves into ``error.details``, follows the migrated tool. Read as the result of a
    function defined here that returns no error dict, the read was noted and left as it
    was while ``list_tables`` migrated (mcp-server-motherduck)."""
    files = {"tools.py": LIST_TABLES, "test_tools.py": PARSES_THROUGH_ITS_OWN_HELPER}
    result = _diff_project(tmp_path, files)
    test = next(r.new_text for r in result.results if r.path.endswith("test_tools.py"))
    assert test is not None
    assert 'data["error"]["details"]["errorType"] == "NotFoundError"' in test
    assert _reasons(result, Action.NOTE) == []
