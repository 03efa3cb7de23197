"""The ecosystem check: run unsentinel on real packages we did not write, and on the stdlib.

    python benchmarks/ecosystem.py --bounded          # a subset: ~5 min on 2 cores (warm cache)
    python benchmarks/ecosystem.py                    # every pinned package and the whole stdlib
    python benchmarks/ecosystem.py --only mcp-server-git --only stdlib --keep
    python benchmarks/ecosystem.py --write-doc        # also write the table to docs/ecosystem.md
    python benchmarks/ecosystem.py --from-json run.json --only stdlib --write-doc  # rerun one

Each package is a pinned PyPI sdist (``name==version`` and its sha256), downloaded and
unpacked by ``benchmarks/sdists.py`` into ``~/.cache/unsentinel/sdists`` (never into the
repository). For each one the check copies the sdist into a temporary git repository,
commits it, and runs ``check``, ``plan --format json``, ``diff``, ``apply`` and a second
``apply`` there. It asserts, per package:

- ``crash``: no command exits 2 with an internal error, a traceback, or a rewrite that the
  tool refused as invalid (input files the running Python cannot parse are only noted);
- ``prefilter``: ``check --no-prefilter`` (every file that parses sent to the rules) finds
  exactly what ``check`` finds: the byte and ``ast`` screens never hide a finding;
- ``empty-diff``: a package with no sentinel, no warnings list and no error dict (and the
  standard library) gets an empty diff and an ``apply`` that writes nothing;
- ``parses``: every file ``apply`` wrote parses with ``ast.parse(feature_version=(3, N))``
  for the lowest 3.N (at least 3.10) that the package's ``requires-python`` allows;
- ``fixed-point``: a second ``apply`` writes nothing;
- ``imports``: every module ``apply`` created imports in a subprocess, with the package's own
  parent packages stubbed so none of the package's own modules run;
- ``tests``: for packages whose sdists ship offline tests, the tests that passed before
  ``apply`` still pass after it (a venv per package in ``~/.cache/unsentinel/venvs``; the
  tests import the temporary copy, not the installed package).

The unsentinel under test is ``--unsentinel PATH`` (default: the ``unsentinel`` beside the
running interpreter, else ``.venv/bin/unsentinel``). It exits 1 when any package fails.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sdists import Pin, cache_dir, fetch  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ecosystem.md"
COMMAND_TIMEOUT = 1200
INSTALL_TIMEOUT = 600
# For a package whose code predates mcp 2 (FastMCP renamed, APIs changed) while its ranges
# admit it: a venv built today would fail to import it, and its tests would be skipped as
# "none passed before". Packages that require mcp 2 must not get it (their install fails).
BEFORE_MCP_2 = ("mcp<2",)
TEST_TIMEOUT = 600
TYPES_TIMEOUT = 900
INVARIANTS = (
    *("crash", "prefilter", "empty-diff", "parses", "fixed-point", "imports", "types", "tests"),
)
# Per-file errors about the input itself (a file this Python cannot read), not about us.
INPUT_ERRORS = (
    "syntax error at",
    ": syntax error: ",
    "cannot decode as",
    "bad coding declaration",
    "contains NUL",
)
REFUSED_REWRITE = ("does not parse", "does not compile")
# The standard library subset of --bounded: modules that once got a diff, plus a few packages.
STDLIB_BOUNDED = (
    "argparse.py",
    "tempfile.py",
    "optparse.py",
    "codeop.py",
    "zipimport.py",
    "mailcap.py",
    "json/*.py",
    "logging/*.py",
    "http/*.py",
    "unittest/*.py",
    "distutils/dist.py",  # rewritten by a parameter fact of another file's __init__
    "lib2to3/tests/data/py2_test_grammar.py",  # Python 2: noted as input, never a crash
)
STDLIB_SKIP = ("site-packages", "lib-dynload", "__pycache__", "config-")


@dataclass(frozen=True)
class Package:
    """One package of the check: a pinned sdist, or the standard library (``pin`` None)."""

    pin: Pin | None
    has: str
    tests: tuple[str, ...] = ()
    bounded: bool = False
    python: str = ""  # "3.N" when the package's requires-python excludes the running Python
    constraints: tuple[str, ...] = ()  # of its test venv's installs

    @property
    def name(self) -> str:
        return self.pin.name if self.pin else "stdlib"

    @property
    def version(self) -> str:
        return self.pin.version if self.pin else platform.python_version()


def _pin(name: str, version: str, sha256: str) -> Pin:
    return Pin(name, version, sha256)


PACKAGES: tuple[Package, ...] = (
    Package(None, "no sentinel, no warnings list", bounded=True),
    Package(
        _pin(
            "mcp-atlassian",
            "0.23.1",
            "6b57391928887f5334fe854073b09e3a49bb7dae0d55a1b1276f4d910607a0f1",
        ),
        "error dicts, warnings lists",
        tests=("pytest>=8", "pytest-asyncio", "anyio", "pypac"),
        constraints=BEFORE_MCP_2,
    ),
    Package(
        _pin(
            "workspace-mcp",
            "2.2.1",
            "becb74712b56a8052341d6feda4eeb557a77750880daed6c314ef0e1d077bc2b",
        ),
        "error dicts, a warnings list",
    ),
    Package(
        _pin(
            "mcp-clickhouse",
            "0.7.0",
            "2168e4ddd3e704ef971c12fb0bb15b85e74470bfa9e3d190a29b8954991e978f",
        ),
        "an error dict",
        bounded=True,
    ),
    Package(
        _pin(
            "office-powerpoint-mcp-server",
            "2.0.7",
            "ce7abe7d218ba6c51bf40ef8ea9c2c669b7c53e60de3cad561ea22cedde64ba9",
        ),
        "error dicts, a warnings list",
        bounded=True,
    ),
    Package(
        _pin(
            "awslabs-aws-api-mcp-server",
            "1.5.6",
            "8faf10ac3f57693fc1a0e78845b3f09b2865d132e44ca3d3dec08dcb8a763887",
        ),
        "warnings in responses",
    ),
    Package(
        _pin(
            "mcp-server-time",
            "2026.10.19",
            "4ab87293e7d85e74730f7df82a114b737f96fafa3ae42fd7644d0b5198a60919",
        ),
        "plain",
        tests=("pytest>=8", "pytest-asyncio", "freezegun"),
        bounded=True,
    ),
    Package(
        _pin(
            "mcp-server-git",
            "2026.10.19",
            "386b8a6de78623d046c37779a20cdf7741669567fcaab28e717327eb7c190e27",
        ),
        "plain",
        tests=("pytest>=8", "pytest-asyncio"),
        bounded=True,
    ),
    Package(
        _pin(
            "mcp-server-fetch",
            "2026.10.24",
            "7236b78ed80761eed4bfa834c8a541bdd4a5bc86a1b6cc3e9050e21d3870a395",
        ),
        "plain",
        tests=("pytest>=8", "pytest-asyncio"),
    ),
    Package(
        _pin(
            "mcp-server-sqlite",
            "2025.4.25",
            "5c396211adb90595d06a505ac836657fc76ee4439e132acdf65caf21b4a8de42",
        ),
        "plain",
    ),
    Package(
        _pin(
            "awslabs-aws-documentation-mcp-server",
            "1.2.3",
            "15892e75da502ccb9fc08ec8c53eecbd2d9671af1a5a1c5489b3f948dac6ddc6",
        ),
        "an error dict",
    ),
    Package(
        _pin(
            "awslabs-cloudwatch-mcp-server",
            "0.3.1",
            "605fb46a75cd6f3e5e441b929817a2405e55b01bc95c0ab853e1414bcbc827bb",
        ),
        "warnings lists, an error dict",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock", "moto[logs,cloudwatch]"),
        bounded=True,
    ),
    Package(
        _pin(
            "awslabs-dynamodb-mcp-server",
            "2.1.8",
            "6b82b669033e07efd019d231ddbbb9449e59e10e184962fa4519d8dde335168e",
        ),
        "warnings lists, error dicts",
    ),
    Package(
        _pin(
            "awslabs-aws-pricing-mcp-server",
            "1.1.1",
            "da6f0064ddc2cdcb6124b57b72230c7ec7a9fcc16a6bad7c19c38d360e05e955",
        ),
        "error dicts",
    ),
    Package(
        _pin(
            "awslabs-ecs-mcp-server",
            "0.1.37",
            "23ab3833ff585c98aca1a6e01227326b9ff7d66c6c57a630147f364d63926f99",
        ),
        "error dicts, a warnings list",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock"),
    ),
    Package(
        _pin(
            "awslabs-eks-mcp-server",
            "0.2.1",
            "e334ef46e7f0b8ca9d520105834d0ce88a24238f44f2e11e3911d46838954a56",
        ),
        "plain",
    ),
    Package(
        _pin(
            "awslabs-postgres-mcp-server",
            "1.2.2",
            "3c5b9098ddead28af3fafc2f3a10119211ecc3a477d17261e7f0f08de28508a4",
        ),
        "error dicts",
    ),
    Package(
        _pin(
            "awslabs-iam-mcp-server",
            "1.1.2",
            "34d84eab00afd8442b59361852cb052f50429fd134493964ef3a3c94b34d14ea",
        ),
        "plain",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock"),
    ),
    Package(
        _pin(
            "awslabs-aws-iac-mcp-server",
            "1.0.26",
            "199839c72ec289e10a5b019175656e7bb769f4bfc5f395a000a270af76141946",
        ),
        "error dicts",
    ),
    Package(
        _pin(
            "awslabs-aws-healthomics-mcp-server",
            "0.1.5",
            "febcd88e9c8f240f2288fcfcd487aadb635df4bc444e12ab5af4919df3686051",
        ),
        "error dicts, a warnings list",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock", "hypothesis"),
    ),
    Package(
        _pin(
            "dbt-mcp", "2.8.0", "8cd03e9f87cac480da4c3dd51420ab288eddf9eda90ab93209475a43adb8e8b9"
        ),
        "warnings lists, error dicts",
    ),
    Package(
        _pin(
            "mcp-server-odoo",
            "0.9.0",
            "5825f3bc8ce46775ba343de2f79046724e78f501188126338cc80fbae46f9c68",
        ),
        "error dicts",
    ),
    Package(
        _pin(
            "katana-mcp-server",
            "0.122.0",
            "5409ad42a75f7f615f83a925ed4caa3add330f515b8592f1b87f81d3968256f7",
        ),
        "a BLOCK: sentinel constant, tuple-slot helpers, tests that read them",
        # No tests: the katana-openapi-client it needs (>= 0.89) is not on the index.
    ),
    # Four packages first tried in a new-user trial (2026-11-27), none of them seen before.
    Package(
        _pin(
            "awslabs-billing-cost-management-mcp-server",
            "0.0.42",
            "40a60e2f510c9521b859693df9a493f0930ae1e7762246c17cf0c5df5e9aa759",
        ),
        "error dicts built centrally and by hand, an error-signalling middleware",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock"),
    ),
    Package(
        _pin(
            "awslabs-well-architected-security-mcp-server",
            "0.2.0",
            "f4acbe41e4284e98616529a2622f7d57b8a98396b0ed42b405a4652fdaf91b53",
        ),
        "error dicts with a message beside the error, a namespace package without __init__",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock"),
    ),
    Package(
        _pin(
            "awslabs-amazon-translate-mcp-server",
            "1.0.7",
            "3fa1f91086188ddc844e23349cd0c8fe467c31c00ee3abd5015a5dd1a7eb5d58",
        ),
        "error dicts returned beside a helper's error dict",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock"),
    ),
    Package(
        _pin(
            "mcp-google-sheets",
            "0.6.3",
            "d41ca5b5367af1426a7db860010473d5c1a7f3df02e4f8db30f75f9c66030e18",
        ),
        "error dicts that unittest tests compare whole",
        tests=("pytest>=8",),
        constraints=BEFORE_MCP_2,
    ),
    Package(
        _pin("mkdocs", "1.6.1", "7b432f01d928c084353ab39c57282f29f92136665bdd6abf7c1ec8d822ef86f2"),
        "warnings lists of (key, message) tuples, many same-named validator methods",
    ),
    # Four more packages first tried in a second new-user trial (2026-11-27).
    Package(
        _pin(
            "awslabs-aws-location-mcp-server",
            "2.1.1",
            "4f39058403b051a1f582ccaae50dde3b89748d9e3c62938c44eca6d4583c7fdc",
        ),
        "error dicts returned by tools and read by their tests",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock"),
    ),
    Package(
        _pin(
            "mfa-servicenow-mcp",
            "1.25.4",
            "0adc37908a21ffa2badb1457650d4f5ddef86a465ec83cca7d979a4bfb77396b",
        ),
        "success/error dicts in hundreds of tools, warnings lists, a large test suite",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock"),
    ),
    Package(
        _pin(
            "rootly-mcp-server",
            "2.3.22",
            "badc9bc1f6c4f97c574d39889939f90848d2226e633522935a9482659e0eb2ba",
        ),
        "error dicts and status: error responses",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock", "pytest-timeout"),
        python="3.12",
    ),
    Package(
        _pin(
            "postgres-mcp",
            "0.3.0",
            "52e387352e14bbbbc3e254fe304ed77e9f6814c60fe3bd998f337f383f8a42d1",
        ),
        "error dicts in a module of relative imports",
        # No tests: the pglast==7.2.0 it pins is not on the index.
    ),
    # First tried in a third new-user trial (session 11, 2026-11-27).
    Package(
        _pin(
            "awslabs-aws-serverless-mcp-server",
            "0.2.0",
            "3fede7874cb6b15a435ca8080e2c5269ced96b05048de0819a4e08b2b06fcc4d",
        ),
        "single-quoted error dicts in tools, resources returning JSON text, async tool tests",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock"),
    ),
    # First tried in a fourth new-user trial (session 12, 2026-11-27).
    Package(
        _pin(
            "awslabs-cdk-mcp-server",
            "1.0.15",
            "ba900682bd2116024f2bf172aeb77924601fc0516462b9bfe8fcbfce0acf1746",
        ),
        "warnings under a key of a result dict, error dicts with a status, fetchers' readers",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock"),
        constraints=BEFORE_MCP_2,
    ),
    Package(
        _pin(
            "awslabs-s3-tables-mcp-server",
            "0.1.1",
            "94f2a0d0d773d318c278cb68b7e7a0a28c4e263943717bb3f954e996fb34d5ae",
        ),
        "error dicts with a status, file importers' results read by tests",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock"),
    ),
    Package(
        _pin(
            "awslabs-cloudwatch-applicationsignals-mcp-server",
            "0.2.1",
            "7084f8531ec9c17c19fad24f0e85b3597b285d00fdf5ae7d490557108b77a594",
        ),
        "error dicts in tools and their tests' readers",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock"),
    ),
    # First tried in a fifth new-user trial (session 13, 2026-11-27).
    Package(
        _pin(
            "awslabs-lambda-tool-mcp-server",
            "2.1.1",
            "b11f58659998918bd2251677e1db133d1a35fd3b208e7301812699ae2703e74f",
        ),
        "error dicts returned by a tool's dispatcher, tests that read them",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock"),
    ),
    Package(
        _pin(
            "awslabs-aws-network-mcp-server",
            "0.0.17",
            "8320acd033c48a6def23aaeeff6a31e49d8143ecd44676b2468738a4a1a79218",
        ),
        "error dicts in network tools, moto-backed tests",
        tests=("pytest>=8", "pytest-asyncio", "pytest-mock", "moto"),
    ),
    Package(
        _pin(
            "hass-mcp",
            "0.6.1",
            "7cf5cfa7fd34a7a4c7328cf388399f3966346817c903aece094bc59289349bb9",
        ),
        "error dicts of a REST client's helpers, held by their readers; respx-mocked tests",
        tests=("pytest>=8", "pytest-asyncio", "respx"),
        python="3.13",
    ),
    Package(
        _pin(
            "mcp-server-motherduck",
            "1.1.0",
            "a84cdf9611b3676de6eea742e4993cff936e222dc7f123e37c143bc5c34705dd",
        ),
        "error dicts of catalog tools, end-to-end tests parsing replies through a helper",
        # 14 of its 149 tests run offline: the others start the server with `uv run`.
        tests=("pytest>=8", "pytest-asyncio", "httpx", "python-dotenv"),
    ),
)


@dataclass
class Report:
    """What one package's check found."""

    name: str
    version: str
    files: int = 0
    lines: int = 0
    sites: Counter[tuple[str, str]] = field(default_factory=Counter)
    failures: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    seconds: float = 0.0
    tool: str = ""  # the unsentinel that ran (``tool_version``), and when
    ran: str = ""

    def fail(self, invariant: str, detail: str) -> None:
        self.failures.append((invariant, detail))

    def failed(self, invariant: str) -> list[str]:
        return [detail for name, detail in self.failures if name == invariant]

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "version": self.version,
            "files": self.files,
            "lines": self.lines,
            "sites": {f"{rule} {action}": n for (rule, action), n in sorted(self.sites.items())},
            "failures": [{"invariant": i, "detail": d} for i, d in self.failures],
            "notes": self.notes,
            "written": self.written,
            "seconds": round(self.seconds, 1),
            "tool": self.tool,
            "ran": self.ran,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Report:
        """The report :meth:`to_json` wrote (``--from-json``: a table from earlier runs)."""
        sites: Counter[tuple[str, str]] = Counter()
        for key, count in data["sites"].items():
            rule, action = key.split(" ", 1)
            sites[(rule, action)] = count
        return cls(
            data["name"],
            data["version"],
            data["files"],
            data["lines"],
            sites,
            [(f["invariant"], f["detail"]) for f in data["failures"]],
            list(data["notes"]),
            list(data["written"]),
            data["seconds"],
            data.get("tool", ""),  # reports written before the tool was recorded
            data.get("ran", ""),
        )


@dataclass(frozen=True)
class Step:
    """One command of the tool, as it ran."""

    command: str
    code: int
    stdout: str
    stderr: str


# --- the tree under test -------------------------------------------------------------


def selected(bounded: bool, only: Sequence[str] = ()) -> list[Package]:
    """The packages of a run: ``--only`` names, else the bounded subset or all of them."""
    if only:
        known = {package.name: package for package in PACKAGES}
        missing = [name for name in only if name not in known]
        if missing:
            raise SystemExit(f"unknown package(s): {', '.join(missing)}")
        return [known[name] for name in only]
    return [package for package in PACKAGES if package.bounded or not bounded]


def source_tree(package: Package) -> Path:
    """The unpacked sdist (downloaded on first use), or the stdlib directory."""
    if package.pin is None:
        return Path(sysconfig.get_paths()["stdlib"])
    return fetch(package.pin)


def stdlib_files(stdlib: Path, bounded: bool) -> list[Path]:
    """The stdlib's ``.py`` files (a fixed subset when bounded), without site-packages."""
    patterns = STDLIB_BOUNDED if bounded else ("**/*.py",)
    found: set[Path] = set()
    for pattern in patterns:
        found.update(stdlib.glob(pattern))
    return sorted(
        p for p in found if not any(part in str(p.relative_to(stdlib)) for part in STDLIB_SKIP)
    )


def copy_tree(package: Package, bounded: bool, repo: Path) -> None:
    source = source_tree(package)
    if package.pin is None:
        for path in stdlib_files(source, bounded):
            target = repo / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        return
    # A check cache left in the unpacked sdist (someone ran unsentinel there) is keyed by
    # the tool's version, not its code: a development build would read its entries.
    ignored = shutil.ignore_patterns(".complete", ".git", ".unsentinel_cache")
    shutil.copytree(source, repo, ignore=ignored, dirs_exist_ok=True)


def git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=ecosystem", "-c", "user.email=ecosystem@localhost"]
    command += ["-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", *args]
    done = subprocess.run(command, cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout


def commit_all(repo: Path, message: str, force: bool = False) -> None:
    git(repo, "add", "-A", *(["--force"] if force else []), ".")
    git(repo, "commit", "-q", "--no-verify", "--allow-empty", "-m", message)


def init_repo(repo: Path) -> None:
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "the package as published", force=True)


def count_python(repo: Path) -> tuple[int, int]:
    files = [p for p in repo.rglob("*.py") if ".git" not in p.parts]
    return len(files), sum(len(p.read_bytes().splitlines()) for p in files)


PLAIN_EVIDENCE = re.compile(
    r"""BLOCK|WARNING_PREFIX|\bwarnings\b\s*(?:\.append|\.extend|\+=|:\s*list|=\s*\[|=\s*list\()"""
    r"""|["'](?:warnings|error|errors|success)["']\s*[:\]]"""
)


def is_plain(repo: Path) -> bool:
    """No sentinel, no warnings list and no error dict anywhere (a textual over-approximation)."""
    for path in repo.rglob("*.py"):
        if PLAIN_EVIDENCE.search(path.read_text(encoding="utf-8", errors="replace")):
            return False
    return True


# --- running the tool ----------------------------------------------------------------


def default_unsentinel() -> Path:
    beside = Path(sys.executable).parent / "unsentinel"
    return beside if beside.exists() else ROOT / ".venv" / "bin" / "unsentinel"


def run_tool(tool: Path, repo: Path, command: str, extra: Sequence[str], jobs: int) -> Step:
    args = [str(tool), command, "-j", str(jobs), *extra, "."]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    try:
        done = subprocess.run(
            args, cwd=repo, capture_output=True, text=True, timeout=COMMAND_TIMEOUT, env=env
        )
    except subprocess.TimeoutExpired:
        return Step(command, -1, "", f"timed out after {COMMAND_TIMEOUT} s")
    return Step(command, done.returncode, done.stdout, done.stderr)


# A file the running Python cannot parse is reported like a finding (``path:3:5: syntax
# error: ...``), without the ``error:`` prefix of the other per-file errors.
SYNTAX_ERROR_LINE = re.compile(r"^\S.*?:\d+:\d+: syntax error: ")


def error_lines(stderr: str) -> list[str]:
    return [
        line
        for line in stderr.splitlines()
        if line.startswith("error:") or SYNTAX_ERROR_LINE.match(line)
    ]


def classify(step: Step, report: Report) -> None:
    """Record a crash, an internal error or a refused rewrite; note input errors."""
    if step.code == -1:
        report.fail("crash", f"{step.command}: {step.stderr}")
        return
    if "Traceback (most recent call last)" in step.stderr:
        report.fail("crash", f"{step.command}: traceback: {last_line(step.stderr)}")
        return
    unexplained = step.code == 2
    for line in error_lines(step.stderr):
        if any(marker in line for marker in INPUT_ERRORS):
            note = f"input not parseable by this Python: {line.removeprefix('error: ')}"
            if note not in report.notes:
                report.notes.append(note)
            continue
        unexplained = False
        report.fail("crash", f"{step.command}: {line.removeprefix('error: ')}")
    if unexplained and not error_lines(step.stderr):
        report.fail("crash", f"{step.command}: exit 2: {last_line(step.stderr)}")


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "(no output)"


def check_prefilter(context: Context, repo: Path, screened: Step, report: Report) -> None:
    """``check`` with every file sent to the rules must find exactly what ``check`` finds:
    the prefilter (bytes, then Python's ``ast``) only ever skips files with nothing to find."""
    whole = run_tool(context.tool, repo, "check", ("--no-prefilter", "--no-cache"), context.jobs)
    if whole.code == -1 or "Traceback (most recent call last)" in whole.stderr:
        classify(whole, report)
        return
    # A file LibCST cannot take (``pydoc_data/topics.py`` nests too deeply) fails only here,
    # where the prefilter does not stop it first: its own error, not a hidden finding.
    both = set(error_lines(screened.stderr))
    for line in (line for line in error_lines(whole.stderr) if line not in both):
        note = f"only without the prefilter: {line.removeprefix('error: ')}"
        if note not in report.notes:
            report.notes.append(note)
    kept, found = set(screened.stdout.splitlines()), set(whole.stdout.splitlines())
    for line in sorted(found - kept)[:5]:
        report.fail("prefilter", f"found only without the prefilter: {line}")
    for line in sorted(kept - found)[:5]:
        report.fail("prefilter", f"found only with the prefilter: {line}")


def count_sites(step: Step, report: Report) -> None:
    try:
        plan = json.loads(step.stdout)
    except json.JSONDecodeError:
        if step.code != 2:
            report.fail("crash", f"plan: output is not JSON: {last_line(step.stdout)}")
        return
    for site in plan.get("sites", []):
        report.sites[(str(site.get("rule")), str(site.get("action")))] += 1


def changed_files(repo: Path) -> list[tuple[str, str]]:
    """(status, path) of every file changed or created since the last commit.

    Files that git ignores are not counted: the tool's own bookkeeping (an undo journal that
    ignores itself) is not a change to the package.
    """
    git(repo, "add", "-A", ".")
    lines = git(repo, "diff", "--cached", "--name-status", "--no-renames", "HEAD").splitlines()
    return [(line.split("\t", 1)[0], line.split("\t", 1)[1]) for line in lines if "\t" in line]


# --- the invariants ------------------------------------------------------------------


def lowest_minor(repo: Path) -> int:
    """The lowest 3.N that ``requires-python`` allows (at least 10; 10 when unstated)."""
    spec = requires_python(repo)
    minors = [int(m) for m in re.findall(r"(?:>=|~=|==|>)\s*3\.(\d+)", spec or "")]
    return max([10, *minors]) if minors else 10


def requires_python(repo: Path) -> str | None:
    sources = (
        (repo / "pyproject.toml", r"""requires-python\s*=\s*["']([^"']+)["']"""),
        (repo / "setup.cfg", r"python_requires\s*=\s*(\S[^\n]*)"),
        (repo / "PKG-INFO", r"Requires-Python:\s*(\S[^\n]*)"),
    )
    for path, pattern in sources:
        if path.exists():
            found = re.search(pattern, path.read_text(encoding="utf-8", errors="replace"))
            if found:
                return found.group(1)
    return None


def parse_failures(repo: Path, paths: Iterable[str], minor: int) -> list[str]:
    """Written files that do not parse for 3.``minor`` (where the original did)."""
    failures = []
    for relative in paths:
        if not relative.endswith(".py"):
            continue
        try:
            ast.parse((repo / relative).read_bytes(), relative, feature_version=(3, minor))
        except SyntaxError as error:
            if parses_at_head(repo, relative, minor):
                failures.append(f"{relative}:{error.lineno}: {error.msg} (Python 3.{minor})")
    return failures


def uses_ruff_format(repo: Path) -> bool:
    """The project formats with ruff: a ``ruff.toml`` or ``[tool.ruff]`` at its root."""
    if (repo / "ruff.toml").exists() or (repo / ".ruff.toml").exists():
        return True
    pyproject = repo / "pyproject.toml"
    return pyproject.exists() and "[tool.ruff" in pyproject.read_text(errors="replace")


def format_failures(repo: Path, written: Iterable[tuple[str, str]]) -> list[str]:
    """Python files ``apply`` wrote that the project's own ``ruff format`` would change,
    where it would not have changed the original (a module apply created: always)."""
    if not uses_ruff_format(repo):
        return []
    failures = []
    for status, relative in written:
        if not relative.endswith(".py") or status == "D":
            continue
        if status != "A" and not ruff_formatted(
            repo, relative, git(repo, "show", f"HEAD:{relative}")
        ):
            continue  # the author's file was not formatted by this ruff to begin with
        if not ruff_formatted(repo, relative, (repo / relative).read_text(encoding="utf-8")):
            failures.append(f"{relative}: ruff format would change what apply wrote")
    return failures


def ruff_formatted(repo: Path, relative: str, text: str) -> bool:
    """Would ``ruff format``, under the project's configuration, leave ``text`` as it is?"""
    command = [sys.executable, "-m", "ruff", "format", "--check", "--stdin-filename", relative]
    done = subprocess.run([*command, "-"], input=text, cwd=repo, capture_output=True, text=True)
    return done.returncode == 0


def parses_at_head(repo: Path, relative: str, minor: int) -> bool:
    try:
        original = subprocess.run(
            ["git", "show", f"HEAD:{relative}"], cwd=repo, capture_output=True, check=True
        ).stdout
    except subprocess.CalledProcessError:
        return True  # a created file: it had no original to blame
    try:
        ast.parse(original, relative, feature_version=(3, minor))
    except SyntaxError:
        return False
    return True


IMPORT_ONE = """
import importlib, os, sys, types
root, name = sys.argv[1], sys.argv[2]
sys.path.insert(0, root)
parts = name.split(".")
for i in range(1, len(parts)):
    stub = types.ModuleType(".".join(parts[:i]))
    stub.__path__ = [os.path.join(root, *parts[:i])]
    sys.modules[stub.__name__] = stub
importlib.import_module(name)
"""


def module_name(repo: Path, relative: str) -> tuple[Path, str]:
    """(import root, dotted name) of a created module: ``src/`` layouts import from src."""
    parts = Path(relative).with_suffix("").parts
    if parts and parts[0] == "src" and len(parts) > 1:
        return repo / "src", ".".join(parts[1:])
    return repo, ".".join(parts)


def import_failures(repo: Path, created: Iterable[str], python: Path) -> list[str]:
    failures = []
    for relative in created:
        if not relative.endswith(".py"):
            continue
        root, name = module_name(repo, relative)
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": ""}
        done = subprocess.run(
            [str(python), "-c", IMPORT_ONE, str(root), name],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=repo,
        )
        if done.returncode != 0:
            failures.append(f"{relative}: {last_line(done.stderr)}")
    return failures


def check_types(repo: Path, workdir: Path, written: Sequence[str], report: Report) -> None:
    """The ``types`` invariant: mypy reports no error on the files ``apply`` wrote that it
    did not report on them before (a ``list[str]`` left holding ``Warning`` objects, a
    ``str`` reaching a ``Warning`` slot). The package's own imports are followed silently and
    missing ones ignored, so the comparison is about the migration, not the environment."""
    files = [path for path in written if path.endswith(".py")]
    git(repo, "stash", "push", "--include-untracked", "--quiet")
    try:
        before = mypy_errors(repo, [f for f in files if (repo / f).exists()], workdir / "mypy0")
    finally:
        git(repo, "stash", "pop", "--quiet")
    after = mypy_errors(repo, files, workdir / "mypy1")
    if before is None or after is None:
        report.notes.append(f"types not compared: mypy took over {TYPES_TIMEOUT} s")
        return
    new = after - before
    if new:
        shown = "; ".join(sorted(new)[:5]) + (
            f"; ... {sum(new.values()) - 5} more" if sum(new.values()) > 5 else ""
        )
        report.fail("types", f"{sum(new.values())} new mypy error(s) after apply: {shown}")


MYPY_ERROR = re.compile(r"^(?P<path>.+?):\d+(?::\d+)?: error: (?P<message>.*)$")


def mypy_errors(repo: Path, files: Sequence[str], cache: Path) -> Counter[str] | None:
    """mypy's errors on ``files``, each as ``path: message`` without its line number (a
    rewrite shifts lines), counted; None when mypy did not finish in time."""
    if not files:
        return Counter()
    source_root = repo / "src"
    env = {**os.environ, "MYPYPATH": str(source_root) if source_root.is_dir() else ""}
    command = [
        *(sys.executable, "-m", "mypy", "--ignore-missing-imports", "--follow-imports=silent"),
        *("--explicit-package-bases", "--no-error-summary", "--show-error-codes", "--no-pretty"),
        *("--cache-dir", str(cache), "--", *files),
    ]
    try:
        done = subprocess.run(
            command, cwd=repo, capture_output=True, text=True, timeout=TYPES_TIMEOUT, env=env
        )
    except subprocess.TimeoutExpired:
        return None
    errors: Counter[str] = Counter()
    for line in done.stdout.splitlines():
        found = MYPY_ERROR.match(line.strip())
        if found:
            message = re.sub(r"line \d+", "line N", found["message"])
            errors[f"{found['path']}: {message}"] += 1
    return errors


# --- the package's own tests ---------------------------------------------------------


def venv_dir(package: Package) -> Path:
    return cache_dir().parent / "venvs" / f"{package.name}-{package.version}"


def test_python(package: Package) -> tuple[Path | None, str]:
    """The venv's python with the package and its test dependencies installed, or why not.

    The package stays installed for its metadata; ``run_tests`` puts the copy first on
    ``PYTHONPATH`` so that its tests import the migrated code.
    """
    venv = venv_dir(package)
    python = venv / "bin" / "python"
    # A venv built for other test dependencies or constraints is built again.
    built_for = "\n".join([*package.tests, *package.constraints])
    complete = venv / ".complete"
    if complete.exists() and complete.read_text() == built_for:
        return python, ""
    base = base_python(package.python)
    if base is None:
        return None, f"no Python {package.python} on this machine for its tests"
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([str(base), "-m", "venv", str(venv)], check=True, capture_output=True)
    constraints = venv / "constraints.txt"
    constraints.write_text("".join(f"{line}\n" for line in package.constraints))
    install = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    install += ["--constraint", str(constraints)]
    try:
        done = subprocess.run(
            [*install, str(source_tree(package)), *package.tests],
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return None, f"installing its dependencies took over {INSTALL_TIMEOUT} s"
    if done.returncode != 0:
        return None, f"pip install failed: {last_line(done.stderr)}"
    complete.write_text(built_for)
    return python, ""


def base_python(version: str) -> Path | None:
    """The interpreter to build a test venv from: the running one, or ``python3.N`` for a
    package that needs a newer Python (on PATH, or one of pyenv's installed versions)."""
    if not version or version == "{}.{}".format(*sys.version_info[:2]):
        return Path(sys.executable)
    candidates = [shutil.which(f"python{version}")]
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates += sorted(map(str, pyenv_root.glob(f"versions/{version}.*/bin/python{version}")))
    for candidate in filter(None, candidates):
        works = subprocess.run([candidate, "-c", ""], capture_output=True, check=False)
        if works.returncode == 0:
            return Path(candidate)
    return None


def run_tests(repo: Path, python: Path, junit: Path) -> tuple[dict[str, str], str]:
    """Per-test outcomes of the package's tests, run on the copy in ``repo``."""
    roots = [repo / "src"] if (repo / "src").is_dir() else []
    env = {
        **os.environ,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": os.pathsep.join(str(p) for p in [*roots, repo]),
        # Offline tests of AWS servers: never the machine's own credentials or metadata.
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    command = [str(python), "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider"]
    command += ["-o", "addopts=", f"--junitxml={junit}", "-m", "not live and not integration"]
    try:
        done = subprocess.run(
            command, cwd=repo, capture_output=True, text=True, timeout=TEST_TIMEOUT, env=env
        )
    except subprocess.TimeoutExpired:
        return {}, f"the tests took over {TEST_TIMEOUT} s"
    finally:
        git(repo, "checkout", "-q", "--", ".")
        git(repo, "clean", "-q", "-f", "-d", "-x")
    if not junit.exists():
        return {}, f"pytest wrote no report: {last_line(done.stdout + done.stderr)}"
    return junit_outcomes(junit), ""


def junit_outcomes(junit: Path) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        tags = {child.tag for child in case}
        outcome = next((t for t in ("failure", "error", "skipped") if t in tags), "passed")
        outcomes[name] = outcome
    return outcomes


def broken_tests(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Tests that passed before and not after. A parametrized test whose ids are made at run
    time (an object's address, a gzip header's time stamp) is missing after under its old
    id: it counts as broken only where fewer cases of that test pass after than before."""
    renamed = _passing_cases(after)
    renamed.subtract(_passing_cases(before))
    return sorted(
        f"{name}: {after.get(name, 'missing')}"
        for name, outcome in before.items()
        if outcome == "passed"
        and after.get(name) != "passed"
        and not (name not in after and renamed[_unparametrized(name)] >= 0)
    )


def _passing_cases(outcomes: dict[str, str]) -> Counter[str]:
    return Counter(_unparametrized(n) for n, outcome in outcomes.items() if outcome == "passed")


def _unparametrized(name: str) -> str:
    return name.partition("[")[0]


# --- one package ---------------------------------------------------------------------


@dataclass
class Context:
    """How a run is set up: which unsentinel, how many workers, bounded or not."""

    tool: Path
    jobs: int = 2
    bounded: bool = False
    keep: bool = False
    types: bool = False  # also compare mypy's errors on the written files, before and after
    label: str = ""  # ``tool_version(tool)``, asked once per run


def check_package(package: Package, context: Context) -> Report:
    """Run every step on one package and record which invariants fail."""
    started = time.perf_counter()
    report = Report(package.name, package.version, tool=context.label, ran=utc_stamp())
    workdir = Path(tempfile.mkdtemp(prefix=f"ecosystem-{package.name}-"))
    repo = workdir / package.name
    repo.mkdir()
    try:
        copy_tree(package, context.bounded, repo)
        init_repo(repo)
        report.files, report.lines = count_python(repo)
        run_steps(package, context, repo, workdir, report)
    finally:
        report.seconds = time.perf_counter() - started
        if context.keep:
            report.notes.append(f"kept in {repo}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return report


def run_steps(
    package: Package, context: Context, repo: Path, workdir: Path, report: Report
) -> None:
    plain = package.pin is None or is_plain(repo)
    for command, extra in (("check", ()), ("plan", ("--format", "json")), ("diff", ())):
        step = run_tool(context.tool, repo, command, extra, context.jobs)
        classify(step, report)
        if command == "check":
            check_prefilter(context, repo, step, report)
        if command == "plan":
            count_sites(step, report)
        if command == "diff" and plain and step.stdout.strip():
            touched = sorted(set(re.findall(r"^\+\+\+ b/(\S+)", step.stdout, re.MULTILINE)))
            report.fail("empty-diff", f"diff changes {len(touched)} file(s): {', '.join(touched)}")
    before = tests_before(package, repo, workdir, report)
    first = run_tool(context.tool, repo, "apply", (), context.jobs)
    classify(first, report)
    written = changed_files(repo)
    report.written = [f"{status} {path}" for status, path in written]
    if plain and written:
        report.fail("empty-diff", f"apply wrote {len(written)} file(s)")
    for detail in parse_failures(repo, [path for _, path in written], lowest_minor(repo)):
        report.fail("parses", detail)
    for detail in format_failures(repo, written):
        report.fail("format", detail)
    created = [path for status, path in written if status == "A"]
    python = before[1] or default_python(context.tool)
    for detail in import_failures(repo, created, python):
        report.fail("imports", detail)
    if context.types and written:
        check_types(repo, workdir, [path for _, path in written], report)
    commit_all(repo, "after the first apply")
    second = run_tool(context.tool, repo, "apply", (), context.jobs)
    classify(second, report)
    again = changed_files(repo)
    if again:
        listed = ", ".join(f"{status} {path}" for status, path in again)
        report.fail("fixed-point", f"the second apply wrote {len(again)} file(s): {listed}")
        commit_all(repo, "after the second apply")
    if before[0] is not None:
        tests_after(repo, workdir, before[0], before[1], report)


def default_python(tool: Path) -> Path:
    beside = tool.parent / "python"
    return beside if beside.exists() else Path(sys.executable)


def tests_before(
    package: Package, repo: Path, workdir: Path, report: Report
) -> tuple[dict[str, str] | None, Path | None]:
    if not package.tests:
        return None, None
    python, reason = test_python(package)
    if python is None:
        report.notes.append(f"tests skipped: {reason}")
        return None, None
    outcomes, reason = run_tests(repo, python, workdir / "before.xml")
    passed = sum(1 for outcome in outcomes.values() if outcome == "passed")
    if not passed:
        report.notes.append(f"tests skipped: none passed before apply {reason}".strip())
        return None, python
    report.notes.append(f"tests: {passed} of {len(outcomes)} passed before apply")
    return outcomes, python


def tests_after(
    repo: Path, workdir: Path, before: dict[str, str], python: Path | None, report: Report
) -> None:
    assert python is not None
    after, reason = run_tests(repo, python, workdir / "after.xml")
    if reason:
        report.fail("tests", f"after apply: {reason}")
    broken = broken_tests(before, after)
    if broken:
        shown = "; ".join(broken[:5]) + (f"; ... {len(broken) - 5} more" if len(broken) > 5 else "")
        report.fail("tests", f"{len(broken)} test(s) passed before apply and fail after: {shown}")


# --- the table -----------------------------------------------------------------------


def sites_cell(sites: Counter[tuple[str, str]]) -> str:
    if not sites:
        return "none"
    return ", ".join(f"{rule} {action} {n}" for (rule, action), n in sorted(sites.items()))


def failures_cell(report: Report) -> str:
    if not report.failures:
        return "none"
    counts = Counter(invariant for invariant, _ in report.failures)
    return ", ".join(f"{invariant} ({n})" for invariant, n in sorted(counts.items()))


def table(reports: Sequence[Report]) -> str:
    rows = [
        "| package | version | files | lines | sites by rule and action | failures | seconds |",
        "| --- | --- | ---: | ---: | --- | --- | ---: |",
    ]
    for r in reports:
        rows.append(
            f"| {r.name} | {r.version} | {r.files} | {r.lines} | {sites_cell(r.sites)} "
            f"| {failures_cell(r)} | {r.seconds:.0f} |"
        )
    return "\n".join(rows)


def details(reports: Sequence[Report]) -> str:
    out = []
    for r in reports:
        if not r.failures and not r.notes:
            continue
        out.append(f"#### {r.name} {r.version}\n")
        out.extend(f"- **{invariant}**: {detail}" for invariant, detail in r.failures)
        out.extend(f"- note: {note}" for note in r.notes)
        out.append("")
    return "\n".join(out)


def machine() -> str:
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}"
    )


def write_doc(reports: Sequence[Report], context: Context, elapsed: float) -> None:
    text = DOC.read_text() if DOC.exists() else ""
    head = text.split(RESULTS_MARK)[0] if RESULTS_MARK in text else DOC_INTRO
    kind = "bounded" if context.bounded else "full"
    body = (
        f"{RESULTS_MARK}\n\n"
        f"{kind.capitalize()} run on {machine()}, `-j {context.jobs}`, "
        f"{len(reports)} packages, {elapsed / 60:.1f} minutes; {provenance(reports)}.\n\n"
        f"{table(reports)}\n\n"
        f"### Failures and notes, package by package\n\n{details(reports)}"
    )
    DOC.write_text(head.rstrip() + "\n\n" + body.rstrip() + "\n")


def provenance(reports: Sequence[Report]) -> str:
    """Which unsentinel produced which reports, and when: a table merged from several runs
    (``--from-json``) says each run's tool, not the checkout that merged them."""
    groups: dict[tuple[str, str], list[str]] = {}
    for report in reports:
        tool = f"unsentinel {report.tool}" if report.tool else "an unrecorded unsentinel"
        key = (tool, report.ran[:10] or "an unrecorded day")
        groups.setdefault(key, []).append(report.name)
    if len(groups) == 1:
        (tool, day), _ = next(iter(groups.items()))
        return f"{tool}, {day}"
    return "; ".join(f"{tool}, {day}: {', '.join(names)}" for (tool, day), names in groups.items())


def utc_stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def tool_version(tool: Path) -> str:
    """The version of the unsentinel under test and the commit of the source it runs from
    (its ``--version`` names the directory, as pip's does)."""
    done = subprocess.run([str(tool), "--version"], capture_output=True, text=True, check=False)
    found = re.match(r"unsentinel, version (\S+)(?: from (.+) \(Python)?", done.stdout.strip())
    if found is None:
        return "?"
    version, source = found.groups()
    commit = source_commit(Path(source)) if source else None
    return f"{version} at {commit}" if commit else version


def source_commit(source: Path) -> str | None:
    """``4ebe359`` (``+ uncommitted changes``) where ``source`` is in a git checkout; None
    for an installed copy."""

    def git(*args: str) -> str | None:
        done = subprocess.run(
            ["git", "-C", str(source), *args], capture_output=True, text=True, check=False
        )
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "--short", "HEAD")
    if not commit:
        return None
    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".")
    return f"{commit} + uncommitted changes" if changed else commit


RESULTS_MARK = "## The last run"
DOC_INTRO = "# The ecosystem check\n"


# --- the command line ----------------------------------------------------------------


def earlier_reports(files: Sequence[Path]) -> list[Report]:
    """The reports of earlier ``--json`` runs; a later file's report of a package wins."""
    found: dict[str, Report] = {}
    for path in files:
        for data in json.loads(path.read_text()):
            found[data["name"]] = Report.from_json(data)
    return list(found.values())


def save_reports(path: Path, reports: Sequence[Report]) -> None:
    """Write the reports as JSON through a temporary file: a run stopped midway (or killed
    after two hours) leaves the reports of every package it finished, never half a file."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps([r.to_json() for r in in_list_order(reports)], indent=2) + "\n")
    partial.replace(path)


def in_list_order(reports: Sequence[Report]) -> list[Report]:
    """The reports in the order of PACKAGES (unknown names last), as the table lists them."""
    order = {package.name: i for i, package in enumerate(PACKAGES)}
    return sorted(reports, key=lambda r: order.get(r.name, len(order)))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bounded", action="store_true", help="the subset for CI (<= 10 min)")
    parser.add_argument("--only", action="append", default=[], metavar="NAME")
    parser.add_argument("--write-doc", action="store_true", help=f"write the table to {DOC}")
    parser.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        help="also write the reports as JSON, after each package",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary repositories")
    parser.add_argument("-j", "--jobs", type=int, default=2, choices=(1, 2))
    parser.add_argument(
        "--types",
        action="store_true",
        help="also fail on new mypy errors in the files apply wrote (slower: mypy twice)",
    )
    parser.add_argument("--unsentinel", type=Path, default=default_unsentinel())
    parser.add_argument(
        "--from-json",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="start from the reports of an earlier --json run (repeatable); with --only, the "
        "packages named are run again and replace theirs, without it nothing runs",
    )
    args = parser.parse_args(argv)
    label = tool_version(args.unsentinel)
    context = Context(args.unsentinel, args.jobs, args.bounded, args.keep, args.types, label)
    started = time.perf_counter()
    reports = earlier_reports(args.from_json)
    to_run = selected(args.bounded, args.only) if args.only or not args.from_json else []
    for package in to_run:
        print(f"{package.name} {package.version} ...", file=sys.stderr, flush=True)
        report = check_package(package, context)
        reports = [r for r in reports if r.name != report.name] + [report]
        print(f"  {failures_cell(report)} ({report.seconds:.0f} s)", file=sys.stderr)
        if args.json:
            save_reports(args.json, reports)
    reports = in_list_order(reports)
    elapsed = time.perf_counter() - started if to_run else 0.0
    elapsed += sum(r.seconds for r in reports if r.name not in {p.name for p in to_run})
    print(table(reports))
    print()
    print(details(reports))
    print(f"{len(reports)} packages in {elapsed / 60:.1f} minutes on {machine()}")
    if args.json:
        save_reports(args.json, reports)
    if args.write_doc:
        write_doc(reports, context, elapsed)
    return 1 if any(r.failures for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
