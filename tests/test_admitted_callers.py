"""A file that spells no needle reaches the rules only through a call that keeps the
result of a function the facts name (the gather pass learnt that it returns warnings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from unsentinel.core.config import Config
from unsentinel.core.model import Mode, Status
from unsentinel.registry import run

CHECKS = b"""\
def check(form: dict) -> list[str]:
    warnings: list[str] = []
    if not form.get("name"):
        warnings.append("BLOCK: name is required")
    return warnings
"""
KEEPS = (
    b"from checks import check\n\n\ndef submit(form):\n    found = check(form)\n    return found\n"
)
DROPS = b"from checks import check\n\n\ndef audit(form):\n    check(form)\n    return True\n"


@pytest.mark.parametrize("mode", [Mode.CHECK, Mode.PLAN], ids=["check", "plan"])
def test_a_caller_that_throws_the_result_away_is_not_parsed(
    tmp_path: Path, parsed: list[bytes | str], mode: Mode
) -> None:
    """``check`` returns warnings: ``submit`` keeps them and is analysed, though it spells
    no needle; ``audit`` calls it as a statement and stays with the prefilter."""
    (tmp_path / "checks.py").write_bytes(CHECKS)
    (tmp_path / "views.py").write_bytes(KEEPS)
    (tmp_path / "audit.py").write_bytes(DROPS)
    result = run([tmp_path], Config(root=tmp_path), mode, jobs=1)
    statuses = {Path(r.path).name: r.status for r in result.results}
    assert statuses == {
        "checks.py": Status.PARSED,
        "views.py": Status.PARSED,
        "audit.py": Status.PREFILTERED,
    }
    assert DROPS not in parsed
    assert [site.rule for r in result.results if r.path.endswith("checks.py") for site in r.sites]
