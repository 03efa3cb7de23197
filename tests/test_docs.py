"""The generated reference docs match the code (regenerate: python -m unsentinel.docgen)."""

from __future__ import annotations

from pathlib import Path

import pytest

from unsentinel.docgen import outputs


@pytest.mark.parametrize("path", sorted(outputs()), ids=lambda p: p.name)
def test_generated_doc_is_current(path: Path) -> None:
    assert path.read_text(encoding="utf-8") == outputs()[path], (
        f"{path.name} is stale: run `python -m unsentinel.docgen`"
    )
