"""Start-up stays quick: the CLI and the package root load LibCST, the rules and rich lazily."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
    first, loaded = probe.stdout.splitlines()
    assert first.startswith("unsentinel, version ")
    assert loaded == "False"


def test_the_cli_knows_every_output_format() -> None:
    assert tuple(f.value for f in OutputFormat) == OUTPUT_FORMATS


def test_the_lazy_root_exports_resolve() -> None:
    import unsentinel

    assert callable(unsentinel.run) and callable(unsentinel.rewrite_source)
    assert unsentinel.RunResult.__name__ == "RunResult"


# The CLI's entry point, run in a fresh interpreter; at exit it prints which heavy modules
# the command loaded (``-X importtime`` would show the same, less directly).
WRAPPER = """
import atexit, sys
from unsentinel.cli import main
HEAVY = ("libcst", "libcst.matchers", "libcst.codemod", "rich", "rich.table")
atexit.register(lambda: print("loaded:" + ",".join(m for m in HEAVY if m in sys.modules)))
sys.argv = ["unsentinel", *sys.argv[1:]]
main()
"""


def _loaded(*args: str, cwd: Path | None = None) -> list[str]:
    """The heavy modules ``unsentinel ARGS`` imported, read from the wrapper's last line."""
    probe = subprocess.run(
        [sys.executable, "-c", WRAPPER, *args], capture_output=True, text=True, cwd=cwd
    )
    last = probe.stdout.splitlines()[-1]
    assert last.startswith("loaded:"), probe.stdout + probe.stderr
    return [name for name in last.removeprefix("loaded:").split(",") if name]


def test_version_loads_neither_libcst_nor_rich() -> None:
    assert _loaded("--version") == []


def test_check_of_a_file_without_candidates_loads_neither_libcst_nor_rich(
    tmp_path: Path,
) -> None:
    (tmp_path / "plain.py").write_text("def add(a: int, b: int) -> int:\n    return a + b\n")
    assert _loaded("check", "plain.py", "--no-cache", cwd=tmp_path) == []


def test_a_file_with_a_candidate_does_load_libcst(tmp_path: Path) -> None:
    """The counterpart: the rules, and LibCST with them, come in when a file needs them --
    but never ``libcst.matchers`` (half a second of import for every process that parses,
    the rules ask ``core.syntax.is_name`` instead), nor ``libcst.codemod``."""
    (tmp_path / "mod.py").write_text(
        'def f(warnings):\n    warnings.append("BLOCK: x")\n    return {"error": "no"}\n'
    )
    for command in ("check", "plan", "diff"):
        extra = ("--no-cache",) if command == "check" else ()
        loaded = _loaded(command, "mod.py", *extra, cwd=tmp_path)
        assert "libcst" in loaded
        assert "libcst.matchers" not in loaded and "libcst.codemod" not in loaded


DETECTION = """
import sys
from unsentinel import registry
from unsentinel.core import runner
from unsentinel.core.prefilter import Prefilter
from unsentinel.core.config import Config
import ast
prefilter = Prefilter(registry.DETECTORS, Config())
data = b'def f(warnings):\\n    warnings.append("BLOCK: x")\\n'
assert prefilter.may_match(data) and prefilter.second_look(data, ast.parse(data)).candidates
print(",".join(m for m in sys.modules if m.split(".")[0] == "libcst" or ".rules." in m))
"""


def test_detection_imports_no_rule_module_and_no_libcst() -> None:
    """The prefilter, the registry and the runner at module level: import-linter sees a
    lazy import as an import, so this is where "module level" is checked."""
    probe = subprocess.run(
        [sys.executable, "-c", DETECTION], capture_output=True, text=True, check=True
    )
    assert probe.stdout.strip() == ""
