"""Measure how fast unsentinel is, and write the figures to docs/benchmarks.md.

    python benchmarks/run.py            # default sizes, about two minutes on two cores
    python benchmarks/run.py --quick    # smaller tree, for a smoke run

It builds a synthetic repository in a temporary directory -- many ordinary modules that
mention neither a sentinel nor a warnings list, plus copies of the fixture's modules that
do -- and times the commands a maintainer runs: ``check`` over the whole tree (CI),
``check`` on one changed file (a pre-commit hook), ``diff`` and ``apply`` (the migration),
and ``check`` over the installed standard library. Each timing is the best of a few runs
of the real command line in a subprocess, so process start-up is included.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "fixtures" / "mcp_orders"
DOC = ROOT / "docs" / "benchmarks.md"

ORDINARY_MODULE = '''"""Module {index}: ordinary code with nothing to migrate."""

from dataclasses import dataclass


@dataclass
class Record{index}:
    name: str
    quantity: int = 0

    def describe(self) -> str:
        return f"{{self.name}} x{{self.quantity}}"


def total_{index}(records: list[Record{index}]) -> int:
    return sum(record.quantity for record in records if record.quantity > 0)
'''


def build_repository(root: Path, ordinary: int, copies: int) -> tuple[int, int]:
    """``ordinary`` plain modules plus ``copies`` copies of the fixture package."""
    shutil.copy(FIXTURE / "pyproject.toml", root / "pyproject.toml")
    for index in range(ordinary):
        package = root / "app" / f"area_{index // 100}"
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").touch()
        (package / f"module_{index}.py").write_text(ORDINARY_MODULE.format(index=index))
    (root / "app" / "__init__.py").touch()
    for copy in range(copies):
        target = root / ("orders_mcp" if copy == 0 else f"orders_mcp_{copy}")
        shutil.copytree(FIXTURE / "orders_mcp", target)
    files = list(root.rglob("*.py"))
    lines = sum(len(path.read_bytes().splitlines()) for path in files)
    return len(files), lines


def timed(command: list[str], cwd: Path, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, cwd=cwd, capture_output=True, check=False)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smaller tree and fewer repeats")
    parser.add_argument("--no-write", action="store_true", help="print, don't update the docs")
    args = parser.parse_args()
    ordinary, copies, repeat = (300, 2, 1) if args.quick else (2000, 5, 2)
    unsentinel = [sys.executable, "-m", "unsentinel"]
    rows: list[tuple[str, str, float]] = []
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        files, lines = build_repository(root, ordinary, copies)
        tree = f"{files} files, {lines:,} lines ({copies} copies of the fixture package)"
        one_file = "orders_mcp/tools/sales_orders.py"
        rows.append(("check, whole tree (CI)", tree, timed([*unsentinel, "check", "."], root, repeat)))
        rows.append(("check, whole tree, -j 1", tree, timed([*unsentinel, "check", "-j", "1", "."], root, repeat)))
        rows.append(("check, one changed file (pre-commit)", one_file, timed([*unsentinel, "check", one_file], root, repeat)))
        rows.append(("diff, whole tree", tree, timed([*unsentinel, "diff", "."], root, 1)))
        rows.append(("apply, whole tree", tree, timed([*unsentinel, "apply", "--allow-dirty", "."], root, 1)))
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    stdlib_files = sum(1 for p in stdlib.rglob("*.py") if "site-packages" not in p.parts)
    stdlib_check = timed([*unsentinel, "check", str(stdlib)], ROOT, 1)
    rows.append(("check, the standard library", f"{stdlib_files} files", stdlib_check))
    report = render(rows)
    print(report)
    if not args.no_write and not args.quick:
        DOC.write_text(report, encoding="utf-8")
        print(f"wrote {DOC}")


def render(rows: list[tuple[str, str, float]]) -> str:
    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    lines = [
        "# Benchmarks",
        "",
        "Written by `python benchmarks/run.py` (rerun it to refresh this page). Each figure is",
        "the best of two runs (one for diff, apply and the standard library) of the real",
        "command in a subprocess, start-up included.",
        f"Machine: {machine}.",
        "",
        "| command | input | seconds |",
        "| --- | --- | --- |",
        *(f"| {name} | {what} | {seconds:.2f} |" for name, what, seconds in rows),
        "",
        "Most modules of a real repository mention neither a sentinel nor a warnings list; the",
        "byte-level prefilter keeps them away from the LibCST parser, so `check` costs about",
        "the time to read them. Files that do mention one are parsed once and analysed by every",
        "rule in a single traversal. `diff` and `apply` add the gather pass, which re-reads only",
        "the files that can carry facts across modules.",
        "",
        "For a pre-commit hook, pass only the changed files: the cost is then mostly the",
        "interpreter's start-up. The standard library is a hard case for the prefilter: about",
        "120 of its files mention an error-ish dict key or a list named `warnings`, and each",
        "of those is parsed by LibCST (pure Python), which dominates that figure.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
