"""Generic error checks: code that tells an error dict by its old keys, whatever produced it.

A middleware or a helper that receives a result as a parameter (or from a call the flow
cannot trace) and tests ``result.get("status") == "error"`` decides on the old shape. No
reader rewrite follows it, so an error dict migrated under it passes unseen: a new-user
trial saw a test double migrated with its readers bypass such a check, and in the real
package a middleware and a retry mapping stop firing for every migrated tool response.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import changed_names, diff_project

from unsentinel.core.model import Action
from unsentinel.core.runner import RunResult
from unsentinel.errors.code import infer_error_code
from unsentinel.errors.facts import ErrorFacts

SIGNALS = """
def signal_errors(result):
    if isinstance(result, dict) and result.get("status") == "error":
        return {"is_error": True, "body": result}
    return {"is_error": False, "body": result}
"""

DOUBLE_IN_A_TEST = """
from pkg.server import signal_errors


def test_dict_error_is_signalled():
    def failing_tool() -> dict:
        return {"status": "error", "error_type": "ThrottlingException", "message": "slow"}

    out = signal_errors(failing_tool())
    assert out["is_error"] is True
"""


def _skipped(result: RunResult) -> list[str]:
    return [s.reasons[0] for r in result.results for s in r.sites if s.action is Action.SKIP]


def test_an_error_dict_passed_to_a_generic_check_is_held(tmp_path: Path) -> None:
    """``signal_errors(failing_tool())``: ``signal_errors`` tests ``status`` of whatever it
    is given. Migrated, the double's dict has no ``status`` and the check says it is no
    error; the test failed after apply. The double keeps its shape, with the reason."""
    files = {
        "pkg/__init__.py": "",
        "pkg/server.py": SIGNALS,
        "tests/__init__.py": "",
        "tests/test_mw.py": DOUBLE_IN_A_TEST,
    }
    result = diff_project(tmp_path, files)
    assert changed_names(result) == []
    facts = result.facts.get(ErrorFacts)
    assert "failing_tool" in facts.held_functions
    [why] = _skipped(result)
    assert "signal_errors()" in why and "'status'" in why


MIDDLEWARE = """
class ErrorSignaling:
    async def on_call_tool(self, context, call_next):
        result = await call_next(context)
        content = result.structured_content
        if isinstance(content, dict) and content.get("status") == "error":
            return mark_failed(result)
        return result
"""

TOOLS = """
def describe(name):
    try:
        return {"status": "ok", "item": fetch(name)}
    except LookupError as e:
        return {"status": "error", "message": f"No item {name}: {e}"}


def remove(name):
    try:
        drop(name)
    except LookupError as e:
        return {"success": False, "error": f"Cannot remove {name}: {e}"}
    return {"success": True}
"""


def test_a_generic_check_holds_every_producer_with_the_key_it_tests(tmp_path: Path) -> None:
    """A middleware reads each tool's result through ``call_next``: no call in the
    repository passes ``describe``'s dict to it, yet the framework does. Every producer
    whose error dict carries what it tests (``"status": "error"``) is held; one whose dicts
    it never told apart by that key (``remove``'s ``success: False``) migrates."""
    files = {"server.py": MIDDLEWARE, "tools.py": TOOLS}
    result = diff_project(tmp_path, files)
    tools = next(r for r in result.results if Path(r.path).name == "tools.py")
    assert tools.new_text is not None
    assert '{"status": "error", "message": f"No item {name}: {e}"}' in tools.new_text
    assert 'message=f"Cannot remove {name}: {e}"' in tools.new_text
    facts = result.facts.get(ErrorFacts)
    assert "describe" in facts.held_functions and "remove" not in facts.held_functions
    assert any("on_call_tool()" in why and "'status'" in why for why in _skipped(result))


LOOKS_FAILED = """
def looks_failed(outcome: dict) -> bool:
    # Tools grew up with different conventions; any of them is a failed call.
    return (
        outcome.get("success") is False
        or outcome.get("ok") is False
        or outcome.get("status") == "error"
        or bool(outcome.get("error"))
    )
"""


def test_a_generic_check_that_knows_the_envelope_holds_nothing(tmp_path: Path) -> None:
    """A check that also tests ``success`` tells the envelope from a success as it told the
    old dict: the producers migrate under it."""
    files = {"server.py": LOOKS_FAILED, "tools.py": TOOLS}
    result = diff_project(tmp_path, files)
    assert changed_names(result) == ["tools.py"]
    assert result.facts.get(ErrorFacts).held_functions == frozenset()


RETRY = """
RETRYABLE = {"ThrottlingException"}


def retry_hint(response):
    if response.get("success") is False:
        return response.get("error_type") in RETRYABLE
    return False
"""

TYPED_TOOLS = """
def throttled():
    return {"success": False, "error": "slow down", "error_type": "ThrottlingException"}


def missing():
    return {"success": False, "error": "no such item"}
"""


def test_a_key_a_generic_check_reads_that_would_move_holds_its_producers(
    tmp_path: Path,
) -> None:
    """The check knows the envelope's ``success``, but then reads ``error_type`` at the top
    level, where the migration no longer puts it: only the producers whose error dicts carry
    that key are held."""
    files = {"retry.py": RETRY, "tools.py": TYPED_TOOLS}
    result = diff_project(tmp_path, files)
    facts = result.facts.get(ErrorFacts)
    assert "throttled" in facts.held_functions and "missing" not in facts.held_functions
    assert any("retry_hint()" in why and "'error_type'" in why for why in _skipped(result))


def test_a_declared_error_type_is_named_as_such_in_the_reason() -> None:
    """``"error_type": "ThrottlingException"`` is no ``except`` clause: the code's reason
    says where it came from."""
    found = infer_error_code(None, (), "slow", declared="ThrottlingException")
    assert found.value == "RATE_LIMIT_EXCEEDED"
    assert found.reason is not None
    assert "except" not in found.reason
    assert "declared error type 'ThrottlingException'" in found.reason
    handled = infer_error_code(None, ("ValueError",), "slow", declared="ThrottlingException")
    assert handled.reason is not None and "except ValueError" in handled.reason


DESCRIBE = """
def describe(result):
    if result.get("success") is False:
        return "failed: " + result["error"]
    return "done"
"""


@pytest.mark.parametrize(
    "call",
    ["describe(missing())", "describe(result=missing())", "r = missing()\n    describe(r)"],
    ids=["direct", "keyword", "through-a-local"],
)
def test_a_result_handed_to_a_helper_that_reads_its_old_keys_holds_its_producer(
    tmp_path: Path, call: str
) -> None:
    """``describe(missing())``: the helper knows the envelope's ``success``, but then reads
    the ``error`` string of what it was given. Only the producer handed to it is held; a
    generic check would be no reason to hold ``throttled`` (nothing passes it)."""
    imports = "from describe import describe\nfrom tools import missing\n"
    test = f"{imports}\n\ndef test_it():\n    {call}\n"
    files = {"describe.py": DESCRIBE, "tools.py": TYPED_TOOLS, "test_describe.py": test}
    result = diff_project(tmp_path, files)
    facts = result.facts.get(ErrorFacts)
    assert "missing" in facts.held_functions and "throttled" not in facts.held_functions
    assert any("describe()" in why and "'error'" in why for why in _skipped(result))
