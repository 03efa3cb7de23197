"""The failure classes the ecosystem check found on real packages, as our own regression tests.

tests/ecosystem_cases/README.md holds each class as a minimal reproduction written by us
(files and what went wrong). Each rewrote code wrongly: code it had no business touching,
or one half of a group of values that must change together. The tool now leaves each one
untouched (a group it cannot migrate whole is skipped whole), or -- where every value of the
group can change -- migrates the group whole (``MIGRATED_WHOLE``), and these tests keep it so.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from unsentinel.core.model import Mode, Status
from unsentinel.registry import load_config, run

CASES = Path(__file__).parent / "ecosystem_cases" / "README.md"
FILE_BLOCK = re.compile(
    r"^`(?P<name>[\w/]+\.py)`:\s*\n\s*\n```python\n(?P<code>.*?)```", re.M | re.S
)


def _sections() -> dict[str, dict[str, str]]:
    sections: dict[str, dict[str, str]] = {}
    for chunk in re.split(r"^## ", CASES.read_text(encoding="utf-8"), flags=re.M)[1:]:
        title = chunk.splitlines()[0].strip()
        files = {m["name"]: m["code"] for m in FILE_BLOCK.finditer(chunk)}
        if files:
            sections[title] = files
    return sections


SECTIONS = _sections()
# Classes fixed by migrating every value of the group, not by holding it: the literals joined
# to a list with ``+`` (and ``or``) are producers of the group now (4); ``str(exc)`` appended
# is a message, since ``str`` always returns a string (2, session 14).
MIGRATED_WHOLE = frozenset({"2", "4"})


def test_every_failure_class_has_files() -> None:
    assert len(SECTIONS) == 4


def _number(title: str) -> str:
    return title.split(".")[0]


def _diff(title: str, tmp_path: Path) -> dict[str, str | None]:
    for name, code in SECTIONS[title].items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(code)
    result = run([tmp_path], load_config((tmp_path,)), Mode.DIFF, jobs=1)
    assert [r.path for r in result.results if r.status is Status.FAILED] == []
    return {Path(r.path).name: r.new_text for r in result.all_results if r.changed}


@pytest.mark.parametrize(
    "title", [t for t in SECTIONS if _number(t) not in MIGRATED_WHOLE], ids=_number
)
def test_the_failure_class_leaves_the_code_untouched(title: str, tmp_path: Path) -> None:
    changed = _diff(title, tmp_path)
    assert changed == {}, f"{title}: rewrote {sorted(changed)}"


def test_literals_joined_to_a_migrated_list_migrate_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Class 4: every string that reaches the model's list -- appended, joined with ``+``,
    or a default after ``or`` -- becomes a ``Warning``, and the migrated code runs: the model
    validates each of its three return paths."""
    [title] = [t for t in SECTIONS if _number(t) == "4"]
    changed = _diff(title, tmp_path / "before")
    out = tmp_path / "after"
    out.mkdir()
    for name, text in changed.items():
        assert text is not None
        (out / name).write_text(text)
    assert changed["report.py"] is not None and changed["report.py"].count("Warning(") == 3
    monkeypatch.syspath_prepend(str(out))
    for name in ("report", "warning_model", "warning_codes"):  # fresh, whatever ran before
        monkeypatch.delitem(sys.modules, name, raising=False)
    import report  # type: ignore[import-not-found]

    for items in ([], ["a"], ["a"] * 101):
        shown = report.summarize(items).warnings
        assert shown and all(type(w).__name__ == "Warning" for w in shown)


def test_str_of_an_exception_migrates_and_no_builtin_becomes_a_helper(tmp_path: Path) -> None:
    """Class 2: ``warnings.append(str(exc))`` is a message (``str`` returns a string), so its
    group migrates -- and ``str`` never becomes a helper returning warnings: the module that
    only calls ``str(exc)`` elsewhere is left as it is."""
    [title] = [t for t in SECTIONS if _number(t) == "2"]
    changed = _diff(title, tmp_path)
    assert "compile_check.py" not in changed
    collect = changed["collect.py"]
    assert collect is not None
    assert "message=str(exc)," in collect
    assert ".message" not in collect
