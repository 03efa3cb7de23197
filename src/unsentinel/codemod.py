"""The migration as a LibCST codemod command, for people who drive codemods with LibCST's tool.

Run it with LibCST's own runner (``-x`` takes the dotted name as it is)::

    python -m libcst.tool codemod -x unsentinel.codemod.Migrate --no-format src/

or, in a project initialised with ``python -m libcst.tool initialize .`` whose
``.libcst.codemod.yaml`` lists ``unsentinel`` under ``modules``::

    python -m libcst.tool codemod codemod.Migrate --no-format src/

**Per file.** LibCST's runner hands each worker one file and nothing else, so the gather pass
sees only that file: helpers that return or receive warnings in *another* module are not
followed (a warnings list that takes what such a helper returns stays as it is: that
module's strings would not change with it), and codes are made unique within the file, not
across the repository. The generated modules (``warning_codes``, the ``Warning`` model,
``error_codes``, ``ErrorDetail``) are not written either: a codemod returns one module's new
code and has no place for new files. ``unsentinel apply`` does both; use the codemod where
a LibCST pipeline is what you have, and expect what ``unsentinel diff FILE`` shows for each
file on its own.
"""

from __future__ import annotations

import argparse
from functools import lru_cache
from pathlib import Path

import libcst as cst
from libcst.codemod import CodemodCommand, CodemodContext, SkipFile

from unsentinel.core.config import Config
from unsentinel.core.discovery import discover
from unsentinel.core.source import is_generated
from unsentinel.registry import load_config, rewrite_source


class Migrate(CodemodCommand):
    """Sentinel warnings and ad-hoc error dicts -> ``Warning(...)`` / ``ErrorDetail(...)``.

    Every enabled rule of both features runs on the module, with the settings of the
    ``pyproject.toml`` nearest to the file (or ``--unsentinel-config``), exactly as
    ``unsentinel diff FILE`` would run them on that file alone.
    """

    DESCRIPTION = (
        "Migrate sentinel warning strings and ad-hoc error dicts to structured Warning / "
        "ErrorDetail (unsentinel's rules, one file at a time)."
    )

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        arg_parser.add_argument(
            "--unsentinel-config",
            dest="unsentinel_config",
            metavar="FILE",
            default=None,
            help="Read unsentinel's settings from this TOML file instead of the nearest "
            "pyproject.toml.",
        )

    def __init__(self, context: CodemodContext, unsentinel_config: str | None = None) -> None:
        super().__init__(context)
        self.config_file = Path(unsentinel_config) if unsentinel_config else None

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        """Rewrite ``tree`` as unsentinel would rewrite its file alone; skip what it skips."""
        filename = self.context.filename
        path = Path(filename) if filename else None
        config = _config_for(path.parent if path else Path.cwd(), self.config_file)
        if not config.include_generated and is_generated(tree.bytes):
            raise SkipFile("marked @generated (unsentinel skips it unless include-generated)")
        display, module_name = _identity(path, config)
        new_code, _sites = rewrite_source(tree.code, config, path=display, module_name=module_name)
        if new_code == tree.code:
            return tree
        return cst.parse_module(new_code)


@lru_cache(maxsize=64)
def _config_for(directory: Path, config_file: Path | None) -> Config:
    """One configuration per directory: the runner calls us once per file, in each worker."""
    return load_config((directory,), config_file)


def _identity(path: Path | None, config: Config) -> tuple[str, str]:
    """The path and dotted module name unsentinel's own discovery gives the file."""
    if path is None:  # stdin ("-"): no path, no module
        return "<stdin>", ""
    tasks = discover([path], config).tasks
    if not tasks:
        return str(path), ""
    return tasks[0].display, tasks[0].module_name


__all__ = ["Migrate"]
