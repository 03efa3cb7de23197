"""Start-up stays quick: the CLI and the package root load LibCST, the rules and rich lazily."""

from __future__ import annotations

import subprocess
import sys

from unsentinel.cli import OUTPUT_FORMATS
from unsentinel.output.formats import OutputFormat

PROBE = """
import sys
import unsentinel, unsentinel.cli
heavy = sorted(m for m in ("libcst", "libcst.matchers", "rich", "rich.table", "unsentinel.registry")
               if m in sys.modules)
print(",".join(heavy))
"""


def test_importing_the_cli_loads_no_libcst_rules_or_rich() -> None:
    probe = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True
    )
    assert probe.stdout.strip() == ""


def test_version_runs_without_the_engine() -> None:
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from unsentinel.cli import main; "
            "sys.argv=['unsentinel','--version']; "
            "import atexit; atexit.register(lambda: print('libcst' in sys.modules)); main()",
        ],
        capture_output=True,
        text=True,
    )
    assert probe.stdout.splitlines() == ["unsentinel, version " + probe.stdout.split()[2], "False"]


def test_the_cli_knows_every_output_format() -> None:
    assert tuple(f.value for f in OutputFormat) == OUTPUT_FORMATS


def test_the_lazy_root_exports_resolve() -> None:
    import unsentinel

    assert callable(unsentinel.run) and callable(unsentinel.rewrite_source)
    assert unsentinel.RunResult.__name__ == "RunResult"
