"""A function's result has one error shape, and every reader of it follows that shape.

Each case restates, in our own words, a shape a new user's trial met on real packages:

* a function returns one migrated literal and ``return other(e)``, whose dict stays: its
  result has two shapes, so its group is held;
* a test reads the result through a wrapper (``def _call(c): return get_credits(c)``), and
  ``get_credits`` itself only returns ``_handle(...)``'s dicts: the readers follow them.

Each case is also applied, and the project's own tests must still pass.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from unsentinel.core.model import Action, Kind, Mode
from unsentinel.core.result import RunResult
from unsentinel.errors.facts import ErrorFacts
from unsentinel.registry import load_config, run


def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
    for package in ("pkg", "tests"):
        (root / package).mkdir(exist_ok=True)
        (root / package / "__init__.py").touch()
    return root


def _diff(root: Path) -> RunResult:
    return run([root], load_config((root,)), Mode.DIFF, jobs=1)


def _apply_and_test(root: Path, result: RunResult) -> None:
    """Write what ``diff`` would, then run the project's tests: they must still pass."""
    for changed in result.all_results:
        if changed.new_source is not None:
            Path(changed.path).write_bytes(changed.new_source)  # absolute, or from the cwd
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert tests.returncode == 0, tests.stdout[-3000:]


def _sites(result: RunResult, path: str, kind: Kind) -> list[tuple[Action, str]]:
    return [
        (s.action, s.reasons[0] if s.reasons else s.message)
        for r in result.results
        if r.path.endswith(path)
        for s in r.sites
        if s.kind is kind
    ]


def _changed(result: RunResult) -> list[str]:
    return sorted(Path(r.path).name for r in result.results if r.changed)


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
    root = _project(
        tmp_path,
        {"pkg/workflows.py": WORKFLOWS, "tests/test_workflows.py": READS_THE_WORKFLOW},
    )
    result = _diff(root)
    assert _changed(result) == []
    assert "get_workflow_status" in result.facts.get(ErrorFacts).held_functions
    [(action, why)] = [
        site for site in _sites(result, "workflows.py", Kind.ERROR) if site[0] is Action.SKIP
    ]
    assert "normalize_exception()" in why
    consumers = _sites(result, "test_workflows.py", Kind.CONSUMER)
    assert consumers and {action for action, _why in consumers} == {Action.SKIP}
    _apply_and_test(root, result)


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
    root = _project(tmp_path, {"pkg/tools.py": TOOLS, "tests/test_tools.py": TOOL_TESTS})
    result = _diff(root)
    assert _changed(result) == ["test_tools.py", "tools.py"]
    test = _new_text(result, "test_tools.py")
    assert test.count('assert result["success"] is False') == 2
    assert test.count('"Access denied" in result["error"]["message"]') == 2
    _apply_and_test(root, result)


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
    root = _project(tmp_path, files)
    result = _diff(root)
    assert _changed(result) == []
    facts = result.facts.get(ErrorFacts)
    assert {"handle_error", "_handle"} <= facts.held_functions
    assert not {"get_credits", "_call"} & (facts.forwarders | facts.error_functions)
    [(action, why)] = _sites(result, "tools.py", Kind.ERROR)
    assert action is Action.SKIP
    assert "handle_error()" in why
    _apply_and_test(root, result)


def test_a_held_function_holds_the_functions_whose_result_it_returns(tmp_path: Path) -> None:
    """``get_credits`` keeps an old-shaped dict of its own and returns ``_handle(...)``'s:
    its readers keep the old shape, so ``_handle`` must keep it too."""
    tools = TOOLS.replace(
        'return {"status": "success", "data": client.get()}',
        'data = client.get()\n        if data is None:\n            return {"error": data}\n'
        '        return {"status": "success", "data": data}',
    )
    root = _project(tmp_path, {"pkg/tools.py": tools, "tests/test_tools.py": TOOL_TESTS})
    result = _diff(root)
    assert _changed(result) == []
    skipped = [
        why for action, why in _sites(result, "tools.py", Kind.ERROR) if action is Action.SKIP
    ]
    assert len(skipped) == 2
    assert all("get_credits()" in why for why in skipped)
    _apply_and_test(root, result)
