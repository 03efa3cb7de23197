"""Test readers follow a migrated producer only on evidence that names one.

Each case restates, in our own words, a shape a new-user trial met on real packages: a test
calling its function through a local alias, and a test whose expected strings merely occur
inside a migrated message (or belong to a key that is no message at all). Rewritten, the
tests read ``res["error"]["message"]`` of a dict that never changed, and failed after apply.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from projects import diff_project

from unsentinel.core.model import Action, Kind
from unsentinel.core.runner import RunResult

DETAILS = """
def get_data(rec):
    try:
        return rec["x"]
    except Exception as e:
        return {"error": f"Error getting Cost Explorer data: {e}"}
"""

# Builds its response through a helper: no error dict literal, nothing UNS501 migrates.
EXPLORER = """
def format_response(status, data, message=None, service=None):
    return {"status": status, "data": data, "message": message, "service": service}


def cost_explorer(op):
    return format_response("error", {}, "bad op", service="Cost Explorer")
"""

# A dict built in steps: a look-alike left as it is, so not every error dict migrates.
LEFT_ALONE = """

def other(x):
    r = {"error": "y"}
    r["k"] = 1
    return r
"""


def _test_file(result: RunResult) -> tuple[str | None, list[str]]:
    """The test module's new text (None: unchanged) and the reasons of its notes."""
    test = next(r for r in result.results if Path(r.path).name == "test_explorer.py")
    notes = [s.reasons[0] for s in test.sites if s.action is Action.NOTE]
    return test.new_text, notes


def _explorer_test(body: str) -> str:
    return "from pkg import explorer\n\n\ndef test_explorer():\n" + textwrap.indent(
        textwrap.dedent(body), "    "
    )


ALIASED = """
real_fn = explorer.cost_explorer
res = real_fn("x")
assert res["status"] == "error"
assert res["message"] == "bad op"
assert res["service"] == "Cost Explorer"
"""


@pytest.mark.parametrize("left_alone", [False, True], ids=["all-migrate", "some-left"])
def test_a_function_called_through_an_alias_is_read_as_that_function(
    tmp_path: Path, left_alone: bool
) -> None:
    """``real_fn = explorer.cost_explorer; res = real_fn("x")`` calls ``cost_explorer``,
    which migrates nothing: the test stays, as it does for ``explorer.cost_explorer("x")``.
    Read as an untraced response, it was rewritten whenever every error dict migrated."""
    files = {
        "pkg/__init__.py": "",
        "pkg/details.py": DETAILS + (LEFT_ALONE if left_alone else ""),
        "pkg/explorer.py": EXPLORER,
        "tests/test_explorer.py": _explorer_test(ALIASED),
    }
    new_text, notes = _test_file(diff_project(tmp_path, files))
    assert new_text is None
    assert len(notes) == 3
    assert all("cost_explorer() is defined here" in why for why in notes)


def test_an_alias_bound_at_module_level_is_read_as_its_function(tmp_path: Path) -> None:
    """``real_fn = explorer.cost_explorer`` at the top of the test module names the same
    function for every test that calls it."""
    test = _explorer_test(ALIASED.replace("real_fn = explorer.cost_explorer\n", ""))
    test = test.replace(
        "\n\n\ndef test_explorer", "\nreal_fn = explorer.cost_explorer\n\n\ndef test_explorer"
    )
    files = {
        "pkg/__init__.py": "",
        "pkg/details.py": DETAILS,
        "pkg/explorer.py": EXPLORER,
        "tests/test_explorer.py": test,
    }
    new_text, notes = _test_file(diff_project(tmp_path, files))
    assert new_text is None
    assert len(notes) == 3 and all("cost_explorer() is defined here" in why for why in notes)


def test_an_alias_bound_twice_is_no_alias(tmp_path: Path) -> None:
    """A local bound twice may call either function: it is not resolved (and the reader,
    whose producer cannot be traced, expects no migrated message: it stays)."""
    body = ALIASED.replace(
        "real_fn = explorer.cost_explorer\n",
        "real_fn = explorer.cost_explorer\nif flaky:\n    real_fn = explorer.backup\n",
    )
    files = {
        "pkg/__init__.py": "",
        "pkg/details.py": DETAILS,
        "pkg/explorer.py": EXPLORER,
        "tests/test_explorer.py": _explorer_test(body),
    }
    new_text, notes = _test_file(diff_project(tmp_path, files))
    assert new_text is None
    assert notes and all("cannot be traced" in why for why in notes)


# A response no call traces: an HTTP test client's.
UNTRACED = """
res = client.get("/explorer").json()
assert res["status"] == "error"
{checks}
"""


@pytest.mark.parametrize(
    "checks",
    [
        'assert res["message"] == "bad op"\nassert res["service"] == "Cost Explorer"',
        'assert res["message"] == "Cost Explorer"',
        'assert res["message"] == "Error getting Cost Explorer"',
        'assert res["detail"] == "Cost Explorer data"',
        'assert res["message"] == "bad op"\n'
        'assert res["service"] == "Error getting Cost Explorer data: boom"',
    ],
    ids=[
        "other-key",
        "substring-as-equal",
        "prefix-as-equal",
        "piece-as-equal",
        "whole-message-under-another-key",
    ],
)
def test_an_untraced_reader_needs_a_migrated_message_as_its_message(
    tmp_path: Path, checks: str
) -> None:
    """Where some error dict stays as it is, an untraced reader follows only a message it
    expects of a migrated one, read as a message and compared the way the test compares:
    a string that merely occurs inside a migrated message is no evidence for an equality,
    and a string compared with any other key is no evidence at all."""
    files = {
        "pkg/__init__.py": "",
        "pkg/details.py": DETAILS + LEFT_ALONE,
        "tests/test_explorer.py": _explorer_test(UNTRACED.format(checks=checks)),
    }
    new_text, notes = _test_file(diff_project(tmp_path, files))
    assert new_text is None
    assert notes and all("expects no message of a migrated one" in why for why in notes)


@pytest.mark.parametrize(
    ("check", "read"),
    [
        (
            'assert res["message"] == "Error getting Cost Explorer data: boom"',
            'res["error"]["message"] == "Error getting Cost Explorer data: boom"',
        ),
        (
            'assert "Cost Explorer data" in res["message"]',
            '"Cost Explorer data" in res["error"]["message"]',
        ),
        (
            'assert res["message"].startswith("Error getting Cost")',
            'res["error"]["message"].startswith("Error getting Cost")',
        ),
    ],
    ids=["whole-message", "contained", "prefix"],
)
def test_an_untraced_reader_follows_a_migrated_message(
    tmp_path: Path, check: str, read: str
) -> None:
    """The whole message (its placeholders match anything), or a piece of it searched for
    (``in``, ``startswith``), names the migrated producer: the reader follows it, and its
    plan entries say which message it expects."""
    files = {
        "pkg/__init__.py": "",
        "pkg/details.py": DETAILS + LEFT_ALONE,
        "tests/test_explorer.py": _explorer_test(UNTRACED.format(checks=check)),
    }
    result = diff_project(tmp_path, files)
    new_text, _notes = _test_file(result)
    assert new_text is not None and read in new_text
    test = next(r for r in result.results if Path(r.path).name == "test_explorer.py")
    rewrites = [s for s in test.sites if s.action is Action.REWRITE]
    assert rewrites and all("expects" in " ".join(s.reasons) for s in rewrites)


def test_a_call_through_a_parameter_needs_a_migrated_message(tmp_path: Path) -> None:
    """``res = tool("x")`` with ``tool`` a fixture: the callee is a value of the test, which
    may be any function the repository defines, one that migrates nothing included. Even
    where every error dict migrates it follows only a migrated message (here none)."""
    body = ALIASED.replace(
        'real_fn = explorer.cost_explorer\nres = real_fn("x")', 'res = tool("x")'
    )
    test = _explorer_test(body).replace("def test_explorer():", "def test_explorer(tool):")
    files = {
        "pkg/__init__.py": "",
        "pkg/details.py": DETAILS,
        "pkg/explorer.py": EXPLORER,
        "tests/test_explorer.py": test,
    }
    new_text, notes = _test_file(diff_project(tmp_path, files))
    assert new_text is None
    assert notes and all("cannot be traced" in why for why in notes)


def test_every_reader_rewrite_says_why(tmp_path: Path) -> None:
    """A rewritten read names the producer it was traced to, or the evidence it followed."""
    traced = _explorer_test(
        """
        res = details.get_data({})
        assert res["error"] == "Error getting Cost Explorer data: 'x'"
        """
    ).replace("from pkg import explorer", "from pkg import details")
    files = {
        "pkg/__init__.py": "",
        "pkg/details.py": DETAILS,
        "tests/test_explorer.py": traced,
    }
    result = diff_project(tmp_path, files)
    test = next(r for r in result.results if Path(r.path).name == "test_explorer.py")
    [site] = [s for s in test.sites if s.kind is Kind.CONSUMER]
    assert site.action is Action.REWRITE
    assert any("get_data() returns an error dict UNS501 migrates" in why for why in site.reasons)
    untraced = _explorer_test(UNTRACED.format(checks='assert "boom" in res["error"]'))
    result = diff_project(tmp_path, {"tests/test_explorer.py": untraced})
    test = next(r for r in result.results if Path(r.path).name == "test_explorer.py")
    sites = [s for s in test.sites if s.kind is Kind.CONSUMER]
    assert sites and all(s.action is Action.REWRITE for s in sites)
    assert all("cannot be traced" in " ".join(s.reasons) for s in sites)


@pytest.mark.parametrize(
    ("message", "text", "whole", "follows"),
    [
        ('"Note not found"', "Note not found", True, True),
        ('"Note not found"', "Note not", True, False),
        ('"Note not found"', "Note not", False, True),
        ('f"Note {n} not found"', "Note 7 not found", True, True),
        ('f"Note {n} not found"', "Note 7", True, False),
        ('f"Note {n} not found"', "7 not found", False, False),
        ('"Note %s not found" % n', "Note 7 not found", True, True),
        ('"Unknown tool: " + name', "Unknown tool: drop", True, True),
        ("str(e)", "anything at all", True, False),
        ('f"Error: {e}"', "Error: disk full", True, False),
    ],
)
def test_which_expected_string_names_a_migrated_message(
    message: str, text: str, whole: bool, follows: bool
) -> None:
    """An equality names a message it matches whole (placeholders match anything, and the
    message has enough literal text to tell it apart); a search (``in``) names one whose
    literal piece contains it. Shorter pieces (under six characters) say nothing."""
    import libcst as cst

    from unsentinel.errors.untraced import Expected, Untraced, message_template

    template = message_template(cst.parse_expression(message))
    untraced = Untraced(left_alone=True, templates=frozenset({template} if template else ()))
    assert untraced.follows([Expected(text, whole=whole)]) is follows


def test_whether_another_file_leaves_a_dict_alone_is_asked_only_when_it_decides() -> None:
    """The gathered facts are asked whether some other file leaves an error dict as it is
    only where the answer decides (a first gather round cannot know it yet): not where this
    file leaves one alone itself, nor for a response that may come from any function."""
    from unsentinel.errors.untraced import Expected, Untraced

    asked: list[bool] = []

    def elsewhere() -> bool:
        asked.append(True)
        return False

    expected = [Expected("missing item", whole=True)]
    assert not Untraced(left_alone=True, elsewhere=elsewhere).follows(expected)
    assert not Untraced(elsewhere=elsewhere).follows(expected, any_function=True)
    assert asked == []
    assert Untraced(elsewhere=elsewhere).follows(expected)
    assert asked == [True]
