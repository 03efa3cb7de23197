"""A function's result has one error shape, and every reader of it follows that shape.

Each case restates, in our own words, a shape a new user's trial met on real packages:

* a function returns one migrated literal and ``return other(e)``, whose dict stays: its
  result has two shapes, so its group is held;
* a test reads the result through a wrapper (``def _call(c): return get_credits(c)``), and
  ``get_credits`` itself only returns ``_handle(...)``'s dicts: the readers follow them;
* a test reads only keys the envelope moves (``result["error_type"]``, ``result["message"]``)
  with nothing to say it reads a failure: no rewrite follows it, so the producer is held;
* a test checks a key the envelope moves (``"message" in result``, ``result.get("k")``), or
  reads a second message key the rewrites would send to the wrong place: held too;
* and the near misses that must still migrate: a key the success dicts have too, a test
  that checks the result succeeded.

Each case is also applied, and the project's own tests must still pass.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from projects import (
    apply_and_run_tests,
    changed_names,
    diff_project,
    write_package_project,
)

from unsentinel.core.model import Action, Kind
from unsentinel.core.result import RunResult
from unsentinel.errors.facts import ErrorFacts


def _sites(result: RunResult, path: str, kind: Kind) -> list[tuple[Action, str]]:
    return [
        (s.action, s.reasons[0] if s.reasons else s.message)
        for r in result.results
        if r.path.endswith(path)
        for s in r.sites
        if s.kind is kind
    ]


def _new_text(result: RunResult, path: str) -> str:
    [text] = [r.new_text for r in result.results if r.path.endswith(path)]
    assert text is not None
    return text


# -- one function, two error shapes ----------------------------------------------------------

WORKFLOWS = """
def normalize_exception(e):
    r = e.to_error_response()
    return {"error": r.message, "error_type": r.error_type, "error_code": r.error_code}


def get_workflow_status(orchestrator, workflow_id):
    try:
        status = orchestrator.get(workflow_id)
        if status is None:
            return {"error": f"Workflow {workflow_id} not found", "error_type": "WorkflowNotFound"}
        return status
    except Exception as e:
        return normalize_exception(e)
"""

READS_THE_WORKFLOW = """
from pkg.workflows import get_workflow_status


class Empty:
    def get(self, workflow_id):
        return None


class Broken:
    def get(self, workflow_id):
        raise Failure()


class Failure(Exception):
    def to_error_response(self):
        return Response()


class Response:
    message = "orchestrator down"
    error_type = "Unavailable"
    error_code = 503


def test_missing():
    result = get_workflow_status(Empty(), "w1")
    assert "not found" in result["error"]


def test_broken():
    result = get_workflow_status(Broken(), "w1")
    assert "down" in result["error"]
"""


def test_a_function_returning_a_held_functions_result_is_held(tmp_path: Path) -> None:
    """``return normalize_exception(e)`` hands back a dict left as it is: rewriting the
    literal beside it would give ``get_workflow_status`` two error shapes, and the test of
    one branch or the other breaks. Both are held, like two literals of one function."""
    root = write_package_project(
        tmp_path,
        {"pkg/workflows.py": WORKFLOWS, "tests/test_workflows.py": READS_THE_WORKFLOW},
    )
    result = diff_project(root)
    assert changed_names(result) == []
    assert "get_workflow_status" in result.facts.get(ErrorFacts).held_functions
    [(action, why)] = [
        site for site in _sites(result, "workflows.py", Kind.ERROR) if site[0] is Action.SKIP
    ]
    assert "normalize_exception()" in why
    consumers = _sites(result, "test_workflows.py", Kind.CONSUMER)
    assert consumers and {action for action, _why in consumers} == {Action.SKIP}
    apply_and_run_tests(root, result)


def test_a_result_returned_through_a_local_links_like_a_returned_call(tmp_path: Path) -> None:
    """``response = normalize_exception(e)`` then ``return response`` hands back the same
    dict as ``return normalize_exception(e)``: the functions are one group all the same."""
    through_a_local = WORKFLOWS.replace(
        "        return normalize_exception(e)",
        "        response = normalize_exception(e)\n        return response",
    )
    assert through_a_local != WORKFLOWS
    root = write_package_project(
        tmp_path,
        {"pkg/workflows.py": through_a_local, "tests/test_workflows.py": READS_THE_WORKFLOW},
    )
    result = diff_project(root)
    assert changed_names(result) == []
    assert "get_workflow_status" in result.facts.get(ErrorFacts).held_functions
    apply_and_run_tests(root, result)


# -- readers through a wrapper ---------------------------------------------------------------

TOOLS = """
def _handle(e, code):
    if code == "AccessDenied":
        return {"status": "error", "error_type": "access_denied", "message": "Access denied"}
    return {"status": "error", "error_type": "other", "message": str(e)}


def get_credits(client):
    try:
        return {"status": "success", "data": client.get()}
    except Exception as e:
        return _handle(e, getattr(e, "code", ""))
"""

TOOL_TESTS = """
from pkg.tools import get_credits


class Denied(Exception):
    code = "AccessDenied"


class Client:
    def get(self):
        raise Denied()


def _call(client):
    return get_credits(client)


def test_denied_through_a_wrapper():
    result = _call(Client())
    assert result["status"] == "error"
    assert "Access denied" in result["message"]


def test_denied():
    result = get_credits(Client())
    assert result["status"] == "error"
    assert "Access denied" in result["message"]
"""


def test_readers_follow_a_producer_through_the_functions_that_return_its_result(
    tmp_path: Path,
) -> None:
    """``get_credits`` returns ``_handle(...)``'s dicts, and the test's ``_call`` returns
    ``get_credits(...)``'s: the readers of both follow ``_handle``'s migration."""
    root = write_package_project(
        tmp_path, {"pkg/tools.py": TOOLS, "tests/test_tools.py": TOOL_TESTS}
    )
    result = diff_project(root)
    assert changed_names(result) == ["test_tools.py", "tools.py"]
    test = _new_text(result, "test_tools.py")
    assert test.count('assert result["success"] is False') == 2
    assert test.count('"Access denied" in result["error"]["message"]') == 2
    apply_and_run_tests(root, result)


HELD_BASE = """
def handle_error(e):
    response = {"status": "error", "message": str(e)}
    response["error_type"] = type(e).__name__
    return response
"""

HANDLES_THROUGH_BASE = """
from pkg.base import handle_error


def _handle(e, code):
    if code == "AccessDenied":
        return {"status": "error", "error_type": "access_denied", "message": "Access denied"}
    return handle_error(e)


def get_credits(client):
    try:
        return {"status": "success", "data": client.get()}
    except Exception as e:
        return _handle(e, getattr(e, "code", ""))
"""


def test_a_held_function_returned_through_a_chain_holds_the_chain(tmp_path: Path) -> None:
    """``handle_error`` builds its dict in steps (held); ``_handle`` returns its result
    beside a literal of its own, and ``get_credits`` returns ``_handle``'s: one group,
    held as a whole, and the readers through the wrapper stay with it."""
    files = {
        "pkg/base.py": HELD_BASE,
        "pkg/tools.py": HANDLES_THROUGH_BASE,
        "tests/test_tools.py": TOOL_TESTS,
    }
    root = write_package_project(tmp_path, files)
    result = diff_project(root)
    assert changed_names(result) == []
    facts = result.facts.get(ErrorFacts)
    assert {"handle_error", "_handle"} <= facts.held_functions
    assert not {"get_credits", "_call"} & (facts.forwarders | facts.error_functions)
    [(action, why)] = _sites(result, "tools.py", Kind.ERROR)
    assert action is Action.SKIP
    assert "handle_error()" in why
    apply_and_run_tests(root, result)


def test_a_held_function_holds_the_functions_whose_result_it_returns(tmp_path: Path) -> None:
    """``get_credits`` keeps an old-shaped dict of its own and returns ``_handle(...)``'s:
    its readers keep the old shape, so ``_handle`` must keep it too."""
    tools = TOOLS.replace(
        'return {"status": "success", "data": client.get()}',
        'data = client.get()\n        if data is None:\n            return {"error": data}\n'
        '        return {"status": "success", "data": data}',
    )
    root = write_package_project(
        tmp_path, {"pkg/tools.py": tools, "tests/test_tools.py": TOOL_TESTS}
    )
    result = diff_project(root)
    assert changed_names(result) == []
    skipped = [
        why for action, why in _sites(result, "tools.py", Kind.ERROR) if action is Action.SKIP
    ]
    assert len(skipped) == 2
    assert all("get_credits()" in why for why in skipped)
    apply_and_run_tests(root, result)


# -- tests that read only what the envelope moves ----------------------------------------------

STATUSES = """
def get_status(store, workflow_id):
    status = store.get(workflow_id)
    if status is None:
        return {"error": f"Workflow {workflow_id} not found", "error_type": "WorkflowNotFound"}
    return status
"""

READS_THE_TYPE_ONLY = """
from pkg.statuses import get_status


def test_not_found():
    result = get_status({}, "w-missing")
    assert result["error_type"] == "WorkflowNotFound"
"""


def test_a_test_reading_only_a_moved_key_holds_its_producer(tmp_path: Path) -> None:
    """``result["error_type"]`` alone says nothing of a failure, so no reader rewrite
    follows it; after the move into ``error.details`` it raised ``KeyError``."""
    root = write_package_project(
        tmp_path, {"pkg/statuses.py": STATUSES, "tests/test_statuses.py": READS_THE_TYPE_ONLY}
    )
    result = diff_project(root)
    assert changed_names(result) == []
    [(action, why)] = _sites(result, "statuses.py", Kind.ERROR)
    assert action is Action.SKIP
    assert "'error_type'" in why and "get_status()" in why
    apply_and_run_tests(root, result)


def test_a_test_reading_only_the_message_holds_its_producer(tmp_path: Path) -> None:
    """``"Access denied" in result["message"]`` with no failure check: the message moves
    into ``error.message`` and no reader rewrite follows this read."""
    tests = TOOL_TESTS + textwrap.dedent(
        """

        def test_denied_without_a_status():
            result = get_credits(Client())
            assert "Access denied" in result["message"]
        """
    )
    root = write_package_project(tmp_path, {"pkg/tools.py": TOOLS, "tests/test_tools.py": tests})
    result = diff_project(root)
    assert changed_names(result) == []
    skipped = [
        why for action, why in _sites(result, "tools.py", Kind.ERROR) if action is Action.SKIP
    ]
    assert len(skipped) == 2
    assert all("'message'" in why for why in skipped)
    apply_and_run_tests(root, result)


SUCCESS_KEEPS_THE_KEY = """
def lookup(name):
    try:
        return {"stack_name": name, "status": fetch(name)}
    except OSError as e:
        return {"stack_name": name, "error": str(e)}


def fetch(name):
    return name.upper()
"""

READS_A_SUCCESS = """
from pkg.stacks import lookup


def test_found():
    result = lookup("web")
    assert result["stack_name"] == "web"
"""


def test_a_key_the_success_responses_have_too_holds_nothing(tmp_path: Path) -> None:
    """``stack_name`` is in the success dict as well: the test reads a success, which does
    not change, and the error dict migrates."""
    files = {"pkg/stacks.py": SUCCESS_KEEPS_THE_KEY, "tests/test_stacks.py": READS_A_SUCCESS}
    root = write_package_project(tmp_path, files)
    result = diff_project(root)
    assert changed_names(result) == ["stacks.py"]
    apply_and_run_tests(root, result)


# -- a key test of a key the envelope moves ----------------------------------------------------

REGIONS = """
def check(region):
    try:
        return {"region": region, "ok": probe(region)}
    except Exception as e:
        return {"region": region, "error": str(e), "message": "Error checking status."}


def probe(region):
    raise RuntimeError(region)
"""

CHECKS_THE_MESSAGE_KEY = """
from pkg.regions import check


def test_error():
    result = check("us-east-1")
    assert "error" in result
    assert "boom" not in result["error"]
    assert "message" in result
"""


def test_a_key_test_of_a_moved_key_holds_its_producer(tmp_path: Path) -> None:
    """``"message" in result`` is true of the old dict; the envelope moves that message
    into ``error.details``, so the test would fail though ``result["error"]`` follows."""
    root = write_package_project(
        tmp_path, {"pkg/regions.py": REGIONS, "tests/test_regions.py": CHECKS_THE_MESSAGE_KEY}
    )
    result = diff_project(root)
    assert changed_names(result) == []
    [(action, why)] = _sites(result, "regions.py", Kind.ERROR)
    assert action is Action.SKIP
    assert "'message'" in why
    apply_and_run_tests(root, result)


def test_a_get_of_a_moved_key_beside_a_followed_read_holds_its_producer(tmp_path: Path) -> None:
    """``result["error"]`` follows the migration, ``result.get("error_type")`` is a form the
    rewrites keep: it would read None from the envelope."""
    test = READS_THE_TYPE_ONLY.replace(
        '    assert result["error_type"] == "WorkflowNotFound"\n',
        '    assert "not found" in result["error"]\n'
        '    assert result.get("error_type") == "WorkflowNotFound"\n',
    )
    root = write_package_project(
        tmp_path, {"pkg/statuses.py": STATUSES, "tests/test_statuses.py": test}
    )
    result = diff_project(root)
    assert changed_names(result) == []
    [(action, why)] = _sites(result, "statuses.py", Kind.ERROR)
    assert action is Action.SKIP
    assert "'error_type'" in why
    apply_and_run_tests(root, result)


def test_a_read_of_a_second_message_key_holds_its_producer(tmp_path: Path) -> None:
    """``result["message"]`` of a dict whose message is ``"error"``: that ``"message"`` moves
    into ``error.details``, not to ``error.message``, where the reader rewrite sends it."""
    test = CHECKS_THE_MESSAGE_KEY.replace(
        'assert "message" in result', 'assert result["message"] == "Error checking status."'
    )
    root = write_package_project(
        tmp_path, {"pkg/regions.py": REGIONS, "tests/test_regions.py": test}
    )
    result = diff_project(root)
    assert changed_names(result) == []
    apply_and_run_tests(root, result)


TOOL_RUNNER = """
def run_tool(action, handlers):
    try:
        if action not in handlers:
            return {"status": "error", "error": f"Unknown action {action}"}
        return handlers[action]()
    except ValueError as e:
        return {"status": "error", "error": str(e)}
"""

CHECKS_A_SUCCESS = """
from pkg.runner import run_tool


def test_runs_the_action():
    result = run_tool("logs", {"logs": lambda: {"status": "success", "logs": []}})
    assert result["status"] == "success"
    assert result["logs"] == []
"""


def test_a_test_that_checks_a_success_holds_nothing(tmp_path: Path) -> None:
    """``result["status"] == "success"``: whatever else the test reads, it reads a success
    (the error dicts' status is only ever ``"error"``), and success dicts do not change."""
    files = {"pkg/runner.py": TOOL_RUNNER, "tests/test_runner.py": CHECKS_A_SUCCESS}
    root = write_package_project(tmp_path, files)
    result = diff_project(root)
    assert changed_names(result) == ["runner.py"]
    apply_and_run_tests(root, result)


FAILED_RUNNER = """
def run_tool(action, handlers):
    if action not in handlers:
        return {"success": False, "status": "failed", "error": f"Unknown action {action}"}
    return handlers[action]()
"""

CHECKS_A_FAILED_STATUS = """
from pkg.runner import run_tool


def test_unknown_action():
    result = run_tool("logs", {})
    assert result["status"] == "failed"
"""


def test_a_status_the_error_dicts_carry_as_data_is_no_sign_of_success(tmp_path: Path) -> None:
    """``{"success": False, "status": "failed", ...}`` drops its ``status``: a test that
    compares it with ``"failed"`` reads a failure, and holds the producer."""
    files = {"pkg/runner.py": FAILED_RUNNER, "tests/test_runner.py": CHECKS_A_FAILED_STATUS}
    root = write_package_project(tmp_path, files)
    result = diff_project(root)
    assert changed_names(result) == []
    apply_and_run_tests(root, result)


# -- a model's dump returned beside error dicts ----------------------------------------------

RULES = """
from dataclasses import dataclass, asdict


@dataclass
class RuleResponse:
    success: bool
    message: str


def fetch(rule_id):
    if rule_id == "ambiguous":
        return RuleResponse(success=False, message="rule name is not unique")
    return [] if rule_id == "missing" else [{"id": rule_id}]


def get_rule(rule_id):
    found = fetch(rule_id)
    if isinstance(found, RuleResponse):
        return asdict(found)
    if not found:
        return {"success": False, "message": f"Rule not found: {rule_id}"}
    return {"success": True, "rule": found[0]}


def manage_rule(rule_id):
    return get_rule(rule_id)
"""

READS_THE_RULES = """
from pkg.rules import manage_rule


def test_missing():
    result = manage_rule("missing")
    assert result["success"] is False
    assert "not found" in result["message"]


def test_ambiguous():
    result = manage_rule("ambiguous")
    assert result["success"] is False
    assert "not unique" in result["message"]
"""


def test_a_function_returning_a_models_dump_beside_error_dicts_is_held(tmp_path: Path) -> None:
    """``return found.model_dump()`` (here ``asdict``) of a response model with ``success``
    and ``message`` fields, beside a literal error dict: migrating the literal gave the
    function two failure shapes, and the readers, rewritten to ``["error"]["message"]``,
    broke on the dump (mfa-servicenow-mcp's business-rule tools). Held, with its tool."""
    root = write_package_project(
        tmp_path, {"pkg/rules.py": RULES, "tests/test_rules.py": READS_THE_RULES}
    )
    result = diff_project(root)
    assert changed_names(result) == []
    held = result.facts.get(ErrorFacts).held_functions
    assert "get_rule" in held and "asdict" not in held
    [(action, why)] = _sites(result, "rules.py", Kind.ERROR)
    assert action is Action.SKIP
    assert "returns a model's dump (asdict())" in why
    apply_and_run_tests(root, result)


# -- an error read out of another dict ----------------------------------------------------

ERROR_READ_OUT = """
def read_action(flow_id):
    found = lookup(flow_id)
    if found.get("_error"):
        return {"success": False, "error": found["_error"]}
    if not found.get("action"):
        return {"success": False, "error": f"no action in {flow_id}"}
    return {"success": True, "action": found["action"]}
"""


def test_an_error_read_out_of_another_dict_is_no_migrated_envelope(tmp_path: Path) -> None:
    """``{"success": False, "error": found["_error"]}`` carries whatever ``found`` held
    (a string, here): not the migrated envelope, so it is noted, and the literal beside it
    stays with it (mfa-servicenow-mcp's ``manage_flow_designer``)."""
    root = write_package_project(tmp_path, {"pkg/flows.py": ERROR_READ_OUT})
    result = diff_project(root)
    assert changed_names(result) == []
    actions = {action for action, _why in _sites(result, "flows.py", Kind.ERROR)}
    assert actions == {Action.NOTE, Action.SKIP}


# -- handlers called through a table ------------------------------------------------------------

DISPATCHED = """
def lookup(flow_id):
    return {"_error": f"{flow_id} not found"} if flow_id.startswith("x") else {"action": 1}


def _do_read(params):
    found = lookup(params["flow_id"])
    if found.get("_error"):
        return {"success": False, "error": found["_error"]}
    return {"success": True, "action": found["action"]}


def _do_list(params):
    if not params.get("scope"):
        return {"success": False, "error": "a scope is needed to list flows"}
    return {"success": True, "flows": []}


_DISPATCH = {"read": _do_read, "list": _do_list}


def manage_flows(action, params):
    handler = _DISPATCH.get(action)
    if handler is not None:
        return handler(params)
    return {"success": False, "error": f"Unknown action: {action}"}


def manage_flows_directly(action, params):
    if action not in _DISPATCH:
        return {"success": False, "error": f"Unknown action: {action}"}
    return _DISPATCH[action](params)
"""

READS_THE_DISPATCHER = """
from pkg.flows import manage_flows, manage_flows_directly


def test_read_error():
    result = manage_flows("read", {"flow_id": "x1"})
    assert result["success"] is False
    assert "not found" in result["error"]


def test_read_error_directly():
    result = manage_flows_directly("read", {"flow_id": "x1"})
    assert "not found" in result["error"]


def test_unknown_action():
    assert "Unknown" in manage_flows("compare", {})["error"]
"""


def test_a_dispatcher_is_one_group_with_the_handlers_of_its_table(tmp_path: Path) -> None:
    """``handler = _DISPATCH.get(action)`` ... ``return handler(params)`` returns whatever
    the handler returns: a reader of the dispatcher meets the error shape of ``_do_read``,
    which is held (its error is read out of another dict). The dispatcher's own literal
    must stay with it, and so must ``_do_list``, which the same readers may reach."""
    root = write_package_project(
        tmp_path, {"pkg/flows.py": DISPATCHED, "tests/test_flows.py": READS_THE_DISPATCHER}
    )
    result = diff_project(root)
    held = result.facts.get(ErrorFacts).held_functions
    assert {"manage_flows", "manage_flows_directly", "_do_read", "_do_list"} <= held
    assert changed_names(result) == []
    apply_and_run_tests(root, result)


FILLED_LATER = {
    "update": (
        "_DISPATCH: dict = {}",
        '_DISPATCH.update({"read": _do_read, "list": _do_list})',
    ),
    "item by item": (
        "_DISPATCH = {}",
        '_DISPATCH["read"] = _do_read\n_DISPATCH["list"] = _do_list',
    ),
}


@pytest.mark.parametrize("filling", sorted(FILLED_LATER))
def test_a_table_filled_after_its_handlers_dispatches_to_them(tmp_path: Path, filling: str) -> None:
    """``_ACTION_MAP: dict = {}`` filled by ``_ACTION_MAP.update({...})`` after the handlers
    are defined dispatches to them as a literal table does (awslabs-cloudwatch-
    applicationsignals-mcp-server: the handlers migrated under tests reading their
    ``error_type`` through the dispatcher; 14 broke)."""
    declared, filled = FILLED_LATER[filling]
    flows = DISPATCHED.replace(
        '_DISPATCH = {"read": _do_read, "list": _do_list}', f"{declared}\n{filled}"
    )
    root = write_package_project(
        tmp_path, {"pkg/flows.py": flows, "tests/test_flows.py": READS_THE_DISPATCHER}
    )
    result = diff_project(root)
    held = result.facts.get(ErrorFacts).held_functions
    assert {"manage_flows", "_do_read", "_do_list"} <= held
    assert changed_names(result) == []
    apply_and_run_tests(root, result)


def test_a_table_of_anything_but_functions_dispatches_nothing(tmp_path: Path) -> None:
    """A dict of values (``{"read": "r", "list": 2}``) is no handler table: looking a value
    up in it links the function to nothing, and its error dicts migrate on their own."""
    values = """
    LIMITS = {"read": "r", "list": 2}


    def limit_for(action):
        if action not in LIMITS:
            return {"success": False, "error": f"Unknown action: {action}"}
        return {"success": True, "limit": LIMITS.get(action)}
    """
    root = write_package_project(tmp_path, {"pkg/limits.py": values})
    result = diff_project(root)
    assert changed_names(result) == ["limits.py"]


# -- an error value chosen between two texts -----------------------------------------------------

CHOSEN_TEXT = """
def read_sheet(sheets, name):
    try:
        return {"success": True, "rows": sheets[name]}
    except KeyError as exc:
        return {"success": False, "error": str(exc.args[0]) if exc.args else str(exc)}
    except TypeError as exc:
        return {"success": False, "error": f"Bad sheet name: {exc}"}
"""

READS_THE_SHEET = """
from pkg.sheets import read_sheet


def test_unknown_sheet():
    result = read_sheet({"Summary": []}, "Missing")
    assert result["success"] is False
    assert "Missing" in result["error"]
"""


def test_an_error_chosen_between_two_texts_migrates_with_the_rest(tmp_path: Path) -> None:
    """``str(exc.args[0]) if exc.args else str(exc)`` is a message either way: the dict
    migrates like its neighbour. Left alone (it was neither a candidate nor a note), the
    function returned two shapes and the test of the ``KeyError`` branch broke."""
    root = write_package_project(
        tmp_path, {"pkg/sheets.py": CHOSEN_TEXT, "tests/test_sheets.py": READS_THE_SHEET}
    )
    result = diff_project(root)
    text = _new_text(result, "pkg/sheets.py")
    assert "message=str(exc.args[0]) if exc.args else str(exc)" in text
    assert text.count("ErrorDetail(") == 2
    apply_and_run_tests(root, result)


def test_an_error_chosen_between_other_values_holds_the_function(tmp_path: Path) -> None:
    """``exc.detail if exc.detail else exc.args`` may be anything: the dict is noted, not
    taken for the migrated envelope, and the literal beside it stays with it."""
    chosen = CHOSEN_TEXT.replace(
        "str(exc.args[0]) if exc.args else str(exc)", "exc.args[0] if exc.args else exc.args"
    )
    assert chosen != CHOSEN_TEXT
    root = write_package_project(
        tmp_path, {"pkg/sheets.py": chosen, "tests/test_sheets.py": READS_THE_SHEET}
    )
    result = diff_project(root)
    assert changed_names(result) == []
    actions = {action for action, _why in _sites(result, "sheets.py", Kind.ERROR)}
    assert actions == {Action.NOTE, Action.SKIP}
    apply_and_run_tests(root, result)


# -- a coroutine run to its result --------------------------------------------------------------

RESOURCE = """
import json


class Missing(Exception):
    pass


class ItemResource:
    def __init__(self, items):
        self.items = items

    async def get_item(self, name):
        try:
            if name not in self.items:
                raise Missing(f"HTTP 404 for {name}")
            return json.dumps({"success": True, "item": self.items[name]})
        except Missing as exc:
            return json.dumps({"success": False, "error": f"Error getting item: {exc}"})
"""

READS_THE_RESOURCE = """
import asyncio
import json

from pkg.resource import ItemResource


def test_missing_item():
    result = asyncio.run(ItemResource({}).get_item("x"))
    parsed = json.loads(result)
    assert "Error getting item" in parsed["error"]
"""


def test_a_result_of_asyncio_run_is_read_like_the_coroutines_own(tmp_path: Path) -> None:
    """``asyncio.run(resource.get_item("x"))`` hands back what ``get_item`` returns: the
    test's read of ``parsed["error"]`` follows its migration. Where the repository defines a
    ``run()`` of its own, the read was taken for a read of that and left in the old shape."""
    files = {
        "pkg/resource.py": RESOURCE,
        "pkg/cli.py": "def run(argv):\n    return 0\n",
        "tests/test_resource.py": READS_THE_RESOURCE,
    }
    root = write_package_project(tmp_path, files)
    result = diff_project(root)
    assert changed_names(result) == ["resource.py", "test_resource.py"]
    assert 'parsed["error"]["message"]' in _new_text(result, "tests/test_resource.py")
    apply_and_run_tests(root, result)


# -- an annotated local returned -----------------------------------------------------------------

ANNOTATED_LOCAL = """
from typing import Any, Dict


def get_script(name, records, near):
    try:
        if not records:
            result: Dict[str, Any] = {
                "success": False,
                "message": f"Script not found: {name}",
            }
            if near:
                result["did_you_mean"] = near
            return result
        return {"success": True, "script": records[0]}
    except ValueError as e:
        return {"success": False, "message": f"Error getting script: {e}"}
"""

READS_THE_ANNOTATED_LOCAL = """
from pkg.scripts import get_script


def test_not_found():
    result = get_script("x", [], [])
    assert result["success"] is False
    assert "not found" in result["message"]


def test_suggestions():
    result = get_script("x", [], ["xy"])
    assert result["did_you_mean"] == ["xy"]
"""


def test_an_error_dict_bound_to_an_annotated_local_is_returned(tmp_path: Path) -> None:
    """``result: Dict[str, Any] = {...}`` ... ``return result`` returns the dict like
    ``result = {...}`` does: it is one of the function's error dicts. Left out, the other
    literal migrated alone and the readers read the new keys off the old shape; counted,
    the key written after it (``did_you_mean``, which a test reads where it is) holds both."""
    root = write_package_project(
        tmp_path,
        {"pkg/scripts.py": ANNOTATED_LOCAL, "tests/test_scripts.py": READS_THE_ANNOTATED_LOCAL},
    )
    result = diff_project(root)
    assert changed_names(result) == []
    actions = {action for action, _why in _sites(result, "pkg/scripts.py", Kind.ERROR)}
    assert actions == {Action.NOTE, Action.SKIP}  # the one written to after, the other held
    apply_and_run_tests(root, result)


# -- details that are a text -------------------------------------------------------------------

TEXT_DETAILS = """
def make_policy(region):
    try:
        if not region.startswith("us-"):
            raise ValueError(f"Invalid region format: {region}")
        return {"policy": {"region": region}}
    except ValueError as e:
        return {
            "error": "Parameter validation failed",
            "details": str(e),
            "security_note": "All parameters must pass validation",
        }
"""

READS_THE_TEXT_DETAILS = """
from pkg.policies import make_policy


def test_invalid_region():
    result = make_policy("eu-1")
    assert "Parameter validation failed" in result["error"]
    assert "Invalid region" in result["details"]
"""


def test_details_that_are_a_text_are_noted_not_spread(tmp_path: Path) -> None:
    """``"details": str(e)`` cannot be spread into the envelope's details (``**str(e)``
    raised ``TypeError: 'str' object is not a mapping`` at run time): the dict is noted
    for review, and nothing of its function changes."""
    root = write_package_project(
        tmp_path,
        {"pkg/policies.py": TEXT_DETAILS, "tests/test_policies.py": READS_THE_TEXT_DETAILS},
    )
    result = diff_project(root)
    assert changed_names(result) == []
    [(action, why)] = _sites(result, "pkg/policies.py", Kind.ERROR)
    assert action is Action.NOTE
    assert "'details' value `str(e)` is a text" in why
    apply_and_run_tests(root, result)


# -- an untraced reader expecting a message a dict left alone also has ---------------------------

TEMPLATES = """
import json


def template_resource(name):
    if name not in ("backend", "frontend"):
        return {"contents": [{"text": json.dumps({"error": f"Template '{name}' not found"})}]}
    return {"contents": [{"text": json.dumps({"name": name})}]}


def deploy(name):
    if name not in ("backend", "frontend"):
        return {"success": False, "error": f"Template '{name}' not found"}
    return {"success": True, "name": name}
"""

READS_THE_RESOURCE_TEXT = """
import json

from pkg.templates import template_resource


def test_missing_template():
    name = "nope"
    result = template_resource(name)
    error = json.loads(result["contents"][0]["text"])
    assert f"Template '{name}' not found" in error["error"]
"""


def test_an_untraced_read_of_a_message_left_alone_too_is_not_rewritten(tmp_path: Path) -> None:
    """The test parses a resource's text the flow does not follow, and expects a message
    that a migrated dict (``deploy``) and a dict left alone (the resource's
    ``json.dumps({"error": ...})`` inside a list) both have: it may read the one left
    alone, so it stays as it is."""
    root = write_package_project(
        tmp_path,
        {"pkg/templates.py": TEMPLATES, "tests/test_templates.py": READS_THE_RESOURCE_TEXT},
    )
    result = diff_project(root)
    assert changed_names(result) == ["templates.py"]  # deploy() migrates
    apply_and_run_tests(root, result)


# -- one test local bound twice ------------------------------------------------------------------

TWO_ACTIONS = """
def run_tool(action, targets=None):
    if action == "analyze":
        if not targets:
            return {"error": "targets required for the analyze action"}
        return {"analysis": targets}
    if action == "validate":
        return {"validation_result": "failed", "failed_causes": ["no configuration"]}
    return {"error": f"Unknown action: {action}"}
"""

READS_TWO_RESPONSES = """
from pkg.tool import run_tool


def test_actions():
    result = run_tool("analyze")
    assert "targets required" in result["error"]
    result = run_tool("validate")
    assert "validation_result" in result and result["validation_result"] == "failed"
"""


def test_each_binding_of_a_test_local_is_read_on_its_own_evidence(tmp_path: Path) -> None:
    """``result`` holds a failure, then a data response: the read of the second's
    ``validation_result`` is no read of an error's detail (rewritten to
    ``result["error"]["details"][...]`` beside a key test that stayed, it raised
    ``KeyError``). The first binding's read follows the migration."""
    root = write_package_project(
        tmp_path, {"pkg/tool.py": TWO_ACTIONS, "tests/test_tool.py": READS_TWO_RESPONSES}
    )
    result = diff_project(root)
    text = _new_text(result, "tests/test_tool.py")
    assert 'result["error"]["message"]' in text
    assert 'result["validation_result"] == "failed"' in text
    apply_and_run_tests(root, result)
