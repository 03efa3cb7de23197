"""Messages the second labelled batch showed the inference misreading (issue 13, session 14),
on hand-written code: a message grown with ``+=`` before it is appended, and a message
made by ``str(...)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from projects import diff_project, new_text, write_project

from unsentinel import Mode, load_config, run

GROWN = """
def check_patterns(kind, pattern_text, known):
    warnings = []
    for pattern in pattern_text.split():
        if pattern not in known:
            msg = f"Unknown {kind} pattern: {pattern!r}. "
            if pattern.startswith("py2"):
                msg += "Python 2 is gone. "
            msg += "It will match nothing."
            print(msg)
            warnings.append(msg)
    return warnings
"""

CONVERTED = """
def convert(name, ttl):
    warnings = []
    try:
        name = name.encode("idna").decode()
    except UnicodeError as exc:
        warnings.append(str(exc))
    if ttl < 0:
        warnings.append("negative ttl")
    if warnings:
        raise ValueError("; ".join(warnings))
    return name
"""


def _producers(root: Path, source: str) -> list[dict[str, Any]]:
    from unsentinel.output.plan import plan_document

    write_project(
        root,
        {
            "pyproject.toml": '[tool.unsentinel]\nwarning-list-names = ["warnings"]\n',
            "m.py": source,
        },
    )
    result = run([root], load_config((root,)), Mode.PLAN, jobs=1)
    return [s for s in plan_document(result.results)["sites"] if s["kind"] == "producer"]


def test_a_message_grown_with_plus_equals_is_read_as_its_whole_text(tmp_path: Path) -> None:
    """``msg = f"Unknown {kind} pattern: {pattern!r}. "`` then ``msg += "..."``: the text
    that reaches the append starts with the first assignment. Before, only the last ``+=``
    was read ("It will match nothing."): no subject, a code without one, and the field path
    a tie of the guard's inputs (``known``). The pattern shown is an item of
    ``pattern_text``, which the condition tests."""
    (site,) = _producers(tmp_path, GROWN)
    assert site["reasons"][0] == "template: 'Unknown {} pattern: {}. It will match nothing.'"
    assert site["code"] == "PATTERN_UNKNOWN"
    assert site["field_path"] == "pattern_text"
    assert site["confidence"]["field_path"] == "low"


def test_str_of_a_value_is_a_message_and_migrates_with_its_group(tmp_path: Path) -> None:
    """``warnings.append(str(exc))``: ``str`` always returns a string, so it is a message
    like a literal. Before, it was a value of unknown type and held the whole group: the
    "negative ttl" beside it stayed a string too."""
    sites = _producers(tmp_path, CONVERTED)
    assert [s["action"] for s in sites] == ["review", "review"]
    text = new_text(diff_project(tmp_path), "m.py")
    assert text is not None
    assert "message=str(exc)," in text
    assert 'message="negative ttl",' in text
    assert '"; ".join(w.message for w in warnings)' in text


REBOUND = """
class RecordInvalid(Exception):
    @classmethod
    def describe(cls, name, warnings):
        warnings = "\\n  - ".join(warnings)
        return f"invalid record {name}:\\n  - {warnings}"


def validate(name, ttl):
    warnings = list()
    if name == "@":
        warnings.append("invalid name")
    if ttl < 0:
        warnings.append("negative ttl")
    return warnings


def check(name, ttl):
    warnings = validate(name, ttl)
    if warnings:
        raise RecordInvalid(RecordInvalid.describe(name, warnings))
"""

RETURNED = """
def summary(warnings):
    warnings = "; ".join(warnings)
    return warnings


def check(x):
    warnings = []
    if x < 0:
        warnings.append("negative x")
    return summary(warnings)
"""

RAISED_LATER = """
import subprocess


class SetupFailed(Exception):
    pass


def check_tools(names):
    ok = True
    warnings = []
    for name in names:
        try:
            subprocess.run(["which", name], check=True)
        except subprocess.CalledProcessError:
            warnings.append(f"tool {name} is not installed")
            ok = False
    if not ok:
        text = "\\n".join(warnings)
        raise SetupFailed(text)
"""


def test_str_of_a_warnings_message_copies_it_and_makes_no_warning(tmp_path: Path) -> None:
    """``[str(w.message) for w in recorder.warnings]``: the text of a warning that exists
    already (Python's ``WarningMessage`` here, the standard library's own test of
    ``temp_dir``) is copied as ``[w.message for w in ...]`` copies it, not a new message:
    the list is left as it is, as the bare read leaves it (the standard library got a
    diff in ``test/test_support.py`` once ``str(...)`` was read as a message)."""
    source = """
        def temp_dir_warnings(recorder) -> str:
            warnings = [str(w.message) for w in recorder.warnings]
            return warnings[0] if warnings[0].startswith("tests may fail") else ""
    """
    assert new_text(diff_project(tmp_path, {"m.py": source}), "m.py") is None


def test_a_list_rebound_to_its_own_join_and_an_empty_list_call_migrate(tmp_path: Path) -> None:
    """``warnings = "\\n - ".join(warnings)`` rebinds the name to the joined text (only
    shown in an f-string after it), and ``list()`` is an empty list: neither puts a value
    of unknown type into the list. Before, each held the whole group."""
    sites = _producers(tmp_path, REBOUND)
    assert [s["action"] for s in sites] == ["review", "review"]
    text = new_text(diff_project(tmp_path), "m.py")
    assert text is not None
    assert 'warnings = "\\n  - ".join(w.message for w in warnings)' in text
    assert 'message="invalid name",' in text


def test_a_list_rebound_to_its_join_and_returned_still_holds_its_group(tmp_path: Path) -> None:
    """Returned, the joined text would reach callers the flow takes for a list's readers:
    the rebinding stays a value of unknown type, and the group is held as before."""
    sites = _producers(tmp_path, RETURNED)
    assert sites and all(s["action"] == "skip" for s in sites)


def test_a_raise_with_the_list_joined_into_a_local_is_blocking(tmp_path: Path) -> None:
    """The appends sit in an ``except`` branch (advisory, alone), but the function raises
    with the list's text, joined into a local first: the operation fails. Before, only a
    raise that named the list itself counted."""
    (site,) = _producers(tmp_path, RAISED_LATER)
    assert site["severity"] == "blocking"
    assert site["confidence"]["severity"] == "high"
    assert site["reasons"][1] == "severity: raise: the function raises when 'warnings' is not empty"
