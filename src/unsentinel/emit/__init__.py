"""Generated modules: the ``warning_codes`` constants and, where missing, the models."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from ..config import Config
from ..model import FileResult, RepoFacts


def existing_codes(config: Config) -> dict[str, str]:
    """Constants already in the configured ``warning_codes`` module (name -> value)."""
    path = config.root / config.codes_module
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return {}
    codes = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            codes[node.targets[0].id] = node.value.value
    return codes


def emit_modules(
    results: Iterable[FileResult], facts: RepoFacts, config: Config
) -> list[FileResult]:
    """New or updated generated modules, as file results the writer treats like any other."""
    from .codes_module import emit_codes_module
    from .error_codes_module import emit_error_modules
    from .model_module import emit_model_module

    results = list(results)
    emitted = [
        emit_codes_module(results, facts, config),
        emit_model_module(results, config),
        *emit_error_modules(results, config),
    ]
    return [r for r in emitted if r is not None]


def relative_to_root(config: Config, target: str) -> Path:
    return config.root / target
