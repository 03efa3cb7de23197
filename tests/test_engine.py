"""The per-file pipeline and the run: results, failures, ordering, exit codes."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import libcst as cst
import pytest

import unsentinel.registry
from unsentinel import rewrite_source
from unsentinel.core.config import Config
from unsentinel.core.discovery import Discovery
from unsentinel.core.engine import Pipeline
from unsentinel.core.facts import FactBook
from unsentinel.core.imports import ImportRequest
from unsentinel.core.model import (
    Action,
    FileResult,
    FileTask,
    Kind,
    Mode,
    Position,
    Site,
    Status,
)
from unsentinel.core.rule import Rule
from unsentinel.core.runner import RunResult
from unsentinel.registry import run, suite

pytestmark = pytest.mark.usefixtures("detector_rules")


def process(path: Path, mode: Mode = Mode.CHECK, **settings: object) -> FileResult:
    config = Config(root=path.parent, **settings)  # type: ignore[arg-type]
    return Pipeline(config, suite(config), FactBook(), mode).process(FileTask(path, path.name))


# -- the pure seam ------------------------------------------------------------------------


def test_rewrite_source_reports_without_changing() -> None:
    source = 'warnings.append("BLOCK: x")\nif w.startswith(BLOCK_WARNING_PREFIX): pass\n'
    new, sites = rewrite_source(source)
    assert new == source
    assert [(s.rule, s.position.line, s.position.column) for s in sites] == [
        ("UNS001", 1, 17),
        ("UNS002", 2, 17),
    ]


def test_rewrite_source_applies_edits(rewriting_rule: type[Rule]) -> None:
    new, _ = rewrite_source('x = "BLOCK: a"\n', rules=[rewriting_rule])
    assert new == 'x = "OK: a"\n'


# -- the file pipeline --------------------------------------------------------------------


def test_results_are_frozen_and_picklable(tmp_path: Path, rewriting_rule: type[Rule]) -> None:
    (tmp_path / "mod.py").write_text('x = "BLOCK: a"\n')
    result = run([tmp_path], Config(root=tmp_path), Mode.DIFF, jobs=1)
    assert pickle.loads(pickle.dumps(result)) == result
    [file_result] = result.results
    with pytest.raises(AttributeError):
        file_result.path = "other.py"  # type: ignore[misc]


def test_check_mode_computes_no_new_source(tmp_path: Path, rewriting_rule: type[Rule]) -> None:
    (tmp_path / "mod.py").write_text('x = "BLOCK: a"\n')
    assert process(tmp_path / "mod.py", Mode.CHECK).new_source is None
    diff = process(tmp_path / "mod.py", Mode.DIFF)
    assert diff.new_source == b'x = "OK: a"\n'
    assert (diff.original, diff.new_text) == ('x = "BLOCK: a"\n', 'x = "OK: a"\n')


def test_sites_are_sorted_by_position(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text('b = BLOCK_WARNING_PREFIX\na = "BLOCK: 1"; c = "BLOCK: 2"\n')
    sites = process(tmp_path / "mod.py").sites
    assert [(s.position.line, s.position.column) for s in sites] == [(1, 5), (2, 5), (2, 21)]


def test_large_file_is_skipped_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_text('x = "BLOCK: a"\n' * 10)
    result = process(tmp_path / "big.py", max_file_size=100)
    assert result.status is Status.SKIPPED
    assert result.skip_reason == "larger than max-file-size (150 > 100 bytes)"


def test_generated_marker_is_looked_for_near_the_top(tmp_path: Path) -> None:
    marker = "@" + "generated"
    (tmp_path / "top.py").write_text(f'# {marker}\nx = "BLOCK: a"\n')
    (tmp_path / "deep.py").write_text("#\n" * 3000 + f'# {marker}\nx = "BLOCK: a"\n')
    assert process(tmp_path / "top.py").skip_reason == "generated file (@generated)"
    assert process(tmp_path / "deep.py").status is Status.PARSED


class BreaksTheCode(Rule):
    code = "TST901"
    name = "breaks-the-code"
    summary = "Replaces every BLOCK: literal by something that does not parse"

    @classmethod
    def needles(cls, config: Config) -> tuple[bytes, ...]:
        return (b"BLOCK:",)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self.context.replace(node, lambda updated: cst.Name("lambda"))


def test_rewrite_that_does_not_parse_fails_the_file_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(unsentinel.registry, "ALL_RULES", (BreaksTheCode,))
    target = tmp_path / "mod.py"
    target.write_text('x = "BLOCK: a"\n')
    result = run([target], Config(root=tmp_path), Mode.APPLY, jobs=1)
    [file_result] = result.results
    assert file_result.status is Status.FAILED
    assert file_result.error is not None
    assert "does not parse" in file_result.error
    assert "file left unchanged" in file_result.error
    assert target.read_text() == 'x = "BLOCK: a"\n'
    assert result.exit_code == 2


class RemovesAnImport(Rule):
    code = "TST902"
    name = "removes-an-import"
    summary = "Schedules only an import removal"

    @classmethod
    def needles(cls, config: Config) -> tuple[bytes, ...]:
        return (b"BLOCK_WARNING_PREFIX",)

    def visit_Module(self, node: cst.Module) -> None:
        self.context.remove_import("tools.utils", "BLOCK_WARNING_PREFIX")


def test_an_import_removal_alone_is_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(unsentinel.registry, "ALL_RULES", (RemovesAnImport,))
    (tmp_path / "mod.py").write_text("from tools.utils import BLOCK_WARNING_PREFIX\nx = 1\n")
    result = process(tmp_path / "mod.py", Mode.DIFF)
    assert result.new_source == b"x = 1\n"


@pytest.mark.parametrize(
    "expression",
    [
        pytest.param("(" * 5000 + '"BLOCK: a"' + ")" * 5000, id="5000 parentheses"),
        pytest.param("(" * 300 + '"BLOCK: a"' + ")" * 300, id="more parentheses than CPython"),
        pytest.param("-" * 100_000 + '"BLOCK: a"', id="100000 unary minus"),
        pytest.param('"BLOCK: a"' + ".b" * 20_000, id="20000 attributes"),
        pytest.param('"BLOCK: a"' + " + a" * 10_000, id="10000 additions"),
    ],
)
def test_deep_nesting_fails_the_file_not_the_run(tmp_path: Path, expression: str) -> None:
    """LibCST's native parser dies with SIGSEGV on these: they must never reach it.

    Run in a subprocess so that a regression is a failed test, not a dead test run.
    """
    (tmp_path / "deep.py").write_text(f"x = {expression}\n")
    (tmp_path / "fine.py").write_text('print("BLOCK: a")\n')
    completed = subprocess.run(
        [sys.executable, "-m", "unsentinel", "check", "-j", "1", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert completed.returncode == 2, completed.stderr
    assert completed.stdout.startswith("fine.py:1:7: UNS001")
    [error] = [line for line in completed.stderr.splitlines() if line.startswith("error:")]
    assert error.startswith("error: deep.py: too deeply nested to parse")


def test_results_come_back_in_path_order(tmp_path: Path) -> None:
    names = [f"m{i:02}.py" for i in range(20)]
    for name in reversed(names):
        (tmp_path / name).write_text('x = "BLOCK: a"\n' * (30 - int(name[1:3])))
    for jobs in (1, 3):
        result = run([tmp_path], Config(root=tmp_path), Mode.CHECK, jobs=jobs)
        assert [Path(r.path).name for r in result.results] == names


# -- exit codes ---------------------------------------------------------------------------

SITE = Site("UNS001", Kind.DETECTOR, Position(1, 1, 1, 2), "m", Action.REPORT)
WITH_SITE = FileResult("a.py", Status.PARSED, sites=(SITE,))
CHANGED = FileResult("a.py", Status.PARSED, sites=(SITE,), new_source=b"x", new_text="x")
CLEAN = FileResult("a.py", Status.PARSED)
FAILED = FileResult("b.py", Status.FAILED, error="syntax error")


@pytest.mark.parametrize(
    ("mode", "results", "extra", "code"),
    [
        pytest.param(Mode.CHECK, (CLEAN,), {}, 0, id="check clean"),
        pytest.param(Mode.CHECK, (WITH_SITE,), {}, 1, id="check with findings"),
        pytest.param(Mode.CHECK, (WITH_SITE, FAILED), {}, 2, id="check with a failure"),
        pytest.param(
            Mode.CHECK,
            (CLEAN,),
            {"discovery": Discovery((), errors=(("x", "no such file"),))},
            2,
            id="check with a bad argument",
        ),
        pytest.param(Mode.DIFF, (CLEAN,), {}, 0, id="diff clean"),
        pytest.param(Mode.DIFF, (CHANGED,), {}, 1, id="diff with changes"),
        # apply: 0 when everything it set out to write was written (the CLI's
        # --exit-non-zero-on-fix asks for 1 instead; it is not a property of the run).
        pytest.param(
            Mode.APPLY, (CHANGED,), {"written": ("a.py",)}, 0, id="apply wrote everything"
        ),
        pytest.param(
            Mode.APPLY,
            (CHANGED,),
            {"held_back": ("a.py",)},
            2,
            id="apply held everything back, nothing written",
        ),
        pytest.param(Mode.APPLY, (CLEAN,), {}, 0, id="apply with nothing to do"),
        pytest.param(Mode.APPLY, (CHANGED,), {"refused_dirty": ("a.py",)}, 2, id="apply refused"),
        pytest.param(
            Mode.APPLY,
            (CHANGED,),
            {"write_errors": (("a.py", "disk full"),)},
            2,
            id="apply write error",
        ),
        pytest.param(Mode.PLAN, (WITH_SITE,), {}, 0, id="plan is a listing"),
        pytest.param(Mode.PLAN, (FAILED,), {}, 2, id="plan with a failure"),
    ],
)
def test_exit_code(
    mode: Mode, results: tuple[FileResult, ...], extra: dict[str, Any], code: int
) -> None:
    settings = {"discovery": Discovery(()), **extra}
    assert RunResult(mode, results, **settings).exit_code == code


def test_a_first_party_import_goes_before_the_relative_ones() -> None:
    """isort's order: ``from pkg import x`` before ``from . import y``, each in a block of
    its own (relative imports are isort's local-folder section, as ruff's I001 has it)."""
    from unsentinel.core.imports import ImportRequest, fix_imports

    module = cst.parse_module(
        "import logging\n\nfrom . import store\nfrom .web import jsonify\n\nx = 1\n"
    )
    fixed = fix_imports(
        module,
        [ImportRequest("errsvc", "error_codes", None)],
        [],
        "errsvc.batch",
        lambda top: top == "errsvc",
    )
    assert fixed.code == (
        "import logging\n\n"
        "from errsvc import error_codes\n\n"
        "from . import store\n"
        "from .web import jsonify\n\n"
        "x = 1\n"
    )


@pytest.mark.parametrize(
    ("source", "request_", "expected"),
    [
        pytest.param(
            "from ui import Badge\n\nfrom app.models import Thing\n\nx = 1\n",
            ImportRequest("typing", "Any"),
            "from typing import Any\n\nfrom ui import Badge\n\nfrom app.models import Thing\n\n"
            "x = 1\n",
            id="stdlib block above third party",
        ),
        pytest.param(
            '"""Doc."""\n\n# third party\nfrom ui import Badge\n\nx = 1\n',
            ImportRequest("typing", "Any"),
            '"""Doc."""\n\nfrom typing import Any\n\n# third party\nfrom ui import Badge\n\n'
            "x = 1\n",
            id="a comment heading the block stays with it",
        ),
        pytest.param(
            "import os\n\nfrom app.models import Thing\n\nx = 1\n",
            ImportRequest("ui", "Badge"),
            "import os\n\nfrom ui import Badge\n\nfrom app.models import Thing\n\nx = 1\n",
            id="third party between stdlib and first party",
        ),
        pytest.param(
            "import os\n\nx = 1\n",
            ImportRequest("app", "warning_codes"),
            "import os\n\nfrom app import warning_codes\n\nx = 1\n",
            id="first party after the last block",
        ),
    ],
)
def test_a_new_section_block_goes_where_isort_puts_it(
    source: str, request_: ImportRequest, expected: str
) -> None:
    from unsentinel.core.imports import fix_imports

    fixed = fix_imports(cst.parse_module(source), [request_], [], "app.mod", lambda t: t == "app")
    assert fixed.code == expected


def test_a_name_of_a_package_imported_below_code_joins_that_packages_block() -> None:
    """``from app import hass`` sits below a logging set-up, where LibCST's merge does not
    look: the new ``from app import error_codes`` goes into that block, beside the
    package's other imports, not to the end of the top block above the code (hass-mcp)."""
    from unsentinel.core.imports import fix_imports

    module = cst.parse_module(
        "import logging\n\nlogging.basicConfig()\n\nfrom app.store import load\n"
        "from app import hass\n\nx = 1\n"
    )
    requests = [ImportRequest("app", "error_codes"), ImportRequest("app.model", "Detail")]
    fixed = fix_imports(module, requests, [], "app.server", lambda top: top == "app")
    assert fixed.code == (
        "import logging\n\nlogging.basicConfig()\n\n"
        "from app import error_codes\nfrom app.model import Detail\n"
        "from app.store import load\nfrom app import hass\n\nx = 1\n"
    )
