"""The generated reference docs match the code (regenerate: python scripts/docgen.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from docgen import outputs  # noqa: E402  (a development script, not part of the wheel)


@pytest.mark.parametrize("path", sorted(outputs()), ids=lambda p: p.name)
def test_generated_doc_is_current(path: Path) -> None:
    assert path.read_text(encoding="utf-8") == outputs()[path], (
        f"{path.name} is stale: run `python scripts/docgen.py`"
    )
