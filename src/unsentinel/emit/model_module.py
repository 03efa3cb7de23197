"""Emit the ``Warning`` model where the repository has none (filled in by the producers rule)."""

from __future__ import annotations

from ..config import Config
from ..model import FileResult


def emit_model_module(results: list[FileResult], config: Config) -> FileResult | None:
    return None
