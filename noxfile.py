"""The development loop: ``python -m nox -s lint typecheck tests slow ecosystem`` is CI.

Every session reuses the interpreter nox runs under (``venv_backend="none"``): install the
project once with ``pip install -e ".[test]"`` and the sessions start at once, offline.

    python -m nox -l                      # list the sessions
    python -m nox                         # lint, typecheck, tests: the fast loop
    python -m nox -s tests -- -k config   # arguments after -- go to pytest
    python -m nox -s docs                 # regenerate docs/ and fail if they were stale
    python -m nox -s slow                 # the corpus sweep and the slow tests, bounded
    python -m nox -s ecosystem            # the bounded ecosystem check on real packages
    python -m nox -s bench                # benchmarks (figures are never asserted)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nox

nox.options.default_venv_backend = "none"
nox.options.sessions = ["lint", "typecheck", "tests"]
nox.options.error_on_missing_interpreters = False

PATHS = ("src", "tests", "scripts", "benchmarks", "noxfile.py")
# The interpreter nox runs under, not whatever ``python`` is first on PATH.
PYTHON = sys.executable


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check, ruff format --check, the import contracts, dead code."""
    session.run(PYTHON, "-m", "ruff", "check", *PATHS)
    session.run(PYTHON, "-m", "ruff", "format", "--check", *PATHS)
    session.run(str(Path(PYTHON).parent / "lint-imports"))  # contracts in [tool.importlinter]
    session.run(PYTHON, "-m", "vulture")  # paths and allow-list in [tool.vulture]


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict on src and tests (files and overrides in [tool.mypy])."""
    session.run(PYTHON, "-m", "mypy")


@nox.session
def tests(session: nox.Session) -> None:
    """The default suite: everything but the corpus sweep and the slow runs, on every core."""
    session.run(PYTHON, "-m", "pytest", *session.posargs)


@nox.session
def slow(session: nox.Session) -> None:
    """What the default suite leaves out, bounded: the corpus sweep, then the slow tests.

    The sweep runs in one pytest process (it has its own worker pool) over a sample of the
    files for plan and diff (``UNSENTINEL_CORPUS_SAMPLE``, see tests/test_corpus.py).
    """
    sample = os.environ.get("UNSENTINEL_CORPUS_SAMPLE", "30")
    session.run(
        *(PYTHON, "-m", "pytest", "-m", "corpus", "-n", "0", *session.posargs),
        env={"UNSENTINEL_CORPUS_SAMPLE": sample},
    )
    session.run(PYTHON, "-m", "pytest", "-m", "slow", *session.posargs)
    examples = os.environ.get("UNSENTINEL_SLOW_EXAMPLES", "150")
    session.run(
        *(PYTHON, "-m", "pytest", "tests/test_properties.py", *session.posargs),
        env={"UNSENTINEL_EXAMPLES": examples},
    )


@nox.session
def docs(session: nox.Session) -> None:
    """Regenerate the generated pages and fail when they differ from the committed ones."""
    session.run(PYTHON, "scripts/docgen.py")
    session.run("git", "diff", "--exit-code", "--", "docs/", external=True)


@nox.session
def bench(session: nox.Session) -> None:
    """A smoke run of the benchmarks (small tree, one run); figures are never asserted."""
    session.run(PYTHON, "benchmarks/run.py", "--quick", *session.posargs)


@nox.session
def ecosystem(session: nox.Session) -> None:
    """The ecosystem check on its bounded subset, one test per package (about five minutes).

    The full list, with its table for docs/ecosystem.md, is
    ``python benchmarks/ecosystem.py --write-doc``.
    """
    session.run(
        *(PYTHON, "-m", "pytest", "-m", "ecosystem", "-n", "0", "tests/test_ecosystem.py"),
        *session.posargs,
    )
