"""Generated modules of the warnings feature: ``warning_codes`` and, where missing, the model."""

from __future__ import annotations

from collections.abc import Sequence

from unsentinel.core.config import Config
from unsentinel.core.facts import FactBook
from unsentinel.core.model import FileResult
from unsentinel.warnings.emit.codes_module import emit_codes_module
from unsentinel.warnings.emit.model_module import emit_model_module


def emit_warning_modules(
    results: Sequence[FileResult], book: FactBook, config: Config
) -> list[FileResult]:
    """New or updated generated modules, as file results the writer treats like any other."""
    emitted = [
        emit_codes_module(list(results), book, config),
        emit_model_module(list(results), config),
    ]
    return [r for r in emitted if r is not None]
