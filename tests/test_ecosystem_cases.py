"""The failure classes the ecosystem check found on real packages, as our own regression tests.

tests/ecosystem_cases/README.md holds each class as a minimal reproduction written by us
(files and what went wrong). Each rewrote code wrongly: code it had no business touching,
or one half of a group of values that must change together. The tool now leaves every one
untouched (a group it cannot migrate whole is skipped whole), and these tests keep it so.
"""

from __future__ import annotations

import re
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


def test_every_failure_class_has_files() -> None:
    assert len(SECTIONS) == 4


@pytest.mark.parametrize("title", list(SECTIONS), ids=lambda t: t.split(".")[0])
def test_the_failure_class_leaves_the_code_untouched(title: str, tmp_path: Path) -> None:
    for name, code in SECTIONS[title].items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(code)
    result = run([tmp_path], load_config((tmp_path,)), Mode.DIFF, jobs=1)
    assert [r.path for r in result.results if r.status is Status.FAILED] == []
    changed = {Path(r.path).name: r.new_text for r in result.all_results if r.changed}
    assert changed == {}, f"{title}: rewrote {sorted(changed)}"
