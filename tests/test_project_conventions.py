"""The project's own conventions, read from its files: where its installed code lives, and
how its formatter and import sorter lay code out. A migration writes where the installed
package can import it and as the project's tools would have written it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import WriteTree

from unsentinel.cli import main


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- where generated modules go --------------------------------------------------------------

SERVER = """
def check(region):
    try:
        return {"region": region, "ok": do(region)}
    except Exception as e:
        return {"region": region, "error": str(e), "message": "Error checking status."}
"""


def test_generated_modules_go_into_the_package_of_a_pep_420_namespace(
    root: Path, write_tree: WriteTree, cli: CliRunner
) -> None:
    """``ns/mypkg/`` without ``ns/__init__.py``, shipped as ``packages = ["ns"]``: the
    modules go where the installed code can import them, not to the repository root."""
    write_tree(
        {
            "pyproject.toml": '[project]\nname = "ns.mypkg"\n'
            '[tool.hatch.build.targets.wheel]\npackages = ["ns"]\n',
            "ns/mypkg/__init__.py": "",
            "ns/mypkg/server.py": SERVER,
        }
    )
    result = cli.invoke(main, ["diff", ".", "-j", "1"])
    assert "+++ b/ns/mypkg/error_codes.py" in result.stdout
    assert "+++ b/ns/mypkg/error_model.py" in result.stdout
    assert "+from ns.mypkg import error_codes\n" in result.stdout
    assert "+from ns.mypkg.error_model import ErrorDetail\n" in result.stdout
    assert "warning:" not in result.stderr


def test_a_module_generated_at_the_root_of_an_installed_project_is_warned_about(
    root: Path, write_tree: WriteTree, cli: CliRunner
) -> None:
    """Two packages and no setting: the modules go to the root, which the built
    distribution does not ship, so the rewritten code would not import once installed."""
    write_tree({"a/__init__.py": "", "a/server.py": SERVER, "b/__init__.py": ""})
    plain = cli.invoke(main, ["diff", ".", "-j", "1"])
    assert "+++ b/error_codes.py" in plain.stdout
    assert "warning:" not in plain.stderr  # not a distribution: the root is on sys.path
    write_tree({"pyproject.toml": '[build-system]\nrequires = ["hatchling"]\n'})
    result = cli.invoke(main, ["diff", ".", "-j", "1", "-q"])
    assert "+++ b/error_codes.py" in result.stdout
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2, result.stderr
    assert "error_codes.py" in warnings[0] and "error-codes-module" in warnings[0]
    assert "error_model.py" in warnings[1] and "error-model-module" in warnings[1]
