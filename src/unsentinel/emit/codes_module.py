"""Emit the ``warning_codes`` module (filled in by the producers rule)."""

from __future__ import annotations

from ..config import Config
from ..model import FileResult, RepoFacts


def emit_codes_module(
    results: list[FileResult], facts: RepoFacts, config: Config
) -> FileResult | None:
    return None
