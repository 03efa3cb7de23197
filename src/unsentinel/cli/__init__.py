"""The command line: parses options, calls the library, renders the result, exits.

``unsentinel.cli:main`` is the entry point (and ``python -m unsentinel``). The package::

    __init__.py    the click group, ``main``
    commands.py    one thin function per command: options in, library calls out
    options.py     the option decorators, each option spelled once
    run.py         options -> configuration -> ``registry.run``; errors; the exit
    render.py      what each command prints, through ``unsentinel.output``
    review.py      apply --interactive, check --add-noqa / --baseline glue
    exit_codes.py  the exit-code policy of every command, in one table

Importing it loads neither LibCST, the rules nor rich: ``unsentinel --version`` and
``--help`` stay quick; each command imports the engine when it runs.
"""

from __future__ import annotations

import platform
from importlib.metadata import version
from pathlib import Path

import click

from unsentinel.cli.commands import COMMANDS
from unsentinel.cli.options import OUTPUT_FORMATS

__all__ = ["OUTPUT_FORMATS", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
# As pip says it: which install runs, and on which Python (a bug report's first question).
@click.version_option(
    version("unsentinel"),
    prog_name="unsentinel",
    message=(
        f"%(prog)s, version %(version)s from {Path(__file__).resolve().parent.parent} "
        f"(Python {platform.python_version()})"
    ),
)
def main() -> None:
    """Migrate sentinel warnings and ad-hoc error dicts to structured models.

    \b
    unsentinel check src/     # list every site (exit 1 if any): for CI
    unsentinel diff src/      # show what apply would change; writes nothing
    unsentinel plan src/      # every site with its inferred severity/field_path/code
    unsentinel apply src/     # rewrite the files in place
    unsentinel rule UNS101    # what a rule does, and why
    unsentinel clean          # remove the check cache
    """


for _command in COMMANDS:
    main.add_command(_command)
